/*
 * values.c -- parsers of single setting values: sizes with binary units,
 * bounded integers, booleans and rank lists (values.h).
 *
 * Every error message has the form   <what>="<value>": <reason>
 * where <what> is the config-string key or the environment variable, so a
 * user can always tell which setting to fix.  Pure functions of their
 * arguments: must not read the environment, know the option table or the
 * settings struct, or call any other file of common/ (settings.c and
 * cfgstring.c call down to here).
 */
#define _XOPEN_SOURCE 700
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "alloc.h"
#include "values.h"

#define SHOW H5SF_SHOW

/* ---- small helpers ----------------------------------------------------- */

/* Copy s without surrounding whitespace into buf; -1 if it does not fit. */
int h5sf_trim_copy(const char *s, char *buf, size_t n)
{
    while (h5sf_is_space(*s))
        s++;
    size_t len = strlen(s);
    while (len > 0 && h5sf_is_space(s[len - 1]))
        len--;
    if (len >= n)
        return -1;
    memcpy(buf, s, len);
    buf[len] = '\0';
    return 0;
}

/* Decimal digits starting at *p into *v; saturates (and flags) past limit so
 * that huge inputs cannot overflow.  Returns the number of digits read. */
static size_t read_digits(const char **p, uint64_t limit, uint64_t *v, bool *over)
{
    size_t k = 0;
    *v       = 0;
    *over    = false;
    for (; h5sf_is_digit(**p); (*p)++, k++) {
        unsigned d = (unsigned)(**p - '0');
        if (*v > (limit - d) / 10)
            *over = true;
        else
            *v = *v * 10 + d;
    }
    return k;
}

/* ---- value parsers ----------------------------------------------------- */

int h5sf_parse_size(const char *s, int64_t *out, h5sf_errbuf_t *e, const char *what)
{
    static const struct {
        const char *unit;
        int         shift;
    } units[] = {{"", 0},     {"b", 0},  {"k", 10},   {"kib", 10}, {"m", 20},
                 {"mib", 20}, {"g", 30}, {"gib", 30}, {"t", 40},   {"tib", 40}};
    if (!s)
        return h5sf_fail(e, EINVAL, "%s: no value", what);
    const char *p = s;
    while (h5sf_is_space(*p))
        p++;
    if (*p == '-')
        return h5sf_fail(e, EINVAL, "%s=\"" SHOW "\": must be a positive number of bytes", what, s);
    if (*p == '+')
        p++;
    uint64_t v;
    bool     over;
    if (read_digits(&p, (uint64_t)INT64_MAX, &v, &over) == 0)
        return h5sf_fail(e, EINVAL, "%s=\"" SHOW "\": not a size (expected bytes, e.g. 33554432 or 32MiB)", what, s);
    if (*p == '.' || *p == ',')
        return h5sf_fail(e, EINVAL, "%s=\"" SHOW "\": not a whole number of bytes (write e.g. 1536KiB, not 1.5MiB)",
                         what, s);
    while (h5sf_is_space(*p))
        p++;
    /* The unit: letters, then nothing but trailing whitespace. */
    const char *u = p;
    while (isalpha((unsigned char)*p))
        p++;
    size_t ulen = (size_t)(p - u);
    while (h5sf_is_space(*p))
        p++;
    if (*p != '\0')
        return h5sf_fail(e, EINVAL, "%s=\"" SHOW "\": unexpected \"%.40s\" after the size", what, s, u);
    int shift = -1;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strlen(units[i].unit) == ulen && strncasecmp(u, units[i].unit, ulen) == 0)
            shift = units[i].shift;
    if (shift < 0)
        return h5sf_fail(e, EINVAL, "%s=\"" SHOW "\": unknown size unit \"%.*s\" (use B, KiB, MiB, GiB, TiB)", what, s,
                         (int)(ulen > 40 ? 40 : ulen), u);
    if (over || v > ((uint64_t)INT64_MAX >> shift))
        return h5sf_fail(e, ERANGE, "%s=\"" SHOW "\": too large (at most %" PRId64 " bytes)", what, s, INT64_MAX);
    if (v == 0)
        return h5sf_fail(e, EINVAL, "%s=\"" SHOW "\": must be a positive number of bytes", what, s);
    *out = (int64_t)(v << shift);
    return 0;
}

int h5sf_parse_int(const char *s, int32_t lo, int32_t hi, int32_t *out, h5sf_errbuf_t *e, const char *what)
{
    if (!s)
        return h5sf_fail(e, EINVAL, "%s: no value", what);
    const char *p = s;
    while (h5sf_is_space(*p))
        p++;
    bool neg = false;
    if (*p == '-' || *p == '+')
        neg = *p++ == '-';
    uint64_t v;
    bool     over;
    if (read_digits(&p, (uint64_t)INT32_MAX + 1, &v, &over) == 0)
        return h5sf_fail(e, EINVAL, "%s=\"" SHOW "\": not an integer (expected %" PRId32 "..%" PRId32 ")", what, s, lo,
                         hi);
    while (h5sf_is_space(*p))
        p++;
    if (*p != '\0')
        return h5sf_fail(e, EINVAL, "%s=\"" SHOW "\": not an integer (expected %" PRId32 "..%" PRId32 ")", what, s, lo,
                         hi);
    int64_t x = neg ? -(int64_t)v : (int64_t)v;
    if (over || x < lo || x > hi)
        return h5sf_fail(e, ERANGE, "%s=\"" SHOW "\": out of range (expected %" PRId32 "..%" PRId32 ")", what, s, lo,
                         hi);
    *out = (int32_t)x;
    return 0;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int h5sf_parse_rank_list(const char *s, int comm_size, int **out, int *n, h5sf_errbuf_t *e)
{
    *out = NULL;
    *n   = 0;
    if (!s)
        return h5sf_fail(e, EINVAL, "ioc=ranks (H5SF_IOC): IOC rank list: no value");
    if (comm_size <= 0)
        return h5sf_fail(e, EINVAL, "ioc=ranks (H5SF_IOC): IOC rank list \"" SHOW "\": communicator size %d", s,
                         comm_size);
    size_t cap = 1;
    for (const char *p = s; *p; p++)
        cap += *p == ';';
    int *r = h5sf_malloc(cap * sizeof *r);
    if (!r)
        return h5sf_fail(e, ENOMEM, "ioc=ranks (H5SF_IOC): IOC rank list: out of memory");
    int         k = 0;
    const char *p = s;
    for (;;) {
        while (h5sf_is_space(*p))
            p++;
        uint64_t v;
        bool     over;
        if (*p == '-') {
            h5sf_free(r);
            return h5sf_fail(e, EINVAL, "ioc=ranks (H5SF_IOC): IOC rank list \"" SHOW "\": negative rank", s);
        }
        if (read_digits(&p, (uint64_t)INT_MAX, &v, &over) == 0) {
            h5sf_free(r);
            return h5sf_fail(e, EINVAL,
                             "ioc=ranks (H5SF_IOC): IOC rank list \"" SHOW
                             "\": expected a rank number at \"%.20s\" (syntax: 0;4;8)",
                             s, p);
        }
        if (over || v >= (uint64_t)comm_size) {
            h5sf_free(r);
            return h5sf_fail(e, ERANGE,
                             "ioc=ranks (H5SF_IOC): IOC rank list \"" SHOW "\": rank %s%" PRIu64
                             " is out of range (%d ranks)",
                             s, over ? ">" : "", v, comm_size);
        }
        r[k++] = (int)v;
        while (h5sf_is_space(*p))
            p++;
        if (*p == '\0')
            break;
        if (*p != ';') {
            h5sf_free(r);
            return h5sf_fail(e, EINVAL,
                             "ioc=ranks (H5SF_IOC): IOC rank list \"" SHOW "\": unexpected \"%.20s\" (syntax: 0;4;8)",
                             s, p);
        }
        p++;
    }
    qsort(r, (size_t)k, sizeof *r, cmp_int);
    for (int i = 1; i < k; i++)
        if (r[i] == r[i - 1]) {
            int dup = r[i];
            h5sf_free(r);
            return h5sf_fail(e, EINVAL, "ioc=ranks (H5SF_IOC): IOC rank list \"" SHOW "\": rank %d is listed twice", s,
                             dup);
        }
    *out = r;
    *n   = k;
    return 0;
}

/* Render sorted ranks as "0;4;8"; -1 if they do not fit. */
int h5sf_format_ranks(const int *r, int n, char *buf, size_t size)
{
    size_t off = 0;
    for (int i = 0; i < n; i++) {
        int w = snprintf(buf + off, size - off, "%s%d", i ? ";" : "", r[i]);
        if (w < 0 || (size_t)w >= size - off)
            return -1;
        off += (size_t)w;
    }
    return 0;
}

int h5sf_parse_bool(const char *s, int32_t *out, h5sf_errbuf_t *e, const char *what)
{
    static const char *const yes[] = {"1", "true", "yes", "on"}, *const no[] = {"0", "false", "no", "off"};
    char buf[16];
    if (h5sf_trim_copy(s, buf, sizeof buf) == 0)
        for (size_t i = 0; i < 4; i++) {
            if (strcasecmp(buf, yes[i]) == 0)
                return *out = 1, 0;
            if (strcasecmp(buf, no[i]) == 0)
                return *out = 0, 0;
        }
    return h5sf_fail(e, EINVAL, "%s=\"" SHOW "\": not a boolean (use 0/1, true/false, yes/no, on/off)", what, s);
}
