/*
 * t_userblock.c -- files with a user block (H5Pset_userblock, 512 B and
 * 64 KiB) round-trip through h5sf as through MPI-IO.
 *
 * For each size, h5sf and HDF5's MPI-IO driver each write the same dataset
 * (contiguous, every rank a slab).  Then, independently of h5sf:
 *   - the dataset's bytes are read at H5Dget_offset from the logical file:
 *     for MPI-IO the file itself, for h5sf the subfiles reassembled with
 *     plain stripe arithmetic (stripe s of the logical file is stripe s/N of
 *     subfile s%N) -- both must hold the known pattern;
 *   - the user block is filled with a marker the way h5jam does, with
 *     pwrite into the logical bytes [0, size), after which both files must
 *     still open (HDF5 finds the superblock after the user block), report
 *     the user block size, and read the pattern; the marker must still be
 *     there afterwards.
 * usage: t_userblock DIR
 */
#include <dirent.h>
#include <fcntl.h>
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "h5sf_test.h"

#define DIM1   64 /* rows per rank */
#define DIM2   1000
#define STRIPE 65536
#define NSUB   3


static hid_t make_fapl(int h5sf)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (h5sf) {
        char cfg[128];
        snprintf(cfg, sizeof cfg, "stripe_size=%d,stripe_count=%d", STRIPE, NSUB);
        H5Pset_mpi_params(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
        if (H5Pset_driver_by_name(fapl, "h5sf", cfg) < 0)
            return H5I_INVALID_HID;
    }
    else
        H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    return fapl;
}

/* Create path with a user block of ub bytes; returns the dataset's offset. */
static haddr_t write_file(const char *path, hid_t fapl, hsize_t ub)
{
    hsize_t dims[2] = {(hsize_t)DIM1 * t_size, DIM2}, start[2] = {(hsize_t)DIM1 * t_rank, 0}, count[2] = {DIM1, DIM2};
    int    *buf = malloc(sizeof(int) * DIM1 * DIM2);
    haddr_t off = HADDR_UNDEF;
    for (size_t i = 0; i < (size_t)DIM1 * DIM2; i++)
        buf[i] = t_pat_int(1, (size_t)DIM1 * DIM2 * t_rank + i);
    hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
    H5Pset_userblock(fcpl, ub);
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, fcpl, fapl);
    H5Pclose(fcpl);
    if (f < 0) {
        free(buf);
        return HADDR_UNDEF;
    }
    hid_t sp = H5Screate_simple(2, dims, NULL), ms = H5Screate_simple(2, count, NULL);
    hid_t d = H5Dcreate2(f, "d", H5T_NATIVE_INT, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Sselect_hyperslab(sp, H5S_SELECT_SET, start, NULL, count, NULL);
    if (H5Dwrite(d, H5T_NATIVE_INT, ms, sp, H5P_DEFAULT, buf) >= 0)
        off = H5Dget_offset(d);
    H5Sclose(ms);
    H5Sclose(sp);
    H5Dclose(d);
    if (H5Fclose(f) < 0)
        off = HADDR_UNDEF;
    free(buf);
    return off;
}

/* Open path, check the user block size and every value of the dataset. */
static int read_file(const char *path, hid_t fapl, hsize_t ub)
{
    hsize_t got = 0;
    int     bad = 0;
    hid_t   f   = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    if (f < 0)
        return -1;
    hid_t fcpl = H5Fget_create_plist(f);
    H5Pget_userblock(fcpl, &got);
    H5Pclose(fcpl);
    if (got != ub) {
        fprintf(stderr, "rank %d: %s: user block %llu, expected %llu\n", t_rank, path, (unsigned long long)got,
                (unsigned long long)ub);
        bad = 1;
    }
    size_t n   = (size_t)DIM1 * DIM2 * t_size;
    int   *buf = malloc(n * sizeof(int));
    hid_t  d   = H5Dopen2(f, "d", H5P_DEFAULT);
    if (d < 0 || H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0)
        bad = 1;
    for (size_t i = 0; i < n && !bad; i++)
        if (buf[i] != t_pat_int(1, i)) {
            fprintf(stderr, "rank %d: %s: element %zu is %d, expected %d\n", t_rank, path, i, buf[i], t_pat_int(1, i));
            bad = 1;
        }
    free(buf);
    if (d >= 0)
        H5Dclose(d);
    return (H5Fclose(f) < 0 || bad) ? -1 : 0;
}

/* The subfile holding stripes k mod NSUB (0-based k). */
static int open_subfile(const char *dir, const char *base, int k, int flags)
{
    char path[4096];
    return t_subfile(dir, base, k + 1, NSUB, path, sizeof path) == 0 ? open(path, flags) : -1;
}

/* pread/pwrite len logical bytes at off: the file itself, or striped. */
static int logical_io(const char *dir, const char *base, int striped, int write, void *buf, size_t len, off_t off)
{
    char *p = buf;
    while (len > 0) {
        int    fd;
        off_t  pos = off;
        size_t n   = len;
        if (striped) {
            off_t s = off / STRIPE;
            n       = STRIPE - (size_t)(off % STRIPE);
            n       = n < len ? n : len;
            pos     = (s / NSUB) * STRIPE + off % STRIPE;
            fd      = open_subfile(dir, base, (int)(s % NSUB), write ? O_WRONLY : O_RDONLY);
        }
        else {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", dir, base);
            fd = open(path, write ? O_WRONLY : O_RDONLY);
        }
        if (fd < 0)
            return -1;
        ssize_t r = write ? pwrite(fd, p, n, pos) : pread(fd, p, n, pos);
        close(fd);
        if (r != (ssize_t)n)
            return -1;
        p += n, off += (off_t)n, len -= n;
    }
    return 0;
}

static void one(const char *dir, hsize_t ub, int h5sf)
{
    char        base[64], path[4096];
    const char *drv = h5sf ? "h5sf" : "mpio";
    snprintf(base, sizeof base, "ub%llu_%s.h5", (unsigned long long)ub, drv);
    snprintf(path, sizeof path, "%s/%s", dir, base);
    hid_t fapl = make_fapl(h5sf);
    CHECK(fapl >= 0, "%s: fapl", drv);

    haddr_t off = write_file(path, fapl, ub);
    CHECK(off != HADDR_UNDEF, "%s, user block %llu: write failed", drv, (unsigned long long)ub);
    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == 0 && off != HADDR_UNDEF) {
        size_t n   = (size_t)DIM1 * DIM2 * t_size;
        int   *raw = malloc(n * sizeof(int));
        CHECK(off >= ub, "%s: dataset at %llu inside the %llu-byte user block", drv, (unsigned long long)off,
              (unsigned long long)ub);
        CHECK(logical_io(dir, base, h5sf, 0, raw, n * sizeof(int), (off_t)off) == 0, "%s: raw read failed", drv);
        for (size_t i = 0; i < n; i++)
            if (raw[i] != t_pat_int(1, i)) {
                CHECK(0, "%s, user block %llu: raw element %zu at logical offset %llu is %d, expected %d", drv,
                      (unsigned long long)ub, i, (unsigned long long)off, raw[i], t_pat_int(1, i));
                break;
            }
        /* h5jam's way: the user block's bytes are the user's. */
        char *mark = malloc(ub);
        memset(mark, 'U', ub);
        CHECK(logical_io(dir, base, h5sf, 1, mark, ub, 0) == 0, "%s: writing the user block failed", drv);
        free(mark);
        free(raw);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(read_file(path, fapl, ub) == 0, "%s, user block %llu: read back failed", drv, (unsigned long long)ub);
    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == 0) {
        char *mark = malloc(ub);
        CHECK(logical_io(dir, base, h5sf, 0, mark, ub, 0) == 0, "%s: reading the user block failed", drv);
        for (hsize_t i = 0; i < ub; i++)
            if (mark[i] != 'U') {
                CHECK(0, "%s: user block byte %llu changed by HDF5", drv, (unsigned long long)i);
                break;
            }
        free(mark);
    }
    H5Pclose(fapl);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv, "t_userblock");
    if (argc != 2) {
        if (t_rank == 0)
            fprintf(stderr, "usage: t_userblock DIR\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const hsize_t ubs[] = {512, 65536};
    for (int u = 0; u < 2; u++)
        for (int h5sf = 0; h5sf < 2; h5sf++)
            one(argv[1], ubs[u], h5sf);
    int rc = t_verdict();
    MPI_Finalize();
    return rc;
}
