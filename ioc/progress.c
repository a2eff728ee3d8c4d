/*
 * progress.c -- the IOC progress thread.
 *
 * It matches request headers from any rank (MPI_Improbe, so a large header
 * is received whole into a buffer of the right size), decodes them and hands
 * them to the scheduler in arrival order.  Received messages (piece lists
 * and small inline payloads), with what their pieces cost later
 * (ioc_msg_cost), may hold at most half of H5SF_IOC_MEMORY: a message is
 * received only when it fits, and clients wait meanwhile.  Large write payloads stay with the
 * client until a worker runs the request and pulls them in chunk by chunk
 * (or, from a client on this node, takes them from shared memory: shm.c).
 * It never does file I/O, so receiving continues while disks are busy.
 * While its context is parked (no file open) it sleeps; while nothing
 * arrives it polls less and less often, or, when every client is on its
 * node, sleeps until one rings its doorbell (shm.c).  Its MPI calls are
 * bracketed (ioc_mpi_enter), its sleeps are not: parking waits for it to
 * leave MPI, never for a sleep; once MPI_Finalize has begun each call takes
 * the finalize gate for itself alone (IOC_MPI, gate.c).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include "internal.h"
#include "account.h"

/* Idle polls before it sleeps on its doorbell, where it has one: the point
 * where ioc_backoff_idle's sleeps grow past 200 us (~30 ms idle).  Sooner
 * costs strided writes, whose requests then ring an IOC that sleeps
 * between them (measured: docs/performance-history.md, Figures behind constants,
 * doorbell). */
#define IOC_BELL_AFTER IOC_IDLE_POLLS

typedef struct progress {
    h5sf_ioc_ctx_t *ctx;
    /* A matched message that did not fit the budget yet: received first,
     * once it fits, so arrival order is kept. */
    bool        held;
    MPI_Message msg;
    MPI_Status  st;
} progress_t;

/* Answer a message that does not decode, if it tells us where to answer.
 * Its payload, if any, is not taken: nothing in it can be trusted.  The
 * client's sends then end at its timeout, and it stops using this IOC. */
static void reject(h5sf_ioc_ctx_t *ctx, const unsigned char *buf, size_t len, int source, const char *why)
{
    h5sf_wire_hdr_t h;
    memset(&h, 0, sizeof h);
    if (len >= H5SF_WIRE_HDR_SIZE && h5sf_get_u32(buf) == H5SF_WIRE_MAGIC) {
        h.id  = h5sf_get_u64(buf + 8);
        h.tag = (int32_t)h5sf_get_u32(buf + 52);
    }
    if (h.tag >= H5SF_TAG_FIRST && h.tag < ctx->tag_ub) {
        char msg[H5SF_WIRE_REPLY_MSG];
        snprintf(msg, sizeof msg, "IOC rank %d rejected a request from rank %d: %s", ctx->rank, source, why);
        ioc_reply_error(ctx, &h, source, EPROTO, msg);
    }
    else
        fprintf(stderr, "h5sf: IOC rank %d dropped an unusable message from rank %d: %s\n", ctx->rank, source, why);
}

/* Refuse a decoded request we cannot take (out of memory): its payload
 * messages are received and dropped first (ioc_refuse), so that the
 * client's sends end and a later request on the same tag gets only its
 * own bytes. */
static void refuse(h5sf_ioc_ctx_t *ctx, const h5sf_wire_hdr_t *h, int source, const char *why)
{
    char msg[H5SF_WIRE_REPLY_MSG];
    snprintf(msg, sizeof msg, "IOC rank %d rejected a request from rank %d: %s", ctx->rank, source, why);
    ioc_refuse(ctx, h, source, ENOMEM, msg);
}

static void reply_no_subfile(h5sf_ioc_ctx_t *ctx, ioc_server_req_t *r)
{
    char msg[H5SF_WIRE_REPLY_MSG];
    snprintf(msg, sizeof msg, "IOC rank %d does not serve subfile %u of file %u (closed or never opened)", ctx->rank,
             r->h.subfile, r->h.file_id);
    /* The client's payload sends complete only when received: taken first. */
    ioc_refuse(ctx, &r->h, r->source, EBADF, msg);
    ioc_req_free(ctx, r);
}

/* Build a request from a decoded message; takes ownership of buf.  The
 * header is decoded before anything is allocated, so that a request
 * refused for want of memory still has its payload taken (refuse). */
static int accept_msg(progress_t *pg, unsigned char *buf, size_t len, int source)
{
    h5sf_ioc_ctx_t      *ctx = pg->ctx;
    h5sf_errbuf_t        eb;
    h5sf_wire_hdr_t      h;
    const unsigned char *pairs, *payload;
    ioc_server_req_t    *r;

    if (h5sf_wire_decode(buf, len, &h, &pairs, &payload, &eb) < 0) {
        reject(ctx, buf, len, source, eb.msg);
        h5sf_free(buf);
        return -1;
    }
    /* Test-only: an allocation failing here (H5SF_FAULT op=nomem-accept). */
    if (h5sf_fault("nomem-accept", ctx->rank) ||
        !(r = ioc_req_new(ctx, &h, source, ioc_msg_cost(len, h.count, h.total)))) {
        refuse(ctx, &h, source, "out of memory");
        h5sf_free(buf);
        return -1;
    }
    r->msg = buf;
    if (r->h.op == H5SF_WIRE_NOP) {
        ioc_req_free(ctx, r);
        return 0;
    }
    if (ioc_req_pieces(r, false) < 0) {
        refuse(ctx, &r->h, source, "out of memory for the piece list");
        ioc_req_free(ctx, r);
        return -1;
    }
    for (uint64_t i = 0; i < r->h.count; i++)
        h5sf_wire_pair(pairs, i, &r->offs[i], &r->lens[i]);
    ioc_req_extent(r);

    /* A large write payload is not here yet: the worker that runs the
     * request receives it chunk by chunk into its own buffer -- unless it
     * is in the client's shared-memory segment, where the worker writes
     * from (or reads into) it directly. */
    r->data = (unsigned char *)(uintptr_t)payload;
    if (r->h.flags & H5SF_WIRE_SHM) {
        if (!(r->data = ioc_shm_region(ctx, source, r->h.arg, r->h.total))) {
            char why[160];
            snprintf(why, sizeof why,
                     "its shared-memory payload (%llu bytes at %llu) is not in its segment "
                     "of %llu bytes",
                     (unsigned long long)r->h.total, (unsigned long long)r->h.arg,
                     (unsigned long long)ioc_shm_seg_size(ctx));
            reject(ctx, buf, len, source, why);
            ioc_req_free(ctx, r);
            return -1;
        }
    }
    if (!ioc_submit(ctx, r))
        reply_no_subfile(ctx, r);
    return 0;
}

/* A message of len bytes can be taken now: its cost (at most
 * IOC_COST_PER_BYTE per byte) fits what is left of the queue's half of
 * the budget -- or nothing is queued, so that a client that did not split
 * its piece list (ioc_max_pieces) is served alone rather than never. */
static bool fits(h5sf_ioc_ctx_t *ctx, int len)
{
    uint64_t q = atomic_load(&ctx->qmem);
    return q == 0 || q + (uint64_t)IOC_COST_PER_BYTE * (uint64_t)len <= ctx->mem_cap / 2;
}

/* Receive the held message of len bytes; accept it, or drop it.  Without
 * memory for it a message to accept stays held (false): the caller backs
 * off and tries again, its sender waiting as for a full queue.  Dropped,
 * its client would only learn of it from its timeout. */
static bool receive_held(progress_t *pg, int len, bool accept)
{
    unsigned char *buf = h5sf_malloc(len > 0 ? (size_t)len : 1);
    if (!buf && accept)
        return false;
    pg->held = false;
    if (!buf) {
        IOC_MPI(MPI_Mrecv(NULL, 0, MPI_BYTE, &pg->msg, MPI_STATUS_IGNORE)); /* truncates: drops it */
        return true;
    }
    uint64_t acct = ioc_acct_now();
    IOC_MPI(MPI_Mrecv(buf, len, MPI_BYTE, &pg->msg, MPI_STATUS_IGNORE));
    ioc_acct_stop(IOC_ACCT_HEADER, acct, (uint64_t)len);
    if (accept)
        accept_msg(pg, buf, (size_t)len, pg->st.MPI_SOURCE);
    else
        h5sf_free(buf);
    return true;
}

/* What one step of the loop found. */
enum { STEP_GOT, STEP_NONE, STEP_BELL, STEP_FULL, STEP_FAIL };

/* The step's MPI calls: probe for a request (arming the doorbell first
 * after IOC_BELL_AFTER idle polls) and receive it if it fits.  STEP_BELL:
 * nothing came and the bell is armed; the caller sleeps on it. */
static int step(progress_t *pg, unsigned idle, uint32_t *seq)
{
    h5sf_ioc_ctx_t *ctx  = pg->ctx;
    int             flag = 0, count = 0;
    MPI_Message     msg;
    MPI_Status      st;
    if (!pg->held) {
        if (IOC_MPI(MPI_Improbe(MPI_ANY_SOURCE, H5SF_TAG_REQ, ctx->comm, &flag, &msg, &st)) != MPI_SUCCESS)
            return STEP_FAIL;
        if (!flag && idle >= IOC_BELL_AFTER && ioc_bell_arm(ctx, seq)) {
            /* Armed: a request sent before is seen by this probe, one
             * sent after rings.  Stopping and parking ring too (ctx.c). */
            if (IOC_MPI(MPI_Improbe(MPI_ANY_SOURCE, H5SF_TAG_REQ, ctx->comm, &flag, &msg, &st)) != MPI_SUCCESS) {
                ioc_bell_disarm(ctx);
                return STEP_FAIL;
            }
            if (!flag && !atomic_load(&ctx->stop) && !atomic_load(&ctx->parked))
                return STEP_BELL;
            ioc_bell_disarm(ctx);
        }
        if (!flag)
            return STEP_NONE;
        pg->held = true, pg->msg = msg, pg->st = st;
    }
    IOC_MPI(MPI_Get_count(&pg->st, MPI_BYTE, &count));
    if (!fits(ctx, count) || !receive_held(pg, count, true))
        return STEP_FULL;
    return STEP_GOT;
}

/* Parked (no file open, ctx.c): nothing can arrive; sleep until a file
 * opens or the daemon stops, saying so to the parker.  Idle transfer slots
 * and kept write copies outlive a short pause between files (codes that
 * write a file per step reuse them) and are freed after a long one. */
static void sleep_parked(h5sf_ioc_ctx_t *ctx)
{
    uv_mutex_lock(&ctx->lock);
    ctx->asleep = true;
    uv_cond_broadcast(&ctx->park_cond);
    while (atomic_load(&ctx->parked) && !atomic_load(&ctx->stop)) {
        if (ctx->nslots_free == 0 && ctx->ncopies == 0)
            uv_cond_wait(&ctx->park_cond, &ctx->lock);
        else if (uv_cond_timedwait(&ctx->park_cond, &ctx->lock, H5SF_IOC_SLOT_KEEP_NS) == UV_ETIMEDOUT &&
                 atomic_load(&ctx->parked))
            ioc_slots_trim(ctx);
    }
    ctx->asleep = false;
    uv_mutex_unlock(&ctx->lock);
}

static void progress_main(void *arg)
{
    progress_t     *pg   = arg;
    h5sf_ioc_ctx_t *ctx  = pg->ctx;
    unsigned        idle = 0, naps = 0;
    uint32_t        seq = 0;
    /* Its polling sleeps are short on purpose: no 50 us default slack. */
    prctl(PR_SET_TIMERSLACK, 1UL);

    while (!atomic_load(&ctx->stop)) {
        if (atomic_load(&ctx->parked)) {
            sleep_parked(ctx);
            idle = 0;
            continue;
        }
        /* Back-pressure: with half the memory budget taken by queued
         * messages, leave new ones with their senders (MPI's rendezvous
         * holds them there) until the workers catch up. */
        if (atomic_load(&ctx->qmem) >= ctx->mem_cap / 2) {
            ioc_backoff(&idle);
            continue;
        }
        /* Sleeps stay outside the MPI stretch: a parker never waits for
         * them. */
        ioc_mpi_enter(ctx);
        int got = step(pg, idle, &seq);
        ioc_mpi_leave(ctx);
        if (got == STEP_FAIL)
            break;
        if (got == STEP_BELL)
            naps = ioc_bell_sleep(ctx, seq, naps) ? naps + 1 : 0;
        else if (got == STEP_NONE)
            ioc_backoff_idle(&idle);
        else if (got == STEP_FULL)
            ioc_backoff(&idle);
        else
            idle = 0, naps = 0;
    }
    if (pg->held) { /* stopping: let its sender's send end */
        int count = 0;
        ioc_mpi_enter(ctx);
        IOC_MPI(MPI_Get_count(&pg->st, MPI_BYTE, &count));
        receive_held(pg, count, false);
        ioc_mpi_leave(ctx);
    }
    /* Gone for good (stopped, or MPI failed): a parker need not wait. */
    uv_mutex_lock(&ctx->lock);
    ctx->asleep = true;
    uv_cond_broadcast(&ctx->park_cond);
    uv_mutex_unlock(&ctx->lock);
    h5sf_free(pg);
}

int ioc_progress_start(h5sf_ioc_ctx_t *ctx, h5sf_errbuf_t *e)
{
    progress_t *pg = h5sf_calloc(1, sizeof *pg);
    if (!pg)
        return h5sf_fail(e, ENOMEM, "out of memory starting the IOC progress thread");
    pg->ctx     = ctx;
    ctx->asleep = false;
    int rc      = uv_thread_create(&ctx->progress, progress_main, pg);
    if (rc) {
        h5sf_free(pg);
        return h5sf_fail(e, -rc, "cannot start the IOC progress thread: %s", uv_strerror(rc));
    }
    ioc_thread_setup(ctx, ctx->progress, "h5sf-progress");
    return 0;
}

void ioc_progress_stop(h5sf_ioc_ctx_t *ctx) { uv_thread_join(&ctx->progress); }
