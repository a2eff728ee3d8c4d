/*
 * config.c -- the option table, config strings and environment overrides.
 *
 * Everything here works on an H5FD_h5sf_config_t and an h5sf_errbuf_t only:
 * no HDF5 or MPI calls (MPI_COMM_NULL / MPI_INFO_NULL are just handles), so
 * the parsers can be unit-tested and fuzzed without a running MPI.
 *
 * Every error message has the form   <what>="<value>": <reason>
 * where <what> is the config-string key or the environment variable, so a
 * user can always tell which setting to fix.
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
#include "config.h"

/* Upper bound for N in per_node:N, every:N and total:N. */
#define H5SF_MAX_IOC_PARAM (1 << 24)
#define H5SF_MAX_TIMEOUT   86400
/* Values are shown in messages at most this long, so the reason still fits. */
#define SHOW "%.200s"

/* ---- the tables -------------------------------------------------------- */

const h5sf_option_t h5sf_options[] = {
    {"stripe_size", "H5SF_STRIPE_SIZE", "H5FD_SUBFILING_STRIPE_SIZE", "32MiB",
     "bytes, optional unit B, K/KiB, M/MiB, G/GiB, T/TiB (powers of two)",
     "Bytes per stripe: logical stripe k goes to subfile k mod stripe_count.  Ignored when an existing "
     "file is opened (its stored layout wins)."},
    {"stripe_count", "H5SF_STRIPE_COUNT", NULL, "0",
     "integer 0..65536",
     "Number of subfiles; 0 means one subfile per I/O concentrator.  Ignored when an existing file is "
     "opened."},
    {"ioc", "H5SF_IOC", "H5FD_SUBFILING_IOC_PER_NODE", "per_node",
     "per_node | per_node:N | every:N | total:N | ranks:R1;R2;...",
     "Which ranks are I/O concentrators (IOCs), picked and ordered as by HDF5's built-in subfiling driver so "
     "that subfile k, served by IOC k mod (IOC count), is on the same node with either driver.  Ranks are "
     "taken node by node (nodes in the order of their lowest rank, ranks ascending within a node): the first "
     "N of each node (default 1); every N-th of that sequence from the first; N of it at a stride of "
     "(ranks - 1) / (N - 1), rounded down; or the listed ranks, in that order.  Never more IOCs than "
     "subfiles: per_node:N then takes subfiles / nodes (at least 1) per node.  Fallbacks: "
     "H5FD_SUBFILING_IOC_SELECTION_CRITERIA (\"<criteria>:<value>\": 0 = one per node, 1:N = every:N, "
     "3:N = total:N; 2 (from a file) is not supported) and H5FD_SUBFILING_IOC_PER_NODE=N (per_node:N, "
     "used only when the selection criteria do not pick another mode, as in the built-in driver)."},
    {"threads", "H5SF_THREADS", "H5FD_IOC_THREAD_POOL_SIZE", "4",
     "integer 1..256",
     "Worker threads of each I/O concentrator."},
    {"channel", "H5SF_CHANNEL", NULL, "auto",
     "auto | ioc | direct",
     "Path of subfile I/O: through the I/O concentrators (needs MPI_THREAD_MULTIPLE), or every rank "
     "writes its own pieces directly; auto picks ioc when MPI_THREAD_MULTIPLE is available."},
    {"fsync", "H5SF_FSYNC", NULL, "0",
     "0 | 1 | true | false | yes | no | on | off",
     "fsync() the subfiles at every flush."},
    {"timeout", "H5SF_TIMEOUT", NULL, "300",
     "seconds 1..86400",
     "How long a client waits for an I/O concentrator before failing the call."},
    {"subfile_dir", "H5SF_SUBFILE_DIR", "H5FD_SUBFILING_SUBFILE_PREFIX", "(the stub's directory)",
     "directory path",
     "Directory of the subfiles, e.g. node-local or faster storage.  Recorded in the config file."},
    {"config_dir", "H5SF_CONFIG_DIR", "H5FD_SUBFILING_CONFIG_FILE_PREFIX", "(the stub's directory)",
     "directory path (must exist)",
     "Directory of the <file>.subfile_<inode>.config file; must be given again when the file is "
     "reopened.  Recorded in the superblock's driver info."},
    {NULL, NULL, NULL, NULL, NULL, NULL},
};

const h5sf_option_t h5sf_runtime_vars[] = {
    {"-", "H5SF_STATS", NULL, "0", "0 | 1",
     "1: print per-file I/O statistics on rank 0 when the file is closed.", },
    {"-", "H5SF_LOG", NULL, "(unset)", "debug | json",
     "Trace the layout decision (channel, IOC ranks, subfile ownership) on rank 0 at every open; json "
     "prints one JSON object per open."},
    {"-", "H5SF_IOC_MEMORY", NULL, "256MiB", "bytes with optional unit, at least 16MiB",
     "Most memory an I/O concentrator rank holds for requests: half for 8 MiB transfer buffers of its "
     "workers, half for received request messages.  Beyond it the IOC stops taking requests and clients "
     "wait (back-pressure).  Read when the first file on a communicator is opened; a change applies "
     "from the next open when no file of that communicator is open."},
    {"-", "H5SF_IOC_MAX_FDS", NULL, "256", "integer 1..1048576",
     "Most subfiles an I/O concentrator keeps open at once; beyond it the least recently used idle one "
     "is closed and reopened when a request needs it.  Also the most a rank keeps open for its own "
     "reads and writes of subfiles on its node (all files together)."},
    {"-", "H5SF_IOC_MERGE_WAIT", NULL, "5000 (bounded by 2 per piece)", "microseconds 0..10000000",
     "How long an IOC worker holding a request with gaps between its pieces (a strided selection) waits "
     "for other ranks' requests that fill the gaps, to write or read all of them as contiguous runs.  It "
     "stops waiting as soon as the gaps are filled.  By default the wait is also at most 2 us per piece; "
     "an explicit value drops that bound.  A default-length wait nobody joined is not repeated on that "
     "subfile for 100 ms, and a file opened by one rank alone never waits.  0 turns waiting off "
     "(requests already queued are still merged)."},
    {"-", "H5SF_IOC_LOCAL_READS", NULL, "1", "0 | 1",
     "1: with the IOC channel, a rank reads subfiles whose IOC runs on its own node directly (one copy "
     "instead of two).  0: every read goes through the IOC."},
    {"-", "H5SF_IOC_LOCAL_WRITES", NULL, "1", "0 | 1",
     "1: with the IOC channel, a rank writes to subfiles whose IOC runs on its own node directly (one "
     "copy instead of two, no round trip), except sparse requests (16 or more pieces of at most 256 KiB "
     "on average with gaps between them: strided selections), which go through the IOC so that it merges "
     "them with other ranks' into contiguous runs.  0: every write goes through the IOC."},
    {"-", "H5SF_IOC_AFFINITY", NULL, "node", "node | inherit",
     "CPUs the threads of an I/O concentrator (progress thread, workers) may run on.  node: every CPU "
     "the process may use on its node, so they do not wait behind their rank's main thread when the "
     "launcher binds ranks to cores.  inherit: the rank's own binding (for sites that keep the other "
     "cores for something else)."},
    {"-", "H5SF_FAULT", NULL, "(unset)", "test-specific",
     "Test-only fault injection used by the h5sf test suite.  Never set it in production."},
    {"-", "H5SF_ALLOW_UNTESTED_HDF5", NULL, "0", "0 | 1",
     "1: load the plugin into an HDF5 outside the tested range (1.14.5 .. 2.2.x) or other than the major.minor "
     "it was built with, instead of refusing with an HDF5 error.  At your own risk: h5sf uses HDF5's private "
     "API context (docs/architecture.md, Private HDF5 calls)."},
    {"-", "H5SF_TEST_NO_PRIVATE_HDF5", NULL, "(unset)", "1",
     "Test-only: behave as if HDF5 did not export its private API context functions (the fallback path).  "
     "Never set it in production."},
    {"-", "H5SF_REDIRECT_MPIO", NULL, "(unset)", "0 | 1",
     "Used by the LD_PRELOAD shim: redirect H5Pset_fapl_mpio() of an unmodified program to h5sf."},
    {"-", "HDF5_DRIVER", NULL, "(unset)", "h5sf",
     "HDF5's own variable (listed for completeness): HDF5_DRIVER=h5sf selects this driver for "
     "default file access property lists, loaded as a plugin."},
    {"-", "HDF5_DRIVER_CONFIG", NULL, "(unset)", "key=value,key=value",
     "HDF5's own variable (listed for completeness): the driver config string, parsed like "
     "H5Pset_driver_by_name's string (see the options above)."},
    {NULL, NULL, NULL, NULL, NULL, NULL},
};

/* ---- small helpers ----------------------------------------------------- */

static bool is_space(char ch) { return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\v' || ch == '\f'; }
static bool is_digit(char ch) { return ch >= '0' && ch <= '9'; }

/* Copy s without surrounding whitespace into buf; -1 if it does not fit. */
static int trim_copy(const char *s, char *buf, size_t n)
{
    while (is_space(*s))
        s++;
    size_t len = strlen(s);
    while (len > 0 && is_space(s[len - 1]))
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
    for (; is_digit(**p); (*p)++, k++) {
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
    } units[] = {{"", 0},  {"b", 0},   {"k", 10}, {"kib", 10}, {"m", 20}, {"mib", 20},
                 {"g", 30}, {"gib", 30}, {"t", 40}, {"tib", 40}};
    if (!s)
        return h5sf_fail(e, EINVAL, "%s: no value", what);
    const char *p = s;
    while (is_space(*p))
        p++;
    if (*p == '-')
        return h5sf_fail(e, EINVAL, "%s=\"" SHOW "\": must be a positive number of bytes", what, s);
    if (*p == '+')
        p++;
    uint64_t v;
    bool     over;
    if (read_digits(&p, (uint64_t)INT64_MAX, &v, &over) == 0)
        return h5sf_fail(e, EINVAL, "%s=\"" SHOW "\": not a size (expected bytes, e.g. 33554432 or 32MiB)",
                         what, s);
    if (*p == '.' || *p == ',')
        return h5sf_fail(e, EINVAL, "%s=\"" SHOW "\": not a whole number of bytes (write e.g. 1536KiB, not 1.5MiB)",
                         what, s);
    while (is_space(*p))
        p++;
    /* The unit: letters, then nothing but trailing whitespace. */
    const char *u = p;
    while (isalpha((unsigned char)*p))
        p++;
    size_t ulen = (size_t)(p - u);
    while (is_space(*p))
        p++;
    if (*p != '\0')
        return h5sf_fail(e, EINVAL, "%s=\"" SHOW "\": unexpected \"%.40s\" after the size", what, s, u);
    int shift = -1;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strlen(units[i].unit) == ulen && strncasecmp(u, units[i].unit, ulen) == 0)
            shift = units[i].shift;
    if (shift < 0)
        return h5sf_fail(e, EINVAL, "%s=\"" SHOW "\": unknown size unit \"%.*s\" (use B, KiB, MiB, GiB, TiB)", what,
                         s, (int)(ulen > 40 ? 40 : ulen), u);
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
    while (is_space(*p))
        p++;
    bool neg = false;
    if (*p == '-' || *p == '+')
        neg = *p++ == '-';
    uint64_t v;
    bool     over;
    if (read_digits(&p, (uint64_t)INT32_MAX + 1, &v, &over) == 0)
        return h5sf_fail(e, EINVAL, "%s=\"" SHOW "\": not an integer (expected %" PRId32 "..%" PRId32 ")", what, s,
                         lo, hi);
    while (is_space(*p))
        p++;
    if (*p != '\0')
        return h5sf_fail(e, EINVAL, "%s=\"" SHOW "\": not an integer (expected %" PRId32 "..%" PRId32 ")", what, s,
                         lo, hi);
    int64_t x = neg ? -(int64_t)v : (int64_t)v;
    if (over || x < lo || x > hi)
        return h5sf_fail(e, ERANGE, "%s=\"" SHOW "\": out of range (expected %" PRId32 "..%" PRId32 ")", what, s,
                         lo, hi);
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
        return h5sf_fail(e, EINVAL, "ioc=ranks (H5SF_IOC): IOC rank list \"" SHOW "\": communicator size %d", s, comm_size);
    size_t cap = 1;
    for (const char *p = s; *p; p++)
        cap += *p == ';';
    int *r = malloc(cap * sizeof *r);
    if (!r)
        return h5sf_fail(e, ENOMEM, "ioc=ranks (H5SF_IOC): IOC rank list: out of memory");
    int         k = 0;
    const char *p = s;
    for (;;) {
        while (is_space(*p))
            p++;
        uint64_t v;
        bool     over;
        if (*p == '-') {
            free(r);
            return h5sf_fail(e, EINVAL, "ioc=ranks (H5SF_IOC): IOC rank list \"" SHOW "\": negative rank", s);
        }
        if (read_digits(&p, (uint64_t)INT_MAX, &v, &over) == 0) {
            free(r);
            return h5sf_fail(e, EINVAL,
                             "ioc=ranks (H5SF_IOC): IOC rank list \"" SHOW "\": expected a rank number at \"%.20s\" (syntax: 0;4;8)", s, p);
        }
        if (over || v >= (uint64_t)comm_size) {
            free(r);
            return h5sf_fail(e, ERANGE, "ioc=ranks (H5SF_IOC): IOC rank list \"" SHOW "\": rank %s%" PRIu64 " is out of range (%d ranks)",
                             s, over ? ">" : "", v, comm_size);
        }
        r[k++] = (int)v;
        while (is_space(*p))
            p++;
        if (*p == '\0')
            break;
        if (*p != ';') {
            free(r);
            return h5sf_fail(e, EINVAL, "ioc=ranks (H5SF_IOC): IOC rank list \"" SHOW "\": unexpected \"%.20s\" (syntax: 0;4;8)", s, p);
        }
        p++;
    }
    qsort(r, (size_t)k, sizeof *r, cmp_int);
    for (int i = 1; i < k; i++)
        if (r[i] == r[i - 1]) {
            int dup = r[i];
            free(r);
            return h5sf_fail(e, EINVAL, "ioc=ranks (H5SF_IOC): IOC rank list \"" SHOW "\": rank %d is listed twice", s, dup);
        }
    *out = r;
    *n   = k;
    return 0;
}

/* Render sorted ranks as "0;4;8"; -1 if they do not fit. */
static int format_ranks(const int *r, int n, char *buf, size_t size)
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

int h5sf_parse_ioc(const char *s, H5FD_h5sf_config_t *c, h5sf_errbuf_t *e, const char *what)
{
    char        buf[sizeof c->ioc_list + 16];
    const char *rest = NULL;
    if (!s)
        return h5sf_fail(e, EINVAL, "%s: no value", what);
    if (trim_copy(s, buf, sizeof buf) < 0)
        return h5sf_fail(e, EINVAL, "%s=\"" SHOW "...\": too long", what, s);

    if (match_mode(buf, "per_node", &rest) || match_mode(buf, "every", &rest) ||
        match_mode(buf, "total", &rest)) {
        H5FD_h5sf_ioc_mode_t mode = tolower((unsigned char)buf[0]) == 'p'   ? H5FD_H5SF_IOC_PER_NODE
                                    : tolower((unsigned char)buf[0]) == 'e' ? H5FD_H5SF_IOC_EVERY_NTH
                                                                            : H5FD_H5SF_IOC_TOTAL;
        int32_t              param = 0;
        if (!rest && mode != H5FD_H5SF_IOC_PER_NODE)
            return h5sf_fail(e, EINVAL, "%s=\"" SHOW "\": needs a count, e.g. %s:4", what, s,
                             mode == H5FD_H5SF_IOC_EVERY_NTH ? "every" : "total");
        if (rest && h5sf_parse_int(rest, 1, H5SF_MAX_IOC_PARAM, &param, NULL, what) < 0)
            return h5sf_fail(e, EINVAL,
                             "%s=\"" SHOW "\": the count after ':' must be an integer 1..%d", what, s,
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
        int rc = format_ranks(r, n, list, sizeof list);
        free(r);
        if (rc < 0)
            return h5sf_fail(e, EINVAL, "%s=\"" SHOW "...\": rank list longer than %zu characters", what, s,
                             sizeof list - 1);
        c->ioc_mode  = H5FD_H5SF_IOC_LIST;
        c->ioc_param = 0;
        memcpy(c->ioc_list, list, sizeof list);
        return 0;
    }
    return h5sf_fail(e, EINVAL,
                     "%s=\"" SHOW "\": unknown IOC selection (use per_node, per_node:N, every:N, total:N or "
                     "ranks:R1;R2;...)",
                     what, s);
}

static int parse_bool(const char *s, int32_t *out, h5sf_errbuf_t *e, const char *what)
{
    static const char *const yes[] = {"1", "true", "yes", "on"}, *const no[] = {"0", "false", "no", "off"};
    char                      buf[16];
    if (trim_copy(s, buf, sizeof buf) == 0)
        for (size_t i = 0; i < 4; i++) {
            if (strcasecmp(buf, yes[i]) == 0)
                return *out = 1, 0;
            if (strcasecmp(buf, no[i]) == 0)
                return *out = 0, 0;
        }
    return h5sf_fail(e, EINVAL, "%s=\"" SHOW "\": not a boolean (use 0/1, true/false, yes/no, on/off)", what, s);
}

/* ---- one setter per table row ------------------------------------------ */

typedef int (*setter_t)(const char *v, H5FD_h5sf_config_t *c, h5sf_errbuf_t *e, const char *what);

static int set_stripe_size(const char *v, H5FD_h5sf_config_t *c, h5sf_errbuf_t *e, const char *what)
{
    return h5sf_parse_size(v, &c->stripe_size, e, what);
}
static int set_stripe_count(const char *v, H5FD_h5sf_config_t *c, h5sf_errbuf_t *e, const char *what)
{
    return h5sf_parse_int(v, 0, H5SF_MAX_STRIPE_COUNT, &c->stripe_count, e, what);
}
static int set_ioc(const char *v, H5FD_h5sf_config_t *c, h5sf_errbuf_t *e, const char *what)
{
    return h5sf_parse_ioc(v, c, e, what);
}
static int set_threads(const char *v, H5FD_h5sf_config_t *c, h5sf_errbuf_t *e, const char *what)
{
    return h5sf_parse_int(v, 1, H5SF_MAX_THREADS, &c->threads, e, what);
}
static int set_channel(const char *v, H5FD_h5sf_config_t *c, h5sf_errbuf_t *e, const char *what)
{
    static const char *const names[] = {"auto", "ioc", "direct"};
    char                      buf[16];
    if (trim_copy(v, buf, sizeof buf) == 0)
        for (int i = 0; i < 3; i++)
            if (strcasecmp(buf, names[i]) == 0) {
                c->channel = (H5FD_h5sf_channel_t)i;
                return 0;
            }
    return h5sf_fail(e, EINVAL, "%s=\"" SHOW "\": unknown channel (use auto, ioc or direct)", what, v);
}
static int set_fsync(const char *v, H5FD_h5sf_config_t *c, h5sf_errbuf_t *e, const char *what)
{
    return parse_bool(v, &c->fsync, e, what);
}
static int set_timeout(const char *v, H5FD_h5sf_config_t *c, h5sf_errbuf_t *e, const char *what)
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
static int set_subfile_dir(const char *v, H5FD_h5sf_config_t *c, h5sf_errbuf_t *e, const char *what)
{
    return set_dir(v, c->subfile_dir, sizeof c->subfile_dir, e, what);
}
static int set_config_dir(const char *v, H5FD_h5sf_config_t *c, h5sf_errbuf_t *e, const char *what)
{
    return set_dir(v, c->config_dir, sizeof c->config_dir, e, what);
}

/* Same order as h5sf_options[]. */
static const setter_t setters[] = {set_stripe_size, set_stripe_count, set_ioc,         set_threads,   set_channel,
                                   set_fsync,       set_timeout,      set_subfile_dir, set_config_dir};
#define NOPTIONS (sizeof setters / sizeof setters[0])
_Static_assert(sizeof h5sf_options / sizeof h5sf_options[0] == NOPTIONS + 1,
               "h5sf_options[] and setters[] must have one row per option");

/* ---- defaults and validation ------------------------------------------- */

void h5sf_config_defaults(H5FD_h5sf_config_t *c)
{
    memset(c, 0, sizeof *c);
    c->magic    = H5FD_H5SF_CONFIG_MAGIC;
    c->version  = H5FD_H5SF_CONFIG_VERSION;
    c->ioc_mode = H5FD_H5SF_IOC_PER_NODE;
    c->channel  = H5FD_H5SF_CHANNEL_AUTO;
    c->comm     = MPI_COMM_NULL;
    c->info     = MPI_INFO_NULL;
}

static bool nul_terminated(const char *s, size_t n) { return memchr(s, '\0', n) != NULL; }

int h5sf_config_validate(const H5FD_h5sf_config_t *c, h5sf_errbuf_t *e)
{
    if (!c)
        return h5sf_fail(e, EINVAL, "h5sf config is NULL");
    if (c->magic != H5FD_H5SF_CONFIG_MAGIC)
        return h5sf_fail(e, EINVAL,
                         "h5sf config: bad magic 0x%08" PRIx32 " (expected 0x%08x; initialize the struct with "
                         "H5FD_h5sf_config_init())",
                         c->magic, H5FD_H5SF_CONFIG_MAGIC);
    if (c->version != H5FD_H5SF_CONFIG_VERSION)
        return h5sf_fail(e, EINVAL, "h5sf config: unsupported version %" PRIu32 " (this build knows version %u)",
                         c->version, H5FD_H5SF_CONFIG_VERSION);
    /* Zero is the "default" marker in every numeric field. */
    if (c->stripe_size < 0)
        return h5sf_fail(e, EINVAL, "h5sf config: stripe_size=%" PRId64 " must be positive (0 = default 32MiB)",
                         c->stripe_size);
    if (c->stripe_count < 0 || c->stripe_count > H5SF_MAX_STRIPE_COUNT)
        return h5sf_fail(e, EINVAL, "h5sf config: stripe_count=%" PRId32 " out of range (0..%d)", c->stripe_count,
                         H5SF_MAX_STRIPE_COUNT);
    if ((int)c->ioc_mode < (int)H5FD_H5SF_IOC_PER_NODE || (int)c->ioc_mode > (int)H5FD_H5SF_IOC_LIST)
        return h5sf_fail(e, EINVAL, "h5sf config: unknown ioc_mode %d", (int)c->ioc_mode);
    if (c->ioc_param < 0 || c->ioc_param > H5SF_MAX_IOC_PARAM)
        return h5sf_fail(e, EINVAL, "h5sf config: ioc_param=%" PRId32 " out of range (0..%d)", c->ioc_param,
                         H5SF_MAX_IOC_PARAM);
    if (!nul_terminated(c->ioc_list, sizeof c->ioc_list))
        return h5sf_fail(e, EINVAL, "h5sf config: ioc_list is not NUL-terminated");
    if (c->ioc_mode == H5FD_H5SF_IOC_LIST) {
        int *r = NULL, n = 0;
        if (h5sf_parse_rank_list(c->ioc_list, INT_MAX, &r, &n, e) < 0) {
            char why[sizeof e->msg];
            snprintf(why, sizeof why, "%s", e ? e->msg : "");
            return h5sf_fail(e, EINVAL, "h5sf config: ioc_list (ioc_mode ranks): %s", why);
        }
        free(r);
    }
    if (c->threads < 0 || c->threads > H5SF_MAX_THREADS)
        return h5sf_fail(e, EINVAL, "h5sf config: threads=%" PRId32 " out of range (1..%d, 0 = default %d)",
                         c->threads, H5SF_MAX_THREADS, H5SF_DEFAULT_THREADS);
    if ((int)c->channel < (int)H5FD_H5SF_CHANNEL_AUTO || (int)c->channel > (int)H5FD_H5SF_CHANNEL_DIRECT)
        return h5sf_fail(e, EINVAL, "h5sf config: unknown channel %d", (int)c->channel);
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

/* ---- config strings ---------------------------------------------------- */

static int find_option(const char *key, size_t len)
{
    for (size_t i = 0; i < NOPTIONS; i++)
        if (strlen(h5sf_options[i].key) == len && strncasecmp(h5sf_options[i].key, key, len) == 0)
            return (int)i;
    return -1;
}

static int unknown_key(const char *key, size_t len, h5sf_errbuf_t *e)
{
    char   keys[256];
    size_t off = 0;
    keys[0]    = '\0';
    for (size_t i = 0; i < NOPTIONS && off < sizeof keys; i++)
        off += (size_t)snprintf(keys + off, sizeof keys - off, "%s%s", i ? ", " : "", h5sf_options[i].key);
    return h5sf_fail(e, EINVAL, "config string: unknown key \"%.*s\" (valid keys: %s)", (int)(len > 60 ? 60 : len),
                     key, keys);
}

/* Read one value at *pp into buf: either up to the next ',' (trimmed) or a
 * "quoted" string in which \" and \\ are escapes (so paths may hold commas).
 * Leaves *pp at the ',' or the end. */
static int read_value(const char **pp, char *buf, size_t n, const char *key, h5sf_errbuf_t *e)
{
    const char *p = *pp;
    size_t      k = 0;
    while (is_space(*p))
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
        while (is_space(*p))
            p++;
        if (*p != ',' && *p != '\0')
            return h5sf_fail(e, EINVAL, "%s=%.60s: unexpected \"%.20s\" after the quoted value", key, start, p);
    }
    else {
        const char *start = p;
        while (*p && *p != ',')
            p++;
        size_t len = (size_t)(p - start);
        while (len > 0 && is_space(start[len - 1]))
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

int h5sf_config_parse(const char *str, H5FD_h5sf_config_t *c, h5sf_errbuf_t *e)
{
    if (!str)
        return 0;
    H5FD_h5sf_config_t *t   = malloc(sizeof *t);       /* apply to a copy: all or nothing */
    char               *val = malloc(H5FD_H5SF_PATH_MAX + 64);
    int                 ret = -1;
    if (!t || !val) {
        h5sf_fail(e, ENOMEM, "config string: out of memory");
        goto done;
    }
    *t            = *c;
    const char *p = str;
    for (;;) {
        while (is_space(*p) || *p == ',')
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
        while (klen > 0 && is_space(key[klen - 1]))
            klen--;
        int opt = find_option(key, klen);
        if (opt < 0) {
            unknown_key(key, klen, e);
            goto done;
        }
        p++; /* '=' */
        const char *what = h5sf_options[opt].key;
        if (read_value(&p, val, H5FD_H5SF_PATH_MAX + 64, what, e) < 0)
            goto done;
        if (val[0] == '\0' && setters[opt] != set_subfile_dir && setters[opt] != set_config_dir) {
            h5sf_fail(e, EINVAL, "%s=\"\": empty value (syntax: %s)", what, h5sf_options[opt].syntax);
            goto done;
        }
        if (setters[opt](val, t, e, what) < 0)
            goto done;
    }
    *c  = *t;
    ret = 0;
done:
    free(t);
    free(val);
    return ret;
}

/* ---- environment ------------------------------------------------------- */

static const char *env_value(const char *name)
{
    const char *v = name ? getenv(name) : NULL;
    return v && *v ? v : NULL; /* empty means unset */
}

/* The built-in's two IOC variables.  H5FD_SUBFILING_IOC_SELECTION_CRITERIA is
 * "<criteria>:<value>" with criteria from H5FD_subfiling_ioc_select_t, or a
 * bare value for the selection already in force; H5FD_SUBFILING_IOC_PER_NODE
 * only counts when one-per-node selection is in force (as in the built-in). */
static int apply_builtin_ioc_env(H5FD_h5sf_config_t *c, h5sf_errbuf_t *e)
{
    static const char crit_var[] = "H5FD_SUBFILING_IOC_SELECTION_CRITERIA";
    static const char node_var[] = "H5FD_SUBFILING_IOC_PER_NODE";
    const char       *crit       = env_value(crit_var);
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
                    if (c->ioc_mode != H5FD_H5SF_IOC_PER_NODE) {
                        c->ioc_mode  = H5FD_H5SF_IOC_PER_NODE;
                        c->ioc_param = 0;
                    }
                    c->ioc_list[0] = '\0';
                    break;
                case 1: /* SELECT_IOC_EVERY_NTH_RANK */
                case 3: /* SELECT_IOC_TOTAL */
                    if (h5sf_parse_int(colon + 1, 1, H5SF_MAX_IOC_PARAM, &v, NULL, crit_var) < 0)
                        return h5sf_fail(e, EINVAL, "%s=\"" SHOW "\": the value after ':' must be an integer 1..%d",
                                         crit_var, crit, H5SF_MAX_IOC_PARAM);
                    c->ioc_mode    = type == 1 ? H5FD_H5SF_IOC_EVERY_NTH : H5FD_H5SF_IOC_TOTAL;
                    c->ioc_param   = v;
                    c->ioc_list[0] = '\0';
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
            if (c->ioc_mode == H5FD_H5SF_IOC_EVERY_NTH || c->ioc_mode == H5FD_H5SF_IOC_TOTAL) {
                c->ioc_param     = v;
                per_node_applies = false;
            }
            else if (c->ioc_mode == H5FD_H5SF_IOC_LIST)
                return h5sf_fail(e, EINVAL,
                                 "%s=\"" SHOW "\": a bare value cannot parameterize an explicit rank list "
                                 "(use \"<criteria>:<value>\")",
                                 crit_var, crit);
            /* one per node: the built-in ignores the value, and so do we */
        }
    }
    const char *per = env_value(node_var);
    if (per && per_node_applies) {
        if (h5sf_parse_int(per, 1, H5SF_MAX_IOC_PARAM, &v, e, node_var) < 0)
            return -1;
        c->ioc_mode    = H5FD_H5SF_IOC_PER_NODE;
        c->ioc_param   = v;
        c->ioc_list[0] = '\0';
    }
    return 0;
}

/* Env values may be long (paths); copy trimmed into a heap buffer. */
static int apply_one(size_t i, const char *var, const char *v, H5FD_h5sf_config_t *c, char *buf, size_t n,
                     h5sf_errbuf_t *e)
{
    if (trim_copy(v, buf, n) < 0)
        return h5sf_fail(e, EINVAL, "%s=\"%.60s...\": value longer than %zu characters", var, v, n - 1);
    if (buf[0] == '\0')
        return 0; /* only whitespace: treat as unset */
    return setters[i](buf, c, e, var);
}

int h5sf_config_apply_env(H5FD_h5sf_config_t *c, h5sf_errbuf_t *e)
{
    const size_t        n   = H5FD_H5SF_PATH_MAX + 64;
    H5FD_h5sf_config_t *t   = malloc(sizeof *t);
    char               *buf = malloc(n);
    int                 ret = -1;
    if (!t || !buf) {
        h5sf_fail(e, ENOMEM, "environment: out of memory");
        goto done;
    }
    *t = *c;
    /* Pass 1: the built-in driver's variables. */
    for (size_t i = 0; i < NOPTIONS; i++) {
        if (setters[i] == set_ioc) {
            if (apply_builtin_ioc_env(t, e) < 0)
                goto done;
            continue;
        }
        const char *v = env_value(h5sf_options[i].fallback);
        if (v && apply_one(i, h5sf_options[i].fallback, v, t, buf, n, e) < 0)
            goto done;
    }
    /* Pass 2: ours win. */
    for (size_t i = 0; i < NOPTIONS; i++) {
        const char *v = env_value(h5sf_options[i].env);
        if (v && apply_one(i, h5sf_options[i].env, v, t, buf, n, e) < 0)
            goto done;
    }
    *c  = *t;
    ret = 0;
done:
    free(t);
    free(buf);
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
    bool quote = val[0] == '\0' || is_space(val[0]) || is_space(val[strlen(val) - 1]) || val[0] == '"' ||
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
int h5sf_config_format(const H5FD_h5sf_config_t *c, char *buf, size_t n)
{
    static const char *const channels[] = {"auto", "ioc", "direct"};
    char                     v[sizeof c->ioc_list + 32];
    size_t                   off = 0;
    if (!buf || n == 0)
        return -1;
    buf[0] = '\0';
    if (h5sf_config_validate(c, NULL) < 0)
        return -1;

    format_size(c->stripe_size > 0 ? c->stripe_size : H5SF_DEFAULT_STRIPE_SIZE, v, sizeof v);
    if (append_kv(buf, n, &off, "stripe_size", v) < 0)
        return -1;
    snprintf(v, sizeof v, "%" PRId32, c->stripe_count);
    if (append_kv(buf, n, &off, "stripe_count", v) < 0)
        return -1;
    switch (c->ioc_mode) {
        case H5FD_H5SF_IOC_PER_NODE:
            if (c->ioc_param > 0)
                snprintf(v, sizeof v, "per_node:%" PRId32, c->ioc_param);
            else
                snprintf(v, sizeof v, "per_node");
            break;
        case H5FD_H5SF_IOC_EVERY_NTH:
        case H5FD_H5SF_IOC_TOTAL:
            snprintf(v, sizeof v, "%s:%" PRId32, c->ioc_mode == H5FD_H5SF_IOC_TOTAL ? "total" : "every",
                     c->ioc_param > 0 ? c->ioc_param : 1);
            break;
        default:
            snprintf(v, sizeof v, "ranks:%s", c->ioc_list);
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
