/*
 * sysio.c -- the system calls on subfiles, one table of them (after
 * SQLite's aSyscall[] in os_unix.c), the pwritev/preadv loops (after
 * libuv's uv__fs_write_all), and the H5SF_FAULT injection in front of
 * them.  See sysio.h.
 *
 * Owns the calls and what their results mean.  Must not call HDF5 or MPI
 * (IOC workers and pool threads run it), nor keep state per file.
 */
/* 64-bit offsets whatever the build says: the symbols (pwritev64, fstat64)
 * are then the ones tests wrap with ld --wrap (test/unit_ownstall.cmake). */
#define _FILE_OFFSET_BITS 64
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "settings.h"
#include "sysio.h"

/* ---- the table ---------------------------------------------------------- */

/* Every system call the layer makes goes through here, so a test can put
 * its own in (h5sf_sysio_set), as ld --wrap does for the whole program. */
static struct syscall {
    const char      *name;
    h5sf_syscall_ptr cur, real;
} aSyscall[] = {
    {"open", (h5sf_syscall_ptr)open, (h5sf_syscall_ptr)open},
    {"close", (h5sf_syscall_ptr)close, (h5sf_syscall_ptr)close},
    {"fstat", (h5sf_syscall_ptr)fstat, (h5sf_syscall_ptr)fstat},
    {"ftruncate", (h5sf_syscall_ptr)ftruncate, (h5sf_syscall_ptr)ftruncate},
    {"fsync", (h5sf_syscall_ptr)fsync, (h5sf_syscall_ptr)fsync},
    {"pwritev", (h5sf_syscall_ptr)pwritev, (h5sf_syscall_ptr)pwritev},
    {"preadv", (h5sf_syscall_ptr)preadv, (h5sf_syscall_ptr)preadv},
};
#define os_open      ((int (*)(const char *, int, ...))aSyscall[0].cur)
#define os_close     ((int (*)(int))aSyscall[1].cur)
#define os_fstat     ((int (*)(int, struct stat *))aSyscall[2].cur)
#define os_ftruncate ((int (*)(int, off_t))aSyscall[3].cur)
#define os_fsync     ((int (*)(int))aSyscall[4].cur)
#define os_pwritev   ((ssize_t(*)(int, const struct iovec *, int, off_t))aSyscall[5].cur)
#define os_preadv    ((ssize_t(*)(int, const struct iovec *, int, off_t))aSyscall[6].cur)

int h5sf_sysio_set(const char *name, h5sf_syscall_ptr fn)
{
    for (size_t i = 0; i < sizeof aSyscall / sizeof aSyscall[0]; i++)
        if (!strcmp(aSyscall[i].name, name)) {
            aSyscall[i].cur = fn ? fn : aSyscall[i].real;
            return 0;
        }
    return -1;
}

/* ---- fault injection ---------------------------------------------------- */

static struct {
    bool        on;
    char        op[16];
    int         err, rank;
    long        after, count;
    long        ms;
    atomic_long seen;
} F                        = {.rank = -1, .count = -1};
static pthread_once_t once = PTHREAD_ONCE_INIT;

static int errno_by_name(const char *s)
{
    static const struct {
        const char *n;
        int         v;
    } t[] = {{"EIO", EIO}, {"ENOSPC", ENOSPC}, {"EINTR", EINTR}, {"EACCES", EACCES}, {"short", H5SF_FAULT_SHORT}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (!strcmp(s, t[i].n))
            return t[i].v;
    return 0;
}

/* Read H5SF_FAULT once per process. */
static void parse(void)
{
    const char *s = h5sf_var(H5SF_VAR_FAULT);
    char        buf[256], *save = NULL;
    if (!s || !*s)
        return;
    snprintf(buf, sizeof buf, "%s", s);
    F.err = EIO;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq)
            goto bad;
        *eq++ = '\0';
        if (!strcmp(tok, "op"))
            snprintf(F.op, sizeof F.op, "%s", eq);
        else if (!strcmp(tok, "errno")) {
            if (!(F.err = errno_by_name(eq)))
                goto bad;
        }
        else if (!strcmp(tok, "rank"))
            F.rank = atoi(eq);
        else if (!strcmp(tok, "after"))
            F.after = atol(eq);
        else if (!strcmp(tok, "count"))
            F.count = atol(eq);
        else if (!strcmp(tok, "ms"))
            F.ms = atol(eq);
        else
            goto bad;
    }
    F.on = F.op[0] != '\0';
    return;
bad:
    fprintf(stderr, "h5sf: ignoring malformed H5SF_FAULT=\"%s\"\n", s);
}

int h5sf_fault(const char *op, int rank)
{
    pthread_once(&once, parse);
    if (!F.on || strcmp(F.op, op) || (F.rank >= 0 && F.rank != rank))
        return 0;
    long n = atomic_fetch_add(&F.seen, 1);
    if (n < F.after || (F.count >= 0 && n >= F.after + F.count))
        return 0;
    return F.err;
}

long h5sf_fault_ms(const char *op)
{
    pthread_once(&once, parse);
    return F.on && !strcmp(F.op, op) ? F.ms : -1;
}

bool h5sf_fault_on(void)
{
    pthread_once(&once, parse);
    return F.on;
}

void h5sf_fault_stuck(int rank)
{
    long ms = h5sf_fault_ms("stuck");
    if (ms < 0 || !h5sf_fault("stuck", rank))
        return;
    if (ms == 0)
        ms = 3600L * 1000;
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

/* ---- descriptors -------------------------------------------------------- */

int h5sf_sysio_open(const char *path, int flags, int fault_rank)
{
    int fault = fault_rank >= 0 ? h5sf_fault("open", fault_rank) : 0;
    if (fault) {
        errno = fault;
        return -1;
    }
    return os_open(path, flags | O_CLOEXEC, 0666);
}

int h5sf_sysio_close(int fd) { return os_close(fd); }

int h5sf_sysio_size(int fd, uint64_t *size)
{
    struct stat st;
    if (os_fstat(fd, &st) < 0)
        return -1;
    *size = (uint64_t)st.st_size;
    return 0;
}

int h5sf_sysio_truncate(int fd, uint64_t size) { return os_ftruncate(fd, (off_t)size); }

int h5sf_sysio_sync(int fd, int fault_rank)
{
    int fault = fault_rank >= 0 ? h5sf_fault("fsync", fault_rank) : 0;
    if (fault) {
        errno = fault;
        return -1;
    }
    return os_fsync(fd);
}

/* ---- transfers ---------------------------------------------------------- */

uint64_t h5sf_sysio_iov_add(struct iovec *iov, int *k, int cap, void *p, uint64_t len)
{
    uint64_t done = 0;
    while (done < len && *k < cap) {
        uint64_t m       = len - done < H5SF_SYSIO_LEN_MAX ? len - done : H5SF_SYSIO_LEN_MAX;
        iov[*k].iov_base = (char *)p + done;
        iov[*k].iov_len  = (size_t)m;
        (*k)++;
        done += m;
    }
    return done;
}

/* Zero iov[0..n) from byte `from` on: what a read past EOF did not fill. */
static void zero_from(const struct iovec *iov, int n, uint64_t from)
{
    for (int q = 0; q < n; q++) {
        if (from >= iov[q].iov_len) {
            from -= iov[q].iov_len;
            continue;
        }
        memset((char *)iov[q].iov_base + from, 0, iov[q].iov_len - (size_t)from);
        from = 0;
    }
}

/* One pwritev/preadv of iov[0..n) at off; with a short fault, of half of
 * the first buffer only. */
static ssize_t call(const h5sf_sysio_xfer_t *x, const struct iovec *iov, int n, uint64_t off, bool half)
{
    struct iovec h = {iov[0].iov_base, iov[0].iov_len / 2};
    if (half) {
        iov = &h;
        n   = 1;
    }
    if (n > H5SF_SYSIO_BATCH)
        n = H5SF_SYSIO_BATCH;
    return x->is_write ? os_pwritev(x->fd, iov, n, (off_t)off) : os_preadv(x->fd, iov, n, (off_t)off);
}

int h5sf_sysio_xferv(h5sf_sysio_xfer_t *x, struct iovec *iov, int n, uint64_t off)
{
    uint64_t done = 0;
    size_t   skip = 0; /* bytes of iov[i] done */
    int      i    = 0;
    while (i < n) {
        if (iov[i].iov_len == skip) { /* empty buffers too */
            i++;
            skip = 0;
            continue;
        }
        int f = x->fault_rank >= 0 ? h5sf_fault(x->is_write ? "pwrite" : "pread", x->fault_rank) : 0;
        if (x->is_write && x->stuck)
            h5sf_fault_stuck(x->fault_rank);
        if (f > 0) {
            errno = f;
            if (f == EINTR)
                continue;
            return -1;
        }
        /* The first buffer from where the last call stopped, put back after. */
        struct iovec keep = iov[i];
        iov[i].iov_base   = (char *)iov[i].iov_base + skip;
        iov[i].iov_len -= skip;
        x->syscalls++;
        ssize_t k   = call(x, iov + i, n - i, off + done, f == H5SF_FAULT_SHORT && iov[i].iov_len > 1);
        int     err = errno;
        iov[i]      = keep;
        if (k < 0) {
            if (err == EINTR)
                continue;
            errno = err;
            return -1;
        }
        if (k == 0) {
            if (!x->is_write) { /* EOF: the rest reads as zeros */
                zero_from(iov, n, done);
                return 0;
            }
            errno = EIO; /* pwrite returning 0 for n > 0: a device error */
            return -1;
        }
        done += (uint64_t)k;
        for (size_t left = (size_t)k; left > 0;) {
            size_t m = iov[i].iov_len - skip < left ? iov[i].iov_len - skip : left;
            left -= m;
            if ((skip += m) == iov[i].iov_len) {
                i++;
                skip = 0;
            }
        }
    }
    return 0;
}

bool h5sf_sparse(uint64_t count, uint64_t extent, uint64_t total)
{
    return count >= 16 && extent > total && total / count <= ((uint64_t)256 << 10);
}
