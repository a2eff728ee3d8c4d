/*
 * mpich_yield.c -- a test-only LD_PRELOAD for MPICH runs on a machine with
 * fewer cores than ranks: MPICH's progress yields the core after 64
 * progress calls in a row that found nothing, as Open MPI does by itself
 * when oversubscribed (mpi_yield_when_idle).
 *
 * MPICH 4.0.2 (ch4:ucx) spins in ucp_worker_progress while it waits and
 * never calls sched_yield; with 4 ranks on 2 cores a rank waiting in a
 * collective keeps its core for a whole time slice while the rank it waits
 * for is runnable on it.  t_damaged_direct at 4 ranks took 13.8 s with it
 * spinning and 0.42 s with this (Open MPI: 0.68 s), t_stress_many 37 s and
 * 0.78 s (2026-11-28, 2 cores).  Only scheduling changes: every call still
 * goes to UCX, and its result is returned unchanged.  Not part of h5sf;
 * test/CMakeLists.txt preloads it for every MPI test of an MPICH build.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sched.h>

typedef struct ucp_worker *ucp_worker_h;

unsigned ucp_worker_progress(ucp_worker_h worker);

unsigned ucp_worker_progress(ucp_worker_h worker)
{
    static unsigned (*real)(ucp_worker_h);
    static __thread unsigned idle;
    if (!real)
        real = (unsigned (*)(ucp_worker_h))dlsym(RTLD_NEXT, "ucp_worker_progress");
    unsigned n = real(worker);
    if (n)
        idle = 0;
    else if (++idle >= 64) {
        idle = 0;
        sched_yield();
    }
    return n;
}
