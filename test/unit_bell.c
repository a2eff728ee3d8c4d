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
 * With the argument "naps" (run without H5SF_TEST_BELL_WAIT_S): a sleep
 * nobody ends says it timed out, the bound doubles with each earlier
 * timed-out sleep (50, 200 ms), and stops growing (1.6 s); a rung one says
 * it did not time out.
 * usage: unit_bell [naps]
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
        ioc_bell_sleep(ctx, seq, 0);
        atomic_fetch_add(&rounds_done, 1);
    }
    return NULL;
}

/* Sleep `naps` naps deep with nobody ringing: timed out, and how long. */
static double nap(h5sf_ioc_ctx_t *ctx, unsigned naps)
{
    uint32_t seq;
    uint64_t t0 = ioc_now_ns();
    CHECK(ioc_bell_arm(ctx, &seq), "no bell");
    CHECK(ioc_bell_sleep(ctx, seq, naps), "a sleep %u naps deep nobody rang did not time out", naps);
    return (double)(ioc_now_ns() - t0) / 1e9;
}

static int check_naps(h5sf_ioc_ctx_t *ctx)
{
    uint32_t seq;
    double   s0 = nap(ctx, 0), s2 = nap(ctx, 2), s30 = nap(ctx, 30);
    CHECK(s0 >= 0.045, "first sleep %.3f s, want 50 ms", s0);
    CHECK(s2 >= 0.19, "third timed-out sleep %.3f s, want 200 ms", s2);
    CHECK(s30 >= 1.55 && s30 < 10, "sleep after 30 timed out %.3f s, want the 1.6 s bound", s30);
    CHECK(ioc_bell_arm(ctx, &seq), "no bell");
    ioc_bell_ring(ctx, 0, false);
    CHECK(!ioc_bell_sleep(ctx, seq, 30), "a rung sleep said it timed out");
    ioc_ctx_free(ctx, false);
    return t_verdict();
}

int main(int argc, char **argv)
{
    h5sf_errbuf_t   e = {0};
    uint32_t        s0, s1, s2;
    pthread_t       t;
    h5sf_ioc_ctx_t *ctx;
    t_start("unit_bell");
    VRFY((ctx = ioc_ctx_new(0, 1, 5, &e)), "%s", e.msg);
    ioc_shm_setup(ctx, 0, &e); /* one rank: a private bell, no MPI */
    CHECK(ioc_bell_arm(ctx, &s0), "a context of one rank has no bell");
    if (argc > 1 && !strcmp(argv[1], "naps"))
        return check_naps(ctx);

    ioc_bell_disarm(ctx);
    ioc_bell_ring(ctx, 0, false); /* not armed: nothing */
    CHECK(ioc_bell_arm(ctx, &s1) && s1 == s0, "an unarmed bell moved on when rung (%u -> %u)", s0, s1);
    ioc_bell_ring(ctx, 0, false); /* armed: rung */
    ioc_bell_sleep(ctx, s1, 0);   /* returns at once, or hangs */
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
