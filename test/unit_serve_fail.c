/*
 * unit_serve_fail.c -- h5sf_ioc_serve when a thread fails to start: the
 * call fails with the reason and leaves no thread behind, so the context
 * can be freed at once.  No MPI: a context of rank 0 of 1 (as in
 * unit_stuck); the progress thread, the only one that would use MPI, is
 * never started, since the failing start is it or one before it.
 *
 * uv_thread_create is wrapped at link time (-Wl,--wrap): the N-th call
 * fails with UV_EAGAIN, as pthread_create does at a thread limit.  With
 * THREADS workers, N = 1..THREADS fails a worker (the ones before it run),
 * N = THREADS + 1 fails the progress thread (all workers run).  For each:
 *   - serve returns -1 with "cannot start ..." and EAGAIN;
 *   - no thread is left: the process has as many as before the call, the
 *     context has no workers and does not count as serving;
 *   - ioc_ctx_free returns (an alarm turns a hang into a failure), and
 *     ASan sees no use of the freed lock or conditions.
 * usage: unit_serve_fail
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "../ioc/internal.h"
#include "h5sf_test.h"

#define THREADS 3


/* Only the main thread starts threads here: plain counters will do. */
static int calls, fail_at;

int __real_uv_thread_create(uv_thread_t *tid, uv_thread_cb entry, void *arg);
int __wrap_uv_thread_create(uv_thread_t *tid, uv_thread_cb entry, void *arg)
{
    if (++calls == fail_at)
        return UV_EAGAIN;
    return __real_uv_thread_create(tid, entry, arg);
}

/* Threads of this process now. */
static int nthreads(void)
{
    DIR *d = opendir("/proc/self/task");
    int  n = 0;
    if (!d)
        return -1;
    for (struct dirent *de; (de = readdir(d));)
        if (de->d_name[0] != '.')
            n++;
    closedir(d);
    return n;
}

/* The count once it has dropped to `want`, or after 2 s: a joined thread
 * leaves the task list a moment after its join returns. */
static int settle(int want)
{
    int n = nthreads();
    for (int i = 0; i < 200 && n > want; i++) {
        struct timespec ts = {0, 10 * 1000000L};
        nanosleep(&ts, NULL);
        n = nthreads();
    }
    return n;
}

static void nothing(void *arg) { (void)arg; }

int main(void)
{
    /* ThreadSanitizer starts a helper thread of its own with the first
     * thread: have it started before counting. */
    uv_thread_t t;
    t_start("unit_serve_fail");
    if (__real_uv_thread_create(&t, nothing, NULL) == 0)
        uv_thread_join(&t);
    /* A free that waits on a worker hangs: fail instead.  (Armed before
     * counting: the watchdog is a thread.) */
    t_step(30, "failed starts");
    int base = nthreads();
    VRFY(base >= 1, "cannot count threads in /proc/self/task");
    for (int n = 1; n <= THREADS + 1; n++) {
        h5sf_errbuf_t   e   = {0};
        h5sf_ioc_ctx_t *ctx = ioc_ctx_new(0, 1, 5, &e);
        VRFY(ctx, "ioc_ctx_new: %s", e.msg);
        calls            = 0;
        fail_at          = n;
        int rc           = h5sf_ioc_serve(ctx, THREADS, &e);
        fail_at          = 0;
        const char *what = n <= THREADS ? "worker" : "progress thread";
        CHECK(rc < 0, "start %d (%s) failed, yet serve returned %d", n, what, rc);
        CHECK(strstr(e.msg, "cannot start") && e.err_no == EAGAIN, "start %d (%s): error \"%s\" (errno %d)", n, what,
              e.msg, e.err_no);
        CHECK(calls == n, "start %d (%s): %d thread starts, expected %d", n, what, calls, n);
        int left = settle(base);
        CHECK(left == base, "start %d (%s) failed: %d threads left running (%d before serve)", n, what, left - base,
              base);
        CHECK(!ctx->serving && ctx->nworkers == 0, "start %d (%s) failed: serving %d, %d workers", n, what,
              ctx->serving, ctx->nworkers);
        fprintf(stderr, "unit_serve_fail: start %d (%s) failed: \"%s\", %d threads left\n", n, what, e.msg,
                left - base);
        ioc_ctx_free(ctx, false);
    }
    return t_verdict();
}
