/*
 * t_mpitype -- the flattening of MPI derived datatypes (vfd/mpitype.c)
 * against MPI itself.
 *
 * Reference: MPI_Pack of a source buffer whose bytes encode their own
 * offsets (one pass per byte of the offset) yields, for every packed byte,
 * the offset it came from -- the typemap order, which is what flattening
 * must produce.  Checked: the types HDF5 builds (H5Smpio.c: regular
 * hyperslabs, span trees, points, large types; H5Dmpio.c: a struct per
 * chunk), the other constructors and their nestings, the pairing of a
 * memory with a file type into a plan (h5sf_coll_extents), refusals, and at
 * scale that a type of 2^26 bytes is read node by node, not byte by byte.
 * One rank; compiles vfd/mpitype.c in (its functions are hidden in libh5sf).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../vfd/internal.h"
#include "h5sf_test.h"

/* ---- the reference ------------------------------------------------------ */

/* Offsets (from t's origin) of the packed bytes of `count` instances of t,
 * in packed order; *n of them.  malloc'd. */
static MPI_Aint *ref_offsets(MPI_Datatype t, int count, size_t *n)
{
    MPI_Aint  tlb, text;
    MPI_Count sz;
    MPI_Type_get_true_extent(t, &tlb, &text);
    MPI_Type_size_x(t, &sz);
    *n = (size_t)sz * (size_t)count;
    MPI_Aint lb, ext;
    MPI_Type_get_extent(t, &lb, &ext);
    size_t         span = (size_t)(text + (count - 1) * (ext > 0 ? ext : 0)) + 1;
    unsigned char *src = malloc(span), *packed = malloc(*n + 1);
    MPI_Aint      *off = calloc(*n + 1, sizeof *off);
    for (int pass = 0; pass < 4; pass++) {
        for (size_t i = 0; i < span; i++)
            src[i] = (unsigned char)(i >> (8 * pass));
        int pos = 0;
        MPI_Pack(src - tlb, count, t, packed, (int)*n, &pos, MPI_COMM_SELF);
        for (size_t k = 0; k < *n; k++)
            off[k] |= (MPI_Aint)packed[k] << (8 * pass);
    }
    for (size_t k = 0; k < *n; k++)
        off[k] += tlb;
    free(src);
    free(packed);
    return off;
}

/* Offsets merged into runs where each follows the previous one. */
static h5sf_run_t *to_runs(const MPI_Aint *off, size_t n, size_t *nr)
{
    h5sf_run_t *r = malloc((n + 1) * sizeof *r);
    *nr           = 0;
    for (size_t k = 0; k < n; k++) {
        if (*nr && r[*nr - 1].disp + r[*nr - 1].len == off[k])
            r[*nr - 1].len++;
        else
            r[(*nr)++] = (h5sf_run_t){off[k], 1};
    }
    return r;
}

/* Flatten t with h5sf and compare with the reference; frees t (unless
 * predefined). */
static void check_type(const char *name, MPI_Datatype t)
{
    h5sf_errbuf_t e      = {0};
    h5sf_run_t   *got    = NULL;
    size_t        ngot   = 0, nref, nwant;
    uint64_t      visits = 0;
    int           ni, na, nd, comb;
    MPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
    if (comb != MPI_COMBINER_NAMED)
        MPI_Type_commit(&t);
    MPI_Aint   *off  = ref_offsets(t, 1, &nref);
    h5sf_run_t *want = to_runs(off, nref, &nwant);
    if (h5sf_mpitype_runs(t, &got, &ngot, &visits, &e) < 0)
        CHECK(0, "%s: refused: %s", name, e.msg);
    else {
        CHECK(ngot == nwant, "%s: %zu runs, MPI_Pack says %zu", name, ngot, nwant);
        for (size_t i = 0; i < ngot && i < nwant; i++)
            if (got[i].disp != want[i].disp || got[i].len != want[i].len) {
                CHECK(0, "%s: run %zu is [%ld,+%ld), MPI_Pack says [%ld,+%ld)", name, i, (long)got[i].disp,
                      (long)got[i].len, (long)want[i].disp, (long)want[i].len);
                break;
            }
    }
    free(off);
    free(want);
    free(got);
    if (comb != MPI_COMBINER_NAMED)
        MPI_Type_free(&t);
}

/* ---- types as HDF5 builds them -------------------------------------------- */

static MPI_Datatype contig(int n, MPI_Datatype old)
{
    MPI_Datatype t;
    MPI_Type_contiguous(n, old, &t);
    return t;
}

static MPI_Datatype bytes(int n) { return contig(n, MPI_BYTE); }

/* H5S__mpio_reg_hyper_type: a regular hyperslab of `rank` dims, element
 * size es, built from the inside out (vector, then start and extent by
 * hindexed + resized). */
static MPI_Datatype hdf5_hyper(int rank, const int *dims, const int *start, const int *stride, const int *count,
                               const int *block, int es)
{
    MPI_Datatype inner = bytes(es), outer;
    MPI_Aint     offset[8], xtent[8];
    offset[rank - 1] = 1;
    xtent[rank - 1]  = dims[rank - 1];
    for (int i = rank - 2; i >= 0; i--) {
        offset[i] = offset[i + 1] * dims[i + 1];
        xtent[i]  = xtent[i + 1] * dims[i];
    }
    for (int i = rank - 1; i >= 0; i--) {
        MPI_Type_vector(count[i], block[i], stride[i], inner, &outer);
        MPI_Type_free(&inner);
        MPI_Aint start_disp = (MPI_Aint)start[i] * offset[i] * es, new_ext = (MPI_Aint)es * xtent[i], lb, ext;
        MPI_Type_get_extent(outer, &lb, &ext);
        if (start_disp > 0 || ext < new_ext) {
            MPI_Datatype interm;
            int          one = 1;
            MPI_Type_create_hindexed(1, &one, &start_disp, outer, &interm);
            MPI_Type_free(&outer);
            MPI_Type_create_resized(interm, lb, new_ext, &inner);
            MPI_Type_free(&interm);
        }
        else
            inner = outer;
    }
    return inner;
}

/* H5S__obtain_datatype for a 2-D span tree: rows [lo, hi] of row `width`
 * elements, each row with the column spans cols[2k]..cols[2k+1]. */
static MPI_Datatype hdf5_spans(int nrowspans, const int *rows, int ncols, const int *cols, int width, int es)
{
    MPI_Datatype elmt = bytes(es), down, inner[8], t;
    int          bl[8];
    MPI_Aint     disp[8];
    for (int k = 0; k < ncols; k++) {
        disp[k] = (MPI_Aint)es * cols[2 * k];
        bl[k]   = cols[2 * k + 1] - cols[2 * k] + 1;
    }
    MPI_Type_create_hindexed(ncols, bl, disp, elmt, &down);
    MPI_Aint stride = (MPI_Aint)width * es;
    for (int k = 0; k < nrowspans; k++) {
        MPI_Type_create_hvector(rows[2 * k + 1] - rows[2 * k] + 1, 1, stride, down, &inner[k]);
        disp[k] = rows[2 * k] * stride;
        bl[k]   = 1;
    }
    MPI_Type_create_struct(nrowspans, bl, disp, inner, &t);
    for (int k = 0; k < nrowspans; k++)
        MPI_Type_free(&inner[k]);
    MPI_Type_free(&down);
    MPI_Type_free(&elmt);
    return t;
}

/* H5S__mpio_create_point_datatype: points in the given (file) order. */
static MPI_Datatype hdf5_points(int n, const MPI_Aint *disp, int es)
{
    MPI_Datatype elmt = bytes(es), t;
    MPI_Type_create_hindexed_block(n, 1, disp, elmt, &t);
    MPI_Type_free(&elmt);
    return t;
}

/* H5_mpio_create_large_type with a small "bigio" count: n elements of old
 * as `big`-sized pieces plus the rest, contiguous (stride 0) or hvector. */
static MPI_Datatype hdf5_large(int n, int big, MPI_Aint stride, MPI_Datatype old)
{
    MPI_Datatype in, out, left, ty[2], t;
    int          nbig = n / big, rem = n - nbig * big, bl[2] = {1, 1};
    MPI_Aint     lb, ext, d[2];
    if (stride == 0) {
        MPI_Type_contiguous(big, old, &in);
        MPI_Type_contiguous(nbig, in, &out);
    }
    else {
        MPI_Type_create_hvector(big, 1, stride, old, &in);
        MPI_Type_create_hvector(nbig, 1, stride, in, &out);
    }
    MPI_Type_free(&in);
    if (!rem)
        return out;
    if (stride == 0)
        MPI_Type_contiguous(rem, old, &left);
    else
        MPI_Type_create_hvector(rem, 1, stride, old, &left);
    MPI_Type_get_extent(old, &lb, &ext);
    ty[0] = out, ty[1] = left, d[0] = 0, d[1] = (ext + stride) * nbig * big;
    MPI_Type_create_struct(2, bl, d, ty, &t);
    MPI_Type_free(&out);
    MPI_Type_free(&left);
    return t;
}

/* H5D__link_piece_collective_io: a struct of per-chunk types at the chunks'
 * displacements (counts > 1 where a chunk's type is MPI_BYTE). */
static MPI_Datatype hdf5_chunks(int n, const int *cnt, const MPI_Aint *disp, MPI_Datatype *types)
{
    MPI_Datatype t;
    MPI_Type_create_struct(n, cnt, disp, types, &t);
    for (int i = 0; i < n; i++)
        if (types[i] != MPI_BYTE)
            MPI_Type_free(&types[i]);
    return t;
}

/* ---- cases ------------------------------------------------------------------ */

static void check_constructors(void)
{
    MPI_Datatype t, a, b, c;
    check_type("named int", MPI_INT);
    check_type("named byte", MPI_BYTE);
    check_type("contiguous of one int", contig(1, MPI_INT));
    check_type("contiguous of int", contig(1000, MPI_INT));
    check_type("contiguous of bytes", bytes(4097));
    MPI_Type_vector(10, 3, 7, MPI_INT, &t);
    check_type("vector", t);
    MPI_Type_vector(6, 2, -3, MPI_SHORT, &t);
    check_type("vector, negative stride", t);
    MPI_Type_vector(5, 4, 4, MPI_BYTE, &t);
    check_type("vector, stride == block (dense)", t);
    a = bytes(3);
    MPI_Type_create_hvector(5, 2, -24, a, &t);
    check_type("hvector, negative stride", t);
    MPI_Type_create_hvector(6, 2, 13, MPI_SHORT, &t);
    check_type("hvector, irregular stride", t);
    MPI_Type_create_hvector(4, 2, 3, MPI_SHORT, &t);
    check_type("hvector, overlapping copies", t);
    MPI_Type_create_hvector(7, 1, 3, a, &t);
    check_type("hvector, stride == child extent (dense)", t);
    MPI_Type_free(&a);
    {
        int bl[] = {2, 0, 5}, d[] = {10, 1, -3};
        MPI_Type_indexed(3, bl, d, MPI_INT, &t);
        check_type("indexed, empty block, negative disp", t);
    }
    {
        int      bl[] = {1, 4, 2};
        MPI_Aint d[]  = {100, 7, -50};
        a             = bytes(3);
        MPI_Type_create_hindexed(3, bl, d, a, &t);
        MPI_Type_free(&a);
        check_type("hindexed", t);
    }
    {
        int bl[] = {3, 3, 3}, d[] = {0, 3, 6};
        MPI_Type_indexed(3, bl, d, MPI_INT, &t);
        check_type("indexed, blocks adjacent", t);
    }
    {
        int d[] = {9, 0, 20, 5};
        MPI_Type_create_indexed_block(4, 3, d, MPI_SHORT, &t);
        check_type("indexed_block", t);
    }
    {
        MPI_Aint d[] = {16, 0, 8, 24, 32};
        a            = bytes(8);
        MPI_Type_create_hindexed_block(5, 1, d, a, &t);
        MPI_Type_free(&a);
        check_type("hindexed_block, partly adjacent", t);
    }
    {
        int          bl[] = {1, 2, 3};
        MPI_Aint     d[]  = {0, 1000, -40};
        MPI_Datatype ty[3];
        MPI_Type_vector(3, 2, 4, MPI_INT, &ty[0]);
        b = bytes(5);
        MPI_Type_create_hvector(2, 1, 64, b, &ty[1]);
        MPI_Type_free(&b);
        ty[2] = MPI_BYTE;
        MPI_Type_create_struct(3, bl, d, ty, &t);
        MPI_Type_free(&ty[0]);
        MPI_Type_free(&ty[1]);
        check_type("struct of vectors", t);
    }
    {
        int          bl[] = {1, 1, 1};
        MPI_Aint     d[]  = {8, 4, 0};
        MPI_Datatype ty[] = {MPI_INT, MPI_INT, MPI_INT};
        MPI_Type_create_struct(3, bl, d, ty, &a);
        MPI_Type_contiguous(3, a, &t);
        MPI_Type_free(&a);
        check_type("contiguous of a descending struct", t);
    }
    MPI_Type_vector(2, 1, 3, MPI_INT, &a);
    MPI_Type_create_resized(a, -8, 40, &b);
    MPI_Type_free(&a);
    MPI_Type_contiguous(3, b, &t);
    MPI_Type_free(&b);
    check_type("contiguous of resized vector", t);
    a = bytes(3);
    MPI_Type_create_resized(a, 0, 2, &b);
    MPI_Type_free(&a);
    MPI_Type_contiguous(4, b, &t);
    MPI_Type_free(&b);
    check_type("contiguous of resized, extent < size (overlap)", t);
    a = bytes(6);
    MPI_Type_create_resized(a, -2, 6, &b);
    MPI_Type_free(&a);
    MPI_Type_vector(5, 3, 3, b, &t);
    MPI_Type_free(&b);
    check_type("vector of resized, negative lb (dense)", t);
    MPI_Type_vector(3, 2, 5, MPI_INT, &a);
    MPI_Type_dup(a, &t);
    MPI_Type_free(&a);
    check_type("dup of vector", t);
    /* Nestings. */
    {
        int      bl[] = {2, 1};
        MPI_Aint d[]  = {-7, 30};
        a             = bytes(2);
        MPI_Type_create_hindexed(2, bl, d, a, &b);
        MPI_Type_free(&a);
        MPI_Type_vector(4, 2, 3, b, &c);
        MPI_Type_free(&b);
        MPI_Type_create_hvector(3, 1, -200, c, &t);
        MPI_Type_free(&c);
        check_type("hvector of vector of hindexed", t);
    }
    {
        int d[] = {4, 0, 2};
        MPI_Type_vector(2, 1, 2, MPI_SHORT, &a);
        MPI_Type_create_indexed_block(3, 2, d, a, &b);
        MPI_Type_free(&a);
        MPI_Type_dup(b, &c);
        MPI_Type_free(&b);
        MPI_Type_contiguous(2, c, &t);
        MPI_Type_free(&c);
        check_type("contiguous of dup of indexed_block of vector", t);
    }
}

static void check_hdf5_types(void)
{
    {
        int dims[] = {20, 30}, start[] = {2, 5}, stride[] = {3, 4}, count[] = {5, 6}, block[] = {2, 3};
        check_type("hdf5 2-D hyperslab", hdf5_hyper(2, dims, start, stride, count, block, 4));
    }
    {
        int dims[] = {20, 30}, start[] = {0, 0}, stride[] = {1, 1}, count[] = {20, 1}, block[] = {1, 30};
        check_type("hdf5 2-D hyperslab, whole rows", hdf5_hyper(2, dims, start, stride, count, block, 8));
    }
    {
        int dims[] = {6, 7, 9}, start[] = {1, 2, 3}, stride[] = {2, 3, 2}, count[] = {2, 2, 3}, block[] = {1, 2, 2};
        check_type("hdf5 3-D hyperslab", hdf5_hyper(3, dims, start, stride, count, block, 2));
    }
    {
        int dims[] = {1000}, start[] = {17}, stride[] = {1}, count[] = {1}, block[] = {900};
        check_type("hdf5 1-D hyperslab", hdf5_hyper(1, dims, start, stride, count, block, 1));
    }
    {
        int rows[] = {1, 3, 6, 6}, cols[] = {0, 2, 5, 9};
        check_type("hdf5 span tree", hdf5_spans(2, rows, 2, cols, 12, 4));
    }
    {
        MPI_Aint d[] = {40, 0, 8, 16, 400, 4};
        check_type("hdf5 points", hdf5_points(6, d, 4));
    }
    check_type("hdf5 large contiguous", hdf5_large(1000, 64, 0, MPI_BYTE));
    {
        MPI_Datatype el = bytes(3);
        check_type("hdf5 large hvector", hdf5_large(100, 16, 10, el));
        MPI_Type_free(&el);
    }
    {
        /* Two chunks in file order, the first a hyperslab, the second all of
         * a 4 KiB chunk (MPI_BYTE x 4096), the third points. */
        int          dims[] = {64, 64}, start[] = {0, 8}, stride[] = {1, 1}, count[] = {1, 1}, block[] = {64, 16};
        MPI_Aint     pd[]  = {12, 4, 40};
        MPI_Datatype ty[]  = {hdf5_hyper(2, dims, start, stride, count, block, 1), MPI_BYTE, hdf5_points(3, pd, 4)};
        int          cnt[] = {1, 4096, 1};
        MPI_Aint     d[]   = {0, 4096, 3 * 4096};
        check_type("hdf5 chunks (file)", hdf5_chunks(3, cnt, d, ty));
    }
}

/* Collect h5sf_coll_extents' extents into a plan. */
static int plan_cb(void *plan, uint64_t addr, uint64_t len, uint64_t mem) { return sf_plan_add(plan, addr, len, mem); }

/* h5sf_coll_extents pairs the memory and file streams byte for byte, the
 * file type tiling; the reference pairs MPI_Pack's offsets of both. */
static void check_extents(const char *name, MPI_Datatype mt, MPI_Datatype ft, size_t size)
{
    sf_plan_t     plan;
    h5sf_errbuf_t e    = {0};
    const haddr_t addr = 1 << 20;
    const char   *buf  = (const char *)(uintptr_t)(1 << 24);
    MPI_Count     msz, fsz;
    if (mt != MPI_BYTE)
        MPI_Type_commit(&mt);
    MPI_Type_commit(&ft);
    MPI_Type_size_x(mt, &msz);
    MPI_Type_size_x(ft, &fsz);
    size_t    bytes = mt == MPI_BYTE ? size : (size_t)msz, nm, nf;
    MPI_Aint *mo    = mt == MPI_BYTE ? NULL : ref_offsets(mt, 1, &nm);
    MPI_Aint *fo    = ref_offsets(ft, (int)((bytes + (size_t)fsz - 1) / (size_t)fsz), &nf);
    sf_plan_init(&plan, (uint64_t)1 << 40, 1);
    if (h5sf_coll_extents(plan_cb, &plan, addr, size, buf, mt, ft, &e) < 0)
        CHECK(0, "%s: refused: %s", name, e.msg);
    else {
        size_t k = 0;
        for (size_t p = 0; p < plan.lists[0].n; p++) {
            sf_piece_t *pc = &plan.lists[0].v[p];
            for (uint64_t j = 0; j < pc->len && k < bytes; j++, k++) {
                uint64_t wf = addr + (uint64_t)fo[k],
                         wm = (uint64_t)(uintptr_t)buf + (uint64_t)(mo ? mo[k] : (MPI_Aint)k);
                if (pc->off + j != wf || pc->mem + j != wm) {
                    CHECK(0, "%s: byte %zu goes file %llu <-> memory %llu, MPI_Pack says %llu <-> %llu", name, k,
                          (unsigned long long)(pc->off + j), (unsigned long long)(pc->mem + j), (unsigned long long)wf,
                          (unsigned long long)wm);
                    p = plan.lists[0].n;
                    break;
                }
            }
        }
        CHECK(k == bytes && plan.lists[0].bytes == bytes, "%s: plan holds %llu bytes, the transfer %zu", name,
              (unsigned long long)plan.lists[0].bytes, bytes);
    }
    sf_plan_free(&plan);
    free(mo);
    free(fo);
    if (mt != MPI_BYTE)
        MPI_Type_free(&mt);
    MPI_Type_free(&ft);
}

static void check_pairing(void)
{
    MPI_Datatype m, f;
    {
        int dims[] = {16, 16}, start[] = {2, 3}, stride[] = {3, 4}, count[] = {4, 3}, block[] = {2, 2};
        int fdims[] = {40, 10}, fstart[] = {1, 0}, fstride[] = {2, 1}, fcount[] = {12, 1}, fblock[] = {1, 8};
        /* 4*2 x 3*2 elements of 2 bytes = 96 bytes on both sides. */
        m = hdf5_hyper(2, dims, start, stride, count, block, 2);
        f = hdf5_hyper(2, fdims, fstart, fstride, fcount, fblock, 1);
        check_extents("hyperslab to hyperslab", m, f, 96);
    }
    MPI_Type_vector(4, 3, 5, MPI_BYTE, &f);
    check_extents("bytes to a tiling vector", MPI_BYTE, f, 50);
    {
        MPI_Aint d[] = {30, 0, 10};
        m            = hdf5_points(3, d, 8);
        MPI_Type_create_hvector(6, 4, -16, MPI_BYTE, &f);
        check_extents("points to a negative hvector", m, f, 24);
    }
}

static void check_refusals(void)
{
    h5sf_errbuf_t e = {0};
    h5sf_run_t   *r = NULL;
    size_t        n;
    uint64_t      v;
    MPI_Datatype  t;
    int           sizes[] = {8, 8}, sub[] = {2, 3}, st[] = {1, 1};
    MPI_Type_create_subarray(2, sizes, sub, st, MPI_ORDER_C, MPI_BYTE, &t);
    CHECK(h5sf_mpitype_runs(t, &r, &n, &v, &e) < 0 && strstr(e.msg, "subarray"), "subarray: not refused by name (%s)",
          e.msg);
    free(r);
    r = NULL;
    MPI_Type_free(&t);
    /* A named type whose typemap has a gap (short, pad, int). */
    memset(&e, 0, sizeof e);
    MPI_Type_contiguous(2, MPI_SHORT_INT, &t);
    CHECK(h5sf_mpitype_runs(t, &r, &n, &v, &e) < 0 && e.msg[0], "MPI_SHORT_INT: not refused");
    free(r);
    MPI_Type_free(&t);
}

/* Regular types of 2^26 bytes: a handful of datatype nodes read, one run. */
static void check_scale_one(const char *name, MPI_Datatype t, size_t want_runs, MPI_Aint want_len)
{
    h5sf_errbuf_t e      = {0};
    h5sf_run_t   *r      = NULL;
    size_t        n      = 0;
    uint64_t      visits = 0;
    MPI_Type_commit(&t);
    if (h5sf_mpitype_runs(t, &r, &n, &visits, &e) < 0)
        CHECK(0, "%s: refused: %s", name, e.msg);
    else {
        CHECK(n == want_runs, "%s: %zu runs, want %zu", name, n, want_runs);
        CHECK(n > 0 && r[0].disp == 0 && r[0].len == want_len, "%s: first run is not [0,+%ld)", name, (long)want_len);
        CHECK(visits <= 16, "%s: %llu datatype nodes read for a type of a few nodes", name, (unsigned long long)visits);
    }
    free(r);
    MPI_Type_free(&t);
}

static void check_scale(void)
{
    const int    N = 1 << 26;
    MPI_Datatype t, a;
    check_scale_one("contiguous of 2^26 bytes", bytes(N), 1, N);
    MPI_Type_vector(1 << 13, 1 << 13, 1 << 13, MPI_BYTE, &t);
    check_scale_one("vector of 2^13 x 2^13 bytes, stride == block", t, 1, N);
    a = bytes(1);
    MPI_Type_create_hvector(1 << 13, 1 << 13, 1 << 13, a, &t);
    MPI_Type_free(&a);
    check_scale_one("hvector of 2^13 x 2^13 one-byte types", t, 1, N);
    {
        int          cnt = N;
        MPI_Aint     d   = 0;
        MPI_Datatype ty  = MPI_BYTE;
        MPI_Type_create_struct(1, &cnt, &d, &ty, &t);
        check_scale_one("struct of MPI_BYTE x 2^26 (HDF5's chunk of all)", t, 1, N);
    }
    {
        int dims[] = {1 << 13, 1 << 13}, start[] = {0, 0}, stride[] = {1, 1}, count[] = {1, 1},
            block[] = {1 << 13, 1 << 13};
        check_scale_one("hdf5 hyperslab of 2^13 x 2^13 bytes", hdf5_hyper(2, dims, start, stride, count, block, 1), 1,
                        N);
    }
    check_scale_one("hdf5 large type of 2^26 bytes", hdf5_large(N, 1 << 20, 0, MPI_BYTE), 1, N);
    /* Not dense: the runs are the output, but still few nodes read. */
    MPI_Type_vector(1 << 20, 1, 2, MPI_BYTE, &t);
    check_scale_one("vector of 2^20 single bytes at stride 2", t, (size_t)1 << 20, 1);
}

int main(int argc, char **argv)
{
    t_init_level(&argc, &argv, "t_mpitype", MPI_THREAD_SINGLE); /* no threads: MPI_Init's level */
    check_constructors();
    check_hdf5_types();
    check_pairing();
    check_refusals();
    check_scale();
    return t_finish();
}
