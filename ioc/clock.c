/*
 * clock.c -- time and patience for the IOC's polling loops: a monotonic
 * clock in nanoseconds and the back-off that turns a spin into sleeps.
 *
 * No locks, no MPI: callers on any thread (clients, progress thread,
 * workers) use these between their own polls.
 */
#include <limits.h>
#include <sched.h>
#include <time.h>
#include "internal.h"

uint64_t ioc_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Polling loops spin briefly (latency), then sleep longer and longer so an
 * idle IOC or a waiting client does not steal a core from the application:
 * on an oversubscribed node the rank we wait for needs that core. */
void ioc_backoff(unsigned *idle)
{
    unsigned i = (*idle)++;
    if (i < IOC_BACKOFF_SPINS)
        return;
    if (i < IOC_BACKOFF_YIELDS) {
        sched_yield();
        return;
    }
    unsigned        us = (i - IOC_BACKOFF_YIELDS) * 2u + 1u;
    struct timespec ts = {0, (long)(us < 200 ? us : 200) * 1000L};
    nanosleep(&ts, NULL);
}

/* The progress thread with nothing received: as ioc_backoff, then, after
 * IOC_IDLE_POLLS polls (~30 ms), up to 1 ms.  Ranks on the IOC's node do most of
 * their I/O themselves (vfd/samenode.c), so the IOC sits idle through whole
 * phases, and 5000 wake-ups a second then cost the ranks sharing its cores
 * (measured: docs/performance-history.md, Figures behind constants, idle
 * back-off).  The
 * price: at most 1 ms more for the first request after such a pause. */
void ioc_backoff_idle(unsigned *idle)
{
    unsigned i = *idle;
    if (i < IOC_IDLE_POLLS) {
        ioc_backoff(idle);
        return;
    }
    if (i < UINT_MAX)
        (*idle)++;
    unsigned        us = 200u + ((i - IOC_IDLE_POLLS) < 100u ? (i - IOC_IDLE_POLLS) * 8u : 800u);
    struct timespec ts = {0, (long)us * 1000L};
    nanosleep(&ts, NULL);
}
