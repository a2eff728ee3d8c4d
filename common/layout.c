/*
 * layout.c -- subfile and config file names and the config file, as
 * HDF5 1.14's built-in subfiling driver writes them (H5subfiling_common.c,
 * H5FDsubfiling.c); the driver-info block is drvinfo.c's.
 *
 * The config file parser reads untrusted bytes and is fuzzed: it works on
 * (pointer, length) only, never relies on a terminating NUL, and commits to
 * *l only after the whole input checked out.
 */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "alloc.h"
#include "bounds.h"
#include "bytes.h"
#include "layout.h"
#include "superblock.h"
#include "sysio.h"


/* The built-in's templates (H5FD_SUBFILING_FILENAME_TEMPLATE and
 * H5FD_SUBFILING_CONFIG_FILENAME_TEMPLATE in H5FDsubfiling.h). */
#define SUBFILE_TEMPLATE "%s.subfile_%" PRIu64 "_%0*d_of_%d"
#define CONFIG_TEMPLATE  "%s.subfile_%" PRIu64 ".config"

/* Driver-info constants (H5FDsubfiling.h, H5FDioc.h). */

/* ---- names -------------------------------------------------------------- */


int h5sf_layout_set_stub(h5sf_layout_t *l, const char *stub_path, h5sf_errbuf_t *e)
{
    /* On the heap: four paths are too much stack for the threads of some
     * callers (tools). */
    struct names {
        char real[PATH_MAX], dir[H5SF_LAYOUT_PATH_MAX], rdir[PATH_MAX], abs[H5SF_LAYOUT_PATH_MAX];
    } * b;
    size_t len = stub_path ? strlen(stub_path) : 0;
    int    ret = -1;

    if (len == 0)
        return h5sf_fail(e, EINVAL, "empty file name");
    if (len >= H5SF_LAYOUT_PATH_MAX)
        return h5sf_fail(e, ENAMETOOLONG, "file name %.60s... is longer than %d characters", stub_path,
                         H5SF_LAYOUT_PATH_MAX - 1);
    if (stub_path[len - 1] == '/')
        return h5sf_fail(e, EISDIR, "file name %s ends in '/' (names a directory)", stub_path);
    if (!(b = h5sf_malloc(sizeof *b)))
        return h5sf_fail(e, ENOMEM, "out of memory");

    /* Like the built-in (H5FD__subfiling_resolve_pathname): the real path of
     * an existing stub, so a symlinked stub finds the target's subfiles. */
    const bool  real  = h5sf_sysio_realpath(stub_path, b->real) != NULL;
    const char *path  = real ? b->real : stub_path;
    const char *slash = strrchr(path, '/');
    const char *base  = slash ? slash + 1 : path;
    const char *dir   = b->dir;
    if (!slash)
        dir = ".";
    else if (slash == path)
        dir = "/";
    else if ((size_t)(slash - path) < sizeof b->dir)
        snprintf(b->dir, sizeof b->dir, "%.*s", (int)(slash - path), path);
    else {
        h5sf_fail(e, ENAMETOOLONG, "directory of %s is too long", path);
        goto done;
    }
    if (strlen(base) >= sizeof l->base) {
        h5sf_fail(e, ENAMETOOLONG, "file name %s is too long", path);
        goto done;
    }

    const bool rdir = !real && h5sf_sysio_realpath(dir, b->rdir) != NULL;
    int        w;
    if (real || dir[0] == '/')
        w = snprintf(b->abs, sizeof b->abs, "%s", rdir ? b->rdir : dir);
    else if (rdir)
        w = snprintf(b->abs, sizeof b->abs, "%s", b->rdir);
    else {
        /* The directory does not exist (yet): make it absolute by hand. */
        char cwd[H5SF_LAYOUT_PATH_MAX];
        if (!h5sf_sysio_getcwd(cwd, sizeof cwd)) {
            h5sf_fail(e, errno, "cannot get the current directory: %s", strerror(errno));
            goto done;
        }
        w = strcmp(dir, ".") == 0 ? snprintf(b->abs, sizeof b->abs, "%s", cwd)
                                  : snprintf(b->abs, sizeof b->abs, "%s/%s", strcmp(cwd, "/") ? cwd : "", dir);
    }
    if (w < 0 || (size_t)w >= sizeof b->abs) {
        h5sf_fail(e, ENAMETOOLONG, "directory of %s: absolute path longer than %d characters", stub_path,
                  H5SF_LAYOUT_PATH_MAX - 1);
        goto done;
    }
    memcpy(l->stub_dir, b->abs, (size_t)w + 1);
    memcpy(l->base, base, strlen(base) + 1);
    ret = 0;
done:
    h5sf_free(b);
    return ret;
}

int h5sf_stub_path(const h5sf_layout_t *l, char *buf, size_t n, h5sf_errbuf_t *e)
{
    int w = snprintf(buf, n, "%s%s%s", l->stub_dir, strcmp(l->stub_dir, "/") ? "/" : "", l->base);
    if (w < 0 || (size_t)w >= n)
        return h5sf_fail(e, ENAMETOOLONG, "stub %s: path longer than %zu characters", l->base, n ? n - 1 : 0);
    return 0;
}

/* out = dir if absolute, else base/dir ("." and "" give base). */
static int join_dir(const char *base, const char *dir, char *out, size_t n, h5sf_errbuf_t *e)
{
    int w;
    if (dir[0] == '/')
        w = snprintf(out, n, "%s", dir);
    else if (dir[0] == '\0' || strcmp(dir, ".") == 0)
        w = snprintf(out, n, "%s", base);
    else
        w = snprintf(out, n, "%s/%s", strcmp(base, "/") ? base : "", dir);
    if (w < 0 || (size_t)w >= n)
        return h5sf_fail(e, ENAMETOOLONG, "subfile directory %.60s: absolute path longer than %zu characters", dir,
                         n - 1);
    return 0;
}

int h5sf_layout_set_subfile_dir(h5sf_layout_t *l, const char *dir, h5sf_errbuf_t *e)
{
    char cwd[H5SF_LAYOUT_PATH_MAX];
    if (!dir || !dir[0]) {
        l->subfile_dir[0] = '\0';
        return 0;
    }
    if (dir[0] != '/' && !h5sf_sysio_getcwd(cwd, sizeof cwd))
        return h5sf_fail(e, errno, "subfile directory %s: cannot get the current directory: %s", dir, strerror(errno));
    return join_dir(dir[0] == '/' ? "/" : cwd, dir, l->subfile_dir, sizeof l->subfile_dir, e);
}

static const char *subfile_dir_of(const h5sf_layout_t *l) { return l->subfile_dir[0] ? l->subfile_dir : l->stub_dir; }
static const char *config_dir_of(const h5sf_layout_t *l) { return l->config_dir[0] ? l->config_dir : l->stub_dir; }

static int check_names(const h5sf_layout_t *l, h5sf_errbuf_t *e)
{
    if (!memchr(l->base, '\0', sizeof l->base) || l->base[0] == '\0')
        return h5sf_fail(e, EINVAL, "layout has no file name (h5sf_layout_set_stub not called?)");
    if (!memchr(l->stub_dir, '\0', sizeof l->stub_dir) || !memchr(l->subfile_dir, '\0', sizeof l->subfile_dir) ||
        !memchr(l->config_dir, '\0', sizeof l->config_dir))
        return h5sf_fail(e, EINVAL, "layout directory is not NUL-terminated");
    return 0;
}

void h5sf_layout_set_plain(h5sf_layout_t *l)
{
    l->plain          = 1;
    l->stripe_size    = H5SF_PLAIN_STRIPE;
    l->stripe_count   = 1;
    l->ioc_count      = 1;
    l->subfile_dir[0] = '\0';
}

int h5sf_subfile_path(const h5sf_layout_t *l, int idx, char *buf, size_t n, h5sf_errbuf_t *e)
{
    if (check_names(l, e) < 0)
        return -1;
    if (l->plain) {
        int w = idx == 0 ? snprintf(buf, n, "%s%s%s", l->stub_dir, strcmp(l->stub_dir, "/") ? "/" : "", l->base) : -1;
        if (idx != 0)
            return h5sf_fail(e, EINVAL, "subfile index %d of a plain file (it has one)", idx);
        if (w < 0 || (size_t)w >= n)
            return h5sf_fail(e, ENAMETOOLONG, "%s: path longer than %zu characters", l->base, n ? n - 1 : 0);
        return 0;
    }
    if (l->stripe_count < 1 || l->stripe_count > H5SF_MAX_STRIPE_COUNT)
        return h5sf_fail(e, EINVAL, "subfile count %" PRId32 " out of range (1..%d)", l->stripe_count,
                         H5SF_MAX_STRIPE_COUNT);
    if (idx < 0 || idx >= l->stripe_count)
        return h5sf_fail(e, EINVAL, "subfile index %d out of range (0..%" PRId32 ")", idx, l->stripe_count - 1);
    int w = snprintf(buf, n, "%s/" SUBFILE_TEMPLATE, subfile_dir_of(l), l->base, l->inode,
                     h5sf_digits((uint64_t)l->stripe_count), idx + 1, (int)l->stripe_count);
    if (w < 0 || (size_t)w >= n)
        return h5sf_fail(e, ENAMETOOLONG, "subfile %d of %s: path longer than %zu characters", idx + 1, l->base,
                         n ? n - 1 : 0);
    return 0;
}

int h5sf_config_path(const h5sf_layout_t *l, char *buf, size_t n, h5sf_errbuf_t *e)
{
    if (check_names(l, e) < 0)
        return -1;
    if (l->plain)
        return h5sf_fail(e, EINVAL, "%s is a plain HDF5 file: it has no config file", l->base);
    int w = snprintf(buf, n, "%s/" CONFIG_TEMPLATE, config_dir_of(l), l->base, l->inode);
    if (w < 0 || (size_t)w >= n)
        return h5sf_fail(e, ENAMETOOLONG, "config file of %s: path longer than %zu characters", l->base, n ? n - 1 : 0);
    return 0;
}

static ssize_t pread_at(void *fd, uint64_t off, void *buf, size_t len)
{
    return h5sf_sysio_pread(*(const int *)fd, buf, len, off);
}

/* The stub's superblock (superblock.c) and its size; -1 if there is none
 * it accepts. */
static int stub_superblock(int fd, h5sf_superblock_t *sb, uint64_t *size)
{
    unsigned char raw[H5SF_SB_MAX];
    struct stat   st;
    if (h5sf_sysio_fstat(fd, &st) < 0)
        return -1;
    *size = (uint64_t)st.st_size;
    return h5sf_superblock_read(pread_at, &fd, *size, sb, raw, NULL);
}

int h5sf_stub_lacks_root(int fd)
{
    h5sf_superblock_t sb;
    uint64_t          size;
    unsigned char     h[4];
    if (stub_superblock(fd, &sb, &size) < 0 || sb.version < 2)
        return 0;
    /* Past the stub's end (or undefined): not here. */
    if (sb.base_addr > size || sb.root_addr > size - sb.base_addr || size - sb.base_addr - sb.root_addr < sizeof h)
        return 1;
    if (h5sf_sysio_pread(fd, h, sizeof h, sb.base_addr + sb.root_addr) != (ssize_t)sizeof h)
        return 0;
    return !h[0] && !h[1] && !h[2] && !h[3];
}

/* 1 if the stub's superblock (versions 0 and 1) points at a driver-info
 * block, in the stub, of the subfiling drivers ("Subfilin").  The block
 * holds version, 3 reserved bytes, its size (4), then the driver's 8-byte
 * name. */
static int stub_has_sf_drvinfo(int fd)
{
    h5sf_superblock_t sb;
    uint64_t          size;
    unsigned char     id[8];
    if (stub_superblock(fd, &sb, &size) < 0 || sb.version > 1 || sb.driver_addr == H5SF_SB_UNDEF)
        return 0;
    if (sb.base_addr > size || sb.driver_addr > size - sb.base_addr ||
        size - sb.base_addr - sb.driver_addr < 8 + sizeof id ||
        h5sf_sysio_pread(fd, id, sizeof id, sb.base_addr + sb.driver_addr + 8) != (ssize_t)sizeof id)
        return 0;
    return !memcmp(id, H5SF_DRVINFO_NAME, sizeof id);
}

int h5sf_layout_load(h5sf_layout_t *l, int stub_fd, const char *name, h5sf_errbuf_t *e)
{
    char        cfg[2 * H5SF_LAYOUT_PATH_MAX];
    struct stat st;
    if (h5sf_config_path(l, cfg, sizeof cfg, e) < 0)
        return -1;
    if (h5sf_sysio_stat(cfg, &st) == 0)
        return h5sf_config_file_read(l, e) < 0 ? -1 : 0;
    /* Not known to be missing: say why, rather than fail reading it with
     * another cause (ENOENT). */
    if (errno != ENOENT)
        return h5sf_fail(e, errno, "cannot stat config file %s: %s", cfg, strerror(errno));
    /* No config file: a plain HDF5 file, unless the stub says otherwise. */
    if (h5sf_stub_lacks_root(stub_fd) || stub_has_sf_drvinfo(stub_fd))
        return h5sf_fail(e, ENOENT,
                         "%s is a subfiled file, but its config file %s does not exist (set config_dir / "
                         "H5SF_CONFIG_DIR to where it is)",
                         name, cfg);
    h5sf_layout_set_plain(l);
    return 1;
}

/* ---- the config file ---------------------------------------------------- */

/* A name nobody can plant in advance: random bits where getrandom(2) gives
 * them, else the clock's. */
static uint64_t temp_tag(unsigned counter)
{
    uint64_t        r = 0;
    struct timespec ts;
    if (getrandom(&r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r) {
        clock_gettime(CLOCK_REALTIME, &ts);
        r = ((uint64_t)ts.tv_sec << 30) ^ (uint64_t)ts.tv_nsec;
    }
    return r ^ ((uint64_t)counter << 48);
}

/* Create a fresh temporary next to `path` (mode 0666 & ~umask, like fopen):
 * O_EXCL (and h5sf_sysio_open's O_NOFOLLOW), so whatever is planted at a
 * name, file, link or FIFO, is never written through, only skipped, and the
 * name carries random bits, so nobody can plant them all in advance. */
static int open_temp(const char *path, char *tmp, size_t n, h5sf_errbuf_t *e)
{
    static unsigned counter;
    for (int tries = 0; tries < 100; tries++) {
        int w = snprintf(tmp, n, "%s.tmp.%ld.%016" PRIx64, path, (long)getpid(), temp_tag(counter++));
        if (w < 0 || (size_t)w >= n)
            return h5sf_fail(e, ENAMETOOLONG, "config file %s: temporary name too long", path);
        int         fd = h5sf_sysio_open(tmp, O_WRONLY | O_CREAT | O_EXCL, -1);
        struct stat st;
        if (fd >= 0 || errno != EEXIST) {
            if (fd < 0) {
                int err = errno;
                /* Made, then a check of the open failed: not left behind. */
                if (h5sf_sysio_fstatat(AT_FDCWD, tmp, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
                    st.st_uid == geteuid() && st.st_nlink == 1 && st.st_size == 0)
                    h5sf_sysio_unlink(tmp);
                h5sf_fail(e, err, "cannot create config file %s: %s", tmp, h5sf_sysio_strerror(err));
            }
            return fd;
        }
    }
    return h5sf_fail(e, EEXIST, "cannot create a temporary for config file %s", path);
}

/* The config file's text on its way to fd, through a buffer that holds
 * the longest line (two paths) and goes out whenever it is full. */
typedef struct out {
    int      fd, err;
    uint64_t off;
    size_t   len;
    char     buf[4 * H5SF_LAYOUT_PATH_MAX];
} out_t;

static void out_flush(out_t *o)
{
    if (!o->err && o->len && h5sf_sysio_pwrite_all(o->fd, o->buf, o->len, o->off) < 0)
        o->err = errno;
    o->off += o->len;
    o->len = 0;
}

static void out_line(out_t *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void out_line(out_t *o, const char *fmt, ...)
{
    for (int pass = 0; pass < 2 && !o->err; pass++) {
        va_list ap;
        va_start(ap, fmt);
        int w = vsnprintf(o->buf + o->len, sizeof o->buf - o->len, fmt, ap);
        va_end(ap);
        if (w < 0) {
            o->err = EINVAL;
            return;
        }
        if ((size_t)w < sizeof o->buf - o->len) {
            o->len += (size_t)w;
            return;
        }
        out_flush(o); /* then once more into the empty buffer, which holds any line */
    }
}

static void write_lines(out_t *o, const h5sf_layout_t *l)
{
    int d = h5sf_digits((uint64_t)l->stripe_count);
    out_line(o, "stripe_size=%" PRId64 "\n", l->stripe_size);
    out_line(o, "aggregator_count=%" PRId32 "\n", l->ioc_count);
    out_line(o, "subfile_count=%" PRId32 "\n", l->stripe_count);
    out_line(o, "hdf5_file=%s%s%s\n", l->stub_dir, strcmp(l->stub_dir, "/") ? "/" : "", l->base);
    out_line(o, "subfile_dir=%s\n", subfile_dir_of(l));
    for (int k = 0; k < l->stripe_count && !o->err; k++)
        out_line(o, SUBFILE_TEMPLATE "\n", l->base, l->inode, d, k + 1, (int)l->stripe_count);
    out_flush(o);
}

int h5sf_config_file_write(const h5sf_layout_t *l, h5sf_errbuf_t *e)
{
    char   path[2 * H5SF_LAYOUT_PATH_MAX], tmp[2 * H5SF_LAYOUT_PATH_MAX + 64];
    out_t *o;
    if (l->stripe_size <= 0 || l->stripe_count < 1 || l->stripe_count > H5SF_MAX_STRIPE_COUNT)
        return h5sf_fail(e, EINVAL, "invalid layout (stripe_size %" PRId64 ", %" PRId32 " subfiles)", l->stripe_size,
                         l->stripe_count);
    if (!sf_stripes_fit((uint64_t)l->stripe_size, l->stripe_count))
        return h5sf_fail(e, EINVAL,
                         "stripe_size %" PRId64 " x %" PRId32
                         " subfiles puts the last subfile past h5sf's 2^62-byte address space",
                         l->stripe_size, l->stripe_count);
    if (h5sf_config_path(l, path, sizeof path, e) < 0)
        return -1;
    if (!(o = h5sf_malloc(sizeof *o)))
        return h5sf_fail(e, ENOMEM, "cannot write config file %s: out of memory", path);
    if ((o->fd = open_temp(path, tmp, sizeof tmp, e)) < 0) {
        h5sf_free(o);
        return -1;
    }
    /* Readers see the old file or the complete new one, never a torn one. */
    o->err = 0;
    o->off = 0;
    o->len = 0;
    write_lines(o, l);
    int err = o->err;
    if (!err && h5sf_sysio_sync(o->fd, -1) != 0)
        err = errno;
    if (h5sf_sysio_close(o->fd) != 0 && !err)
        err = errno;
    if (!err && h5sf_sysio_rename(tmp, path) != 0)
        err = errno;
    h5sf_free(o);
    if (err) {
        h5sf_sysio_unlink(tmp);
        return h5sf_fail(e, err, "cannot write config file %s: %s", path, strerror(err));
    }
    return 0;
}

/* Printable copy of a line for messages (layout.h). */
void h5sf_show_line(const char *s, size_t len, char *out, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < len && k + 4 < n; i++)
        out[k++] = (s[i] >= 0x20 && s[i] < 0x7f) ? s[i] : '?';
    if (len > 0 && k + 4 >= n && k < len) {
        memcpy(out + k, "...", 3);
        k += 3;
    }
    out[k] = '\0';
}

/* Decimal number in s[0..len) with optional sign and surrounding blanks;
 * false on anything else or on int64 overflow. */
static bool parse_i64(const char *s, size_t len, int64_t *out)
{
    size_t i = 0;
    while (i < len && (s[i] == ' ' || s[i] == '\t'))
        i++;
    bool neg = false;
    if (i < len && (s[i] == '-' || s[i] == '+'))
        neg = s[i++] == '-';
    size_t   start = i;
    uint64_t v     = 0;
    for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
        unsigned d = (unsigned)(s[i] - '0');
        if (v > ((uint64_t)INT64_MAX + 1 - d) / 10)
            return false;
        v = v * 10 + d;
    }
    if (i == start)
        return false;
    while (i < len && (s[i] == ' ' || s[i] == '\t'))
        i++;
    if (i != len || (!neg && v > (uint64_t)INT64_MAX))
        return false;
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return true;
}

/* Digits only, at least one, into *v (capped); returns the count read. */
static size_t scan_uint(const char *s, size_t len, uint64_t *v)
{
    size_t i = 0;
    *v       = 0;
    for (; i < len && s[i] >= '0' && s[i] <= '9'; i++)
        if (*v < UINT64_MAX / 20)
            *v = *v * 10 + (uint64_t)(s[i] - '0');
    return i;
}

/* "<base>.subfile_<inode>_<NN>_of_<N>": 1 if it is one, with NN and N. */
static bool subfile_name(const char *s, size_t len, uint64_t *nn, uint64_t *nt)
{
    static const char tag[] = ".subfile_";
    const size_t      tl    = sizeof tag - 1;
    const char       *at    = NULL;
    for (size_t i = 1; i + tl <= len; i++) /* last occurrence, after a non-empty base */
        if (memcmp(s + i, tag, tl) == 0)
            at = s + i;
    if (!at)
        return false;
    const char *p = at + tl, *end = s + len;
    uint64_t    inode;
    size_t      k = scan_uint(p, (size_t)(end - p), &inode);
    if (k == 0 || p + k >= end || p[k] != '_')
        return false;
    p += k + 1;
    k = scan_uint(p, (size_t)(end - p), nn);
    if (k == 0 || (size_t)(end - p) < k + 4 || memcmp(p + k, "_of_", 4) != 0)
        return false;
    p += k + 4;
    k = scan_uint(p, (size_t)(end - p), nt);
    return k > 0 && p + k == end;
}

enum { K_STRIPE, K_AGG, K_COUNT, K_FILE, K_DIR, K_N };
static const char *const cfg_keys[K_N] = {
    "stripe_size=", "aggregator_count=", "subfile_count=", "hdf5_file=", "subfile_dir="};

/* What h5sf_config_file_parse has read so far. */
typedef struct {
    size_t   seen[K_N]; /* line number of each key, 0 = absent */
    int64_t  stripe, agg, count;
    uint64_t names_n, names_seen;
    size_t   names_line;
    char     dir[H5SF_LAYOUT_PATH_MAX];
} cfg_read_t;

/* A "key=value" line of key k. */
static int cfg_setting(cfg_read_t *c, int k, const char *v, size_t vl, size_t lineno, const char *show,
                       h5sf_errbuf_t *e)
{
    if (c->seen[k])
        return h5sf_fail(e, EINVAL, "config file line %zu: \"%s\": %.*s already given on line %zu", lineno, show,
                         (int)strlen(cfg_keys[k]) - 1, cfg_keys[k], c->seen[k]);
    c->seen[k] = lineno;
    int64_t x  = 0;
    if (k <= K_COUNT && !parse_i64(v, vl, &x))
        return h5sf_fail(e, EINVAL, "config file line %zu: \"%s\": not an integer", lineno, show);
    switch (k) {
        case K_STRIPE:
            if (x <= 0)
                return h5sf_fail(e, EINVAL, "config file line %zu: \"%s\": stripe size must be positive", lineno, show);
            c->stripe = x;
            break;
        case K_AGG:
            if (x < 1 || x > INT32_MAX)
                return h5sf_fail(e, EINVAL, "config file line %zu: \"%s\": aggregator count out of range", lineno,
                                 show);
            c->agg = x;
            break;
        case K_COUNT:
            if (x < 1 || x > H5SF_MAX_STRIPE_COUNT)
                return h5sf_fail(e, EINVAL, "config file line %zu: \"%s\": subfile count out of range (1..%d)", lineno,
                                 show, H5SF_MAX_STRIPE_COUNT);
            c->count = x;
            break;
        case K_DIR:
            if (vl >= sizeof c->dir)
                return h5sf_fail(e, ENAMETOOLONG, "config file line %zu: subfile_dir longer than %zu characters",
                                 lineno, sizeof c->dir - 1);
            memcpy(c->dir, v, vl);
            c->dir[vl] = '\0';
            break;
        default: /* hdf5_file: informational only */ break;
    }
    return 0;
}

/* A subfile name line: exactly the name this stub's next subfile has, in
 * order; an edited list is refused, not guessed at. */
static int cfg_subfile(cfg_read_t *c, const h5sf_layout_t *l, const char *line, size_t ll, size_t lineno,
                       const char *show, h5sf_errbuf_t *e)
{
    uint64_t nn, nt;
    if (!subfile_name(line, ll, &nn, &nt))
        return h5sf_fail(e, EINVAL, "config file line %zu: \"%s\": not a setting nor a subfile name", lineno, show);
    if (c->names_line == 0) {
        c->names_n    = nt;
        c->names_line = lineno;
    }
    if (nt != c->names_n || nn < 1 || nn > nt || nt > H5SF_MAX_STRIPE_COUNT)
        return h5sf_fail(e, EINVAL,
                         "config file line %zu: \"%s\": subfile number out of range or disagrees with line %zu", lineno,
                         show, c->names_line);
    char want[H5SF_LAYOUT_PATH_MAX + 64];
    int  w = snprintf(want, sizeof want, SUBFILE_TEMPLATE, l->base, l->inode, h5sf_digits(nt), (int)(c->names_seen + 1),
                      (int)nt);
    if (w < 0 || (size_t)w != ll || memcmp(want, line, ll) != 0)
        return h5sf_fail(e, EINVAL,
                         "config file line %zu: \"%s\" is not the name of subfile %" PRIu64 " of this file (%.200s)",
                         lineno, show, c->names_seen + 1, want);
    c->names_seen++;
    return 0;
}

/* After the last line: what must be there is, and the parts agree. */
static int cfg_complete(const cfg_read_t *c, h5sf_errbuf_t *e)
{
    if (!c->seen[K_STRIPE])
        return h5sf_fail(e, EINVAL, "config file: no stripe_size= line");
    if (!c->seen[K_COUNT])
        return h5sf_fail(e, EINVAL, "config file: no subfile_count= line");
    if (c->names_line && c->names_n != (uint64_t)c->count)
        return h5sf_fail(e, EINVAL,
                         "config file line %zu: subfile names say %" PRIu64 " subfiles, line %zu says %" PRId64,
                         c->names_line, c->names_n, c->seen[K_COUNT], c->count);
    if (c->names_line && c->names_seen != c->names_n)
        return h5sf_fail(e, EINVAL,
                         "config file: only %" PRIu64 " of the %" PRIu64 " subfile names are listed (from line %zu on)",
                         c->names_seen, c->names_n, c->names_line);
    if (!sf_stripes_fit((uint64_t)c->stripe, c->count))
        return h5sf_fail(e, EINVAL,
                         "config file: stripe_size %" PRId64 " x subfile_count %" PRId64
                         " puts the last subfile past h5sf's 2^62-byte address space",
                         c->stripe, c->count);
    return 0;
}

int h5sf_config_file_parse(const char *text, size_t len, h5sf_layout_t *l, h5sf_errbuf_t *e)
{
    cfg_read_t c;
    char       show[80];
    size_t     lineno = 0;
    memset(&c, 0, sizeof c);

    if (!text && len)
        return h5sf_fail(e, EINVAL, "config file: no text");
    for (size_t pos = 0; pos < len;) {
        const char *line = text + pos;
        const char *nl   = memchr(line, '\n', len - pos);
        size_t      ll   = nl ? (size_t)(nl - line) : len - pos;
        pos += ll + (nl ? 1 : 0);
        lineno++;
        if (ll > 0 && line[ll - 1] == '\r')
            ll--;
        h5sf_show_line(line, ll, show, sizeof show);
        if (memchr(line, '\0', ll))
            return h5sf_fail(e, EINVAL, "config file line %zu: contains a NUL byte", lineno);
        size_t blank = 0;
        while (blank < ll && (line[blank] == ' ' || line[blank] == '\t'))
            blank++;
        if (blank == ll)
            continue;
        int k = 0;
        while (k < K_N && !(ll >= strlen(cfg_keys[k]) && memcmp(line, cfg_keys[k], strlen(cfg_keys[k])) == 0))
            k++;
        int rc = k < K_N ? cfg_setting(&c, k, line + strlen(cfg_keys[k]), ll - strlen(cfg_keys[k]), lineno, show, e)
                         : cfg_subfile(&c, l, line, ll, lineno, show, e);
        if (rc < 0)
            return -1;
    }
    if (cfg_complete(&c, e) < 0)
        return -1;
    l->stripe_size  = c.stripe;
    l->stripe_count = (int32_t)c.count;
    if (c.seen[K_AGG])
        l->ioc_count = (int32_t)c.agg;
    if (c.seen[K_DIR])
        memcpy(l->subfile_dir, c.dir, strlen(c.dir) + 1);
    return 0;
}

#define CONFIG_FILE_MAX ((size_t)256 << 20) /* 65536 names of ~4 KiB fit easily */

/* The text of the config file at path (through the one open helper: a
 * symlink, FIFO or device there is refused at once), in *text (the
 * caller frees it), *got bytes. */
static int read_text(const char *path, char **text, size_t *got, h5sf_errbuf_t *e)
{
    struct stat st;
    int         fd, ret = -1;
    *text = NULL;
    *got  = 0;
    if ((fd = h5sf_sysio_open(path, O_RDONLY, -1)) < 0)
        return h5sf_fail(e, errno, "cannot open config file %s: %s", path, h5sf_sysio_strerror(errno));
    if (h5sf_sysio_fstat(fd, &st) < 0) {
        h5sf_fail(e, errno, "cannot stat config file %s: %s", path, strerror(errno));
        goto done;
    }
    if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size > CONFIG_FILE_MAX) {
        h5sf_fail(e, EINVAL, "config file %s: not a regular file or larger than %zu bytes", path, CONFIG_FILE_MAX);
        goto done;
    }
    size_t size = (size_t)st.st_size;
    if (!(*text = h5sf_malloc(size + 1))) {
        h5sf_fail(e, ENOMEM, "config file %s: out of memory", path);
        goto done;
    }
    while (*got < size) {
        ssize_t r = h5sf_sysio_read(fd, *text + *got, size - *got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            h5sf_fail(e, errno, "cannot read config file %s: %s", path, strerror(errno));
            goto done;
        }
        if (r == 0)
            break; /* shrank meanwhile: parse what is there */
        *got += (size_t)r;
    }
    ret = 0;
done:
    h5sf_sysio_close(fd);
    return ret;
}

int h5sf_config_file_stub(const h5sf_layout_t *l, char *out, size_t n, h5sf_errbuf_t *e)
{
    char   path[2 * H5SF_LAYOUT_PATH_MAX];
    char  *text = NULL;
    size_t got;
    int    ret = -1;
    if (h5sf_config_path(l, path, sizeof path, e) < 0 || read_text(path, &text, &got, e) < 0) {
        h5sf_free(text);
        return -1;
    }
    for (size_t pos = 0; pos < got;) {
        const char *line = text + pos, *nl = memchr(line, '\n', got - pos);
        size_t      ll = nl ? (size_t)(nl - line) : got - pos;
        pos += ll + 1;
        if (ll > 0 && line[ll - 1] == '\r')
            ll--;
        if (ll < 10 || memcmp(line, "hdf5_file=", 10) != 0)
            continue;
        if (ll - 10 >= n || memchr(line + 10, '\0', ll - 10))
            break;
        memcpy(out, line + 10, ll - 10);
        out[ll - 10] = '\0';
        ret          = 0;
        break;
    }
    if (ret < 0)
        h5sf_fail(e, EINVAL, "config file %s names no stub (hdf5_file=)", path);
    h5sf_free(text);
    return ret;
}

int h5sf_config_file_read(h5sf_layout_t *l, h5sf_errbuf_t *e)
{
    char   path[2 * H5SF_LAYOUT_PATH_MAX];
    char  *text = NULL;
    size_t got;
    int    ret = -1;

    if (h5sf_config_path(l, path, sizeof path, e) < 0)
        return -1;
    if (read_text(path, &text, &got, e) < 0)
        goto done;
    char keep[H5SF_LAYOUT_PATH_MAX];
    memcpy(keep, l->subfile_dir, sizeof keep);
    if (h5sf_config_file_parse(text, got, l, e) < 0) {
        char why[sizeof e->msg];
        snprintf(why, sizeof why, "%s", e ? e->msg : "");
        /* "config file line 3: ..." -> "config file /x/y.config line 3: ..." */
        const char *rest = strncmp(why, "config file", 11) == 0 ? why + 11 : why;
        h5sf_fail(e, EINVAL, "config file %s%s%s", path, rest == why ? ": " : "", rest);
        goto done;
    }
    /* A relative subfile_dir (the built-in writes one when given one) means
     * the stub's directory, never the reader's working directory. */
    if (l->subfile_dir[0] && l->subfile_dir[0] != '/') {
        char rel[H5SF_LAYOUT_PATH_MAX];
        memcpy(rel, l->subfile_dir, sizeof rel);
        if (join_dir(l->stub_dir, rel, l->subfile_dir, sizeof l->subfile_dir, e) < 0) {
            memcpy(l->subfile_dir, keep, sizeof keep);
            goto done;
        }
    }
    ret = 0;
done:
    h5sf_free(text);
    return ret;
}
