/*
 * io.c -- the I/O callbacks: read/write, vectors, selections.
 *
 * Every call takes the same path (see docs/architecture.md):
 *   1. flatten the request into logical (address, length, memory) extents --
 *      selections with H5Ssel_iter_get_seq_list, vectors as given, collective
 *      calls through the MPI datatypes HDF5 left in its API context;
 *   2. cut the extents at stripe boundaries into one piece list per subfile,
 *      merging pieces that continue in both file and memory (stripe.c);
 *   3. hand each subfile's list to its channel as ONE vector call, all of
 *      them in flight together (dispatch.c).
 * So a strided selection of K blocks costs one message per touched subfile,
 * not K.  Steps 2 and 3 run in rounds: once the plan holds H5SF_MAX_PIECES
 * pieces (common/stripe.h) it is run and emptied, and flattening goes on, so
 * memory stays bounded however many pieces a call has.  Rounds run in call
 * order; within one call HDF5 gives overlapping pieces no order anyway.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "internal.h"

/* HDF5's transfer mode for this call (hdf5priv.c). */
static bool collective_call(hid_t dxpl) { return h5sf_priv_collective(dxpl); }

/* Superblock writes are mirrored into the stub so legacy tools (and the
 * built-in driver's checks) find a valid superblock at the user's path. */
static int mirror_super(h5sf_file_t *f, haddr_t addr, size_t size, const void *buf, h5sf_errbuf_t *e)
{
    if (f->stub_fd < 0 || f->layout.plain) /* a plain file's stub is its only file */
        return 0;
    if (h5sf_sysio_pwrite_all(f->stub_fd, buf, size, addr) < 0)
        return h5sf_fail(e, errno, "superblock write to stub %s at offset %llu failed: %s", f->name,
                         (unsigned long long)addr, strerror(errno));
    return 0;
}

/* Start this call's report: raw data in f->xfer (what
 * H5FD_h5sf_get_last_transfer returns), anything else in f->xmeta. */
static void report_begin(h5sf_file_t *f, bool is_write, bool coll, bool raw)
{
    H5FD_h5sf_transfer_t *t    = raw ? &f->xfer : &f->xmeta;
    uint64_t              call = raw ? f->xfer.call + 1 : 0;
    /* Entries the last call filled are cleared, the others are zero already. */
    memset(t->subfile, 0, (size_t)t->nsubfile * sizeof *t->subfile);
    memset(t, 0, offsetof(H5FD_h5sf_transfer_t, subfile));
    t->call       = call;
    t->is_write   = is_write;
    t->collective = coll;
    f->xcur       = t;
    f->xseq++;
}

/* H5SF_STATS=transfers: one line per raw-data call on this rank. */
static void report_print(const h5sf_file_t *f, const H5FD_h5sf_transfer_t *t)
{
    static const char *via[H5FD_H5SF_VIA_KINDS] = {"ioc", "self", "shortcut", "direct"};
    char               line[1024];
    size_t             n = 0;
    for (int i = 0; i < t->nsubfile && n < sizeof line - 64; i++) {
        const H5FD_h5sf_transfer_subfile_t *e = &t->subfile[i];
        n += (size_t)snprintf(line + n, sizeof line - n, " %d:", e->subfile);
        for (int k = 0, first = 1; k < H5FD_H5SF_VIA_KINDS; k++)
            if (e->via & (1u << k)) {
                n += (size_t)snprintf(line + n, sizeof line - n, "%s%s", first ? "" : "+", via[k]);
                first = 0;
            }
        n += (size_t)snprintf(line + n, sizeof line - n, "/%llup/%lluB", (unsigned long long)e->pieces,
                              (unsigned long long)e->bytes);
    }
    fprintf(stderr,
            "h5sf transfer: rank %d %s call %llu: %s%s%s, %llu bytes, %llu pieces in, %llu out, %u round(s), "
            "%d subfile(s), %llu message(s); subfiles%s%s\n",
            f->rank, f->name, (unsigned long long)t->call, t->is_write ? "write" : "read",
            t->collective ? " collective" : "", t->failed ? " FAILED" : "", (unsigned long long)t->bytes,
            (unsigned long long)t->pieces_in, (unsigned long long)t->pieces_out, t->rounds, t->subfiles,
            (unsigned long long)t->messages, line, t->subfiles > t->nsubfile ? " ..." : "");
}

/* One transfer call, planned and run in rounds of at most `limit` pieces. */
typedef struct round {
    h5sf_file_t   *f;
    bool           is_write;
    bool           post; /* inside the caller's bracket: transfers may stay in flight */
    h5sf_errbuf_t *e;
    uint64_t       limit;
    uint64_t       pieces_in; /* extents added since the last round ran */
    bool           raw;       /* moves raw data: H5FD_h5sf_get_last_transfer */
} round_t;

/* The pieces a round may hold: H5SF_MAX_PIECES, or less for tests
 * (H5SF_TEST_MAX_PIECES, so that small transfers take many rounds). */
static uint64_t round_limit(void)
{
    static _Atomic uint64_t limit; /* read once: getenv per call shows */
    uint64_t                l = atomic_load(&limit);
    if (l)
        return l;
    const char *v = h5sf_var(H5SF_VAR_TEST_MAX_PIECES);
    char       *end;
    l = H5SF_MAX_PIECES;
    if (v && *v) {
        unsigned long long n = strtoull(v, &end, 10);
        if (*end == '\0' && n >= 1 && n < H5SF_MAX_PIECES)
            l = (uint64_t)n;
    }
    atomic_store(&limit, l);
    return l;
}

/* Start a call: its report (raw: it moves raw data), an empty plan.
 * Inside the caller's COBEGIN/COEND (f->co) an independent call only posts
 * its transfers; a collective one first completes what the bracket posted
 * and runs as outside one, since its failure is agreed at its end. */
static void round_begin(round_t *r, h5sf_file_t *f, bool is_write, bool coll, bool raw, h5sf_errbuf_t *e)
{
    *r = (round_t){f, is_write, f->co && !coll, e, round_limit(), 0, raw};
    if (f->co && coll) {
        h5sf_errbuf_t later;
        h5sf_bracket_drain(f, &later); /* a failure stays the bracket's: its COEND reports it */
    }
    sf_plan_reset(&f->plan);
    report_begin(f, is_write, coll, raw);
}

/* Run what is planned (sorted; stats counted) and empty the plan. */
static int run_round(round_t *r)
{
    h5sf_file_t *f = r->f;
    int          ret;
    sf_plan_sort(&f->plan);
    f->stats.pieces_in += r->pieces_in;
    f->stats.pieces_out += sf_plan_pieces_out(&f->plan);
    f->plan.pieces_in = r->pieces_in; /* the report's count: extents, not their parts */
    r->pieces_in      = 0;
    ret               = f->plan.ntouched ? h5sf_channels_dispatch(f, r->is_write, r->post, r->e) : 0;
    sf_plan_reset(&f->plan);
    /* Lists grow by doubling from 16: what a round may have needed. */
    sf_plan_trim(&f->plan, 2 * r->limit + 16 * (uint64_t)f->plan.N);
    return ret;
}

/* Add one extent; an extent spanning many stripes goes in parts of at most
 * the room left, so no round holds more than the limit. */
static int round_add(round_t *r, uint64_t addr, uint64_t len, uint64_t mem)
{
    sf_plan_t     *p = &r->f->plan;
    const uint64_t S = p->S;
    r->pieces_in++;
    if (r->is_write && addr + len > r->f->wend)
        r->f->wend = addr + len;
    while (len > 0) {
        uint64_t room = p->stored < r->limit ? r->limit - p->stored : 1, n = len;
        uint64_t stripes = (addr % S + (len - 1)) / S + 1; /* each its own piece when N > 1 */
        if (p->N > 1 && stripes > room)
            n = room * S - addr % S; /* < stripes * S: no overflow */
        if (sf_plan_add(p, addr, n, mem) < 0)
            return h5sf_fail(r->e, ENOMEM, "out of memory planning the %s", r->is_write ? "write" : "read");
        if (p->stored >= r->limit && run_round(r) < 0)
            return -1;
        addr += n;
        mem += n;
        len -= n;
    }
    return 0;
}

static int round_add_cb(void *r, uint64_t addr, uint64_t len, uint64_t mem) { return round_add(r, addr, len, mem); }

/* Run the last round, agree when `agree`.  A collective write reaches
 * h5sf_agree on every rank even when an earlier round failed. */
static herr_t finish(round_t *r, bool agree, int failed)
{
    h5sf_file_t   *f         = r->f;
    h5sf_errbuf_t *eb        = r->e;
    bool           is_write  = r->is_write;
    herr_t         ret_value = 0;
    if (!failed && run_round(r) < 0)
        failed = 1;
    if (failed)
        sf_plan_reset(&f->plan);
    /* A collective transfer is entered by every rank: make its failure
     * everyone's, so no rank runs ahead into the next collective, and a
     * read that failed on one rank fails H5Dread on every rank. */
    if (agree && !f->mpi_dead && h5sf_agree(f->comm, failed, eb) < 0)
        failed = 1;
    f->xcur->failed = failed;
    if (r->raw && f->stats_transfers)
        report_print(f, f->xcur);
    f->xcur = NULL;
    if (failed)
        H5SF_GOTO(-1, H5E_IO, is_write ? H5E_WRITEERROR : H5E_READERROR, "%s %s: %s",
                  is_write ? "write to" : "read from", f->name, eb->msg);
done:
    return ret_value;
}

/*
 * Collective calls: HDF5 describes memory and file with MPI datatypes, as for
 * MPI_File_set_view(addr, MPI_BYTE, ftype) + MPI_File_write_at_all(buf, btype).
 * Flatten both and pair them into extents.
 */
static int add_collective(round_t *r, H5FD_mem_t type, haddr_t addr, size_t size, const void *buf)
{
    MPI_Datatype btype = MPI_BYTE, ftype = MPI_BYTE;
    if (h5sf_priv_coll_datatypes(type, &btype, &ftype, r->e) < 0)
        return -1;
    if ((btype == MPI_BYTE || btype == MPI_DATATYPE_NULL) && (ftype == MPI_BYTE || ftype == MPI_DATATYPE_NULL))
        return size ? round_add(r, addr, size, (uint64_t)(uintptr_t)buf) : 0;
    return h5sf_coll_extents(round_add_cb, r, addr, size, buf, btype, ftype, r->e);
}

herr_t h5sf_write(H5FD_t *file, H5FD_mem_t type, hid_t dxpl, haddr_t addr, size_t size, const void *buf)
{
    h5sf_file_t  *f      = (h5sf_file_t *)file;
    h5sf_errbuf_t eb     = {0};
    bool          coll   = collective_call(dxpl);
    int           failed = 0;
    round_t       r;

    f->stats.write_calls++;
    round_begin(&r, f, true, coll, type == H5FD_MEM_DRAW, &eb);
    if (type == H5FD_MEM_SUPER && mirror_super(f, addr, size, buf, &eb) < 0)
        failed = 1;
    else if (coll)
        failed = add_collective(&r, type, addr, size, buf) < 0;
    else if (size)
        failed = round_add(&r, addr, size, (uint64_t)(uintptr_t)buf) < 0;
    return finish(&r, coll, failed);
}

/* Reads agree only where HDF5 issues them on every rank alike: its
 * selection reads of raw data (do_selection).  Single and vector reads
 * under a collective transfer also come from one rank's own metadata cache
 * misses and chunk lookups, which the other ranks never make (HDF5's
 * t_pmulti_dset hung so). */
herr_t h5sf_read(H5FD_t *file, H5FD_mem_t type, hid_t dxpl, haddr_t addr, size_t size, void *buf)
{
    h5sf_file_t  *f      = (h5sf_file_t *)file;
    h5sf_errbuf_t eb     = {0};
    bool          coll   = collective_call(dxpl);
    int           failed = 0;
    round_t       r;

    f->stats.read_calls++;
    round_begin(&r, f, false, coll, type == H5FD_MEM_DRAW, &eb);
    if (coll)
        failed = add_collective(&r, type, addr, size, buf) < 0;
    else if (size)
        failed = round_add(&r, addr, size, (uint64_t)(uintptr_t)buf) < 0;
    return finish(&r, false, failed);
}

/* A vector moves raw data if any entry is H5FD_MEM_DRAW (types[i] ==
 * H5FD_MEM_NOLIST repeats the one before; no types: default). */
static bool vector_raw(uint32_t count, const H5FD_mem_t types[])
{
    for (uint32_t i = 0; types && i < count; i++) {
        if (types[i] == H5FD_MEM_NOLIST && i > 0)
            break;
        if (types[i] == H5FD_MEM_DRAW)
            return true;
    }
    return false;
}

/* Vectors: sizes[i] == 0 means "as sizes[i-1] from here on", types[i] ==
 * H5FD_MEM_NOLIST likewise (HDF5's compressed-array convention). */
static herr_t do_vector(h5sf_file_t *f, bool is_write, hid_t dxpl, uint32_t count, H5FD_mem_t types[], haddr_t addrs[],
                        size_t sizes[], const void *bufs[])
{
    h5sf_errbuf_t eb       = {0};
    bool          coll     = collective_call(dxpl);
    int           failed   = 0;
    size_t        size     = 0;
    H5FD_mem_t    type     = H5FD_MEM_DEFAULT;
    bool          fix_size = false, fix_type = false;
    round_t       r;

    if (is_write)
        f->stats.write_calls++;
    else
        f->stats.read_calls++;
    round_begin(&r, f, is_write, coll, vector_raw(count, types), &eb);
    for (uint32_t i = 0; i < count && !failed; i++) {
        if (!fix_size) {
            if (sizes[i] == 0 && i > 0)
                fix_size = true;
            else
                size = sizes[i];
        }
        if (!fix_type && types) {
            if (types[i] == H5FD_MEM_NOLIST && i > 0)
                fix_type = true;
            else
                type = types[i];
        }
        if (size == 0)
            continue;
        if (is_write && type == H5FD_MEM_SUPER && mirror_super(f, addrs[i], size, bufs[i], &eb) < 0)
            failed = 1;
        else if (round_add(&r, addrs[i], size, (uint64_t)(uintptr_t)bufs[i]) < 0)
            failed = 1;
    }
    return finish(&r, coll && is_write, failed);
}

herr_t h5sf_write_vector(H5FD_t *file, hid_t dxpl, uint32_t count, H5FD_mem_t types[], haddr_t addrs[], size_t sizes[],
                         const void *bufs[])
{
    return do_vector((h5sf_file_t *)file, true, dxpl, count, types, addrs, sizes, bufs);
}

herr_t h5sf_read_vector(H5FD_t *file, hid_t dxpl, uint32_t count, H5FD_mem_t types[], haddr_t addrs[], size_t sizes[],
                        void *bufs[])
{
    return do_vector((h5sf_file_t *)file, false, dxpl, count, types, addrs, sizes, (const void **)bufs);
}

/*
 * Selections: walk the file and memory selections side by side in sequence
 * batches and emit an extent wherever both continue.  Both selections have
 * the same number of elements, hence the same number of bytes.
 */
#define SEQ_BATCH 1024

struct seq_side {
    hid_t   iter;
    size_t  n, i; /* sequences in batch, current one     */
    hsize_t off[SEQ_BATCH];
    size_t  len[SEQ_BATCH];
    size_t  used; /* bytes of off[i]/len[i] consumed     */
    bool    done;
};
typedef struct seq_side seq_side_t;

static int side_fill(seq_side_t *s, h5sf_errbuf_t *e, const char *what)
{
    if (s->i < s->n || s->done)
        return 0;
    size_t nseq = 0, nbytes = 0;
    if (H5Ssel_iter_get_seq_list(s->iter, SEQ_BATCH, SIZE_MAX, &nseq, &nbytes, s->off, s->len) < 0)
        return h5sf_fail(e, 0, "cannot walk the %s selection", what);
    s->n    = nseq;
    s->i    = 0;
    s->used = 0;
    if (nseq == 0)
        s->done = true;
    return 0;
}

/* True when the selection of `space` (npoints elements) is one run of the
 * linearized extent -- all of it, or a hyperslab that fills its bounding
 * box when that box is whole in every inner dimension: *off is its first
 * byte.  Points are never one run (they go in the order given, not the
 * file's).  Three cheap calls; anything else is false. */
static bool one_run(hid_t space, hssize_t npoints, size_t esize, uint64_t *off)
{
    hsize_t      dims[H5S_MAX_RANK], lo[H5S_MAX_RANK], hi[H5S_MAX_RANK];
    H5S_sel_type t = H5Sget_select_type(space);
    if (t == H5S_SEL_ALL) { /* H5S_ALL's memory side, mostly: one call */
        *off = 0;
        return true;
    }
    if (t != H5S_SEL_HYPERSLABS)
        return false;
    int n = H5Sget_simple_extent_dims(space, dims, NULL);
    if (n <= 0 || H5Sget_select_bounds(space, lo, hi) < 0)
        return false;
    /* The selection lies in its bounding box: more elements there are holes. */
    uint64_t box = 1;
    for (int k = 0; k < n; k++)
        if (hi[k] < lo[k] || (box *= hi[k] - lo[k] + 1) > (uint64_t)npoints)
            return false;
    int i = n - 1;
    while (i > 0 && lo[i] == 0 && hi[i] + 1 == dims[i]) /* whole inner dimensions */
        i--;
    for (int k = 0; k < i; k++) /* outer dimensions: one index each */
        if (lo[k] != hi[k])
            return false;
    uint64_t at = 0;
    for (int k = 0; k < n; k++)
        at = at * dims[k] + lo[k];
    *off = at * esize;
    return true;
}

static int add_selection(round_t *r, hid_t mspace, hid_t fspace, haddr_t base, size_t esize, const void *buf)
{
    h5sf_errbuf_t *e = r->e;
    seq_side_t    *m, *fs;
    int            ret = -1;
    hssize_t       nm = H5Sget_select_npoints(mspace), nf = H5Sget_select_npoints(fspace);

    if (nm < 0 || nf < 0 || nm != nf)
        return h5sf_fail(e, 0, "memory and file selections differ in size (%lld vs %lld elements)", (long long)nm,
                         (long long)nf);
    if (nf == 0)
        return 0;
    /* Both sides one run (H5S_ALL, or one hyperslab block such as IOR's
     * and most small transfers): one extent, so no iterators -- making and
     * closing two cost a small call about as much as the rest of h5sf's
     * path (measured: docs/performance-history.md, Figures behind constants, one
     * run). */
    uint64_t moff, foff;
    if (one_run(mspace, nm, esize, &moff) && one_run(fspace, nf, esize, &foff))
        return round_add(r, base + foff, (uint64_t)nf * esize, (uint64_t)(uintptr_t)buf + moff);
    /* 32 KiB of sequence lists: kept with the file, not zeroed per call
     * (measured: docs/performance-history.md, Figures behind constants, sequence
     * lists). */
    if (!r->f->sides && !(r->f->sides = h5sf_malloc(2 * sizeof *r->f->sides)))
        return h5sf_fail(e, ENOMEM, "out of memory");
    m    = &r->f->sides[0];
    fs   = &r->f->sides[1];
    m->n = m->i = m->used = fs->n = fs->i = fs->used = 0;
    m->done = fs->done = false;
    m->iter = fs->iter = H5I_INVALID_HID;
    if ((m->iter = H5Ssel_iter_create(mspace, esize, 0)) < 0 || (fs->iter = H5Ssel_iter_create(fspace, esize, 0)) < 0) {
        h5sf_fail(e, 0, "cannot create selection iterators");
        goto done;
    }
    for (;;) {
        if (side_fill(m, e, "memory") < 0 || side_fill(fs, e, "file") < 0)
            goto done;
        if (m->done || fs->done)
            break;
        size_t mleft = m->len[m->i] - m->used, fleft = fs->len[fs->i] - fs->used;
        size_t n = mleft < fleft ? mleft : fleft;
        if (round_add(r, base + fs->off[fs->i] + fs->used, n, (uint64_t)(uintptr_t)buf + m->off[m->i] + m->used) < 0)
            goto done;
        m->used += n;
        fs->used += n;
        if (m->used == m->len[m->i]) {
            m->i++;
            m->used = 0;
        }
        if (fs->used == fs->len[fs->i]) {
            fs->i++;
            fs->used = 0;
        }
    }
    ret = 0;
done:
    if (m->iter >= 0)
        H5Ssel_iter_close(m->iter);
    if (fs->iter >= 0)
        H5Ssel_iter_close(fs->iter);
    return ret;
}

static herr_t do_selection(h5sf_file_t *f, bool is_write, H5FD_mem_t type, hid_t dxpl, size_t count, hid_t mspaces[],
                           hid_t fspaces[], haddr_t offsets[], size_t esizes[], const void *bufs[])
{
    h5sf_errbuf_t eb     = {0};
    bool          coll   = collective_call(dxpl);
    int           failed = 0;
    size_t        esize  = 0;
    const void   *buf    = NULL;
    bool          fix_es = false, fix_buf = false;
    round_t       r;

    if (is_write)
        f->stats.write_calls++;
    else
        f->stats.read_calls++;
    round_begin(&r, f, is_write, coll, type == H5FD_MEM_DRAW, &eb);
    for (size_t i = 0; i < count && !failed; i++) {
        /* Same compressed-array convention as vectors: 0 / NULL repeat. */
        if (!fix_es) {
            if (esizes[i] == 0 && i > 0)
                fix_es = true;
            else
                esize = esizes[i];
        }
        if (!fix_buf) {
            if (bufs[i] == NULL && i > 0)
                fix_buf = true;
            else
                buf = bufs[i];
        }
        failed = add_selection(&r, mspaces[i], fspaces[i], offsets[i], esize, buf) < 0;
    }
    return finish(&r, coll && (is_write || type == H5FD_MEM_DRAW), failed);
}

herr_t h5sf_write_selection(H5FD_t *file, H5FD_mem_t type, hid_t dxpl, size_t count, hid_t mspaces[], hid_t fspaces[],
                            haddr_t offsets[], size_t esizes[], const void *bufs[])
{
    return do_selection((h5sf_file_t *)file, true, type, dxpl, count, mspaces, fspaces, offsets, esizes, bufs);
}

herr_t h5sf_read_selection(H5FD_t *file, H5FD_mem_t type, hid_t dxpl, size_t count, hid_t mspaces[], hid_t fspaces[],
                           haddr_t offsets[], size_t esizes[], void *bufs[])
{
    return do_selection((h5sf_file_t *)file, false, type, dxpl, count, mspaces, fspaces, offsets, esizes,
                        (const void **)bufs);
}
