/*
 * nodelocal.c -- subfiles on node-local storage, fused into one ordinary
 * HDF5 file afterwards (nodelocal.sh runs the whole sequence).
 *
 *   mpiexec -n 4 ./nodelocal write /shared/run.h5 /local/scratch
 *   h5sf-fuse -s /local/scratch /shared/run.h5 /shared/run-fused.h5
 *   mpiexec -n 2 ./nodelocal read /shared/run.h5 h5sf        (fewer ranks)
 *   mpiexec -n 2 ./nodelocal read /shared/run-fused.h5 mpio  (plain file)
 *
 * write: the stub and config file go to the shared path; the subfiles go to
 * subfile_dir, a directory with the same name on every node but local to it
 * (a local SSD, /dev/shm, a burst buffer).  One I/O concentrator per node
 * writes that node's subfiles, so channel=ioc is required: with the direct
 * channel every rank would write every subfile, across nodes.
 * read: any number of ranks each read a band of rows and check them, with
 * h5sf (the subfiles must still be reachable) or with the MPI-IO driver (a
 * fused, ordinary file).  Exit status 1 if a value differs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>
#include <hdf5.h>

#define ROWS_PER_RANK 128
#define COLS          1024

static int rank, nranks;

#define TRY(call)                                                                                                      \
    do {                                                                                                               \
        if ((call) < 0) {                                                                                              \
            fprintf(stderr, "rank %d: %s failed (line %d)\n", rank, #call, __LINE__);                                  \
            MPI_Abort(MPI_COMM_WORLD, 2);                                                                              \
        }                                                                                                              \
    } while (0)

static float value(hsize_t i, hsize_t j) { return (float)(i % 1000) + (float)j / 1024.0f; }

static int write_file(const char *path, const char *local_dir)
{
    char  config[4200];
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    snprintf(config, sizeof config, "subfile_dir=%s,ioc=per_node,channel=ioc,stripe_size=256KiB,stripe_count=4",
             local_dir);
    TRY(H5Pset_mpi_params(fapl, MPI_COMM_WORLD, MPI_INFO_NULL));
    TRY(H5Pset_driver_by_name(fapl, "h5sf", config));

    hsize_t dims[2] = {(hsize_t)ROWS_PER_RANK * nranks, COLS}, count[2] = {ROWS_PER_RANK, COLS};
    hsize_t start[2] = {(hsize_t)rank * ROWS_PER_RANK, 0};
    float  *band     = malloc(sizeof(float) * ROWS_PER_RANK * COLS);
    if (!band)
        MPI_Abort(MPI_COMM_WORLD, 2);
    for (hsize_t i = 0; i < ROWS_PER_RANK; i++)
        for (hsize_t j = 0; j < COLS; j++)
            band[i * COLS + j] = value(start[0] + i, j);

    hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    TRY(file);
    hid_t fs = H5Screate_simple(2, dims, NULL);
    hid_t d  = H5Dcreate2(file, "field", H5T_NATIVE_FLOAT, fs, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    TRY(d);
    hid_t ms   = H5Screate_simple(2, count, NULL);
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    TRY(H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE));
    TRY(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL));
    TRY(H5Dwrite(d, H5T_NATIVE_FLOAT, ms, fs, dxpl, band));
    H5Pclose(dxpl);
    H5Sclose(ms);
    H5Sclose(fs);
    H5Dclose(d);
    TRY(H5Fclose(file));
    H5Pclose(fapl);
    free(band);
    if (rank == 0)
        printf("wrote %s (%llu x %d floats), subfiles in %s\n", path, (unsigned long long)dims[0], COLS, local_dir);
    return 0;
}

static int read_file(const char *path, const char *driver)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (!strcmp(driver, "h5sf")) {
        TRY(H5Pset_mpi_params(fapl, MPI_COMM_WORLD, MPI_INFO_NULL));
        TRY(H5Pset_driver_by_name(fapl, "h5sf", NULL)); /* layout comes from the file */
    }
    else
        TRY(H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL));

    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    TRY(file);
    hid_t d = H5Dopen2(file, "field", H5P_DEFAULT);
    TRY(d);
    hid_t   fs = H5Dget_space(d);
    hsize_t dims[2];
    TRY(H5Sget_simple_extent_dims(fs, dims, NULL));
    /* Split the rows over however many ranks read. */
    hsize_t lo = dims[0] * (hsize_t)rank / (hsize_t)nranks, hi = dims[0] * (hsize_t)(rank + 1) / (hsize_t)nranks;
    hsize_t start[2] = {lo, 0}, count[2] = {hi - lo, dims[1]};
    float  *band = malloc(sizeof(float) * (count[0] * count[1] + 1));
    if (!band)
        MPI_Abort(MPI_COMM_WORLD, 2);
    hid_t ms = H5Screate_simple(2, count, NULL);
    TRY(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL));
    TRY(H5Dread(d, H5T_NATIVE_FLOAT, ms, fs, H5P_DEFAULT, band));
    long bad = 0, all_bad = 0;
    for (hsize_t i = 0; i < count[0]; i++)
        for (hsize_t j = 0; j < count[1]; j++)
            if (band[i * count[1] + j] != value(lo + i, j) && bad++ == 0)
                fprintf(stderr, "rank %d: field[%llu][%llu] is %g, expected %g\n", rank, (unsigned long long)(lo + i),
                        (unsigned long long)j, band[i * count[1] + j], value(lo + i, j));
    H5Sclose(ms);
    H5Sclose(fs);
    H5Dclose(d);
    TRY(H5Fclose(file));
    H5Pclose(fapl);
    free(band);
    MPI_Allreduce(&bad, &all_bad, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("read %s with %s on %d rank(s): %s\n", path, driver, nranks, all_bad ? "MISMATCH" : "OK");
    return all_bad ? 1 : 0;
}

int main(int argc, char **argv)
{
    int provided, rc = 2;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (argc == 4 && !strcmp(argv[1], "write"))
        rc = write_file(argv[2], argv[3]);
    else if (argc == 4 && !strcmp(argv[1], "read") && (!strcmp(argv[3], "h5sf") || !strcmp(argv[3], "mpio")))
        rc = read_file(argv[2], argv[3]);
    else if (rank == 0)
        fprintf(stderr, "usage: nodelocal write FILE.h5 SUBFILE_DIR\n"
                        "       nodelocal read FILE.h5 h5sf|mpio\n");
    MPI_Finalize();
    return rc;
}
