/*
 * unit_ownstall.c -- an IOC rank's requests to itself return within the
 * timeout when its subfile's file system stalls, with no fault injection.
 *
 * No MPI: for each case a context of rank 0 of 1 whose requests take
 * client.c's local path (as in unit_fdstall), two workers, a 2-second
 * timeout, one subfile.  One system call on the subfile's descriptor is
 * wrapped (-Wl,--wrap): once armed, it blocks, as on a file system that
 * stopped answering, until the test releases it.
 *
 *   write  a 64 KiB write (pwritev blocks)
 *   read   a 64 KiB read  (preadv blocks)
 *   fsync  an fsync barrier (fsync blocks)
 *   size   a size query   (fstat blocks)
 *
 * Checked: the call fails with a timeout error within the timeout plus
 * SLACK_S, while the system call still blocks.  Then the call is released,
 * the worker finishes, and the context closes.  The watchdog releases the
 * call after GUARD_S in any case (t_on_hang), so that a build whose caller
 * runs the system call itself fails instead of hanging.  `ctest -L tsan` runs it under
 * ThreadSanitizer too.
 *
 * usage: unit_ownstall DIR
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include "../ioc/internal.h"
#include "h5sf_test.h"

#define GUARD_S   30 /* a hang guard, not a limit on any step */
#define TIMEOUT_S 2
#define SLACK_S   2.0
#define LEN       ((size_t)64 << 10)


/* The stalled call: armed for one system call on one descriptor; entered;
 * released (by the test, or by the guard). */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t  cv = PTHREAD_COND_INITIALIZER;
static const char     *stall_call;
static int             stall_fd = -1;
static bool            entered, released;

static void maybe_stall(const char *call, int fd)
{
    pthread_mutex_lock(&mu);
    if (fd >= 0 && fd == stall_fd && stall_call && !strcmp(call, stall_call)) {
        stall_fd = -1;
        entered  = true;
        pthread_cond_broadcast(&cv);
        while (!released)
            pthread_cond_wait(&cv, &mu);
    }
    pthread_mutex_unlock(&mu);
}

/* The library is built with 64-bit file offsets: these are the symbols
 * its calls bind to. */
ssize_t __real_pwritev64(int fd, const struct iovec *iov, int n, off_t off);
ssize_t __wrap_pwritev64(int fd, const struct iovec *iov, int n, off_t off)
{
    maybe_stall("pwritev", fd);
    return __real_pwritev64(fd, iov, n, off);
}
ssize_t __real_preadv64(int fd, const struct iovec *iov, int n, off_t off);
ssize_t __wrap_preadv64(int fd, const struct iovec *iov, int n, off_t off)
{
    maybe_stall("preadv", fd);
    return __real_preadv64(fd, iov, n, off);
}
int __real_fsync(int fd);
int __wrap_fsync(int fd)
{
    maybe_stall("fsync", fd);
    return __real_fsync(fd);
}
int __real_fstat64(int fd, struct stat *st);
int __wrap_fstat64(int fd, struct stat *st)
{
    maybe_stall("fstat", fd);
    return __real_fstat64(fd, st);
}

static void release(void)
{
    pthread_mutex_lock(&mu);
    released = true;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
}

/* One case: arm `call`, make the request, check that it fails in time. */
static void run_case(const char *dir, const char *call)
{
    h5sf_errbuf_t        e = {0};
    char                 path[4200];
    static unsigned char buf[LEN];
    snprintf(path, sizeof path, "%s/ownstall_%s", dir, call);
    h5sf_ioc_ctx_t *ctx = ioc_ctx_new(0, 1, TIMEOUT_S, &e);
    VRFY(ctx && ioc_workers_start(ctx, 2, &e) == 0 &&
             h5sf_ioc_subfile_open(ctx, 1, 0, path, O_RDWR | O_CREAT | O_TRUNC, &e) == 0,
         "%s: setup: %s", call, e.msg);
    ctx->serving = true; /* requests to rank 0 take the local path */
    uv_mutex_lock(&ctx->lock);
    int fd = ioc_sf_find(ctx, 1, 0)->fd;
    uv_mutex_unlock(&ctx->lock);
    VRFY(strcmp(call, "preadv") || pwrite(fd, buf, LEN, 0) == (ssize_t)LEN, "%s: setup: pwrite failed", call);
    pthread_mutex_lock(&mu);
    stall_call = call, stall_fd = fd, entered = released = false;
    pthread_mutex_unlock(&mu);
    t_step(GUARD_S, "%s stalled", call);
    uint64_t served = atomic_load(&ctx->served);

    double t0 = t_now_s();
    int    rc;
    if (!strcmp(call, "pwritev") || !strcmp(call, "preadv")) {
        h5sf_ioc_client_req_t *q   = NULL;
        uint64_t               off = 0, len = LEN;
        void                  *b = buf;
        memset(buf, 0x5a, LEN);
        rc = h5sf_ioc_post(ctx, !strcmp(call, "pwritev") ? H5SF_IOC_OP_WRITE : H5SF_IOC_OP_READ, 0, 1, 0, 1, &off, &len,
                           &b, &q, &e);
        if (rc == 0)
            rc = h5sf_ioc_wait(q, &e);
    }
    else if (!strcmp(call, "fsync"))
        rc = h5sf_ioc_fsync(ctx, 0, 1, 0, &e);
    else {
        uint64_t sz = 0;
        rc          = h5sf_ioc_get_size(ctx, 0, 1, 0, &sz, &e);
    }
    double dt = t_now_s() - t0;
    pthread_mutex_lock(&mu);
    bool during = !released, hit = entered;
    pthread_mutex_unlock(&mu);
    printf("unit_ownstall: %s stalled: the request %s after %.2f s%s%s\n", call, rc < 0 ? "failed" : "succeeded", dt,
           rc < 0 ? ": " : "", rc < 0 ? e.msg : "");
    CHECK(hit, "%s: the stalled call was never made", call);
    CHECK(rc < 0 && e.err_no == ETIMEDOUT, "%s: expected a timeout error, got %s", call, rc < 0 ? e.msg : "success");
    CHECK(during && dt < TIMEOUT_S + SLACK_S,
          "%s: the request returned after %.1f s (timeout %d s)%s: its caller waited for the stalled call", call, dt,
          TIMEOUT_S, during ? "" : ", once the guard released the stalled call");

    /* Release; the worker finishes the request; the context closes. */
    release();
    t_step_done();
    for (int i = 0; i < 2000 && atomic_load(&ctx->served) == served; i++) {
        struct timespec ts = {0, 10 * 1000000L};
        nanosleep(&ts, NULL);
    }
    CHECK(atomic_load(&ctx->served) > served, "%s: the stalled request never finished", call);
    CHECK(h5sf_ioc_subfile_close(ctx, 1, 0, &e) == 0, "%s: close: %s", call, e.msg);
    atomic_store(&ctx->stop, true);
    CHECK(ioc_workers_stop(ctx), "%s: the workers did not stop", call);
    ioc_ctx_free(ctx, false);
    unlink(path);
}

int main(int argc, char **argv)
{
    t_start("unit_ownstall");
    t_on_hang(release);
    if (argc != 2) {
        fprintf(stderr, "usage: unit_ownstall DIR\n");
        return 2;
    }
    static const char *calls[] = {"pwritev", "preadv", "fsync", "fstat"};
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++)
        run_case(argv[1], calls[i]);
    return t_verdict();
}
