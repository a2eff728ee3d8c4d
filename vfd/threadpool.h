/*
 * threadpool.h -- subfile I/O that h5sf does itself (the direct channel, and the
 * IOC channel's same-node shortcuts), one job per subfile, run together on
 * a small process-wide pool of threads (threadpool.c).
 *
 * Free of HDF5 and MPI on purpose: the workers never call either (HDF5 is
 * not thread-safe), and the unit test (test/unit_pool.c) runs it under
 * ThreadSanitizer without them.
 */
#ifndef H5SF_VFD_THREADPOOL_H
#define H5SF_VFD_THREADPOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "../common/stripe.h"

/* One subfile's share of a transfer. */
typedef struct h5sf_pool_job {
    /* in */
    int               fd;
    bool              is_write;
    const sf_piece_t *v; /* sorted by offset; mem is an absolute address */
    size_t            n;
    int               fault_rank; /* >= 0: honour H5SF_FAULT pwrite/pread for this rank */
    /* out */
    int      err;     /* 0, or the errno of the failed transfer */
    uint64_t err_off; /* its subfile offset and length */
    uint64_t err_len;
    /* threadpool.c's */
    struct h5sf_pool_job *next;
    void                 *call;
} h5sf_pool_job_t;

/* Calls moving fewer bytes than this per subfile, on average, run their
 * jobs one after another on the caller: below it, waking workers costs
 * more than the overlap gains (measured with test/bench_pool.c:
 * docs/performance-history.md, Figures behind constants, pool threshold). */
#define H5SF_POOL_MIN_BYTES ((uint64_t)64 * 1024)
/* Most workers (H5SF_POOL_THREADS, its default and upper bound); with the
 * caller, at most this + 1 subfiles in flight. */
#define H5SF_POOL_MAX_THREADS 15

/* Run jobs[0..n): with at most `threads` workers of the pool beside the
 * caller, or, with threads 0 (or n 1), in order on the caller.  Every job
 * runs to its end; failures are left in the jobs.  *max_inflight: most
 * jobs that were running at once. */
void h5sf_pool_run(h5sf_pool_job_t *jobs, size_t n, int threads, uint64_t *max_inflight);

/* A caller's COBEGIN/COEND bracket: jobs posted by several calls, run as
 * they come, waited for together.  h5sf_pool_open: NULL if out of memory;
 * `threads` as for h5sf_pool_run (0: each job runs when posted, on the
 * caller).  h5sf_pool_post queues jobs[0..n) and returns without waiting:
 * the jobs, their pieces and descriptors must stay valid until
 * h5sf_pool_close, which runs what no worker took, waits for every job of
 * the bracket, sets *max_inflight as h5sf_pool_run does, and frees b. */
typedef struct h5sf_pool_batch h5sf_pool_batch_t;
h5sf_pool_batch_t             *h5sf_pool_open(int threads);
void                           h5sf_pool_post(h5sf_pool_batch_t *b, h5sf_pool_job_t *jobs, size_t n);
void                           h5sf_pool_close(h5sf_pool_batch_t *b, uint64_t *max_inflight);

/* Stop and join the workers (library close, MPI_Finalize).  In a forked
 * child, forget the parent's workers instead.  The next run starts anew. */
void h5sf_pool_shutdown(void);

/* Workers alive now (for tests). */
int h5sf_pool_threads(void);

#endif
