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
    const char *fallback; /* options: built-in's variable; runtime variables:
                           * the old name, still read (an alias); or NULL  */
    const char *def;      /* default, as text for docs                         */
    const char *syntax;   /* value syntax for docs                             */
    const char *help;
} h5sf_option_t;

extern const h5sf_option_t h5sf_options[]; /* terminated by key == NULL */

/* Runtime variables that are not layout options (H5SF_STATS, H5SF_LOG, ...):
 * same shape, key may be "-" when no config-string key exists.  Row v is
 * the variable H5SF_VAR_v names (options.c places each row by its name). */
extern const h5sf_option_t h5sf_runtime_vars[];
typedef enum h5sf_var {
    H5SF_VAR_STATS,
    H5SF_VAR_LOG,
    H5SF_VAR_IOC_MEMORY,
    H5SF_VAR_IOC_SHM,
    H5SF_VAR_IOC_MAX_FDS,
    H5SF_VAR_IOC_MERGE_WAIT,
    H5SF_VAR_SAMENODE_READS,
    H5SF_VAR_SAMENODE_WRITES,
    H5SF_VAR_IOC_AFFINITY,
    H5SF_VAR_POOL_THREADS,
    H5SF_VAR_FAULT,
    H5SF_VAR_ALLOW_UNTESTED_HDF5,
    H5SF_VAR_TEST_NO_PRIVATE_HDF5,
    H5SF_VAR_TEST_TAG_UB,
    H5SF_VAR_TEST_MAX_PIECES,
    H5SF_VAR_TEST_BELL_WAIT_S,
    H5SF_VAR_TEST_SITES_TRACE,
    H5SF_VAR_REDIRECT_MPIO,
    H5SF_VAR_PRELOAD_THREAD_MULTIPLE,
    H5SF_VAR_HDF5_DRIVER, /* HDF5's, listed for the docs; h5sf does not read it */
    H5SF_VAR_HDF5_DRIVER_CONFIG,
    H5SF_NVARS
} h5sf_var_t;

/*
 * The environment, read through the table: options.c alone calls getenv
 * for an H5SF_* name (eco_docs_options checks the library, the tools and
 * the preload shim), so the list docs/configuration.md generates from the
 * table names every variable h5sf reads.
 */
/* Runtime variable v as getenv gives it: NULL when unset.  A renamed
 * variable's old name (the row's fallback) is read when the new one is unset. */
const char *h5sf_var(h5sf_var_t v);
/* The name h5sf_var(v) read, for messages: the old one when only it is set. */
const char *h5sf_var_name(h5sf_var_t v);
/* Option `key` (its config-string key, e.g. "config_dir") from the
 * environment: its H5SF_* variable, else the built-in driver's, each only
 * when set and not empty; NULL when neither is (or no option has that key).
 * Untrimmed and unchecked: h5sf_settings_apply_env applies and checks. */
const char *h5sf_option_env(const char *key);

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
