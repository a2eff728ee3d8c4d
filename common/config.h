/*
 * config.h -- h5sf settings: the option table, config strings, environment.
 *
 * One table (h5sf_options[]) names every knob with its config-string key, its
 * H5SF_* environment variable, the built-in subfiling driver's fallback
 * variable, its default and its help text.  The parser, h5sf-options and the
 * generated reference table in docs/configuration.md all read this table, so
 * code and documentation cannot drift.
 *
 * Precedence, lowest to highest:
 *   defaults < fapl struct / config string < H5FD_SUBFILING_* / H5FD_IOC_*
 *   < H5SF_* environment.
 * When an existing file is opened, its stored layout (stripe size and count)
 * wins over all of these.  Each rank resolves its own; at open, rank 0's
 * resolved settings become every rank's (vfd/h5sf.c, settings_agree), since
 * they shape collective steps.
 */
#ifndef H5SF_CONFIG_H
#define H5SF_CONFIG_H

#include <stddef.h>
#include <stdint.h>
#include "errbuf.h"
#include "../include/h5sf.h"

#define H5SF_DEFAULT_STRIPE_SIZE ((int64_t)32 * 1024 * 1024)
#define H5SF_DEFAULT_THREADS     4
/* Subfiles per IOC of a new file when stripe_count is left at 0, at most
 * (common/iocmap.h, h5sf_iocmap_default_count; measured in
 * docs/performance.md, "The default subfile count"). */
#define H5SF_DEFAULT_SUBFILES_PER_IOC 4
#define H5SF_DEFAULT_TIMEOUT     300
#define H5SF_MAX_STRIPE_COUNT    65536
#define H5SF_MAX_THREADS         256

typedef struct h5sf_option {
    const char *key;       /* config-string key, e.g. "stripe_size"            */
    const char *env;       /* e.g. "H5SF_STRIPE_SIZE"                           */
    const char *fallback;  /* built-in's variable, or NULL                      */
    const char *def;       /* default, as text for docs                         */
    const char *syntax;    /* value syntax for docs                             */
    const char *help;
} h5sf_option_t;

extern const h5sf_option_t h5sf_options[];   /* terminated by key == NULL */

/* Runtime variables that are not layout options (H5SF_STATS, H5SF_LOG, ...):
 * same shape, key may be "-" when no config-string key exists. */
extern const h5sf_option_t h5sf_runtime_vars[];

/* Fill defaults: magic/version set, everything else "default". */
void h5sf_config_defaults(H5FD_h5sf_config_t *c);

/* Check a struct handed to H5Pset_fapl_h5sf: magic, version, ranges, enums. */
int h5sf_config_validate(const H5FD_h5sf_config_t *c, h5sf_errbuf_t *e);

/* Apply "key=value,key=value" onto *c.  Sizes accept B, KiB, MiB, GiB, TiB,
 * K, M, G, T (powers of two); unknown keys, bad values and overflow fail with
 * a message naming the key and the value. */
int h5sf_config_parse(const char *str, H5FD_h5sf_config_t *c, h5sf_errbuf_t *e);

/* Apply environment overrides (fallback names first, then H5SF_*), with the
 * same checks; a bad value fails naming the variable.  Reads the environment
 * through getenv; called at open and by H5Pget_fapl_h5sf only. */
int h5sf_config_apply_env(H5FD_h5sf_config_t *c, h5sf_errbuf_t *e);

/* Parse pieces, exported for the tools and tests. */
int h5sf_parse_size(const char *s, int64_t *out, h5sf_errbuf_t *e, const char *what);
int h5sf_parse_int(const char *s, int32_t lo, int32_t hi, int32_t *out, h5sf_errbuf_t *e, const char *what);
/* "per_node", "per_node:N", "every:N", "total:N", "ranks:0;4;8" */
int h5sf_parse_ioc(const char *s, H5FD_h5sf_config_t *c, h5sf_errbuf_t *e, const char *what);
/* Parse an ioc_list ("0;4;8") into sorted ranks; fails on duplicates or
 * ranks outside [0, comm_size). *out is malloc'd. */
int h5sf_parse_rank_list(const char *s, int comm_size, int **out, int *n, h5sf_errbuf_t *e);

/* Render the effective settings as a config string (for logs and tools). */
int h5sf_config_format(const H5FD_h5sf_config_t *c, char *buf, size_t n);

#endif
