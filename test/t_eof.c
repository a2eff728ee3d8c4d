/*
 * t_eof.c -- subfiles longer or shorter than the file's end.
 *
 * A job killed after H5Fflush can leave subfiles that extend past the last
 * flushed end of allocation; HDF5 needs only eof >= EOA (MPI-IO reopens such
 * files).  With 1 MiB stripes over 2 subfiles and 2 MiB of data:
 *   long   the first subfile grown by 1 MiB (as `truncate -s +1M`): the file
 *          opens read-only and reads the pattern; a read-write open and
 *          close leaves every subfile at its size from before;
 *   grown and shrunk back  through the VFD API: the end of allocation
 *          moved 2 MiB past the file's end, every rank writes its share
 *          there, the end moved back, H5FDtruncate: every subfile is back at
 *          its size from before (the EOA equals the EOF found at open, yet
 *          the subfiles are longer than it implies);
 *   short  the last subfile cut to half: the open fails with an error on
 *          every rank (no hang, no zeros read as data).
 * Sizes are checked with stat(2), data against a known pattern.
 * usage: t_eof DIR
 */
#include <dirent.h>
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "h5sf_test.h"

#define MIB  (1 << 20)
#define NSUB 2


static hid_t fapl(void)
{
    hid_t p = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_mpi_params(p, MPI_COMM_WORLD, MPI_INFO_NULL);
    H5Pset_driver_by_name(p, "h5sf", "stripe_size=1MiB,stripe_count=2");
    return p;
}

static size_t total(void) { return (size_t)2 * MIB / sizeof(int); }

static int write_file(const char *path)
{
    hsize_t n = total(), per = n / (hsize_t)t_size, start = per * (hsize_t)t_rank;
    hsize_t count = t_rank == t_size - 1 ? n - start : per;
    int    *buf   = malloc(count * sizeof(int) + 1);
    for (hsize_t i = 0; i < count; i++)
        buf[i] = (int)(start + i) ^ 0x5a5a;
    hid_t  p = fapl(), f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, p);
    herr_t rc = -1;
    if (f >= 0) {
        rc = t_write_block(f, "d", n, start, count, buf, H5P_DEFAULT);
        if (H5Fclose(f) < 0)
            rc = -1;
    }
    H5Pclose(p);
    free(buf);
    return rc < 0 ? -1 : 0;
}

/* 0: opened and read the pattern; -1: the open failed; 1: wrong data. */
static int read_file(const char *path, unsigned flags)
{
    hid_t p = fapl(), f = -1;
    H5E_BEGIN_TRY { f = H5Fopen(path, flags, p); }
    H5E_END_TRY
    H5Pclose(p);
    if (f < 0)
        return -1;
    size_t n   = total();
    int   *buf = malloc(n * sizeof(int)), bad = 0;
    hid_t  d = H5Dopen2(f, "d", H5P_DEFAULT);
    if (d < 0 || H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0)
        bad = 1;
    for (size_t i = 0; i < n && !bad; i++)
        bad = buf[i] != ((int)i ^ 0x5a5a);
    free(buf);
    if (d >= 0)
        H5Dclose(d);
    if (H5Fclose(f) < 0)
        bad = 1;
    return bad;
}

static long long file_size(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 ? (long long)st.st_size : -1;
}

int main(int argc, char **argv)
{
    char path[4096], s1[4096], s2[4096];
    t_init(&argc, &argv, "t_eof");
    if (argc != 2) {
        if (t_rank == 0)
            fprintf(stderr, "usage: t_eof DIR\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    snprintf(path, sizeof path, "%s/eof.h5", argv[1]);

    /* long */
    CHECK(write_file(path) == 0, "write failed");
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(t_subfile(argv[1], "eof.h5", 1, NSUB, s1, sizeof s1) == 0 &&
              t_subfile(argv[1], "eof.h5", 2, NSUB, s2, sizeof s2) == 0,
          "subfiles not found");
    long long z1 = file_size(s1), z2 = file_size(s2);
    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == 0)
        CHECK(truncate(s1, z1 + MIB) == 0, "cannot grow %s", s1);
    MPI_Barrier(MPI_COMM_WORLD);
    int r = read_file(path, H5F_ACC_RDONLY);
    CHECK(r == 0, "read-only open with a subfile 1 MiB too long: %s", r < 0 ? "open failed" : "wrong data");
    r = read_file(path, H5F_ACC_RDWR);
    CHECK(r == 0, "read-write open with a subfile 1 MiB too long: %s", r < 0 ? "open failed" : "wrong data");
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(file_size(s1) == z1 && file_size(s2) == z2,
          "after a read-write open and close the subfiles are %lld and %lld bytes, expected %lld and %lld",
          file_size(s1), file_size(s2), z1, z2);

    /* grown and shrunk back */
    {
        hid_t   p  = fapl();
        H5FD_t *lf = H5FDopen(path, H5F_ACC_RDWR, p, (haddr_t)1 << 40);
        CHECK(lf != NULL, "H5FDopen failed");
        if (lf) {
            haddr_t e0 = H5FDget_eof(lf, H5FD_MEM_DRAW), n = 2 * MIB / (haddr_t)t_size;
            haddr_t at = e0 + n * (haddr_t)t_rank, len = t_rank == t_size - 1 ? 2 * MIB - n * (haddr_t)t_rank : n;
            unsigned char *b = malloc(len ? len : 1);
            memset(b, 0x5a, len);
            CHECK(H5FDset_eoa(lf, H5FD_MEM_DRAW, e0 + 2 * MIB) >= 0, "H5FDset_eoa (grow) failed");
            CHECK(H5FDwrite(lf, H5FD_MEM_DRAW, H5P_DEFAULT, at, len, b) >= 0, "H5FDwrite past the old end failed");
            MPI_Barrier(MPI_COMM_WORLD);
            CHECK(H5FDset_eoa(lf, H5FD_MEM_DRAW, e0) >= 0, "H5FDset_eoa (shrink) failed");
            CHECK(H5FDtruncate(lf, H5P_DEFAULT, 1) >= 0, "H5FDtruncate failed");
            CHECK(H5FDclose(lf) >= 0, "H5FDclose failed");
            free(b);
        }
        H5Pclose(p);
        MPI_Barrier(MPI_COMM_WORLD);
        CHECK(file_size(s1) == z1 && file_size(s2) == z2,
              "grown by 2 MiB and shrunk back: the subfiles are %lld and %lld bytes, expected %lld and %lld",
              file_size(s1), file_size(s2), z1, z2);
        r = read_file(path, H5F_ACC_RDONLY);
        CHECK(r == 0, "read-only open after growing and shrinking back: %s", r < 0 ? "open failed" : "wrong data");
    }

    /* short */
    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == 0)
        CHECK(truncate(s2, z2 / 2) == 0, "cannot cut %s", s2);
    MPI_Barrier(MPI_COMM_WORLD);
    r = read_file(path, H5F_ACC_RDONLY);
    CHECK(r < 0, "open with the last subfile cut to half: %s", r == 0 ? "succeeded" : "read wrong data");

    int rc = t_verdict();
    MPI_Finalize();
    return rc;
}
