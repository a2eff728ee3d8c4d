/*
 * bracket.c -- the caller's COBEGIN/COEND bracket (include/h5sf.h): its
 * depth, the IOC channels left in COBEGIN, the jobs posted to the pool and
 * the first failure.  Owns struct h5sf_bracket (f->co: open bracket or
 * NULL); the rest of vfd/ asks it (h5sf.c's ctl, close, flush, truncate;
 * dispatch.c's posting; io.c and finalize.c's drain).  The IOC channel's
 * own requests of a bracket are ioc_channel.c's (its pending list), the
 * pool's batch threadpool.c's; this file only opens and closes them.
 * Must not wait on MPI after MPI_Finalize began.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "threadpool.h"

/* One call's jobs posted in a bracket, on the heap until the bracket
 * drains: the plan's piece lists are reused by the next call, so the
 * pieces are copied, and each job holds a duplicate of its descriptor
 * (samenode.c may close a same-node descriptor that a later call does not use). */
typedef struct posted {
    struct posted  *next;
    bool            is_write;
    int             n;
    int            *subfile; /* of each job        */
    uint64_t       *bytes;   /* of each job        */
    sf_piece_t     *pieces;  /* the jobs' pieces   */
    h5sf_pool_job_t jobs[];
} posted_t;

struct h5sf_bracket {
    int                depth;       /* nested COBEGINs; the outermost COEND waits */
    h5sf_pool_batch_t *batch;       /* the pool's jobs, opened at the first post */
    posted_t          *head, *tail; /* their calls, in post order                */
    unsigned char     *begun;       /* IOC channels left in COBEGIN (per subfile) */
    int                failed;      /* e holds the first failure's cause         */
    h5sf_errbuf_t      e;
};

static void posted_free(posted_t *p)
{
    for (int k = 0; k < p->n; k++)
        if (p->jobs[k].fd >= 0)
            h5sf_sysio_close(p->jobs[k].fd);
    h5sf_free(p->pieces);
    h5sf_free(p);
}

/* Copy jobs[0..n) (subfiles js) to the heap and hand them to the
 * bracket's batch, which runs them without the caller waiting. */
int h5sf_bracket_post(h5sf_file_t *f, bool is_write, const h5sf_pool_job_t *jobs, const int *js, int n,
                      h5sf_errbuf_t *e)
{
    struct h5sf_bracket *b  = f->co;
    size_t               np = 0, at = 0;
    for (int k = 0; k < n; k++)
        np += jobs[k].n;
    posted_t *p = h5sf_calloc(1, sizeof *p + (size_t)n * sizeof *p->jobs);
    if (!p)
        return h5sf_fail(e, ENOMEM, "out of memory posting a transfer of a COBEGIN bracket");
    p->pieces = h5sf_malloc(np * sizeof *p->pieces + (size_t)n * (sizeof *p->bytes + sizeof *p->subfile));
    if (!p->pieces || (!b->batch && !(b->batch = h5sf_pool_open(f->pool_threads)))) {
        h5sf_free(p->pieces);
        h5sf_free(p);
        return h5sf_fail(e, ENOMEM, "out of memory posting a transfer of a COBEGIN bracket");
    }
    p->bytes    = (uint64_t *)(p->pieces + np);
    p->subfile  = (int *)(p->bytes + n);
    p->is_write = is_write;
    for (int k = 0; k < n; k++, p->n++) {
        p->jobs[k]    = jobs[k];
        p->jobs[k].v  = p->pieces + at;
        p->subfile[k] = js[k];
        p->bytes[k]   = f->plan.lists[js[k]].bytes;
        memcpy(p->pieces + at, jobs[k].v, jobs[k].n * sizeof *p->pieces);
        at += jobs[k].n;
        if ((p->jobs[k].fd = h5sf_sysio_dup(jobs[k].fd)) < 0) {
            int err = errno;
            posted_free(p);
            return h5sf_fail(e, err, "cannot duplicate the descriptor of subfile %d: %s", js[k], strerror(err));
        }
    }
    if (b->tail)
        b->tail->next = p;
    else
        b->head = p;
    b->tail = p;
    h5sf_pool_post(b->batch, p->jobs, (size_t)n);
    return 0;
}

static int bracket_open(h5sf_file_t *f, h5sf_errbuf_t *e)
{
    struct h5sf_bracket *b = h5sf_calloc(1, sizeof *b);
    if (!b || !(b->begun = h5sf_calloc((size_t)f->layout.stripe_count, 1))) {
        h5sf_free(b);
        return h5sf_fail(e, ENOMEM, "out of memory opening a COBEGIN bracket");
    }
    f->co = b;
    return 0;
}

/* Keep the bracket's first failure (e's text). */
static void bracket_fail(struct h5sf_bracket *b, const h5sf_errbuf_t *e)
{
    if (!b->failed) {
        b->failed = 1;
        b->e      = *e;
    }
}

int h5sf_bracket_drain(h5sf_file_t *f, h5sf_errbuf_t *e)
{
    struct h5sf_bracket *b = f->co;
    h5sf_errbuf_t        t;
    if (!b)
        return 0;
    /* IOC channels first (by subfile), then this rank's own transfers (in
     * post order): the first failure found is the one reported
     * (include/h5sf.h).  COEND waits for the IOC requests, each within the
     * timeout; the MPI_Finalize hook drains every bracket before its IOCs
     * stop (h5sf.c), after which nothing may wait on MPI. */
    hid_t keep = h5sf_stack_keep();
    for (int s = 0; s < f->layout.stripe_count; s++) {
        if (!b->begun[s])
            continue;
        b->begun[s] = 0;
        if (f->chan && f->chan[s] && !h5sf_mpi_finalizing() &&
            H5FDctl(f->chan[s], H5FD_H5SF_CTL_COEND, 0, NULL, NULL) < 0) {
            h5sf_err_capture(&t, "channel I/O failed");
            bracket_fail(b, &t);
        }
    }
    h5sf_stack_back(keep);
    if (b->batch) {
        uint64_t inflight = 0;
        int      failed   = 0;
        h5sf_pool_close(b->batch, &inflight);
        b->batch = NULL;
        if (inflight > f->stats.cobegin_max_inflight)
            f->stats.cobegin_max_inflight = inflight;
        for (posted_t *p = b->head, *next; p; p = next) {
            next = p->next;
            for (int k = 0; k < p->n; k++)
                failed = h5sf_pio_done(f, p->is_write, &p->jobs[k], p->subfile[k], p->bytes[k], failed, &t);
            posted_free(p);
        }
        b->head = b->tail = NULL;
        if (failed)
            bracket_fail(b, &t);
    }
    if (b->failed)
        *e = b->e;
    return b->failed ? -1 : 0;
}

/* Drain and free the bracket, whatever its depth. */
int h5sf_bracket_close(h5sf_file_t *f, h5sf_errbuf_t *e)
{
    int ret = h5sf_bracket_drain(f, e);
    if (f->co) {
        h5sf_free(f->co->begun);
        h5sf_free(f->co);
        f->co = NULL;
    }
    return ret;
}


void h5sf_bracket_mark(h5sf_file_t *f, int s) { f->co->begun[s] = 1; }

int h5sf_bracket_begin(h5sf_file_t *f, h5sf_errbuf_t *e)
{
    if (f->co_finalized)
        return h5sf_fail(e, 0,
                         "COBEGIN on %s: MPI was finalized while a COBEGIN bracket was open on it; nothing but "
                         "H5FDclose can follow",
                         f->name);
    if (!f->co && bracket_open(f, e) < 0)
        return -1;
    f->co->depth++;
    return 0;
}

int h5sf_bracket_end(h5sf_file_t *f, h5sf_errbuf_t *e)
{
    if (!f->co)
        return H5SF_BRACKET_NONE;
    if (f->co_finalized) /* MPI_Finalize's hook waited for it: report that, once */
        return h5sf_bracket_close(f, e) < 0 ? H5SF_BRACKET_FINALIZED_FAILED : H5SF_BRACKET_FINALIZED;
    if (--f->co->depth > 0)
        return 0;
    return h5sf_bracket_close(f, e) < 0 ? H5SF_BRACKET_FAILED : 0;
}
