/*
 * affinity.c -- where the IOC's threads run.
 *
 * MPI launchers bind each rank to a core (Open MPI does by default for up
 * to two ranks; Slurm and most sites always do), and threads inherit their
 * process's binding.  The progress thread and the workers of an IOC would
 * then share one core with their rank's main thread -- which spins inside
 * MPI whenever it waits -- and run only when the scheduler's tick preempts
 * it (measured: docs/performance-history.md, Figures behind constants, IOC thread
 * affinity).  So by default they
 * may run on every CPU this process is allowed to use on the node (the
 * kernel intersects the request with the job's cpuset), and go where a core
 * is idle.  H5SF_IOC_AFFINITY=inherit keeps the rank's binding, for sites
 * that reserve the other cores.
 *
 * The threads are named (h5sf-progress, h5sf-worker) for top -H and gdb.
 */
#include <pthread.h> /* naming and CPU affinity: no primitive in libuv 1.44 */
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include "internal.h"

/* Called by the creating thread right after uv_thread_create(): a thread
 * bound to a busy core might not run its first instruction for a while. */
void ioc_thread_setup(const h5sf_ioc_ctx_t *ctx, uv_thread_t t, const char *name)
{
    pthread_setname_np(t, name);
    if (!ctx->affinity_node)
        return;
    cpu_set_t all;
    CPU_ZERO(&all);
    for (int c = 0; c < CPU_SETSIZE; c++)
        CPU_SET(c, &all);
    /* Failure leaves the inherited binding: slower, still correct. */
    (void)pthread_setaffinity_np(t, sizeof all, &all);
}
