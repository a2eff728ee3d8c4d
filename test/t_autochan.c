/*
 * t_autochan.c -- which channel channel=auto takes on one node
 * (docs/configuration.md, "What channel=auto and the default placement
 * pick"), on MPI_COMM_WORLD and on a split communicator:
 *
 *   auto, default subfile count     direct (the IOC would move the same bytes)
 *   auto, 257 subfiles              ioc (the direct channel would open them
 *                                   all on every rank), if MPI_THREAD_MULTIPLE
 *   channel=ioc                     ioc
 *
 * The channel comes from H5FD_h5sf_get_layout at create and at a read-only
 * reopen; every case writes a known pattern, one block per rank, and reads
 * it back into a poisoned buffer.  Across nodes (ioc) the Slurm demo checks
 * (test/slurm.sh, demo-srun).
 * usage: t_autochan DIR
 */
#include <hdf5.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "h5sf.h"
#include "h5sf_test.h"

#define N 20000 /* ints per rank: 80000 bytes, 20 stripes of 4 KiB */

static int provided;

static int32_t channel_of(hid_t f, const char *what)
{
    H5FD_h5sf_layout_t lay;
    memset(&lay, 0, sizeof lay);
    CHECK(H5FD_h5sf_get_layout(f, &lay) >= 0, "%s: H5FD_h5sf_get_layout failed", what);
    return lay.channel;
}

static const char *name_of(int32_t ch)
{
    return ch == H5FD_H5SF_CHANNEL_IOC ? "ioc" : ch == H5FD_H5SF_CHANNEL_DIRECT ? "direct" : "other";
}

/* One case: create with cfg on comm, write, check the channel; reopen
 * read-only, check it again, read back. */
static void one_case(MPI_Comm comm, const char *path, const char *cfg, int32_t want, const char *what)
{
    int     r, n;
    hsize_t dims, start, count = N;
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &n);
    dims     = (hsize_t)N * (hsize_t)n;
    start    = (hsize_t)N * (hsize_t)r;
    int *buf = malloc(N * sizeof *buf), *got = malloc(N * sizeof *got);
    for (int64_t i = 0; i < N; i++)
        buf[i] = t_pat_int((uint64_t)r, (uint64_t)i);

    hid_t p = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_mpi_params(p, comm, MPI_INFO_NULL);
    H5Pset_driver_by_name(p, "h5sf", cfg);
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, p);
    CHECK(f >= 0, "%s: cannot create %s", what, path);
    if (f >= 0) {
        int32_t ch = channel_of(f, what);
        CHECK(ch == want, "%s: create took the %s channel, want %s", what, name_of(ch), name_of(want));
        hid_t fs = H5Screate_simple(1, &dims, NULL), ms = H5Screate_simple(1, &count, NULL);
        hid_t d = H5Dcreate2(f, "d", H5T_NATIVE_INT, fs, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &count, NULL);
        CHECK(H5Dwrite(d, H5T_NATIVE_INT, ms, fs, H5P_DEFAULT, buf) >= 0, "%s: write failed", what);
        H5Dclose(d);
        H5Sclose(ms);
        H5Sclose(fs);
        CHECK(H5Fclose(f) >= 0, "%s: close failed", what);
    }
    MPI_Barrier(comm);
    f = H5Fopen(path, H5F_ACC_RDONLY, p);
    CHECK(f >= 0, "%s: cannot reopen %s", what, path);
    if (f >= 0) {
        int32_t ch = channel_of(f, what);
        CHECK(ch == want, "%s: reopen took the %s channel, want %s", what, name_of(ch), name_of(want));
        hid_t d = H5Dopen2(f, "d", H5P_DEFAULT), fs = H5Dget_space(d), ms = H5Screate_simple(1, &count, NULL);
        H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &count, NULL);
        memset(got, 0xa5, N * sizeof *got);
        CHECK(H5Dread(d, H5T_NATIVE_INT, ms, fs, H5P_DEFAULT, got) >= 0, "%s: read failed", what);
        CHECK(memcmp(buf, got, N * sizeof *got) == 0, "%s: the ints read back differ from those written", what);
        H5Sclose(ms);
        H5Sclose(fs);
        H5Dclose(d);
        CHECK(H5Fclose(f) >= 0, "%s: close after reading failed", what);
    }
    H5Pclose(p);
    free(buf);
    free(got);
}

static void cases(MPI_Comm comm, const char *dir, const char *tag)
{
    char    path[4096], what[128];
    int32_t many = provided == MPI_THREAD_MULTIPLE ? H5FD_H5SF_CHANNEL_IOC : H5FD_H5SF_CHANNEL_DIRECT;
    snprintf(path, sizeof path, "%s/%s_default.h5", dir, tag);
    snprintf(what, sizeof what, "%s, auto, default count", tag);
    one_case(comm, path, "stripe_size=4096", H5FD_H5SF_CHANNEL_DIRECT, what);
    snprintf(path, sizeof path, "%s/%s_many.h5", dir, tag);
    snprintf(what, sizeof what, "%s, auto, 257 subfiles", tag);
    one_case(comm, path, "stripe_size=4096,stripe_count=257", many, what);
    if (provided == MPI_THREAD_MULTIPLE) {
        snprintf(path, sizeof path, "%s/%s_ioc.h5", dir, tag);
        snprintf(what, sizeof what, "%s, channel=ioc", tag);
        one_case(comm, path, "stripe_size=4096,channel=ioc", H5FD_H5SF_CHANNEL_IOC, what);
    }
}

int main(int argc, char **argv)
{
    provided = t_init(&argc, &argv, "t_autochan");
    if (argc != 2) {
        fprintf(stderr, "usage: t_autochan DIR\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (t_rank == 0)
        t_fresh_dir(argv[1]);
    MPI_Barrier(MPI_COMM_WORLD);
    cases(MPI_COMM_WORLD, argv[1], "world");
    /* A split communicator: even and odd ranks, each its own files. */
    MPI_Comm half;
    char     tag[32];
    MPI_Comm_split(MPI_COMM_WORLD, t_rank % 2, t_rank, &half);
    snprintf(tag, sizeof tag, "half%d", t_rank % 2);
    cases(half, argv[1], tag);
    MPI_Comm_free(&half);
    int rc = t_verdict();
    H5close();
    MPI_Finalize();
    return rc;
}
