/*
 * t_cobegin.c -- the subfile transfers of one call run together, on the
 * direct channel and on the IOC channel's same-node shortcuts.
 *
 * 64 KiB stripes over 4 subfiles; every rank writes, then reads, two blocks
 * of 4 stripes, one H5Dwrite/H5Dread each: every such call touches all 4
 * subfiles.  The test hook H5SF_FAULT="op=overlap,ms=5000" (set by ctest)
 * holds each subfile's transfer until all of its call's have started, for
 * at most 5 s, so "most in flight at once" is exactly 4 when they run
 * together and 1 when they run one after another -- no timing involved.
 * The bytes are checked in the subfiles with this test's own stripe
 * arithmetic, and read back through h5sf into a poisoned buffer.
 * usage: t_cobegin DIR   (H5SF_CHANNEL chooses the channel)
 */
#include <fcntl.h>
#include <hdf5.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "h5sf.h"
#include "h5sf_test.h"

#define S    65536 /* stripe size */
#define NSUB 4
#define NBLK 2                        /* blocks per rank, one call each */
#define BLK  (NSUB * S / sizeof(int)) /* ints per block: 4 stripes      */


static hid_t fapl(void)
{
    hid_t p = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_mpi_params(p, MPI_COMM_WORLD, MPI_INFO_NULL);
    H5Pset_driver_by_name(p, "h5sf", "stripe_size=64KiB,stripe_count=4");
    return p;
}

/* Index of the first int of this rank's block b. */
static hsize_t first(int b) { return ((hsize_t)b * (hsize_t)t_size + (hsize_t)t_rank) * BLK; }

/* n transfers at once, as H5SF_POOL_THREADS allows: the caller and at
 * most that many pool threads. */
static int pool_most(int n)
{
    const char *v = getenv("H5SF_POOL_THREADS");
    int         t = v && *v ? atoi(v) : n;
    return n < t + 1 ? n : t + 1;
}

/* The most subfile transfers in flight at once over the file's life. */
static void check_inflight(hid_t f, const char *what, int want)
{
    h5sf_stats_t st;
    memset(&st, 0, sizeof st);
    CHECK(H5FD_h5sf_get_stats(f, &st) >= 0, "%s: cannot get the statistics", what);
    CHECK(st.cobegin_max_inflight == (uint64_t)want,
          "%s: at most %llu subfile transfers were in flight at once, want %d", what,
          (unsigned long long)st.cobegin_max_inflight, want);
}

/* A 1-D int dataset of n elements, no fill; *sp gets its dataspace. */
static hid_t create_dset(hid_t f, const char *name, hsize_t n, hid_t *sp)
{
    hid_t dc = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_fill_time(dc, H5D_FILL_TIME_NEVER);
    *sp     = H5Screate_simple(1, &n, NULL);
    hid_t d = H5Dcreate2(f, name, H5T_NATIVE_INT, *sp, H5P_DEFAULT, dc, H5P_DEFAULT);
    H5Pclose(dc);
    return d;
}

/* Write this rank's blocks, one call each; returns the dataset's address. */
static haddr_t write_file(const char *path)
{
    hsize_t n = (hsize_t)NBLK * (hsize_t)t_size * BLK, count = BLK;
    haddr_t addr = HADDR_UNDEF;
    int    *buf  = malloc(BLK * sizeof(int));
    hid_t   p = fapl(), f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, p);
    CHECK(f >= 0, "cannot create %s", path);
    if (f >= 0) {
        hid_t sp, ms = H5Screate_simple(1, &count, NULL), d = create_dset(f, "d", n, &sp);
        for (int b = 0; b < NBLK; b++) {
            hsize_t start = first(b);
            for (size_t i = 0; i < BLK; i++)
                buf[i] = t_pat_int(1, start + i);
            H5Sselect_hyperslab(sp, H5S_SELECT_SET, &start, NULL, &count, NULL);
            CHECK(H5Dwrite(d, H5T_NATIVE_INT, ms, sp, H5P_DEFAULT, buf) >= 0, "write of block %d failed", b);
        }
        addr = H5Dget_offset(d);
        check_inflight(f, "write", pool_most(NSUB));
        H5Sclose(ms);
        H5Sclose(sp);
        H5Dclose(d);
        CHECK(H5Fclose(f) >= 0, "close after writing failed");
    }
    H5Pclose(p);
    free(buf);
    return addr;
}

/* This rank's blocks as they lie in the subfiles: logical byte a is in
 * stripe a / S, which is subfile (a / S) mod NSUB at offset
 * (a / S / NSUB) * S + a mod S. */
static void check_subfiles(const char *dir, haddr_t addr)
{
    int fds[NSUB];
    for (int k = 0; k < NSUB; k++) {
        char sp[4096];
        fds[k] = t_subfile(dir, "cobegin.h5", k + 1, NSUB, sp, sizeof sp) == 0 ? open(sp, O_RDONLY) : -1;
        CHECK(fds[k] >= 0, "subfile %d of %d not found in %s", k + 1, NSUB, dir);
    }
    for (int b = 0; b < NBLK && !t_fails; b++) {
        long bad = 0;
        for (size_t i = 0; i < BLK; i++) {
            uint64_t a = addr + (first(b) + i) * sizeof(int), k = a / S;
            int      v = 0;
            if (pread(fds[k % NSUB], &v, sizeof v, (off_t)((k / NSUB) * S + a % S)) != sizeof v ||
                v != t_pat_int(1, first(b) + i))
                if (bad++ == 0)
                    CHECK(0, "block %d: int %zu in the subfiles is %d, want %d", b, i, v, t_pat_int(1, first(b) + i));
        }
        CHECK(bad == 0, "block %d: %ld ints wrong in the subfiles", b, bad);
    }
    for (int k = 0; k < NSUB; k++)
        if (fds[k] >= 0)
            close(fds[k]);
}

static void read_file(const char *path)
{
    hsize_t count = BLK;
    int    *buf   = malloc(BLK * sizeof(int));
    hid_t   p = fapl(), f = H5Fopen(path, H5F_ACC_RDONLY, p);
    CHECK(f >= 0, "cannot open %s", path);
    if (f >= 0) {
        hid_t d = H5Dopen2(f, "d", H5P_DEFAULT), sp = H5Dget_space(d), ms = H5Screate_simple(1, &count, NULL);
        for (int b = 0; b < NBLK; b++) {
            hsize_t start = first(b);
            long    bad   = 0;
            memset(buf, 0xff, BLK * sizeof(int));
            H5Sselect_hyperslab(sp, H5S_SELECT_SET, &start, NULL, &count, NULL);
            CHECK(H5Dread(d, H5T_NATIVE_INT, ms, sp, H5P_DEFAULT, buf) >= 0, "read of block %d failed", b);
            for (size_t i = 0; i < BLK; i++)
                bad += buf[i] != t_pat_int(1, start + i);
            CHECK(bad == 0, "block %d: %ld ints read back wrong", b, bad);
        }
        check_inflight(f, "read", pool_most(NSUB));
        H5Sclose(ms);
        H5Sclose(sp);
        H5Dclose(d);
        CHECK(H5Fclose(f) >= 0, "close after reading failed");
    }
    H5Pclose(p);
    free(buf);
}

/* A strided write and read of SPB 4 KiB blocks per rank, interleaved
 * across ranks, one call each, touching every subfile with 256 KiB or more
 * per subfile.  With two or more ranks the write is sparse (small pieces
 * with gaps): on the direct channel and the IOC channel's same-node
 * shortcut alike its subfile transfers run one after another
 * (vfd/channel.c, run_together), the read's together.  At one
 * rank the blocks are contiguous and both run together.  The bytes are
 * read back. */
#define SPB 256
static void strided_file(const char *path)
{
    const size_t iblk = 1024; /* ints per 4 KiB block */
    hsize_t n = (hsize_t)SPB * (hsize_t)t_size * iblk, start = (hsize_t)t_rank * iblk, stride = (hsize_t)t_size * iblk,
            count = SPB, blk = iblk, mn = (hsize_t)SPB * iblk;
    int *buf = malloc(mn * sizeof(int)), *got = malloc(mn * sizeof(int));
    for (size_t i = 0; i < mn; i++)
        buf[i] = t_pat_int(1, start + (i / iblk) * stride + i % iblk);
    hid_t p = fapl(), f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, p);
    CHECK(f >= 0, "cannot create %s", path);
    if (f >= 0) {
        hid_t sp, ms = H5Screate_simple(1, &mn, NULL), d = create_dset(f, "s", n, &sp);
        H5Sselect_hyperslab(sp, H5S_SELECT_SET, &start, &stride, &count, &blk);
        CHECK(H5Dwrite(d, H5T_NATIVE_INT, ms, sp, H5P_DEFAULT, buf) >= 0, "strided write failed");
        if (t_size > 1)
            check_inflight(f, "strided write (sparse: one subfile at a time)", 1);
        MPI_Barrier(MPI_COMM_WORLD);
        memset(got, 0xff, mn * sizeof(int));
        CHECK(H5Dread(d, H5T_NATIVE_INT, ms, sp, H5P_DEFAULT, got) >= 0, "strided read failed");
        CHECK(memcmp(buf, got, mn * sizeof(int)) == 0, "strided read: the ints read back differ from those written");
        /* The file's most: the read's. */
        check_inflight(f, "strided read", pool_most(NSUB));
        H5Sclose(ms);
        H5Sclose(sp);
        H5Dclose(d);
        CHECK(H5Fclose(f) >= 0, "close after the strided transfers failed");
    }
    H5Pclose(p);
    free(buf);
    free(got);
}

int main(int argc, char **argv)
{
    char path[4096];
    t_init(&argc, &argv, "t_cobegin");
    if (argc != 2) {
        if (t_rank == 0)
            fprintf(stderr, "usage: t_cobegin DIR\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    snprintf(path, sizeof path, "%s/cobegin.h5", argv[1]);
    haddr_t addr = write_file(path);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(addr != HADDR_UNDEF, "the dataset has no address");
    if (addr != HADDR_UNDEF)
        check_subfiles(argv[1], addr);
    read_file(path);
    snprintf(path, sizeof path, "%s/cobegin_strided.h5", argv[1]);
    strided_file(path);
    int rc = t_verdict();
    MPI_Finalize();
    return rc;
}
