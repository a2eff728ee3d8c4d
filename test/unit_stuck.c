/*
 * unit_stuck.c -- an IOC worker stuck in pwrite (H5SF_FAULT op=stuck) does
 * not hold up the stop of its context, and when it comes back afterwards it
 * leaves without answering.  No MPI: a context of rank 0 of 1 whose requests
 * take client.c's local path, as in unit_sched_mt.  `ctest -L tsan` runs it
 * under ThreadSanitizer, which watches the detached worker's return.
 *
 * With timeout 1 s and the pwrite stuck for STUCK_MS:
 *   - the write's wait fails within a few seconds, naming the stall;
 *   - closing the subfile gives up after the timeout (ETIMEDOUT);
 *   - ioc_workers_stop() returns false within the timeout (plus slack for a
 *     loaded machine) and
 *     marks the context abandoned (without the limit it would wait
 *     STUCK_MS, which the elapsed time shows);
 *   - once the stuck call returns, the worker counts itself out: every
 *     worker has left, none is still serving.
 * usage: unit_stuck DIR
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "../ioc/internal.h"
#include "h5sf_test.h"

#define STUCK_MS 12000 /* far beyond the timeout, even on a loaded machine */
#define BOUND_S  8.0   /* what waits bounded by the timeout may take here */
#define NWORKER  2


static double secs(uint64_t t0) { return (double)(ioc_now_ns() - t0) / 1e9; }

int main(int argc, char **argv)
{
    h5sf_errbuf_t e = {0};
    char          path[4200];
    t_start("unit_stuck");
    if (argc != 2) {
        fprintf(stderr, "usage: unit_stuck DIR\n");
        return 2;
    }
    /* Read once, at the first request. */
    char fault[64];
    snprintf(fault, sizeof fault, "op=stuck,ms=%d", STUCK_MS);
    setenv("H5SF_FAULT", fault, 1);
    snprintf(path, sizeof path, "%s/stuck_subfile", argv[1]);
    h5sf_ioc_ctx_t *ctx = ioc_ctx_new(0, 1, 1, &e);
    VRFY(ctx && ioc_workers_start(ctx, NWORKER, &e) == 0 &&
             h5sf_ioc_subfile_open(ctx, 7, 0, path, O_RDWR | O_CREAT | O_TRUNC, &e) == 0,
         "setup: %s", e.msg);
    ctx->serving = true; /* requests to rank 0 take the local path */

    static unsigned char   data[4096];
    uint64_t               off = 0, len = sizeof data, t0 = ioc_now_ns();
    void                  *buf = data;
    h5sf_ioc_client_req_t *q   = NULL;
    CHECK(h5sf_ioc_post(ctx, H5SF_IOC_OP_WRITE, 0, 7, 0, 1, &off, &len, &buf, &q, &e) == 0, "post: %s", e.msg);
    if (q)
        CHECK(h5sf_ioc_wait(q, &e) < 0 && strstr(e.msg, "stalled"), "the stuck write did not time out: %s", e.msg);
    CHECK(secs(t0) < BOUND_S, "the write's wait took %.2f s with timeout 1 s", secs(t0));

    t0 = ioc_now_ns();
    CHECK(h5sf_ioc_subfile_close(ctx, 7, 0, &e) < 0 && e.err_no == ETIMEDOUT,
          "closing the subfile of the stuck write did not time out: %s", e.msg);

    atomic_store(&ctx->stop, true);
    bool   all = ioc_workers_stop(ctx);
    double dt  = secs(t0);
    CHECK(!all && atomic_load(&ctx->abandoned), "the stop did not give up on the stuck worker");
    CHECK(dt < BOUND_S, "subfile close and worker stop took %.2f s (timeout 1 s, stuck %d ms)", dt, STUCK_MS);
    ioc_ctx_free(ctx, false); /* leaves it to the worker */
    if (all)                  /* freed: nothing more to look at */
        return t_verdict();

    /* The stuck call returns: the worker must leave, not answer or pick up
     * more work.  (The context is leaked on purpose, so reading it is fine.) */
    int left = 0;
    for (int i = 0; i < STUCK_MS / 100 + 100 && left < NWORKER; i++) {
        struct timespec ts = {0, 100 * 1000000L};
        nanosleep(&ts, NULL);
        uv_mutex_lock(&ctx->lock);
        left = ctx->nexited;
        uv_mutex_unlock(&ctx->lock);
    }
    CHECK(left == NWORKER, "%d of %d workers left after the stuck call returned", left, NWORKER);
    printf("unit_stuck: stop gave up after %.2f s; workers left: %d\n", dt, left);
    return t_verdict();
}
