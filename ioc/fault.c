/*
 * fault.c -- test-only faults that hold up a whole request on the IOC:
 * stall (delay it) and hang (never answer).  H5SF_FAULT's syntax, its
 * parsing and the faults of single system calls live in common/sysio.c.
 *
 * Owns what those two do to a worker.  Must not touch the request.
 */
#include <errno.h>
#include <string.h>
#include <time.h>
#include "internal.h"

void ioc_fault_delay(h5sf_ioc_ctx_t *ctx)
{
    long stall = h5sf_fault_ms("stall");
    /* Honour after/count for stall and hang too (h5sf_fault does the
     * counting), so a test can let the open pass and hang a write. */
    if (stall >= 0) {
        if (h5sf_fault("stall", ctx->rank) && stall > 0) {
            struct timespec ts = {stall / 1000, (stall % 1000) * 1000000L};
            nanosleep(&ts, NULL);
        }
    }
    else if (h5sf_fault_ms("hang") >= 0 && h5sf_fault("hang", ctx->rank)) {
        /* Never answer, but let the daemon stop at close or finalize. */
        while (!atomic_load(&ctx->stop)) {
            struct timespec ts = {0, 10 * 1000000L};
            nanosleep(&ts, NULL);
        }
    }
}
