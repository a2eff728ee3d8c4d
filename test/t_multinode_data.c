/*
 * t_multinode_data.c -- what t_multinode writes and how it checks it: three
 * datasets (an int64 slab per rank, interleaved blocks of doubles, a
 * chunked 2-D grid) whose values are a pure function of the global index,
 * written with the same calls for every driver, read back one share per
 * rank by another rank than the writer.  Knows nothing of hosts or drivers.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "t_multinode.h"

/* ---- data ---------------------------------------------------------------- */

#define C_N   8011 /* "contig": int64 slab per rank                        */
#define S_BLK 300  /* "strided": blocks of doubles interleaved over ranks  */
#define S_NB  9
#define G_ROW 9 /* "grid": 2-D int, chunked, rows per rank              */
#define G_COL 1001

/* The three datasets' values: the harness pattern, one seed each. */
#define cval(g) ((int64_t)t_mix(11, g))
#define sval(g) ((double)t_pat_int(12, g) * 0.5)
#define gval(g) t_pat_int(13, g)

/* Same calls for every driver: the reference differs only in the fapl. */
void write_data(hid_t file, int iter)
{
    const hsize_t R = (hsize_t)t_rank, NP = (hsize_t)t_size;
    hid_t         coll = H5VRFY(H5Pcreate(H5P_DATASET_XFER)), ind = H5VRFY(H5Pcreate(H5P_DATASET_XFER));
    H5VRFY(H5Pset_dxpl_mpio(coll, H5FD_MPIO_COLLECTIVE));
    H5VRFY(H5Pset_dxpl_mpio(ind, H5FD_MPIO_INDEPENDENT));
    { /* contig, collective; iter > 0 (crash phase) rewrites it */
        hsize_t  dims = NP * C_N, start = R * C_N, count = C_N;
        hid_t    fs = H5VRFY(H5Screate_simple(1, &dims, NULL)), ms = H5VRFY(H5Screate_simple(1, &count, NULL));
        hid_t    d = iter ? H5VRFY(H5Dopen2(file, "contig", H5P_DEFAULT))
                          : H5VRFY(H5Dcreate2(file, "contig", H5T_STD_I64LE, fs, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
        int64_t *b = malloc(sizeof *b * C_N);
        if (!b)
            VRFY(0, "malloc failed");
        for (hsize_t i = 0; i < C_N; i++)
            b[i] = cval(start + i) + iter;
        H5VRFY(H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &count, NULL));
        if (H5Dwrite(d, H5T_NATIVE_INT64, ms, fs, coll, b) < 0)
            CHECK(0, "write contig");
        if (!iter) {
            hsize_t two   = 2;
            int     av[2] = {t_size, 4242};
            hid_t   as    = H5VRFY(H5Screate_simple(1, &two, NULL));
            hid_t   a     = H5VRFY(H5Acreate2(d, "attr", H5T_STD_I32LE, as, H5P_DEFAULT, H5P_DEFAULT));
            if (H5Awrite(a, H5T_NATIVE_INT, av) < 0)
                CHECK(0, "write attr");
            H5Aclose(a);
            H5Sclose(as);
        }
        free(b);
        H5Dclose(d);
        H5Sclose(ms);
        H5Sclose(fs);
    }
    if (iter)
        goto done;
    { /* strided: blocks interleaved across ranks (and so across hosts), independent */
        hsize_t dims = NP * S_BLK * S_NB, start = R * S_BLK, stride = NP * S_BLK, count = S_NB, block = S_BLK;
        hsize_t n  = S_BLK * S_NB;
        hid_t   fs = H5VRFY(H5Screate_simple(1, &dims, NULL)), ms = H5VRFY(H5Screate_simple(1, &n, NULL));
        hid_t   d = H5VRFY(H5Dcreate2(file, "strided", H5T_IEEE_F64LE, fs, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
        double *b = malloc(sizeof *b * n);
        if (!b)
            VRFY(0, "malloc failed");
        for (hsize_t k = 0; k < n; k++)
            b[k] = sval((k / S_BLK) * stride + start + k % S_BLK);
        H5VRFY(H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, &stride, &count, &block));
        if (H5Dwrite(d, H5T_NATIVE_DOUBLE, ms, fs, ind, b) < 0)
            CHECK(0, "write strided");
        free(b);
        H5Dclose(d);
        H5Sclose(ms);
        H5Sclose(fs);
    }
    { /* grid: 2-D chunked, chunks straddle ranks, collective */
        hsize_t dims[2] = {NP * G_ROW, G_COL}, start[2] = {R * G_ROW, 0}, count[2] = {G_ROW, G_COL};
        hsize_t chunk[2] = {4, 250};
        hid_t   dcpl     = H5VRFY(H5Pcreate(H5P_DATASET_CREATE));
        H5VRFY(H5Pset_chunk(dcpl, 2, chunk));
        hid_t fs = H5VRFY(H5Screate_simple(2, dims, NULL)), ms = H5VRFY(H5Screate_simple(2, count, NULL));
        hid_t d = H5VRFY(H5Dcreate2(file, "grid", H5T_STD_I32LE, fs, H5P_DEFAULT, dcpl, H5P_DEFAULT));
        int  *b = malloc(sizeof *b * G_ROW * G_COL);
        if (!b)
            VRFY(0, "malloc failed");
        for (hsize_t k = 0; k < G_ROW * G_COL; k++)
            b[k] = gval(start[0] * G_COL + k);
        H5VRFY(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL));
        if (H5Dwrite(d, H5T_NATIVE_INT, ms, fs, coll, b) < 0)
            CHECK(0, "write grid");
        free(b);
        H5Dclose(d);
        H5Sclose(ms);
        H5Sclose(fs);
        H5Pclose(dcpl);
    }
done:
    H5Pclose(coll);
    H5Pclose(ind);
}

/* Read share (r + 1) mod size of dataset ds (a block of its first
 * dimension): every element is read once, by another rank than the one that
 * wrote it.  Sets *first, the global index of the block's first element, and
 * *n; NULL (and a failure) if the read fails. */
static void *read_share(hid_t file, const char *ds, hid_t mtype, size_t esize, uint64_t *first, uint64_t *n,
                        const char *ctx)
{
    hsize_t dims[2] = {0, 1}, start[2] = {0, 0}, count[2];
    void   *b = NULL;
    hid_t   d = H5Dopen2(file, ds, H5P_DEFAULT), fs = -1, ms = -1;
    int     nd = 0, share = (t_rank + 1) % t_size;
    if (d < 0 || (fs = H5Dget_space(d)) < 0 || (nd = H5Sget_simple_extent_dims(fs, dims, NULL)) < 1 || nd > 2) {
        CHECK(0, "%s: cannot open dataset %s", ctx, ds);
        goto done;
    }
    start[0] = dims[0] * (hsize_t)share / (hsize_t)t_size;
    count[0] = dims[0] * (hsize_t)(share + 1) / (hsize_t)t_size - start[0];
    count[1] = dims[1];
    *first   = start[0] * dims[1];
    *n       = count[0] * count[1];
    if (!(b = calloc(*n ? *n : 1, esize)))
        VRFY(0, "calloc failed");
    hsize_t mn = *n;
    ms         = H5VRFY(H5Screate_simple(1, &mn, NULL));
    H5VRFY(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL));
    if (H5Dread(d, mtype, ms, fs, H5P_DEFAULT, b) < 0) {
        CHECK(0, "%s: cannot read dataset %s", ctx, ds);
        free(b);
        b = NULL;
    }
done:
    if (ms >= 0)
        H5Sclose(ms);
    if (fs >= 0)
        H5Sclose(fs);
    if (d >= 0)
        H5Dclose(d);
    return b;
}

/* Every rank reads its share of every dataset from file and from the MPI-IO
 * reference and compares both with the pattern. */
void check(hid_t file, hid_t ref, const char *ctx)
{
    long     bad = 0;
    uint64_t f1 = 0, n1 = 0, f2 = 0, n2 = 0;
#define CMP(type, mtype, ds, want, fmt)                                                                                \
    {                                                                                                                  \
        type *x = read_share(file, ds, mtype, sizeof(type), &f1, &n1, ctx);                                            \
        type *y = read_share(ref, ds, mtype, sizeof(type), &f2, &n2, "MPI-IO reference");                              \
        if (x && y && (f1 != f2 || n1 != n2))                                                                          \
            CHECK(0, "%s: dataset %s has another shape than in the MPI-IO reference", ctx, ds);                        \
        else if (x && y)                                                                                               \
            for (uint64_t k = 0, i = f1; k < n1; k++, i++)                                                             \
                if (x[k] != (want) || y[k] != (want)) {                                                                \
                    if (++bad <= MAXREP)                                                                               \
                        CHECK(0, "%s: %s[%" PRIu64 "] = " fmt ", MPI-IO reference " fmt ", pattern " fmt, ctx, ds, i,  \
                              x[k], y[k], (want));                                                                     \
                }                                                                                                      \
        free(x);                                                                                                       \
        free(y);                                                                                                       \
    }
    CMP(int64_t, H5T_NATIVE_INT64, "contig", cval(i), "%" PRId64)
    CMP(double, H5T_NATIVE_DOUBLE, "strided", sval(i), "%g")
    CMP(int, H5T_NATIVE_INT, "grid", gval(i), "%d")
#undef CMP
    if (bad > MAXREP)
        CHECK(0, "%s: %ld mismatching elements in all", ctx, bad);
    int   av[2] = {0, 0};
    hid_t d     = H5Dopen2(file, "contig", H5P_DEFAULT);
    hid_t a     = d < 0 ? -1 : H5Aopen(d, "attr", H5P_DEFAULT);
    if (a < 0 || H5Aread(a, H5T_NATIVE_INT, av) < 0 || av[0] != t_size || av[1] != 4242)
        CHECK(0, "%s: attribute contig/attr reads {%d, %d}, expected {%d, 4242}", ctx, av[0], av[1], t_size);
    if (a >= 0)
        H5Aclose(a);
    if (d >= 0)
        H5Dclose(d);
}
