/*
 * gate.c -- the finalize gate: how h5sf's threads take turns inside MPI once
 * MPI_Finalize has begun.
 *
 * Every MPI call of ioc/ made while IOC threads may run -- the IOC threads'
 * own, the client's, the finalizing thread's -- goes through IOC_MPI
 * (internal.h), one call at a time.  Until the gate closes a call only
 * counts itself; once it is closed each call holds the gate's mutex for
 * that call alone (ctx.c, h5sf_ioc_finalize_begin): MPICH stops
 * serializing threads there, so h5sf does.  Never for longer than one call:
 * a thread that held it across a file system call, a fault's delay or a
 * wait for a peer would keep the finalizing thread out of MPI, and with it
 * every rank, for good.
 *
 * Separately, IOC threads bracket each stretch of MPI calls (a progress
 * step, a batch run) with ioc_mpi_enter/leave, counted per context
 * (ctx->in_mpi), so that parking can wait until no IOC thread is inside
 * one.  Owns the gate and those counts; waiting for a context's stretches
 * is ctx.c's.
 */
#include <stdatomic.h>
#include <time.h>
#include "internal.h"

/* Closed once, by the thread that runs MPI_Finalize's callbacks. */
static atomic_bool gate_closed;
static uv_mutex_t  gate; /* made by gate_init: libuv has no static initializer */
static uv_once_t   gate_once = UV_ONCE_INIT;
static void        gate_init(void) { uv_mutex_init(&gate); }
/* MPI calls in flight that did not take the gate (it was open). */
static atomic_int ungated;

bool ioc_call_enter(void)
{
    /* Counted first, then the gate checked; the closer closes it, then reads
     * the count (both seq_cst): either it waits for us, or we see it closed. */
    atomic_fetch_add(&ungated, 1);
    if (!atomic_load(&gate_closed))
        return false;
    atomic_fetch_sub(&ungated, 1);
    uv_once(&gate_once, gate_init);
    uv_mutex_lock(&gate);
    return true;
}

void ioc_call_leave(bool gated)
{
    if (gated)
        uv_mutex_unlock(&gate);
    else
        atomic_fetch_sub(&ungated, 1);
}

bool ioc_gate_close(uint64_t limit_ns)
{
    uint64_t        t0 = ioc_now_ns();
    struct timespec ts = {0, 20000};
    atomic_store(&gate_closed, true);
    /* Single MPI calls: these end in microseconds. */
    while (atomic_load(&ungated) > 0) {
        if (ioc_now_ns() - t0 > limit_ns)
            return false;
        nanosleep(&ts, NULL);
    }
    return true;
}


void ioc_mpi_enter(h5sf_ioc_ctx_t *ctx) { atomic_fetch_add(&ctx->in_mpi, 1); }

void ioc_mpi_leave(h5sf_ioc_ctx_t *ctx)
{
    /* The last one out wakes a parker waiting for the count to reach 0. */
    if (atomic_fetch_sub(&ctx->in_mpi, 1) == 1 && atomic_load(&ctx->quieting)) {
        uv_mutex_lock(&ctx->lock);
        uv_cond_broadcast(&ctx->park_cond);
        uv_mutex_unlock(&ctx->lock);
    }
}
