/*
 * worker.c -- the IOC worker pool: libuv threads that take ready requests,
 * form a group around each (group.c) and run it (run.c); the ready queue
 * and submission; an IOC rank running its own request in place.
 *
 * Owns the threads, the ready queue's order and the own-request shortcut.
 * Must not do I/O or MPI itself, nor decide who merges with whom.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

static void worker_main(void *arg)
{
    h5sf_ioc_ctx_t *ctx  = arg;
    member_t       *mb   = calloc(GROUP_MAX, sizeof *mb);
    seg_t          *segs = NULL;
    size_t          cap  = 0;
    for (;;) {
        ioc_req_t *r = NULL;
        uv_mutex_lock(&ctx->lock);
        if (atomic_load(&ctx->abandoned)) { /* back from a stuck call, too late */
            uv_mutex_unlock(&ctx->lock);
            break;
        }
        while (!(r = ioc_group_pick(ctx)) && !atomic_load(&ctx->stop))
            uv_cond_wait(&ctx->cond, &ctx->lock);
        if (!r || !mb) {
            if (r) { /* no memory for the group table: put it back */
                r->next    = ctx->ready;
                ctx->ready = r;
                if (!ctx->ready_tail)
                    ctx->ready_tail = r;
            }
            uv_mutex_unlock(&ctx->lock);
            break;
        }
        int nm = ioc_group_take(ctx, mb, r, false);
        uv_mutex_unlock(&ctx->lock);
        bool gated = ioc_mpi_enter(ctx); /* its payloads and replies */
        ioc_group_run(ctx, mb, nm, &segs, &cap);
        ioc_mpi_leave(ctx, gated);
    }
    free(segs);
    free(mb);
    /* The stopper waits for this count, with a limit (ioc_workers_stop). */
    uv_mutex_lock(&ctx->lock);
    ctx->nexited++;
    uv_cond_broadcast(&ctx->done_cond);
    uv_mutex_unlock(&ctx->lock);
}

void ioc_runner_free(ioc_runner_t *run)
{
    free(run->mb);
    free(run->segs);
    memset(run, 0, sizeof *run);
}

/* Run r, unlinked from the ready queue, in this thread as a worker would --
 * same scheduling, same merging (lock held in and out).  False, with r
 * untouched, if there is no memory for the workspace. */
static bool run_here(h5sf_ioc_ctx_t *ctx, ioc_req_t *r, ioc_runner_t *run)
{
    if (!run->mb && !(run->mb = calloc(GROUP_MAX, sizeof *run->mb)))
        return false;
    int nm = ioc_group_take(ctx, run->mb, r, true);
    uv_mutex_unlock(&ctx->lock);
    ioc_group_run(ctx, run->mb, nm, &run->segs, &run->cap);
    uv_mutex_lock(&ctx->lock);
    return true;
}

/* The IOC rank waiting for a request it made to itself (lock held, and held
 * again on return): if no worker has taken the request yet, run it here
 * instead of waking a worker and sleeping until it is done -- small
 * requests of the IOC rank (HDF5 metadata) otherwise pay two thread
 * hand-offs each.  Returns true if it ran the request (done and freed). */
bool ioc_run_own(h5sf_ioc_ctx_t *ctx, ioc_req_t *r)
{
    ioc_req_t *prev = NULL, *q = ctx->ready;
    if (ctx->own_busy || atomic_load(&ctx->stop) || ioc_fault_on())
        return false; /* injected stalls and hangs are the workers' */
    for (; q && q != r; prev = q, q = q->next)
        ;
    if (!q || (ctx->claims && ioc_group_claimed(ctx, q)))
        return false;
    ioc_ready_unlink(ctx, prev, q);
    ctx->own_busy = true;
    bool ran      = run_here(ctx, q, &ctx->own);
    ctx->own_busy = false;
    if (!ran)
        ioc_enqueue_locked(ctx, q);
    return ran;
}

void ioc_enqueue_locked(h5sf_ioc_ctx_t *ctx, ioc_req_t *r)
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

bool ioc_submit(h5sf_ioc_ctx_t *ctx, ioc_req_t *r)
{
    r->t_arrive = ioc_now_ns();
    uv_mutex_lock(&ctx->lock);
    ioc_sf_t *sf = ioc_sf_find(ctx, r->h.file_id, r->h.subfile);
    r->sf        = sf;
    if (sf && ioc_sched_arrive(sf, r))
        ioc_enqueue_locked(ctx, r);
    uv_mutex_unlock(&ctx->lock);
    return sf != NULL;
}

int ioc_workers_start(h5sf_ioc_ctx_t *ctx, int n, h5sf_errbuf_t *e)
{
    if (n <= ctx->nworkers)
        return 0;
    uv_thread_t *w = realloc(ctx->workers, (size_t)n * sizeof *w);
    if (!w)
        return h5sf_fail(e, ENOMEM, "out of memory starting IOC workers");
    ctx->workers = w;
    while (ctx->nworkers < n) {
        int rc = uv_thread_create(&ctx->workers[ctx->nworkers], worker_main, ctx);
        if (rc)
            return h5sf_fail(e, -rc, "cannot start IOC worker thread: %s", uv_strerror(rc));
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
    uint64_t deadline = ioc_now_ns() + (uint64_t)ctx->timeout_s * 1000000000u;
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
    free(ctx->workers);
    ctx->workers  = NULL;
    ctx->nworkers = 0;
    ctx->nexited  = 0;
    /* Every slot is back now. */
    ioc_slots_trim(ctx);
    return true;
}
