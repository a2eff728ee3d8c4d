/*
 * write_read_by_name.c -- h5sf chosen by name: no h5sf header, no link.
 *
 *   mpicc write_read_by_name.c -o write_read_by_name     (HDF5 only)
 *   export HDF5_PLUGIN_PATH=<prefix>/lib/h5sf/<mpi>     (openmpi or mpich: mpicc's MPI)
 *   mpiexec -n 4 ./write_read_by_name [file.h5] [config]
 *
 * config defaults to "stripe_size=64KiB,stripe_count=3,ioc=total:2": 3
 * subfiles served by 2 I/O concentrator ranks.  HDF5 loads the driver from
 * HDF5_PLUGIN_PATH.  Every rank writes a band of rows of a chunked 2-D
 * dataset with independent I/O; after reopening, every rank reads the whole
 * dataset and checks it.  Exit status 1 if a value differs.
 */
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>
#include <hdf5.h>

#define ROWS 200 /* per rank */
#define COLS 300

static int rank, nranks;

#define TRY(call)                                                                                                      \
    do {                                                                                                               \
        if ((call) < 0) {                                                                                              \
            fprintf(stderr, "rank %d: %s failed (line %d)\n", rank, #call, __LINE__);                                  \
            MPI_Abort(MPI_COMM_WORLD, 2);                                                                              \
        }                                                                                                              \
    } while (0)

static int value(long i, long j) { return (int)(i * COLS + j) ^ 0x5a5a; }

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    const char *path   = argc > 1 ? argv[1] : "by_name.h5";
    const char *config = argc > 2 ? argv[2] : "stripe_size=64KiB,stripe_count=3,ioc=total:2";

    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    TRY(fapl);
    TRY(H5Pset_mpi_params(fapl, MPI_COMM_WORLD, MPI_INFO_NULL));
    if (H5Pset_driver_by_name(fapl, "h5sf", config) < 0) {
        if (rank == 0)
            fprintf(stderr, "cannot select the h5sf driver: is HDF5_PLUGIN_PATH set to the directory "
                            "of libh5sf.so?\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }

    hsize_t dims[2] = {(hsize_t)ROWS * nranks, COLS}, chunk[2] = {50, 100};
    hsize_t start[2] = {(hsize_t)rank * ROWS, 0}, count[2] = {ROWS, COLS};
    int    *band = malloc(sizeof(int) * ROWS * COLS);
    int    *all  = malloc(sizeof(int) * ROWS * COLS * (size_t)nranks);
    if (!band || !all)
        MPI_Abort(MPI_COMM_WORLD, 2);
    for (long i = 0; i < ROWS; i++)
        for (long j = 0; j < COLS; j++)
            band[i * COLS + j] = value((long)rank * ROWS + i, j);

    hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    TRY(file);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    TRY(H5Pset_chunk(dcpl, 2, chunk));
    TRY(H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY)); /* parallel writes need space up front */
    hid_t fs = H5Screate_simple(2, dims, NULL);
    hid_t d  = H5Dcreate2(file, "grid", H5T_NATIVE_INT, fs, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    TRY(d);
    hid_t ms = H5Screate_simple(2, count, NULL);
    TRY(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL));
    TRY(H5Dwrite(d, H5T_NATIVE_INT, ms, fs, H5P_DEFAULT, band)); /* independent */
    H5Sclose(ms);
    H5Sclose(fs);
    H5Dclose(d);
    H5Pclose(dcpl);
    TRY(H5Fclose(file));

    long bad = 0, all_bad = 0;
    file = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    TRY(file);
    d = H5Dopen2(file, "grid", H5P_DEFAULT);
    TRY(d);
    TRY(H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, all));
    for (long i = 0; i < (long)dims[0]; i++)
        for (long j = 0; j < COLS; j++)
            if (all[i * COLS + j] != value(i, j) && bad++ == 0)
                fprintf(stderr, "rank %d: grid[%ld][%ld] is %d, expected %d\n", rank, i, j, all[i * COLS + j],
                        value(i, j));
    H5Dclose(d);
    TRY(H5Fclose(file));

    MPI_Allreduce(&bad, &all_bad, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%s (%s): %s (%d ranks, %llu x %d ints)\n", path, config, all_bad ? "MISMATCH" : "read back OK", nranks,
               (unsigned long long)dims[0], COLS);
    H5Pclose(fapl);
    free(band);
    free(all);
    MPI_Finalize();
    return all_bad ? 1 : 0;
}
