/*
 * t_roundtrip_data.c -- what t_roundtrip writes where: the datasets, the
 * pattern (a pure function of dataset and global element index, so every
 * rank knows the whole expected content), each rank's selection of every
 * kind, and buffers of int or double viewed as double.
 * Makes no file and no I/O call.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "t_roundtrip.h"

dsinfo_t g_ds[DS_COUNT];

void ds_setup(int np)
{
    const hsize_t n  = (hsize_t)np;
    g_ds[DS_CONTIG]  = (dsinfo_t){"contig", DS_CONTIG, 0, 1, {n * N1, 0}};
    g_ds[DS_STRIDED] = (dsinfo_t){"strided", DS_STRIDED, 0, 1, {n * NB * BLK, 0}};
    g_ds[DS_POINTS]  = (dsinfo_t){"points", DS_POINTS, 1, 1, {n * NP, 0}};
    g_ds[DS_UNION]   = (dsinfo_t){"union", DS_UNION, 0, 2, {n * U_ROWS, U_COLS}};
    g_ds[DS_CHUNKED] = (dsinfo_t){"chunked", DS_CHUNKED, 1, 2, {n * C_ROWS, C_COLS}};
    g_ds[DS_SLAB2D]  = (dsinfo_t){"slab2d", DS_SLAB2D, 1, 2, {S_ROWS, n * S_COLS}};
    g_ds[DS_COMPACT] = (dsinfo_t){"compact", DS_COMPACT, 0, 1, {CP_N, 0}};
}

uint64_t ds_nelem(const dsinfo_t *d) { return d->ndims == 1 ? d->dims[0] : d->dims[0] * d->dims[1]; }

/* Value of element g of dataset ds, the harness's int pattern (seed ds):
 * exact in double and in int; a double dataset's has a fraction too. */
double pattern(int ds, uint64_t g, int is_double)
{
    double v = (double)t_pat_int((uint64_t)ds, g);
    return is_double ? v + 0.125 : v;
}

int union_has(uint64_t lr, uint64_t j)
{
    return (lr < 8 && j < 150) || (lr >= 4 && j >= 100) || (lr >= 8 && j < 100 && j % 2 == 0);
}

/* Which rank writes element g; -1: nobody (fill value); OWN_ALL: all. */
int owner(const dsinfo_t *d, uint64_t g)
{
    const uint64_t np = (uint64_t)t_size;
    switch (d->kind) {
        case DS_CONTIG: return (int)(g / N1);
        case DS_STRIDED: return (int)((g / BLK) % np);
        case DS_POINTS: return (int)(t_mix(0, g + 12345) % np);
        case DS_UNION: {
            uint64_t i = g / U_COLS, j = g % U_COLS;
            return union_has(i % U_ROWS, j) ? (int)(i / U_ROWS) : -1;
        }
        case DS_CHUNKED: return (int)(g / C_COLS / C_ROWS);
        case DS_SLAB2D: return (int)((g % (np * S_COLS)) / S_COLS);
        case DS_COMPACT: return OWN_ALL;
    }
    return -1;
}

double expected(const dsinfo_t *d, uint64_t g)
{
    return owner(d, g) == -1 ? FILL_VALUE : pattern(d->kind, g, d->is_double);
}

/* This rank's selection: file and memory dataspaces, and for the k-th
 * selected element its global index and its offset in the memory buffer. */

void sel_free(sel_t *s)
{
    H5Sclose(s->fspace);
    H5Sclose(s->mspace);
    free(s->gidx);
    free(s->memoff);
}

void sel_make(const dsinfo_t *d, int r, sel_t *s)
{
    const uint64_t tot = ds_nelem(d);
    memset(s, 0, sizeof *s);
    s->fspace = H5VRFY(H5Screate_simple(d->ndims, d->dims, NULL));
    s->gidx   = malloc(sizeof *s->gidx * (tot ? tot : 1));
    s->memoff = malloc(sizeof *s->memoff * (tot ? tot : 1));
    if (!s->gidx || !s->memoff)
        VRFY(0, "out of memory");

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

    const hsize_t R = (hsize_t)r, NPR = (hsize_t)t_size;
    switch (d->kind) {
        case DS_CONTIG: {
            hsize_t start = R * N1, count = N1;
            H5VRFY(H5Sselect_hyperslab(s->fspace, H5S_SELECT_SET, &start, NULL, &count, NULL));
            break;
        }
        case DS_STRIDED: {
            hsize_t start = R * BLK, stride = NPR * BLK, count = NB, block = BLK;
            H5VRFY(H5Sselect_hyperslab(s->fspace, H5S_SELECT_SET, &start, &stride, &count, &block));
            break;
        }
        case DS_POINTS: {
            /* Unsorted: a deterministic shuffle per rank. */
            uint64_t st = 0x9e3779b97f4a7c15ULL * (R + 1);
            for (size_t k = s->n; k > 1; k--) {
                st             = st * 6364136223846793005ULL + 1442695040888963407ULL;
                size_t   j     = (size_t)((st >> 33) % k);
                uint64_t t     = s->gidx[k - 1];
                s->gidx[k - 1] = s->gidx[j];
                s->gidx[j]     = t;
            }
            if (s->n) {
                hsize_t *coord = malloc(sizeof *coord * s->n);
                if (!coord)
                    VRFY(0, "out of memory");
                for (size_t k = 0; k < s->n; k++)
                    coord[k] = s->gidx[k];
                H5VRFY(H5Sselect_elements(s->fspace, H5S_SELECT_SET, s->n, coord));
                free(coord);
            }
            else
                H5VRFY(H5Sselect_none(s->fspace));
            break;
        }
        case DS_UNION: {
            hsize_t sa[2] = {R * U_ROWS, 0}, ca[2] = {8, 150};
            hsize_t sb[2] = {R * U_ROWS + 4, 100}, cb[2] = {12, 200};
            hsize_t sc[2] = {R * U_ROWS + 8, 0}, tc[2] = {1, 2}, cc[2] = {8, 50}, bc[2] = {1, 1};
            H5VRFY(H5Sselect_hyperslab(s->fspace, H5S_SELECT_SET, sa, NULL, ca, NULL));
            H5VRFY(H5Sselect_hyperslab(s->fspace, H5S_SELECT_OR, sb, NULL, cb, NULL));
            H5VRFY(H5Sselect_hyperslab(s->fspace, H5S_SELECT_OR, sc, tc, cc, bc));
            break;
        }
        case DS_CHUNKED: {
            hsize_t start[2] = {R * C_ROWS, 0}, count[2] = {C_ROWS, C_COLS};
            H5VRFY(H5Sselect_hyperslab(s->fspace, H5S_SELECT_SET, start, NULL, count, NULL));
            break;
        }
        case DS_SLAB2D: {
            hsize_t start[2] = {0, R * S_COLS}, count[2] = {S_ROWS, S_COLS};
            H5VRFY(H5Sselect_hyperslab(s->fspace, H5S_SELECT_SET, start, NULL, count, NULL));
            break;
        }
        case DS_COMPACT: H5VRFY(H5Sselect_all(s->fspace)); break;
    }
    VRFY((size_t)H5Sget_select_npoints(s->fspace) == s->n, "test bug: %s selects %lld elements, expected %zu", d->name,
         (long long)H5Sget_select_npoints(s->fspace), s->n);

    if (d->kind == DS_SLAB2D) {
        /* Memory: S_ROWS x (S_COLS + S_PAD), selecting the first S_COLS of
         * each row; the padding must never be touched. */
        hsize_t mdims[2] = {S_ROWS, S_COLS + S_PAD}, start[2] = {0, 0}, count[2] = {S_ROWS, S_COLS};
        s->mspace = H5VRFY(H5Screate_simple(2, mdims, NULL));
        H5VRFY(H5Sselect_hyperslab(s->mspace, H5S_SELECT_SET, start, NULL, count, NULL));
        for (size_t k = 0; k < s->n; k++)
            s->memoff[k] = (k / S_COLS) * (S_COLS + S_PAD) + k % S_COLS;
        s->memn = (size_t)(mdims[0] * mdims[1]);
    }
    else {
        hsize_t m = s->n ? s->n : 1;
        s->mspace = H5VRFY(H5Screate_simple(1, &m, NULL));
        if (!s->n)
            H5VRFY(H5Sselect_none(s->mspace));
    }
}

/* ---- buffers: int or double, viewed as double for checks -------------- */

hid_t memtype(const dsinfo_t *d) { return d->is_double ? H5T_NATIVE_DOUBLE : H5T_NATIVE_INT; }
hid_t filetype(const dsinfo_t *d) { return d->is_double ? H5T_IEEE_F64LE : H5T_STD_I32LE; }

void *buf_alloc(const dsinfo_t *d, size_t n)
{
    void *b = malloc((n ? n : 1) * (d->is_double ? sizeof(double) : sizeof(int)));
    if (!b)
        VRFY(0, "out of memory");
    return b;
}
double buf_get(const dsinfo_t *d, const void *b, size_t i)
{
    return d->is_double ? ((const double *)b)[i] : (double)((const int *)b)[i];
}
void buf_set(const dsinfo_t *d, void *b, size_t i, double v)
{
    if (d->is_double)
        ((double *)b)[i] = v;
    else
        ((int *)b)[i] = (int)v;
}

void report(const char *ctx, const dsinfo_t *d, uint64_t g, double got, double want, long *nbad)
{
    if (++*nbad > MAX_REPORT)
        return;
    if (d->ndims == 2)
        fprintf(stderr,
                "[rank %d] MISMATCH %s: dataset %s element %" PRIu64 " (%" PRIu64 ",%" PRIu64
                "): got %.17g expected %.17g\n",
                t_rank, ctx, d->name, g, g / d->dims[1], g % d->dims[1], got, want);
    else
        fprintf(stderr, "[rank %d] MISMATCH %s: dataset %s element %" PRIu64 ": got %.17g expected %.17g\n", t_rank,
                ctx, d->name, g, got, want);
}

void report_done(const char *ctx, const dsinfo_t *d, long nbad)
{
    if (nbad > MAX_REPORT)
        fprintf(stderr, "[rank %d] MISMATCH %s: dataset %s: %ld mismatching elements in all\n", t_rank, ctx, d->name,
                nbad);
    CHECK(nbad == 0, "%s: dataset %s: %ld mismatching elements", ctx, d->name, nbad);
}
