/*
 * threadpool.c -- a thread pool for the subfile I/O h5sf does itself (the
 * direct channel, and the IOC channel's same-node shortcut, samenode.c): one
 * call's jobs run together, and a caller's COBEGIN/COEND bracket keeps its
 * jobs in flight as one batch (h5sf_pool_open/post/close).
 *
 * A call's per-subfile jobs go to a small process-wide pool of plain
 * threads fed by one queue; the calling thread runs the first job itself,
 * then any still queued, and waits for the rest.  Workers only cut the
 * pieces into runs (common/runs.c) for common/sysio.c's pwritev/preadv loop and leave
 * errno and the failed range in the job: the caller turns them into HDF5
 * errors.  Workers are started on
 * demand, never more than H5SF_POOL_MAX_THREADS; a call names how many may
 * work on it at once (H5SF_POOL_THREADS), and they are stopped by
 * h5sf_pool_shutdown (driver terminate, MPI_Finalize).  A forked child
 * has none of its parent's workers: the first run there starts afresh.
 *
 * Threads, mutexes and condition variables are libuv's, as in ioc/ and
 * tools/; POSIX calls remain only where libuv 1.44 has no primitive: the
 * workers' signal mask and their name.
 */
#include <errno.h>
#include <pthread.h> /* pthread_sigmask, pthread_setname_np: no libuv primitive */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>
#include <uv.h>
#include "threadpool.h"
#include "../common/alloc.h"
#include "../common/runs.h"
#include "../common/sysio.h"

/* One call's jobs in flight; lives on the caller's stack, or on the heap
 * for a caller's COBEGIN/COEND bracket (h5sf_pool_open). */
typedef struct call {
    uv_mutex_t mu;
    uv_cond_t  cv;
    int        limit;      /* most workers on it at once */
    int        workers;    /* workers on it now (P.mu)   */
    size_t     n, pending; /* jobs; not yet finished   */
    size_t     started;    /* jobs that began          */
    size_t     running, max_running;
    long       overlap_ms; /* test hook, below          */
    bool       open;       /* a bracket: more jobs may come (c->mu) */
} call_t;

static struct {
    uv_mutex_t       mu; /* made by pool_init: libuv has no static initializer */
    uv_cond_t        cv;
    h5sf_pool_job_t *head, *tail; /* queued jobs */
    uv_thread_t      th[H5SF_POOL_MAX_THREADS];
    int              nthreads;
    bool             stop;
    pid_t            pid; /* process that started the workers */
} P;
static uv_once_t pool_once = UV_ONCE_INIT;

static void pool_init(void)
{
    uv_mutex_init(&P.mu);
    uv_cond_init(&P.cv);
}

/* P.mu, made on first use. */
static void pool_lock(void)
{
    uv_once(&pool_once, pool_init);
    uv_mutex_lock(&P.mu);
}

/* ---- the transfer (any thread; no HDF5) --------------------------------- */

/* Piece i of job arg (runs.h); a job never skips one. */
static bool job_piece(void *arg, size_t i, h5sf_run_piece_t *p)
{
    const sf_piece_t *v = &((const h5sf_pool_job_t *)arg)->v[i];
    p->off              = v->off;
    p->len              = v->len;
    p->mem              = (void *)(uintptr_t)v->mem;
    return true;
}

/* Run job j: its pieces cut into runs (common/runs.c), one pwritev/preadv
 * each (common/sysio.c); stops at the first failure. */
static void transfer(h5sf_pool_job_t *j)
{
    h5sf_runs_t       r;
    h5sf_sysio_xfer_t x = {.fd = j->fd, .is_write = j->is_write, .fault_rank = j->fault_rank};
    h5sf_runs_init(&r, j->n, job_piece, j);
    while (h5sf_runs_next(&r))
        if (h5sf_sysio_xferv(&x, r.iov, r.niov, r.off) < 0) {
            j->err     = errno ? errno : EIO;
            j->err_off = r.off;
            j->err_len = r.len;
            return;
        }
}

/* Run one job of call c, counting it as running.  The overlap test hook
 * (H5SF_FAULT="op=overlap,ms=N") holds each job, for at most N ms, until
 * every job of its call has started (of a bracket: until it is closed and
 * all have started): a test then sees all of them running at once,
 * without timing anything. */
static void job_begin(call_t *c)
{
    uv_mutex_lock(&c->mu);
    c->started++;
    if (++c->running > c->max_running)
        c->max_running = c->running;
    if (c->overlap_ms > 0) {
        uint64_t until = uv_hrtime() + (uint64_t)c->overlap_ms * 1000000u, now;
        uv_cond_broadcast(&c->cv);
        while ((c->started < c->n || c->open) && (now = uv_hrtime()) < until)
            uv_cond_timedwait(&c->cv, &c->mu, until - now);
    }
    uv_mutex_unlock(&c->mu);
}

/* The job's transfer is over (no longer in flight). */
static void job_stop(call_t *c)
{
    uv_mutex_lock(&c->mu);
    c->running--;
    uv_mutex_unlock(&c->mu);
}

/* The job is done: once the last one is, the caller may return. */
static void job_done(call_t *c)
{
    uv_mutex_lock(&c->mu);
    if (--c->pending == 0)
        uv_cond_broadcast(&c->cv);
    uv_mutex_unlock(&c->mu); /* c may be gone after this */
}

static void run_job(call_t *c, h5sf_pool_job_t *j)
{
    job_begin(c);
    transfer(j);
    job_stop(c);
    job_done(c);
}

/* ---- the pool ------------------------------------------------------------ */

/* Under P.mu: j may be taken by its own caller c, or (c NULL) by a worker
 * while fewer than its call's limit of workers are on that call. */
static bool takeable(const h5sf_pool_job_t *j, const call_t *c)
{
    const call_t *jc = j->call;
    return c ? jc == c : jc->workers < jc->limit;
}

/* Under P.mu: the first queued job takeable by c, unlinked, or NULL. */
static h5sf_pool_job_t *dequeue(const call_t *c)
{
    h5sf_pool_job_t **pp = &P.head, *prev = NULL;
    while (*pp && !takeable(*pp, c)) {
        prev = *pp;
        pp   = &(*pp)->next;
    }
    h5sf_pool_job_t *j = *pp;
    if (j) {
        *pp = j->next;
        if (P.tail == j)
            P.tail = prev;
        j->next = NULL;
    }
    return j;
}

static void worker(void *arg)
{
    (void)arg;
    uv_mutex_lock(&P.mu);
    for (;;) {
        h5sf_pool_job_t *j;
        while (!(j = dequeue(NULL)) && !P.stop)
            uv_cond_wait(&P.cv, &P.mu);
        if (!j)
            break;
        call_t *c = j->call;
        c->workers++;
        uv_mutex_unlock(&P.mu);
        job_begin(c);
        transfer(j);
        job_stop(c);
        /* Off the call before the job counts as done (c lives until then);
         * a job held back by the limit may go now. */
        uv_mutex_lock(&P.mu);
        c->workers--;
        if (P.head)
            uv_cond_broadcast(&P.cv);
        uv_mutex_unlock(&P.mu);
        job_done(c);
        uv_mutex_lock(&P.mu);
    }
    uv_mutex_unlock(&P.mu);
}

/* In a forked child the parent's workers do not exist, and P.mu may have
 * been held by one of them at the fork: start from nothing. */
static void forget_if_forked(void)
{
    if (P.nthreads == 0 || P.pid == getpid())
        return;
    uv_mutex_init(&P.mu);
    uv_cond_init(&P.cv);
    P.head = P.tail = NULL;
    P.nthreads      = 0;
    P.stop          = false;
}

/* Under P.mu: at least `want` workers (fewer if threads cannot be made:
 * the caller then runs what is left itself).  Workers take no signals. */
static void grow(int want)
{
    if (want > H5SF_POOL_MAX_THREADS)
        want = H5SF_POOL_MAX_THREADS;
    if (P.nthreads >= want)
        return;
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    while (P.nthreads < want && uv_thread_create(&P.th[P.nthreads], worker, NULL) == 0)
        pthread_setname_np(P.th[P.nthreads++], "h5sf-pool"); /* for top -H, gdb, and tests that look for ours */
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    P.pid = getpid();
}

void h5sf_pool_run(h5sf_pool_job_t *jobs, size_t n, int threads, uint64_t *max_inflight)
{
    *max_inflight = 0;
    if (n == 0)
        return;
    if (threads <= 0 || n == 1) { /* one after another on this thread: nothing shared */
        for (size_t i = 0; i < n; i++) {
            jobs[i].err  = 0;
            jobs[i].call = NULL;
            jobs[i].next = NULL;
            transfer(&jobs[i]);
        }
        *max_inflight = 1;
        return;
    }
    call_t c = {.n = n, .pending = n, .limit = threads};
    uv_mutex_init(&c.mu);
    uv_cond_init(&c.cv);
    for (size_t i = 0; i < n; i++) {
        jobs[i].err  = 0;
        jobs[i].call = &c;
        jobs[i].next = NULL;
    }
    c.overlap_ms = h5sf_fault_ms("overlap");
    forget_if_forked();
    pool_lock();
    for (size_t i = 1; i < n; i++) {
        if (P.tail)
            P.tail->next = &jobs[i];
        else
            P.head = &jobs[i];
        P.tail = &jobs[i];
    }
    grow((int)(n - 1) < threads ? (int)(n - 1) : threads);
    uv_cond_broadcast(&P.cv);
    uv_mutex_unlock(&P.mu);

    /* The first job here, then whatever no worker took yet. */
    run_job(&c, &jobs[0]);
    for (;;) {
        pool_lock();
        h5sf_pool_job_t *j = dequeue(&c);
        uv_mutex_unlock(&P.mu);
        if (!j)
            break;
        run_job(&c, j);
    }
    uv_mutex_lock(&c.mu);
    while (c.pending > 0)
        uv_cond_wait(&c.cv, &c.mu);
    *max_inflight = c.max_running;
    uv_mutex_unlock(&c.mu);
    uv_cond_destroy(&c.cv);
    uv_mutex_destroy(&c.mu);
}

/* ---- a bracket: jobs of several calls, waited for together ------------- */

struct h5sf_pool_batch {
    call_t c;
};

h5sf_pool_batch_t *h5sf_pool_open(int threads)
{
    h5sf_pool_batch_t *b = h5sf_calloc(1, sizeof *b);
    if (!b)
        return NULL;
    b->c.limit      = threads;
    b->c.open       = threads > 0; /* without workers every job has run when posted */
    b->c.overlap_ms = threads > 0 ? h5sf_fault_ms("overlap") : 0;
    uv_mutex_init(&b->c.mu);
    uv_cond_init(&b->c.cv);
    return b;
}

void h5sf_pool_post(h5sf_pool_batch_t *b, h5sf_pool_job_t *jobs, size_t n)
{
    call_t *c = &b->c;
    if (n == 0)
        return;
    for (size_t i = 0; i < n; i++) {
        jobs[i].err  = 0;
        jobs[i].call = c;
        jobs[i].next = NULL;
    }
    uv_mutex_lock(&c->mu);
    c->n += n;
    c->pending += n;
    uv_mutex_unlock(&c->mu);
    if (c->limit <= 0) {
        for (size_t i = 0; i < n; i++)
            run_job(c, &jobs[i]);
        return;
    }
    forget_if_forked();
    pool_lock();
    for (size_t i = 0; i < n; i++) {
        if (P.tail)
            P.tail->next = &jobs[i];
        else
            P.head = &jobs[i];
        P.tail = &jobs[i];
    }
    grow(c->n < (size_t)c->limit ? (int)c->n : c->limit); /* only this thread changes c->n */
    uv_cond_broadcast(&P.cv);
    uv_mutex_unlock(&P.mu);
}

void h5sf_pool_close(h5sf_pool_batch_t *b, uint64_t *max_inflight)
{
    call_t *c = &b->c;
    uv_mutex_lock(&c->mu);
    c->open = false; /* the overlap hook stops waiting for more jobs */
    uv_cond_broadcast(&c->cv);
    uv_mutex_unlock(&c->mu);
    for (;;) { /* what no worker took yet (none could be made) */
        pool_lock();
        h5sf_pool_job_t *j = dequeue(c);
        uv_mutex_unlock(&P.mu);
        if (!j)
            break;
        run_job(c, j);
    }
    uv_mutex_lock(&c->mu);
    while (c->pending > 0)
        uv_cond_wait(&c->cv, &c->mu);
    *max_inflight = c->max_running;
    uv_mutex_unlock(&c->mu);
    uv_cond_destroy(&c->cv);
    uv_mutex_destroy(&c->mu);
    h5sf_free(b);
}

void h5sf_pool_shutdown(void)
{
    forget_if_forked();
    pool_lock();
    P.stop = true;
    uv_cond_broadcast(&P.cv);
    int n = P.nthreads;
    uv_mutex_unlock(&P.mu);
    for (int i = 0; i < n; i++)
        uv_thread_join(&P.th[i]);
    pool_lock();
    P.nthreads = 0;
    P.stop     = false;
    uv_mutex_unlock(&P.mu);
}

int h5sf_pool_threads(void)
{
    pool_lock();
    int n = P.nthreads;
    uv_mutex_unlock(&P.mu);
    return n;
}
