/*
 * unit_sched_mt.c -- the IOC scheduler, ready queue and worker pool driven
 * by several threads at once.  `ctest -L tsan` runs it under ThreadSanitizer
 * (scripts/test.sh, third stage); elsewhere it is a plain unit test.
 *
 * Two contexts without MPI (ioc_ctx_new: rank 0 of 1, no communicator, no
 * progress thread) each run three libuv workers serving two subfiles, so
 * two context locks and six workers are busy at once; context 1 may keep
 * one descriptor open, so its workers reopen subfiles.  Client threads post
 * reads and writes to their own rank's IOC through client.c's self path
 * (h5sf_ioc_post/wait): the real ioc_submit, scheduler, ready queue, request
 * merging and workers run under ctx->lock exactly as in production.
 * Barriers (truncate, size query, fsync) are submitted as client.c's
 * post_self does, but awaited outside the model's lock, so that requests
 * arrive behind them.  A churn thread opens and closes more subfiles.
 *
 * Checks, each of which fails if the scheduler lets a request run early:
 *   - two transfers on one subfile that overlap, one of them a write, are
 *     never inside pwritev/preadv at the same time (both are wrapped with
 *     ld --wrap; the bookkeeping uses relaxed atomics only, which give TSan
 *     no happens-before edge, so it cannot hide a race in ioc/);
 *   - every read returns the bytes of a serial model as of its admission,
 *     every size query the model's size; the files end equal to the model.
 * The model knows the admission order because each post holds a test
 * mutex of its subfile (the scheduler admits in arrival order).  Offsets
 * and lengths are multiples of GRAIN so the overlap guard can be exact.
 *
 * usage: unit_sched_mt DIR
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include "../ioc/internal.h"
#include "h5sf_test.h"

#define NCTX     2
#define NSUB     2 /* subfiles per context                  */
#define NCLIENT  4
#define NWORKER  3    /* per context                           */
#define OPS      3000 /* per client thread                     */
#define DEPTH    6    /* requests a client keeps in flight     */
#define CHURN    20
#define REGION   (16 * 1024) /* every subfile stays inside this       */
#define GRAIN    16
#define MAXPIECE 3
#define MAXFD    128

/* ---- overlap guard around the workers' pwritev/preadv -------------------- */

/* Per descriptor and GRAIN: writers x WRITER + readers now in a transfer. */
#define WRITER (1u << 16)
static atomic_uint  guard[MAXFD][REGION / GRAIN];
static atomic_uint  in_io, max_in_io;
static atomic_ulong transfers;

static void guard_enter(int fd, uint64_t off, uint64_t len, bool write)
{
    atomic_fetch_add_explicit(&transfers, 1, memory_order_relaxed);
    unsigned now = atomic_fetch_add_explicit(&in_io, 1, memory_order_relaxed) + 1;
    unsigned max = atomic_load_explicit(&max_in_io, memory_order_relaxed);
    while (now > max &&
           !atomic_compare_exchange_weak_explicit(&max_in_io, &max, now, memory_order_relaxed, memory_order_relaxed))
        ;
    if (fd < 0 || fd >= MAXFD || off + len > REGION)
        return;
    /* Read-modify-writes of one location are totally ordered even when
     * relaxed: of two transfers that overlap in time, the later sees the
     * earlier's mark. */
    for (uint64_t g = off / GRAIN; g < (off + len + GRAIN - 1) / GRAIN; g++) {
        unsigned old = atomic_fetch_add_explicit(&guard[fd][g], write ? WRITER : 1, memory_order_relaxed);
        CHECK(write ? old == 0 : old < WRITER,
              "a %s of [%llu, %llu) on fd %d runs concurrently with an "
              "overlapping %s",
              write ? "write" : "read", (unsigned long long)off, (unsigned long long)(off + len), fd,
              old >= WRITER ? "write" : "read");
    }
    /* Widen the window in which a misordered request would be caught. */
    uint64_t r = t_rnd() % 8;
    if (r == 0) {
        struct timespec ts = {0, (long)(20000 + t_rnd() % 200000)};
        nanosleep(&ts, NULL);
    }
    else if (r == 1)
        sched_yield();
}

static void guard_leave(int fd, uint64_t off, uint64_t len, bool write)
{
    atomic_fetch_sub_explicit(&in_io, 1, memory_order_relaxed);
    if (fd < 0 || fd >= MAXFD || off + len > REGION)
        return;
    for (uint64_t g = off / GRAIN; g < (off + len + GRAIN - 1) / GRAIN; g++)
        atomic_fetch_sub_explicit(&guard[fd][g], write ? WRITER : 1, memory_order_relaxed);
}

static uint64_t iov_len(const struct iovec *iov, int n)
{
    uint64_t len = 0;
    for (int i = 0; i < n; i++)
        len += iov[i].iov_len;
    return len;
}

/* With _FILE_OFFSET_BITS=64 (set by the MPI or HDF5 flags) the library
 * calls pwritev64/preadv64; wrap both spellings. */
#define WRAP(name, write)                                                                                              \
    ssize_t __real_##name(int fd, const struct iovec *iov, int n, off_t off);                                          \
    ssize_t __wrap_##name(int fd, const struct iovec *iov, int n, off_t off);                                          \
    ssize_t __wrap_##name(int fd, const struct iovec *iov, int n, off_t off)                                           \
    {                                                                                                                  \
        uint64_t len = iov_len(iov, n);                                                                                \
        guard_enter(fd, (uint64_t)off, len, write);                                                                    \
        ssize_t k   = __real_##name(fd, iov, n, off);                                                                  \
        int     err = errno;                                                                                           \
        guard_leave(fd, (uint64_t)off, len, write);                                                                    \
        errno = err;                                                                                                   \
        return k;                                                                                                      \
    }
WRAP(pwritev, true)
WRAP(pwritev64, true)
WRAP(preadv, false)
WRAP(preadv64, false)

/* ---- contexts without MPI ------------------------------------------------ */

typedef struct {
    h5sf_ioc_ctx_t *ctx;
    uint32_t        file_id, subfile;
    char            path[4096];
    uv_mutex_t      order;       /* held across each admission            */
    unsigned char   ref[REGION]; /* the serial model; zero past size      */
    uint64_t        size;
} sub_t;

static const char     *dir;
static h5sf_ioc_ctx_t *ctxs[NCTX];
static sub_t           subs[NCTX * NSUB];

static h5sf_ioc_ctx_t *ctx_new(void)
{
    h5sf_errbuf_t   e;
    h5sf_ioc_ctx_t *ctx = ioc_ctx_new(0, 1, 60, &e);
    if (!ctx || ioc_workers_start(ctx, NWORKER, &e) < 0) {
        fprintf(stderr, "unit_sched_mt: %s\n", e.msg);
        exit(1);
    }
    ctx->serving = true; /* requests to rank 0 take client.c's self path */
    return ctx;
}

static void ctx_free(h5sf_ioc_ctx_t *ctx)
{
    atomic_store(&ctx->stop, true);
    ioc_workers_stop(ctx);
    CHECK(!ctx->sfs, "a subfile is still registered at the end");
    ioc_ctx_free(ctx, false);
}

static void sub_open(sub_t *s, h5sf_ioc_ctx_t *ctx, uint32_t file_id, uint32_t subfile)
{
    h5sf_errbuf_t e;
    memset(s->ref, 0, sizeof s->ref);
    s->ctx = ctx, s->file_id = file_id, s->subfile = subfile, s->size = 0;
    snprintf(s->path, sizeof s->path, "%s/sched_mt_%p_%u_%u", dir, (void *)ctx, file_id, subfile);
    CHECK(h5sf_ioc_subfile_open(ctx, file_id, subfile, s->path, O_RDWR | O_CREAT | O_TRUNC, &e) == 0, "%s", e.msg);
}

/* The files must equal the model once everything has completed. */
static void sub_close(sub_t *s)
{
    h5sf_errbuf_t e;
    struct stat   st;
    unsigned char buf[REGION];
    int           fd = open(s->path, O_RDONLY);
    CHECK(fd >= 0 && fstat(fd, &st) == 0, "cannot check %s", s->path);
    if (fd >= 0) {
        CHECK((uint64_t)st.st_size == s->size, "%s: %lld bytes, the model has %llu", s->path, (long long)st.st_size,
              (unsigned long long)s->size);
        memset(buf, 0, sizeof buf);
        CHECK(pread(fd, buf, sizeof buf, 0) >= 0 && !memcmp(buf, s->ref, sizeof buf),
              "%s differs from the serial model", s->path);
        close(fd);
    }
    CHECK(h5sf_ioc_subfile_close(s->ctx, s->file_id, s->subfile, &e) == 0, "%s", e.msg);
    unlink(s->path);
}

/* ---- requests ------------------------------------------------------------ */

typedef struct {
    h5sf_ioc_client_req_t *q;
    sub_t                 *s;
    int                    op;
    uint64_t               seq;
    size_t                 n;
    uint64_t               offs[MAXPIECE], lens[MAXPIECE];
    void                  *bufs[MAXPIECE];
    unsigned char          mem[MAXPIECE][1024], want[MAXPIECE][1024];
} pend_t;

static atomic_ulong next_seq = 1;

/* 1-3 disjoint pieces, GRAIN-aligned, anywhere in the region; ascending in
 * half the requests (sorted requests are compared piece by piece and may be
 * merged by a worker; unsorted ones conflict by extent). */
static void pick_pieces(pend_t *p)
{
    p->n = 1 + t_rnd() % MAXPIECE;
    for (size_t i = 0; i < p->n; i++) {
        bool clash;
        do {
            p->lens[i] = GRAIN * (1 + t_rnd() % (sizeof p->mem[0] / GRAIN));
            p->offs[i] = GRAIN * (t_rnd() % ((REGION - p->lens[i]) / GRAIN + 1));
            clash      = false;
            for (size_t j = 0; j < i; j++)
                clash |= p->offs[i] < p->offs[j] + p->lens[j] && p->offs[j] < p->offs[i] + p->lens[i];
        } while (clash);
    }
    if (t_rnd() % 2)
        for (size_t i = 1; i < p->n; i++) /* insertion sort by offset */
            for (size_t j = i; j > 0 && p->offs[j - 1] > p->offs[j]; j--) {
                uint64_t o = p->offs[j], l = p->lens[j];
                p->offs[j] = p->offs[j - 1], p->lens[j] = p->lens[j - 1];
                p->offs[j - 1] = o, p->lens[j - 1] = l;
            }
    for (size_t i = 0; i < p->n; i++)
        p->bufs[i] = p->mem[i];
}

static void post_rw(pend_t *p, sub_t *s, int op)
{
    h5sf_errbuf_t e;
    p->s  = s;
    p->op = op;
    pick_pieces(p);
    uv_mutex_lock(&s->order);
    p->seq = atomic_fetch_add(&next_seq, 1);
    for (size_t i = 0; i < p->n; i++) {
        if (op == H5SF_IOC_OP_READ) {
            memcpy(p->want[i], s->ref + p->offs[i], p->lens[i]);
            memset(p->mem[i], 0xee, p->lens[i]); /* must all be overwritten */
            continue;
        }
        for (uint64_t b = 0; b < p->lens[i]; b++) /* unique to this write */
            p->mem[i][b] = (unsigned char)((p->seq * 2654435761u) >> (8 * (b % 4))) ^ (unsigned char)b;
        memcpy(s->ref + p->offs[i], p->mem[i], p->lens[i]);
        if (p->offs[i] + p->lens[i] > s->size)
            s->size = p->offs[i] + p->lens[i];
    }
    int rc = h5sf_ioc_post(s->ctx, op, 0, s->file_id, s->subfile, p->n, p->offs, p->lens, p->bufs, &p->q, &e);
    uv_mutex_unlock(&s->order);
    CHECK(rc == 0, "post: %s", e.msg);
    if (rc < 0)
        p->q = NULL;
}

static void finish_rw(pend_t *p)
{
    h5sf_errbuf_t e;
    if (!p->q)
        return;
    CHECK(h5sf_ioc_wait(p->q, &e) == 0, "wait: %s", e.msg);
    p->q = NULL;
    if (p->op != H5SF_IOC_OP_READ)
        return;
    for (size_t i = 0; i < p->n; i++)
        for (uint64_t b = 0; b < p->lens[i]; b++)
            if (p->mem[i][b] != p->want[i][b]) {
                CHECK(0, "read #%llu of %s at %llu: byte %llu is %#x, the serial model has %#x",
                      (unsigned long long)p->seq, p->s->path, (unsigned long long)p->offs[i], (unsigned long long)b,
                      p->mem[i][b], p->want[i][b]);
                break;
            }
}

/* A barrier, admitted under the order lock and awaited without it, so the
 * requests of other clients can queue up behind it (sf->held). */
static void barrier(sub_t *s, int op, uint64_t arg)
{
    h5sf_ioc_ctx_t   *ctx  = s->ctx;
    ioc_self_t        done = {0};
    ioc_server_req_t *r    = calloc(1, sizeof *r);
    uint64_t          want = 0;
    if (!r)
        abort();
    r->h.op      = (uint16_t)op;
    r->h.id      = atomic_fetch_add(&ctx->next_id, 1);
    r->h.file_id = s->file_id;
    r->h.subfile = s->subfile;
    r->h.arg     = arg;
    r->barrier   = true;
    r->self      = &done;
    uv_mutex_lock(&s->order);
    if (op == H5SF_WIRE_GET_SIZE)
        want = s->size;
    if (op == H5SF_WIRE_TRUNCATE) {
        memset(s->ref + arg, 0, REGION - arg);
        s->size = arg;
    }
    bool ok = ioc_submit(ctx, r);
    uv_mutex_unlock(&s->order);
    CHECK(ok, "%s is not served", s->path);
    if (!ok) {
        free(r); /* nothing allocated in it */
        return;
    }
    uint64_t t0 = ioc_now_ns();
    uv_mutex_lock(&ctx->lock);
    while (!done.done && ioc_now_ns() - t0 < 60000000000ull)
        uv_cond_timedwait(&ctx->done_cond, &ctx->lock, 100000000u);
    uv_mutex_unlock(&ctx->lock);
    if (!done.done) {
        fprintf(stderr, "unit_sched_mt: a barrier on %s never ran (deadlock)\n", s->path);
        _exit(1);
    }
    CHECK(done.rep.status == 0, "barrier %d: %s", op, done.rep.msg);
    if (op == H5SF_WIRE_GET_SIZE)
        CHECK(done.rep.value == want, "size query on %s: %llu, the model has %llu", s->path,
              (unsigned long long)done.rep.value, (unsigned long long)want);
}

static void client(void *arg)
{
    pend_t *ring = calloc(DEPTH, sizeof *ring);
    t_rnd_seed(0x9E3779B97F4A7C15ull * (uint64_t)(uintptr_t)arg + 1);
    if (!ring)
        abort();
    for (int i = 0; i < OPS; i++) {
        pend_t  *p    = &ring[i % DEPTH];
        sub_t   *s    = &subs[t_rnd() % (NCTX * NSUB)];
        unsigned kind = (unsigned)(t_rnd() % 100);
        finish_rw(p);
        if (kind < 46)
            post_rw(p, s, H5SF_IOC_OP_WRITE);
        else if (kind < 92)
            post_rw(p, s, H5SF_IOC_OP_READ);
        else if (kind < 95)
            barrier(s, H5SF_WIRE_TRUNCATE, GRAIN * (t_rnd() % (REGION / GRAIN + 1)));
        else if (kind < 99)
            barrier(s, H5SF_WIRE_GET_SIZE, 0);
        else
            barrier(s, H5SF_WIRE_FSYNC, 0);
    }
    for (int i = 0; i < DEPTH; i++)
        finish_rw(&ring[i]);
    free(ring);
}

/* Subfiles come and go on the busy contexts (the subfile table is shared). */
static void churn(void *arg)
{
    (void)arg;
    t_rnd_seed(12345);
    sub_t  *s = malloc(sizeof *s);
    pend_t *p = calloc(2, sizeof *p);
    if (!s || !p)
        abort();
    uv_mutex_init(&s->order);
    for (int i = 0; i < CHURN; i++) {
        sub_open(s, ctxs[i % NCTX], 100 + (uint32_t)i, 0);
        post_rw(&p[0], s, H5SF_IOC_OP_WRITE);
        post_rw(&p[1], s, H5SF_IOC_OP_READ);
        finish_rw(&p[0]);
        finish_rw(&p[1]);
        sub_close(s);
    }
    uv_mutex_destroy(&s->order);
    free(p);
    free(s);
}

int main(int argc, char **argv)
{
    uv_thread_t threads[NCLIENT + 1];
    dir = argc > 1 ? argv[1] : ".";
    t_start("unit_sched_mt");
    t_max_fails = 20; /* several threads may fail at once, and on */
    for (int c = 0; c < NCTX; c++) {
        /* Context 1 may keep one descriptor open: its workers reopen
         * subfiles all the time (set before any thread reads the environment). */
        if (c == 1)
            setenv("H5SF_IOC_MAX_FDS", "1", 1);
        ctxs[c] = ctx_new();
        unsetenv("H5SF_IOC_MAX_FDS");
        for (int k = 0; k < NSUB; k++) {
            uv_mutex_init(&subs[c * NSUB + k].order);
            sub_open(&subs[c * NSUB + k], ctxs[c], 1, (uint32_t)k);
        }
    }
    for (int t = 0; t < NCLIENT; t++)
        uv_thread_create(&threads[t], client, (void *)(uintptr_t)(t + 1));
    uv_thread_create(&threads[NCLIENT], churn, NULL);
    for (int t = 0; t <= NCLIENT; t++)
        uv_thread_join(&threads[t]);
    for (int i = 0; i < NCTX * NSUB; i++) {
        sub_close(&subs[i]);
        uv_mutex_destroy(&subs[i].order);
    }
    for (int c = 0; c < NCTX; c++)
        ctx_free(ctxs[c]);
    /* Without the wrappers or without concurrency this test proves nothing. */
    CHECK(atomic_load(&transfers) > 0, "no transfer went through the guard: pwritev/preadv not wrapped?");
    CHECK(atomic_load(&max_in_io) >= 2, "never more than one transfer at a time");
    printf("unit_sched_mt: %lu transfers, up to %u at once\n", (unsigned long)atomic_load(&transfers),
           atomic_load(&max_in_io));
    return t_verdict();
}
