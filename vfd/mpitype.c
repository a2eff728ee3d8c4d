/*
 * mpitype.c -- flatten the MPI derived datatypes of a collective transfer.
 *
 * For collective I/O HDF5 describes a rank's part as MPI-IO would see it:
 * memory is one instance of `btype` at buf, the file is a view at `addr`
 * with filetype `ftype`.  We walk both typemaps (MPI_Type_get_envelope /
 * get_contents, the only portable way in) into ordered lists of contiguous
 * byte runs and pair them byte for byte, as MPI-IO would, into extents of
 * the stripe plan.  Only the constructors HDF5 builds are needed; anything
 * else is an error naming the constructor.
 */
#include <errno.h>
#include <stdlib.h>
#include "internal.h"

typedef struct seg {
    MPI_Aint disp;
    MPI_Aint len;
} seg_t;

typedef struct segs {
    seg_t *v;
    size_t n, cap;
} segs_t;

static int segs_add(segs_t *s, MPI_Aint disp, MPI_Aint len)
{
    if (len <= 0)
        return 0;
    if (s->n && s->v[s->n - 1].disp + s->v[s->n - 1].len == disp) {
        s->v[s->n - 1].len += len; /* merge what the typemap makes adjacent */
        return 0;
    }
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 64;
        seg_t *p   = realloc(s->v, cap * sizeof *p);
        if (!p)
            return -1;
        s->v   = p;
        s->cap = cap;
    }
    s->v[s->n++] = (seg_t){disp, len};
    return 0;
}

static const char *combiner_name(int c)
{
    switch (c) {
        case MPI_COMBINER_SUBARRAY: return "subarray";
        case MPI_COMBINER_DARRAY: return "darray";
        case MPI_COMBINER_F90_REAL: case MPI_COMBINER_F90_COMPLEX: case MPI_COMBINER_F90_INTEGER: return "f90";
        default: return "unknown";
    }
}

static int flatten(MPI_Datatype t, MPI_Aint base, segs_t *out, h5sf_errbuf_t *e);

/* count copies of child `t`, the i-th at base + disp(i). */
static int repeat(MPI_Datatype t, MPI_Aint base, int count, MPI_Aint first, MPI_Aint stride, segs_t *out,
                  h5sf_errbuf_t *e)
{
    for (int i = 0; i < count; i++)
        if (flatten(t, base + first + (MPI_Aint)i * stride, out, e) < 0)
            return -1;
    return 0;
}

static int flatten(MPI_Datatype t, MPI_Aint base, segs_t *out, h5sf_errbuf_t *e)
{
    int           ni, na, nd, comb, ret = -1;
    int          *ints  = NULL;
    MPI_Aint     *addrs = NULL;
    MPI_Datatype *types = NULL;
    MPI_Aint      lb, ext;

    MPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
    if (comb == MPI_COMBINER_NAMED) {
        int size;
        MPI_Type_size(t, &size);
        if (segs_add(out, base, size) < 0)
            return h5sf_fail(e, ENOMEM, "out of memory flattening an MPI datatype");
        return 0;
    }
    ints  = malloc((size_t)(ni ? ni : 1) * sizeof *ints);
    addrs = malloc((size_t)(na ? na : 1) * sizeof *addrs);
    types = malloc((size_t)(nd ? nd : 1) * sizeof *types);
    if (!ints || !addrs || !types) {
        h5sf_fail(e, ENOMEM, "out of memory flattening an MPI datatype");
        goto done;
    }
    MPI_Type_get_contents(t, ni, na, nd, ints, addrs, types);
    if (nd >= 1)
        MPI_Type_get_extent(types[0], &lb, &ext);
    switch (comb) {
        case MPI_COMBINER_DUP:
            ret = flatten(types[0], base, out, e);
            break;
        case MPI_COMBINER_CONTIGUOUS:
            ret = repeat(types[0], base, ints[0], 0, ext, out, e);
            break;
        case MPI_COMBINER_VECTOR:
        case MPI_COMBINER_HVECTOR: {
            MPI_Aint stride = comb == MPI_COMBINER_VECTOR ? (MPI_Aint)ints[2] * ext : addrs[0];
            ret             = 0;
            for (int i = 0; i < ints[0] && ret == 0; i++)
                ret = repeat(types[0], base + (MPI_Aint)i * stride, ints[1], 0, ext, out, e);
            break;
        }
        case MPI_COMBINER_INDEXED:
        case MPI_COMBINER_HINDEXED:
            ret = 0;
            for (int i = 0; i < ints[0] && ret == 0; i++) {
                MPI_Aint d = comb == MPI_COMBINER_INDEXED ? (MPI_Aint)ints[1 + ints[0] + i] * ext : addrs[i];
                ret        = repeat(types[0], base + d, ints[1 + i], 0, ext, out, e);
            }
            break;
        case MPI_COMBINER_INDEXED_BLOCK:
        case MPI_COMBINER_HINDEXED_BLOCK:
            ret = 0;
            for (int i = 0; i < ints[0] && ret == 0; i++) {
                MPI_Aint d = comb == MPI_COMBINER_INDEXED_BLOCK ? (MPI_Aint)ints[2 + i] * ext : addrs[i];
                ret        = repeat(types[0], base + d, ints[1], 0, ext, out, e);
            }
            break;
        case MPI_COMBINER_STRUCT:
            ret = 0;
            for (int i = 0; i < ints[0] && ret == 0; i++) {
                MPI_Aint l2, e2;
                MPI_Type_get_extent(types[i], &l2, &e2);
                ret = repeat(types[i], base + addrs[i], ints[1 + i], 0, e2, out, e);
            }
            break;
        case MPI_COMBINER_RESIZED:
            /* The new bounds only change how a parent tiles this type. */
            ret = flatten(types[0], base, out, e);
            break;
        default:
            h5sf_fail(e, ENOTSUP, "collective transfer uses an MPI datatype constructor h5sf cannot flatten (%s)",
                      combiner_name(comb));
    }
    for (int i = 0; i < nd; i++) {
        int c2, a, b, c;
        MPI_Type_get_envelope(types[i], &a, &b, &c, &c2);
        if (c2 != MPI_COMBINER_NAMED)
            MPI_Type_free(&types[i]);
    }
done:
    free(ints);
    free(addrs);
    free(types);
    return ret;
}

int h5sf_coll_extents(sf_plan_t *plan, haddr_t addr, size_t size, const void *buf, MPI_Datatype btype,
                      MPI_Datatype ftype, h5sf_errbuf_t *e)
{
    segs_t   m = {0}, fl = {0};
    MPI_Aint lb, fext;
    MPI_Count bytes;
    int      ret = -1;
    (void)size;

    if (btype == MPI_DATATYPE_NULL)
        btype = MPI_BYTE;
    if (ftype == MPI_DATATYPE_NULL)
        ftype = MPI_BYTE;
    MPI_Type_size_x(btype, &bytes);
    if (btype == MPI_BYTE)
        bytes = (MPI_Count)size; /* count `size` of MPI_BYTE */
    if (btype == MPI_BYTE ? segs_add(&m, 0, (MPI_Aint)size) < 0 : flatten(btype, 0, &m, e) < 0)
        goto done;
    if (ftype == MPI_BYTE ? segs_add(&fl, 0, (MPI_Aint)bytes) < 0 : flatten(ftype, 0, &fl, e) < 0)
        goto done;
    MPI_Type_get_extent(ftype, &lb, &fext);

    /* Pair memory runs with file runs; the file type tiles if it is shorter. */
    size_t   mi = 0, fi = 0;
    MPI_Aint mo = 0, fo = 0, tile = 0;
    MPI_Count left = bytes;
    while (left > 0) {
        if (mi >= m.n) {
            h5sf_fail(e, EINVAL, "collective memory datatype is shorter than the transfer");
            goto done;
        }
        if (fi >= fl.n) {
            if (fl.n == 0 || fext <= 0) {
                h5sf_fail(e, EINVAL, "collective file datatype is empty");
                goto done;
            }
            fi = 0;
            tile += fext;
        }
        MPI_Aint n = m.v[mi].len - mo;
        if (fl.v[fi].len - fo < n)
            n = fl.v[fi].len - fo;
        if ((MPI_Count)n > left)
            n = (MPI_Aint)left;
        if (sf_plan_add(plan, addr + (haddr_t)(tile + fl.v[fi].disp + fo), (uint64_t)n,
                        (uint64_t)(uintptr_t)buf + (uint64_t)(m.v[mi].disp + mo)) < 0) {
            h5sf_fail(e, ENOMEM, "out of memory planning a collective transfer");
            goto done;
        }
        left -= n;
        if ((mo += n) == m.v[mi].len)
            mi++, mo = 0;
        if ((fo += n) == fl.v[fi].len)
            fi++, fo = 0;
    }
    ret = 0;
done:
    free(m.v);
    free(fl.v);
    return ret;
}
