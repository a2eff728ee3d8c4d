/*
 * gate.c -- the finalize gate: how the IOC threads and the thread that runs
 * MPI_Finalize's callbacks take turns inside MPI.
 *
 * IOC threads bracket each stretch of MPI calls with ioc_mpi_enter/leave.
 * Until the gate closes these only count (ctx->in_mpi), so that parking
 * can wait until no IOC thread is inside MPI; once it is closed they take
 * the gate's mutex, which the finalizing thread holds around its own MPI
 * calls (ctx.c, h5sf_ioc_finalize_begin): MPICH stops serializing threads
 * there, so h5sf does.  Owns the gate only; waiting for the counted threads
 * is ctx.c's.
 */
#include <pthread.h>
#include <stdatomic.h>
#include "internal.h"

/* Closed once, by the thread that runs MPI_Finalize's callbacks. */
static atomic_bool     gate_closed;
static pthread_mutex_t gate = PTHREAD_MUTEX_INITIALIZER;

/* One IOC thread left an ungated MPI stretch; wake a waiter at zero. */
static void mpi_out(h5sf_ioc_ctx_t *ctx)
{
    if (atomic_fetch_sub(&ctx->in_mpi, 1) == 1 && atomic_load(&ctx->quieting)) {
        uv_mutex_lock(&ctx->lock);
        uv_cond_broadcast(&ctx->park_cond);
        uv_mutex_unlock(&ctx->lock);
    }
}

bool ioc_mpi_enter(h5sf_ioc_ctx_t *ctx)
{
    /* Counted first, then the gate checked; the closer closes it, then reads
     * the count (both seq_cst): either it waits for us, or we see it closed. */
    atomic_fetch_add(&ctx->in_mpi, 1);
    if (!atomic_load(&gate_closed))
        return false;
    mpi_out(ctx);
    pthread_mutex_lock(&gate);
    return true;
}

void ioc_mpi_leave(h5sf_ioc_ctx_t *ctx, bool gated)
{
    if (gated)
        pthread_mutex_unlock(&gate);
    else
        mpi_out(ctx);
}

void ioc_gate_close(void) { atomic_store(&gate_closed, true); }
void ioc_gate_lock(void) { pthread_mutex_lock(&gate); }
void ioc_gate_unlock(void) { pthread_mutex_unlock(&gate); }
