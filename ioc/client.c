/*
 * client.c -- the requesting side of the IOC protocol.
 *
 * A request is three non-blocking operations: the header send, the payload
 * (a send from the caller's buffers for writes, a receive into them for
 * reads; both described by one derived datatype), and the reply receive.
 * Receives are posted before the header leaves, so an IOC never waits for a
 * client to post.  Each request has its own tag pair, so replies of requests
 * in flight at once cannot be confused: tags repeat only every "span"
 * request ids, so before posting request `id` a client finishes every
 * posted request with an id span or more below it (whose later wait then
 * returns at once) -- the posted list is in id order, so the oldest go
 * first -- and every reply must carry its request's id.  Every wait is
 * bounded by the context's timeout: an IOC that never answers becomes an
 * error, not a hang -- and the caller's memory is ours only until the wait
 * returns: write payloads leave from a copy (payload_copy), read receives
 * are cancelled and completed on a timeout, and requests to this rank's own
 * IOC are detached from the workers (wait_self).  Requests to an IOC on
 * this node move no payload over MPI: it is copied into this rank's
 * shared-memory segment (writes) or out of it after the reply (reads):
 * shm.c.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "account.h"

struct h5sf_ioc_client_req {
    h5sf_ioc_ctx_t *ctx;
    uint64_t        id; /* the reply must carry it back       */
    int             op, ioc, tag;
    uint32_t        file_id, subfile;
    uint64_t        total;
    MPI_Request     hdr_req, reply_req;
    MPI_Request    *data; /* one per payload message            */
    MPI_Datatype   *dts;
    uint64_t        ndata; /* payload messages                   */
    unsigned char  *hdr;
    unsigned char  *copy;     /* a write's payload, contiguous      */
    uint64_t        copy_cap; /* its size (ioc_copy_size)        */
    /* Payload in our shared-memory segment (shm.c): where, and for a read
     * the caller's pieces to copy it out to once the reply is in. */
    bool          shm;
    uint64_t      shm_off;
    size_t        rcount;
    uint64_t     *rlens;
    void        **rbufs;
    unsigned char reply[H5SF_WIRE_REPLY_SIZE];
    ioc_self_t    self; /* requests to ourselves              */
    bool          is_self;
    /* Finished early to free its tag (wait_remote): the outcome, kept for the wait. */
    bool                        finished, abandoned;
    int                         ret;
    uint64_t                    value;
    h5sf_errbuf_t               err;
    struct h5sf_ioc_client_req *prev, *next; /* ctx->posted list */
    struct h5sf_ioc_client_req *part;        /* the next part of a split request */
};

static void posted_add(h5sf_ioc_ctx_t *ctx, h5sf_ioc_client_req_t *q)
{
    q->prev = ctx->posted_tail;
    q->next = NULL;
    if (ctx->posted_tail)
        ctx->posted_tail->next = q;
    else
        ctx->posted_head = q;
    ctx->posted_tail = q;
    ctx->nposted++;
}

static void posted_remove(h5sf_ioc_ctx_t *ctx, h5sf_ioc_client_req_t *q)
{
    if (q->prev)
        q->prev->next = q->next;
    else
        ctx->posted_head = q->next;
    if (q->next)
        q->next->prev = q->prev;
    else
        ctx->posted_tail = q->prev;
    q->prev = q->next = NULL;
    ctx->nposted--;
}

static int wait_remote(h5sf_ioc_client_req_t *q);

static const char *opname(int op)
{
    switch (op) {
        case H5SF_WIRE_WRITE: return "write";
        case H5SF_WIRE_READ: return "read";
        case H5SF_WIRE_GET_SIZE: return "size query";
        case H5SF_WIRE_TRUNCATE: return "truncate";
        case H5SF_WIRE_FSYNC: return "fsync";
        default: return "request";
    }
}

static void req_free(h5sf_ioc_client_req_t *q)
{
    for (uint64_t k = 0; k < q->ndata; k++)
        ioc_dtype_free(&q->dts[k]);
    h5sf_free(q->dts);
    h5sf_free(q->data);
    h5sf_free(q->hdr);
    ioc_copy_keep(q->ctx, q->copy, q->copy_cap); /* MPI is done with it: an abandoned q is never freed */
    h5sf_free(q->rlens);
    h5sf_free(q->rbufs);
    h5sf_free(q);
}

static void count_inflight(h5sf_ioc_ctx_t *ctx)
{
    uint64_t now = atomic_fetch_add(&ctx->inflight, 1) + 1, max = atomic_load(&ctx->max_inflight);
    while (now > max && !atomic_compare_exchange_weak(&ctx->max_inflight, &max, now))
        ;
}

/* The payload's messages, chunk by chunk (payload.c): one per part for a
 * chunk of a few large parts, else one with a datatype over the parts. */
static int payload_msgs(h5sf_ioc_client_req_t *q, size_t count, const uint64_t *lens, void *const *bufs, void **bases,
                        int *counts, h5sf_errbuf_t *e)
{
    ioc_cursor_t  c   = {0, 0};
    ioc_cursor_t *at  = h5sf_malloc((count + 1) * sizeof *at);
    void        **cb  = h5sf_malloc((count + 1) * sizeof *cb);
    uint64_t     *cl  = h5sf_malloc((count + 1) * sizeof *cl);
    int           ret = 0;
    if (!at || !cb || !cl) {
        ret = h5sf_fail(e, ENOMEM, "out of memory describing %zu pieces", count);
        goto done;
    }
    for (uint64_t k = 0, nk = ioc_nchunks(q->total); k < nk && ret == 0; k++) {
        uint64_t want = ioc_chunk_len(q->total, k);
        /* A chunk has at most one part per piece, plus one cut piece. */
        size_t n = ioc_parts(lens, count, &c, want, at, cl, count + 1);
        for (size_t j = 0; j < n; j++)
            cb[j] = (char *)bufs[at[j].i] + at[j].po;
        if (ioc_chunk_msgs(n, want) == 1) {
            ret = ioc_dtype_make(n, cb, cl, &bases[q->ndata], &q->dts[q->ndata], &counts[q->ndata], e);
            q->ndata++;
            continue;
        }
        for (size_t j = 0; j < n; j++, q->ndata++) {
            bases[q->ndata]  = cb[j];
            counts[q->ndata] = (int)cl[j];
        }
    }
done:
    h5sf_free(at);
    h5sf_free(cb);
    h5sf_free(cl);
    return ret;
}

/* A write's messages leave from a contiguous copy h5sf owns, cut as the
 * IOC receives them (payload.c).  Sends cannot be taken back: after a
 * timeout MPI may still read from their buffers whenever the IOC gets to
 * them, and the caller's memory is then no longer ours (freed, or reused
 * with other bytes the late write would put into the file).  The copy is
 * the price: one memcpy and `total` bytes per write in flight.  Its buffer
 * is kept for a later write once MPI is done with it (slots.c). */
static int payload_copy(h5sf_ioc_client_req_t *q, size_t count, const uint64_t *lens, void *const *bufs, void **bases,
                        int *counts, h5sf_errbuf_t *e)
{
    ioc_cursor_t c  = {0, 0};
    uint64_t     at = 0;
    q->copy         = ioc_copy_take(q->ctx, q->total, &q->copy_cap);
    if (!q->copy && !(q->copy = h5sf_malloc(q->copy_cap = ioc_copy_size(q->total))))
        return h5sf_fail(e, ENOMEM, "out of memory copying a %llu-byte write for its IOC",
                         (unsigned long long)q->total);
    for (size_t i = 0; i < count; at += lens[i], i++)
        if (lens[i])
            memcpy(q->copy + at, bufs[i], (size_t)lens[i]);
    at = 0;
    for (uint64_t k = 0, nk = ioc_nchunks(q->total); k < nk; k++) {
        uint64_t want = ioc_chunk_len(q->total, k), mlen[IOC_SPLIT_MAX];
        size_t   np   = ioc_chunk_plan(lens, count, &c, want, mlen);
        for (size_t j = 0; j < np; at += mlen[j], j++, q->ndata++) {
            bases[q->ndata]  = q->copy + at;
            counts[q->ndata] = (int)mlen[j];
        }
    }
    return 0;
}

/* An IOC on this node: put the payload in our shared-memory segment (or
 * note where a read's goes), waiting for older requests to give their
 * regions back if need be.  0 when placed; -1 leaves the request to MPI
 * messages (no room: a region given up after a timeout blocks the ring). */
static int shm_place(h5sf_ioc_ctx_t *ctx, h5sf_ioc_client_req_t *q, h5sf_wire_hdr_t *h, size_t count,
                     const uint64_t *lens, void *const *bufs)
{
    uint64_t off;
    while (ioc_shm_take(ctx, q, q->total, &off) < 0) {
        h5sf_ioc_client_req_t *old = ioc_shm_oldest(ctx);
        if (!old)
            return -1;
        wait_remote(old); /* gives its region back, or keeps it for good */
    }
    if (q->op == H5SF_WIRE_READ) {
        if (!(q->rlens = h5sf_malloc(count * sizeof *q->rlens)) ||
            !(q->rbufs = h5sf_malloc(count * sizeof *q->rbufs))) {
            ioc_shm_give(ctx, q, true);
            return -1;
        }
        memcpy(q->rlens, lens, count * sizeof *lens);
        memcpy(q->rbufs, bufs, count * sizeof *bufs);
        q->rcount = count;
    }
    else {
        unsigned char *p = ioc_shm_own(ctx, off);
        for (size_t i = 0; i < count; p += lens[i], i++)
            if (lens[i])
                memcpy(p, bufs[i], (size_t)lens[i]);
    }
    q->shm     = true;
    q->shm_off = off;
    h->flags   = H5SF_WIRE_SHM;
    h->arg     = off;
    return 0;
}

/* A read's bytes from our segment to the caller's pieces (reply in). */
static void shm_copy_out(h5sf_ioc_client_req_t *q)
{
    const unsigned char *p = ioc_shm_own(q->ctx, q->shm_off);
    for (size_t i = 0; i < q->rcount; p += q->rlens[i], i++)
        if (q->rlens[i])
            memcpy(q->rbufs[i], p, (size_t)q->rlens[i]);
}

/* The IOC is this rank: hand the request to our own workers, no MPI.  A
 * worker copies its bytes through a slot of its own, so that a caller that
 * times out gets its memory back at once (run.c: self_copy). */
static int post_self(h5sf_ioc_ctx_t *ctx, h5sf_ioc_client_req_t *q, const h5sf_wire_hdr_t *h, size_t count,
                     const uint64_t *offs, const uint64_t *lens, void *const *bufs, h5sf_errbuf_t *e)
{
    /* Its piece list costs the IOC as a received one would. */
    ioc_server_req_t *r = ioc_req_new(ctx, h, ctx->rank, ioc_msg_cost(0, count, h->total));
    if (!r || ioc_req_pieces(r, true) < 0) {
        ioc_req_free(ctx, r);
        return h5sf_fail(e, ENOMEM, "out of memory posting a request to this rank's own IOC");
    }
    r->h.flags = 0;
    for (size_t i = 0; i < count; i++) {
        r->offs[i] = offs[i];
        r->lens[i] = lens[i];
        r->mem[i]  = bufs[i];
    }
    ioc_req_extent(r);
    r->self    = &q->self;
    q->is_self = true;
    if (!ioc_submit(ctx, r)) {
        ioc_req_free(ctx, r);
        return h5sf_fail(e, EBADF, "IOC rank %d (this rank) does not serve subfile %u of file %u", ctx->rank,
                         h->subfile, h->file_id);
    }
    return 0;
}

/* A post's staging: the encoded header and, for payloads sent as messages,
 * where each message starts and how many of its datatype it carries. */
typedef struct {
    h5sf_wire_hdr_t h;
    size_t          msz;
    void          **bases;
    int            *counts;
} post_plan_t;

/* post, step 1: a request with a fresh id and tag, and its header.  Old
 * posted requests whose tag the id would reuse are finished first. */
static h5sf_ioc_client_req_t *new_request(h5sf_ioc_ctx_t *ctx, int op, int ioc, uint32_t file_id, uint32_t subfile,
                                          uint64_t arg, size_t count, const uint64_t *lens, h5sf_wire_hdr_t *h,
                                          h5sf_errbuf_t *e)
{
    h5sf_ioc_client_req_t *q     = h5sf_calloc(1, sizeof *q);
    uint64_t               total = 0;
    if (!q) {
        h5sf_fail(e, ENOMEM, "out of memory posting an IOC request");
        return NULL;
    }
    for (size_t i = 0; i < count; i++)
        total += lens[i];
    uint64_t id   = atomic_fetch_add(&ctx->next_id, 1);
    int      span = (ctx->tag_ub - H5SF_TAG_FIRST) / 4;
    /* Tags repeat every span ids.  Counting the posted requests is not
     * enough: requests to our own IOC and requests finished early use ids
     * too, so the posted ones need not be the last ones.  Finish every
     * posted request whose id is span or more behind (oldest first; its
     * wait returns later): the rest lie in (id - span, id], all on other tags. */
    while (ctx->posted_head && id - ctx->posted_head->id >= (uint64_t)span)
        wait_remote(ctx->posted_head);
    memset(h, 0, sizeof *h);
    h->op      = (uint16_t)op;
    h->id      = id;
    h->file_id = file_id;
    h->subfile = subfile;
    h->count   = count;
    h->total   = total;
    h->arg     = arg;
    h->tag     = H5SF_TAG_FIRST + 4 * (int)(id % (uint64_t)span);
    q->ctx = ctx, q->id = id, q->op = op, q->ioc = ioc, q->tag = h->tag, q->file_id = file_id, q->subfile = subfile;
    q->total     = total;
    q->hdr_req   = MPI_REQUEST_NULL;
    q->reply_req = MPI_REQUEST_NULL;
    return q;
}

/* post, step 2: where the payload goes -- inline in the header message (small
 * writes), the shared-memory segment (same-node IOC), or messages of its
 * own (set up here: q->data, q->dts, p->bases, p->counts). */
static int place_payload(h5sf_ioc_ctx_t *ctx, h5sf_ioc_client_req_t *q, post_plan_t *p, size_t count,
                         const uint64_t *lens, void *const *bufs, h5sf_errbuf_t *e)
{
    int      op    = q->op;
    uint64_t total = p->h.total;
    if (op == H5SF_WIRE_WRITE && total <= H5SF_WIRE_INLINE_MAX) {
        p->h.flags = H5SF_WIRE_INLINE;
        return 0;
    }
    if ((op == H5SF_WIRE_WRITE || op == H5SF_WIRE_READ) && total && ioc_shm_peer(ctx, q->ioc) &&
        total <= ioc_shm_seg_size(ctx))
        shm_place(ctx, q, &p->h, count, lens, bufs);
    if (!total || q->shm || (op != H5SF_WIRE_WRITE && op != H5SF_WIRE_READ))
        return 0;
    /* Messages: at most IOC_SPLIT_MAX per chunk, and one per part. */
    uint64_t nchunk = ioc_nchunks(total);
    uint64_t most   = nchunk * IOC_SPLIT_MAX < count + nchunk ? nchunk * IOC_SPLIT_MAX : count + nchunk;
    q->data         = h5sf_malloc(most * sizeof *q->data);
    q->dts          = h5sf_malloc(most * sizeof *q->dts);
    p->bases        = h5sf_malloc(most * sizeof *p->bases);
    p->counts       = h5sf_malloc(most * sizeof *p->counts);
    if (!q->data || !q->dts || !p->bases || !p->counts)
        return h5sf_fail(e, ENOMEM, "out of memory posting an IOC request");
    for (uint64_t k = 0; k < most; k++) {
        q->data[k] = MPI_REQUEST_NULL;
        q->dts[k]  = MPI_BYTE;
    }
    return (op == H5SF_WIRE_WRITE ? payload_copy : payload_msgs)(q, count, lens, bufs, p->bases, p->counts, e);
}

/* post, step 3: the header message (piece list, and an inline payload). */
static int encode_header(h5sf_ioc_client_req_t *q, post_plan_t *p, size_t count, const uint64_t *offs,
                         const uint64_t *lens, void *const *bufs, h5sf_errbuf_t *e)
{
    p->msz = h5sf_wire_msg_size(&p->h);
    if (p->msz > (size_t)INT_MAX || !(q->hdr = h5sf_malloc(p->msz)))
        return h5sf_fail(e, ENOMEM, "out of memory for a %zu-byte IOC request", p->msz);
    h5sf_wire_encode(&p->h, offs, lens, q->hdr);
    if (p->h.flags & H5SF_WIRE_INLINE) {
        unsigned char *at = q->hdr + p->msz - p->h.total;
        for (size_t i = 0; i < count; at += lens[i], i++)
            if (lens[i])
                memcpy(at, bufs[i], (size_t)lens[i]);
    }
    return 0;
}

/* post, step 4: hand it to MPI, receives first, so the IOC never waits for
 * us to post them.  From here on q belongs to MPI (see post). */
static int send_request(h5sf_ioc_ctx_t *ctx, h5sf_ioc_client_req_t *q, const post_plan_t *p, h5sf_errbuf_t *e)
{
    int rc = MPI_SUCCESS, ioc = q->ioc, tag = p->h.tag;
    if (q->op == H5SF_WIRE_READ)
        for (uint64_t k = 0; k < q->ndata && rc == MPI_SUCCESS; k++)
            rc = IOC_MPI(
                MPI_Irecv(p->bases[k], p->counts[k], q->dts[k], ioc, H5SF_TAG_RDATA(tag), ctx->comm, &q->data[k]));
    if (rc == MPI_SUCCESS)
        rc = IOC_MPI(MPI_Irecv(q->reply, (int)sizeof q->reply, MPI_BYTE, ioc, tag, ctx->comm, &q->reply_req));
    if (rc == MPI_SUCCESS)
        rc = IOC_MPI(MPI_Isend(q->hdr, (int)p->msz, MPI_BYTE, ioc, H5SF_TAG_REQ, ctx->comm, &q->hdr_req));
    if (q->op == H5SF_WIRE_WRITE)
        for (uint64_t k = 0; k < q->ndata && rc == MPI_SUCCESS; k++)
            rc = IOC_MPI(
                MPI_Isend(p->bases[k], p->counts[k], q->dts[k], ioc, H5SF_TAG_WDATA(tag), ctx->comm, &q->data[k]));
    if (rc != MPI_SUCCESS)
        return h5sf_fail(e, 0, "MPI failed posting a %s to IOC rank %d for subfile %u", opname(q->op), ioc, q->subfile);
    ioc_bell_ring(ctx, ioc, false);
    return 0;
}

/* One request to IOC rank ioc: new request, place its payload, encode its
 * header, post it to MPI (or to this rank's own workers).  *out gets it on
 * success; wait for it with wait_remote (or wait_self). */
static int post(h5sf_ioc_ctx_t *ctx, int op, int ioc, uint32_t file_id, uint32_t subfile, uint64_t arg, size_t count,
                const uint64_t *offs, const uint64_t *lens, void *const *bufs, h5sf_ioc_client_req_t **out,
                h5sf_errbuf_t *e)
{
    post_plan_t            p    = {0};
    bool                   sent = false; /* handed to MPI: q and its region cannot be taken back */
    int                    ret  = -1;
    h5sf_ioc_client_req_t *q    = new_request(ctx, op, ioc, file_id, subfile, arg, count, lens, &p.h, e);
    if (!q)
        goto done;
    if (ctx->dead[ioc]) {
        /* Waiting again would only add another timeout per call. */
        h5sf_fail(e, ETIMEDOUT,
                  "IOC rank %d did not answer within the timeout (%d s) earlier; no more requests are sent "
                  "to it (subfile %u)",
                  ioc, atomic_load(&ctx->timeout_s), subfile);
        goto done;
    }
    if (count > H5SF_WIRE_MAX_COUNT) {
        h5sf_fail(e, EOVERFLOW, "IOC request with %zu pieces is too large for one message", count);
        goto done;
    }
    if (ioc == ctx->rank && ctx->serving) {
        if (post_self(ctx, q, &p.h, count, offs, lens, bufs, e) < 0)
            goto done;
    }
    else {
        uint64_t acct = ioc_acct_now();
        if (place_payload(ctx, q, &p, count, lens, bufs, e) < 0 || encode_header(q, &p, count, offs, lens, bufs, e) < 0)
            goto done;
        acct = ioc_acct_lap(IOC_ACCT_PACK, acct, op == H5SF_WIRE_WRITE ? q->total : 0);
        sent = true;
        if (send_request(ctx, q, &p, e) < 0)
            goto done;
        ioc_acct_sent(acct, q->shm ? 0 : q->total, 2 + q->ndata);
        posted_add(ctx, q);
    }
    count_inflight(ctx);
    *out = q;
    ret  = 0;
done:
    h5sf_free(p.bases);
    h5sf_free(p.counts);
    if (ret < 0 && q) {
        /* Once sent, what was posted cannot be taken back: q is leaked and
         * its shared-memory region stays busy (the IOC may still use it). */
        if (q->shm)
            ioc_shm_give(ctx, q, !sent);
        if (!sent)
            req_free(q);
    }
    return ret;
}

static int wait_self(h5sf_ioc_client_req_t *q, uint64_t *value, h5sf_errbuf_t *e)
{
    h5sf_ioc_ctx_t *ctx   = q->ctx;
    uint64_t        limit = (uint64_t)atomic_load(&ctx->timeout_s) * 1000000000u, t0 = ioc_now_ns();
    int             ret = 0;
    uv_mutex_lock(&ctx->lock);
    /* A worker runs it, never this thread: a file system call that stalls
     * would hold this thread past any timeout (H5Dwrite, H5Fflush and
     * H5Fclose on the IOC rank).  The hand-off costs a wake-up. */
    while (!q->self.done) {
        /* Another request to this IOC timed out meanwhile: its wait was
         * ours too, so that a call's requests add up to one timeout. */
        if (ioc_now_ns() - t0 > limit || ctx->dead[ctx->rank])
            break;
        uv_cond_timedwait(&ctx->done_cond, &ctx->lock, 100u * 1000000u);
    }
    bool done = q->self.done;
    if (!done) {
        /* Give up on it: from now on no worker touches our buffers (run.c
         * checks detached before each copy), and a copy under way ends
         * first -- a memcpy, never a stalled pwritev/preadv, since workers
         * do their I/O on slots of their own. */
        q->self.detached = true;
        while (q->self.busy)
            uv_cond_wait(&ctx->done_cond, &ctx->lock);
    }
    uv_mutex_unlock(&ctx->lock);
    atomic_fetch_sub(&ctx->inflight, 1);
    if (!done) /* the worker still owns a pointer to q->self: leak q */ {
        ctx->dead[ctx->rank] = 1;
        return h5sf_fail(e, ETIMEDOUT,
                         "no answer from IOC rank %d (this rank) to a %s of %llu bytes on subfile %u after %d s "
                         "(timeout setting); the IOC is stalled",
                         ctx->rank, opname(q->op), (unsigned long long)q->total, q->subfile,
                         atomic_load(&ctx->timeout_s));
    }
    if (q->self.rep.status != 0)
        ret = h5sf_fail(e, q->self.rep.status > 0 ? q->self.rep.status : 0, "%s", q->self.rep.msg);
    if (value)
        *value = q->self.rep.value;
    req_free(q);
    return ret;
}

/* A write's payload sends, once its reply is in: they end when the IOC has
 * taken the payload, which it does before it answers, even for a write it
 * refused (ioc_refuse).  Bounded all the same: false if they have not
 * ended by the deadline (or MPI failed). */
static bool sends_done(h5sf_ioc_client_req_t *q, uint64_t deadline)
{
    unsigned idle = 0;
    int      flag = 0;
    if (!q->ndata)
        return true;
    while (IOC_MPI(MPI_Testall((int)q->ndata, q->data, &flag, MPI_STATUSES_IGNORE)) == MPI_SUCCESS) {
        if (flag)
            return true;
        if (ioc_now_ns() > deadline)
            return false;
        ioc_backoff(&idle);
    }
    return false;
}

/* Cancel a read's receives into the caller's pieces and wait for each:
 * MPI_Wait on a cancelled receive is local, and returns once the receive
 * is either cancelled or (if its message had begun to arrive) complete, so
 * nothing lands in the caller's memory after this returns. */
static void cancel_reads(h5sf_ioc_client_req_t *q)
{
    if (q->op != H5SF_WIRE_READ)
        return;
    for (uint64_t k = 0; k < q->ndata; k++)
        if (q->data[k] != MPI_REQUEST_NULL) {
            IOC_MPI(MPI_Cancel(&q->data[k]));
            IOC_MPI(MPI_Wait(&q->data[k], MPI_STATUS_IGNORE));
        }
}

/* wait_remote, step 1: the reply, within the timeout (one per IOC, as in
 * wait_self: an IOC that missed it once is not waited for again). */
static int await_reply(h5sf_ioc_client_req_t *q, uint64_t t0, uint64_t limit)
{
    h5sf_ioc_ctx_t *ctx  = q->ctx;
    unsigned        idle = 0;
    int             flag = 0;
    while (!flag) {
        if (IOC_MPI(MPI_Test(&q->reply_req, &flag, MPI_STATUS_IGNORE)) != MPI_SUCCESS)
            return h5sf_fail(&q->err, 0, "MPI failed waiting for IOC rank %d", q->ioc);
        if (flag)
            break;
        if (ioc_now_ns() - t0 > limit || ctx->dead[q->ioc]) {
            ctx->dead[q->ioc] = 1;
            return h5sf_fail(&q->err, ETIMEDOUT,
                             "no answer from IOC rank %d to a %s of %llu bytes on subfile %u after %d s "
                             "(timeout setting); the IOC is stalled or gone",
                             q->ioc, opname(q->op), (unsigned long long)q->total, q->subfile,
                             atomic_load(&ctx->timeout_s));
        }
        /* In case our request left only after the IOC looked. */
        if (idle >= IOC_BACKOFF_YIELDS && idle % IOC_BACKOFF_YIELDS == 0)
            ioc_bell_ring(ctx, q->ioc, false);
        ioc_backoff(&idle);
    }
    return 0;
}

/* wait_remote when it gives up on the IOC, which may still answer: the
 * reply and a read's receives are cancelled (nothing lands in the caller's
 * memory later); sends leave from h5sf's own copy (payload_copy), so they
 * and q stay alive, leaked, rather than free what MPI may still use. */
static int abandon(h5sf_ioc_client_req_t *q)
{
    if (q->reply_req != MPI_REQUEST_NULL) {
        IOC_MPI(MPI_Cancel(&q->reply_req));
        IOC_MPI(MPI_Request_free(&q->reply_req));
    }
    cancel_reads(q);
    if (q->shm) /* the IOC may still use it: never again */
        ioc_shm_give(q->ctx, q, false);
    q->abandoned = true;
    q->ret       = -1;
    atomic_fetch_sub(&q->ctx->inflight, 1);
    return -1;
}

/* Wait for a request posted to another rank's IOC: its reply (it comes
 * last; once it is here, the payload has moved too or, after a failed
 * read, never will), its sends, its data.  The outcome stays in q (ret,
 * err, value) and q leaves the posted list; a request given up on (timeout,
 * MPI failure) is marked abandoned: MPI may still use it. */
static int wait_remote(h5sf_ioc_client_req_t *q)
{
    h5sf_ioc_ctx_t   *ctx = q->ctx;
    h5sf_errbuf_t    *e   = &q->err;
    uint64_t          t0 = ioc_now_ns(), limit = (uint64_t)atomic_load(&ctx->timeout_s) * 1000000000u;
    int               ret = 0;
    h5sf_wire_reply_t rep;

    posted_remove(ctx, q);
    q->finished = true;
    if (await_reply(q, t0, limit) < 0 || h5sf_wire_reply_decode(q->reply, sizeof q->reply, &rep, e) < 0)
        return abandon(q);
    if (rep.id != q->id) {
        h5sf_fail(e, EPROTO, "IOC rank %d answered request %llu with the reply to request %llu (tag %d)", q->ioc,
                  (unsigned long long)q->id, (unsigned long long)rep.id, q->tag);
        return abandon(q);
    }
    if (rep.status != 0) {
        ret = h5sf_fail(e, rep.status > 0 ? rep.status : 0, "%s", rep.msg);
        cancel_reads(q);
    }
    IOC_MPI(MPI_Wait(&q->hdr_req, MPI_STATUS_IGNORE)); /* received: it was answered */
    if (q->op == H5SF_WIRE_WRITE && !sends_done(q, t0 + limit)) {
        /* A later request on this tag could take these bytes: no more
         * requests to this IOC. */
        ctx->dead[q->ioc] = 1;
        h5sf_errbuf_t why = *e;
        h5sf_fail(e, rep.status > 0 ? rep.status : ETIMEDOUT,
                  "IOC rank %d did not take the payload of a %llu-byte write on subfile %u within the timeout "
                  "(%d s)%s%s; no more requests are sent to it",
                  q->ioc, (unsigned long long)q->total, q->subfile, atomic_load(&ctx->timeout_s),
                  rep.status ? " after refusing it: " : "", rep.status ? why.msg : "");
        return abandon(q);
    }
    if (q->ndata)
        IOC_MPI(MPI_Waitall((int)q->ndata, q->data, MPI_STATUSES_IGNORE));
    if (q->shm) { /* the IOC is done with the region */
        if (rep.status == 0 && q->op == H5SF_WIRE_READ)
            shm_copy_out(q);
        ioc_shm_give(ctx, q, true);
    }
    q->value = rep.value;
    q->ret   = ret;
    atomic_fetch_sub(&ctx->inflight, 1);
    ioc_acct_stop(IOC_ACCT_WAIT, t0, q->total);
    return ret;
}

static int wait_value(h5sf_ioc_client_req_t *q, uint64_t *value, h5sf_errbuf_t *e)
{
    if (q->is_self)
        return wait_self(q, value, e);
    if (!q->finished)
        wait_remote(q);
    int ret = q->ret;
    if (ret < 0 && e)
        *e = q->err;
    if (value && ret == 0)
        *value = q->value;
    if (!q->abandoned) /* else MPI may still use it: leak it */
        req_free(q);
    return ret;
}

/* Wait for every part of a request from q on; the first error is kept. */
static int wait_parts(h5sf_ioc_client_req_t *q, h5sf_errbuf_t *e)
{
    int ret = 0;
    while (q) {
        h5sf_ioc_client_req_t *next = q->part;
        h5sf_errbuf_t          tmp;
        if (wait_value(q, NULL, ret < 0 ? &tmp : e) < 0)
            ret = -1;
        q = next;
    }
    return ret;
}

/* A piece list longer than one message may carry (H5SF_MAX_PIECES, or
 * ioc_max_pieces of the least H5SF_IOC_MEMORY of all ranks if less) goes as
 * several requests, parts of one: the IOC admits each when it fits.  To an
 * IOC on this node the parts are also cut to half a shared-memory segment
 * (a longer piece into several), so one part is copied in while the IOC
 * writes the one before.  Parts to this rank's own IOC are queued without
 * back-pressure, so all but the last are waited for here. */
int h5sf_ioc_post(h5sf_ioc_ctx_t *ctx, int op, int ioc_rank, uint32_t file_id, uint32_t subfile, size_t count,
                  const uint64_t *offs, const uint64_t *lens, void *const *bufs, h5sf_ioc_client_req_t **req,
                  h5sf_errbuf_t *e)
{
    h5sf_ioc_client_req_t *first = NULL, *last = NULL, *q = NULL;
    uint64_t               most = ioc_max_pieces(ctx->peer_cap);
    size_t                 maxp = (size_t)(most < H5SF_MAX_PIECES ? most : H5SF_MAX_PIECES), at = 0;
    bool                   to_self = ioc_rank == ctx->rank && ctx->serving;
    uint64_t               bcap = ioc_shm_peer(ctx, ioc_rank) ? ioc_shm_seg_size(ctx) / 2 : 0, po = 0;
    int                    ret = 0;
    if (op != H5SF_IOC_OP_WRITE && op != H5SF_IOC_OP_READ)
        return h5sf_fail(e, EINVAL, "unknown IOC operation %d", op);
    do {
        int rc;
        if (bcap && count && (po > 0 || lens[at] > bcap)) {
            /* A cut of piece `at`. */
            uint64_t o = offs[at] + po, l = lens[at] - po < bcap ? lens[at] - po : bcap;
            void    *b = (char *)bufs[at] + po;
            rc         = post(ctx, op, ioc_rank, file_id, subfile, 0, 1, &o, &l, &b, &q, e);
            if ((po += l) == lens[at])
                at++, po = 0;
        }
        else {
            size_t   n   = 0;
            uint64_t sum = 0;
            while (at + n < count && n < maxp && (!bcap || sum + lens[at + n] <= bcap))
                sum += lens[at + n++];
            rc = post(ctx, op, ioc_rank, file_id, subfile, 0, n, offs + at, lens + at, bufs + at, &q, e);
            at += n;
        }
        if (rc < 0) {
            ret = -1;
            goto done;
        }
        if (to_self && at < count) {
            if (wait_value(q, NULL, e) < 0) {
                ret = -1;
                goto done;
            }
            continue;
        }
        if (last)
            last->part = q;
        else
            first = q;
        last = q;
    } while (at < count);
done:
    if (ret < 0) { /* what was posted must end before the caller's buffers are given back */
        h5sf_errbuf_t tmp;
        wait_parts(first, &tmp);
        first = NULL;
    }
    *req = first;
    return ret;
}

int h5sf_ioc_wait(h5sf_ioc_client_req_t *req, h5sf_errbuf_t *e) { return wait_parts(req, e); }

static int ask_control(h5sf_ioc_ctx_t *ctx, int op, int ioc, uint32_t file_id, uint32_t subfile, uint64_t arg,
                       uint64_t *value, h5sf_errbuf_t *e)
{
    h5sf_ioc_client_req_t *q;
    if (post(ctx, op, ioc, file_id, subfile, arg, 0, NULL, NULL, NULL, &q, e) < 0)
        return -1;
    return wait_value(q, value, e);
}

int h5sf_ioc_get_size(h5sf_ioc_ctx_t *ctx, int ioc_rank, uint32_t file_id, uint32_t subfile, uint64_t *size,
                      h5sf_errbuf_t *e)
{
    return ask_control(ctx, H5SF_WIRE_GET_SIZE, ioc_rank, file_id, subfile, 0, size, e);
}

int h5sf_ioc_truncate(h5sf_ioc_ctx_t *ctx, int ioc_rank, uint32_t file_id, uint32_t subfile, uint64_t size,
                      h5sf_errbuf_t *e)
{
    return ask_control(ctx, H5SF_WIRE_TRUNCATE, ioc_rank, file_id, subfile, size, NULL, e);
}

int h5sf_ioc_fsync(h5sf_ioc_ctx_t *ctx, int ioc_rank, uint32_t file_id, uint32_t subfile, h5sf_errbuf_t *e)
{
    return ask_control(ctx, H5SF_WIRE_FSYNC, ioc_rank, file_id, subfile, 0, NULL, e);
}
