/*
 * t_report.c -- H5FD_h5sf_get_last_transfer says what h5sf did for a
 * transfer, and H5Pget_mpio_actual_io_mode says what the docs table says.
 *
 * One contiguous 1-byte dataset in a file of 1 KiB stripes over 5 subfiles,
 * every rank an IOC (ioc=every:1, all ranks on one node).  Each rank writes
 * and reads back
 *   sparse  160 blocks of 64 B, every P-th block of a region (P ranks);
 *   dense   2748 B from an unaligned offset (3 or 4 subfiles);
 * collectively with selection I/O on and off, and independently with it
 * on.  The test cuts its own selection into per-subfile pieces from the
 * dataset's address (H5Dget_offset), the stripe size and count (its own
 * arithmetic: docs/architecture.md, "Layout on disk"), and predicts the
 * channel of each subfile from H5SF_CHANNEL and H5SF_SAMENODE_* and the
 * documented rule for sparse writes (16 or more pieces, at most 256 KiB on
 * average, with gaps).  Every field of the report is checked against that,
 * and the data read back against the pattern written.
 *
 * The same H5Dwrite/H5Dread calls then ask HDF5 (H5Pget_mpio_actual_io_mode,
 * _actual_chunk_opt_mode, _no_collective_cause) and compare with the table in
 * docs/user-guide.md; a chunked dataset adds its rows.  Rank 0 prints the
 * table it saw.
 *
 * usage: mpiexec -n P t_report DIR
 */
#include <hdf5.h>
#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "h5sf.h"
#include "h5sf_test.h"

#define S     1024 /* stripe size  */
#define N     5    /* stripe count */
#define B     64   /* sparse block */
#define K     160  /* sparse blocks per rank */
#define DENSE 2748 /* dense bytes per rank   */
#define DOFF  300  /* dense offset in a rank's slot */
#define MAXP  (K * 8 + 64)

enum {
    VIA_REMOTE   = H5FD_H5SF_VIA_IOC_REMOTE,
    VIA_SELF     = H5FD_H5SF_VIA_IOC_SELF,
    VIA_SAMENODE = H5FD_H5SF_VIA_SAMENODE,
    VIA_DIRECT   = H5FD_H5SF_VIA_DIRECT
};

/* One expected piece: subfile offset, length, memory offset. */
typedef struct {
    uint64_t off, len, mem;
} piece_t;

typedef struct {
    piece_t  p[N][MAXP];
    int      n[N];
    uint64_t bytes[N];
    uint64_t runs; /* extents before striping */
} model_t;

static const char *channel;                                         /* "direct" or "ioc" */
static bool        samenode_reads, samenode_writes, samenode_dense; /* dense: sparse writes via the IOC */

static bool env_off(const char *name, const char *old)
{
    const char *v = t_env_renamed(name, old);
    return v && !strcmp(v, "0");
}

/* Add a logical run [addr, addr+len) at memory offset mem: merge with the
 * previous run when file and memory both continue, else count a new one;
 * cut at stripe boundaries and merge each piece into its subfile's last one
 * when both continue there. */
static void model_run(model_t *m, uint64_t addr, uint64_t len, uint64_t mem, uint64_t *prev_end, uint64_t *prev_mem)
{
    if (!(m->runs && *prev_end == addr && *prev_mem == mem))
        m->runs++;
    *prev_end = addr + len;
    *prev_mem = mem + len;
    while (len) {
        uint64_t stripe = addr / S, in = S - addr % S, n = len < in ? len : in;
        int      s    = (int)(stripe % N);
        uint64_t off  = (stripe / N) * S + addr % S;
        piece_t *last = m->n[s] ? &m->p[s][m->n[s] - 1] : NULL;
        if (last && last->off + last->len == off && last->mem + last->len == mem)
            last->len += n;
        else if (m->n[s] < MAXP)
            m->p[s][m->n[s]++] = (piece_t){off, n, mem};
        m->bytes[s] += n;
        addr += n;
        mem += n;
        len -= n;
    }
}

/* The way subfile s's pieces go, as the docs describe it. */
static int expect_via(const model_t *m, int s, bool is_write)
{
    if (!strcmp(channel, "direct"))
        return VIA_DIRECT;
    bool samenode = is_write ? samenode_writes : samenode_reads;
    if (samenode && is_write && samenode_dense) {
        uint64_t cnt = (uint64_t)m->n[s], extent = m->p[s][cnt - 1].off + m->p[s][cnt - 1].len - m->p[s][0].off;
        bool     sparse = cnt >= 16 && extent > m->bytes[s] && m->bytes[s] / cnt <= (256u << 10);
        samenode        = !sparse;
    }
    if (samenode)
        return VIA_SAMENODE; /* every IOC is on this node */
    return s % t_size == t_rank ? VIA_SELF : VIA_REMOTE;
}

static void check_report(hid_t file, const model_t *m, bool is_write, bool coll, uint64_t call, const char *what)
{
    H5FD_h5sf_transfer_t t;
    memset(&t, 0xff, sizeof t);
    CHECK(H5FD_h5sf_get_last_transfer(file, &t) >= 0, "%s: H5FD_h5sf_get_last_transfer failed", what);
    uint64_t total = 0, pieces = 0, msgs = 0, vreq[4] = {0}, vbytes[4] = {0};
    int      touched = 0;
    for (int s = 0; s < N; s++) {
        if (!m->n[s])
            continue;
        touched++;
        total += m->bytes[s];
        pieces += (uint64_t)m->n[s];
        int via = expect_via(m, s, is_write);
        vreq[via]++;
        vbytes[via] += m->bytes[s];
        msgs += via == VIA_REMOTE || via == VIA_SELF;
        const H5FD_h5sf_transfer_subfile_t *e = NULL;
        for (int i = 0; i < t.nsubfile && i < H5FD_H5SF_TRANSFER_SUBFILES; i++)
            if (t.subfile[i].subfile == s)
                e = &t.subfile[i];
        CHECK(e, "%s: subfile %d (%d pieces) missing from the report", what, s, m->n[s]);
        if (!e)
            continue;
        int owner = strcmp(channel, "direct") ? s % t_size : -1;
        CHECK(e->owner == owner, "%s: subfile %d owner %d, expected %d", what, s, e->owner, owner);
        CHECK(e->via == 1u << via, "%s: subfile %d via mask 0x%x, expected 0x%x", what, s, e->via, 1u << via);
        CHECK(e->requests == 1, "%s: subfile %d: %u requests, expected 1", what, s, e->requests);
        CHECK(e->messages == (via == VIA_REMOTE || via == VIA_SELF), "%s: subfile %d: %llu messages", what, s,
              (unsigned long long)e->messages);
        CHECK(e->pieces == (uint64_t)m->n[s], "%s: subfile %d: %llu pieces, expected %d", what, s,
              (unsigned long long)e->pieces, m->n[s]);
        CHECK(e->bytes == m->bytes[s], "%s: subfile %d: %llu bytes, expected %llu", what, s,
              (unsigned long long)e->bytes, (unsigned long long)m->bytes[s]);
    }
    CHECK(t.call == call, "%s: call %llu, expected %llu", what, (unsigned long long)t.call, (unsigned long long)call);
    CHECK(t.is_write == is_write, "%s: is_write %d", what, t.is_write);
    CHECK(t.collective == coll, "%s: collective %d, expected %d", what, t.collective, coll);
    CHECK(t.failed == 0, "%s: failed %d", what, t.failed);
    CHECK(t.rounds == 1, "%s: %u rounds, expected 1", what, t.rounds);
    CHECK(t.bytes == total, "%s: %llu bytes, expected %llu", what, (unsigned long long)t.bytes,
          (unsigned long long)total);
    CHECK(t.pieces_in == m->runs, "%s: %llu pieces in, expected %llu", what, (unsigned long long)t.pieces_in,
          (unsigned long long)m->runs);
    CHECK(t.pieces_out == pieces, "%s: %llu pieces out, expected %llu", what, (unsigned long long)t.pieces_out,
          (unsigned long long)pieces);
    CHECK(t.messages == msgs, "%s: %llu messages, expected %llu", what, (unsigned long long)t.messages,
          (unsigned long long)msgs);
    for (int k = 0; k < 4; k++)
        CHECK(t.via_requests[k] == vreq[k] && t.via_bytes[k] == vbytes[k],
              "%s: via %d: %llu requests / %llu bytes, expected %llu / %llu", what, k,
              (unsigned long long)t.via_requests[k], (unsigned long long)t.via_bytes[k], (unsigned long long)vreq[k],
              (unsigned long long)vbytes[k]);
    CHECK(t.subfiles == touched && t.nsubfile == touched, "%s: %d subfiles / %d entries, expected %d", what, t.subfiles,
          t.nsubfile, touched);
    /* Requests to IOCs leave in subfile order on every rank, so that the
     * ranks' pieces of one subfile reach its IOC together (channel.c). */
    for (int i = 1, last = -1; i <= t.nsubfile && i <= H5FD_H5SF_TRANSFER_SUBFILES; i++) {
        const H5FD_h5sf_transfer_subfile_t *e = &t.subfile[i - 1];
        if (!(e->via & ((1u << VIA_REMOTE) | (1u << VIA_SELF))))
            continue;
        CHECK(e->subfile > last, "%s: the request to subfile %d left after the one to subfile %d", what, e->subfile,
              last);
        last = e->subfile;
    }
}

/* ---- what HDF5 reports ------------------------------------------------ */

typedef struct {
    H5D_mpio_actual_io_mode_t        io;
    H5D_mpio_actual_chunk_opt_mode_t opt;
    uint32_t                         local, global;
} modes_t;

static modes_t modes_of(hid_t dxpl)
{
    modes_t r;
    memset(&r, 0xff, sizeof r);
    CHECK(H5Pget_mpio_actual_io_mode(dxpl, &r.io) >= 0 && H5Pget_mpio_actual_chunk_opt_mode(dxpl, &r.opt) >= 0 &&
              H5Pget_mpio_no_collective_cause(dxpl, &r.local, &r.global) >= 0,
          "cannot read the mpio properties of the dxpl");
    return r;
}

static const char *io_name(H5D_mpio_actual_io_mode_t m)
{
    switch (m) {
        case H5D_MPIO_NO_COLLECTIVE: return "NO_COLLECTIVE";
        case H5D_MPIO_CHUNK_INDEPENDENT: return "CHUNK_INDEPENDENT";
        case H5D_MPIO_CHUNK_COLLECTIVE: return "CHUNK_COLLECTIVE";
        case H5D_MPIO_CHUNK_MIXED: return "CHUNK_MIXED";
        case H5D_MPIO_CONTIGUOUS_COLLECTIVE: return "CONTIGUOUS_COLLECTIVE";
        default: return "?";
    }
}

static const char *opt_name(H5D_mpio_actual_chunk_opt_mode_t m)
{
    switch (m) {
        case H5D_MPIO_NO_CHUNK_OPTIMIZATION: return "NO_CHUNK_OPTIMIZATION";
        case H5D_MPIO_LINK_CHUNK: return "LINK_CHUNK";
        case H5D_MPIO_MULTI_CHUNK: return "MULTI_CHUNK";
        default: return "?";
    }
}

/* One row of the table in docs/user-guide.md. */
typedef struct {
    const char *layout; /* "contiguous" or "chunked" */
    bool        coll, selio;
    modes_t     want;
} row_t;

static const row_t table[] = {
    {"contiguous", true, true, {H5D_MPIO_CONTIGUOUS_COLLECTIVE, H5D_MPIO_LINK_CHUNK, 0, 0}},
    {"contiguous", true, false, {H5D_MPIO_CONTIGUOUS_COLLECTIVE, H5D_MPIO_NO_CHUNK_OPTIMIZATION, 0, 0}},
    {"contiguous",
     false,
     true,
     {H5D_MPIO_NO_COLLECTIVE, H5D_MPIO_NO_CHUNK_OPTIMIZATION, H5D_MPIO_SET_INDEPENDENT, H5D_MPIO_SET_INDEPENDENT}},
    {"contiguous",
     false,
     false,
     {H5D_MPIO_NO_COLLECTIVE, H5D_MPIO_NO_CHUNK_OPTIMIZATION, H5D_MPIO_SET_INDEPENDENT, H5D_MPIO_SET_INDEPENDENT}},
    {"chunked", true, true, {H5D_MPIO_CHUNK_COLLECTIVE, H5D_MPIO_LINK_CHUNK, 0, 0}},
    {"chunked", true, false, {H5D_MPIO_CHUNK_COLLECTIVE, H5D_MPIO_LINK_CHUNK, 0, 0}},
    {"chunked",
     false,
     true,
     {H5D_MPIO_NO_COLLECTIVE, H5D_MPIO_NO_CHUNK_OPTIMIZATION, H5D_MPIO_SET_INDEPENDENT, H5D_MPIO_SET_INDEPENDENT}},
    {"chunked",
     false,
     false,
     {H5D_MPIO_NO_COLLECTIVE, H5D_MPIO_NO_CHUNK_OPTIMIZATION, H5D_MPIO_SET_INDEPENDENT, H5D_MPIO_SET_INDEPENDENT}},
};

static void check_modes(hid_t dxpl, const char *layout, bool coll, bool selio, const char *op)
{
    modes_t got = modes_of(dxpl);
    for (size_t i = 0; i < sizeof table / sizeof *table; i++) {
        const row_t *r = &table[i];
        if (strcmp(r->layout, layout) || r->coll != coll || r->selio != selio)
            continue;
        if (t_rank == 0)
            printf("t_report: %-10s %-11s selection I/O %-3s %-5s -> actual_io_mode %s, chunk_opt %s, "
                   "no_collective_cause local 0x%x global 0x%x\n",
                   layout, coll ? "collective" : "independent", selio ? "on" : "off", op, io_name(got.io),
                   opt_name(got.opt), got.local, got.global);
        CHECK(got.io == r->want.io && got.opt == r->want.opt && got.local == r->want.local &&
                  got.global == r->want.global,
              "%s %s %s selection I/O %s: HDF5 says io %s opt %s causes 0x%x/0x%x, the table %s %s 0x%x/0x%x", op,
              layout, coll ? "collective" : "independent", selio ? "on" : "off", io_name(got.io), opt_name(got.opt),
              got.local, got.global, io_name(r->want.io), opt_name(r->want.opt), r->want.local, r->want.global);
    }
}

/* ---- the transfers ---------------------------------------------------- */

/* This rank's selection: sparse blocks or the dense range; *m gets the model. */
static hid_t select_mine(hid_t fspace, bool sparse, haddr_t A, uint64_t sparse_len, model_t *m)
{
    hid_t    sp = H5Scopy(fspace);
    uint64_t pe = 0, pm = 0;
    memset(m, 0, sizeof *m);
    if (sparse) {
        hsize_t start = (hsize_t)t_rank * B, stride = (hsize_t)t_size * B, count = K, block = B;
        H5Sselect_hyperslab(sp, H5S_SELECT_SET, &start, &stride, &count, &block);
        for (uint64_t j = 0; j < K; j++)
            model_run(m, A + start + j * stride, B, j * B, &pe, &pm);
    }
    else {
        hsize_t start = sparse_len + (hsize_t)t_rank * (DENSE + DOFF) + DOFF, count = DENSE;
        H5Sselect_hyperslab(sp, H5S_SELECT_SET, &start, NULL, &count, NULL);
        model_run(m, A + start, DENSE, 0, &pe, &pm);
    }
    return sp;
}

static void transfers(hid_t file, hid_t dset, bool coll, bool selio, int salt, uint64_t *call)
{
    hid_t    fspace = H5Dget_space(dset), dxpl = H5Pcreate(H5P_DATASET_XFER);
    haddr_t  A          = H5Dget_offset(dset);
    uint64_t sparse_len = (uint64_t)K * B * (uint64_t)t_size;
    char     what[128];
    CHECK(A != HADDR_UNDEF, "no dataset address");
    H5Pset_dxpl_mpio(dxpl, coll ? H5FD_MPIO_COLLECTIVE : H5FD_MPIO_INDEPENDENT);
    H5Pset_selection_io(dxpl, selio ? H5D_SELECTION_IO_MODE_ON : H5D_SELECTION_IO_MODE_OFF);
    for (int sparse = 1; sparse >= 0; sparse--) {
        static model_t m;
        hid_t          sp   = select_mine(fspace, sparse, A, sparse_len, &m);
        size_t         len  = sparse ? (size_t)K * B : DENSE;
        hsize_t        mlen = len;
        hid_t          ms   = H5Screate_simple(1, &mlen, NULL);
        unsigned char *buf = malloc(len), *back = calloc(1, len);
        t_fill(buf, len, (uint64_t)(salt + sparse + t_rank), 0);
        snprintf(what, sizeof what, "%s %s selio %s write", sparse ? "sparse" : "dense", coll ? "coll" : "indep",
                 selio ? "on" : "off");
        CHECK(H5Dwrite(dset, H5T_NATIVE_UCHAR, ms, sp, dxpl, buf) >= 0, "%s failed", what);
        check_report(file, &m, true, coll, ++*call, what);
        check_modes(dxpl, "contiguous", coll, selio, "write");
        MPI_Barrier(MPI_COMM_WORLD);
        snprintf(what, sizeof what, "%s %s selio %s read", sparse ? "sparse" : "dense", coll ? "coll" : "indep",
                 selio ? "on" : "off");
        CHECK(H5Dread(dset, H5T_NATIVE_UCHAR, ms, sp, dxpl, back) >= 0, "%s failed", what);
        CHECK(!memcmp(buf, back, len), "%s: data differ from what was written", what);
        check_report(file, &m, false, coll, ++*call, what);
        check_modes(dxpl, "contiguous", coll, selio, "read");
        free(buf);
        free(back);
        H5Sclose(ms);
        H5Sclose(sp);
    }
    H5Pclose(dxpl);
    H5Sclose(fspace);
}

/* The chunked rows of the table: one chunk of 4 KiB per rank. */
static void chunked_modes(hid_t file, bool coll, bool selio)
{
    hsize_t dim = 4096 * (hsize_t)t_size, chunk = 4096, start = 4096 * (hsize_t)t_rank, count = 4096;
    hid_t   dcpl = H5Pcreate(H5P_DATASET_CREATE), fs = H5Screate_simple(1, &dim, NULL),
          ms            = H5Screate_simple(1, &count, NULL);
    hid_t          dxpl = H5Pcreate(H5P_DATASET_XFER);
    char           name[64];
    unsigned char *buf = calloc(1, 4096);
    snprintf(name, sizeof name, "chunked_%d_%d", coll, selio);
    H5Pset_chunk(dcpl, 1, &chunk);
    hid_t d = H5Dcreate2(file, name, H5T_NATIVE_UCHAR, fs, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &count, NULL);
    H5Pset_dxpl_mpio(dxpl, coll ? H5FD_MPIO_COLLECTIVE : H5FD_MPIO_INDEPENDENT);
    H5Pset_selection_io(dxpl, selio ? H5D_SELECTION_IO_MODE_ON : H5D_SELECTION_IO_MODE_OFF);
    CHECK(d >= 0 && H5Dwrite(d, H5T_NATIVE_UCHAR, ms, fs, dxpl, buf) >= 0, "chunked write failed");
    check_modes(dxpl, "chunked", coll, selio, "write");
    CHECK(H5Dread(d, H5T_NATIVE_UCHAR, ms, fs, dxpl, buf) >= 0, "chunked read failed");
    check_modes(dxpl, "chunked", coll, selio, "read");
    free(buf);
    H5Dclose(d);
    H5Pclose(dxpl);
    H5Pclose(dcpl);
    H5Sclose(fs);
    H5Sclose(ms);
}

int main(int argc, char **argv)
{
    char path[4096];
    t_init(&argc, &argv, "t_report");
    if (argc != 2) {
        fprintf(stderr, "usage: mpiexec -n P t_report DIR\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    channel         = getenv("H5SF_CHANNEL") && !strcmp(getenv("H5SF_CHANNEL"), "direct") ? "direct" : "ioc";
    samenode_reads  = !env_off("H5SF_SAMENODE_READS", "H5SF_IOC_LOCAL_READS");
    samenode_writes = !env_off("H5SF_SAMENODE_WRITES", "H5SF_IOC_LOCAL_WRITES");
    const char *w   = t_env_renamed("H5SF_SAMENODE_WRITES", "H5SF_IOC_LOCAL_WRITES");
    samenode_dense  = w && !strcmp(w, "dense");
    {
        MPI_Comm node;
        int      nsize;
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
        MPI_Comm_size(node, &nsize);
        MPI_Comm_free(&node);
        CHECK(nsize == t_size, "the test expects all ranks on one node");
    }

    H5FD_h5sf_config_t cfg;
    H5FD_h5sf_config_init(&cfg);
    cfg.stripe_size  = S;
    cfg.stripe_count = N;
    cfg.ioc_mode     = H5FD_H5SF_IOC_EVERY_NTH;
    cfg.ioc_param    = 1;
    cfg.comm         = MPI_COMM_WORLD;
    hid_t fapl       = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_h5sf(fapl, &cfg);
    snprintf(path, sizeof path, "%s/report.h5", argv[1]);
    hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    CHECK(file >= 0, "cannot create %s", path);
    if (file < 0)
        MPI_Abort(MPI_COMM_WORLD, 1);

    H5FD_h5sf_layout_t lay;
    CHECK(H5FD_h5sf_get_layout(file, &lay) >= 0 && lay.stripe_size == S && lay.stripe_count == N, "unexpected layout");
    CHECK(!strcmp(channel, "direct") ? lay.channel == H5FD_H5SF_CHANNEL_DIRECT
                                     : lay.channel == H5FD_H5SF_CHANNEL_IOC && lay.ioc_count == t_size,
          "channel %d with %d IOCs, expected %s with %d", lay.channel, lay.ioc_count, channel, t_size);

    /* Before any raw-data transfer: an all-zero report. */
    H5FD_h5sf_transfer_t t0;
    memset(&t0, 0xff, sizeof t0);
    CHECK(H5FD_h5sf_get_last_transfer(file, &t0) >= 0 && t0.call == 0 && t0.nsubfile == 0 && t0.bytes == 0,
          "report before any transfer: call %llu, %d entries", (unsigned long long)t0.call, t0.nsubfile);
    H5E_BEGIN_TRY { CHECK(H5FD_h5sf_get_last_transfer(file, NULL) < 0, "NULL report accepted"); }
    H5E_END_TRY

    hsize_t dim = (hsize_t)K * B * (hsize_t)t_size + (hsize_t)t_size * (DENSE + DOFF) + 100;
    hid_t   fs = H5Screate_simple(1, &dim, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY);
    hid_t dset = H5Dcreate2(file, "contig", H5T_NATIVE_UCHAR, fs, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    CHECK(dset >= 0, "cannot create the dataset");
    uint64_t call = 0;
    transfers(file, dset, true, true, 1, &call);
    transfers(file, dset, true, false, 2, &call);
    transfers(file, dset, false, true, 3, &call);
    for (int coll = 1; coll >= 0; coll--)
        for (int selio = 1; selio >= 0; selio--)
            chunked_modes(file, coll, selio);
    /* Independent, selection I/O off, contiguous: HDF5 itself makes one
     * call per block (no sieve buffer for an MPI driver); the report holds
     * the last. */
    {
        hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
        H5Pset_selection_io(dxpl, H5D_SELECTION_IO_MODE_OFF);
        static model_t       m;
        hid_t                sp   = select_mine(fs, true, 0, (uint64_t)K * B * (uint64_t)t_size, &m);
        hsize_t              mlen = (hsize_t)K * B;
        hid_t                ms   = H5Screate_simple(1, &mlen, NULL);
        unsigned char       *buf  = calloc(1, (size_t)mlen);
        H5FD_h5sf_transfer_t a, b;
        H5FD_h5sf_get_last_transfer(file, &a);
        CHECK(H5Dread(dset, H5T_NATIVE_UCHAR, ms, sp, dxpl, buf) >= 0, "independent read, selection I/O off");
        H5FD_h5sf_get_last_transfer(file, &b);
        check_modes(dxpl, "contiguous", false, false, "read");
        uint64_t nblocks = t_size == 1 ? 1 : K;
        CHECK(b.call - a.call == nblocks && b.bytes == (t_size == 1 ? (uint64_t)K * B : B) && !b.collective,
              "independent read with selection I/O off: %llu calls of %llu bytes, expected %llu",
              (unsigned long long)(b.call - a.call), (unsigned long long)b.bytes, (unsigned long long)nblocks);
        free(buf);
        H5Sclose(ms);
        H5Sclose(sp);
        H5Pclose(dxpl);
    }
    /* The getters are local: the last rank alone asks while the others
     * wait in a barrier (MPI lets one rank query; a getter that made a
     * collective call here would hang the job). */
    if (t_rank == t_size - 1) {
        H5FD_h5sf_layout_t   l1;
        H5FD_h5sf_transfer_t t1;
        h5sf_stats_t         s1;
        CHECK(H5FD_h5sf_get_layout(file, &l1) >= 0 && l1.stripe_size == S, "one rank alone: get_layout");
        CHECK(H5FD_h5sf_get_last_transfer(file, &t1) >= 0, "one rank alone: get_last_transfer");
        CHECK(H5FD_h5sf_get_stats(file, &s1) >= 0, "one rank alone: get_stats");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    H5Dclose(dset);
    H5Pclose(dcpl);
    H5Sclose(fs);
    CHECK(H5Fclose(file) >= 0, "close failed");
    H5Pclose(fapl);
    int all = t_verdict();
    MPI_Finalize();
    return all;
}
