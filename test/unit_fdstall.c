/*
 * unit_fdstall.c -- a subfile close that blocks (an NFS close writing back
 * dirty pages) does not hold up other requests of the IOC.
 *
 * No MPI: a context of rank 0 of 1 whose requests take client.c's local
 * path, as in unit_stuck, with two workers and H5SF_IOC_MAX_FDS=1, and two
 * files of one subfile each, A and B.  close(2) is wrapped (-Wl,--wrap):
 * once armed, the close of B's descriptor blocks until the test releases it.
 *
 *   1. A and B are opened: opening B closed A's descriptor (the cap).
 *   2. A write to A is posted: a worker reopens A, which closes B's
 *      descriptor, and that close blocks.
 *   3. A write to B is posted and waited for.  It must complete while the
 *      close still blocks: nothing it needs (the context's lock, a
 *      descriptor for B) may wait for that close.
 *   4. The close is released; the write to A completes; both files hold
 *      their bytes (pread).
 *
 * The check is an order, not a time: step 3's wait returns before the
 * release.  The watchdog releases the close after GUARD_S in any case
 * (t_on_hang), so that a build where step 3 waits for the close fails
 * instead of hanging.
 * `ctest -L tsan` runs it under ThreadSanitizer too.
 * usage: unit_fdstall DIR
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "../ioc/internal.h"
#include "h5sf_test.h"

#define GUARD_S 30 /* a hang guard, not a limit on any step */
#define LEN     ((size_t)64 << 10)


/* The stalled close: armed for one descriptor; entered; released (by the
 * test, or by the guard). */
static pthread_mutex_t mu       = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t  cv       = PTHREAD_COND_INITIALIZER;
static int             stall_fd = -1;
static bool            entered, released, by_guard;

int __real_close(int fd);
int __wrap_close(int fd)
{
    pthread_mutex_lock(&mu);
    if (fd >= 0 && fd == stall_fd) {
        stall_fd = -1;
        entered  = true;
        pthread_cond_broadcast(&cv);
        while (!released)
            pthread_cond_wait(&cv, &mu);
    }
    pthread_mutex_unlock(&mu);
    return __real_close(fd);
}

static void release(bool guard)
{
    pthread_mutex_lock(&mu);
    if (!released) {
        released = true;
        by_guard = guard;
        pthread_cond_broadcast(&cv);
    }
    pthread_mutex_unlock(&mu);
}

/* Wait until the close is entered or released, at most GUARD_S. */
static bool wait_entered(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += GUARD_S;
    pthread_mutex_lock(&mu);
    while (!entered && !released && pthread_cond_timedwait(&cv, &mu, &ts) == 0)
        ;
    bool ok = entered;
    pthread_mutex_unlock(&mu);
    return ok;
}

static void release_by_guard(void) { release(true); }

static int post_write(h5sf_ioc_ctx_t *ctx, uint32_t file, unsigned char *buf, h5sf_ioc_client_req_t **q,
                      h5sf_errbuf_t *e)
{
    uint64_t off = 0, len = LEN;
    void    *b = buf;
    t_fill(buf, LEN, file, 0);
    return h5sf_ioc_post(ctx, H5SF_IOC_OP_WRITE, 0, file, 0, 1, &off, &len, &b, q, e);
}

static void check_file(const char *path, uint32_t file)
{
    unsigned char *got = malloc(LEN);
    int            fd  = open(path, O_RDONLY);
    ssize_t        r   = fd >= 0 ? pread(fd, got, LEN, 0) : -1;
    size_t         bad = 0;
    if (fd >= 0)
        close(fd);
    CHECK(r == (ssize_t)LEN, "%s: read %zd of %zu bytes", path, r, LEN);
    for (size_t o = 0; r == (ssize_t)LEN && o < LEN; o++)
        bad += got[o] != t_pat(file, o);
    CHECK(bad == 0, "%s: %zu bytes wrong", path, bad);
    free(got);
}

int main(int argc, char **argv)
{
    h5sf_errbuf_t          e = {0};
    char                   pa[4200], pb[4200];
    static unsigned char   ba[LEN], bb[LEN];
    h5sf_ioc_client_req_t *qa = NULL, *qb = NULL;
    t_start("unit_fdstall");
    if (argc != 2) {
        fprintf(stderr, "usage: unit_fdstall DIR\n");
        return 2;
    }
    setenv("H5SF_IOC_MAX_FDS", "1", 1); /* read when the context is made */
    snprintf(pa, sizeof pa, "%s/fdstall_a", argv[1]);
    snprintf(pb, sizeof pb, "%s/fdstall_b", argv[1]);
    h5sf_ioc_ctx_t *ctx = ioc_ctx_new(0, 1, 10, &e);
    VRFY(ctx && ioc_workers_start(ctx, 2, &e) == 0 &&
             h5sf_ioc_subfile_open(ctx, 1, 0, pa, O_RDWR | O_CREAT | O_TRUNC, &e) == 0 &&
             h5sf_ioc_subfile_open(ctx, 2, 0, pb, O_RDWR | O_CREAT | O_TRUNC, &e) == 0,
         "setup: %s", e.msg);
    ctx->serving = true; /* requests to rank 0 take the local path */

    /* 1. One descriptor open: B's. */
    uv_mutex_lock(&ctx->lock);
    int fa = ioc_sf_find(ctx, 1, 0)->fd, fb = ioc_sf_find(ctx, 2, 0)->fd, nfds = ctx->nfds;
    uv_mutex_unlock(&ctx->lock);
    VRFY(ctx->max_fds == 1 && fa < 0 && fb >= 0 && nfds == 1,
         "setup: cap %d, descriptors A %d B %d (%d open); expected cap 1, B's only", ctx->max_fds, fa, fb, nfds);
    pthread_mutex_lock(&mu);
    stall_fd = fb;
    pthread_mutex_unlock(&mu);
    t_on_hang(release_by_guard);
    t_step(GUARD_S, "the close of B's descriptor stalled");

    /* 2. A worker reopens A and blocks closing B's descriptor. */
    CHECK(post_write(ctx, 1, ba, &qa, &e) == 0, "post to A: %s", e.msg);
    bool stalled = wait_entered();
    CHECK(stalled, "no close of B's descriptor within %d s: the cap did not evict it", GUARD_S);

    /* 3. B's write completes while that close blocks. */
    bool b_ok = post_write(ctx, 2, bb, &qb, &e) == 0 && h5sf_ioc_wait(qb, &e) == 0;
    CHECK(b_ok, "write to B: %s", e.msg);
    pthread_mutex_lock(&mu);
    bool during = !released, guarded = by_guard;
    pthread_mutex_unlock(&mu);
    CHECK(!stalled || during,
          "the write to B completed only after the stalled close of B's old descriptor was released (by %s): "
          "it waited for that close",
          guarded ? "the hang guard" : "the test");

    /* 4. Release; A's write completes; both files hold their bytes. */
    release(false);
    t_step(0, "after the release");
    CHECK(qa && h5sf_ioc_wait(qa, &e) == 0, "write to A: %s", e.msg);
    check_file(pa, 1);
    check_file(pb, 2);

    CHECK(h5sf_ioc_subfile_close(ctx, 1, 0, &e) == 0, "close A: %s", e.msg);
    CHECK(h5sf_ioc_subfile_close(ctx, 2, 0, &e) == 0, "close B: %s", e.msg);
    uv_mutex_lock(&ctx->lock);
    nfds = ctx->nfds;
    uv_mutex_unlock(&ctx->lock);
    CHECK(nfds == 0, "%d descriptors counted open after both closes", nfds);
    atomic_store(&ctx->stop, true);
    CHECK(ioc_workers_stop(ctx), "the workers did not stop");
    ioc_ctx_free(ctx, false);
    unlink(pa);
    unlink(pb);
    printf("unit_fdstall: the write to B %s the stalled close\n", during ? "completed during" : "waited for");
    return t_verdict();
}
