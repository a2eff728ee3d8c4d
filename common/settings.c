/*
 * settings.c -- applying settings to an h5sf_settings_t: one setter per row
 * of the option table (options.c), the ioc modes, defaults, validation,
 * and the environment overrides (the built-in driver's variables first,
 * then H5SF_*).
 *
 * Works on an h5sf_settings_t and an h5sf_errbuf_t only: no HDF5 or MPI,
 * so the parsers can be unit-tested and fuzzed without either.  Single
 * values are parsed by values.c (called, never calling back); the
 * config-string grammar is cfgstring.c's, which calls the setters here.
 */
#define _XOPEN_SOURCE 700
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "alloc.h"
#include "settings_impl.h"
#include "stripe.h"

/* ---- the ioc modes ----------------------------------------------------- */

/* "word" or "word:rest" with a case-insensitive word; *rest = NULL without ':'. */
static bool match_mode(const char *s, const char *word, const char **rest)
{
    size_t n = strlen(word);
    if (strncasecmp(s, word, n) != 0)
        return false;
    if (s[n] == '\0') {
        *rest = NULL;
        return true;
    }
    if (s[n] == ':') {
        *rest = s + n + 1;
        return true;
    }
    return false;
}

int h5sf_parse_ioc(const char *s, h5sf_settings_t *c, h5sf_errbuf_t *e, const char *what)
{
    char        buf[sizeof c->ioc_list + 16];
    const char *rest = NULL;
    if (!s)
        return h5sf_fail(e, EINVAL, "%s: no value", what);
    if (h5sf_trim_copy(s, buf, sizeof buf) < 0)
        return h5sf_fail(e, EINVAL, "%s=\"" SHOW "...\": too long", what, s);

    if (match_mode(buf, "per_node", &rest) || match_mode(buf, "every", &rest) || match_mode(buf, "total", &rest)) {
        int32_t mode  = tolower((unsigned char)buf[0]) == 'p'   ? H5SF_IOC_PER_NODE
                        : tolower((unsigned char)buf[0]) == 'e' ? H5SF_IOC_EVERY_NTH
                                                                : H5SF_IOC_TOTAL;
        int32_t param = 0;
        if (!rest && mode != H5SF_IOC_PER_NODE)
            return h5sf_fail(e, EINVAL, "%s=\"" SHOW "\": needs a count, e.g. %s:4", what, s,
                             mode == H5SF_IOC_EVERY_NTH ? "every" : "total");
        if (rest && h5sf_parse_int(rest, 1, H5SF_MAX_IOC_PARAM, &param, NULL, what) < 0)
            return h5sf_fail(e, EINVAL, "%s=\"" SHOW "\": the count after ':' must be an integer 1..%d", what, s,
                             H5SF_MAX_IOC_PARAM);
        c->ioc_mode    = mode;
        c->ioc_param   = param;
        c->ioc_list[0] = '\0';
        return 0;
    }
    if (match_mode(buf, "ranks", &rest) && rest) {
        int *r = NULL, n = 0;
        char list[sizeof c->ioc_list];
        if (h5sf_parse_rank_list(rest, INT_MAX, &r, &n, e) < 0) {
            char why[sizeof e->msg];
            snprintf(why, sizeof why, "%s", e ? e->msg : "");
            return h5sf_fail(e, EINVAL, "%s=\"" SHOW "\": %s", what, s, why);
        }
        int rc = h5sf_format_ranks(r, n, list, sizeof list);
        h5sf_free(r);
        if (rc < 0)
            return h5sf_fail(e, EINVAL, "%s=\"" SHOW "...\": rank list longer than %zu characters", what, s,
                             sizeof list - 1);
        c->ioc_mode  = H5SF_IOC_LIST;
        c->ioc_param = 0;
        memcpy(c->ioc_list, list, sizeof list);
        return 0;
    }
    return h5sf_fail(e, EINVAL,
                     "%s=\"" SHOW "\": unknown IOC selection (use per_node, per_node:N, every:N, total:N or "
                     "ranks:R1;R2;...)",
                     what, s);
}

/* ---- one setter per table row ------------------------------------------ */

typedef int (*setter_t)(const char *v, h5sf_settings_t *c, h5sf_errbuf_t *e, const char *what);

static int set_stripe_size(const char *v, h5sf_settings_t *c, h5sf_errbuf_t *e, const char *what)
{
    return h5sf_parse_size(v, &c->stripe_size, e, what);
}
static int set_stripe_count(const char *v, h5sf_settings_t *c, h5sf_errbuf_t *e, const char *what)
{
    return h5sf_parse_int(v, 0, H5SF_MAX_STRIPE_COUNT, &c->stripe_count, e, what);
}
static int set_ioc(const char *v, h5sf_settings_t *c, h5sf_errbuf_t *e, const char *what)
{
    return h5sf_parse_ioc(v, c, e, what);
}
static int set_threads(const char *v, h5sf_settings_t *c, h5sf_errbuf_t *e, const char *what)
{
    return h5sf_parse_int(v, 1, H5SF_MAX_THREADS, &c->threads, e, what);
}
static int set_channel(const char *v, h5sf_settings_t *c, h5sf_errbuf_t *e, const char *what)
{
    static const char *const names[] = {"auto", "ioc", "direct"};
    char                     buf[16];
    if (h5sf_trim_copy(v, buf, sizeof buf) == 0)
        for (int i = 0; i < 3; i++)
            if (strcasecmp(buf, names[i]) == 0) {
                c->channel = i;
                return 0;
            }
    return h5sf_fail(e, EINVAL, "%s=\"" SHOW "\": unknown channel (use auto, ioc or direct)", what, v);
}
static int set_fsync(const char *v, h5sf_settings_t *c, h5sf_errbuf_t *e, const char *what)
{
    return h5sf_parse_bool(v, &c->fsync, e, what);
}
static int set_timeout(const char *v, h5sf_settings_t *c, h5sf_errbuf_t *e, const char *what)
{
    return h5sf_parse_int(v, 1, H5SF_MAX_TIMEOUT, &c->timeout, e, what);
}
/* Not trimmed here: callers trim unquoted text, and a quoted value means it. */
static int set_dir(const char *v, char *dst, size_t n, h5sf_errbuf_t *e, const char *what)
{
    size_t len = strlen(v);
    if (len >= n)
        return h5sf_fail(e, ENAMETOOLONG, "%s=\"%.60s...\": path longer than %zu characters", what, v, n - 1);
    memcpy(dst, v, len + 1);
    return 0;
}
static int set_subfile_dir(const char *v, h5sf_settings_t *c, h5sf_errbuf_t *e, const char *what)
{
    return set_dir(v, c->subfile_dir, sizeof c->subfile_dir, e, what);
}
static int set_config_dir(const char *v, h5sf_settings_t *c, h5sf_errbuf_t *e, const char *what)
{
    return set_dir(v, c->config_dir, sizeof c->config_dir, e, what);
}

/* Same order as h5sf_options[]. */
static const setter_t setters[] = {set_stripe_size, set_stripe_count, set_ioc,         set_threads,   set_channel,
                                   set_fsync,       set_timeout,      set_subfile_dir, set_config_dir};
_Static_assert(sizeof setters / sizeof setters[0] == H5SF_NOPTIONS,
               "h5sf_options[] and setters[] must have one row per option");

int h5sf_option_set(size_t i, const char *v, h5sf_settings_t *c, h5sf_errbuf_t *e, const char *what)
{
    return setters[i](v, c, e, what);
}

bool h5sf_option_may_be_empty(size_t i) { return setters[i] == set_subfile_dir || setters[i] == set_config_dir; }

/* ---- defaults and validation ------------------------------------------- */

void h5sf_settings_defaults(h5sf_settings_t *c)
{
    memset(c, 0, sizeof *c);
    c->ioc_mode = H5SF_IOC_PER_NODE;
    c->channel  = H5SF_CHANNEL_AUTO;
}

static bool nul_terminated(const char *s, size_t n) { return memchr(s, '\0', n) != NULL; }

int h5sf_settings_validate(const h5sf_settings_t *c, h5sf_errbuf_t *e)
{
    if (!c)
        return h5sf_fail(e, EINVAL, "h5sf config is NULL");
    /* Zero is the "default" marker in every numeric field. */
    if (c->stripe_size < 0)
        return h5sf_fail(e, EINVAL, "h5sf config: stripe_size=%" PRId64 " must be positive (0 = default 32MiB)",
                         c->stripe_size);
    if (c->stripe_count < 0 || c->stripe_count > H5SF_MAX_STRIPE_COUNT)
        return h5sf_fail(e, EINVAL, "h5sf config: stripe_count=%" PRId32 " out of range (0..%d)", c->stripe_count,
                         H5SF_MAX_STRIPE_COUNT);
    if (c->stripe_size > 0 && c->stripe_count > 0 && !sf_stripes_fit((uint64_t)c->stripe_size, c->stripe_count))
        return h5sf_fail(e, EINVAL,
                         "h5sf config: stripe_size=%" PRId64 " x stripe_count=%" PRId32
                         " puts the last subfile past h5sf's 2^62-byte address space",
                         c->stripe_size, c->stripe_count);
    if (c->ioc_mode < H5SF_IOC_PER_NODE || c->ioc_mode > H5SF_IOC_LIST)
        return h5sf_fail(e, EINVAL, "h5sf config: unknown ioc_mode %d", c->ioc_mode);
    if (c->ioc_param < 0 || c->ioc_param > H5SF_MAX_IOC_PARAM)
        return h5sf_fail(e, EINVAL, "h5sf config: ioc_param=%" PRId32 " out of range (0..%d)", c->ioc_param,
                         H5SF_MAX_IOC_PARAM);
    if (!nul_terminated(c->ioc_list, sizeof c->ioc_list))
        return h5sf_fail(e, EINVAL, "h5sf config: ioc_list is not NUL-terminated");
    if (c->ioc_mode == H5SF_IOC_LIST) {
        int *r = NULL, n = 0;
        if (h5sf_parse_rank_list(c->ioc_list, INT_MAX, &r, &n, e) < 0) {
            char why[sizeof e->msg];
            snprintf(why, sizeof why, "%s", e ? e->msg : "");
            return h5sf_fail(e, EINVAL, "h5sf config: ioc_list (ioc_mode ranks): %s", why);
        }
        h5sf_free(r);
    }
    if (c->threads < 0 || c->threads > H5SF_MAX_THREADS)
        return h5sf_fail(e, EINVAL, "h5sf config: threads=%" PRId32 " out of range (1..%d, 0 = default %d)", c->threads,
                         H5SF_MAX_THREADS, H5SF_DEFAULT_THREADS);
    if (c->channel < H5SF_CHANNEL_AUTO || c->channel > H5SF_CHANNEL_DIRECT)
        return h5sf_fail(e, EINVAL, "h5sf config: unknown channel %d", c->channel);
    if (c->fsync != 0 && c->fsync != 1)
        return h5sf_fail(e, EINVAL, "h5sf config: fsync=%" PRId32 " must be 0 or 1", c->fsync);
    if (c->timeout < 0 || c->timeout > H5SF_MAX_TIMEOUT)
        return h5sf_fail(e, EINVAL, "h5sf config: timeout=%" PRId32 " out of range (1..%d s, 0 = default %d)",
                         c->timeout, H5SF_MAX_TIMEOUT, H5SF_DEFAULT_TIMEOUT);
    if (!nul_terminated(c->subfile_dir, sizeof c->subfile_dir))
        return h5sf_fail(e, EINVAL, "h5sf config: subfile_dir is not NUL-terminated");
    if (!nul_terminated(c->config_dir, sizeof c->config_dir))
        return h5sf_fail(e, EINVAL, "h5sf config: config_dir is not NUL-terminated");
    return 0;
}

/* ---- environment ------------------------------------------------------- */

/* The built-in's two IOC variables.  H5FD_SUBFILING_IOC_SELECTION_CRITERIA is
 * "<criteria>:<value>" with criteria from H5FD_subfiling_ioc_select_t, or a
 * bare value for the selection already in force; H5FD_SUBFILING_IOC_PER_NODE
 * only counts when one-per-node selection is in force (as in the built-in). */
static int apply_builtin_ioc_env(h5sf_settings_t *c, h5sf_errbuf_t *e)
{
    static const char crit_var[]       = "H5FD_SUBFILING_IOC_SELECTION_CRITERIA";
    static const char node_var[]       = "H5FD_SUBFILING_IOC_PER_NODE";
    const char       *crit             = h5sf_env_value(crit_var);
    bool              per_node_applies = true;
    int32_t           v;

    if (crit) {
        char        buf[64];
        const char *colon = strchr(crit, ':');
        if (colon) {
            int32_t type = -1;
            size_t  tl   = (size_t)(colon - crit);
            if (tl < sizeof buf) {
                memcpy(buf, crit, tl);
                buf[tl] = '\0';
            }
            else
                snprintf(buf, sizeof buf, "%.40s...", crit);
            if (tl >= sizeof buf || h5sf_parse_int(buf, 0, 3, &type, NULL, crit_var) < 0)
                return h5sf_fail(e, EINVAL,
                                 "%s=\"" SHOW "\": unknown selection criteria \"%s\" (use 0 = one per node, "
                                 "1:N = every N-th rank, 3:N = N in total)",
                                 crit_var, crit, buf);
            switch (type) {
                case 0: /* SELECT_IOC_ONE_PER_NODE: the value is ignored, as by the built-in */
                    if (c->ioc_mode != H5SF_IOC_PER_NODE) {
                        c->ioc_mode  = H5SF_IOC_PER_NODE;
                        c->ioc_param = 0;
                    }
                    c->ioc_list[0] = '\0';
                    break;
                case 1: /* SELECT_IOC_EVERY_NTH_RANK */
                case 3: /* SELECT_IOC_TOTAL */
                    if (h5sf_parse_int(colon + 1, 1, H5SF_MAX_IOC_PARAM, &v, NULL, crit_var) < 0)
                        return h5sf_fail(e, EINVAL, "%s=\"" SHOW "\": the value after ':' must be an integer 1..%d",
                                         crit_var, crit, H5SF_MAX_IOC_PARAM);
                    c->ioc_mode      = type == 1 ? H5SF_IOC_EVERY_NTH : H5SF_IOC_TOTAL;
                    c->ioc_param     = v;
                    c->ioc_list[0]   = '\0';
                    per_node_applies = false;
                    break;
                default: /* SELECT_IOC_WITH_CONFIG: never implemented by HDF5 either */
                    return h5sf_fail(e, ENOTSUP,
                                     "%s=\"" SHOW "\": criteria 2 (SELECT_IOC_WITH_CONFIG) is not supported; "
                                     "use H5SF_IOC=ranks:R1;R2;... instead",
                                     crit_var, crit);
            }
        }
        else {
            /* A bare value parameterizes the selection already chosen. */
            if (h5sf_parse_int(crit, 1, H5SF_MAX_IOC_PARAM, &v, e, crit_var) < 0)
                return -1;
            if (c->ioc_mode == H5SF_IOC_EVERY_NTH || c->ioc_mode == H5SF_IOC_TOTAL) {
                c->ioc_param     = v;
                per_node_applies = false;
            }
            else if (c->ioc_mode == H5SF_IOC_LIST)
                return h5sf_fail(e, EINVAL,
                                 "%s=\"" SHOW "\": a bare value cannot parameterize an explicit rank list "
                                 "(use \"<criteria>:<value>\")",
                                 crit_var, crit);
            /* one per node: the built-in ignores the value, and so do we */
        }
    }
    const char *per = h5sf_env_value(node_var);
    if (per && per_node_applies) {
        if (h5sf_parse_int(per, 1, H5SF_MAX_IOC_PARAM, &v, e, node_var) < 0)
            return -1;
        c->ioc_mode    = H5SF_IOC_PER_NODE;
        c->ioc_param   = v;
        c->ioc_list[0] = '\0';
    }
    return 0;
}

/* Env values may be long (paths); copy trimmed into a heap buffer. */
static int apply_one(size_t i, const char *var, const char *v, h5sf_settings_t *c, char *buf, size_t n,
                     h5sf_errbuf_t *e)
{
    if (h5sf_trim_copy(v, buf, n) < 0)
        return h5sf_fail(e, EINVAL, "%s=\"%.60s...\": value longer than %zu characters", var, v, n - 1);
    if (buf[0] == '\0')
        return 0; /* only whitespace: treat as unset */
    return setters[i](buf, c, e, var);
}

int h5sf_settings_apply_env(h5sf_settings_t *c, h5sf_errbuf_t *e)
{
    const size_t     n   = H5SF_VALUE_MAX;
    h5sf_settings_t *t   = h5sf_malloc(sizeof *t);
    char            *buf = h5sf_malloc(n);
    int              ret = -1;
    if (!t || !buf) {
        h5sf_fail(e, ENOMEM, "environment: out of memory");
        goto done;
    }
    *t = *c;
    /* Pass 1: the built-in driver's variables. */
    for (size_t i = 0; i < H5SF_NOPTIONS; i++) {
        if (setters[i] == set_ioc) {
            if (apply_builtin_ioc_env(t, e) < 0)
                goto done;
            continue;
        }
        const char *v = h5sf_env_value(h5sf_options[i].fallback);
        if (v && apply_one(i, h5sf_options[i].fallback, v, t, buf, n, e) < 0)
            goto done;
    }
    /* Pass 2: ours win. */
    for (size_t i = 0; i < H5SF_NOPTIONS; i++) {
        const char *v = h5sf_env_value(h5sf_options[i].env);
        if (v && apply_one(i, h5sf_options[i].env, v, t, buf, n, e) < 0)
            goto done;
    }
    *c  = *t;
    ret = 0;
done:
    h5sf_free(t);
    h5sf_free(buf);
    return ret;
}
