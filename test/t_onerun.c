/*
 * t_onerun.c -- single-block selections, the fast path of small transfers.
 *
 * h5sf turns a selection that is one run of the dataset's bytes (H5S_ALL,
 * or a hyperslab that fills its bounding box, whole in the inner
 * dimensions) into one extent
 * without HDF5's selection iterators; every other selection goes through
 * the iterators.  Each case below writes one block through h5sf and
 * applies the same write to a plain C array (the model), then reads the
 * block back into a poisoned buffer and the whole dataset at the end, and
 * compares both with the model.  The cases sit on both sides of the rule:
 * blocks that are one run (a plane, rows of a plane, part of a row, a 1-D
 * range, all of it, a union of two blocks that is one) and blocks that are
 * not (two partial planes, a partial column, a strided count, points even
 * where they fill a range, a union of blocks with a gap), in file and in
 * memory, on 1-D and 3-D datasets with 64-byte stripes so a run crosses
 * subfiles.  Every rank
 * works on its own datasets (independent transfers).
 *
 * usage: t_onerun DIR   (H5SF_CHANNEL chooses the channel)
 */
#include <hdf5.h>
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "h5sf_test.h"

#define D0 6
#define D1 5
#define D2 4
#define N1 100
#define MR 10 /* memory space: MR x MC ints */
#define MC 10

typedef struct {
    const char *name;
    int         rank3; /* 1: file block on the 3-D dataset, else 1-D */
    hsize_t     start[3], stride[3], count[3], block[3];
    int         points;                   /* file selection: these many points instead, start - i * stride */
    int         mem;                      /* memory: 0 a 1-D space, 1 a 2 x n/2 block of the
                         * 10 x 10 space, 2 a 1 x n block ending its row 3 */
    hsize_t     or_start[3], or_block[3]; /* a second block OR'ed in, if or_block[0] */
} case_t;

static const case_t cases[] = {
    {"plane", 1, {2, 0, 0}, {1, 1, 1}, {1, 1, 1}, {1, D1, D2}, 0, 0, {0}, {0}},
    {"two planes", 1, {1, 0, 0}, {1, 1, 1}, {1, 1, 1}, {2, D1, D2}, 0, 0, {0}, {0}},
    {"rows of a plane", 1, {3, 1, 0}, {1, 1, 1}, {1, 1, 1}, {1, 2, D2}, 0, 0, {0}, {0}},
    {"part of a row", 1, {4, 2, 1}, {1, 1, 1}, {1, 1, 1}, {1, 1, 3}, 0, 0, {0}, {0}},
    {"whole dataset", 1, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}, {D0, D1, D2}, 0, 0, {0}, {0}},
    {"two partial planes", 1, {0, 1, 0}, {1, 1, 1}, {1, 1, 1}, {2, 2, D2}, 0, 0, {0}, {0}},
    {"partial rows", 1, {5, 0, 0}, {1, 1, 1}, {1, 1, 1}, {1, D1, 3}, 0, 0, {0}, {0}},
    {"strided count", 1, {0, 0, 0}, {1, 1, 2}, {1, 1, 2}, {1, 1, 1}, 0, 0, {0}, {0}},
    {"blocks that touch, part of a row", 1, {2, 3, 1}, {1, 1, 1}, {1, 1, 3}, {1, 1, 1}, 0, 0, {0}, {0}},
    {"blocks that touch, rows", 1, {4, 1, 0}, {1, 2, 1}, {1, 2, 1}, {1, 2, D2}, 0, 0, {0}, {0}},
    {"blocks that touch, not whole rows", 1, {1, 0, 0}, {1, 1, 1}, {1, 2, 3}, {1, 1, 1}, 0, 0, {0}, {0}},
    {"1-D blocks that touch", 0, {5}, {1}, {20}, {1}, 0, 0, {0}, {0}},
    {"1-D range", 0, {33}, {1}, {1}, {17}, 0, 0, {0}, {0}},
    {"1-D blocks", 0, {50}, {10}, {3}, {4}, 0, 0, {0}, {0}},
    {"1-D points", 0, {90}, {7}, {1}, {1}, 6, 0, {0}, {0}},
    {"1-D points filling a range, last first", 0, {40}, {1}, {1}, {1}, 5, 0, {0}, {0}},
    {"two blocks making a plane", 1, {2, 0, 0}, {1, 1, 1}, {1, 1, 1}, {1, 2, D2}, 0, 0, {2, 2, 0}, {1, 3, D2}},
    {"two blocks making rows of a plane", 1, {1, 1, 0}, {1, 1, 1}, {1, 1, 1}, {1, 1, D2}, 0, 0, {1, 2, 0}, {1, 2, D2}},
    {"two blocks with a row between", 1, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}, {1, 1, D2}, 0, 0, {0, 2, 0}, {1, 1, D2}},
    {"1-D two blocks that touch", 0, {10}, {1}, {1}, {5}, 0, 0, {15}, {7}},
    {"1-D range, strided memory", 0, {70}, {1}, {1}, {12}, 0, 1, {0}, {0}},
    {"part of a row, strided memory", 1, {1, 4, 0}, {1, 1, 1}, {1, 1, 1}, {1, 1, 4}, 0, 1, {0}, {0}},
    {"rows of a plane, memory at an offset", 1, {0, 3, 0}, {1, 1, 1}, {1, 1, 1}, {1, 2, D2}, 0, 2, {0}, {0}},
    {"two partial planes, memory at an offset", 1, {3, 3, 0}, {1, 1, 1}, {1, 1, 1}, {2, 1, D2}, 0, 2, {0}, {0}},
};
#define NCASES (sizeof cases / sizeof cases[0])


/* The file selection of case c on space fs; its element count. */
static hssize_t select_file(const case_t *k, hid_t fs)
{
    if (k->points) {
        hsize_t coord[8];
        for (int i = 0; i < k->points; i++)
            coord[i] = k->start[0] - (hsize_t)i * k->stride[0];
        H5Sselect_elements(fs, H5S_SELECT_SET, (size_t)k->points, coord);
    }
    else {
        hsize_t one[3] = {1, 1, 1};
        H5Sselect_hyperslab(fs, H5S_SELECT_SET, k->start, k->stride, k->count, k->block);
        if (k->or_block[0])
            H5Sselect_hyperslab(fs, H5S_SELECT_OR, k->or_start, one, one, k->or_block);
    }
    return H5Sget_select_npoints(fs);
}

/* Memory: n ints at the start of a 1-D space; a 2 x n/2 block of a
 * 10 x 10 space (n even: not one run); or 1 x n ending row 3 of it (one
 * run that does not start at the buffer). */
static hid_t mem_space(const case_t *k, hssize_t n, hsize_t *at, int *ok)
{
    *ok = 1;
    if (k->mem == 0) {
        hsize_t d = (hsize_t)n;
        for (hsize_t i = 0; i < d; i++)
            at[i] = i;
        return H5Screate_simple(1, &d, NULL);
    }
    hsize_t d[2] = {MR, MC}, st[2] = {3, 2}, bl[2] = {2, (hsize_t)n / 2}, one[2] = {1, 1};
    hid_t   ms = H5Screate_simple(2, d, NULL);
    if (k->mem == 2) {
        bl[0] = 1, bl[1] = (hsize_t)n, st[1] = MC - (hsize_t)n;
        if (n > MC)
            *ok = 0;
    }
    else if (n % 2 || (hsize_t)n / 2 > MC - 2)
        *ok = 0;
    H5Sselect_hyperslab(ms, H5S_SELECT_SET, st, one, one, bl);
    for (hsize_t r = 0, i = 0; r < bl[0]; r++)
        for (hsize_t c = 0; c < bl[1]; c++)
            at[i++] = (st[0] + r) * MC + st[1] + c;
    return ms;
}

static int cmp_index(const void *a, const void *b)
{
    hsize_t x = *(const hsize_t *)a, y = *(const hsize_t *)b;
    return x < y ? -1 : x > y;
}

/* Linear indices of one regular block set (start, stride, count, block). */
static hssize_t block_indices(int r, const hsize_t *start, const hsize_t *stride, const hsize_t *count,
                              const hsize_t *block, hsize_t *idx);

/* Linear indices of the file selection, in selection order: points as
 * given, a hyperslab in row-major order (a union sorted, each index once). */
static hssize_t file_indices(const case_t *k, hsize_t *idx)
{
    hssize_t n = 0;
    if (k->points) {
        for (int i = 0; i < k->points; i++)
            idx[n++] = k->start[0] - (hsize_t)i * k->stride[0];
        return n;
    }
    int r = k->rank3 ? 3 : 1;
    n     = block_indices(r, k->start, k->stride, k->count, k->block, idx);
    if (k->or_block[0]) {
        hsize_t one[3] = {1, 1, 1};
        n += block_indices(r, k->or_start, one, one, k->or_block, idx + n);
        qsort(idx, (size_t)n, sizeof *idx, cmp_index);
        hssize_t u = 0;
        for (hssize_t i = 0; i < n; i++)
            if (u == 0 || idx[i] != idx[u - 1])
                idx[u++] = idx[i];
        n = u;
    }
    return n;
}

static hssize_t block_indices(int r, const hsize_t *start, const hsize_t *stride, const hsize_t *count,
                              const hsize_t *block, hsize_t *idx)
{
    hssize_t n       = 0;
    hsize_t  dims[3] = {D0, D1, D2}, e[3];
    if (r == 1)
        dims[0] = N1;
    hsize_t lo[3][64], nlo[3];
    for (int d = 0; d < r; d++) { /* the indices along dimension d, ascending */
        nlo[d] = 0;
        for (hsize_t c = 0; c < count[d]; c++)
            for (hsize_t b = 0; b < block[d]; b++)
                lo[d][nlo[d]++] = start[d] + c * stride[d] + b;
    }
    if (r == 1) {
        for (hsize_t i = 0; i < nlo[0]; i++)
            idx[n++] = lo[0][i];
        return n;
    }
    for (hsize_t a = 0; a < nlo[0]; a++)
        for (hsize_t b = 0; b < nlo[1]; b++)
            for (hsize_t c = 0; c < nlo[2]; c++) {
                e[0] = lo[0][a], e[1] = lo[1][b], e[2] = lo[2][c];
                idx[n++] = (e[0] * dims[1] + e[1]) * dims[2] + e[2];
            }
    return n;
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv, "t_onerun");
    if (argc < 2) {
        fprintf(stderr, "usage: t_onerun DIR\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (t_rank == 0)
        t_fresh_dir(argv[1]);
    MPI_Barrier(MPI_COMM_WORLD);
    char path[4096];
    snprintf(path, sizeof path, "%s/onerun.h5", argv[1]);
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_mpi_params(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    H5Pset_driver_by_name(fapl, "h5sf", "stripe_size=64B,stripe_count=3");
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    CHECK(f >= 0, "cannot create %s", path);

    /* Every rank's two datasets exist on every rank (creation is collective). */
    hsize_t d3[3] = {D0, D1, D2}, d1 = N1;
    hid_t   s3 = H5Screate_simple(3, d3, NULL), s1 = H5Screate_simple(1, &d1, NULL);
    hid_t   mine3 = -1, mine1 = -1;
    for (int r = 0; r < t_size; r++) {
        char n[64];
        snprintf(n, sizeof n, "d3_%d", r);
        hid_t a = H5Dcreate2(f, n, H5T_NATIVE_INT, s3, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        snprintf(n, sizeof n, "d1_%d", r);
        hid_t b = H5Dcreate2(f, n, H5T_NATIVE_INT, s1, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        CHECK(a >= 0 && b >= 0, "cannot create the datasets of rank %d", r);
        if (r == t_rank)
            mine3 = a, mine1 = b;
        else
            H5Dclose(a), H5Dclose(b);
    }
    /* Start from zeros in the file and in the model. */
    static int m3[D0 * D1 * D2], m1[N1];
    H5Dwrite(mine3, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, m3);
    H5Dwrite(mine1, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, m1);

    for (size_t c = 0; c < NCASES; c++) {
        const case_t *k  = &cases[c];
        hid_t         d  = k->rank3 ? mine3 : mine1;
        int          *m  = k->rank3 ? m3 : m1;
        hid_t         fs = H5Scopy(k->rank3 ? s3 : s1);
        hsize_t       idx[D0 * D1 * D2 + N1], at[D0 * D1 * D2 + N1];
        hssize_t      n = select_file(k, fs);
        int           ok;
        CHECK(file_indices(k, idx) == n, "%s: the test's index list disagrees with HDF5's count", k->name);
        hid_t ms = mem_space(k, n, at, &ok);
        CHECK(ok, "%s: memory case does not fit", k->name);
        int buf[MR * MC + D0 * D1 * D2];
        for (hssize_t i = 0; i < n; i++) {
            buf[at[i]] = t_pat_int((uint64_t)c * 1000 + (uint64_t)t_rank, (uint64_t)i);
            m[idx[i]]  = buf[at[i]];
        }
        CHECK(H5Dwrite(d, H5T_NATIVE_INT, ms, fs, H5P_DEFAULT, buf) >= 0, "%s: write failed", k->name);
        memset(buf, 0x5a, sizeof buf);
        CHECK(H5Dread(d, H5T_NATIVE_INT, ms, fs, H5P_DEFAULT, buf) >= 0, "%s: read failed", k->name);
        for (hssize_t i = 0; i < n; i++)
            CHECK(buf[at[i]] == m[idx[i]], "%s: element %lld read %d, want %d", k->name, (long long)i, buf[at[i]],
                  m[idx[i]]);
        /* Memory outside the selection is left alone by the read. */
        if (k->mem)
            CHECK(buf[0] == 0x5a5a5a5a && buf[MR * MC - 1] == 0x5a5a5a5a, "%s: read wrote outside the selection",
                  k->name);
        H5Sclose(ms);
        H5Sclose(fs);
    }
    static int w3[D0 * D1 * D2], w1[N1];
    CHECK(H5Dread(mine3, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, w3) >= 0, "whole 3-D read failed");
    CHECK(H5Dread(mine1, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, w1) >= 0, "whole 1-D read failed");
    for (int i = 0; i < D0 * D1 * D2; i++)
        CHECK(w3[i] == m3[i], "3-D element %d is %d, want %d", i, w3[i], m3[i]);
    for (int i = 0; i < N1; i++)
        CHECK(w1[i] == m1[i], "1-D element %d is %d, want %d", i, w1[i], m1[i]);
    H5Dclose(mine3);
    H5Dclose(mine1);
    H5Sclose(s3);
    H5Sclose(s1);
    CHECK(H5Fclose(f) >= 0, "close failed");
    H5Pclose(fapl);
    int rc = t_verdict();
    MPI_Finalize();
    return rc;
}
