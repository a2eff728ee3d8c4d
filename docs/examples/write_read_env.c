/*
 * write_read_env.c -- an HDF5 program with no driver code at all; h5sf is
 * chosen and configured only by environment variables.
 *
 *   mpicc write_read_env.c -o write_read_env
 *   export HDF5_PLUGIN_PATH=<prefix>/lib/h5sf/<mpi>     (openmpi or mpich: mpicc's MPI)
 *   HDF5_DRIVER=h5sf HDF5_DRIVER_CONFIG="stripe_size=64KiB" H5SF_STRIPE_COUNT=2 \
 *       mpiexec -n 4 ./write_read_env [file.h5]
 *
 * No driver call: HDF5 reads HDF5_DRIVER and HDF5_DRIVER_CONFIG when it
 * starts and makes h5sf the driver of the default file access property
 * list and of every new one; h5sf adds its H5SF_* variables at open.  The
 * ranks share a file through a property list that names their
 * communicator (H5Pset_mpi_params, HDF5's own call, not a driver's): every
 * rank writes its part of a dataset, an attribute is written by all, and
 * after reopening every rank reads the whole dataset and checks it.  Then
 * rank 0 alone reads it once more with H5P_DEFAULT, which names no
 * communicator: a serial open (MPI_COMM_SELF), as with any HDF5 driver.
 * Exit status 1 if a value differs.  Without HDF5_DRIVER the default
 * driver would be sec2, which cannot take writes from several ranks, so
 * the program refuses to run.
 */
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>
#include <hdf5.h>

#define N_PER_RANK 50000

static int rank, nranks;

#define TRY(call)                                                                                                      \
    do {                                                                                                               \
        if ((call) < 0) {                                                                                              \
            fprintf(stderr, "rank %d: %s failed (line %d)\n", rank, #call, __LINE__);                                  \
            MPI_Abort(MPI_COMM_WORLD, 2);                                                                              \
        }                                                                                                              \
    } while (0)

static double value(long i) { return (double)i * 0.5 - 7.0; }

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    const char *path = argc > 1 ? argv[1] : "env.h5";
    const char *drv  = getenv("HDF5_DRIVER");
    if (nranks > 1 && (!drv || !*drv)) {
        if (rank == 0)
            fprintf(stderr,
                    "write_read_env: set HDF5_DRIVER=h5sf (and HDF5_PLUGIN_PATH); the default "
                    "driver cannot be written by %d ranks at once\n",
                    nranks);
        MPI_Finalize();
        return 2;
    }

    hsize_t n = (hsize_t)N_PER_RANK * nranks, mine = N_PER_RANK, start = (hsize_t)rank * N_PER_RANK;
    double *buf = malloc(sizeof(double) * n);
    if (!buf)
        MPI_Abort(MPI_COMM_WORLD, 2);
    for (hsize_t i = 0; i < mine; i++)
        buf[i] = value((long)(start + i));

    /* A new list has the driver HDF5_DRIVER names; add the communicator. */
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    TRY(fapl);
    TRY(H5Pset_mpi_params(fapl, MPI_COMM_WORLD, MPI_INFO_NULL));
    hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    TRY(file);
    hid_t fs = H5Screate_simple(1, &n, NULL);
    hid_t d  = H5Dcreate2(file, "series", H5T_NATIVE_DOUBLE, fs, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    TRY(d);
    hid_t as = H5Screate(H5S_SCALAR);
    hid_t a  = H5Acreate2(d, "nranks", H5T_NATIVE_INT, as, H5P_DEFAULT, H5P_DEFAULT);
    TRY(a);
    TRY(H5Awrite(a, H5T_NATIVE_INT, &nranks));
    H5Aclose(a);
    H5Sclose(as);
    hid_t ms = H5Screate_simple(1, &mine, NULL);
    TRY(H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &mine, NULL));
    TRY(H5Dwrite(d, H5T_NATIVE_DOUBLE, ms, fs, H5P_DEFAULT, buf));
    H5Sclose(ms);
    H5Sclose(fs);
    H5Dclose(d);
    TRY(H5Fclose(file));

    long bad = 0, all_bad = 0;
    int  stored = 0;
    file        = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    TRY(file);
    d = H5Dopen2(file, "series", H5P_DEFAULT);
    TRY(d);
    TRY(H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf));
    a = H5Aopen(d, "nranks", H5P_DEFAULT);
    TRY(a);
    TRY(H5Aread(a, H5T_NATIVE_INT, &stored));
    H5Aclose(a);
    if (stored != nranks && bad++ == 0)
        fprintf(stderr, "rank %d: attribute nranks is %d, expected %d\n", rank, stored, nranks);
    for (hsize_t i = 0; i < n; i++)
        if (buf[i] != value((long)i) && bad++ == 0)
            fprintf(stderr, "rank %d: series[%llu] is %g, expected %g\n", rank, (unsigned long long)i, buf[i],
                    value((long)i));
    H5Dclose(d);
    TRY(H5Fclose(file));
    H5Pclose(fapl);

    /* Rank 0 alone, serially: the other ranks take no part. */
    if (rank == 0) {
        double  first = 0;
        hsize_t one = 1, at = 0;
        file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
        TRY(file);
        d = H5Dopen2(file, "series", H5P_DEFAULT);
        TRY(d);
        fs = H5Dget_space(d);
        ms = H5Screate_simple(1, &one, NULL);
        TRY(H5Sselect_hyperslab(fs, H5S_SELECT_SET, &at, NULL, &one, NULL));
        TRY(H5Dread(d, H5T_NATIVE_DOUBLE, ms, fs, H5P_DEFAULT, &first));
        if (first != value(0) && bad++ == 0)
            fprintf(stderr, "rank 0 alone: series[0] is %g, expected %g\n", first, value(0));
        H5Sclose(ms);
        H5Sclose(fs);
        H5Dclose(d);
        TRY(H5Fclose(file));
    }

    MPI_Allreduce(&bad, &all_bad, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%s (HDF5_DRIVER=%s): %s (%d ranks, %llu doubles)\n", path, drv ? drv : "(unset)",
               all_bad ? "MISMATCH" : "read back OK", nranks, (unsigned long long)n);
    free(buf);
    MPI_Finalize();
    return all_bad ? 1 : 0;
}
