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
 *      them in flight together (channel.c).
 * So a strided selection of K blocks costs one message per touched subfile,
 * not K.
 */
#include <errno.h>
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
    if (f->stub_fd < 0)
        return 0;
    const char *p = buf;
    while (size > 0) {
        ssize_t n = pwrite(f->stub_fd, p, size, (off_t)addr);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return h5sf_fail(e, errno, "superblock write to stub %s at offset %llu failed: %s", f->name,
                             (unsigned long long)addr, strerror(errno));
        p += n;
        addr += (haddr_t)n;
        size -= (size_t)n;
    }
    return 0;
}

/* Start this call's report: raw data in f->xfer (what
 * H5FD_h5sf_get_last_transfer returns), anything else in f->xmeta. */
static void report_begin(h5sf_file_t *f, bool is_write, bool coll, bool raw)
{
    H5FD_h5sf_transfer_t *t = raw ? &f->xfer : &f->xmeta;
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

/* Run the plan built in f->plan, account for it, agree when collective.
 * raw: the call moves raw data (reported by H5FD_h5sf_get_last_transfer). */
static herr_t finish(h5sf_file_t *f, bool is_write, bool coll, bool raw, hid_t dxpl, int failed,
                     h5sf_errbuf_t *eb)
{
    herr_t ret_value = 0;
    report_begin(f, is_write, coll, raw);
    if (!failed) {
        sf_plan_sort(&f->plan);
        f->stats.pieces_in += f->plan.pieces_in;
        f->stats.pieces_out += sf_plan_pieces_out(&f->plan);
        if (h5sf_channels_dispatch(f, is_write, dxpl, eb) < 0)
            failed = 1;
    }
    /* A collective write is entered by every rank: make its failure
     * everyone's, so no rank runs ahead into the next collective. */
    if (coll && is_write && !f->mpi_dead && h5sf_agree(f->comm, failed, eb) < 0)
        failed = 1;
    f->xcur->failed = failed;
    if (raw && f->stats_transfers)
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
static int add_collective(h5sf_file_t *f, H5FD_mem_t type, haddr_t addr, size_t size, const void *buf,
                          h5sf_errbuf_t *e)
{
    MPI_Datatype btype = MPI_BYTE, ftype = MPI_BYTE;
    if (h5sf_priv_coll_datatypes(type, &btype, &ftype, e) < 0)
        return -1;
    if ((btype == MPI_BYTE || btype == MPI_DATATYPE_NULL) && (ftype == MPI_BYTE || ftype == MPI_DATATYPE_NULL))
        return size ? sf_plan_add(&f->plan, addr, size, (uint64_t)(uintptr_t)buf) : 0;
    return h5sf_coll_extents(&f->plan, addr, size, buf, btype, ftype, e);
}

herr_t h5sf_write(H5FD_t *file, H5FD_mem_t type, hid_t dxpl, haddr_t addr, size_t size, const void *buf)
{
    h5sf_file_t  *f    = (h5sf_file_t *)file;
    h5sf_errbuf_t eb   = {0};
    bool          coll = collective_call(dxpl);
    int           failed = 0;

    f->stats.write_calls++;
    sf_plan_reset(&f->plan);
    if (type == H5FD_MEM_SUPER && mirror_super(f, addr, size, buf, &eb) < 0)
        failed = 1;
    else if (coll)
        failed = add_collective(f, type, addr, size, buf, &eb) < 0;
    else if (size && sf_plan_add(&f->plan, addr, size, (uint64_t)(uintptr_t)buf) < 0)
        failed = h5sf_fail(&eb, ENOMEM, "out of memory planning the write") < 0;
    return finish(f, true, coll, type == H5FD_MEM_DRAW, dxpl, failed, &eb);
}

herr_t h5sf_read(H5FD_t *file, H5FD_mem_t type, hid_t dxpl, haddr_t addr, size_t size, void *buf)
{
    h5sf_file_t  *f    = (h5sf_file_t *)file;
    h5sf_errbuf_t eb   = {0};
    bool          coll = collective_call(dxpl);
    int           failed = 0;
    (void)type;

    f->stats.read_calls++;
    sf_plan_reset(&f->plan);
    if (coll)
        failed = add_collective(f, type, addr, size, buf, &eb) < 0;
    else if (size && sf_plan_add(&f->plan, addr, size, (uint64_t)(uintptr_t)buf) < 0)
        failed = h5sf_fail(&eb, ENOMEM, "out of memory planning the read") < 0;
    return finish(f, false, coll, type == H5FD_MEM_DRAW, dxpl, failed, &eb);
}

/* Vectors: sizes[i] == 0 means "as sizes[i-1] from here on", types[i] ==
 * H5FD_MEM_NOLIST likewise (HDF5's compressed-array convention). */
static herr_t do_vector(h5sf_file_t *f, bool is_write, hid_t dxpl, uint32_t count, H5FD_mem_t types[],
                        haddr_t addrs[], size_t sizes[], const void *bufs[])
{
    h5sf_errbuf_t eb     = {0};
    bool          coll   = collective_call(dxpl);
    int           failed = 0;
    size_t        size   = 0;
    H5FD_mem_t    type   = H5FD_MEM_DEFAULT;
    bool          fix_size = false, fix_type = false, raw = false;

    if (is_write)
        f->stats.write_calls++;
    else
        f->stats.read_calls++;
    sf_plan_reset(&f->plan);
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
        raw = raw || type == H5FD_MEM_DRAW;
        if (size == 0)
            continue;
        if (is_write && type == H5FD_MEM_SUPER && mirror_super(f, addrs[i], size, bufs[i], &eb) < 0)
            failed = 1;
        else if (sf_plan_add(&f->plan, addrs[i], size, (uint64_t)(uintptr_t)bufs[i]) < 0)
            failed = h5sf_fail(&eb, ENOMEM, "out of memory planning the vector") < 0;
    }
    return finish(f, is_write, coll, raw, dxpl, failed, &eb);
}

herr_t h5sf_write_vector(H5FD_t *file, hid_t dxpl, uint32_t count, H5FD_mem_t types[], haddr_t addrs[],
                         size_t sizes[], const void *bufs[])
{
    return do_vector((h5sf_file_t *)file, true, dxpl, count, types, addrs, sizes, bufs);
}

herr_t h5sf_read_vector(H5FD_t *file, hid_t dxpl, uint32_t count, H5FD_mem_t types[], haddr_t addrs[],
                        size_t sizes[], void *bufs[])
{
    return do_vector((h5sf_file_t *)file, false, dxpl, count, types, addrs, sizes, (const void **)bufs);
}

/*
 * Selections: walk the file and memory selections side by side in sequence
 * batches and emit an extent wherever both continue.  Both selections have
 * the same number of elements, hence the same number of bytes.
 */
#define SEQ_BATCH 1024

typedef struct seq_side {
    hid_t  iter;
    size_t n, i;          /* sequences in batch, current one     */
    hsize_t off[SEQ_BATCH];
    size_t  len[SEQ_BATCH];
    size_t  used;         /* bytes of off[i]/len[i] consumed     */
    bool    done;
} seq_side_t;

static int side_fill(seq_side_t *s, h5sf_errbuf_t *e, const char *what)
{
    if (s->i < s->n || s->done)
        return 0;
    size_t nseq = 0, nbytes = 0;
    if (H5Ssel_iter_get_seq_list(s->iter, SEQ_BATCH, SIZE_MAX, &nseq, &nbytes, s->off, s->len) < 0)
        return h5sf_fail(e, 0, "cannot walk the %s selection", what);
    s->n = nseq;
    s->i = 0;
    s->used = 0;
    if (nseq == 0)
        s->done = true;
    return 0;
}

static int add_selection(h5sf_file_t *f, hid_t mspace, hid_t fspace, haddr_t base, size_t esize, const void *buf,
                         h5sf_errbuf_t *e)
{
    seq_side_t *m = NULL, *fs = NULL;
    int         ret = -1;
    hssize_t    nm = H5Sget_select_npoints(mspace), nf = H5Sget_select_npoints(fspace);

    if (nm < 0 || nf < 0 || nm != nf)
        return h5sf_fail(e, 0, "memory and file selections differ in size (%lld vs %lld elements)",
                         (long long)nm, (long long)nf);
    if (nf == 0)
        return 0;
    if (!(m = calloc(1, sizeof *m)) || !(fs = calloc(1, sizeof *fs))) {
        h5sf_fail(e, ENOMEM, "out of memory");
        goto done;
    }
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
        size_t n     = mleft < fleft ? mleft : fleft;
        if (sf_plan_add(&f->plan, base + fs->off[fs->i] + fs->used, n,
                        (uint64_t)(uintptr_t)buf + m->off[m->i] + m->used) < 0) {
            h5sf_fail(e, ENOMEM, "out of memory planning the selection");
            goto done;
        }
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
    if (m && m->iter >= 0)
        H5Ssel_iter_close(m->iter);
    if (fs && fs->iter >= 0)
        H5Ssel_iter_close(fs->iter);
    free(m);
    free(fs);
    return ret;
}

static herr_t do_selection(h5sf_file_t *f, bool is_write, H5FD_mem_t type, hid_t dxpl, size_t count,
                           hid_t mspaces[], hid_t fspaces[], haddr_t offsets[], size_t esizes[],
                           const void *bufs[])
{
    h5sf_errbuf_t eb     = {0};
    bool          coll   = collective_call(dxpl);
    int           failed = 0;
    size_t        esize  = 0;
    const void   *buf    = NULL;
    bool          fix_es = false, fix_buf = false;

    if (is_write)
        f->stats.write_calls++;
    else
        f->stats.read_calls++;
    sf_plan_reset(&f->plan);
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
        failed = add_selection(f, mspaces[i], fspaces[i], offsets[i], esize, buf, &eb) < 0;
    }
    return finish(f, is_write, coll, type == H5FD_MEM_DRAW, dxpl, failed, &eb);
}

herr_t h5sf_write_selection(H5FD_t *file, H5FD_mem_t type, hid_t dxpl, size_t count, hid_t mspaces[],
                            hid_t fspaces[], haddr_t offsets[], size_t esizes[], const void *bufs[])
{
    return do_selection((h5sf_file_t *)file, true, type, dxpl, count, mspaces, fspaces, offsets, esizes, bufs);
}

herr_t h5sf_read_selection(H5FD_t *file, H5FD_mem_t type, hid_t dxpl, size_t count, hid_t mspaces[],
                           hid_t fspaces[], haddr_t offsets[], size_t esizes[], void *bufs[])
{
    return do_selection((h5sf_file_t *)file, false, type, dxpl, count, mspaces, fspaces, offsets, esizes,
                        (const void **)bufs);
}
