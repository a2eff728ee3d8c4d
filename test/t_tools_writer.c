/*
 * t_tools_writer -- write the same HDF5 content twice: through h5sf (the
 * file the tools work on) and through HDF5's MPI-IO driver (the independent
 * reference the tools' results are compared with).
 *
 *   mpiexec -n N t_tools_writer DIR NAME "h5sf config string" [--mib M] [--bad] [--no-ref]
 *
 * CONFIG "builtin:S:N" writes DIR/NAME.h5 with HDF5's built-in subfiling
 * driver instead (stripe size S, N subfiles), for the tools' interop tests.
 * (1.14.5's built-in fails some writes of exactly one aligned stripe, e.g.
 * with S = 4096: use another S.)
 * Writes DIR/NAME.h5 (h5sf) and DIR/NAME.mpio.h5 (MPI-IO; not with --no-ref,
 * which scripts/fuse-bench.sh uses for large files); with --bad also
 * DIR/NAME.bad.h5 (MPI-IO, one value changed: a negative control for the
 * comparisons).  Content:
 *   /field         2-D float, a band of rows per rank, collective   (~M MiB)
 *   /grp/strided   1-D int, 4 KiB blocks dealt round-robin, independent
 *   /grp/chunked   2-D int, 64 x 64 chunks, interleaved rows, collective
 *   /sparse        1-D int64, allocated early, never filled, two small
 *                  written ranges: holes in the middle of the file
 *   /empty         chunked, never written (no storage)
 *   attributes on / and on /field
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include <hdf5.h>
#if H5SF_HAVE_SUBFILING_VFD /* HDF5's own subfiling driver is built in */
#include <H5FDsubfiling.h>
#endif
#include "h5sf_test.h"

#define COLS     256
#define BLOCK    1024 /* ints per strided block */
#define BLOCKS   16   /* strided blocks per rank */
#define CH_ROWS  300
#define CH_COLS  200
#define SPARSE_N (1 << 16)

/* The datasets' contents: the harness pattern, one seed each. */
#define field_value(i, j)   ((float)t_pat_int(1, (i)*COLS + (j)) * 0.001f)
#define strided_value(g)    t_pat_int(2, g)
#define chunked_value(i, j) t_pat_int(3, (i)*CH_COLS + (j))
#define sparse_value(k)     ((int64_t)t_mix(4, k))

static void write_file(const char *path, const char *config, hsize_t rows, int bad)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5VRFY(H5Pset_mpi_params(fapl, MPI_COMM_WORLD, MPI_INFO_NULL));
    if (config && strncmp(config, "builtin:", 8) == 0) {
#if !H5SF_HAVE_SUBFILING_VFD
        VRFY(0, "this HDF5 is built without its subfiling driver");
#else
        H5FD_subfiling_config_t cfg;
        H5VRFY(H5Pget_fapl_subfiling(fapl, &cfg));
        cfg.shared_cfg.stripe_size  = strtoll(config + 8, NULL, 10);
        cfg.shared_cfg.stripe_count = atoi(strchr(config + 8, ':') ? strchr(config + 8, ':') + 1 : "1");
        H5VRFY(H5Pset_fapl_subfiling(fapl, &cfg));
        H5Pclose(cfg.ioc_fapl_id);
#endif
    }
    else if (config)
        H5VRFY(H5Pset_driver_by_name(fapl, "h5sf", config));
    else
        H5VRFY(H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL));
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    H5VRFY(f);
    hid_t coll = H5Pcreate(H5P_DATASET_XFER);
    H5VRFY(H5Pset_dxpl_mpio(coll, H5FD_MPIO_COLLECTIVE));
    const hsize_t R = (hsize_t)t_rank, N = (hsize_t)t_size;

    /* attributes */
    {
        hid_t s = H5Screate(H5S_SCALAR), t = H5Tcopy(H5T_C_S1);
        H5VRFY(H5Tset_size(t, 24));
        hid_t a = H5Acreate2(f, "title", t, s, H5P_DEFAULT, H5P_DEFAULT);
        H5VRFY(H5Awrite(a, t, "h5sf tools test file...."));
        H5Aclose(a);
        a = H5Acreate2(f, "nranks", H5T_STD_I32LE, s, H5P_DEFAULT, H5P_DEFAULT);
        H5VRFY(H5Awrite(a, H5T_NATIVE_INT, &t_size));
        H5Aclose(a);
        H5Tclose(t);
        H5Sclose(s);
    }
    /* /field */
    {
        hsize_t dims[2] = {N * rows, COLS}, start[2] = {R * rows, 0}, count[2] = {rows, COLS};
        hid_t   fs = H5Screate_simple(2, dims, NULL), ms = H5Screate_simple(2, count, NULL);
        hid_t   d = H5Dcreate2(f, "field", H5T_IEEE_F32LE, fs, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        float  *b = malloc(sizeof *b * rows * COLS);
        H5VRFY(d);
        VRFY(b, "out of memory");
        for (hsize_t i = 0; i < rows; i++)
            for (hsize_t j = 0; j < COLS; j++)
                b[i * COLS + j] = field_value(R * rows + i, j);
        if (bad && t_rank == 0)
            b[0] += 1.0f;
        H5VRFY(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL));
        H5VRFY(H5Dwrite(d, H5T_NATIVE_FLOAT, ms, fs, coll, b));
        hid_t  s = H5Screate(H5S_SCALAR);
        hid_t  a = H5Acreate2(d, "scale", H5T_IEEE_F64LE, s, H5P_DEFAULT, H5P_DEFAULT);
        double v = 0.5;
        H5VRFY(H5Awrite(a, H5T_NATIVE_DOUBLE, &v));
        H5Aclose(a);
        H5Sclose(s);
        free(b);
        H5Dclose(d);
        H5Sclose(ms);
        H5Sclose(fs);
    }
    hid_t g = H5Gcreate2(f, "grp", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5VRFY(g);
    /* /grp/strided: block k of rank r at global block k*N + r (independent I/O) */
    {
        hsize_t dims = N * BLOCKS * BLOCK, start = R * BLOCK, stride = N * BLOCK, count = BLOCKS, block = BLOCK;
        hid_t   fs = H5Screate_simple(1, &dims, NULL);
        hsize_t mn = BLOCKS * BLOCK;
        hid_t   ms = H5Screate_simple(1, &mn, NULL);
        hid_t   d  = H5Dcreate2(g, "strided", H5T_STD_I32LE, fs, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        int    *b  = malloc(sizeof *b * BLOCKS * BLOCK);
        H5VRFY(d);
        for (hsize_t k = 0; k < BLOCKS; k++)
            for (hsize_t i = 0; i < BLOCK; i++)
                b[k * BLOCK + i] = strided_value((k * N + R) * BLOCK + i);
        H5VRFY(H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, &stride, &count, &block));
        H5VRFY(H5Dwrite(d, H5T_NATIVE_INT, ms, fs, H5P_DEFAULT, b));
        free(b);
        H5Dclose(d);
        H5Sclose(ms);
        H5Sclose(fs);
    }
    /* /grp/chunked: rank r writes rows r, r+N, ... */
    {
        hsize_t dims[2] = {CH_ROWS, CH_COLS}, chunk[2] = {64, 64};
        hid_t   fs = H5Screate_simple(2, dims, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
        H5VRFY(H5Pset_chunk(dcpl, 2, chunk));
        hid_t d = H5Dcreate2(g, "chunked", H5T_STD_I32LE, fs, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        H5VRFY(d);
        hsize_t mine     = (CH_ROWS - R + N - 1) / N;
        hsize_t start[2] = {R, 0}, stride[2] = {N, 1}, count[2] = {mine, 1}, block[2] = {1, CH_COLS};
        hsize_t mdims[2] = {mine, CH_COLS};
        hid_t   ms       = H5Screate_simple(2, mdims, NULL);
        int    *b        = malloc(sizeof *b * (mine ? mine : 1) * CH_COLS);
        for (hsize_t i = 0; i < mine; i++)
            for (hsize_t j = 0; j < CH_COLS; j++)
                b[i * CH_COLS + j] = chunked_value(R + i * N, j);
        if (mine)
            H5VRFY(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, stride, count, block));
        else {
            H5Sselect_none(fs);
            H5Sselect_none(ms);
        }
        H5VRFY(H5Dwrite(d, H5T_NATIVE_INT, ms, fs, coll, b));
        free(b);
        H5Dclose(d);
        H5Sclose(ms);
        H5Sclose(fs);
        H5Pclose(dcpl);
    }
    H5Gclose(g);
    /* /sparse: allocated, never filled; rank 0 writes two small ranges */
    {
        hsize_t dims = SPARSE_N;
        hid_t   fs = H5Screate_simple(1, &dims, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
        H5VRFY(H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY));
        H5VRFY(H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER));
        hid_t d = H5Dcreate2(f, "sparse", H5T_STD_I64LE, fs, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        H5VRFY(d);
        if (t_rank == 0) {
            hsize_t ranges[2][2] = {{1000, 500}, {SPARSE_N - 300, 300}};
            for (int r = 0; r < 2; r++) {
                hsize_t  n = ranges[r][1];
                int64_t *b = malloc(sizeof *b * n);
                for (hsize_t k = 0; k < n; k++)
                    b[k] = sparse_value(ranges[r][0] + k);
                hid_t ms = H5Screate_simple(1, &n, NULL);
                H5VRFY(H5Sselect_hyperslab(fs, H5S_SELECT_SET, &ranges[r][0], NULL, &n, NULL));
                H5VRFY(H5Dwrite(d, H5T_NATIVE_INT64, ms, fs, H5P_DEFAULT, b));
                H5Sclose(ms);
                free(b);
            }
        }
        H5Dclose(d);
        H5Sclose(fs);
        H5Pclose(dcpl);
    }
    /* /empty: chunked, no storage allocated */
    {
        hsize_t dims = 1000, chunk = 100;
        hid_t   fs = H5Screate_simple(1, &dims, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
        H5VRFY(H5Pset_chunk(dcpl, 1, &chunk));
        hid_t d = H5Dcreate2(f, "empty", H5T_STD_U8LE, fs, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        H5VRFY(d);
        H5Dclose(d);
        H5Sclose(fs);
        H5Pclose(dcpl);
    }
    H5Pclose(coll);
    H5VRFY(H5Fclose(f));
    H5Pclose(fapl);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv, "t_tools_writer");
    if (argc < 4) {
        if (t_rank == 0)
            fprintf(stderr, "usage: t_tools_writer DIR NAME CONFIG [--mib M] [--bad] [--no-ref]\n");
        MPI_Finalize();
        return 2;
    }
    double mib = 1.0;
    int    bad = 0, ref = 1;
    for (int i = 4; i < argc; i++) {
        if (!strcmp(argv[i], "--mib") && i + 1 < argc)
            mib = atof(argv[++i]);
        else if (!strcmp(argv[i], "--bad"))
            bad = 1;
        else if (!strcmp(argv[i], "--no-ref"))
            ref = 0;
        else {
            if (t_rank == 0)
                fprintf(stderr, "t_tools_writer: unknown argument %s\n", argv[i]);
            MPI_Finalize();
            return 2;
        }
    }
    hsize_t rows = (hsize_t)(mib * 1048576.0 / (4.0 * COLS * t_size));
    if (rows < 1)
        rows = 1;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.h5", argv[1], argv[2]);
    write_file(path, argv[3], rows, 0);
    if (ref) {
        snprintf(path, sizeof path, "%s/%s.mpio.h5", argv[1], argv[2]);
        write_file(path, NULL, rows, 0);
    }
    if (bad) {
        snprintf(path, sizeof path, "%s/%s.bad.h5", argv[1], argv[2]);
        write_file(path, NULL, rows, 1);
    }
    MPI_Finalize();
    return 0;
}
