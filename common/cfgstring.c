/*
 * cfgstring.c -- the config-string grammar: "key=value,key=\"quoted,value\""
 * parsed onto an h5sf_settings_t (all or nothing), and the inverse,
 * h5sf_settings_format(), whose output parses back to the same settings.
 *
 * Owns keys, separators, quoting and escapes; values go through the
 * option setters (settings.c).  Must not read the environment.
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

/* ---- config strings ---------------------------------------------------- */

static int find_option(const char *key, size_t len)
{
    for (size_t i = 0; i < H5SF_NOPTIONS; i++)
        if (strlen(h5sf_options[i].key) == len && strncasecmp(h5sf_options[i].key, key, len) == 0)
            return (int)i;
    return -1;
}

static int unknown_key(const char *key, size_t len, h5sf_errbuf_t *e)
{
    char   keys[256];
    size_t off = 0;
    keys[0]    = '\0';
    for (size_t i = 0; i < H5SF_NOPTIONS && off < sizeof keys; i++)
        off += (size_t)snprintf(keys + off, sizeof keys - off, "%s%s", i ? ", " : "", h5sf_options[i].key);
    return h5sf_fail(e, EINVAL, "config string: unknown key \"%.*s\" (valid keys: %s)", (int)(len > 60 ? 60 : len), key,
                     keys);
}

/* Read one value at *pp into buf: either up to the next ',' (trimmed) or a
 * "quoted" string in which \" and \\ are escapes (so paths may hold commas).
 * Leaves *pp at the ',' or the end. */
static int read_value(const char **pp, char *buf, size_t n, const char *key, h5sf_errbuf_t *e)
{
    const char *p = *pp;
    size_t      k = 0;
    while (h5sf_is_space(*p))
        p++;
    if (*p == '"') {
        const char *start = p++;
        for (;; p++) {
            if (*p == '\0')
                return h5sf_fail(e, EINVAL, "%s=%.60s: unterminated quoted value", key, start);
            if (*p == '"')
                break;
            if (*p == '\\' && (p[1] == '"' || p[1] == '\\'))
                p++;
            if (k + 1 >= n)
                return h5sf_fail(e, EINVAL, "%s=%.60s...: value longer than %zu characters", key, start, n - 1);
            buf[k++] = *p;
        }
        p++;
        while (h5sf_is_space(*p))
            p++;
        if (*p != ',' && *p != '\0')
            return h5sf_fail(e, EINVAL, "%s=%.60s: unexpected \"%.20s\" after the quoted value", key, start, p);
    }
    else {
        const char *start = p;
        while (*p && *p != ',')
            p++;
        size_t len = (size_t)(p - start);
        while (len > 0 && h5sf_is_space(start[len - 1]))
            len--;
        if (len >= n)
            return h5sf_fail(e, EINVAL, "%s=\"%.60s...\": value longer than %zu characters", key, start, n - 1);
        memcpy(buf, start, len);
        k = len;
    }
    buf[k] = '\0';
    *pp    = p;
    return 0;
}

int h5sf_settings_parse(const char *str, h5sf_settings_t *c, h5sf_errbuf_t *e)
{
    if (!str)
        return 0;
    h5sf_settings_t *t   = h5sf_malloc(sizeof *t); /* apply to a copy: all or nothing */
    char            *val = h5sf_malloc(H5SF_VALUE_MAX);
    int              ret = -1;
    if (!t || !val) {
        h5sf_fail(e, ENOMEM, "config string: out of memory");
        goto done;
    }
    *t            = *c;
    const char *p = str;
    for (;;) {
        while (h5sf_is_space(*p) || *p == ',')
            p++; /* empty items are fine */
        if (*p == '\0')
            break;
        const char *key = p;
        while (*p && *p != '=' && *p != ',')
            p++;
        if (*p != '=') {
            h5sf_fail(e, EINVAL, "config string: \"%.*s\" is not key=value", (int)((p - key) > 60 ? 60 : p - key), key);
            goto done;
        }
        size_t klen = (size_t)(p - key);
        while (klen > 0 && h5sf_is_space(key[klen - 1]))
            klen--;
        int opt = find_option(key, klen);
        if (opt < 0) {
            unknown_key(key, klen, e);
            goto done;
        }
        p++; /* '=' */
        const char *what = h5sf_options[opt].key;
        if (read_value(&p, val, H5SF_VALUE_MAX, what, e) < 0)
            goto done;
        if (val[0] == '\0' && !h5sf_option_may_be_empty((size_t)opt)) {
            h5sf_fail(e, EINVAL, "%s=\"\": empty value (syntax: %s)", what, h5sf_options[opt].syntax);
            goto done;
        }
        if (h5sf_option_set((size_t)opt, val, t, e, what) < 0)
            goto done;
    }
    *c  = *t;
    ret = 0;
done:
    h5sf_free(t);
    h5sf_free(val);
    return ret;
}

/* ---- formatting -------------------------------------------------------- */

/* Largest binary unit that divides the size exactly, so it reads back equal. */
static void format_size(int64_t v, char *buf, size_t n)
{
    static const char *const units[] = {"TiB", "GiB", "MiB", "KiB"};
    for (int i = 0; i < 4; i++) {
        int shift = 40 - 10 * i;
        if (v > 0 && v % ((int64_t)1 << shift) == 0) {
            snprintf(buf, n, "%" PRId64 "%s", v >> shift, units[i]);
            return;
        }
    }
    snprintf(buf, n, "%" PRId64, v);
}

/* Append key=value; quote values that the parser would otherwise split or trim. */
static int append_kv(char *buf, size_t n, size_t *off, const char *key, const char *val)
{
    bool quote = val[0] == '\0' || h5sf_is_space(val[0]) || h5sf_is_space(val[strlen(val) - 1]) || val[0] == '"' ||
                 strchr(val, ',') != NULL;
    int w = snprintf(buf + *off, n - *off, "%s%s=%s", *off ? "," : "", key, quote ? "\"" : "");
    if (w < 0 || (size_t)w >= n - *off)
        return -1;
    *off += (size_t)w;
    for (const char *p = val; *p; p++) {
        size_t need = (quote && (*p == '"' || *p == '\\')) ? 2 : 1;
        if (*off + need >= n)
            return -1;
        if (need == 2)
            buf[(*off)++] = '\\';
        buf[(*off)++] = *p;
    }
    if (quote) {
        if (*off + 1 >= n)
            return -1;
        buf[(*off)++] = '"';
    }
    buf[*off] = '\0';
    return 0;
}

/* Returns the length written, or -1 (buf holds a truncated prefix) when buf
 * is too small or the settings are invalid.  Default markers are rendered as
 * the values they stand for, so the string shows what is in effect. */
int h5sf_settings_format(const h5sf_settings_t *c, char *buf, size_t n)
{
    static const char *const channels[] = {"auto", "ioc", "direct"};
    char                     v[sizeof c->ioc_list + 32];
    size_t                   off = 0;
    if (!buf || n == 0)
        return -1;
    buf[0] = '\0';
    if (h5sf_settings_validate(c, NULL) < 0)
        return -1;

    format_size(c->stripe_size > 0 ? c->stripe_size : H5SF_DEFAULT_STRIPE_SIZE, v, sizeof v);
    if (append_kv(buf, n, &off, "stripe_size", v) < 0)
        return -1;
    snprintf(v, sizeof v, "%" PRId32, c->stripe_count);
    if (append_kv(buf, n, &off, "stripe_count", v) < 0)
        return -1;
    switch (c->ioc_mode) {
        case H5SF_IOC_PER_NODE:
            if (c->ioc_param > 0)
                snprintf(v, sizeof v, "per_node:%" PRId32, c->ioc_param);
            else
                snprintf(v, sizeof v, "per_node");
            break;
        case H5SF_IOC_EVERY_NTH:
        case H5SF_IOC_TOTAL:
            snprintf(v, sizeof v, "%s:%" PRId32, c->ioc_mode == H5SF_IOC_TOTAL ? "total" : "every",
                     c->ioc_param > 0 ? c->ioc_param : 1);
            break;
        default: snprintf(v, sizeof v, "ranks:%s", c->ioc_list);
    }
    if (append_kv(buf, n, &off, "ioc", v) < 0)
        return -1;
    snprintf(v, sizeof v, "%" PRId32, c->threads > 0 ? c->threads : H5SF_DEFAULT_THREADS);
    if (append_kv(buf, n, &off, "threads", v) < 0 || append_kv(buf, n, &off, "channel", channels[c->channel]) < 0 ||
        append_kv(buf, n, &off, "fsync", c->fsync ? "1" : "0") < 0)
        return -1;
    snprintf(v, sizeof v, "%" PRId32, c->timeout > 0 ? c->timeout : H5SF_DEFAULT_TIMEOUT);
    if (append_kv(buf, n, &off, "timeout", v) < 0)
        return -1;
    /* "" (default) directories are left out: the stub's directory. */
    if (c->subfile_dir[0] && append_kv(buf, n, &off, "subfile_dir", c->subfile_dir) < 0)
        return -1;
    if (c->config_dir[0] && append_kv(buf, n, &off, "config_dir", c->config_dir) < 0)
        return -1;
    return off > INT_MAX ? -1 : (int)off;
}
