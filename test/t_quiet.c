/*
 * t_quiet.c -- a successful run prints nothing.
 *
 * Programs compare their output byte for byte (netCDF's tst_warn), so h5sf
 * must say nothing when all goes well.  This program initializes MPI with
 * plain MPI_Init (no MPI_THREAD_MULTIPLE: channel=auto falls back to the
 * direct channel, which h5sf used to announce on stderr), then creates,
 * writes, reads back, reopens and deletes a file on MPI_COMM_WORLD and one
 * serial file per rank, and prints nothing unless something fails.
 * test/t_serial.cmake runs it and requires empty stdout and stderr; with
 * H5SF_LOG=debug the reason for the channel must be there instead.
 *
 * usage: mpiexec -n N t_quiet DIR
 */
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 10007

static int rank, size, failed;

#define MUST(c, what)                                                                                                  \
    do {                                                                                                               \
        if (!(c)) {                                                                                                    \
            fprintf(stderr, "t_quiet rank %d: %s failed (line %d)\n", rank, what, __LINE__);                           \
            failed = 1;                                                                                                \
        }                                                                                                              \
    } while (0)

static void one_file(const char *path, hid_t fapl, hsize_t n, hsize_t start, hsize_t count)
{
    int  *buf = malloc(n * sizeof *buf);
    hid_t f   = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    MUST(f >= 0, "H5Fcreate");
    if (f < 0) {
        free(buf);
        return;
    }
    hid_t fs = H5Screate_simple(1, &n, NULL), ms = H5Screate_simple(1, &count, NULL);
    hid_t d = H5Dcreate2(f, "d", H5T_NATIVE_INT, fs, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    for (hsize_t i = 0; i < count; i++)
        buf[i] = (int)(start + i) * 3 + 1;
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &count, NULL);
    MUST(d >= 0 && H5Dwrite(d, H5T_NATIVE_INT, ms, fs, H5P_DEFAULT, buf) >= 0, "H5Dwrite");
    H5Dclose(d);
    H5Sclose(ms);
    H5Sclose(fs);
    MUST(H5Fclose(f) >= 0, "H5Fclose");
    f = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    MUST(f >= 0, "H5Fopen");
    if (f >= 0) {
        d = H5Dopen2(f, "d", H5P_DEFAULT);
        MUST(d >= 0 && H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0, "H5Dread");
        for (hsize_t i = 0; i < n && !failed; i++)
            MUST(buf[i] == (int)i * 3 + 1, "the data read back");
        H5Dclose(d);
        MUST(H5Fclose(f) >= 0, "H5Fclose after read");
    }
    MUST(H5Fdelete(path, fapl) >= 0, "H5Fdelete");
    free(buf);
}

int main(int argc, char **argv)
{
    char path[4096];
    /* Plain MPI_Init and no harness: the test is its silence (no verdict
     * line, HDF5's own error printing left on). */
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 2) {
        fprintf(stderr, "usage: t_quiet DIR\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    /* Shared by all ranks, through the plugin by name. */
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    MUST(H5Pset_mpi_params(fapl, MPI_COMM_WORLD, MPI_INFO_NULL) >= 0, "H5Pset_mpi_params");
    MUST(H5Pset_driver_by_name(fapl, "h5sf", "stripe_size=4096,stripe_count=2") >= 0, "H5Pset_driver_by_name");
    snprintf(path, sizeof path, "%s/quiet_np%d.h5", argv[1], size);
    hsize_t per = N / (hsize_t)size;
    one_file(path, fapl, per * (hsize_t)size, per * (hsize_t)rank, per);
    H5Pclose(fapl);
    /* One serial file per rank. */
    fapl = H5Pcreate(H5P_FILE_ACCESS);
    MUST(H5Pset_driver_by_name(fapl, "h5sf", NULL) >= 0, "H5Pset_driver_by_name (serial)");
    snprintf(path, sizeof path, "%s/quiet_np%d_rank%d.h5", argv[1], size, rank);
    one_file(path, fapl, N, 0, N);
    H5Pclose(fapl);
    int any = 0;
    MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    H5close();
    MPI_Finalize();
    return any;
}
