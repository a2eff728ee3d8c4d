/*
 * ctx.c -- IOC contexts: one per communicator group, shared by every file
 * opened on a congruent communicator, so opening many files neither starts
 * many daemons nor duplicates many communicators.
 *
 * Contexts are created and released collectively; HDF5 serializes VFD
 * calls, so the registry needs no lock of its own.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "internal.h"

static h5sf_ioc_ctx_t *contexts;

static void ctx_stop_daemon(h5sf_ioc_ctx_t *ctx)
{
    if (!ctx->serving)
        return;
    atomic_store(&ctx->stop, true);
    ioc_progress_stop(ctx);
    ioc_workers_stop(ctx);
    ctx->serving = false;
    atomic_store(&ctx->stop, false);
}

static void ctx_free(h5sf_ioc_ctx_t *ctx, bool free_comm)
{
    for (h5sf_ioc_ctx_t **pp = &contexts; *pp; pp = &(*pp)->next)
        if (*pp == ctx) {
            *pp = ctx->next;
            break;
        }
    while (ctx->sfs) { /* files the application never closed */
        ioc_sf_t *sf = ctx->sfs;
        ctx->sfs     = sf->next;
        close(sf->fd);
        free(sf->path);
        free(sf);
    }
    if (free_comm)
        MPI_Comm_free(&ctx->comm);
    uv_cond_destroy(&ctx->cond);
    uv_cond_destroy(&ctx->done_cond);
    free(ctx->dead);
    uv_mutex_destroy(&ctx->lock);
    free(ctx);
}

static int ctx_create(MPI_Comm comm, int timeout_s, h5sf_ioc_ctx_t **out, h5sf_errbuf_t *e)
{
    h5sf_ioc_ctx_t *ctx = calloc(1, sizeof *ctx);
    int            *ub, flag = 0;
    if (!ctx)
        return h5sf_fail(e, ENOMEM, "out of memory creating an IOC context");
    if (MPI_Comm_dup(comm, &ctx->comm) != MPI_SUCCESS) {
        free(ctx);
        return h5sf_fail(e, 0, "MPI_Comm_dup failed creating the IOC communicator");
    }
    /* Our failures are reported, never fatal. */
    MPI_Comm_set_errhandler(ctx->comm, MPI_ERRORS_RETURN);
    MPI_Comm_rank(ctx->comm, &ctx->rank);
    MPI_Comm_size(ctx->comm, &ctx->size);
    MPI_Comm_get_attr(ctx->comm, MPI_TAG_UB, &ub, &flag);
    ctx->tag_ub    = flag ? *ub : 32767;
    ctx->timeout_s = timeout_s;
    if (!(ctx->dead = calloc((size_t)ctx->size, 1))) {
        MPI_Comm_free(&ctx->comm);
        free(ctx);
        return h5sf_fail(e, ENOMEM, "out of memory creating an IOC context");
    }
    uv_mutex_init(&ctx->lock);
    uv_cond_init(&ctx->cond);
    uv_cond_init(&ctx->done_cond);
    ctx->next = contexts;
    contexts  = ctx;
    *out      = ctx;
    return 0;
}

int h5sf_ioc_ctx_acquire(MPI_Comm comm, int timeout_s, h5sf_ioc_ctx_t **out, h5sf_errbuf_t *e)
{
    h5sf_ioc_ctx_t *found = NULL;
    int             mine, lo, hi, cmp;
    for (h5sf_ioc_ctx_t *c = contexts; c && !found; c = c->next)
        if (MPI_Comm_compare(c->comm, comm, &cmp) == MPI_SUCCESS && (cmp == MPI_IDENT || cmp == MPI_CONGRUENT))
            found = c;
    /* Every member created the context together, so all agree; check anyway,
     * a disagreement would pair requests with the wrong communicator. */
    mine = found != NULL;
    MPI_Allreduce(&mine, &lo, 1, MPI_INT, MPI_MIN, comm);
    MPI_Allreduce(&mine, &hi, 1, MPI_INT, MPI_MAX, comm);
    if (lo != hi)
        return h5sf_fail(e, 0, "ranks disagree on the IOC context of this communicator");
    if (!found && ctx_create(comm, timeout_s, &found, e) < 0)
        return -1;
    if (timeout_s > found->timeout_s)
        found->timeout_s = timeout_s;
    found->refs++;
    *out = found;
    return 0;
}

int h5sf_ioc_ctx_release(h5sf_ioc_ctx_t *ctx, h5sf_errbuf_t *e)
{
    (void)e;
    if (--ctx->refs > 0)
        return 0;
    /* Nobody sends to our daemon after everyone got here. */
    MPI_Barrier(ctx->comm);
    ctx_stop_daemon(ctx);
    ctx_free(ctx, true);
    return 0;
}

MPI_Comm h5sf_ioc_ctx_comm(const h5sf_ioc_ctx_t *ctx) { return ctx->comm; }

uint32_t h5sf_ioc_ctx_next_file_id(h5sf_ioc_ctx_t *ctx) { return ++ctx->next_file_id; }

int h5sf_ioc_serve(h5sf_ioc_ctx_t *ctx, int threads, h5sf_errbuf_t *e)
{
    if (threads < 1)
        threads = 1;
    if (ioc_workers_start(ctx, threads, e) < 0)
        return -1;
    if (!ctx->serving) {
        if (ioc_progress_start(ctx, e) < 0)
            return -1;
        ctx->serving = true;
    }
    return 0;
}

void h5sf_ioc_get_counters(const h5sf_ioc_ctx_t *ctx, h5sf_ioc_counters_t *out)
{
    h5sf_ioc_ctx_t *c    = (h5sf_ioc_ctx_t *)(uintptr_t)ctx;
    out->max_inflight    = atomic_load(&c->max_inflight);
    out->requests_served = atomic_load(&c->served);
    out->queue_wait_ns   = atomic_load(&c->queue_wait_ns);
    out->io_ns           = atomic_load(&c->io_ns);
}

void h5sf_ioc_shutdown_all(void)
{
    /* MPI_Finalize is running: no collectives, no communicator frees (other
     * ranks may be at a different point); stop threads and drop state. */
    while (contexts) {
        h5sf_ioc_ctx_t *c = contexts;
        ctx_stop_daemon(c);
        ctx_free(c, false);
    }
}
