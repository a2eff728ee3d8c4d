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
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h> /* pthread_once: common/ links nothing, libuv neither */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "alloc.h"
#include "settings.h"
#include "sysio.h"

/* ---- the table ---------------------------------------------------------- */

/* Every system call h5sf makes on its files goes through here, so a test
 * can put its own in (h5sf_sysio_set), as ld --wrap does for the whole
 * program, and the sweep can fail any one of them (h5sf_site).  Each
 * row's os_ macro sits under it (SQLite's aSyscall[]): a row added in
 * the middle shows the indices to fix right there. */
static struct syscall {
    const char      *name;
    h5sf_syscall_ptr cur, real;
} aSyscall[] = {
    {"open", (h5sf_syscall_ptr)open, (h5sf_syscall_ptr)open},
#define os_open ((int (*)(const char *, int, ...))aSyscall[0].cur)
    {"close", (h5sf_syscall_ptr)close, (h5sf_syscall_ptr)close},
#define os_close ((int (*)(int))aSyscall[1].cur)
    {"fstat", (h5sf_syscall_ptr)fstat, (h5sf_syscall_ptr)fstat},
#define os_fstat ((int (*)(int, struct stat *))aSyscall[2].cur)
    {"ftruncate", (h5sf_syscall_ptr)ftruncate, (h5sf_syscall_ptr)ftruncate},
#define os_ftruncate ((int (*)(int, off_t))aSyscall[3].cur)
    {"fsync", (h5sf_syscall_ptr)fsync, (h5sf_syscall_ptr)fsync},
#define os_fsync ((int (*)(int))aSyscall[4].cur)
    {"pwritev", (h5sf_syscall_ptr)pwritev, (h5sf_syscall_ptr)pwritev},
#define os_pwritev ((ssize_t(*)(int, const struct iovec *, int, off_t))aSyscall[5].cur)
    {"preadv", (h5sf_syscall_ptr)preadv, (h5sf_syscall_ptr)preadv},
#define os_preadv ((ssize_t(*)(int, const struct iovec *, int, off_t))aSyscall[6].cur)
    {"stat", (h5sf_syscall_ptr)stat, (h5sf_syscall_ptr)stat},
#define os_stat ((int (*)(const char *, struct stat *))aSyscall[7].cur)
    {"unlink", (h5sf_syscall_ptr)unlink, (h5sf_syscall_ptr)unlink},
#define os_unlink ((int (*)(const char *))aSyscall[8].cur)
    {"mkdir", (h5sf_syscall_ptr)mkdir, (h5sf_syscall_ptr)mkdir},
#define os_mkdir ((int (*)(const char *, mode_t))aSyscall[9].cur)
    {"read", (h5sf_syscall_ptr)read, (h5sf_syscall_ptr)read},
#define os_read ((ssize_t(*)(int, void *, size_t))aSyscall[10].cur)
    {"pread", (h5sf_syscall_ptr)pread, (h5sf_syscall_ptr)pread},
#define os_pread ((ssize_t(*)(int, void *, size_t, off_t))aSyscall[11].cur)
    {"pwrite", (h5sf_syscall_ptr)pwrite, (h5sf_syscall_ptr)pwrite},
#define os_pwrite ((ssize_t(*)(int, const void *, size_t, off_t))aSyscall[12].cur)
    {"rename", (h5sf_syscall_ptr)rename, (h5sf_syscall_ptr)rename},
#define os_rename ((int (*)(const char *, const char *))aSyscall[13].cur)
    {"fcntl", (h5sf_syscall_ptr)fcntl, (h5sf_syscall_ptr)fcntl},
#define os_fcntl ((int (*)(int, int, ...))aSyscall[14].cur)
    {"shm_open", (h5sf_syscall_ptr)shm_open, (h5sf_syscall_ptr)shm_open},
#define os_shm_open ((int (*)(const char *, int, mode_t))aSyscall[15].cur)
    {"shm_unlink", (h5sf_syscall_ptr)shm_unlink, (h5sf_syscall_ptr)shm_unlink},
#define os_shm_unlink ((int (*)(const char *))aSyscall[16].cur)
    {"mmap", (h5sf_syscall_ptr)mmap, (h5sf_syscall_ptr)mmap},
#define os_mmap ((void *(*)(void *, size_t, int, int, int, off_t))aSyscall[17].cur)
    {"munmap", (h5sf_syscall_ptr)munmap, (h5sf_syscall_ptr)munmap},
#define os_munmap ((int (*)(void *, size_t))aSyscall[18].cur)
    {"madvise", (h5sf_syscall_ptr)madvise, (h5sf_syscall_ptr)madvise},
#define os_madvise ((int (*)(void *, size_t, int))aSyscall[19].cur)
    {"getcwd", (h5sf_syscall_ptr)getcwd, (h5sf_syscall_ptr)getcwd},
#define os_getcwd ((char *(*)(char *, size_t))aSyscall[20].cur)
    {"realpath", (h5sf_syscall_ptr)realpath, (h5sf_syscall_ptr)realpath},
#define os_realpath ((char *(*)(const char *, char *))aSyscall[21].cur)
    {"opendir", (h5sf_syscall_ptr)opendir, (h5sf_syscall_ptr)opendir},
#define os_opendir ((DIR * (*)(const char *)) aSyscall[22].cur)
    {"readdir", (h5sf_syscall_ptr)readdir, (h5sf_syscall_ptr)readdir},
#define os_readdir ((struct dirent * (*)(DIR *)) aSyscall[23].cur)
    {"closedir", (h5sf_syscall_ptr)closedir, (h5sf_syscall_ptr)closedir},
#define os_closedir ((int (*)(DIR *))aSyscall[24].cur)
    {"fstatat", (h5sf_syscall_ptr)fstatat, (h5sf_syscall_ptr)fstatat},
#define os_fstatat ((int (*)(int, const char *, struct stat *, int))aSyscall[25].cur)
};

int h5sf_sysio_set(const char *name, h5sf_syscall_ptr fn)
{
    for (size_t i = 0; i < sizeof aSyscall / sizeof aSyscall[0]; i++)
        if (!strcmp(aSyscall[i].name, name)) {
            aSyscall[i].cur = fn ? fn : aSyscall[i].real;
            return 0;
        }
    return -1;
}

/* The sweep's site in front of every call (alloc.h): true, with errno
 * set, when the test fails this one. */
static bool site_fails(void)
{
    int err = h5sf_site(H5SF_SITE_SYSCALL);
    if (err)
        errno = err;
    return err != 0;
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
    /* The transfer loops retry EINTR: without a count it would fail every
     * retry, and the call would never end. */
    if (F.err == EINTR && F.count < 0)
        F.count = 1;
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

/* ---- descriptors and names --------------------------------------------- */

/* The one open of a set's files (sysio.h): O_NOFOLLOW, so a link planted
 * at a name is refused (ELOOP), not written through; O_NONBLOCK, so a FIFO
 * or a device answers at once instead of holding the caller; then fstat,
 * so only a regular file is handed back, and O_NONBLOCK cleared, so that
 * regular-file I/O (where it means nothing on Linux, but might elsewhere)
 * is the plain kind. */
int h5sf_sysio_open(const char *path, int flags, int fault_rank)
{
    int fault = fault_rank >= 0 ? h5sf_fault("open", fault_rank) : 0;
    if (fault) {
        errno = fault;
        return -1;
    }
    int fd = site_fails() ? -1 : os_open(path, flags | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0666);
    if (fd < 0)
        return -1;
    struct stat st;
    int         err = 0, fl;
    if (h5sf_sysio_fstat(fd, &st) < 0)
        err = errno;
    else if (!S_ISREG(st.st_mode))
        err = H5SF_ENOTREG;
    else if ((fl = site_fails() ? -1 : os_fcntl(fd, F_GETFL)) < 0 ||
             (site_fails() ? -1 : os_fcntl(fd, F_SETFL, fl & ~O_NONBLOCK)) < 0)
        err = errno;
    if (err) {
        (void)os_close(fd); /* the real close: a fault here would leak fd */
        errno = err;
        return -1;
    }
    return fd;
}

const char *h5sf_sysio_strerror(int err)
{
    if (err == ELOOP)
        return "a symbolic link, which h5sf does not follow";
    if (err == H5SF_ENOTREG)
        return "not a regular file";
    return strerror(err);
}

int h5sf_sysio_close(int fd) { return site_fails() ? -1 : os_close(fd); }

int h5sf_sysio_fstat(int fd, struct stat *st) { return site_fails() ? -1 : os_fstat(fd, st); }

int h5sf_sysio_size(int fd, uint64_t *size)
{
    struct stat st;
    if (h5sf_sysio_fstat(fd, &st) < 0)
        return -1;
    *size = (uint64_t)st.st_size;
    return 0;
}

int h5sf_sysio_truncate(int fd, uint64_t size) { return site_fails() ? -1 : os_ftruncate(fd, (off_t)size); }

int h5sf_sysio_sync(int fd, int fault_rank)
{
    int fault = fault_rank >= 0 ? h5sf_fault("fsync", fault_rank) : 0;
    if (fault) {
        errno = fault;
        return -1;
    }
    return site_fails() ? -1 : os_fsync(fd);
}

int h5sf_sysio_dup(int fd) { return site_fails() ? -1 : os_fcntl(fd, F_DUPFD_CLOEXEC, 0); }

int h5sf_sysio_stat(const char *path, struct stat *st) { return site_fails() ? -1 : os_stat(path, st); }

int h5sf_sysio_unlink(const char *path) { return site_fails() ? -1 : os_unlink(path); }

int h5sf_sysio_mkdir(const char *path, mode_t mode) { return site_fails() ? -1 : os_mkdir(path, mode); }

int h5sf_sysio_rename(const char *from, const char *to) { return site_fails() ? -1 : os_rename(from, to); }

ssize_t h5sf_sysio_read(int fd, void *buf, size_t n) { return site_fails() ? -1 : os_read(fd, buf, n); }

ssize_t h5sf_sysio_pread(int fd, void *buf, size_t n, uint64_t off)
{
    return site_fails() ? -1 : os_pread(fd, buf, n, (off_t)off);
}

int h5sf_sysio_pwrite_all(int fd, const void *buf, size_t n, uint64_t off)
{
    const char *p = buf;
    while (n > 0) {
        ssize_t k = site_fails() ? -1 : os_pwrite(fd, p, n, (off_t)off);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            if (k == 0)
                errno = EIO; /* pwrite returning 0 for n > 0: a device error */
            return -1;
        }
        p += k;
        off += (uint64_t)k;
        n -= (size_t)k;
    }
    return 0;
}

char *h5sf_sysio_getcwd(char *buf, size_t n) { return site_fails() ? NULL : os_getcwd(buf, n); }

char *h5sf_sysio_realpath(const char *path, char *buf) { return site_fails() ? NULL : os_realpath(path, buf); }

/* ---- directories --------------------------------------------------------- */

DIR *h5sf_sysio_opendir(const char *path) { return site_fails() ? NULL : os_opendir(path); }

struct dirent *h5sf_sysio_readdir(DIR *dp) { return site_fails() ? NULL : os_readdir(dp); }

/* A refused closedir still closes the directory (as close(2) after EINTR
 * does on Linux): the stream cannot be used again either way. */
int h5sf_sysio_closedir(DIR *dp)
{
    int err = h5sf_site(H5SF_SITE_SYSCALL);
    int rc  = os_closedir(dp);
    if (err) {
        errno = err;
        return -1;
    }
    return rc;
}

int h5sf_sysio_fstatat(int dirfd, const char *name, struct stat *st, int flags)
{
    return site_fails() ? -1 : os_fstatat(dirfd, name, st, flags);
}

/* ---- shared memory ------------------------------------------------------- */

int h5sf_sysio_shm_open(const char *name, int flags, mode_t mode)
{
    return site_fails() ? -1 : os_shm_open(name, flags | O_CLOEXEC, mode);
}

int h5sf_sysio_shm_unlink(const char *name) { return site_fails() ? -1 : os_shm_unlink(name); }

void *h5sf_sysio_mmap_shared(int fd, size_t len)
{
    return site_fails() ? MAP_FAILED : os_mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
}

int h5sf_sysio_munmap(void *p, size_t len) { return site_fails() ? -1 : os_munmap(p, len); }

int h5sf_sysio_populate(void *p, size_t len) { return site_fails() ? -1 : os_madvise(p, len, MADV_POPULATE_WRITE); }

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
        ssize_t k =
            site_fails() ? -1 : call(x, iov + i, n - i, off + done, f == H5SF_FAULT_SHORT && iov[i].iov_len > 1);
        int err = errno;
        iov[i]  = keep;
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
