/*
 * merge.c -- forming batches: which ready requests one worker runs together.
 *
 * A worker runs a *batch*: the request it took plus other ready requests of
 * the same kind on the same subfile whose extents touch it -- typically the
 * interleaved strided pieces of several ranks.  Ready requests never
 * conflict (the scheduler saw to that), so run.c can sort their pieces by
 * offset into merged runs.  A sparse request may wait a moment (claiming
 * the requests that could join it) for other ranks' pieces to fill its gaps.
 *
 * Owns the choice of members, merge claims and the merge wait; works on the
 * ready queue with ctx->lock held.  Must not do I/O or MPI (run.c does).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "internal.h"

#define SCAN_MAX          64                /* ready requests looked at when forming one */
#define LINGER_BACKOFF_NS (100u * 1000000u) /* after a wait nobody joined */

static bool batchable(const ioc_server_req_t *r)
{
    return (r->h.op == H5SF_WIRE_WRITE || r->h.op == H5SF_WIRE_READ) && r->sorted && r->h.total > 0;
}

/* Worth merging: sparse requests gain runs, small ones fewer calls.  Large
 * contiguous requests are one run each already and run faster side by side
 * on several workers. */
#define MERGE_SMALL ((uint64_t)256 << 10)

/* Many small pieces with gaps between them (h5sf_sparse): other ranks'
 * requests may fill the gaps, so waiting a moment for them can turn
 * per-piece calls into runs.  (A few large pieces with gaps, like one block
 * of each of 16 datasets, cost one call per piece anyway, a negligible
 * overhead.) */
static bool sparse(const ioc_server_req_t *r) { return h5sf_sparse(r->h.count, r->hi - r->lo, r->h.total); }
static bool mergeable(const ioc_server_req_t *r) { return batchable(r) && (sparse(r) || r->h.total <= MERGE_SMALL); }

/* A worker waiting for companions of its request claims requests that
 * could join it; other workers leave those alone. */
struct ioc_claim {
    const ioc_sf_t *sf;
    int             op;
    uint64_t        lo, hi;
    ioc_claim_t    *next;
};

static bool joins(const ioc_server_req_t *q, const ioc_sf_t *sf, int op, uint64_t lo, uint64_t hi)
{
    return q->sf == sf && q->h.op == op && mergeable(q) && q->lo <= hi && q->hi >= lo;
}

bool ioc_merge_claimed(const h5sf_ioc_ctx_t *ctx, const ioc_server_req_t *q)
{
    for (const ioc_claim_t *c = ctx->claims; c; c = c->next)
        if (joins(q, c->sf, c->op, c->lo, c->hi))
            return true;
    return false;
}

void ioc_ready_unlink(h5sf_ioc_ctx_t *ctx, ioc_server_req_t *prev, ioc_server_req_t *q)
{
    if (prev)
        prev->next = q->next;
    else
        ctx->ready = q->next;
    if (ctx->ready_tail == q)
        ctx->ready_tail = prev;
    q->next = NULL;
}

/* The first ready request no lingering worker has claimed, unlinked; NULL
 * if there is none (lock held). */
ioc_server_req_t *ioc_merge_pick(h5sf_ioc_ctx_t *ctx)
{
    ioc_server_req_t *prev = NULL;
    for (ioc_server_req_t *q = ctx->ready; q; prev = q, q = q->next)
        if (!ctx->claims || !ioc_merge_claimed(ctx, q)) {
            ioc_ready_unlink(ctx, prev, q);
            return q;
        }
    return NULL;
}

/* q needs a transfer slot: remote and not inline, or own with bytes (a
 * client that times out takes its buffers back, and a stalled
 * pwritev/preadv must not be holding them then; ioc_self_t). */
static bool needs_slot(const ioc_server_req_t *q) { return !ioc_addressable(q) || (q->self && q->h.total > 0); }

/* Move the ready requests that can join the batch mb[0..*nm) into it. */
static void gather(h5sf_ioc_ctx_t *ctx, member_t *mb, int *nm, uint64_t *lo, uint64_t *hi, uint64_t *bytes)
{
    const ioc_server_req_t *r    = mb[0].r;
    ioc_server_req_t       *prev = NULL, *q = ctx->ready;
    for (int seen = 0; q && seen < SCAN_MAX && *nm < BATCH_MAX; seen++) {
        ioc_server_req_t *next = q->next;
        unsigned char    *slot = NULL;
        /* Same subfile and kind, extents touching: merging gains runs.
         * Disjoint far-apart requests are better left to other workers. */
        if (joins(q, r->sf, r->h.op, *lo, *hi) && (!needs_slot(q) || (slot = ioc_slot_get(ctx, false)))) {
            ioc_ready_unlink(ctx, prev, q);
            memset(&mb[*nm], 0, sizeof mb[*nm]);
            mb[*nm].r    = q;
            mb[*nm].slot = slot;
            if (slot && !q->self && ioc_nchunks(q->h.total) > 1)
                mb[*nm].slot2 = ioc_slot_get(ctx, false);
            *lo = q->lo < *lo ? q->lo : *lo;
            *hi = q->hi > *hi ? q->hi : *hi;
            *bytes += q->h.total;
            (*nm)++;
        }
        else
            prev = q;
        q = next;
    }
}

/* Form a batch around r, already unlinked from the ready queue (lock
 * held).  A sparse request waits up to ctx->merge_wait_ns for requests that
 * fill its gaps, and stops waiting as soon as they are filled.  Returns the
 * number of members. */
int ioc_merge_take(h5sf_ioc_ctx_t *ctx, member_t *mb, ioc_server_req_t *r)
{
    memset(mb, 0, sizeof *mb);
    mb[0].r = r;
    if (needs_slot(r) && !(mb[0].slot = ioc_slot_get(ctx, true))) {
        /* Once the context stops, ioc_slot_get no longer waits for a slot:
         * say that, not a shortage of memory. */
        bool stopping    = atomic_load(&ctx->stop);
        mb[0].rep.status = stopping ? ECANCELED : ENOMEM;
        if (stopping)
            snprintf(mb[0].rep.msg, sizeof mb[0].rep.msg,
                     "IOC rank %d is stopping (its last file closed, or MPI_Finalize): request not served", ctx->rank);
        else
            snprintf(mb[0].rep.msg, sizeof mb[0].rep.msg, "IOC rank %d: no memory for a transfer buffer", ctx->rank);
        mb[0].failed = true;
    }
    else if (mb[0].slot && !r->self && ioc_nchunks(r->h.total) > 1)
        mb[0].slot2 = ioc_slot_get(ctx, false);
    int nm = 1;
    if (!mergeable(r) || mb[0].failed)
        return nm;
    uint64_t lo = r->lo, hi = r->hi, bytes = r->h.total;
    gather(ctx, mb, &nm, &lo, &hi, &bytes);
    uint64_t t0 = ioc_now_ns();
    /* With one rank on the communicator nobody can fill the gaps (HDF5's
     * metadata flushes at 1 rank paid for this wait; measured:
     * docs/performance-history.md, Figures behind constants, lone rank). */
    if (!sparse(r) || ctx->merge_wait_ns == 0 || ctx->size == 1 || t0 < r->sf->no_linger_until)
        return nm;
    /* Waiting pays only if it saves calls: at most ~2 us per piece. */
    uint64_t wait = ctx->merge_wait_ns;
    int      nm0  = nm;
    if (!ctx->merge_wait_set && wait > r->h.count * 2000u)
        wait = r->h.count * 2000u;
    if (bytes < hi - lo)
        atomic_fetch_add(&ctx->merge_waits, 1);
    ioc_claim_t claim = {r->sf, r->h.op, lo, hi, ctx->claims};
    ctx->claims       = &claim;
    while (bytes < hi - lo && nm < BATCH_MAX && !atomic_load(&ctx->stop)) {
        uint64_t spent = ioc_now_ns() - t0;
        if (spent >= wait)
            break;
        uv_cond_timedwait(&ctx->cond, &ctx->lock, wait - spent);
        gather(ctx, mb, &nm, &lo, &hi, &bytes);
        claim.lo = lo;
        claim.hi = hi;
    }
    for (ioc_claim_t **pp = &ctx->claims; *pp; pp = &(*pp)->next)
        if (*pp == &claim) {
            *pp = claim.next;
            break;
        }
    /* Nobody came (one rank writing strided alone): do not wait on this
     * subfile again for a while, so a lone writer loses at most a few %. */
    if (nm == nm0 && !ctx->merge_wait_set)
        r->sf->no_linger_until = ioc_now_ns() + LINGER_BACKOFF_NS;
    if (ctx->ready)
        uv_cond_broadcast(&ctx->cond); /* what we left is for the others */
    return nm;
}
