/*
 * unit_bell.c -- the IOC doorbell (ioc/shm.c) without MPI: the private bell
 * of a context of one rank, rung from another thread.  `ctest -L tsan` runs
 * it under ThreadSanitizer.  Runs with H5SF_TEST_BELL_WAIT_S=600, so a lost
 * wake-up hangs until ctest's timeout instead of ending after 50 ms.
 *
 * Checks:
 *   - ringing an unarmed bell (not always) does nothing; ringing an armed
 *     one moves it on, so a sleep on the value read when arming returns at
 *     once (a ring between arming and sleeping is not lost);
 *   - a sleeper thread that arms and sleeps ROUNDS times while this thread
 *     rings (only armed bells, as clients do) is woken every time.
 * usage: unit_bell
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include "../ioc/internal.h"
#include "h5sf_test.h"

#define ROUNDS 2000


static atomic_int rounds_done;

static void *sleeper(void *arg)
{
    h5sf_ioc_ctx_t *ctx = arg;
    uint32_t        seq;
    for (int i = 0; i < ROUNDS; i++) {
        if (!ioc_bell_arm(ctx, &seq))
            break;
        ioc_bell_sleep(ctx, seq);
        atomic_fetch_add(&rounds_done, 1);
    }
    return NULL;
}

int main(void)
{
    h5sf_errbuf_t   e = {0};
    uint32_t        s0, s1, s2;
    pthread_t       t;
    h5sf_ioc_ctx_t *ctx;
    t_start("unit_bell");
    VRFY((ctx = ioc_ctx_new(0, 1, 5, &e)), "%s", e.msg);
    ioc_shm_setup(ctx, 0, &e); /* one rank: a private bell, no MPI */
    CHECK(ioc_bell_arm(ctx, &s0), "a context of one rank has no bell");

    ioc_bell_disarm(ctx);
    ioc_bell_ring(ctx, 0, false); /* not armed: nothing */
    CHECK(ioc_bell_arm(ctx, &s1) && s1 == s0, "an unarmed bell moved on when rung (%u -> %u)", s0, s1);
    ioc_bell_ring(ctx, 0, false); /* armed: rung */
    ioc_bell_sleep(ctx, s1);      /* returns at once, or hangs */
    CHECK(ioc_bell_arm(ctx, &s2) && s2 == s1 + 1, "an armed bell rung once went from %u to %u", s1, s2);
    ioc_bell_disarm(ctx);

    VRFY(pthread_create(&t, NULL, sleeper, ctx) == 0, "cannot start a thread");
    while (atomic_load(&rounds_done) < ROUNDS) {
        ioc_bell_ring(ctx, 0, false);
        sched_yield();
    }
    pthread_join(t, NULL);
    CHECK(atomic_load(&rounds_done) == ROUNDS, "%d of %d sleeps ended", atomic_load(&rounds_done), ROUNDS);
    ioc_ctx_free(ctx, false);
    return t_verdict();
}
