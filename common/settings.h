/*
 * settings.h -- h5sf settings: the option table, config strings, environment.
 *
 * One table (h5sf_options[]) names every knob with its config-string key, its
 * H5SF_* environment variable, the built-in subfiling driver's fallback
 * variable, its default and its help text.  The parser, h5sf-options and the
 * generated reference table in docs/configuration.md all read this table, so
 * code and documentation cannot drift.
 *
 * Everything here works on an h5sf_settings_t: the fields of the public
 * H5FD_h5sf_config_t (include/h5sf.h) without its MPI handles, magic and
 * version, so common/ needs neither MPI nor HDF5.  vfd/fapl_settings.c converts
 * between the two and checks that the enum values below are the public ones.
 *
 * Precedence, lowest to highest:
 *   defaults < fapl struct / config string < H5FD_SUBFILING_* / H5FD_IOC_*
 *   < H5SF_* environment.
 * When an existing file is opened, its stored layout (stripe size and count)
 * wins over all of these.  Each rank resolves its own; at open, rank 0's
 * resolved settings become every rank's (vfd/h5sf.c, settings_agree), since
 * they shape collective steps.
 */
#ifndef H5SF_SETTINGS_H
#define H5SF_SETTINGS_H

#include <stddef.h>
#include <stdint.h>
#include "bounds.h"
#include "errbuf.h"
#include "values.h"

/* Which channel carries per-subfile I/O (H5FD_h5sf_channel_t's values). */
#define H5SF_CHANNEL_AUTO   0
#define H5SF_CHANNEL_IOC    1
#define H5SF_CHANNEL_DIRECT 2

/* How IOC ranks are chosen (H5FD_h5sf_ioc_mode_t's values). */
#define H5SF_IOC_PER_NODE  0
#define H5SF_IOC_EVERY_NTH 1
#define H5SF_IOC_TOTAL     2
#define H5SF_IOC_LIST      3

/* Zero in a numeric field and "" in a string field mean "default". */
typedef struct h5sf_settings {
    int64_t stripe_size;
    int32_t stripe_count;
    int32_t ioc_mode;  /* H5SF_IOC_*                                 */
    int32_t ioc_param; /* N for PER_NODE / EVERY_NTH / TOTAL         */
    char    ioc_list[H5SF_IOC_LIST_LEN];
    int32_t threads;
    int32_t channel; /* H5SF_CHANNEL_*                             */
    int32_t fsync;
    int32_t timeout;
    char    subfile_dir[H5SF_PATH_MAX];
    char    config_dir[H5SF_PATH_MAX];
} h5sf_settings_t;

typedef struct h5sf_option {
    const char *key;      /* config-string key, e.g. "stripe_size"            */
    const char *env;      /* e.g. "H5SF_STRIPE_SIZE"                           */
    const char *fallback; /* built-in's variable, or NULL                      */
    const char *def;      /* default, as text for docs                         */
    const char *syntax;   /* value syntax for docs                             */
    const char *help;
} h5sf_option_t;

extern const h5sf_option_t h5sf_options[]; /* terminated by key == NULL */

/* Runtime variables that are not layout options (H5SF_STATS, H5SF_LOG, ...):
 * same shape, key may be "-" when no config-string key exists. */
extern const h5sf_option_t h5sf_runtime_vars[];

/* Fill defaults: everything "default". */
void h5sf_settings_defaults(h5sf_settings_t *c);

/* Check ranges, enums and NUL termination (what H5Pset_fapl_h5sf checks of
 * its struct after magic and version). */
int h5sf_settings_validate(const h5sf_settings_t *c, h5sf_errbuf_t *e);

/* Apply "key=value,key=value" onto *c.  Sizes accept B, KiB, MiB, GiB, TiB,
 * K, M, G, T (powers of two); unknown keys, bad values and overflow fail with
 * a message naming the key and the value. */
int h5sf_settings_parse(const char *str, h5sf_settings_t *c, h5sf_errbuf_t *e);

/* Apply environment overrides (fallback names first, then H5SF_*), with the
 * same checks; a bad value fails naming the variable.  Reads the environment
 * through getenv; called at open and by H5Pget_fapl_h5sf only. */
int h5sf_settings_apply_env(h5sf_settings_t *c, h5sf_errbuf_t *e);

/* "per_node", "per_node:N", "every:N", "total:N", "ranks:0;4;8" */
int h5sf_parse_ioc(const char *s, h5sf_settings_t *c, h5sf_errbuf_t *e, const char *what);

/* Render the effective settings as a config string (for logs and tools). */
int h5sf_settings_format(const h5sf_settings_t *c, char *buf, size_t n);

#endif
