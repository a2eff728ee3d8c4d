/*
 * toolkit.c -- shared pieces of the h5sf tools (see toolkit.h).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* copy_file_range, SEEK_DATA */
#endif
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <uv.h>
#include "settings.h"
#include "bounds.h"
#include "stripe.h"
#include "sysio.h"
#include "toolkit.h"

const char *tk_config_dir(const char *opt)
{
    const char *v = opt ? opt : h5sf_option_env("config_dir");
    return v ? v : "";
}

int tk_alloc(tk_set_t *t, h5sf_errbuf_t *e)
{
    t->n    = t->l.stripe_count;
    t->path = calloc((size_t)t->n, sizeof *t->path);
    t->fd   = malloc((size_t)t->n * sizeof *t->fd);
    t->size = malloc((size_t)t->n * sizeof *t->size);
    t->err  = calloc((size_t)t->n, sizeof *t->err);
    if (!t->path || !t->fd || !t->size || !t->err)
        return h5sf_fail(e, ENOMEM, "out of memory for %d subfiles", t->n);
    for (int s = 0; s < t->n; s++) {
        t->fd[s]   = -1;
        t->size[s] = -1;
    }
    char buf[TK_PATH];
    for (int s = 0; s < t->n; s++) {
        if (h5sf_subfile_path(&t->l, s, buf, sizeof buf, e) < 0)
            return -1;
        if (!(t->path[s] = strdup(buf)))
            return h5sf_fail(e, ENOMEM, "out of memory");
    }
    return h5sf_config_path(&t->l, t->config, sizeof t->config, e);
}

int tk_open_stub(const char *path, int flags, struct stat *st)
{
    char real[PATH_MAX];
    if (!realpath(path, real))
        return -1;
    int fd = h5sf_sysio_open(real, flags, -1);
    if (fd >= 0 && st && fstat(fd, st) < 0) {
        int err = errno;
        close(fd);
        errno = err;
        return -1;
    }
    return fd;
}

int tk_logical_addr(uint64_t S, int N, int s, uint64_t off, uint64_t *laddr)
{
    /* ((off / S) * N + s) * S + off % S, every step checked */
    uint64_t a;
    if (S == 0 || N < 1 || __builtin_mul_overflow(off / S, (uint64_t)N, &a) ||
        __builtin_add_overflow(a, (uint64_t)s, &a) || __builtin_mul_overflow(a, S, &a) ||
        __builtin_add_overflow(a, off % S, &a) || a >= H5SF_ADDR_LIMIT)
        return -1;
    *laddr = a;
    return 0;
}

/* Layouts whose stripe arithmetic overflows are refused here, whatever the
 * config parser let through: h5sf-fuse would otherwise write one subfile's
 * bytes over another's. */
static int check_layout(const tk_set_t *t, h5sf_errbuf_t *e)
{
    const int64_t S = t->l.stripe_size;
    const int32_t N = t->l.stripe_count;
    uint64_t      row;
    if (S <= 0 || N < 1 || N > H5SF_MAX_STRIPE_COUNT)
        return h5sf_fail(e, EINVAL, "config file %s: invalid layout (stripe size %" PRId64 ", %" PRId32 " subfiles)",
                         t->config, S, N);
    if (__builtin_mul_overflow((uint64_t)S, (uint64_t)N, &row) || row > H5SF_ADDR_LIMIT)
        return h5sf_fail(e, EOVERFLOW,
                         "config file %s: stripe size %" PRId64 " x %" PRId32
                         " subfiles overflows the logical address space (limit 2^62 bytes a row)",
                         t->config, S, N);
    return 0;
}

/* Subfile s as it is on disk: opened (open_flags != -1) or lstat'ed, never
 * through a link; 0, or -1 for an open error worth failing for. */
static int look_at_subfile(tk_set_t *t, int s, int open_flags, h5sf_errbuf_t *e)
{
    struct stat ss;
    if (open_flags != -1) {
        if ((t->fd[s] = h5sf_sysio_open(t->path[s], open_flags, -1)) < 0 || fstat(t->fd[s], &ss) < 0) {
            int err = errno;
            if (t->fd[s] >= 0) {
                close(t->fd[s]);
                t->fd[s] = -1;
            }
            if (err == ENOENT || err == ELOOP || err == H5SF_ENOTREG) {
                t->err[s] = err;
                return 0;
            }
            return h5sf_fail(e, err, "cannot open subfile %d of %d, %s: %s", s + 1, t->n, t->path[s],
                             h5sf_sysio_strerror(err));
        }
    }
    else if (lstat(t->path[s], &ss) < 0) {
        t->err[s] = errno;
        return 0;
    }
    else if (!S_ISREG(ss.st_mode)) {
        t->err[s] = S_ISLNK(ss.st_mode) ? ELOOP : H5SF_ENOTREG;
        return 0;
    }
    t->size[s] = (int64_t)ss.st_size;
    t->perm &= ss.st_mode & 0777;
    return 0;
}

int tk_open(tk_set_t *t, const char *stub, const char *config_dir, const char *subfile_dir, int open_flags,
            h5sf_errbuf_t *e)
{
    struct stat st;
    memset(t, 0, sizeof *t);
    if (snprintf(t->stub, sizeof t->stub, "%s", stub) >= (int)sizeof t->stub)
        return h5sf_fail(e, ENAMETOOLONG, "file name too long: %.60s...", stub);
    int sfd = tk_open_stub(stub, O_RDONLY, &st);
    if (sfd < 0)
        return h5sf_fail(e, errno, "%s: %s", stub, h5sf_sysio_strerror(errno));
    close(sfd);
    t->stub_size = (uint64_t)st.st_size;
    t->stub_uid  = st.st_uid;
    t->perm      = st.st_mode & 0777;
    if (h5sf_layout_set_stub(&t->l, stub, e) < 0)
        return -1;
    t->l.inode = (uint64_t)st.st_ino;
    snprintf(t->l.config_dir, sizeof t->l.config_dir, "%s", config_dir ? config_dir : "");
    if (h5sf_config_path(&t->l, t->config, sizeof t->config, e) < 0 || h5sf_config_file_read(&t->l, e) < 0 ||
        check_layout(t, e) < 0)
        return -1;
    if (subfile_dir)
        snprintf(t->l.subfile_dir, sizeof t->l.subfile_dir, "%s", subfile_dir);
    if (tk_alloc(t, e) < 0)
        return -1;
    uint64_t *sz = calloc((size_t)t->n, sizeof *sz);
    if (!sz)
        return h5sf_fail(e, ENOMEM, "out of memory");
    int ret = 0;
    for (int s = 0; s < t->n && ret == 0; s++) {
        if ((ret = look_at_subfile(t, s, open_flags, e)) < 0 || t->size[s] <= 0)
            continue;
        uint64_t last;
        sz[s] = (uint64_t)t->size[s];
        if (tk_logical_addr((uint64_t)t->l.stripe_size, t->n, s, sz[s] - 1, &last) < 0)
            ret = h5sf_fail(e, EFBIG,
                            "subfile %d of %d, %s, holds %" PRIu64 " bytes: more than the layout can address "
                            "(logical addresses stop at 2^62)",
                            s + 1, t->n, t->path[s], sz[s]);
    }
    if (ret == 0)
        t->sub_eof = sf_logical_eof(sz, (uint64_t)t->l.stripe_size, t->n);
    free(sz);
    return ret;
}

void tk_close(tk_set_t *t)
{
    for (int s = 0; t->fd && s < t->n; s++)
        if (t->fd[s] >= 0)
            close(t->fd[s]);
    for (int s = 0; t->path && s < t->n; s++)
        free(t->path[s]);
    free(t->path);
    free(t->fd);
    free(t->size);
    free(t->err);
    t->path = NULL;
    t->fd   = NULL;
    t->size = NULL;
    t->err  = NULL;
}

ssize_t tk_pread(int fd, void *buf, size_t n, uint64_t off)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = pread(fd, (char *)buf + got, n - got, (off_t)(off + got));
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (r == 0)
            break;
        got += (size_t)r;
    }
    return (ssize_t)got;
}

int tk_pwrite(int fd, const void *buf, size_t n, uint64_t off)
{
    size_t put = 0;
    while (put < n) {
        ssize_t w = pwrite(fd, (const char *)buf + put, n - put, (off_t)(off + put));
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        put += (size_t)w;
    }
    return 0;
}

/* Walk [off, off+len) stripe piece by stripe piece. */
static int logical_io(const tk_set_t *t, uint64_t off, char *buf, size_t len, bool write)
{
    const uint64_t S = (uint64_t)t->l.stripe_size;
    while (len > 0) {
        int      s  = sf_subfile_of(off, S, t->n);
        uint64_t so = sf_subfile_off(off, S, t->n);
        size_t   n  = (size_t)(S - off % S);
        if (n > len)
            n = len;
        if (write) {
            if (t->fd[s] < 0 || tk_pwrite(t->fd[s], buf, n, so) < 0)
                return -1;
        }
        else {
            ssize_t got = t->fd[s] >= 0 ? tk_pread(t->fd[s], buf, n, so) : 0;
            if (got < 0)
                return -1;
            memset(buf + got, 0, n - (size_t)got);
        }
        off += n;
        buf += n;
        len -= n;
    }
    return 0;
}

int tk_read_logical(const tk_set_t *t, uint64_t off, void *buf, size_t len)
{
    return logical_io(t, off, buf, len, false);
}
int tk_write_logical(const tk_set_t *t, uint64_t off, const void *buf, size_t len)
{
    return logical_io(t, off, (char *)(uintptr_t)buf, len, true);
}

typedef struct {
    const tk_set_t *t;
    int             fd; /* the stub, or -1 for the logical file */
    uint64_t        size;
} rdctx_t;

static ssize_t sb_reader(void *ctx, uint64_t off, void *buf, size_t len)
{
    rdctx_t *c = ctx;
    if (c->fd >= 0)
        return tk_pread(c->fd, buf, len, off);
    if (off >= c->size)
        return 0;
    if (len > c->size - off)
        len = (size_t)(c->size - off);
    return tk_read_logical(c->t, off, buf, len) < 0 ? -1 : (ssize_t)len;
}

int tk_superblock(const tk_set_t *t, sb_info_t *sb, bool *from_stub, h5sf_errbuf_t *e)
{
    rdctx_t c  = {t, -1, t->sub_eof > t->stub_size ? t->sub_eof : t->stub_size};
    *from_stub = t->fd[0] < 0;
    if (*from_stub && (c.fd = tk_open_stub(t->stub, O_RDONLY, NULL)) < 0)
        return h5sf_fail(e, errno, "cannot open %s: %s", t->stub, h5sf_sysio_strerror(errno));
    int r = sb_read(sb_reader, &c, c.size, sb, e);
    if (c.fd >= 0)
        close(c.fd);
    return r;
}

int64_t tk_copy_range(int in, uint64_t ioff, int out, uint64_t ooff, uint64_t len, char *buf, size_t bufsz)
{
    static atomic_int no_cfr; /* the kernel or file system cannot: stop trying */
    uint64_t          done = 0;
    while (done < len) {
        ssize_t n;
        if (!atomic_load(&no_cfr)) {
            loff_t a = (loff_t)(ioff + done), b = (loff_t)(ooff + done);
            n = copy_file_range(in, &a, out, &b, (size_t)(len - done), 0);
            if (n < 0 && (errno == EXDEV || errno == ENOSYS || errno == EINVAL || errno == EOPNOTSUPP)) {
                atomic_store(&no_cfr, 1);
                continue;
            }
        }
        else {
            size_t want = len - done < bufsz ? (size_t)(len - done) : bufsz;
            n           = pread(in, buf, want, (off_t)(ioff + done));
            if (n > 0 && tk_pwrite(out, buf, (size_t)n, ooff + done) < 0)
                return -1;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        if (n == 0)
            break; /* input ends here */
        done += (uint64_t)n;
    }
    return (int64_t)done;
}

int tk_copy_file(const char *src, bool is_stub, const char *dst, h5sf_errbuf_t *e)
{
    struct stat  st;
    int          in = -1, out = -1, ret = -1;
    char        *buf   = NULL;
    const size_t bufsz = (size_t)4 << 20;

    in = is_stub ? tk_open_stub(src, O_RDONLY, &st) : h5sf_sysio_open(src, O_RDONLY, -1);
    if (in < 0 || fstat(in, &st) < 0) {
        h5sf_fail(e, errno, "cannot read %s: %s", src, h5sf_sysio_strerror(errno));
        goto done;
    }
    /* The umask applies (open's mode), and only rw bits the source has. */
    if ((out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, st.st_mode & 0666)) < 0) {
        h5sf_fail(e, errno, "cannot create %s: %s", dst, strerror(errno));
        goto done;
    }
    if (!(buf = malloc(bufsz))) {
        h5sf_fail(e, ENOMEM, "out of memory");
        goto done;
    }
    /* Data extents only, so the sparse stub stays sparse. */
    uint64_t size = (uint64_t)st.st_size, pos = 0;
    while (pos < size) {
        off_t d = lseek(in, (off_t)pos, SEEK_DATA), h;
        if (d < 0 && errno == ENXIO)
            break;   /* only a hole is left */
        if (d < 0) { /* no SEEK_DATA here: copy everything */
            d = (off_t)pos;
            h = (off_t)size;
        }
        else if ((h = lseek(in, d, SEEK_HOLE)) < 0)
            h = (off_t)size;
        int64_t n = tk_copy_range(in, (uint64_t)d, out, (uint64_t)d, (uint64_t)(h - d), buf, bufsz);
        if (n < 0) {
            h5sf_fail(e, errno, "cannot copy %s to %s: %s", src, dst, strerror(errno));
            goto done;
        }
        if ((uint64_t)n < (uint64_t)(h - d))
            break; /* shrank meanwhile */
        pos = (uint64_t)h;
    }
    if (ftruncate(out, (off_t)size) < 0) {
        h5sf_fail(e, errno, "cannot finish %s: %s", dst, strerror(errno));
        goto done;
    }
    ret = 0;
done:
    if (out >= 0 && close(out) < 0 && ret == 0)
        ret = h5sf_fail(e, errno, "cannot write %s: %s", dst, strerror(errno));
    if (in >= 0)
        close(in);
    if (ret < 0 && out >= 0)
        unlink(dst);
    free(buf);
    return ret;
}

int tk_unlink_piece(const char *prog, const char *path, uid_t owner)
{
    struct stat st;
    if (lstat(path, &st) < 0)
        return errno == ENOENT ? 0 : -1;
    if ((!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) || st.st_uid != owner) {
        tk_print(stderr, "%s: warning: cannot remove %s: %s; left alone\n", prog, path,
                 st.st_uid != owner ? "owned by another account than the file's stub" : "not a regular file");
        return -1;
    }
    if (unlink(path) < 0 && errno != ENOENT) {
        tk_print(stderr, "%s: warning: cannot remove %s: %s\n", prog, path, strerror(errno));
        return -1;
    }
    return 0;
}

int tk_remove_file(const char *prog, const char *stub, const char *config_dir, h5sf_errbuf_t *e)
{
    tk_set_t      old;
    h5sf_errbuf_t eb = {0};
    struct stat   st;
    memset(&old, 0, sizeof old);
    /* A link is only a name: replacing it must not touch its target's set. */
    if (lstat(stub, &st) == 0 && !S_ISLNK(st.st_mode) && tk_open(&old, stub, config_dir, NULL, -1, &eb) == 0) {
        /* What is left of these is an orphan (its name holds the old
         * stub's inode): say so, and go on. */
        for (int s = 0; s < old.n; s++)
            tk_unlink_piece(prog, old.path[s], old.stub_uid);
        tk_unlink_piece(prog, old.config, old.stub_uid);
    }
    tk_close(&old);
    if (unlink(stub) < 0 && errno != ENOENT)
        return h5sf_fail(e, errno, "cannot replace %s: %s", stub, strerror(errno));
    return 0;
}

int tk_has_hdf5_signature(int fd, uint64_t size)
{
    static const unsigned char sig[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
    unsigned char              buf[8];
    /* As HDF5 and h5sf_superblock_read look: 0, then powers of two from 512. */
    for (uint64_t at = 0; at + sizeof buf <= size; at = at ? 2 * at : 512) {
        ssize_t n = tk_pread(fd, buf, sizeof buf, at);
        if (n < 0)
            return -1;
        if (n == (ssize_t)sizeof buf && memcmp(buf, sig, sizeof sig) == 0)
            return 1;
        if (at > UINT64_MAX / 4)
            break;
    }
    return 0;
}

mode_t tk_umask(void)
{
    mode_t m = umask(077);
    umask(m);
    return m;
}

int tk_abs_dir(const char *dir, char *out, size_t n, const char *what, h5sf_errbuf_t *e)
{
    if (!dir || !*dir) {
        out[0] = '\0';
        return 0;
    }
    char *real = realpath(dir, NULL);
    if (!real)
        return h5sf_fail(e, errno, "%s %s: %s", what, dir, strerror(errno));
    struct stat st;
    int         bad = stat(real, &st) < 0 || !S_ISDIR(st.st_mode);
    int         w   = snprintf(out, n, "%s", real);
    free(real);
    if (bad)
        return h5sf_fail(e, ENOTDIR, "%s %s: not a directory", what, dir);
    if (w < 0 || (size_t)w >= n)
        return h5sf_fail(e, ENAMETOOLONG, "%s %s: path too long", what, dir);
    return 0;
}

int tk_join_basename(const char *dir, const char *file, char *dest, size_t n)
{
    const char *slash = strrchr(file, '/');
    const char *base  = slash ? slash + 1 : file;
    size_t      dl    = strlen(dir);
    while (dl > 1 && dir[dl - 1] == '/')
        dl--;
    int w = snprintf(dest, n, "%.*s%s%s", (int)dl, dir, dir[dl - 1] == '/' ? "" : "/", base);
    return w < 0 || (size_t)w >= n ? -1 : 0;
}

const char *tk_human(uint64_t b, char *buf, size_t n)
{
    static const char *unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    double             v      = (double)b;
    int                u      = 0;
    while (v >= 1024 && u < 5) {
        v /= 1024;
        u++;
    }
    if (u == 0)
        snprintf(buf, n, "%" PRIu64 " B", b);
    else
        snprintf(buf, n, "%.1f %s", v, unit[u]);
    return buf;
}

/* ---- the thread pool ----------------------------------------------------- */

static struct {
    tk_job_fn            fn;
    void                *arg;
    size_t               njobs;
    atomic_size_t        next;
    atomic_uint_fast64_t done;
    atomic_int           failed;
    char                 err[1024];
    uv_mutex_t           lock;
    uv_once_t            once;
} P = {.once = UV_ONCE_INIT};

static void pool_init(void) { uv_mutex_init(&P.lock); }

void tk_pool_fail(const char *fmt, ...)
{
    uv_once(&P.once, pool_init);
    uv_mutex_lock(&P.lock);
    if (!atomic_exchange(&P.failed, 1)) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(P.err, sizeof P.err, fmt, ap);
        va_end(ap);
    }
    uv_mutex_unlock(&P.lock);
}

bool        tk_pool_failed(void) { return atomic_load(&P.failed) != 0; }
const char *tk_pool_error(void) { return P.err; }

static void pool_worker(void *unused)
{
    (void)unused;
    char *buf = malloc(2 * TK_POOL_BUF);
    if (!buf) {
        tk_pool_fail("out of memory");
        return;
    }
    for (;;) {
        size_t i = atomic_fetch_add(&P.next, 1);
        if (i >= P.njobs || atomic_load(&P.failed))
            break;
        int64_t n = P.fn(P.arg, i, buf);
        if (n < 0) {
            tk_pool_fail("job %zu failed", i); /* keeps the job's own message if it set one */
            break;
        }
        atomic_fetch_add(&P.done, (uint64_t)n);
    }
    free(buf);
}

static void draw(const char *label, uint64_t total)
{
    uint64_t d   = atomic_load(&P.done);
    int      pct = total ? (int)((d > total ? total : d) * 100 / total) : 100;
    fprintf(stderr, "\r%-6s [%-40.*s] %3d%%", label, pct * 40 / 100, "########################################", pct);
}

int tk_pool_run(int threads, size_t njobs, tk_job_fn fn, void *arg, uint64_t total, const char *label)
{
    uv_once(&P.once, pool_init);
    uv_thread_t *t = calloc((size_t)(threads > 0 ? threads : 1), sizeof *t);
    if (!t) {
        tk_pool_fail("out of memory");
        return -1;
    }
    P.fn    = fn;
    P.arg   = arg;
    P.njobs = njobs;
    atomic_store(&P.next, 0);
    atomic_store(&P.done, 0);
    int started = 0;
    while (started < threads && uv_thread_create(&t[started], pool_worker, NULL) == 0)
        started++;
    if (started == 0)
        pool_worker(NULL); /* no threads at all: do the work here */
    while (label && started > 0 && atomic_load(&P.next) < njobs && !atomic_load(&P.failed)) {
        draw(label, total);
        uv_sleep(200);
    }
    for (int i = 0; i < started; i++)
        uv_thread_join(&t[i]);
    if (label) {
        draw(label, total);
        fputc('\n', stderr);
    }
    free(t);
    return atomic_load(&P.failed) ? -1 : 0;
}
