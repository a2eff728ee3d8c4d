/*
 * t_bracketfail.c -- collective calls inside a COBEGIN bracket whose
 * posted transfer failed on one rank only, and which failure COEND names.
 *
 * 64 KiB stripes, 2 subfiles; on the direct channel with an owner per rank
 * (ioc=every:1: subfile s is sized and synced by rank s).  Rank 0 first
 * writes four stripes (each subfile 128 KiB), every rank sets the EOA to
 * 1.5 stripes; then in a bracket rank 1 posts a write that H5SF_FAULT
 * ("op=pwrite,errno=EIO,rank=1") fails.
 *
 *   truncate  H5FDtruncate fails on every rank with rank 1's cause, and
 *             no rank truncated: both subfiles keep 128 KiB and the EOF
 *             is what it was.  After the COEND (which fails on rank 1
 *             only) the next truncate cuts them to 64 and 32 KiB.
 *   flush     fsync=1: H5FDflush fails on every rank and no rank synced
 *             (fsync is counted here: this executable exports its own);
 *             after the COEND the next flush syncs.
 *   order     IOC channel, the IOC on rank 0, whose pwrites H5SF_FAULT
 *             fails (EIO); rank 1's dense writes go to the subfile itself
 *             (H5SF_SAMENODE_WRITES=dense), and pwritev64 (exported
 *             here) fails them with ENOSPC.  In one bracket rank 1 posts
 *             a dense write, which fails first, then 0.3 s later a sparse
 *             one to the IOC, which fails later: COEND names the IOC's
 *             failure, as include/h5sf.h promises (IOC requests first).
 *
 * usage: t_bracketfail MODE DIR
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <stdatomic.h>
#include <sys/uio.h>
#include <mpi.h>
#include <hdf5.h>
#include "h5sf.h"
#include "h5sf_test.h"

#define S ((size_t)64 << 10)

static atomic_long fsyncs;
static atomic_int  fail_pwritev;

int fsync(int fd)
{
    static int (*real)(int);
    if (!real)
        real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    atomic_fetch_add(&fsyncs, 1);
    return real(fd);
}

ssize_t pwritev64(int fd, const struct iovec *iov, int n, off64_t off)
{
    static ssize_t (*real)(int, const struct iovec *, int, off64_t);
    if (atomic_load(&fail_pwritev)) {
        errno = ENOSPC;
        return -1;
    }
    if (!real)
        real = (ssize_t(*)(int, const struct iovec *, int, off64_t))dlsym(RTLD_NEXT, "pwritev64");
    return real(fd, iov, n, off);
}

static char path[4096];

static H5FD_t *open_file(const char *cfg)
{
    hid_t   fapl = t_fapl(cfg);
    H5FD_t *f    = H5FDopen(path, H5F_ACC_RDWR | H5F_ACC_CREAT | H5F_ACC_TRUNC, fapl, (haddr_t)1 << 40);
    H5Pclose(fapl);
    CHECK(f != NULL, "H5FDopen failed");
    if (!f)
        MPI_Abort(MPI_COMM_WORLD, 2);
    return f;
}

static void sizes(int64_t sz[2])
{
    char **files = NULL;
    size_t n     = 0;
    sz[0] = sz[1] = -1;
    CHECK(H5FD_h5sf_get_files(path, NULL, &files, &n) >= 0 && n == 4, "H5FD_h5sf_get_files");
    for (size_t i = 2; i < n; i++) {
        struct stat st;
        if (stat(files[i], &st) == 0)
            sz[i - 2] = (int64_t)st.st_size;
    }
    H5FD_h5sf_free_files(files, n);
}

static void errors_name(const char *what, const char *want)
{
    t_errtext_t t;
    t_errors(&t);
    CHECK(strstr(t.buf, want), "%s: the error does not name \"%s\":\n%s", what, want, t.buf);
}

/* Four stripes from rank 0, EOA 1.5 stripes, a failing write posted on
 * rank 1 in an open bracket. */
static H5FD_t *setup(const char *cfg)
{
    static unsigned char buf[4 * S];
    H5FD_t              *f = open_file(cfg);
    H5FDset_eoa(f, H5FD_MEM_DRAW, (haddr_t)(4 * S));
    if (t_rank == 0) {
        t_fill(buf, sizeof buf, 9, 0);
        CHECK(H5FDwrite(f, H5FD_MEM_DRAW, H5P_DEFAULT, 0, sizeof buf, buf) >= 0, "write of four stripes");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    H5FDset_eoa(f, H5FD_MEM_DRAW, (haddr_t)(S + S / 2));
    CHECK(H5FDctl(f, H5FD_H5SF_CTL_COBEGIN, 0, NULL, NULL) >= 0, "COBEGIN");
    if (t_rank == 1)
        CHECK(H5FDwrite(f, H5FD_MEM_DRAW, H5P_DEFAULT, 0, 4096, buf) >= 0, "posting the write that fails");
    return f;
}

static void end_bracket(H5FD_t *f)
{
    herr_t r = H5FDctl(f, H5FD_H5SF_CTL_COEND, 0, NULL, NULL);
    if (t_rank == 1) {
        CHECK(r < 0, "COEND on rank 1 succeeded although its write failed");
        if (r < 0)
            errors_name("COEND", "Input/output error");
    }
    else
        CHECK(r >= 0, "COEND failed on a rank whose bracket posted nothing");
}

static void mode_truncate(void)
{
    int64_t sz[2];
    t_step(60, "truncate inside the failed bracket");
    H5FD_t *f   = setup("channel=direct,ioc=every:1,stripe_size=64KiB,stripe_count=2");
    haddr_t eof = H5FDget_eof(f, H5FD_MEM_DRAW);
    herr_t  r   = H5FDtruncate(f, H5P_DEFAULT, false);
    CHECK(r < 0, "H5FDtruncate succeeded although rank 1's posted write failed");
    if (r < 0)
        errors_name("H5FDtruncate", "Input/output error");
    MPI_Barrier(MPI_COMM_WORLD);
    sizes(sz);
    CHECK(sz[0] == (int64_t)(2 * S) && sz[1] == (int64_t)(2 * S),
          "the failed truncate changed the subfiles: %lld and %lld bytes, not %zu", (long long)sz[0], (long long)sz[1],
          2 * S);
    CHECK(H5FDget_eof(f, H5FD_MEM_DRAW) == eof, "the EOF moved from %llu to %llu", (unsigned long long)eof,
          (unsigned long long)H5FDget_eof(f, H5FD_MEM_DRAW));

    t_step(60, "truncate after the COEND");
    end_bracket(f);
    CHECK(H5FDtruncate(f, H5P_DEFAULT, false) >= 0, "H5FDtruncate after the COEND failed");
    MPI_Barrier(MPI_COMM_WORLD);
    sizes(sz);
    CHECK(sz[0] == (int64_t)S && sz[1] == (int64_t)(S / 2), "after the truncate: %lld and %lld bytes", (long long)sz[0],
          (long long)sz[1]);
    CHECK(H5FDget_eof(f, H5FD_MEM_DRAW) == S + S / 2, "EOF %llu after the truncate",
          (unsigned long long)H5FDget_eof(f, H5FD_MEM_DRAW));
    CHECK(H5FDclose(f) >= 0, "close");
}

static void mode_flush(void)
{
    t_step(60, "flush inside the failed bracket");
    H5FD_t *f  = setup("channel=direct,ioc=every:1,stripe_size=64KiB,stripe_count=2,fsync=1");
    long    n0 = atomic_load(&fsyncs);
    herr_t  r  = H5FDflush(f, H5P_DEFAULT, false);
    long    n  = atomic_load(&fsyncs) - n0;
    CHECK(r < 0, "H5FDflush succeeded although rank 1's posted write failed");
    if (r < 0)
        errors_name("H5FDflush", "Input/output error");
    CHECK(n == 0, "this rank synced %ld times in a flush that failed on every rank", n);

    t_step(60, "flush after the COEND");
    end_bracket(f);
    n0 = atomic_load(&fsyncs);
    CHECK(H5FDflush(f, H5P_DEFAULT, false) >= 0, "H5FDflush after the COEND failed");
    CHECK(atomic_load(&fsyncs) > n0, "the flush after the COEND synced nothing");
    CHECK(H5FDclose(f) >= 0, "close");
}

static void mode_order(void)
{
    static unsigned char buf[S];
    t_step(60, "COEND with two failures");
    H5FD_t *f = open_file("channel=ioc,ioc=total:1,stripe_size=64KiB,stripe_count=2,timeout=20");
    H5FDset_eoa(f, H5FD_MEM_DRAW, (haddr_t)(2 * S));
    if (t_rank == 1) {
        H5FD_mem_t  types[32];
        haddr_t     addrs[32];
        size_t      lens[32];
        const void *bufs[32];
        t_fill(buf, sizeof buf, 2, 0);
        CHECK(H5FDctl(f, H5FD_H5SF_CTL_COBEGIN, 0, NULL, NULL) >= 0, "COBEGIN");
        atomic_store(&fail_pwritev, 1);
        /* Dense, subfile 0: this rank's own pwritev, which fails at once. */
        CHECK(H5FDwrite(f, H5FD_MEM_DRAW, H5P_DEFAULT, 0, 4096, buf) >= 0, "posting the dense write");
        struct timespec ts = {0, 300000000};
        nanosleep(&ts, NULL);
        /* Sparse, subfile 1 (stripe 1): to the IOC, whose pwrite fails. */
        for (int i = 0; i < 32; i++) {
            types[i] = H5FD_MEM_DRAW;
            addrs[i] = S + (haddr_t)i * 256;
            lens[i]  = 64;
            bufs[i]  = buf + i * 256;
        }
        CHECK(H5FDwrite_vector(f, H5P_DEFAULT, 32, types, addrs, lens, bufs) >= 0, "posting the sparse write");
        herr_t r = H5FDctl(f, H5FD_H5SF_CTL_COEND, 0, NULL, NULL);
        atomic_store(&fail_pwritev, 0);
        CHECK(r < 0, "COEND succeeded although both writes failed");
        if (r < 0) {
            t_errtext_t t;
            t_errors(&t);
            CHECK(strstr(t.buf, "IOC rank 0") && strstr(t.buf, "Input/output error") && !strstr(t.buf, "No space left"),
                  "COEND does not name the IOC's failure (include/h5sf.h: IOC requests first):\n%s", t.buf);
        }
        h5sf_stats_t st = {.size = sizeof st}, *p = &st;
        CHECK(H5FDctl(f, H5FD_H5SF_CTL_GET_STATS, 0, NULL, (void **)&p) >= 0 && st.samenode_writes >= 1,
              "the dense write did not go to the subfile directly (samenode_writes %llu)",
              (unsigned long long)st.samenode_writes);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    H5FDclose(f);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv, "t_bracketfail");
    if (argc != 3) {
        fprintf(stderr, "usage: t_bracketfail truncate|flush|order DIR\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    t_mkdir_world(argv[2]);
    snprintf(path, sizeof path, "%s/bf.h5", argv[2]);
    if (!strcmp(argv[1], "truncate"))
        mode_truncate();
    else if (!strcmp(argv[1], "flush"))
        mode_flush();
    else if (!strcmp(argv[1], "order"))
        mode_order();
    else
        MPI_Abort(MPI_COMM_WORLD, 2);
    return t_finish();
}
