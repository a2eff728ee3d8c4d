/*
 * runs.c -- the run-cutter (runs.h): pieces into pwritev/preadv runs.
 *
 * Invariant: pieces before r->i are done or skipped, and r->po bytes of
 * piece r->i are in runs already.  Must not make system calls nor keep
 * state outside the h5sf_runs_t: a caller may cut on any thread.
 */
#include "runs.h"

void h5sf_runs_init(h5sf_runs_t *r, size_t n, h5sf_run_piece_fn piece, void *arg)
{
    r->n     = n;
    r->piece = piece;
    r->arg   = arg;
    r->i     = 0;
    r->po    = 0;
    r->niov  = 0;
    r->off = r->len = 0;
    r->first = r->last = 0;
}

bool h5sf_runs_next(h5sf_runs_t *r)
{
    h5sf_run_piece_t p;
    for (;; r->i++, r->po = 0) { /* past done, empty and skipped pieces */
        if (r->i >= r->n)
            return false;
        if (r->piece(r->arg, r->i, &p) && p.len > r->po)
            break;
    }
    r->off   = p.off + r->po;
    r->len   = 0;
    r->niov  = 0;
    r->first = r->i;
    do {
        uint64_t m = h5sf_sysio_iov_add(r->iov, &r->niov, H5SF_SYSIO_BATCH, (char *)p.mem + r->po, p.len - r->po);
        r->len += m;
        r->last = r->i;
        if ((r->po += m) < p.len)
            break; /* the iovecs are full inside this piece: resume there */
        r->i++;
        r->po = 0;
    } while (r->i < r->n && r->niov < H5SF_SYSIO_BATCH && r->piece(r->arg, r->i, &p) && p.off == r->off + r->len);
    return true;
}
