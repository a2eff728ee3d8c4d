/*
 * unit_sysio.c -- the system-call layer (common/sysio.c) against plain
 * files in DIR, whose bytes the test writes and reads with pwrite/pread
 * of its own.  No HDF5, no MPI.
 *
 * usage: unit_sysio DIR MODE   (MODE sets H5SF_FAULT before first use)
 *   calls   H5SF_FAULT unset: more iovecs than one call takes (IOV_MAX),
 *           short transfers and EINTR from the system calls themselves
 *           (h5sf_sysio_set puts the test's in), zeros past EOF, iovecs
 *           given back as they came, a write that moves nothing (EIO),
 *           open/size/truncate/sync/close, 1 GiB iovec limit, sparse
 *   fault   H5SF_FAULT=op=pwrite,errno=ENOSPC,rank=3,after=1,count=1:
 *           only calls for rank 3, the second of them, fail with ENOSPC
 *   short   H5SF_FAULT=op=pread,errno=short: each call reads half of its
 *           first buffer only; the reads still complete
 *   eintr   H5SF_FAULT=op=fsync,errno=EINTR,count=1: an injected fsync
 *           error is returned, not retried
 *   eintr1  H5SF_FAULT=op=pwrite,errno=EINTR, no count: it fails once (the
 *           loop retries EINTR; failing every retry never ended)
 *   sites   the sweep's sites (common/alloc.h, H5SF_SITE_SYSCALL): every
 *           call is one site, one per system call of a transfer; each
 *           one, armed, fails with the armed errno and changes nothing
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../common/alloc.h"
#include "../common/sysio.h"
#include "h5sf_test.h"


#define NV   3000 /* iovecs: more than IOV_MAX (1024) */
#define VLEN 7

static char          path[4096];
static unsigned char buf[NV * VLEN], back[NV * VLEN];
static struct iovec  iov[NV], orig[NV];

/* iov[0..NV) over b, VLEN bytes each; orig keeps a copy. */
static void make_iov(unsigned char *b)
{
    for (int i = 0; i < NV; i++) {
        iov[i].iov_base = b + (size_t)i * VLEN;
        iov[i].iov_len  = VLEN;
    }
    memcpy(orig, iov, sizeof iov);
}

static int fresh_file(void)
{
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    if (fd < 0)
        t_die_io("create", path);
    return fd;
}

/* ---- system calls of the test's own (h5sf_sysio_set) ------------------- */

static int calls; /* made through the wrappers below */

/* At most 5 bytes a call, and every third call fails with EINTR. */
static ssize_t one(bool wr, int fd, const struct iovec *v, int n, off_t off)
{
    if (++calls % 3 == 0) {
        errno = EINTR;
        return -1;
    }
    CHECK(n <= 1024, "%d iovecs in one call", n);
    size_t len = v[0].iov_len < 5 ? v[0].iov_len : 5;
    return wr ? pwrite(fd, v[0].iov_base, len, off) : pread(fd, v[0].iov_base, len, off);
}
static ssize_t short_pwritev(int fd, const struct iovec *v, int n, off_t off) { return one(true, fd, v, n, off); }
static ssize_t short_preadv(int fd, const struct iovec *v, int n, off_t off) { return one(false, fd, v, n, off); }
static ssize_t zero_pwritev(int fd, const struct iovec *v, int n, off_t off)
{
    (void)fd, (void)v, (void)n, (void)off;
    return 0;
}
static ssize_t count_pwritev(int fd, const struct iovec *v, int n, off_t off)
{
    calls++;
    CHECK(n <= 1024, "%d iovecs in one call", n);
    return pwritev(fd, v, n, off);
}

/* Write buf through the layer at offset off, check the file with pread. */
static void write_check(int fd, uint64_t off, int rank, const char *what)
{
    h5sf_sysio_xfer_t x = {.fd = fd, .is_write = true, .fault_rank = rank};
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = t_pat(1, i);
    make_iov(buf);
    CHECK(h5sf_sysio_xferv(&x, iov, NV, off) == 0, "%s: write failed: %s", what, strerror(errno));
    CHECK(!memcmp(iov, orig, sizeof iov), "%s: iovecs not given back as they came", what);
    memset(back, 0, sizeof back);
    CHECK(pread(fd, back, sizeof back, (off_t)off) == (ssize_t)sizeof back, "%s: pread", what);
    CHECK(!memcmp(back, buf, sizeof buf), "%s: file differs from what was written", what);
    CHECK(x.syscalls > 0, "%s: no call counted", what);
}

/* Read the file back through the layer, check against the pattern. */
static void read_check(int fd, uint64_t off, const char *what)
{
    h5sf_sysio_xfer_t x = {.fd = fd, .is_write = false, .fault_rank = -1};
    memset(back, 0xee, sizeof back);
    make_iov(back);
    CHECK(h5sf_sysio_xferv(&x, iov, NV, off) == 0, "%s: read failed: %s", what, strerror(errno));
    CHECK(!memcmp(iov, orig, sizeof iov), "%s: iovecs not given back as they came", what);
    for (size_t i = 0; i < sizeof back; i++)
        if (back[i] != t_pat(1, i)) {
            CHECK(0, "%s: byte %zu is %u, not %u", what, i, back[i], t_pat(1, i));
            break;
        }
}

static void mode_calls(void)
{
    int fd = fresh_file();

    /* More iovecs than one call takes: at least 3 calls, none over 1024. */
    calls = 0;
    CHECK(h5sf_sysio_set("pwritev", (h5sf_syscall_ptr)count_pwritev) == 0, "set pwritev");
    write_check(fd, 100, -1, "batched write");
    CHECK(calls >= 3, "batched write: %d calls for %d iovecs", calls, NV);
    read_check(fd, 100, "batched read");

    /* Short transfers and EINTR from the calls themselves. */
    calls = 0;
    CHECK(h5sf_sysio_set("pwritev", (h5sf_syscall_ptr)short_pwritev) == 0, "set pwritev");
    CHECK(h5sf_sysio_set("preadv", (h5sf_syscall_ptr)short_preadv) == 0, "set preadv");
    write_check(fd, 333, -1, "short write");
    CHECK(calls >= (int)(sizeof buf / 5), "short write: only %d calls", calls);
    read_check(fd, 333, "short read");
    CHECK(h5sf_sysio_set("preadv", NULL) == 0 && h5sf_sysio_set("pwritev", NULL) == 0, "restore");
    CHECK(h5sf_sysio_set("no_such_call", NULL) < 0, "an unknown call was accepted");

    /* Past EOF: the file ends 100 bytes into the read, the rest is zeros. */
    CHECK(ftruncate(fd, 333 + 100) == 0, "ftruncate");
    h5sf_sysio_xfer_t x = {.fd = fd, .is_write = false, .fault_rank = -1};
    memset(back, 0xee, sizeof back);
    make_iov(back);
    CHECK(h5sf_sysio_xferv(&x, iov, NV, 333) == 0, "read past EOF failed: %s", strerror(errno));
    CHECK(!memcmp(iov, orig, sizeof iov), "read past EOF: iovecs changed");
    for (size_t i = 0; i < sizeof back; i++)
        if (back[i] != (i < 100 ? t_pat(1, i) : 0)) {
            CHECK(0, "read past EOF: byte %zu is %u", i, back[i]);
            break;
        }

    /* A write that moves nothing is a device error. */
    CHECK(h5sf_sysio_set("pwritev", (h5sf_syscall_ptr)zero_pwritev) == 0, "set pwritev");
    x.is_write = true;
    errno      = 0;
    CHECK(h5sf_sysio_xferv(&x, iov, 2, 0) < 0 && errno == EIO, "write of nothing: errno %d", errno);
    h5sf_sysio_set("pwritev", NULL);
    close(fd);

    /* Descriptors: open (no create without O_CREAT), size, truncate, sync. */
    uint64_t size = 1;
    unlink(path);
    CHECK(h5sf_sysio_open(path, O_RDWR, 0) < 0 && errno == ENOENT, "open of a missing file: errno %d", errno);
    fd = h5sf_sysio_open(path, O_RDWR | O_CREAT, 0);
    CHECK(fd >= 0, "open: %s", strerror(errno));
    CHECK((fcntl(fd, F_GETFD) & FD_CLOEXEC) != 0, "not close-on-exec");
    CHECK(h5sf_sysio_size(fd, &size) == 0 && size == 0, "size %llu", (unsigned long long)size);
    CHECK(h5sf_sysio_truncate(fd, 12345) == 0, "truncate: %s", strerror(errno));
    CHECK(h5sf_sysio_size(fd, &size) == 0 && size == 12345, "size %llu after truncate", (unsigned long long)size);
    CHECK(lseek(fd, 0, SEEK_END) == 12345, "the file's own size");
    CHECK(h5sf_sysio_sync(fd, 0) == 0, "sync: %s", strerror(errno));
    CHECK(h5sf_sysio_close(fd) == 0, "close");
    CHECK(h5sf_sysio_size(fd, &size) < 0 && errno == EBADF, "size of a closed descriptor");

    /* iovecs stay under 1 GiB; a full array takes what fits (no byte is
     * touched: only addresses are computed). */
    struct iovec v[3];
    int          k    = 0;
    uint64_t     G    = (uint64_t)1 << 30;
    void        *base = (void *)(uintptr_t)4096;
    CHECK(h5sf_sysio_iov_add(v, &k, 3, base, 2 * G + 10) == 2 * G + 10 && k == 3 && v[0].iov_len == G &&
              v[1].iov_len == G && v[2].iov_len == 10 && (uintptr_t)v[2].iov_base == 4096 + 2 * G,
          "1 GiB split");
    k = 1;
    CHECK(h5sf_sysio_iov_add(v, &k, 3, base, 3 * G) == 2 * G && k == 3, "a full array");

    /* Sparse: 16+ pieces of at most 256 KiB on average, with gaps. */
    CHECK(h5sf_sparse(16, 16 * 4096 + 1, 16 * 4096), "16 small pieces with a gap");
    CHECK(!h5sf_sparse(15, 15 * 8192, 15 * 4096), "15 pieces");
    CHECK(!h5sf_sparse(16, 16 * 4096, 16 * 4096), "no gap");
    CHECK(!h5sf_sparse(16, 64 << 20, 16 * (257 << 10)), "large pieces");
}

static void mode_fault(void)
{
    int fd = fresh_file();
    for (int rank = -1; rank <= 2; rank++) /* not rank 3: no fault */
        write_check(fd, 0, rank, "another rank's write");
    h5sf_sysio_xfer_t x = {.fd = fd, .is_write = true, .fault_rank = 3};
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = t_pat(1, i);
    make_iov(buf);
    CHECK(h5sf_sysio_xferv(&x, iov, 4, 0) == 0, "first write of rank 3 (after=1) failed");
    errno = 0;
    CHECK(h5sf_sysio_xferv(&x, iov, 4, 0) < 0 && errno == ENOSPC, "second write of rank 3: errno %d", errno);
    CHECK(!memcmp(iov, orig, 4 * sizeof *iov), "iovecs changed by a failed write");
    CHECK(h5sf_sysio_xferv(&x, iov, 4, 0) == 0, "third write of rank 3 (count=1) failed");
    x.is_write = false;
    CHECK(h5sf_sysio_xferv(&x, iov, 4, 0) == 0, "a read of rank 3 failed");
    CHECK(h5sf_fault_on() && h5sf_fault_ms("pwrite") == 0 && h5sf_fault_ms("pread") == -1, "fault_on/ms");
    close(fd);
}

static void mode_short(void)
{
    int fd = fresh_file();
    write_check(fd, 50, -1, "write");
    h5sf_sysio_xfer_t x = {.fd = fd, .is_write = false, .fault_rank = 0};
    memset(back, 0, sizeof back);
    make_iov(back);
    CHECK(h5sf_sysio_xferv(&x, iov, NV, 50) == 0, "short reads failed");
    CHECK(!memcmp(back, buf, sizeof buf), "short reads: wrong bytes");
    /* Each batch: halves of its first buffer (7: 3, 2, 1 bytes), then the rest. */
    CHECK(x.syscalls == 4 * ((NV + 1023) / 1024), "short reads: %llu calls for %d iovecs",
          (unsigned long long)x.syscalls, NV);
    close(fd);
}

static void mode_eintr(void)
{
    int fd = fresh_file();
    errno  = 0;
    CHECK(h5sf_sysio_sync(fd, 1) < 0 && errno == EINTR, "injected fsync: errno %d", errno);
    CHECK(h5sf_sysio_sync(fd, 1) == 0, "count=1: a second fsync failed");
    CHECK(h5sf_sysio_sync(fd, -1) == 0, "fault_rank -1: no fault");
    close(fd);
}

static void mode_eintr1(void)
{
    int           fd = fresh_file();
    unsigned char a[4096], b[4096];
    t_fill(a, sizeof a, 9, 0);
    struct iovec      v = {a, sizeof a};
    h5sf_sysio_xfer_t x = {.fd = fd, .is_write = true, .fault_rank = 0};
    CHECK(h5sf_sysio_xferv(&x, &v, 1, 0) == 0, "a write with one injected EINTR failed (errno %d)", errno);
    CHECK(pread(fd, b, sizeof b, 0) == (ssize_t)sizeof b && !memcmp(a, b, sizeof a), "the write's bytes differ");
    close(fd);
}

/* Arm the next system-call site to fail with EACCES. */
static void arm1(void) { h5sf_sites_arm(H5SF_SITE_SYSCALL, 1, EACCES); }

/* The call just made failed with the armed errno at its first site. */
#define REFUSED(call, what)                                                                                            \
    do {                                                                                                               \
        arm1();                                                                                                        \
        errno = 0;                                                                                                     \
        CHECK((call) && errno == EACCES && h5sf_sites_fired(H5SF_SITE_SYSCALL), "%s: not refused (errno %d)", what,    \
              errno);                                                                                                  \
        h5sf_sites_arm(H5SF_SITE_SYSCALL, 0, 0);                                                                       \
    } while (0)

static void mode_sites(void)
{
    char        dir[4200], name[4200], real[PATH_MAX];
    struct stat st;
    int         fd = fresh_file();

    /* One site a call, counted from the arm; unarmed nothing fails. */
    h5sf_sites_arm(H5SF_SITE_SYSCALL, 0, 0);
    CHECK(h5sf_sysio_fstat(fd, &st) == 0 && h5sf_sysio_stat(path, &st) == 0, "fstat, stat");
    CHECK(h5sf_sites_passed(H5SF_SITE_SYSCALL) == 2, "%ld sites for two calls", h5sf_sites_passed(H5SF_SITE_SYSCALL));
    CHECK(!h5sf_sites_fired(H5SF_SITE_SYSCALL), "fired unarmed");

    /* Each call refused, and the file system unchanged. */
    snprintf(dir, sizeof dir, "%s.d", path);
    snprintf(name, sizeof name, "%s.renamed", path);
    rmdir(dir);
    REFUSED(h5sf_sysio_open(path, O_RDONLY, -1) < 0, "open");
    REFUSED(h5sf_sysio_close(fd) < 0, "close");
    CHECK(fcntl(fd, F_GETFD) >= 0, "a refused close closed the descriptor");
    REFUSED(h5sf_sysio_fstat(fd, &st) < 0, "fstat");
    REFUSED(h5sf_sysio_truncate(fd, 10) < 0, "ftruncate");
    CHECK(fstat(fd, &st) == 0 && st.st_size == 0, "a refused truncate changed the size");
    REFUSED(h5sf_sysio_sync(fd, -1) < 0, "fsync");
    REFUSED(h5sf_sysio_dup(fd) < 0, "fcntl");
    REFUSED(h5sf_sysio_stat(path, &st) < 0, "stat");
    REFUSED(h5sf_sysio_unlink(path) < 0, "unlink");
    CHECK(access(path, F_OK) == 0, "a refused unlink removed the file");
    REFUSED(h5sf_sysio_mkdir(dir, 0700) < 0, "mkdir");
    CHECK(access(dir, F_OK) < 0, "a refused mkdir made the directory");
    REFUSED(h5sf_sysio_rename(path, name) < 0, "rename");
    CHECK(access(path, F_OK) == 0, "a refused rename moved the file");
    REFUSED(h5sf_sysio_read(fd, buf, 1) < 0, "read");
    REFUSED(h5sf_sysio_pread(fd, buf, 1, 0) < 0, "pread");
    REFUSED(h5sf_sysio_pwrite_all(fd, buf, 1, 0) < 0, "pwrite");
    CHECK(fstat(fd, &st) == 0 && st.st_size == 0, "a refused pwrite wrote");
    REFUSED(h5sf_sysio_getcwd(dir, sizeof dir) == NULL, "getcwd");
    REFUSED(h5sf_sysio_realpath(path, real) == NULL, "realpath");
    REFUSED(h5sf_sysio_shm_open("/h5sf-unit-sysio", O_RDWR | O_CREAT, 0600) < 0, "shm_open");
    REFUSED(h5sf_sysio_shm_unlink("/h5sf-unit-sysio") < 0, "shm_unlink");
    REFUSED(h5sf_sysio_mmap_shared(fd, 4096) == MAP_FAILED, "mmap");
    void *pg = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(pg != MAP_FAILED, "mmap of the test's own page");
    REFUSED(h5sf_sysio_munmap(pg, 4096) < 0, "munmap");
    REFUSED(h5sf_sysio_populate(pg, 4096) < 0, "madvise");
    munmap(pg, 4096);

    /* A transfer: one site per system call; the second refused fails it. */
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = t_pat(1, i);
    make_iov(buf);
    h5sf_sysio_xfer_t x = {.fd = fd, .is_write = true, .fault_rank = -1};
    h5sf_sites_arm(H5SF_SITE_SYSCALL, 0, 0);
    CHECK(h5sf_sysio_xferv(&x, iov, NV, 0) == 0, "write: %s", strerror(errno));
    CHECK(h5sf_sites_passed(H5SF_SITE_SYSCALL) == (long)x.syscalls && x.syscalls >= 3, "%ld sites for %llu calls",
          h5sf_sites_passed(H5SF_SITE_SYSCALL), (unsigned long long)x.syscalls);
    h5sf_sites_arm(H5SF_SITE_SYSCALL, 2, ENOSPC);
    errno = 0;
    CHECK(h5sf_sysio_xferv(&x, iov, NV, 0) < 0 && errno == ENOSPC, "second call of a write: errno %d", errno);
    CHECK(h5sf_sites_passed(H5SF_SITE_SYSCALL) == 2, "the write went on after its refused call");
    CHECK(!memcmp(iov, orig, sizeof iov), "iovecs not given back after a refused call");
    h5sf_sites_arm(H5SF_SITE_SYSCALL, 0, 0);
    close(fd);
}

/* The one open of a set's files (docs/security.md, "The one open"): a
 * symlink at the name is refused, not followed; a FIFO, a directory and a
 * device are refused at once, never waited on; a regular file opens,
 * close-on-exec and blocking; a failed check leaks no descriptor. */
static void mode_open(void)
{
    char link[4200], fifo[4200], dir[4200], target[4200];
    snprintf(link, sizeof link, "%s.link", path);
    snprintf(fifo, sizeof fifo, "%s.fifo", path);
    snprintf(dir, sizeof dir, "%s.dir", path);
    snprintf(target, sizeof target, "%s.target", path);
    unlink(link), unlink(fifo), rmdir(dir), unlink(target), unlink(path);
    int fd = open(target, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    CHECK(fd >= 0 && write(fd, "keep", 4) == 4 && close(fd) == 0, "target: %s", strerror(errno));
    CHECK(symlink(target, link) == 0, "symlink: %s", strerror(errno));
    CHECK(mkfifo(fifo, 0600) == 0, "mkfifo: %s", strerror(errno));
    CHECK(mkdir(dir, 0700) == 0, "mkdir: %s", strerror(errno));

    int before = open("/dev/null", O_RDONLY); /* the lowest free descriptor */
    close(before);
    static const int modes[] = {O_RDONLY, O_RDWR, O_RDWR | O_CREAT, O_RDWR | O_TRUNC};
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        int fl = modes[i];
        errno  = 0;
        CHECK(h5sf_sysio_open(link, fl, -1) < 0 && errno == ELOOP, "symlink, flags %#x: errno %d", fl, errno);
        errno = 0;
        CHECK(h5sf_sysio_open(fifo, fl & ~O_TRUNC, -1) < 0 && errno == H5SF_ENOTREG, "FIFO, flags %#x: errno %d", fl,
              errno);
        errno = 0;
        CHECK(h5sf_sysio_open(dir, O_RDONLY, -1) < 0 && errno == H5SF_ENOTREG, "directory: errno %d", errno);
        errno = 0;
        CHECK(h5sf_sysio_open("/dev/null", fl & ~(O_CREAT | O_TRUNC), -1) < 0 && errno == H5SF_ENOTREG,
              "device, flags %#x: errno %d", fl, errno);
    }
    int after = open("/dev/null", O_RDONLY);
    close(after);
    CHECK(after == before, "a refused open leaked a descriptor (%d, then %d)", before, after);
    size_t n;
    char  *t = t_slurp(target, &n);
    CHECK(n == 4 && !memcmp(t, "keep", 4), "the link's target changed (%zu bytes)", n);
    free(t);
    CHECK(strstr(h5sf_sysio_strerror(ELOOP), "symbolic link") && strstr(h5sf_sysio_strerror(H5SF_ENOTREG), "regular"),
          "messages: %s / %s", h5sf_sysio_strerror(ELOOP), h5sf_sysio_strerror(H5SF_ENOTREG));

    fd = h5sf_sysio_open(path, O_RDWR | O_CREAT, -1);
    CHECK(fd >= 0, "regular file: %s", strerror(errno));
    if (fd >= 0) {
        CHECK((fcntl(fd, F_GETFD) & FD_CLOEXEC) != 0, "not close-on-exec");
        CHECK((fcntl(fd, F_GETFL) & O_NONBLOCK) == 0, "O_NONBLOCK left set");
        close(fd);
    }
    unlink(link), unlink(fifo), rmdir(dir), unlink(target);
}

int main(int argc, char **argv)
{
    t_start("unit_sysio");
    if (argc != 3) {
        fprintf(stderr, "usage: unit_sysio DIR calls|fault|short|eintr|eintr1|sites|open\n");
        return 2;
    }
    snprintf(path, sizeof path, "%s/sysio_%s.bin", argv[1], argv[2]);
    const char *m = argv[2];
    if (!strcmp(m, "calls")) {
        unsetenv("H5SF_FAULT");
        mode_calls();
    }
    else if (!strcmp(m, "fault")) {
        setenv("H5SF_FAULT", "op=pwrite,errno=ENOSPC,rank=3,after=1,count=1", 1);
        mode_fault();
    }
    else if (!strcmp(m, "short")) {
        setenv("H5SF_FAULT", "op=pread,errno=short", 1);
        mode_short();
    }
    else if (!strcmp(m, "eintr")) {
        setenv("H5SF_FAULT", "op=fsync,errno=EINTR,count=1", 1);
        mode_eintr();
    }
    else if (!strcmp(m, "eintr1")) {
        setenv("H5SF_FAULT", "op=pwrite,errno=EINTR", 1);
        mode_eintr1();
    }
    else if (!strcmp(m, "sites")) {
        unsetenv("H5SF_FAULT");
        mode_sites();
    }
    else if (!strcmp(m, "open")) {
        unsetenv("H5SF_FAULT");
        mode_open();
    }
    else {
        fprintf(stderr, "unit_sysio: unknown mode %s\n", m);
        return 2;
    }
    unlink(path);
    return t_verdict();
}
