/*
 * write_read_fapl.c -- write and read a file with h5sf, configured in code.
 *
 *   mpicc write_read_fapl.c $(pkg-config --cflags --libs h5sf) -o write_read_fapl
 *   mpiexec -n 4 ./write_read_fapl [file.h5]          (default: fapl.h5)
 *
 * Links libh5sf and fills an H5FD_h5sf_config_t: 64 KiB stripes over 4
 * subfiles, I/O concentrators chosen the default way (one per node).  Every
 * rank writes its slab of a 1-D dataset collectively; the file is reopened
 * read-only and every rank reads its neighbour's slab and checks it.
 * Exit status 1 if a value differs.
 */
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>
#include <hdf5.h>
#include "h5sf.h"

#define N_PER_RANK (100 * 1000) /* 800 kB of long long per rank: many stripes */

static int rank, nranks;

/* Stop all ranks on an HDF5 failure (HDF5 has already printed its stack). */
#define TRY(call)                                                                                                      \
    do {                                                                                                               \
        if ((call) < 0) {                                                                                              \
            fprintf(stderr, "rank %d: %s failed (line %d)\n", rank, #call, __LINE__);                                  \
            MPI_Abort(MPI_COMM_WORLD, 2);                                                                              \
        }                                                                                                              \
    } while (0)

static long long value(long long i) { return i * 3 + 1; }

/* File access: MPI parameters, then h5sf with a config structure. */
static hid_t make_fapl(void)
{
    hid_t              fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5FD_h5sf_config_t cfg;
    TRY(fapl);
    TRY(H5Pset_mpi_params(fapl, MPI_COMM_WORLD, MPI_INFO_NULL));
    TRY(H5FD_h5sf_config_init(&cfg)); /* every field "default" */
    cfg.stripe_size  = 64 * 1024;
    cfg.stripe_count = 4;
    cfg.ioc_mode     = H5FD_H5SF_IOC_PER_NODE; /* the default, spelled out */
    TRY(H5Pset_fapl_h5sf(fapl, &cfg));
    return fapl;
}

/* The slab [r * N_PER_RANK, (r + 1) * N_PER_RANK) of dataset d. */
static hid_t slab(hid_t d, int r)
{
    hid_t   space = H5Dget_space(d);
    hsize_t start = (hsize_t)r * N_PER_RANK, count = N_PER_RANK;
    TRY(space);
    TRY(H5Sselect_hyperslab(space, H5S_SELECT_SET, &start, NULL, &count, NULL));
    return space;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided); /* IOC channel needs it */
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    const char *path = argc > 1 ? argv[1] : "fapl.h5";

    long long *buf = malloc(N_PER_RANK * sizeof *buf);
    if (!buf)
        MPI_Abort(MPI_COMM_WORLD, 2);
    hid_t fapl = make_fapl();
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    TRY(H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE));
    hsize_t n = (hsize_t)N_PER_RANK * nranks, mn = N_PER_RANK;
    hid_t   mem = H5Screate_simple(1, &mn, NULL);

    /* Write: every rank its own slab, collectively. */
    hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    TRY(file);
    hid_t fs = H5Screate_simple(1, &n, NULL);
    hid_t d  = H5Dcreate2(file, "values", H5T_NATIVE_LLONG, fs, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    TRY(d);
    for (long long i = 0; i < N_PER_RANK; i++)
        buf[i] = value((long long)rank * N_PER_RANK + i);
    hid_t sel = slab(d, rank);
    TRY(H5Dwrite(d, H5T_NATIVE_LLONG, mem, sel, dxpl, buf));
    H5Sclose(sel);

    H5FD_h5sf_layout_t lay;
    TRY(H5FD_h5sf_get_layout(file, &lay));
    if (rank == 0)
        printf("%s: stripe_size %lld, %d subfiles, %d I/O concentrators, %s channel\n", path,
               (long long)lay.stripe_size, lay.stripe_count, lay.ioc_count,
               lay.channel == H5FD_H5SF_CHANNEL_IOC ? "IOC" : "direct");
    H5Dclose(d);
    H5Sclose(fs);
    TRY(H5Fclose(file));

    /* Read back: the neighbour's slab, so data crosses ranks. */
    int  from = (rank + 1) % nranks;
    long bad = 0, all_bad = 0;
    file = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    TRY(file);
    d = H5Dopen2(file, "values", H5P_DEFAULT);
    TRY(d);
    sel = slab(d, from);
    TRY(H5Dread(d, H5T_NATIVE_LLONG, mem, sel, dxpl, buf));
    for (long long i = 0; i < N_PER_RANK; i++)
        if (buf[i] != value((long long)from * N_PER_RANK + i) && bad++ == 0)
            fprintf(stderr, "rank %d: element %lld is %lld, expected %lld\n", rank, (long long)from * N_PER_RANK + i,
                    buf[i], value((long long)from * N_PER_RANK + i));
    H5Sclose(sel);
    H5Dclose(d);
    TRY(H5Fclose(file));

    MPI_Allreduce(&bad, &all_bad, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%s: %s (%d ranks, %llu values)\n", path, all_bad ? "MISMATCH" : "read back OK", nranks,
               (unsigned long long)n);
    H5Sclose(mem);
    H5Pclose(dxpl);
    H5Pclose(fapl);
    free(buf);
    MPI_Finalize();
    return all_bad ? 1 : 0;
}
