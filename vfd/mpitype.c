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
 *
 * Cost: each datatype node is read once per appearance in the tree, its
 * child flattened once and then placed by offsets (no MPI call per
 * element); copies of a dense child (one run as long as the stride) become
 * one run.  So work and memory follow the runs of the result, not the
 * elements: 2^26 contiguous bytes are one run from a few MPI calls.
 * Not here: the stripe plan (common/stripe.c), HDF5's context (hdf5priv.c).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include "internal.h"

/* A list of runs (h5sf_run_t: displacement, length) in typemap order. */
typedef struct segs {
    h5sf_run_t *v;
    size_t      n, cap;
} segs_t;

/* What one flattening walk carries: the datatype nodes read (for tests). */
typedef struct walk {
    uint64_t       visits;
    h5sf_errbuf_t *e;
} walk_t;

/* Room for `more` runs beyond n; -1 (e filled) if memory runs out. */
static int segs_reserve(segs_t *s, size_t more, walk_t *w)
{
    if (s->cap - s->n >= more)
        return 0;
    if (more > SIZE_MAX / 2 / sizeof *s->v - s->n)
        return h5sf_fail(w->e, ENOMEM, "MPI datatype of too many runs to flatten");
    size_t cap = s->cap ? 2 * s->cap : 16;
    while (cap - s->n < more)
        cap *= 2;
    h5sf_run_t *p = h5sf_realloc(s->v, cap * sizeof *p);
    if (!p)
        return h5sf_fail(w->e, ENOMEM, "out of memory flattening an MPI datatype");
    s->v   = p;
    s->cap = cap;
    return 0;
}

/* Append a run, merged into the last one if it continues it. */
static int segs_add(segs_t *s, MPI_Aint disp, MPI_Aint len, walk_t *w)
{
    if (len <= 0)
        return 0;
    if (s->n && s->v[s->n - 1].disp + s->v[s->n - 1].len == disp) {
        s->v[s->n - 1].len += len; /* merge what the typemap makes adjacent */
        return 0;
    }
    if (segs_reserve(s, 1, w) < 0)
        return -1;
    s->v[s->n++] = (h5sf_run_t){disp, len};
    return 0;
}

/*
 * Append n copies of the run list c, copy i shifted by first + i*stride.
 * One run of length == stride tiles into a single run of n*stride (the
 * regular case: contiguous bytes, whole rows); otherwise every copy is
 * written, which is the size of the output anyway (copies of two or more
 * runs, or of one run with a gap or overlap, cannot merge into fewer
 * than n runs).
 */
static int replicate(segs_t *out, const segs_t *c, MPI_Aint n, MPI_Aint first, MPI_Aint stride, walk_t *w)
{
    if (n <= 0 || c->n == 0)
        return 0;
    if (c->n == 1 && c->v[0].len == stride)
        return segs_add(out, first + c->v[0].disp, n * stride, w);
    if (segs_reserve(out, (size_t)n * c->n, w) < 0)
        return -1;
    for (MPI_Aint i = 0; i < n; i++)
        for (size_t j = 0; j < c->n; j++)
            if (segs_add(out, first + i * stride + c->v[j].disp, c->v[j].len, w) < 0)
                return -1;
    return 0;
}

static const char *combiner_name(int c)
{
    switch (c) {
        case MPI_COMBINER_SUBARRAY: return "subarray";
        case MPI_COMBINER_DARRAY: return "darray";
        case MPI_COMBINER_F90_REAL:
        case MPI_COMBINER_F90_COMPLEX:
        case MPI_COMBINER_F90_INTEGER: return "f90";
        default: return "unknown";
    }
}

static int flatten(MPI_Datatype t, segs_t *out, walk_t *w);

/* Flatten child t once into *c (fresh); its extent in *ext. */
static int child(MPI_Datatype t, segs_t *c, MPI_Aint *ext, walk_t *w)
{
    MPI_Aint lb;
    *c = (segs_t){0};
    MPI_Type_get_extent(t, &lb, ext);
    return flatten(t, c, w);
}

/* count blocks of blocklen children each; block i at disp(i) (bytes). */
static int blocks(segs_t *out, MPI_Datatype t, int count, const int *blens, int blen, const int *idisp,
                  const MPI_Aint *adisp, walk_t *w)
{
    segs_t   c, b = {0};
    MPI_Aint ext;
    int      ret = -1;
    if (child(t, &c, &ext, w) < 0)
        goto done;
    if (!blens && replicate(&b, &c, blen, 0, ext, w) < 0) /* one block shape: build it once */
        goto done;
    for (int i = 0; i < count; i++) {
        MPI_Aint d = idisp ? (MPI_Aint)idisp[i] * ext : adisp[i];
        if (blens ? replicate(out, &c, blens[i], d, ext, w) < 0 : replicate(out, &b, 1, d, 0, w) < 0)
            goto done;
    }
    ret = 0;
done:
    h5sf_free(c.v);
    h5sf_free(b.v);
    return ret;
}

/* (h)vector: count blocks of blen children, block i at i*stride (child
 * extents if in_extents, else bytes); count 1 is a contiguous type. */
static int vector(segs_t *out, MPI_Datatype t, int count, int blen, MPI_Aint stride, bool in_extents, walk_t *w)
{
    segs_t   c, b = {0};
    MPI_Aint ext;
    int      ret = -1;
    if (child(t, &c, &ext, w) < 0)
        goto done;
    if (count == 1) /* contiguous */
        ret = replicate(out, &c, blen, 0, ext, w);
    else if (replicate(&b, &c, blen, 0, ext, w) == 0)
        ret = replicate(out, &b, count, 0, in_extents ? stride * ext : stride, w);
done:
    h5sf_free(c.v);
    h5sf_free(b.v);
    return ret;
}

/* Append the runs of one instance of t, displacements from its origin.  A
 * child type is flattened once per constructor, then placed by offsets. */
static int flatten(MPI_Datatype t, segs_t *out, walk_t *w)
{
    int           ni, na, nd, comb, ret = -1;
    int          *ints  = NULL;
    MPI_Aint     *addrs = NULL;
    MPI_Datatype *types = NULL;

    w->visits++;
    MPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
    if (comb == MPI_COMBINER_NAMED) {
        int      size;
        MPI_Aint lb, ext;
        MPI_Type_size(t, &size);
        MPI_Type_get_extent(t, &lb, &ext);
        /* Pair types such as MPI_SHORT_INT have holes: not one run. */
        if (lb != 0 || ext != size)
            return h5sf_fail(w->e, ENOTSUP,
                             "collective transfer uses a predefined MPI datatype with holes "
                             "(size %d, extent %ld)",
                             size, (long)ext);
        return segs_add(out, 0, size, w);
    }
    ints  = h5sf_malloc((size_t)(ni ? ni : 1) * sizeof *ints);
    addrs = h5sf_malloc((size_t)(na ? na : 1) * sizeof *addrs);
    types = h5sf_malloc((size_t)(nd ? nd : 1) * sizeof *types);
    if (!ints || !addrs || !types) {
        h5sf_fail(w->e, ENOMEM, "out of memory flattening an MPI datatype");
        goto done;
    }
    MPI_Type_get_contents(t, ni, na, nd, ints, addrs, types);
    switch (comb) {
        case MPI_COMBINER_DUP:
        case MPI_COMBINER_RESIZED: /* the new bounds only change how a parent tiles it */
            ret = flatten(types[0], out, w);
            break;
        case MPI_COMBINER_CONTIGUOUS: ret = vector(out, types[0], 1, ints[0], 0, false, w); break;
        case MPI_COMBINER_VECTOR: ret = vector(out, types[0], ints[0], ints[1], ints[2], true, w); break;
        case MPI_COMBINER_HVECTOR: ret = vector(out, types[0], ints[0], ints[1], addrs[0], false, w); break;
        case MPI_COMBINER_INDEXED:
            ret = blocks(out, types[0], ints[0], ints + 1, 0, ints + 1 + ints[0], NULL, w);
            break;
        case MPI_COMBINER_HINDEXED: ret = blocks(out, types[0], ints[0], ints + 1, 0, NULL, addrs, w); break;
        case MPI_COMBINER_INDEXED_BLOCK: ret = blocks(out, types[0], ints[0], NULL, ints[1], ints + 2, NULL, w); break;
        case MPI_COMBINER_HINDEXED_BLOCK: ret = blocks(out, types[0], ints[0], NULL, ints[1], NULL, addrs, w); break;
        case MPI_COMBINER_STRUCT:
            ret = 0;
            for (int i = 0; i < ints[0] && ret == 0; i++)
                ret = blocks(out, types[i], 1, ints + 1 + i, 0, NULL, addrs + i, w);
            break;
        default:
            h5sf_fail(w->e, ENOTSUP, "collective transfer uses an MPI datatype constructor h5sf cannot flatten (%s)",
                      combiner_name(comb));
    }
    for (int i = 0; i < nd; i++) {
        int c2, a, b, c;
        MPI_Type_get_envelope(types[i], &a, &b, &c, &c2);
        if (c2 != MPI_COMBINER_NAMED)
            MPI_Type_free(&types[i]);
    }
done:
    h5sf_free(ints);
    h5sf_free(addrs);
    h5sf_free(types);
    return ret;
}

int h5sf_mpitype_runs(MPI_Datatype t, h5sf_run_t **runs, size_t *nruns, uint64_t *visits, h5sf_errbuf_t *e)
{
    segs_t s   = {0};
    walk_t w   = {0, e};
    int    ret = flatten(t, &s, &w);
    *visits    = w.visits;
    if (ret < 0) {
        h5sf_free(s.v);
        s = (segs_t){0};
    }
    *runs  = s.v;
    *nruns = s.n;
    return ret;
}

int h5sf_coll_extents(h5sf_extent_fn add, void *arg, haddr_t addr, size_t size, const void *buf, MPI_Datatype btype,
                      MPI_Datatype ftype, h5sf_errbuf_t *e)
{
    segs_t    m = {0}, fl = {0};
    walk_t    w = {0, e};
    MPI_Aint  lb, fext;
    MPI_Count bytes;
    int       ret = -1;
    (void)size;

    if (btype == MPI_DATATYPE_NULL)
        btype = MPI_BYTE;
    if (ftype == MPI_DATATYPE_NULL)
        ftype = MPI_BYTE;
    MPI_Type_size_x(btype, &bytes);
    if (btype == MPI_BYTE)
        bytes = (MPI_Count)size; /* count `size` of MPI_BYTE */
    if (btype == MPI_BYTE ? segs_add(&m, 0, (MPI_Aint)size, &w) < 0 : flatten(btype, &m, &w) < 0)
        goto done;
    if (ftype == MPI_BYTE ? segs_add(&fl, 0, (MPI_Aint)bytes, &w) < 0 : flatten(ftype, &fl, &w) < 0)
        goto done;
    MPI_Type_get_extent(ftype, &lb, &fext);

    /* Pair memory runs with file runs; the file type tiles if it is shorter. */
    size_t    mi = 0, fi = 0;
    MPI_Aint  mo = 0, fo = 0, tile = 0;
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
        if (add(arg, addr + (haddr_t)(tile + fl.v[fi].disp + fo), (uint64_t)n,
                (uint64_t)(uintptr_t)buf + (uint64_t)(m.v[mi].disp + mo)) < 0)
            goto done;
        left -= n;
        if ((mo += n) == m.v[mi].len)
            mi++, mo = 0;
        if ((fo += n) == fl.v[fi].len)
            fi++, fo = 0;
    }
    ret = 0;
done:
    h5sf_free(m.v);
    h5sf_free(fl.v);
    return ret;
}
