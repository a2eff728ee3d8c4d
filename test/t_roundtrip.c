/*
 * t_roundtrip -- write and read back through h5sf, compared with a pattern
 * and with the same data written through the MPI-IO driver.
 *
 * For every stripe setting (stripe_size x stripe_count) and both channels
 * (ioc, direct) each rank writes seven datasets with different selection
 * kinds (contiguous slab, strided 4 KiB blocks interleaved across ranks,
 * irregular unsorted points, a union of overlapping hyperslabs, chunked,
 * a 2-D slab from a padded memory buffer, compact) plus two attributes.
 * Values are a pure function of the dataset and the global element index,
 * so every rank knows the whole expected content.
 *
 * The file is then reopened twice: with the fapl it was written with
 * (independent reads), and with the other channel and deliberately
 * different stripe settings (collective reads; the stored layout must win).
 * Each pass reads the rank's own selection (checking that memory padding is
 * left alone) and the whole dataset, and compares with the pattern and
 * element-wise with the MPI-IO reference file.  The layout the open file
 * reports (H5FD_h5sf_get_layout: stripe settings, channel in use) is
 * checked after every open; the subfile names, their count and the config
 * file are checked on disk against the built-in subfiling driver's
 * templates.
 *
 * Usage: mpiexec -n N t_roundtrip [dir]      (dir: argv[1], $H5SF_TEST_DIR,
 *        or a fresh /tmp/h5sf-rt-XXXXXX)
 * Env:   H5SF_TEST_XFER=both   write every configuration twice
 *                              (independent and collective); the default
 *                              alternates the write mode over the matrix.
 *        H5SF_TEST_KEEP=1      keep the files.
 * Exit status 1 on any mismatch (agreed over all ranks).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <mpi.h>
#include <hdf5.h>
#include "h5sf.h"

/* ---- globals, failure accounting -------------------------------------- */

static int  g_rank, g_size;
static long g_fail; /* local failures (mismatches, failed I/O calls) */

#define MAX_REPORT 8 /* mismatches printed per check */

static void fatal(const char *file, int line, const char *what)
{
    fprintf(stderr, "[rank %d] FATAL %s:%d: %s failed\n", g_rank, file, line, what);
    H5Eprint2(H5E_DEFAULT, stderr);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
}
/* For setup calls whose failure leaves nothing sensible to test. */
#define H5X(call)                                                                                  \
    do {                                                                                           \
        if ((call) < 0)                                                                            \
            fatal(__FILE__, __LINE__, #call);                                                      \
    } while (0)
static hid_t h5id(hid_t id, const char *what, int line)
{
    if (id < 0)
        fatal(__FILE__, line, what);
    return id;
}
#define H5ID(call) h5id((call), #call, __LINE__)

/* For data-path calls: record, report, continue. */
#define H5TRY(call, ctx)                                                                           \
    do {                                                                                           \
        if ((call) < 0) {                                                                          \
            g_fail++;                                                                              \
            fprintf(stderr, "[rank %d] FAIL %s: %s returned an error (line %d)\n", g_rank, ctx,    \
                    #call, __LINE__);                                                              \
        }                                                                                          \
    } while (0)

/* 1 if every rank has ok != 0, 0 if none; a split outcome of a collective
 * call cannot be recovered from, so it aborts. */
static int all_ok(int ok, const char *what)
{
    int sum = 0, mine = ok ? 1 : 0;
    MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (sum == g_size)
        return 1;
    if (sum == 0)
        return 0;
    fprintf(stderr, "[rank %d] FATAL %s: succeeded on %d of %d ranks (here: %s)\n", g_rank, what, sum,
            g_size, ok ? "ok" : "failed");
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
    return 0;
}

/* ---- the data -------------------------------------------------------- */

enum { DS_CONTIG, DS_STRIDED, DS_POINTS, DS_UNION, DS_CHUNKED, DS_SLAB2D, DS_COMPACT, DS_COUNT };

#define N1      131101 /* contig: ints per rank (odd, so nothing aligns) */
#define BLK     1024   /* strided: 4 KiB blocks of int                   */
#define NB      48     /* strided: blocks per rank                       */
#define NP      3000   /* points: elements per rank (on average)         */
#define U_ROWS  16     /* union: rows per rank                           */
#define U_COLS  300
#define C_ROWS  40     /* chunked: rows per rank, chunk 16 x 50          */
#define C_COLS  200
#define S_ROWS  64     /* slab2d: 64 rows, 300 columns per rank          */
#define S_COLS  300
#define S_PAD   5      /* slab2d: memory row is S_COLS + S_PAD wide       */
#define CP_N    200    /* compact                                        */
#define OWN_ALL (-2)   /* compact: every rank writes everything          */
#define FILL_VALUE (-1.0)
#define POISON     (-777.0)

typedef struct {
    const char *name;
    int         kind;
    int         is_double;
    int         ndims;
    hsize_t     dims[2];
} dsinfo_t;

static dsinfo_t g_ds[DS_COUNT];

static void ds_setup(int np)
{
    const hsize_t n = (hsize_t)np;
    g_ds[DS_CONTIG]  = (dsinfo_t){"contig", DS_CONTIG, 0, 1, {n * N1, 0}};
    g_ds[DS_STRIDED] = (dsinfo_t){"strided", DS_STRIDED, 0, 1, {n * NB * BLK, 0}};
    g_ds[DS_POINTS]  = (dsinfo_t){"points", DS_POINTS, 1, 1, {n * NP, 0}};
    g_ds[DS_UNION]   = (dsinfo_t){"union", DS_UNION, 0, 2, {n * U_ROWS, U_COLS}};
    g_ds[DS_CHUNKED] = (dsinfo_t){"chunked", DS_CHUNKED, 1, 2, {n * C_ROWS, C_COLS}};
    g_ds[DS_SLAB2D]  = (dsinfo_t){"slab2d", DS_SLAB2D, 1, 2, {S_ROWS, n * S_COLS}};
    g_ds[DS_COMPACT] = (dsinfo_t){"compact", DS_COMPACT, 0, 1, {CP_N, 0}};
}

static uint64_t ds_nelem(const dsinfo_t *d) { return d->ndims == 1 ? d->dims[0] : d->dims[0] * d->dims[1]; }

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

/* Value of element g of dataset ds: exact in double and in int. */
static double pattern(int ds, uint64_t g, int is_double)
{
    if (is_double)
        return (double)g * 1.5 + ds * 0.25 + 0.125;
    return (double)(int32_t)((mix64(g * 31 + (uint64_t)ds) & 0x3fffffff) + 1);
}

static int union_has(uint64_t lr, uint64_t j)
{
    return (lr < 8 && j < 150) || (lr >= 4 && j >= 100) || (lr >= 8 && j < 100 && j % 2 == 0);
}

/* Which rank writes element g; -1: nobody (fill value); OWN_ALL: all. */
static int owner(const dsinfo_t *d, uint64_t g)
{
    const uint64_t np = (uint64_t)g_size;
    switch (d->kind) {
        case DS_CONTIG:  return (int)(g / N1);
        case DS_STRIDED: return (int)((g / BLK) % np);
        case DS_POINTS:  return (int)(mix64(g + 12345) % np);
        case DS_UNION: {
            uint64_t i = g / U_COLS, j = g % U_COLS;
            return union_has(i % U_ROWS, j) ? (int)(i / U_ROWS) : -1;
        }
        case DS_CHUNKED: return (int)(g / C_COLS / C_ROWS);
        case DS_SLAB2D:  return (int)((g % (np * S_COLS)) / S_COLS);
        case DS_COMPACT: return OWN_ALL;
    }
    return -1;
}

static double expected(const dsinfo_t *d, uint64_t g)
{
    return owner(d, g) == -1 ? FILL_VALUE : pattern(d->kind, g, d->is_double);
}

/* This rank's selection: file and memory dataspaces, and for the k-th
 * selected element its global index and its offset in the memory buffer. */
typedef struct {
    hid_t     fspace, mspace;
    size_t    n;     /* selected elements          */
    size_t    memn;  /* elements in memory buffer  */
    uint64_t *gidx;
    size_t   *memoff;
} sel_t;

static void sel_free(sel_t *s)
{
    H5Sclose(s->fspace);
    H5Sclose(s->mspace);
    free(s->gidx);
    free(s->memoff);
}

static void sel_make(const dsinfo_t *d, int r, sel_t *s)
{
    const uint64_t tot = ds_nelem(d);
    memset(s, 0, sizeof *s);
    s->fspace = H5ID(H5Screate_simple(d->ndims, d->dims, NULL));
    s->gidx   = malloc(sizeof *s->gidx * (tot ? tot : 1));
    s->memoff = malloc(sizeof *s->memoff * (tot ? tot : 1));
    if (!s->gidx || !s->memoff)
        fatal(__FILE__, __LINE__, "malloc");

    /* Enumerate the owned elements in increasing order: that is the order
     * in which HDF5 iterates every hyperslab selection below. */
    for (uint64_t g = 0; g < tot; g++) {
        int o = owner(d, g);
        if (o == r || o == OWN_ALL)
            s->gidx[s->n++] = g;
    }
    for (size_t k = 0; k < s->n; k++)
        s->memoff[k] = k;
    s->memn = s->n;

    const hsize_t R = (hsize_t)r, NPR = (hsize_t)g_size;
    switch (d->kind) {
        case DS_CONTIG: {
            hsize_t start = R * N1, count = N1;
            H5X(H5Sselect_hyperslab(s->fspace, H5S_SELECT_SET, &start, NULL, &count, NULL));
            break;
        }
        case DS_STRIDED: {
            hsize_t start = R * BLK, stride = NPR * BLK, count = NB, block = BLK;
            H5X(H5Sselect_hyperslab(s->fspace, H5S_SELECT_SET, &start, &stride, &count, &block));
            break;
        }
        case DS_POINTS: {
            /* Unsorted: a deterministic shuffle per rank. */
            uint64_t st = 0x9e3779b97f4a7c15ULL * (R + 1);
            for (size_t k = s->n; k > 1; k--) {
                st         = st * 6364136223846793005ULL + 1442695040888963407ULL;
                size_t   j = (size_t)((st >> 33) % k);
                uint64_t t = s->gidx[k - 1];
                s->gidx[k - 1] = s->gidx[j];
                s->gidx[j]     = t;
            }
            if (s->n) {
                hsize_t *coord = malloc(sizeof *coord * s->n);
                if (!coord)
                    fatal(__FILE__, __LINE__, "malloc");
                for (size_t k = 0; k < s->n; k++)
                    coord[k] = s->gidx[k];
                H5X(H5Sselect_elements(s->fspace, H5S_SELECT_SET, s->n, coord));
                free(coord);
            }
            else
                H5X(H5Sselect_none(s->fspace));
            break;
        }
        case DS_UNION: {
            hsize_t sa[2] = {R * U_ROWS, 0}, ca[2] = {8, 150};
            hsize_t sb[2] = {R * U_ROWS + 4, 100}, cb[2] = {12, 200};
            hsize_t sc[2] = {R * U_ROWS + 8, 0}, tc[2] = {1, 2}, cc[2] = {8, 50}, bc[2] = {1, 1};
            H5X(H5Sselect_hyperslab(s->fspace, H5S_SELECT_SET, sa, NULL, ca, NULL));
            H5X(H5Sselect_hyperslab(s->fspace, H5S_SELECT_OR, sb, NULL, cb, NULL));
            H5X(H5Sselect_hyperslab(s->fspace, H5S_SELECT_OR, sc, tc, cc, bc));
            break;
        }
        case DS_CHUNKED: {
            hsize_t start[2] = {R * C_ROWS, 0}, count[2] = {C_ROWS, C_COLS};
            H5X(H5Sselect_hyperslab(s->fspace, H5S_SELECT_SET, start, NULL, count, NULL));
            break;
        }
        case DS_SLAB2D: {
            hsize_t start[2] = {0, R * S_COLS}, count[2] = {S_ROWS, S_COLS};
            H5X(H5Sselect_hyperslab(s->fspace, H5S_SELECT_SET, start, NULL, count, NULL));
            break;
        }
        case DS_COMPACT:
            H5X(H5Sselect_all(s->fspace));
            break;
    }
    if ((size_t)H5Sget_select_npoints(s->fspace) != s->n) {
        fprintf(stderr, "[rank %d] test bug: %s selects %lld elements, expected %zu\n", g_rank, d->name,
                (long long)H5Sget_select_npoints(s->fspace), s->n);
        fatal(__FILE__, __LINE__, "selection self-check");
    }

    if (d->kind == DS_SLAB2D) {
        /* Memory: S_ROWS x (S_COLS + S_PAD), selecting the first S_COLS of
         * each row; the padding must never be touched. */
        hsize_t mdims[2] = {S_ROWS, S_COLS + S_PAD}, start[2] = {0, 0}, count[2] = {S_ROWS, S_COLS};
        s->mspace = H5ID(H5Screate_simple(2, mdims, NULL));
        H5X(H5Sselect_hyperslab(s->mspace, H5S_SELECT_SET, start, NULL, count, NULL));
        for (size_t k = 0; k < s->n; k++)
            s->memoff[k] = (k / S_COLS) * (S_COLS + S_PAD) + k % S_COLS;
        s->memn = (size_t)(mdims[0] * mdims[1]);
    }
    else {
        hsize_t m = s->n ? s->n : 1;
        s->mspace = H5ID(H5Screate_simple(1, &m, NULL));
        if (!s->n)
            H5X(H5Sselect_none(s->mspace));
    }
}

/* ---- buffers: int or double, viewed as double for checks -------------- */

static hid_t memtype(const dsinfo_t *d) { return d->is_double ? H5T_NATIVE_DOUBLE : H5T_NATIVE_INT; }
static hid_t filetype(const dsinfo_t *d) { return d->is_double ? H5T_IEEE_F64LE : H5T_STD_I32LE; }

static void *buf_alloc(const dsinfo_t *d, size_t n)
{
    void *b = malloc((n ? n : 1) * (d->is_double ? sizeof(double) : sizeof(int)));
    if (!b)
        fatal(__FILE__, __LINE__, "malloc");
    return b;
}
static double buf_get(const dsinfo_t *d, const void *b, size_t i)
{
    return d->is_double ? ((const double *)b)[i] : (double)((const int *)b)[i];
}
static void buf_set(const dsinfo_t *d, void *b, size_t i, double v)
{
    if (d->is_double)
        ((double *)b)[i] = v;
    else
        ((int *)b)[i] = (int)v;
}

static void report(const char *ctx, const dsinfo_t *d, uint64_t g, double got, double want, long *nbad)
{
    if (++*nbad > MAX_REPORT)
        return;
    if (d->ndims == 2)
        fprintf(stderr,
                "[rank %d] MISMATCH %s: dataset %s element %" PRIu64 " (%" PRIu64 ",%" PRIu64
                "): got %.17g expected %.17g\n",
                g_rank, ctx, d->name, g, g / d->dims[1], g % d->dims[1], got, want);
    else
        fprintf(stderr, "[rank %d] MISMATCH %s: dataset %s element %" PRIu64 ": got %.17g expected %.17g\n",
                g_rank, ctx, d->name, g, got, want);
}

static void report_done(const char *ctx, const dsinfo_t *d, long nbad)
{
    if (nbad > MAX_REPORT)
        fprintf(stderr, "[rank %d] MISMATCH %s: dataset %s: %ld mismatching elements in all\n", g_rank, ctx,
                d->name, nbad);
    if (nbad)
        g_fail++;
}

/* ---- write / read ---------------------------------------------------- */

static hid_t make_dxpl(int collective)
{
    hid_t dxpl = H5ID(H5Pcreate(H5P_DATASET_XFER));
    H5X(H5Pset_dxpl_mpio(dxpl, collective ? H5FD_MPIO_COLLECTIVE : H5FD_MPIO_INDEPENDENT));
    return dxpl;
}

static void write_file(hid_t file, int collective, const char *ctx)
{
    hid_t dxpl = make_dxpl(collective);
    for (int k = 0; k < DS_COUNT; k++) {
        const dsinfo_t *d      = &g_ds[k];
        hid_t           fspace = H5ID(H5Screate_simple(d->ndims, d->dims, NULL));
        hid_t           dcpl   = H5ID(H5Pcreate(H5P_DATASET_CREATE));
        if (d->kind == DS_CHUNKED) {
            hsize_t chunk[2] = {16, 50};
            H5X(H5Pset_chunk(dcpl, 2, chunk));
        }
        else if (d->kind == DS_COMPACT)
            H5X(H5Pset_layout(dcpl, H5D_COMPACT));
        if (d->is_double) {
            double fv = FILL_VALUE;
            H5X(H5Pset_fill_value(dcpl, H5T_NATIVE_DOUBLE, &fv));
        }
        else {
            int fv = (int)FILL_VALUE;
            H5X(H5Pset_fill_value(dcpl, H5T_NATIVE_INT, &fv));
        }
        hid_t dset = H5ID(H5Dcreate2(file, d->name, filetype(d), fspace, H5P_DEFAULT, dcpl, H5P_DEFAULT));

        sel_t s;
        sel_make(d, g_rank, &s);
        void *buf = buf_alloc(d, s.memn);
        for (size_t i = 0; i < s.memn; i++)
            buf_set(d, buf, i, POISON);
        for (size_t i = 0; i < s.n; i++)
            buf_set(d, buf, s.memoff[i], pattern(d->kind, s.gidx[i], d->is_double));
        char what[1024];
        snprintf(what, sizeof what, "%s write %s", ctx, d->name);
        H5TRY(H5Dwrite(dset, memtype(d), s.mspace, s.fspace, dxpl, buf), what);

        if (d->kind == DS_CONTIG) {
            /* An int attribute on a dataset. */
            hsize_t n = 7;
            int     v[7];
            for (int i = 0; i < 7; i++)
                v[i] = (int)pattern(101, (uint64_t)i, 0);
            hid_t as = H5ID(H5Screate_simple(1, &n, NULL));
            hid_t a  = H5ID(H5Acreate2(dset, "attr_i", H5T_STD_I32LE, as, H5P_DEFAULT, H5P_DEFAULT));
            H5TRY(H5Awrite(a, H5T_NATIVE_INT, v), "write attr_i");
            H5Aclose(a);
            H5Sclose(as);
        }
        free(buf);
        sel_free(&s);
        H5Dclose(dset);
        H5Pclose(dcpl);
        H5Sclose(fspace);
    }
    /* A double attribute on the root group. */
    {
        hsize_t n = 50;
        double  v[50];
        for (int i = 0; i < 50; i++)
            v[i] = pattern(100, (uint64_t)i, 1);
        hid_t as = H5ID(H5Screate_simple(1, &n, NULL));
        hid_t a  = H5ID(H5Acreate2(file, "attr_d", H5T_IEEE_F64LE, as, H5P_DEFAULT, H5P_DEFAULT));
        H5TRY(H5Awrite(a, H5T_NATIVE_DOUBLE, v), "write attr_d");
        H5Aclose(a);
        H5Sclose(as);
    }
    H5Pclose(dxpl);
}

static void check_attrs(hid_t file, const char *ctx)
{
    char   what[1024];
    double vd[50];
    int    vi[7];
    long   nbad = 0;
    for (int i = 0; i < 50; i++)
        vd[i] = POISON;
    for (int i = 0; i < 7; i++)
        vi[i] = (int)POISON;

    hid_t a = H5Aopen(file, "attr_d", H5P_DEFAULT);
    snprintf(what, sizeof what, "%s read attr_d", ctx);
    if (a < 0) {
        g_fail++;
        fprintf(stderr, "[rank %d] FAIL %s: cannot open attribute\n", g_rank, what);
    }
    else {
        H5TRY(H5Aread(a, H5T_NATIVE_DOUBLE, vd), what);
        H5Aclose(a);
        for (int i = 0; i < 50; i++)
            if (vd[i] != pattern(100, (uint64_t)i, 1) && ++nbad <= MAX_REPORT)
                fprintf(stderr, "[rank %d] MISMATCH %s: attribute /attr_d element %d: got %.17g expected %.17g\n",
                        g_rank, ctx, i, vd[i], pattern(100, (uint64_t)i, 1));
    }
    hid_t d = H5Dopen2(file, "contig", H5P_DEFAULT);
    a       = d < 0 ? -1 : H5Aopen(d, "attr_i", H5P_DEFAULT);
    snprintf(what, sizeof what, "%s read contig/attr_i", ctx);
    if (a < 0) {
        g_fail++;
        fprintf(stderr, "[rank %d] FAIL %s: cannot open attribute\n", g_rank, what);
    }
    else {
        H5TRY(H5Aread(a, H5T_NATIVE_INT, vi), what);
        H5Aclose(a);
        for (int i = 0; i < 7; i++)
            if (vi[i] != (int)pattern(101, (uint64_t)i, 0) && ++nbad <= MAX_REPORT)
                fprintf(stderr, "[rank %d] MISMATCH %s: attribute /contig/attr_i element %d: got %d expected %d\n",
                        g_rank, ctx, i, vi[i], (int)pattern(101, (uint64_t)i, 0));
    }
    if (d >= 0)
        H5Dclose(d);
    if (nbad)
        g_fail++;
}

/* Read every dataset (own selection, then whole) and check it against the
 * pattern and, if ref is given, element-wise against the reference data.
 * If keep is given, the whole-dataset contents are returned in it. */
static void read_check(hid_t file, int collective, const char *ctx, double *const ref[DS_COUNT],
                       double *keep[DS_COUNT])
{
    hid_t dxpl = make_dxpl(collective);
    char  what[1024];

    for (int k = 0; k < DS_COUNT; k++) {
        const dsinfo_t *d    = &g_ds[k];
        hid_t           dset = H5Dopen2(file, d->name, H5P_DEFAULT);
        if (dset < 0) {
            g_fail++;
            fprintf(stderr, "[rank %d] FAIL %s: cannot open dataset %s\n", g_rank, ctx, d->name);
            continue;
        }

        /* Own selection, into a poisoned buffer. */
        sel_t s;
        sel_make(d, g_rank, &s);
        void *buf = buf_alloc(d, s.memn);
        for (size_t i = 0; i < s.memn; i++)
            buf_set(d, buf, i, POISON);
        snprintf(what, sizeof what, "%s (own selection)", ctx);
        H5TRY(H5Dread(dset, memtype(d), s.mspace, s.fspace, dxpl, buf), what);
        long   nbad = 0;
        size_t k2   = 0;
        for (size_t i = 0; i < s.memn; i++) {
            /* memoff is increasing, so walk the two in step */
            double want, got = buf_get(d, buf, i);
            uint64_t g;
            if (k2 < s.n && s.memoff[k2] == i) {
                g    = s.gidx[k2++];
                want = pattern(d->kind, g, d->is_double);
            }
            else {
                g    = i; /* memory offset of a padding element */
                want = POISON;
            }
            if (got != want)
                report(want == POISON ? "memory padding overwritten" : what, d, g, got, want, &nbad);
        }
        report_done(what, d, nbad);
        free(buf);
        sel_free(&s);

        /* Whole dataset. */
        const uint64_t tot = ds_nelem(d);
        buf                = buf_alloc(d, tot);
        for (size_t i = 0; i < tot; i++)
            buf_set(d, buf, i, POISON);
        snprintf(what, sizeof what, "%s (whole dataset)", ctx);
        H5TRY(H5Dread(dset, memtype(d), H5S_ALL, H5S_ALL, dxpl, buf), what);
        nbad = 0;
        for (uint64_t g = 0; g < tot; g++) {
            double got = buf_get(d, buf, g), want = expected(d, g);
            if (got != want)
                report(what, d, g, got, want, &nbad);
        }
        report_done(what, d, nbad);
        if (ref && ref[k]) {
            snprintf(what, sizeof what, "%s vs MPI-IO reference", ctx);
            nbad = 0;
            for (uint64_t g = 0; g < tot; g++) {
                double got = buf_get(d, buf, g);
                if (got != ref[k][g])
                    report(what, d, g, got, ref[k][g], &nbad);
            }
            report_done(what, d, nbad);
        }
        if (keep) {
            keep[k] = malloc(sizeof(double) * (tot ? tot : 1));
            if (!keep[k])
                fatal(__FILE__, __LINE__, "malloc");
            for (uint64_t g = 0; g < tot; g++)
                keep[k][g] = buf_get(d, buf, g);
        }
        free(buf);
        H5Dclose(dset);
    }
    check_attrs(file, ctx);
    H5Pclose(dxpl);
}

/* ---- on-disk layout (built-in subfiling templates) -------------------- */

static int ndigits(int n)
{
    int d = 1;
    while (n >= 10) {
        n /= 10;
        d++;
    }
    return d;
}

/* Rank 0 only.  want_size > 0 and want_count > 0 are checked; 0 = any.
 * Returns the number of problems (each printed). */
static int check_disk(const char *dir, const char *base, int64_t want_size, int want_count)
{
    char        path[8192], line[8192];
    struct stat st;
    int         bad = 0;

    snprintf(path, sizeof path, "%s/%s", dir, base);
    if (stat(path, &st) < 0) {
        fprintf(stderr, "[rank 0] FAIL layout: stub %s: %s\n", path, strerror(errno));
        return 1;
    }
    const uint64_t ino = (uint64_t)st.st_ino;
    snprintf(path, sizeof path, "%s/%s.subfile_%" PRIu64 ".config", dir, base, ino);
    FILE *fp = fopen(path, "r");
    if (!fp) {
        fprintf(stderr, "[rank 0] FAIL layout: config file %s: %s\n", path, strerror(errno));
        return 1;
    }
    int64_t stripe_size = -1;
    long    count       = -1;
    while (fgets(line, sizeof line, fp)) {
        if (!strncmp(line, "stripe_size=", 12))
            stripe_size = strtoll(line + 12, NULL, 10);
        else if (!strncmp(line, "subfile_count=", 14))
            count = strtol(line + 14, NULL, 10);
    }
    fclose(fp);
    if (stripe_size <= 0 || count <= 0 || count > 65536) {
        fprintf(stderr, "[rank 0] FAIL layout: %s has no valid stripe_size= or subfile_count= line\n", path);
        return 1;
    }
    if (want_size > 0 && stripe_size != want_size) {
        fprintf(stderr, "[rank 0] FAIL layout: %s: stripe_size=%" PRId64 ", expected %" PRId64 "\n", path,
                stripe_size, want_size);
        bad++;
    }
    if (want_count > 0 && count != want_count) {
        fprintf(stderr, "[rank 0] FAIL layout: %s: subfile_count=%ld, expected %d\n", path, count, want_count);
        bad++;
    }
    for (int i = 1; i <= count; i++) {
        if (snprintf(path, sizeof path, "%s/%s.subfile_%" PRIu64 "_%0*d_of_%d", dir, base, ino,
                     ndigits((int)count), i, (int)count) >= (int)sizeof path || stat(path, &st) < 0) {
            fprintf(stderr, "[rank 0] FAIL layout: subfile %s: %s\n", path, strerror(errno));
            bad++;
        }
    }
    /* No stray subfiles of another count. */
    char prefix[4200];
    snprintf(prefix, sizeof prefix, "%s.subfile_%" PRIu64 "_", base, ino);
    DIR *dp = opendir(dir);
    if (dp) {
        struct dirent *e;
        long           n = 0;
        while ((e = readdir(dp)))
            if (!strncmp(e->d_name, prefix, strlen(prefix)))
                n++;
        closedir(dp);
        if (n != count) {
            fprintf(stderr, "[rank 0] FAIL layout: %ld files named %s*, expected %ld\n", n, prefix, count);
            bad++;
        }
    }
    return bad;
}

/* Remove the stub and everything named <base>.subfile_* in dir. */
static void remove_h5(const char *dir, const char *base)
{
    char   path[8192], prefix[4200];
    DIR   *dp = opendir(dir);
    size_t pl;
    snprintf(prefix, sizeof prefix, "%s.subfile_", base);
    pl = strlen(prefix);
    if (!dp)
        return;
    struct dirent *e;
    while ((e = readdir(dp)))
        if (!strcmp(e->d_name, base) || !strncmp(e->d_name, prefix, pl)) {
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            unlink(path);
        }
    closedir(dp);
}

/* ---- configurations --------------------------------------------------- */

typedef struct {
    int64_t     size;
    const char *size_text; /* as written in the config string */
} stripe_t;

static const stripe_t g_sizes[]  = {{4096, "4096"}, {65536, "64KiB"}, {1048576, "1MiB"}};
static const int      g_counts[] = {0, 1, 3, 7}; /* 0: default */

static hid_t fapl_h5sf(int use_struct, int64_t size, const char *size_text, int count, int channel_ioc)
{
    hid_t fapl = H5ID(H5Pcreate(H5P_FILE_ACCESS));
    H5X(H5Pset_mpi_params(fapl, MPI_COMM_WORLD, MPI_INFO_NULL));
    if (use_struct) {
        H5FD_h5sf_config_t c;
        H5X(H5FD_h5sf_config_init(&c));
        c.stripe_size  = size;
        c.stripe_count = count;
        c.channel      = channel_ioc ? H5FD_H5SF_CHANNEL_IOC : H5FD_H5SF_CHANNEL_DIRECT;
        H5X(H5Pset_fapl_h5sf(fapl, &c));
    }
    else {
        char cfg[256];
        int  n = snprintf(cfg, sizeof cfg, "stripe_size=%s,channel=%s", size_text, channel_ioc ? "ioc" : "direct");
        if (count > 0)
            snprintf(cfg + n, sizeof cfg - (size_t)n, ",stripe_count=%d", count);
        H5X(H5Pset_driver_by_name(fapl, H5FD_H5SF_NAME, cfg));
    }
    return fapl;
}

static void free_bufs(double *b[DS_COUNT])
{
    for (int k = 0; k < DS_COUNT; k++) {
        free(b[k]);
        b[k] = NULL;
    }
}

/* The layout the open file reports (H5FD_h5sf_get_layout): stripe settings
 * and the channel actually in use.  want_count 0: any. */
static int g_thread_multiple;
static void check_layout(hid_t f, const char *ctx, int64_t want_size, int want_count, int want_ioc)
{
    H5FD_h5sf_layout_t lay;
    memset(&lay, 0, sizeof lay);
    if (H5FD_h5sf_get_layout(f, &lay) < 0) {
        g_fail++;
        fprintf(stderr, "[rank %d] FAIL %s: H5FD_h5sf_get_layout failed\n", g_rank, ctx);
        return;
    }
    const int want_channel = want_ioc && g_thread_multiple ? H5FD_H5SF_CHANNEL_IOC : H5FD_H5SF_CHANNEL_DIRECT;
    if (lay.stripe_size != want_size || (want_count > 0 && lay.stripe_count != want_count) ||
        lay.channel != want_channel || lay.stripe_count < 1 || lay.ioc_count < 1) {
        g_fail++;
        fprintf(stderr,
                "[rank %d] FAIL %s: H5FD_h5sf_get_layout: stripe_size %" PRId64 " (want %" PRId64
                "), stripe_count %d (want %d), channel %d (want %d), ioc_count %d\n",
                g_rank, ctx, lay.stripe_size, want_size, (int)lay.stripe_count, want_count, (int)lay.channel,
                want_channel, (int)lay.ioc_count);
    }
}

int main(int argc, char **argv)
{
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    g_thread_multiple = provided >= MPI_THREAD_MULTIPLE;
    if (provided < MPI_THREAD_MULTIPLE && g_rank == 0)
        fprintf(stderr, "warning: MPI_THREAD_MULTIPLE not provided (%d); h5sf will use the direct channel\n",
                provided);

    /* The test sets every layout knob itself. */
    const char *env_knobs[] = {"H5SF_STRIPE_SIZE", "H5SF_STRIPE_COUNT", "H5SF_IOC", "H5SF_CHANNEL",
                               "H5SF_THREADS", "H5SF_SUBFILE_DIR", "H5SF_CONFIG_DIR",
                               "H5FD_SUBFILING_STRIPE_SIZE", "H5FD_SUBFILING_IOC_PER_NODE",
                               "H5FD_SUBFILING_IOC_SELECTION_CRITERIA", "H5FD_SUBFILING_SUBFILE_PREFIX",
                               "H5FD_SUBFILING_CONFIG_FILE_PREFIX", "HDF5_DRIVER", "HDF5_DRIVER_CONFIG"};
    for (size_t i = 0; i < sizeof env_knobs / sizeof *env_knobs; i++)
        unsetenv(env_knobs[i]);

    const char *xfer_env  = getenv("H5SF_TEST_XFER");
    const int   both_xfer = xfer_env && !strcmp(xfer_env, "both");
    const int   keep      = getenv("H5SF_TEST_KEEP") && atoi(getenv("H5SF_TEST_KEEP"));

    /* Directory. */
    char dir[4096] = "";
    int  made_dir  = 0;
    if (g_rank == 0) {
        const char *given = argc > 1 ? argv[1] : getenv("H5SF_TEST_DIR");
        if (given && *given) {
            snprintf(dir, sizeof dir, "%s", given);
            if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
                fprintf(stderr, "cannot create %s: %s\n", dir, strerror(errno));
                dir[0] = 0;
            }
        }
        else {
            snprintf(dir, sizeof dir, "/tmp/h5sf-rt-XXXXXX");
            if (!mkdtemp(dir)) {
                fprintf(stderr, "mkdtemp: %s\n", strerror(errno));
                dir[0] = 0;
            }
            else
                made_dir = 1;
        }
    }
    MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (!dir[0])
        MPI_Abort(MPI_COMM_WORLD, 1);
    if (g_rank == 0)
        printf("t_roundtrip: %d ranks, directory %s, thread level %d\n", g_size, dir, provided);

    ds_setup(g_size);

    /* ---- reference file through MPI-IO ---- */
    double *ref[DS_COUNT] = {0};
    char    base[256], path[8192];
    snprintf(base, sizeof base, "rt_np%d_ref_mpio.h5", g_size);
    snprintf(path, sizeof path, "%s/%s", dir, base);
    {
        hid_t fapl = H5ID(H5Pcreate(H5P_FILE_ACCESS));
        H5X(H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL));
        hid_t f = H5ID(H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
        write_file(f, 1, "reference (MPI-IO)");
        H5X(H5Fclose(f));
        f = H5ID(H5Fopen(path, H5F_ACC_RDONLY, fapl));
        read_check(f, 1, "reference (MPI-IO)", NULL, ref);
        H5X(H5Fclose(f));
        H5Pclose(fapl);
    }
    long ref_fail = 0;
    MPI_Allreduce(&g_fail, &ref_fail, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (ref_fail) {
        if (g_rank == 0)
            fprintf(stderr, "t_roundtrip: the MPI-IO reference does not match the pattern: test bug or HDF5 "
                            "problem; stopping\n");
        MPI_Finalize();
        return 1;
    }

    /* ---- the h5sf matrix ---- */
    const size_t nsz = sizeof g_sizes / sizeof *g_sizes, ncnt = sizeof g_counts / sizeof *g_counts;
    int          nconf = 0, nconf_bad = 0;
    for (size_t si = 0; si < nsz; si++)
        for (size_t ci = 0; ci < ncnt; ci++)
            for (int chan = 0; chan < 2; chan++) { /* 0: ioc, 1: direct */
                for (int xm = 0; xm < 2; xm++) {   /* 0: independent, 1: collective write */
                    if (!both_xfer && xm != (int)((si + ci + (size_t)chan) % 2))
                        continue;
                    const int64_t size      = g_sizes[si].size;
                    const int     count     = g_counts[ci];
                    const int     ioc       = chan == 0;
                    const int     use_strct = (int)((si + ci) % 2); /* alternate the two APIs */
                    char          ctx[512];
                    long          fail0 = g_fail;

                    snprintf(base, sizeof base, "rt_np%d_s%" PRId64 "_c%d_%s_%s.h5", g_size, size, count,
                             ioc ? "ioc" : "direct", xm ? "coll" : "indep");
                    snprintf(path, sizeof path, "%s/%s", dir, base);
                    nconf++;

                    hid_t fapl = fapl_h5sf(use_strct, size, g_sizes[si].size_text, count, ioc);
                    /* Reopen with the other channel and a different layout:
                     * the stored layout must win. */
                    hid_t fapl2 = fapl_h5sf(!use_strct, 32768, "32KiB", 2, !ioc);

                    /* write */
                    snprintf(ctx, sizeof ctx, "%s: %s write", base, xm ? "collective" : "independent");
                    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
                    if (all_ok(f >= 0, "H5Fcreate")) {
                        check_layout(f, ctx, size, count, ioc);
                        write_file(f, xm, ctx);
                        if (H5Fclose(f) < 0) {
                            g_fail++;
                            fprintf(stderr, "[rank %d] FAIL %s: H5Fclose failed\n", g_rank, ctx);
                        }
                        MPI_Barrier(MPI_COMM_WORLD);
                        if (g_rank == 0)
                            g_fail += check_disk(dir, base, size, count);

                        /* read back with the same fapl, independent */
                        snprintf(ctx, sizeof ctx, "%s: reopen, same fapl, independent read", base);
                        f = H5Fopen(path, H5F_ACC_RDONLY, fapl);
                        if (all_ok(f >= 0, "H5Fopen")) {
                            check_layout(f, ctx, size, count, ioc);
                            read_check(f, 0, ctx, ref, NULL);
                            if (H5Fclose(f) < 0) {
                                g_fail++;
                                fprintf(stderr, "[rank %d] FAIL %s: H5Fclose failed\n", g_rank, ctx);
                            }
                        }
                        else {
                            g_fail++;
                            fprintf(stderr, "[rank %d] FAIL %s: H5Fopen failed\n", g_rank, ctx);
                        }

                        /* other channel, other stripe settings, collective */
                        snprintf(ctx, sizeof ctx, "%s: reopen via %s channel with stripe_size=32KiB,stripe_count=2, collective read",
                                 base, ioc ? "direct" : "ioc");
                        f = H5Fopen(path, H5F_ACC_RDONLY, fapl2);
                        if (all_ok(f >= 0, "H5Fopen")) {
                            check_layout(f, ctx, size, count, !ioc);
                            read_check(f, 1, ctx, ref, NULL);
                            if (H5Fclose(f) < 0) {
                                g_fail++;
                                fprintf(stderr, "[rank %d] FAIL %s: H5Fclose failed\n", g_rank, ctx);
                            }
                        }
                        else {
                            g_fail++;
                            fprintf(stderr, "[rank %d] FAIL %s: H5Fopen failed\n", g_rank, ctx);
                        }
                        MPI_Barrier(MPI_COMM_WORLD);
                        if (g_rank == 0) /* layout untouched by the mismatched reopen */
                            g_fail += check_disk(dir, base, size, count);
                    }
                    else {
                        g_fail++;
                        fprintf(stderr, "[rank %d] FAIL %s: H5Fcreate failed\n", g_rank, ctx);
                    }
                    H5Pclose(fapl);
                    H5Pclose(fapl2);

                    long mine = g_fail - fail0, all = 0;
                    MPI_Allreduce(&mine, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
                    if (all)
                        nconf_bad++;
                    if (g_rank == 0) {
                        printf("%-4s %s (%s)\n", all ? "FAIL" : "ok", base,
                               use_strct ? "H5Pset_fapl_h5sf" : "H5Pset_driver_by_name");
                        fflush(stdout);
                        if (!all && !keep)
                            remove_h5(dir, base);
                    }
                    MPI_Barrier(MPI_COMM_WORLD);
                }
            }

    long total = 0;
    MPI_Allreduce(&g_fail, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    free_bufs(ref);
    if (g_rank == 0) {
        printf("t_roundtrip: %d of %d configurations passed\n", nconf - nconf_bad, nconf);
        if (!total && !keep) {
            snprintf(base, sizeof base, "rt_np%d_ref_mpio.h5", g_size);
            remove_h5(dir, base);
            if (made_dir)
                rmdir(dir);
        }
        else if (total)
            printf("t_roundtrip: files kept in %s\n", dir);
    }
    H5close();
    MPI_Finalize();
    return total ? 1 : 0;
}
