/*
 * dispatch.c -- running a plan on the channels: per touched subfile, a
 * vector call on its IOC channel (vec_*) or a job for the pool on a
 * descriptor (pio_*: the direct channel, the same-node shortcut), all in
 * flight together; inside the caller's bracket the jobs are posted
 * (bracket.c) instead of waited for.  Owns the file's vector arrays
 * (f->vec) and job arrays' contents for one call; opens and closes no
 * channel (channel.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "threadpool.h"

/* The vector arrays of one subfile's list (IOC channel), kept with the
 * file and grown as needed: the channel copies what it keeps, so the next
 * subfile and the next call reuse them. */
#define VEC_KEEP 4096 /* pieces whose arrays stay with the file (28 bytes each) */
typedef struct h5sf_vecbuf {
    haddr_t    *addrs;
    size_t     *sizes;
    void      **bufs;
    H5FD_mem_t *types;
    size_t      cap;
} vecbuf_t;

static int vec_fill(vecbuf_t *v, const sf_list_t *l, haddr_t *end, h5sf_errbuf_t *e)
{
    if (l->n > v->cap) {
        h5sf_free(v->addrs);
        h5sf_free(v->sizes);
        h5sf_free(v->bufs);
        h5sf_free(v->types);
        v->cap   = l->n;
        v->addrs = h5sf_malloc(v->cap * sizeof *v->addrs);
        v->sizes = h5sf_malloc(v->cap * sizeof *v->sizes);
        v->bufs  = h5sf_malloc(v->cap * sizeof *v->bufs);
        v->types = h5sf_malloc(v->cap * sizeof *v->types);
        if (!v->addrs || !v->sizes || !v->bufs || !v->types) {
            v->cap = 0;
            return h5sf_fail(e, ENOMEM, "out of memory building subfile vectors");
        }
    }
    *end = 0;
    for (size_t j = 0; j < l->n; j++) {
        v->addrs[j] = l->v[j].off;
        v->sizes[j] = l->v[j].len;
        v->bufs[j]  = (void *)(uintptr_t)l->v[j].mem;
        v->types[j] = H5FD_MEM_DRAW;
        if (v->addrs[j] + v->sizes[j] > *end)
            *end = v->addrs[j] + v->sizes[j];
    }
    return 0;
}

/* One vector call on channel ch (a few if a list ever held more than
 * H5SF_MAX_PIECES; io.c's rounds keep it below). */
static int vec_run(h5sf_file_t *f, int s, H5FD_t *ch, bool is_write, const sf_list_t *l, vecbuf_t *v, h5sf_errbuf_t *e)
{
    for (size_t j = 0; j < l->n;) {
        uint32_t n = (uint32_t)((l->n - j) > H5SF_MAX_PIECES ? H5SF_MAX_PIECES : (l->n - j));
        herr_t   r = is_write
                         ? H5FDwrite_vector(ch, H5P_DEFAULT, n, v->types + j, v->addrs + j, v->sizes + j,
                                            (const void **)(v->bufs + j))
                         : H5FDread_vector(ch, H5P_DEFAULT, n, v->types + j, v->addrs + j, v->sizes + j, v->bufs + j);
        if (r < 0) {
            h5sf_err_capture(e, "channel I/O failed");
            return -1;
        }
        j += n;
    }
    h5sf_count_subfile_call(f, s, is_write, l->bytes);
    return 0;
}

/* Subfile s's list on descriptor fd as a job for the pool (threadpool.c).
 * Direct-channel jobs honour H5SF_FAULT pwrite/pread (rank: this rank),
 * same-node shortcuts do not: there it names an IOC. */
static void pio_fill(h5sf_file_t *f, int s, int fd, bool is_write, h5sf_pool_job_t *j)
{
    memset(j, 0, sizeof *j);
    j->fd         = fd;
    j->is_write   = is_write;
    j->v          = f->plan.lists[s].v;
    j->n          = f->plan.lists[s].n;
    j->fault_rank = f->channel == H5FD_H5SF_CHANNEL_IOC ? -1 : f->rank;
}

/* Whether a call's jobs run together (threadpool.h): when there are enough bytes
 * per job, unless they are sparse writes.  A strided write is many small
 * copies into the page cache; every rank writing every subfile at once
 * puts all of them on each file's lock (local file systems serialize
 * buffered writes to one file), and one subfile after another, each rank
 * starting at a different one, was faster (measured: docs/performance-history.md,
 * Figures behind constants, sparse writes in turn). */
static bool run_together(const h5sf_file_t *f, bool is_write, const int *subfile, int n)
{
    uint64_t bytes = 0, pieces = 0, extent = 0;
    for (int k = 0; k < n; k++) {
        const sf_list_t *l = &f->plan.lists[subfile[k]];
        bytes += l->bytes;
        pieces += l->n;
        if (l->n)
            extent += sf_list_end(l) - l->v[0].off; /* sorted by offset */
    }
    if (bytes < H5SF_POOL_MIN_BYTES * (uint64_t)n)
        return false;
    return !is_write || !h5sf_sparse(pieces, extent, bytes);
}

/* Run the jobs (together or not: run_together); count them and report the first failure. */
static int pio_run(h5sf_file_t *f, bool is_write, h5sf_pool_job_t *jobs, const int *subfile, int n, h5sf_errbuf_t *e)
{
    uint64_t inflight = 0;
    int      failed   = 0;
    h5sf_pool_run(jobs, (size_t)n, run_together(f, is_write, subfile, n) ? f->pool_threads : 0, &inflight);
    if (inflight > f->stats.cobegin_max_inflight)
        f->stats.cobegin_max_inflight = inflight;
    for (int k = 0; k < n; k++)
        failed = h5sf_pio_done(f, is_write, &jobs[k], subfile[k], f->plan.lists[subfile[k]].bytes, failed, e);
    return failed ? -1 : 0;
}

/* Rotate jobs[0..n) and their subfile numbers left by r, in place: three
 * reversals, O(n) (a call may touch thousands of subfiles). */
static void reverse_jobs(h5sf_pool_job_t *jobs, int *js, int a, int b)
{
    for (; a < --b; a++) {
        h5sf_pool_job_t j = jobs[a];
        int             s = js[a];
        jobs[a] = jobs[b], js[a] = js[b];
        jobs[b] = j, js[b] = s;
    }
}
static void rotate_jobs(h5sf_pool_job_t *jobs, int *js, int n, int r)
{
    if (r <= 0 || r >= n)
        return;
    reverse_jobs(jobs, js, 0, r);
    reverse_jobs(jobs, js, r, n);
    reverse_jobs(jobs, js, 0, n);
}

/* Run a plan: one transfer per touched subfile, all in flight together --
 * IOC requests posted first, in subfile order, then this rank's own
 * transfers on the pool, each rank starting at another subfile (the
 * reasons: docs/architecture.md, "The path of one H5Dwrite, step by
 * step").  In the caller's bracket (`post`, f->co) nothing is waited for
 * here (h5sf_bracket_post) until h5sf_bracket_drain.  Returns -1 with the first
 * failure's text. */
static int dispatch(h5sf_file_t *f, bool is_write, bool post, h5sf_errbuf_t *e)
{
    sf_plan_t *p      = &f->plan;
    int        failed = 0, nt = p->ntouched, nj = 0;
    const bool ioc     = f->channel == H5FD_H5SF_CHANNEL_IOC;
    const bool posting = post && f->co;
    const bool co      = ioc && (nt > 1 || posting);

    if (f->co_finalized)
        return h5sf_fail(e, 0,
                         "MPI was finalized while a COBEGIN bracket was open on %s (MPI_Finalize waited for its "
                         "transfers); nothing but H5FDclose can follow",
                         f->name);
    if (f->xcur) { /* one more round of the running call (its report) */
        f->xcur->rounds++;
        f->xcur->pieces_in += p->pieces_in;
    }
    if (co)
        for (int i = 0; i < nt; i++) {
            H5FDctl(f->chan[p->touched[i]], H5FD_H5SF_CTL_COBEGIN, 0, NULL, NULL);
            if (posting)
                h5sf_bracket_mark(f, p->touched[i]);
        }

    h5sf_samenode_begin();
    /* IOC requests are posted here; the rest become jobs, run below. */
    h5sf_pool_job_t *jobs = f->jobs; /* made at open: small calls pay no malloc */
    int             *js   = f->js;
    for (int k = 0; k < nt && !failed; k++) {
        int        s   = p->touched[k];
        sf_list_t *l   = &p->lists[s];
        haddr_t    end = 0;
        int        fd  = ioc ? h5sf_samenode_fd(f, s, is_write, l, sf_list_end(l)) : f->fd[s];
        if (fd >= 0) {
            if (ioc)
                is_write ? f->stats.samenode_writes++ : f->stats.samenode_reads++;
            pio_fill(f, s, fd, is_write, &jobs[nj]);
            js[nj++] = s;
            h5sf_report_add(f, s, h5sf_report_via(f, s, ioc), l->n, l->bytes);
            continue;
        }
        if ((!f->vec && !(f->vec = h5sf_calloc(1, sizeof *f->vec))) || vec_fill(f->vec, l, &end, e) < 0) {
            if (!f->vec)
                h5sf_fail(e, ENOMEM, "out of memory building subfile vectors");
            failed = 1;
            break;
        }
        /* HDF5 checks every vector against the channel's EOA. */
        if (end > f->chan_eoa[s]) {
            if (H5FDset_eoa(f->chan[s], H5FD_MEM_DRAW, end) < 0) {
                failed = h5sf_fail(e, 0, "cannot extend subfile %d's EOA", s) < 0;
                break;
            }
            f->chan_eoa[s] = end;
        }
        h5sf_report_add(f, s, h5sf_report_via(f, s, false), l->n, l->bytes);
        if (vec_run(f, s, f->chan[s], is_write, l, f->vec, e) < 0)
            failed = 1;
    }
    if (!failed && nj) {
        rotate_jobs(jobs, js, nj, f->rank % nj);
        if ((posting ? h5sf_bracket_post(f, is_write, jobs, js, nj, e) : pio_run(f, is_write, jobs, js, nj, e)) < 0)
            failed = 1;
    }
    if (co && !posting)
        for (int i = 0; i < nt; i++)
            if (H5FDctl(f->chan[p->touched[i]], H5FD_H5SF_CTL_COEND, 0, NULL, NULL) < 0 && !failed) {
                h5sf_err_capture(e, "channel I/O failed");
                failed = 1;
            }
    if (f->vec && f->vec->cap > VEC_KEEP) /* a huge call's arrays go with it */
        h5sf_channels_free(f);
    return failed ? -1 : 0;
}

int h5sf_channels_dispatch(h5sf_file_t *f, bool is_write, bool post, h5sf_errbuf_t *e)
{
    hid_t keep = f->channel == H5FD_H5SF_CHANNEL_IOC ? h5sf_stack_keep() : H5I_INVALID_HID;
    int   ret  = dispatch(f, is_write, post, e);
    h5sf_stack_back(keep);
    return ret;
}

void h5sf_channels_free(h5sf_file_t *f)
{
    if (f->vec) {
        h5sf_free(f->vec->addrs);
        h5sf_free(f->vec->sizes);
        h5sf_free(f->vec->bufs);
        h5sf_free(f->vec->types);
        h5sf_free(f->vec);
        f->vec = NULL;
    }
}
