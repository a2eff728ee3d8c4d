/*
 * worker.c -- the IOC worker pool: libuv threads that take ready requests,
 * form a batch around each (merge.c), run it (run.c), release the requests
 * it held back and have it answered (run.c); the ready queue and
 * submission.  Every request runs on a worker, the IOC rank's own ones
 * too: its application thread waits with the timeout (client.c), never in
 * a file system call.
 *
 * Owns the threads and the ready queue's order.
 * Must not do I/O or MPI itself, nor decide who merges with whom.
 */
#include <errno.h>
#include <pthread.h> /* pthread_detach: libuv has no detach */
#include <stdlib.h>
#include <string.h>
#include "internal.h"

/* Append r to the ready queue and wake a worker (lock held). */
static void enqueue_locked(h5sf_ioc_ctx_t *ctx, ioc_server_req_t *r)
{
    r->next = NULL;
    if (ctx->ready_tail)
        ctx->ready_tail->next = r;
    else
        ctx->ready = r;
    ctx->ready_tail = r;
    /* A lingering worker must hear of it too, not just one idle worker. */
    if (ctx->claims)
        uv_cond_broadcast(&ctx->cond);
    else
        uv_cond_signal(&ctx->cond);
}

/* A batch has run (lock not held): give back its slots, complete the members
 * this rank made itself, and queue the requests that waited for its members.  False if
 * the context was given up meanwhile (leaked, MPI may be gone): then
 * nothing is touched and nobody is answered. */
static bool release(h5sf_ioc_ctx_t *ctx, member_t *mb, int nm)
{
    ioc_server_req_t *now = NULL, *now_tail = NULL;
    uv_mutex_lock(&ctx->lock);
    if (atomic_load(&ctx->abandoned)) {
        uv_mutex_unlock(&ctx->lock);
        return false;
    }
    for (int j = 0; j < nm; j++) {
        ioc_server_req_t *r = mb[j].r;
        ioc_slot_put(ctx, mb[j].slot);
        ioc_slot_put(ctx, mb[j].slot2);
        ioc_sched_done(r->sf, r, &now, &now_tail);
        if (r->self) {
            r->self->rep  = mb[j].rep;
            r->self->done = true;
        }
    }
    while (now) {
        ioc_server_req_t *n = now->next;
        enqueue_locked(ctx, now);
        now = n;
    }
    uv_cond_broadcast(&ctx->done_cond);
    uv_cond_broadcast(&ctx->cond);
    uv_mutex_unlock(&ctx->lock);
    return true;
}

/* What a worker starts with: its context and its batch table, made by the
 * starter, so that a worker without one is never started (it used to leave
 * at its first request, which then waited, unanswered, for its timeout). */
typedef struct worker_arg {
    h5sf_ioc_ctx_t *ctx;
    member_t        mb[BATCH_MAX];
} worker_arg_t;

static void worker_main(void *arg)
{
    worker_arg_t   *wa   = arg;
    h5sf_ioc_ctx_t *ctx  = wa->ctx;
    member_t       *mb   = wa->mb;
    seg_t          *segs = NULL;
    size_t          cap  = 0;
    for (;;) {
        ioc_server_req_t *r = NULL;
        uv_mutex_lock(&ctx->lock);
        if (atomic_load(&ctx->abandoned)) { /* back from a stuck call, too late */
            uv_mutex_unlock(&ctx->lock);
            break;
        }
        while (!(r = ioc_merge_pick(ctx)) && !atomic_load(&ctx->stop))
            uv_cond_wait(&ctx->cond, &ctx->lock);
        if (!r) {
            uv_mutex_unlock(&ctx->lock);
            break;
        }
        int nm = ioc_merge_take(ctx, mb, r);
        uv_mutex_unlock(&ctx->lock);
        /* Its payloads and replies: counted for parking; the finalize gate
         * is taken per MPI call inside (IOC_MPI), never for the batch --
         * a batch may wait for a file system, a fault's delay or a peer. */
        ioc_mpi_enter(ctx);
        ioc_run_batch(ctx, mb, nm, &segs, &cap);
        if (release(ctx, mb, nm))
            ioc_run_answer(ctx, mb, nm);
        ioc_mpi_leave(ctx);
    }
    h5sf_free(segs);
    h5sf_free(wa);
    /* The stopper waits for this count, with a limit (ioc_workers_stop). */
    uv_mutex_lock(&ctx->lock);
    ctx->nexited++;
    uv_cond_broadcast(&ctx->done_cond);
    uv_mutex_unlock(&ctx->lock);
}


bool ioc_submit(h5sf_ioc_ctx_t *ctx, ioc_server_req_t *r)
{
    r->t_arrive = ioc_now_ns();
    uv_mutex_lock(&ctx->lock);
    ioc_sf_t *sf = ioc_sf_find(ctx, r->h.file_id, r->h.subfile);
    r->sf        = sf;
    if (sf && ioc_sched_arrive(sf, r))
        enqueue_locked(ctx, r);
    uv_mutex_unlock(&ctx->lock);
    return sf != NULL;
}

int ioc_workers_start(h5sf_ioc_ctx_t *ctx, int n, h5sf_errbuf_t *e)
{
    if (n <= ctx->nworkers)
        return 0;
    uv_thread_t *w = h5sf_realloc(ctx->workers, (size_t)n * sizeof *w);
    if (!w)
        return h5sf_fail(e, ENOMEM, "out of memory starting IOC workers");
    ctx->workers = w;
    while (ctx->nworkers < n) {
        worker_arg_t *wa = h5sf_calloc(1, sizeof *wa);
        if (!wa)
            return h5sf_fail(e, ENOMEM, "out of memory starting IOC workers");
        wa->ctx = ctx;
        int rc  = uv_thread_create(&ctx->workers[ctx->nworkers], worker_main, wa);
        if (rc) {
            h5sf_free(wa);
            return h5sf_fail(e, -rc, "cannot start IOC worker thread: %s", uv_strerror(rc));
        }
        ioc_thread_setup(ctx, ctx->workers[ctx->nworkers], "h5sf-worker");
        ctx->nworkers++;
    }
    return 0;
}

/* Wait until every worker has left, or the deadline passed (lock held).
 * The workers count themselves out on done_cond. */
static bool workers_gone(h5sf_ioc_ctx_t *ctx, uint64_t deadline)
{
    while (ctx->nexited < ctx->nworkers) {
        uint64_t now = ioc_now_ns();
        if (now >= deadline)
            return false;
        uv_cond_timedwait(&ctx->done_cond, &ctx->lock, deadline - now);
    }
    return true;
}

/* A worker blocked in a system call (pwrite to a file system that stopped
 * answering) cannot be woken or joined.  After the timeout the clients have
 * already failed; close and MPI_Finalize must not wait longer than that
 * either.  So wait at most the timeout, then detach the workers and leave
 * the context to them (ctx->abandoned: never freed, its communicator never
 * freed, its descriptors never closed -- a stuck pwritev could otherwise
 * write into a reused descriptor number). */
bool ioc_workers_stop(h5sf_ioc_ctx_t *ctx)
{
    uint64_t deadline = ioc_now_ns() + (uint64_t)atomic_load(&ctx->timeout_s) * 1000000000u;
    uv_mutex_lock(&ctx->lock);
    uv_cond_broadcast(&ctx->cond);
    uv_cond_broadcast(&ctx->slot_cond);
    bool all = workers_gone(ctx, deadline);
    if (!all)
        atomic_store(&ctx->abandoned, true);
    uv_mutex_unlock(&ctx->lock);
    for (int i = 0; i < ctx->nworkers; i++)
        if (all)
            uv_thread_join(&ctx->workers[i]);
        else
            pthread_detach(ctx->workers[i]); /* exited ones are freed, the stuck one when it returns */
    if (!all)
        return false; /* workers and slots stay theirs */
    h5sf_free(ctx->workers);
    ctx->workers  = NULL;
    ctx->nworkers = 0;
    ctx->nexited  = 0;
    /* Every slot is back now. */
    ioc_slots_trim(ctx);
    return true;
}
