/*
 * values.h -- parsers of single setting values: sizes with binary units,
 * bounded integers, booleans, rank lists (values.c).
 *
 * The bottom of the settings code: knows no option, no settings struct and
 * no environment, so the option setters (settings.c), the config-string
 * grammar (cfgstring.c), ioc/ and the tools all build on it.  Every error
 * message has the form   <what>="<value>": <reason>.
 */
#ifndef H5SF_VALUES_H
#define H5SF_VALUES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "errbuf.h"

/* Values are shown in messages at most this long, so the reason still fits. */
#define H5SF_SHOW "%.200s"

static inline bool h5sf_is_space(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\v' || ch == '\f';
}
static inline bool h5sf_is_digit(char ch) { return ch >= '0' && ch <= '9'; }

/* Copy s without surrounding whitespace into buf; -1 if it does not fit. */
int h5sf_trim_copy(const char *s, char *buf, size_t n);

/* Sizes accept B, KiB, MiB, GiB, TiB, K, M, G, T (powers of two); must be
 * positive. */
int h5sf_parse_size(const char *s, int64_t *out, h5sf_errbuf_t *e, const char *what);
int h5sf_parse_int(const char *s, int32_t lo, int32_t hi, int32_t *out, h5sf_errbuf_t *e, const char *what);
/* 0/1, true/false, yes/no, on/off (any case). */
int h5sf_parse_bool(const char *s, int32_t *out, h5sf_errbuf_t *e, const char *what);
/* Parse an ioc_list ("0;4;8") into sorted ranks; fails on duplicates or
 * ranks outside [0, comm_size). *out is malloc'd. */
int h5sf_parse_rank_list(const char *s, int comm_size, int **out, int *n, h5sf_errbuf_t *e);
/* Render sorted ranks as "0;4;8"; -1 if they do not fit. */
int h5sf_format_ranks(const int *r, int n, char *buf, size_t size);

#endif
