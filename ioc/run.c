/*
 * run.c -- executing a batch of IOC requests: the pwritev/preadv of its
 * merged runs, the chunked payload messages with the clients, the replies.
 *
 * Payloads move in chunks (ioc_chunk_size: H5SF_IOC_CHUNK, or a quarter of
 * a smaller payload) through transfer slots (slots.c): with two slots, chunk
 * k+1 is received while chunk k is written; reads mirror it.  A client's
 * sends wait in MPI until a slot takes them, which is the back-pressure on
 * clients.  Pieces are written as runs of
 * contiguous bytes (one pwritev each), merged across the batch's members,
 * looped over short transfers and EINTR.  Reads past EOF give zeros, as
 * HDF5 expects.  Requests an IOC rank makes to itself never touch MPI:
 * the worker copies their bytes through a slot (self_copy), so a client
 * that times out gets its memory back at once.  The answer goes through
 * ctx->done_cond.  The system calls are common/sysio.c's.
 *
 * Owns what happens to a batch once formed: its I/O, then its answers.
 * Must not choose members nor touch the ready queue, nor release the
 * requests a finished batch held back (merge.c and worker.c own those):
 * worker.c calls in here, never the other way round.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include "internal.h"
#include "../common/runs.h"
#include "account.h"

#define SEGS_KEEP 4096 /* sort workspace a worker keeps between batches (128 KiB) */

/* The daemon is stopping and the peer never completed *req: cancel it.  A
 * transfer already under way cannot be cancelled; it may still complete
 * while the peer is in MPI (closing), so wait a little.  If it does not,
 * release it: MPI may still use its buffer, which the caller must then
 * never free or reuse (-2).  -1 when MPI is done with it. */
#define STOP_GRACE_NS (1000u * 1000000u)
static int abandon_req(MPI_Request *req)
{
    int      flag = 0;
    unsigned idle = 0;
    uint64_t t0   = ioc_now_ns();
    IOC_MPI(MPI_Cancel(req));
    while (IOC_MPI(MPI_Test(req, &flag, MPI_STATUS_IGNORE)) == MPI_SUCCESS && !flag &&
           ioc_now_ns() - t0 < STOP_GRACE_NS)
        ioc_backoff(&idle);
    if (flag)
        return -1;
    IOC_MPI(MPI_Request_free(req));
    return -2;
}

/* Wait for a non-blocking operation, giving up if the daemon is stopping
 * (the peer has gone away and will never match it).  0 when complete, else
 * as abandon_req(). */
static int wait_req(h5sf_ioc_ctx_t *ctx, MPI_Request *req)
{
    int      flag = 0;
    unsigned idle = 0;
    while (IOC_MPI(MPI_Test(req, &flag, MPI_STATUS_IGNORE)) == MPI_SUCCESS && !flag) {
        if (atomic_load(&ctx->stop))
            return abandon_req(req);
        ioc_backoff(&idle);
    }
    return flag ? 0 : -1;
}

static int send_bytes(h5sf_ioc_ctx_t *ctx, const void *buf, uint64_t n, int dest, int tag)
{
    MPI_Request req;
    if (IOC_MPI(MPI_Isend(buf, (int)n, MPI_BYTE, dest, tag, ctx->comm, &req)) != MPI_SUCCESS)
        return -1;
    return wait_req(ctx, &req);
}

/* h is a write whose payload comes as MPI messages (not inline, not in
 * shared memory). */
static bool payload_messages(const h5sf_wire_hdr_t *h)
{
    return h->op == H5SF_WIRE_WRITE && h->total && !(h->flags & (H5SF_WIRE_INLINE | H5SF_WIRE_SHM));
}

/* The payload's messages are matched by probing its tag, not by its piece
 * list: a request refused for want of memory has none.  Each is received
 * whole into scratch (or, if even that cannot be had, truncated to nothing,
 * which completes the send all the same).  The client posted its sends
 * with its header, so they are here or on their way; waiting for them is
 * bounded by the timeout and the stop all the same. */
int ioc_drain_payload(h5sf_ioc_ctx_t *ctx, const h5sf_wire_hdr_t *h, int source, h5sf_errbuf_t *e)
{
    uint64_t       got = 0, deadline = ioc_now_ns() + (uint64_t)atomic_load(&ctx->timeout_s) * 1000000000u;
    unsigned char *scratch = NULL;
    size_t         cap     = 0;
    unsigned       idle    = 0;
    int            ret     = 0;
    while (got < h->total) {
        int         flag = 0, n = 0, rc;
        MPI_Message m;
        MPI_Status  st;
        if (IOC_MPI(MPI_Improbe(source, H5SF_TAG_WDATA(h->tag), ctx->comm, &flag, &m, &st)) != MPI_SUCCESS) {
            ret = h5sf_fail(e, 0, "MPI failed probing for its payload");
            goto done;
        }
        if (!flag) {
            if (atomic_load(&ctx->stop) || ioc_now_ns() >= deadline) {
                ret = h5sf_fail(e, ETIMEDOUT, "only %llu of its %llu payload bytes arrived within %d s",
                                (unsigned long long)got, (unsigned long long)h->total, atomic_load(&ctx->timeout_s));
                goto done;
            }
            ioc_backoff(&idle);
            continue;
        }
        IOC_MPI(MPI_Get_count(&st, MPI_BYTE, &n));
        if ((size_t)n > cap) {
            h5sf_free(scratch);
            cap     = (size_t)n;
            scratch = h5sf_malloc(cap);
            if (!scratch)
                cap = 0;
        }
        rc = scratch ? IOC_MPI(MPI_Mrecv(scratch, n, MPI_BYTE, &m, MPI_STATUS_IGNORE))
                     : IOC_MPI(MPI_Mrecv(NULL, 0, MPI_BYTE, &m, MPI_STATUS_IGNORE));
        if (rc != MPI_SUCCESS && (scratch || n == 0)) {
            ret = h5sf_fail(e, 0, "MPI failed receiving its payload");
            goto done;
        }
        got += (uint64_t)n;
        idle = 0;
    }
done:
    h5sf_free(scratch);
    return ret;
}

void ioc_refuse(h5sf_ioc_ctx_t *ctx, const h5sf_wire_hdr_t *h, int source, int err, const char *msg)
{
    char          full[H5SF_WIRE_REPLY_MSG];
    h5sf_errbuf_t eb;
    snprintf(full, sizeof full, "%s", msg);
    if (payload_messages(h) && ioc_drain_payload(ctx, h, source, &eb) < 0) {
        /* The client's sends then end only at its timeout: say why. */
        fprintf(stderr, "h5sf: IOC rank %d could not take the payload of rank %d's refused write: %s\n", ctx->rank,
                source, eb.msg);
        snprintf(full, sizeof full, "%.200s; its payload was not taken: %.160s", msg, eb.msg);
    }
    ioc_reply_error(ctx, h, source, err, full);
}

static void send_reply(h5sf_ioc_ctx_t *ctx, int source, int tag, const h5sf_wire_reply_t *rep)
{
    unsigned char buf[H5SF_WIRE_REPLY_SIZE];
    h5sf_wire_reply_encode(rep, buf);
    uint64_t acct = ioc_acct_now();
    send_bytes(ctx, buf, sizeof buf, source, tag);
    ioc_acct_stop(IOC_ACCT_REPLY, acct, sizeof buf);
}

void ioc_reply_error(h5sf_ioc_ctx_t *ctx, const h5sf_wire_hdr_t *h, int source, int err, const char *msg)
{
    h5sf_wire_reply_t rep;
    memset(&rep, 0, sizeof rep);
    rep.status = err ? err : -1;
    rep.id     = h->id;
    snprintf(rep.msg, sizeof rep.msg, "%s", msg);
    send_reply(ctx, source, h->tag, &rep);
}

/* ---- file I/O ----------------------------------------------------------- */

static void io_error(h5sf_ioc_ctx_t *ctx, const ioc_server_req_t *r, h5sf_wire_reply_t *rep, int err, uint64_t n,
                     uint64_t off)
{
    rep->status = err ? err : EIO;
    snprintf(rep->msg, sizeof rep->msg,
             "IOC rank %d: %s of %llu bytes at offset %llu of subfile %s failed: %s (errno %d)", ctx->rank,
             r->h.op == H5SF_WIRE_WRITE ? "pwrite" : "pread", (unsigned long long)n, (unsigned long long)off,
             r->sf->path, strerror(rep->status), rep->status);
}


static int seg_cmp(const void *a, const void *b)
{
    const seg_t *x = a, *y = b;
    return x->off < y->off ? -1 : x->off > y->off;
}

static void fail_member(h5sf_ioc_ctx_t *ctx, member_t *m, int err, uint64_t n, uint64_t off)
{
    if (m->failed)
        return;
    m->failed = true;
    io_error(ctx, m->r, &m->rep, err, n, off);
}

/* Append member j's pieces for its m->n bytes of this round to segs. */
static size_t cut(member_t *m, uint32_t j, seg_t *segs, size_t ns)
{
    ioc_server_req_t *r = m->r;
    unsigned char    *p = m->buf;
    uint64_t          n = m->n;
    while (n > 0 && m->i < r->h.count) {
        uint64_t len = r->lens[m->i] - m->po;
        if (len > n)
            len = n;
        if (len) {
            segs[ns].off = r->offs[m->i] + m->po;
            segs[ns].len = len;
            segs[ns].p   = p ? p : (unsigned char *)r->mem[m->i] + m->po;
            segs[ns].m   = j;
            ns++;
        }
        if (p)
            p += len;
        n -= len;
        if ((m->po += len) == r->lens[m->i]) {
            m->i++;
            m->po = 0;
        }
    }
    return ns;
}

/* The segments of one round, as runs.h sees them: a failed member's are
 * skipped. */
typedef struct round_segs {
    const seg_t    *segs;
    const member_t *mb;
} round_segs_t;

static bool seg_piece(void *arg, size_t i, h5sf_run_piece_t *p)
{
    const round_segs_t *rs = arg;
    const seg_t        *g  = &rs->segs[i];
    p->off                 = g->off;
    p->len                 = g->len;
    p->mem                 = g->p;
    return !rs->mb[g->m].failed;
}

/* Transfer segs[0..ns) (sorted, or one member's own order) as runs
 * (common/runs.c), one pwritev/preadv each (common/sysio.c).  A failure
 * fails the members with a segment in that run; the segments of failed
 * members are skipped. */
static void transfer_runs(h5sf_ioc_ctx_t *ctx, ioc_sf_t *sf, int op, member_t *mb, const seg_t *segs, size_t ns)
{
    h5sf_runs_t       r;
    round_segs_t      rs = {segs, mb};
    h5sf_sysio_xfer_t x  = {.fd = sf->fd, .is_write = op == H5SF_WIRE_WRITE, .fault_rank = ctx->rank, .stuck = true};
    h5sf_runs_init(&r, ns, seg_piece, &rs);
    while (h5sf_runs_next(&r)) {
        atomic_fetch_add(&ctx->syscalls, 1);
        uint64_t acct = ioc_acct_now();
        if (h5sf_sysio_xferv(&x, r.iov, r.niov, r.off) < 0) {
            int err = errno;
            for (size_t q = r.first; q <= r.last; q++)
                fail_member(ctx, &mb[segs[q].m], err, r.len, r.off);
        }
        ioc_acct_stop(IOC_ACCT_IO, acct, r.len);
    }
}

/* Buffer of round k: with two, they alternate, so the payload of the next
 * round moves over MPI while this round's pieces are on the disk. */
static unsigned char *round_buf(const member_t *m, uint64_t k) { return (k & 1) && m->slot2 ? m->slot2 : m->slot; }
static int            round_ix(const member_t *m, uint64_t k) { return (k & 1) && m->slot2 ? 1 : 0; }

/* Post the messages of chunk k on its buffer: receives of a write's
 * payload, sends of a read's (payload.c decides how many). */
static int post_chunk(h5sf_ioc_ctx_t *ctx, member_t *m, uint64_t k)
{
    ioc_server_req_t *r  = m->r;
    int               ix = round_ix(m, k);
    unsigned char    *p  = round_buf(m, k);
    uint64_t          plen[IOC_SPLIT_MAX];
    size_t            np = ioc_chunk_plan(r->lens, r->h.count, &m->mc, ioc_chunk_len(r->h.total, k), plen);
    for (size_t j = 0; j < np; p += plen[j], j++) {
        MPI_Request *q  = &m->req[ix][m->nreq[ix]];
        int          rc = r->h.op == H5SF_WIRE_WRITE
                              ? IOC_MPI(MPI_Irecv(p, (int)plen[j], MPI_BYTE, r->source, H5SF_TAG_WDATA(r->h.tag), ctx->comm, q))
                              : IOC_MPI(MPI_Isend(p, (int)plen[j], MPI_BYTE, r->source, H5SF_TAG_RDATA(r->h.tag), ctx->comm, q));
        if (rc != MPI_SUCCESS)
            return -1;
        m->nreq[ix]++;
    }
    return 0;
}

/* Complete the transfers on buffer i, if any; -1 if they cannot complete.
 * A buffer MPI may still use (abandon_req) is dropped from the member, so
 * it never returns to the pool. */
static int settle(h5sf_ioc_ctx_t *ctx, member_t *m, int i)
{
    int      rc    = 0;
    bool     inuse = false;
    uint64_t acct  = m->nreq[i] ? ioc_acct_now() : 0;
    for (int j = 0; j < m->nreq[i]; j++) {
        int w = m->req[i][j] != MPI_REQUEST_NULL ? wait_req(ctx, &m->req[i][j]) : 0;
        if (w < 0)
            rc = -1;
        inuse |= w == -2;
    }
    ioc_acct_stop(IOC_ACCT_PAYLOAD, acct, 0);
    m->nreq[i] = 0;
    if (inuse) {
        if (i == 1)
            m->slot2 = NULL;
        else
            m->slot = NULL;
    }
    return rc;
}

/* An own request run by a worker: its bytes pass through m->slot. */
static bool bounced(const member_t *m) { return m->r->self && m->slot; }

/* Copy this round's m->n bytes between the client's buffers and m->slot
 * (to_client: a read's), advancing m->mc; false, copying nothing, if the
 * client has given up waiting.  Marked busy meanwhile, so that a client
 * timing out waits for a memcpy at most, never for our disk. */
static bool self_copy(h5sf_ioc_ctx_t *ctx, member_t *m, bool to_client)
{
    ioc_server_req_t *r = m->r;
    unsigned char    *p = m->slot;
    uint64_t          n = m->n;
    uv_mutex_lock(&ctx->lock);
    bool gone     = r->self->detached;
    r->self->busy = !gone;
    uv_mutex_unlock(&ctx->lock);
    if (gone)
        return false;
    while (n > 0 && m->mc.i < r->h.count) {
        uint64_t len     = r->lens[m->mc.i] - m->mc.po;
        len              = len < n ? len : n;
        unsigned char *c = (unsigned char *)r->mem[m->mc.i] + m->mc.po;
        if (len)
            memcpy(to_client ? c : p, to_client ? p : c, (size_t)len);
        p += len;
        n -= len;
        if ((m->mc.po += len) == r->lens[m->mc.i]) {
            m->mc.i++;
            m->mc.po = 0;
        }
    }
    uv_mutex_lock(&ctx->lock);
    r->self->busy = false;
    uv_cond_broadcast(&ctx->done_cond);
    uv_mutex_unlock(&ctx->lock);
    return true;
}

/* An MPI transfer with member m's client failed (what: which one): stop
 * moving its bytes; the reply names the cause unless it has one already. */
static void mark_peer_lost(h5sf_ioc_ctx_t *ctx, member_t *m, const char *what)
{
    m->lost = true;
    if (m->rep.status)
        return;
    m->rep.status = EPIPE;
    snprintf(m->rep.msg, sizeof m->rep.msg, "IOC rank %d: lost the %s rank %d", ctx->rank, what, m->r->source);
}

/* The client of an own request stopped waiting (timeout): stop. */
static void mark_client_gone(h5sf_ioc_ctx_t *ctx, member_t *m)
{
    m->lost = true;
    if (m->rep.status)
        return;
    m->rep.status = ETIMEDOUT;
    snprintf(m->rep.msg, sizeof m->rep.msg, "IOC rank %d: its own client stopped waiting", ctx->rank);
}

/* run_rounds, before a round's I/O: member m's chunk k in memory (a write's
 * payload received, a read's buffer free), its pieces cut into segs at ns.
 * Returns the new ns; a member that cannot go on is marked and skipped. */
static size_t round_in(h5sf_ioc_ctx_t *ctx, member_t *m, uint32_t j, int op, seg_t *segs, size_t ns)
{
    ioc_server_req_t *r = m->r;
    /* Every member moves one chunk per round, own and inline ones too, so
     * the members' rounds cover the same stretch of an interleaved pattern
     * and their pieces meet in runs. */
    m->n = ioc_chunk_len(r->h.total, m->k);
    if (bounced(m)) {
        m->buf = m->slot;
        if (op == H5SF_WIRE_WRITE && !m->failed && !self_copy(ctx, m, false)) {
            mark_client_gone(ctx, m);
            return ns;
        }
    }
    else if (ioc_addressable(r))
        m->buf = r->self ? NULL : r->data + m->k * ioc_chunk_size(r->h.total);
    else {
        m->buf = round_buf(m, m->k);
        /* Writes: this round's chunk must be in; reads: the send that last
         * used this buffer must be out. */
        if (settle(ctx, m, round_ix(m, m->k)) < 0) {
            mark_peer_lost(ctx, m, op == H5SF_WIRE_WRITE ? "write payload from" : "connection to");
            return ns;
        }
        /* With two buffers, ask for the next chunk now: it arrives while
         * this one is written. */
        if (op == H5SF_WIRE_WRITE && m->slot2 && m->k + 1 < m->nk && post_chunk(ctx, m, m->k + 1) < 0) {
            mark_peer_lost(ctx, m, "write payload from");
            return ns;
        }
    }
    /* After a failure keep receiving: the client's sends must end. */
    return m->failed ? ns : cut(m, j, segs, ns);
}

/* run_rounds, after a round's I/O: member m moves to its next chunk (a
 * read's chunk goes out, a write's next one is asked for). */
static void round_out(h5sf_ioc_ctx_t *ctx, member_t *m, int op)
{
    uint64_t k = m->k++;
    if (bounced(m)) {
        if (op == H5SF_WIRE_READ && !m->failed && !self_copy(ctx, m, true))
            mark_client_gone(ctx, m);
        return;
    }
    if (ioc_addressable(m->r))
        return;
    if (op == H5SF_WIRE_WRITE) {
        /* One buffer: it is free again, ask for the next chunk. */
        if (!m->slot2 && m->k < m->nk && post_chunk(ctx, m, m->k) < 0)
            mark_peer_lost(ctx, m, "write payload from");
        return;
    }
    /* The client cancels its receives after an error reply. */
    if (m->failed || post_chunk(ctx, m, k) < 0)
        m->lost = true;
}

/* The I/O of batch mb[0..nm), round by round (internal.h, "batches"): each
 * member's chunk k in memory, its pieces sorted into runs, the runs to disk,
 * then every member on to its next chunk; sends still in flight complete
 * before the reply goes out. */
static void run_rounds(h5sf_ioc_ctx_t *ctx, member_t *mb, int nm, seg_t *segs)
{
    int       op = mb[0].r->h.op;
    ioc_sf_t *sf = mb[0].r->sf;
    for (int j = 0; j < nm; j++) {
        mb[j].nreq[0] = mb[j].nreq[1] = 0;
        if (op == H5SF_WIRE_WRITE && !ioc_addressable(mb[j].r) && mb[j].nk > 0 && post_chunk(ctx, &mb[j], 0) < 0)
            mark_peer_lost(ctx, &mb[j], "write payload from");
    }
    for (;;) {
        size_t ns   = 0;
        bool   more = false;
        for (int j = 0; j < nm; j++) {
            mb[j].n = 0;
            if (mb[j].k >= mb[j].nk || mb[j].lost)
                continue;
            more = true;
            ns   = round_in(ctx, &mb[j], (uint32_t)j, op, segs, ns);
        }
        if (!more)
            break;
        if (nm > 1)
            qsort(segs, ns, sizeof *segs, seg_cmp);
        transfer_runs(ctx, sf, op, mb, segs, ns);
        if (atomic_load(&ctx->abandoned))
            return; /* given up on while in the I/O: no more MPI */
        for (int j = 0; j < nm; j++)
            if (mb[j].k < mb[j].nk && !mb[j].lost)
                round_out(ctx, &mb[j], op);
    }
    for (int j = 0; j < nm; j++)
        for (int i = 0; i < 2; i++)
            if (settle(ctx, &mb[j], i) < 0)
                mark_peer_lost(ctx, &mb[j], "connection to");
}

/* Truncate, size and fsync: barriers, always alone. */
static void run_control(h5sf_ioc_ctx_t *ctx, ioc_server_req_t *r, h5sf_wire_reply_t *rep)
{
    ioc_sf_t *sf  = r->sf;
    int       err = 0;
    switch (r->h.op) {
        case H5SF_WIRE_GET_SIZE:
            if (h5sf_sysio_size(sf->fd, &rep->value) < 0) {
                err = errno;
                snprintf(rep->msg, sizeof rep->msg, "IOC rank %d: fstat of subfile %s failed: %s (errno %d)", ctx->rank,
                         sf->path, strerror(err), err);
            }
            break;
        case H5SF_WIRE_TRUNCATE:
            if (h5sf_sysio_truncate(sf->fd, r->h.arg) < 0) {
                err = errno;
                snprintf(rep->msg, sizeof rep->msg,
                         "IOC rank %d: truncating subfile %s to %llu bytes failed: %s (errno %d)", ctx->rank, sf->path,
                         (unsigned long long)r->h.arg, strerror(err), err);
            }
            break;
        case H5SF_WIRE_FSYNC:
            if (h5sf_sysio_sync(sf->fd, ctx->rank) < 0) {
                err = errno;
                snprintf(rep->msg, sizeof rep->msg, "IOC rank %d: fsync of subfile %s failed: %s (errno %d)", ctx->rank,
                         sf->path, strerror(err), err);
            }
            break;
        default: break;
    }
    if (err)
        rep->status = err;
}


/* A member's write fails before its payload moved: take the payload so
 * that the client's sends end, or say in the reply that it was not. */
static void drain_refused(h5sf_ioc_ctx_t *ctx, member_t *m)
{
    h5sf_errbuf_t eb;
    size_t        l = strlen(m->rep.msg);
    if (ioc_drain_payload(ctx, &m->r->h, m->r->source, &eb) == 0)
        return;
    fprintf(stderr, "h5sf: IOC rank %d could not take the payload of rank %d's failed write: %s\n", ctx->rank,
            m->r->source, eb.msg);
    if (l < sizeof m->rep.msg)
        snprintf(m->rep.msg + l, sizeof m->rep.msg - l, "; its payload was not taken: %.160s", eb.msg);
}

/* Run a batch formed by ioc_merge_take() (lock not held): the I/O; the
 * answers stay in the members for ioc_run_answer. */
void ioc_run_batch(h5sf_ioc_ctx_t *ctx, member_t *mb, int nm, seg_t **segs, size_t *cap)
{
    uint64_t t0 = ioc_now_ns(), npieces = 0, maxk = 0;
    for (int j = 0; j < nm; j++) {
        ioc_server_req_t *r = mb[j].r;
        mb[j].rep.id        = r->h.id;
        mb[j].nk            = ioc_nchunks(r->h.total);
        npieces += r->h.count;
        maxk = mb[j].nk > maxk ? mb[j].nk : maxk;
        atomic_fetch_add(&ctx->queue_wait_ns, t0 - r->t_arrive);
        ioc_acct_add(IOC_ACCT_QUEUE, t0 - r->t_arrive, r->h.total);
    }
    atomic_fetch_add(&ctx->batches, 1);
    atomic_fetch_add(&ctx->merged, (uint64_t)(nm - 1));
    ioc_fault_delay(ctx);
    ioc_server_req_t *r0  = mb[0].r;
    bool              io  = r0->h.op == H5SF_WIRE_WRITE || r0->h.op == H5SF_WIRE_READ;
    int               err = ioc_sf_use(ctx, r0->sf);
    const char       *why = "cannot reopen subfile";
    /* Pieces split at chunk borders: at most one extra per member per round. */
    size_t need = (size_t)(npieces + (uint64_t)nm * maxk);
    if (!err && io && need > *cap) {
        seg_t *p = h5sf_realloc(*segs, need * sizeof *p);
        if (p) {
            *segs = p;
            *cap  = need;
        }
        else {
            err = ENOMEM;
            why = "out of memory sorting the pieces for subfile";
        }
    }
    if (err) {
        for (int j = 0; j < nm; j++) {
            mb[j].rep.status = err;
            snprintf(mb[j].rep.msg, sizeof mb[j].rep.msg, "IOC rank %d: %s %s: %s (errno %d)", ctx->rank, why,
                     r0->sf->path, h5sf_sysio_strerror(err), err); /* the reopen's refusals by name */
            if (mb[j].r->h.op == H5SF_WIRE_WRITE && !ioc_addressable(mb[j].r))
                drain_refused(ctx, &mb[j]);
        }
    }
    else if (io) {
        if (mb[0].failed && r0->h.op == H5SF_WIRE_WRITE && !ioc_addressable(r0))
            drain_refused(ctx, &mb[0]); /* no buffer for it */
        else
            run_rounds(ctx, mb, nm, *segs);
    }
    else
        run_control(ctx, r0, &mb[0].rep);
    atomic_fetch_add(&ctx->io_ns, ioc_now_ns() - t0);
    atomic_fetch_add(&ctx->served, (uint64_t)nm);

    /* A workspace grown for a long piece list was paid for by the members'
     * budget (ioc_msg_cost), which they give back with the batch: so does it. */
    if (*cap > SEGS_KEEP) {
        h5sf_free(*segs);
        *segs = NULL;
        *cap  = 0;
    }
}

void ioc_run_answer(h5sf_ioc_ctx_t *ctx, member_t *mb, int nm)
{
    for (int j = 0; j < nm; j++) {
        if (!mb[j].r->self)
            send_reply(ctx, mb[j].r->source, mb[j].r->h.tag, &mb[j].rep);
        ioc_req_free(ctx, mb[j].r);
    }
}
