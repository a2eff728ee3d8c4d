/*
 * t_ctxtimeout.c -- a context's timeout raised by a later open while its
 * IOC threads read it: the refused writes are answered, their payload
 * taken, under ThreadSanitizer too (t_ctxtimeout.cmake says what it does
 * not catch).
 *
 * 2 ranks, IOC channel, the IOC on rank 0, no shared memory and no
 * same-node shortcuts, H5SF_FAULT="op=nomem-accept,rank=0": the IOC's
 * progress thread refuses every request of rank 1 and, for a write whose
 * payload comes as messages (128 KiB), takes that payload first, within
 * the context's timeout (ioc/run.c, ioc_drain_payload).  Rank 1 writes to
 * a file opened with timeout=5 (refused: out of memory); then both ranks
 * open a second file on the same communicator with timeout=9, which raises
 * the shared context's timeout while the progress thread runs, and rank 1
 * writes again (refused again, the payload taken within the new timeout).
 *
 * usage: t_ctxtimeout DIR
 */
#include <mpi.h>
#include <hdf5.h>
#include "h5sf.h"
#include "h5sf_test.h"

#define N ((size_t)128 << 10)

static H5FD_t *open_file(const char *path, int timeout)
{
    char cfg[256];
    snprintf(cfg, sizeof cfg, "channel=ioc,ioc=total:1,stripe_size=1MiB,stripe_count=1,timeout=%d", timeout);
    hid_t   fapl = t_fapl(cfg);
    H5FD_t *f    = H5FDopen(path, H5F_ACC_RDWR | H5F_ACC_CREAT | H5F_ACC_TRUNC, fapl, (haddr_t)1 << 40);
    H5Pclose(fapl);
    CHECK(f != NULL, "H5FDopen of %s failed", path);
    if (!f)
        MPI_Abort(MPI_COMM_WORLD, 2);
    H5FDset_eoa(f, H5FD_MEM_DRAW, (haddr_t)N);
    return f;
}

static void refused_write(H5FD_t *f)
{
    static unsigned char buf[N];
    if (t_rank != 1)
        return;
    t_fill(buf, N, 4, 0);
    herr_t r = H5FDwrite(f, H5FD_MEM_DRAW, H5P_DEFAULT, 0, N, buf);
    CHECK(r < 0, "a write the IOC refuses succeeded");
    if (r < 0) {
        t_errtext_t t;
        t_errors(&t);
        CHECK(strstr(t.buf, "out of memory") && !strstr(t.buf, "payload was not taken"),
              "the refused write's error:\n%s", t.buf);
    }
}

int main(int argc, char **argv)
{
    char a[4096], b[4096];
    t_init(&argc, &argv, "t_ctxtimeout");
    if (argc != 2)
        MPI_Abort(MPI_COMM_WORLD, 2);
    t_mkdir_world(argv[1]);
    snprintf(a, sizeof a, "%s/a.h5", argv[1]);
    snprintf(b, sizeof b, "%s/b.h5", argv[1]);
    t_step(60, "first file, timeout 5");
    H5FD_t *fa = open_file(a, 5);
    refused_write(fa);
    MPI_Barrier(MPI_COMM_WORLD);
    t_step(60, "second file, timeout 9");
    H5FD_t *fb = open_file(b, 9);
    refused_write(fb);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(H5FDclose(fb) >= 0, "close b");
    CHECK(H5FDclose(fa) >= 0, "close a");
    return t_finish();
}
