/*
 * h5sf_demo -- write a small subfiled HDF5 file through h5sf, read it back,
 * verify it and print a short report.
 *
 *   mpiexec -n 4 build/bin/h5sf_demo [dir]     (default dir: /tmp/h5sf-demo)
 *
 * The file <dir>/demo.h5 holds:
 *   /field     2-D float, each rank writes a band of rows   (+ attributes)
 *   /strided   1-D int, 4 KiB blocks dealt round-robin to the ranks
 *   /chunked   2-D int, chunked 64 x 64, no compression
 *   attributes on the root group: title, nranks
 * The driver is chosen by name with a config string (the plugin is found
 * through HDF5_PLUGIN_PATH; scripts/env.sh sets it).  Exit status 1 if the
 * data read back differs from what was written.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <mpi.h>
#include <hdf5.h>
#include "h5sf.h"

#define DEMO_CONFIG "stripe_size=256KiB,stripe_count=4"
#define FIELD_ROWS  256 /* per rank */
#define FIELD_COLS  512
#define BLOCK       1024 /* ints per 4 KiB block */
#define BLOCKS      64   /* per rank */
#define CHUNK_ROWS  100  /* per rank */
#define CHUNK_COLS  300

static int rank, nranks;
static int channel = -1; /* the channel h5sf took (H5FD_h5sf_get_layout) */

static float field_value(uint64_t i, uint64_t j) { return (float)i * 0.5f + (float)j * 0.25f; }
static int   strided_value(uint64_t g) { return (int)(g * 7 + 3); }
static int   chunked_value(uint64_t i, uint64_t j) { return (int)(i * 1000 + j); }

static void die(const char *what)
{
    fprintf(stderr, "[rank %d] h5sf_demo: %s failed\n", rank, what);
    MPI_Abort(MPI_COMM_WORLD, 1);
}
#define TRY(call)                                                                                                      \
    do {                                                                                                               \
        if ((call) < 0)                                                                                                \
            die(#call);                                                                                                \
    } while (0)

static hid_t demo_fapl(void)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    TRY(fapl);
    TRY(H5Pset_mpi_params(fapl, MPI_COMM_WORLD, MPI_INFO_NULL));
    herr_t r;
    H5E_BEGIN_TRY { r = H5Pset_driver_by_name(fapl, H5FD_H5SF_NAME, DEMO_CONFIG); }
    H5E_END_TRY
    if (r < 0) {
        /* Plugin not on HDF5_PLUGIN_PATH: use the linked-in API instead. */
        if (rank == 0)
            fprintf(stderr, "note: the h5sf plugin was not found on HDF5_PLUGIN_PATH "
                            "(source scripts/env.sh); using H5Pset_fapl_h5sf\n");
        H5FD_h5sf_config_t c;
        TRY(H5FD_h5sf_config_init(&c));
        c.stripe_size  = 256 * 1024;
        c.stripe_count = 4;
        TRY(H5Pset_fapl_h5sf(fapl, &c));
    }
    return fapl;
}

static void write_string_attr(hid_t obj, const char *name, const char *text)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    TRY(H5Tset_size(t, strlen(text) + 1));
    hid_t s = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(obj, name, t, s, H5P_DEFAULT, H5P_DEFAULT);
    TRY(a);
    TRY(H5Awrite(a, t, text));
    H5Aclose(a);
    H5Sclose(s);
    H5Tclose(t);
}

static void write_file(const char *path)
{
    const hsize_t R = (hsize_t)rank, N = (hsize_t)nranks;
    hid_t         fapl = demo_fapl();
    hid_t         f    = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    TRY(f);
    H5FD_h5sf_layout_t lay;
    if (H5FD_h5sf_get_layout(f, &lay) >= 0)
        channel = lay.channel;
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    TRY(H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE));

    write_string_attr(f, "title", "h5sf demo: a subfiled HDF5 file");
    {
        hid_t s = H5Screate(H5S_SCALAR);
        hid_t a = H5Acreate2(f, "nranks", H5T_STD_I32LE, s, H5P_DEFAULT, H5P_DEFAULT);
        TRY(a);
        TRY(H5Awrite(a, H5T_NATIVE_INT, &nranks));
        H5Aclose(a);
        H5Sclose(s);
    }

    /* /field: a band of rows per rank */
    {
        hsize_t dims[2] = {N * FIELD_ROWS, FIELD_COLS}, start[2] = {R * FIELD_ROWS, 0},
                count[2] = {FIELD_ROWS, FIELD_COLS};
        hid_t  fs = H5Screate_simple(2, dims, NULL), ms = H5Screate_simple(2, count, NULL);
        hid_t  d = H5Dcreate2(f, "field", H5T_IEEE_F32LE, fs, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        float *b = malloc(sizeof *b * FIELD_ROWS * FIELD_COLS);
        TRY(d);
        if (!b)
            die("malloc");
        for (hsize_t i = 0; i < FIELD_ROWS; i++)
            for (hsize_t j = 0; j < FIELD_COLS; j++)
                b[i * FIELD_COLS + j] = field_value(start[0] + i, j);
        TRY(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL));
        TRY(H5Dwrite(d, H5T_NATIVE_FLOAT, ms, fs, dxpl, b));
        write_string_attr(d, "units", "kelvin");
        double t = 12.5;
        hid_t  s = H5Screate(H5S_SCALAR);
        hid_t  a = H5Acreate2(d, "time", H5T_IEEE_F64LE, s, H5P_DEFAULT, H5P_DEFAULT);
        TRY(a);
        TRY(H5Awrite(a, H5T_NATIVE_DOUBLE, &t));
        H5Aclose(a);
        H5Sclose(s);
        free(b);
        H5Dclose(d);
        H5Sclose(ms);
        H5Sclose(fs);
    }
    /* /strided: 4 KiB blocks dealt round-robin */
    {
        hsize_t dims = N * BLOCK * BLOCKS, start = R * BLOCK, stride = N * BLOCK, count = BLOCKS, block = BLOCK;
        hsize_t n  = BLOCK * BLOCKS;
        hid_t   fs = H5Screate_simple(1, &dims, NULL), ms = H5Screate_simple(1, &n, NULL);
        hid_t   d = H5Dcreate2(f, "strided", H5T_STD_I32LE, fs, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        int    *b = malloc(sizeof *b * n);
        TRY(d);
        if (!b)
            die("malloc");
        for (hsize_t k = 0; k < n; k++)
            b[k] = strided_value((k / BLOCK) * stride + start + k % BLOCK);
        TRY(H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, &stride, &count, &block));
        TRY(H5Dwrite(d, H5T_NATIVE_INT, ms, fs, dxpl, b));
        free(b);
        H5Dclose(d);
        H5Sclose(ms);
        H5Sclose(fs);
    }
    /* /chunked: 64 x 64 chunks, no filters */
    {
        hsize_t dims[2] = {N * CHUNK_ROWS, CHUNK_COLS}, start[2] = {R * CHUNK_ROWS, 0},
                count[2] = {CHUNK_ROWS, CHUNK_COLS}, chunk[2] = {64, 64};
        hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
        TRY(H5Pset_chunk(dcpl, 2, chunk));
        hid_t fs = H5Screate_simple(2, dims, NULL), ms = H5Screate_simple(2, count, NULL);
        hid_t d = H5Dcreate2(f, "chunked", H5T_STD_I32LE, fs, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        int  *b = malloc(sizeof *b * CHUNK_ROWS * CHUNK_COLS);
        TRY(d);
        if (!b)
            die("malloc");
        for (hsize_t i = 0; i < CHUNK_ROWS; i++)
            for (hsize_t j = 0; j < CHUNK_COLS; j++)
                b[i * CHUNK_COLS + j] = chunked_value(start[0] + i, j);
        TRY(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL));
        TRY(H5Dwrite(d, H5T_NATIVE_INT, ms, fs, dxpl, b));
        free(b);
        H5Dclose(d);
        H5Sclose(ms);
        H5Sclose(fs);
        H5Pclose(dcpl);
    }
    H5Pclose(dxpl);
    TRY(H5Fclose(f));
    H5Pclose(fapl);
}

/* Every rank reads every dataset whole; returns the number of bad values. */
static long verify_file(const char *path, long *values)
{
    const hsize_t N    = (hsize_t)nranks;
    long          bad  = 0;
    hid_t         fapl = demo_fapl();
    hid_t         f    = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    TRY(f);

    {
        hsize_t n = N * FIELD_ROWS * FIELD_COLS;
        float  *b = malloc(sizeof *b * n);
        hid_t   d = H5Dopen2(f, "field", H5P_DEFAULT);
        if (!b)
            die("malloc");
        TRY(d);
        TRY(H5Dread(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, b));
        for (hsize_t k = 0; k < n; k++)
            if (b[k] != field_value(k / FIELD_COLS, k % FIELD_COLS) && bad++ < 5)
                fprintf(stderr, "[rank %d] /field[%llu][%llu] = %g, expected %g\n", rank,
                        (unsigned long long)(k / FIELD_COLS), (unsigned long long)(k % FIELD_COLS), b[k],
                        field_value(k / FIELD_COLS, k % FIELD_COLS));
        double t = 0;
        hid_t  a = H5Aopen(d, "time", H5P_DEFAULT);
        TRY(a);
        TRY(H5Aread(a, H5T_NATIVE_DOUBLE, &t));
        if (t != 12.5 && bad++ < 5)
            fprintf(stderr, "[rank %d] /field@time = %g, expected 12.5\n", rank, t);
        H5Aclose(a);
        *values += (long)n;
        free(b);
        H5Dclose(d);
    }
    {
        hsize_t n = N * BLOCK * BLOCKS;
        int    *b = malloc(sizeof *b * n);
        hid_t   d = H5Dopen2(f, "strided", H5P_DEFAULT);
        if (!b)
            die("malloc");
        TRY(d);
        TRY(H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, b));
        for (hsize_t k = 0; k < n; k++)
            if (b[k] != strided_value(k) && bad++ < 5)
                fprintf(stderr, "[rank %d] /strided[%llu] = %d, expected %d\n", rank, (unsigned long long)k, b[k],
                        strided_value(k));
        *values += (long)n;
        free(b);
        H5Dclose(d);
    }
    {
        hsize_t n = N * CHUNK_ROWS * CHUNK_COLS;
        int    *b = malloc(sizeof *b * n);
        hid_t   d = H5Dopen2(f, "chunked", H5P_DEFAULT);
        if (!b)
            die("malloc");
        TRY(d);
        TRY(H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, b));
        for (hsize_t k = 0; k < n; k++)
            if (b[k] != chunked_value(k / CHUNK_COLS, k % CHUNK_COLS) && bad++ < 5)
                fprintf(stderr, "[rank %d] /chunked[%llu][%llu] = %d, expected %d\n", rank,
                        (unsigned long long)(k / CHUNK_COLS), (unsigned long long)(k % CHUNK_COLS), b[k],
                        chunked_value(k / CHUNK_COLS, k % CHUNK_COLS));
        *values += (long)n;
        free(b);
        H5Dclose(d);
    }
    {
        int   nr = 0;
        hid_t a  = H5Aopen(f, "nranks", H5P_DEFAULT);
        TRY(a);
        TRY(H5Aread(a, H5T_NATIVE_INT, &nr));
        if (nr != nranks && bad++ < 5)
            fprintf(stderr, "[rank %d] /@nranks = %d, expected %d\n", rank, nr, nranks);
        H5Aclose(a);
    }
    TRY(H5Fclose(f));
    H5Pclose(fapl);
    return bad;
}

int main(int argc, char **argv)
{
    int provided = 0; /* a user's program, shown as one: no test harness */
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);

    const char *dir = argc > 1 ? argv[1] : "/tmp/h5sf-demo";
    char        path[4096];
    if (rank == 0 && mkdir(dir, 0755) < 0 && errno != EEXIST) {
        fprintf(stderr, "h5sf_demo: cannot create %s: %s\n", dir, strerror(errno));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    snprintf(path, sizeof path, "%s/demo.h5", dir);
    MPI_Barrier(MPI_COMM_WORLD);

    double t0 = MPI_Wtime();
    write_file(path);
    MPI_Barrier(MPI_COMM_WORLD);
    double t1     = MPI_Wtime();
    long   values = 0;
    long   bad    = verify_file(path, &values);
    MPI_Barrier(MPI_COMM_WORLD);
    double t2 = MPI_Wtime();

    long all_bad = 0;
    MPI_Allreduce(&bad, &all_bad, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        const double mib = (double)nranks *
                           (FIELD_ROWS * FIELD_COLS * 4.0 + BLOCK * BLOCKS * 4.0 + CHUNK_ROWS * CHUNK_COLS * 4.0) /
                           1048576.0;
        printf("h5sf demo\n");
        printf("  file      %s (driver h5sf, %s)\n", path, DEMO_CONFIG);
        printf("  ranks     %d (MPI thread level %s; %s channel)\n", nranks,
               provided >= MPI_THREAD_MULTIPLE ? "MULTIPLE" : "below MULTIPLE",
               channel == H5FD_H5SF_CHANNEL_IOC      ? "IOC"
               : channel == H5FD_H5SF_CHANNEL_DIRECT ? "direct"
                                                     : "unknown");
        printf("  /field    %d x %d float, a band of %d rows per rank, attributes units, time\n", nranks * FIELD_ROWS,
               FIELD_COLS, FIELD_ROWS);
        printf("  /strided  %d int, 4 KiB blocks dealt round-robin over the ranks\n", nranks * BLOCK * BLOCKS);
        printf("  /chunked  %d x %d int, 64 x 64 chunks\n", nranks * CHUNK_ROWS, CHUNK_COLS);
        printf("  wrote     %.1f MiB collectively in %.3f s\n", mib, t1 - t0);
        printf("  read      every dataset whole on every rank in %.3f s (%ld values per rank)\n", t2 - t1, values);
        printf("  verify    %s\n", all_bad ? "FAILED (see messages above)" : "all values match");
    }
    H5close();
    MPI_Finalize();
    return all_bad ? 1 : 0;
}
