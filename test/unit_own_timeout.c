/*
 * unit_own_timeout.c -- an IOC rank's requests to itself that time out
 * leave the caller's memory alone.
 *
 * One context without MPI (ioc_ctx_new: rank 0 of 1) with two workers and a
 * 1-second client timeout; H5SF_FAULT stalls every request for STALL_MS in
 * the worker that runs it (injected faults keep the client's own thread from
 * running its request: ioc_run_own).  For a read and then a write the client
 * times out, fills its buffer with a canary (as a program reusing freed
 * memory would), and the test waits until the worker has finished the
 * request.  Then:
 *   - read:  the buffer still holds only the canary (no late preadv or copy
 *            into it);
 *   - write: no canary byte reached the subfile (pread); every byte is the
 *            file's old pattern or the written one.
 * `ctest -L tsan` runs it under ThreadSanitizer too: a worker writing the
 * buffer the client thread reuses is also a data race.
 *
 * usage: unit_own_timeout DIR
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

#define STALL_MS "2500"
#define NPIECE   3
#define PIECE    ((size_t)3 << 20) /* 9 MiB in all: more than one chunk */
#define OLD      0x0d              /* the subfile's bytes before         */
#define NEW      0x5e              /* the bytes written                  */
#define CANARY   0xc5              /* the reused buffer's                */


static h5sf_ioc_ctx_t *ctx;
static char            path[4096];

/* Wait until the workers have served n requests (bounded: 20 s). */
static void wait_served(uint64_t n)
{
    for (int i = 0; i < 2000 && atomic_load(&ctx->served) < n; i++) {
        struct timespec ts = {0, 10 * 1000000L};
        nanosleep(&ts, NULL);
    }
    CHECK(atomic_load(&ctx->served) >= n, "the stalled request never finished");
}

/* Post one request of NPIECE pieces over buf and expect it to time out. */
static void timed_out(int op, unsigned char *buf)
{
    uint64_t               offs[NPIECE], lens[NPIECE];
    void                  *bufs[NPIECE];
    h5sf_errbuf_t          e;
    h5sf_ioc_client_req_t *q;
    for (int i = 0; i < NPIECE; i++) {
        /* Backwards in the file, so the pieces are not one run. */
        offs[i] = (uint64_t)(NPIECE - 1 - i) * PIECE;
        lens[i] = PIECE;
        bufs[i] = buf + (size_t)i * PIECE;
    }
    CHECK(h5sf_ioc_post(ctx, op, 0, 1, 0, NPIECE, offs, lens, bufs, &q, &e) == 0, "post: %s", e.msg);
    int rc = h5sf_ioc_wait(q, &e);
    CHECK(rc < 0 && e.err_no == ETIMEDOUT, "the stalled %s did not time out (rc %d, errno %d: %s)",
          op == H5SF_IOC_OP_READ ? "read" : "write", rc, e.err_no, rc < 0 ? e.msg : "");
    /* The test goes on with the same context: let requests through again. */
    ctx->dead[0] = 0;
}

static void test_read(unsigned char *buf)
{
    uint64_t served = atomic_load(&ctx->served);
    memset(buf, 0, NPIECE * PIECE);
    timed_out(H5SF_IOC_OP_READ, buf);
    memset(buf, CANARY, NPIECE * PIECE);
    wait_served(served + 1);
    size_t bad = 0;
    for (size_t i = 0; i < NPIECE * PIECE; i++)
        bad += buf[i] != CANARY;
    CHECK(bad == 0, "read: %zu bytes of the buffer changed after the timeout", bad);
}

static void test_write(unsigned char *buf)
{
    uint64_t served = atomic_load(&ctx->served);
    memset(buf, NEW, NPIECE * PIECE);
    timed_out(H5SF_IOC_OP_WRITE, buf);
    memset(buf, CANARY, NPIECE * PIECE);
    wait_served(served + 1);
    int     fd  = open(path, O_RDONLY);
    ssize_t got = fd >= 0 ? pread(fd, buf, NPIECE * PIECE, 0) : -1;
    CHECK(got == (ssize_t)(NPIECE * PIECE), "cannot read %s back", path);
    size_t canary = 0, other = 0;
    for (ssize_t i = 0; i < got; i++) {
        canary += buf[i] == CANARY;
        other += buf[i] != OLD && buf[i] != NEW && buf[i] != CANARY;
    }
    CHECK(canary == 0, "write: %zu bytes of the reused buffer reached the subfile", canary);
    CHECK(other == 0, "write: %zu bytes of the subfile are neither old nor written bytes", other);
    if (fd >= 0)
        close(fd);
}

int main(int argc, char **argv)
{
    const char    *dir = argc > 1 ? argv[1] : ".";
    h5sf_errbuf_t  e;
    unsigned char *buf = malloc(NPIECE * PIECE);
    t_start("unit_own_timeout");
    snprintf(path, sizeof path, "%s/own_timeout.sub", dir);
    /* The old bytes, written past the ioc layer. */
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    memset(buf, OLD, NPIECE * PIECE);
    if (fd < 0 || pwrite(fd, buf, NPIECE * PIECE, 0) != (ssize_t)(NPIECE * PIECE))
        t_die_io("prepare", path);
    close(fd);
    setenv("H5SF_FAULT", "op=stall,ms=" STALL_MS, 1); /* before the first request reads it */
    VRFY((ctx = ioc_ctx_new(0, 1, 1, &e)) && ioc_workers_start(ctx, 2, &e) == 0, "%s", e.msg);
    ctx->serving = true; /* requests to rank 0 take client.c's local path */
    CHECK(h5sf_ioc_subfile_open(ctx, 1, 0, path, O_RDWR, &e) == 0, "%s", e.msg);
    test_read(buf);
    test_write(buf);
    CHECK(h5sf_ioc_subfile_close(ctx, 1, 0, &e) == 0, "%s", e.msg);
    atomic_store(&ctx->stop, true);
    ioc_workers_stop(ctx);
    ioc_ctx_free(ctx, false);
    unlink(path);
    free(buf);
    return t_verdict();
}
