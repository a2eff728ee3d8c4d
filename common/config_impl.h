/*
 * config_impl.h -- shared by the files that implement common/config.h
 * (options.c, values.c, config.c, cfgstring.c); nobody else includes it.
 */
#ifndef H5SF_CONFIG_IMPL_H
#define H5SF_CONFIG_IMPL_H

#include <stdbool.h>
#include "config.h"

/* Rows of h5sf_options[] before its terminator; options.c and config.c
 * check their tables against it at compile time. */
#define H5SF_NOPTIONS 9
/* Upper bound for N in per_node:N, every:N and total:N. */
#define H5SF_MAX_IOC_PARAM (1 << 24)
#define H5SF_MAX_TIMEOUT   86400
/* Values are shown in messages at most this long, so the reason still fits. */
#define SHOW "%.200s"

static inline bool h5sf_is_space(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\v' || ch == '\f';
}
static inline bool h5sf_is_digit(char ch) { return ch >= '0' && ch <= '9'; }

/* values.c */
/* Copy s without surrounding whitespace into buf; -1 if it does not fit. */
int h5sf_trim_copy(const char *s, char *buf, size_t n);
/* 0/1, true/false, yes/no, on/off (any case). */
int h5sf_parse_bool(const char *s, int32_t *out, h5sf_errbuf_t *e, const char *what);
/* Render sorted ranks as "0;4;8"; -1 if they do not fit. */
int h5sf_format_ranks(const int *r, int n, char *buf, size_t size);

/* config.c: apply value v to option row i (what: the name to blame);
 * whether row i accepts an empty value (the directories). */
int  h5sf_option_set(size_t i, const char *v, H5FD_h5sf_config_t *c, h5sf_errbuf_t *e, const char *what);
bool h5sf_option_may_be_empty(size_t i);

#endif
