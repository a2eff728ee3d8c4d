/*
 * t_security_prog.c -- one h5sf action on one file, for the shell tests of
 * the shared-directory promises (test/t_security.sh), which run it as the
 * victim account under mpiexec and check the files around it themselves.
 *
 *   mpiexec -n N t_security_prog ACTION FILE CONFIG [SEED]
 *
 *   create  H5Fcreate(TRUNC) through h5sf with CONFIG (an h5sf config
 *           string), one dataset "d" of 64 KiB per rank holding pattern SEED
 *   verify  H5Fopen read-only, "d" must hold pattern SEED
 *   open    H5Fopen read-only, then close
 *   rdwr    H5Fopen read-write, then close without a write
 *   delete  H5Fdelete
 *
 * Exit status 0 when the action succeeded (and verify found its data), 1
 * when it failed, on every rank (3: the ranks disagreed).  HDF5 prints its
 * error stack on failure, where the tests look for h5sf's message: h5sf is
 * linked in and registered.
 */
#include <mpi.h>
#include <hdf5.h>
#include "h5sf.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "h5sf_test.h"

#define PER_RANK 65536

/* The pattern: never 0, different for each seed and offset. */
static unsigned char pat(unsigned seed, uint64_t off)
{
    uint64_t x = (off + 1) * 0x9E3779B97F4A7C15ull ^ ((uint64_t)seed << 32);
    x ^= x >> 29;
    return (unsigned char)(x % 255 + 1);
}

static int act(const char *action, const char *file, hid_t fapl, unsigned seed, int rank, int size)
{
    unsigned char *buf = malloc(PER_RANK);
    hid_t          f = -1, d = -1, ms = -1, fs = -1;
    hsize_t        n = (hsize_t)PER_RANK * (hsize_t)size, start = (hsize_t)PER_RANK * (hsize_t)rank, count = PER_RANK;
    int            ok = 0;
    if (!buf)
        return 0;
    if (!strcmp(action, "delete"))
        ok = H5Fdelete(file, fapl) >= 0;
    else if (!strcmp(action, "open") || !strcmp(action, "rdwr"))
        ok = (f = H5Fopen(file, strcmp(action, "open") ? H5F_ACC_RDWR : H5F_ACC_RDONLY, fapl)) >= 0;
    else if (!strcmp(action, "create")) {
        for (hsize_t i = 0; i < count; i++)
            buf[i] = pat(seed, start + i);
        ok = (f = H5Fcreate(file, H5F_ACC_TRUNC, H5P_DEFAULT, fapl)) >= 0 &&
             (fs = H5Screate_simple(1, &n, NULL)) >= 0 && (ms = H5Screate_simple(1, &count, NULL)) >= 0 &&
             (d = H5Dcreate2(f, "d", H5T_NATIVE_UCHAR, fs, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)) >= 0 &&
             H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &count, NULL) >= 0 &&
             H5Dwrite(d, H5T_NATIVE_UCHAR, ms, fs, H5P_DEFAULT, buf) >= 0;
    }
    else if (!strcmp(action, "verify")) {
        memset(buf, 0, PER_RANK);
        ok = (f = H5Fopen(file, H5F_ACC_RDONLY, fapl)) >= 0 && (d = H5Dopen2(f, "d", H5P_DEFAULT)) >= 0 &&
             (fs = H5Dget_space(d)) >= 0 && H5Sget_simple_extent_npoints(fs) == (hssize_t)n &&
             (ms = H5Screate_simple(1, &count, NULL)) >= 0 &&
             H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &count, NULL) >= 0 &&
             H5Dread(d, H5T_NATIVE_UCHAR, ms, fs, H5P_DEFAULT, buf) >= 0;
        for (hsize_t i = 0; ok && i < count; i++)
            if (buf[i] != pat(seed, start + i)) {
                fprintf(stderr, "rank %d: %s: byte %llu is %u, not %u\n", rank, file, (unsigned long long)(start + i),
                        buf[i], pat(seed, start + i));
                ok = 0;
            }
    }
    else
        fprintf(stderr, "unknown action %s\n", action);
    if (ms >= 0)
        H5Sclose(ms);
    if (fs >= 0)
        H5Sclose(fs);
    if (d >= 0 && H5Dclose(d) < 0)
        ok = 0;
    if (f >= 0 && H5Fclose(f) < 0)
        ok = 0;
    free(buf);
    return ok;
}

int main(int argc, char **argv)
{
    int ok = 0, all;
    t_init(&argc, &argv, "t_security_prog");
    /* The shell tests read HDF5's printed stack for h5sf's message. */
    H5Eset_auto2(H5E_DEFAULT, (H5E_auto2_t)H5Eprint2, NULL);
    const int rank = t_rank, size = t_size;
    if (argc < 4) {
        if (rank == 0)
            fprintf(stderr, "usage: %s create|verify|open|rdwr|delete FILE CONFIG [SEED]\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (H5FD_h5sf_init() >= 0 && fapl >= 0 && H5Pset_mpi_params(fapl, MPI_COMM_WORLD, MPI_INFO_NULL) >= 0 &&
        H5Pset_driver_by_name(fapl, "h5sf", argv[3]) >= 0)
        ok = act(argv[1], argv[2], fapl, argc > 4 ? (unsigned)strtoul(argv[4], NULL, 10) : 1, rank, size);
    H5Pclose(fapl);
    /* Every rank must have seen the same outcome (h5sf agrees on failure). */
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (all != ok)
        fprintf(stderr, "rank %d: outcome %d differs from another rank's\n", rank, ok);
    int agreed = all;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    H5close();
    MPI_Finalize();
    return agreed == all && all ? 0 : agreed != all ? 3 : 1;
}
