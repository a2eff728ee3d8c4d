/*
 * request.c -- the life of a server request (ioc_server_req_t), one verb each:
 * ioc_req_new (from a received message, progress.c, or from this rank's
 * own client, client.c), ioc_req_pieces (its piece list), ioc_req_extent
 * (the range it covers, for ordering), ioc_req_free (once answered, run.c,
 * or refused).  Submitting it is worker.c's ioc_submit, which owns the
 * ready queue; after a true return the request is the workers'.
 *
 * Owns the request's memory and its charge on the queue budget
 * (ctx->qmem); must not queue, order or run it.
 */
#include <errno.h>
#include <stdint.h>
#include "internal.h"

ioc_server_req_t *ioc_req_new(h5sf_ioc_ctx_t *ctx, const h5sf_wire_hdr_t *h, int source, uint64_t cost)
{
    ioc_server_req_t *r = h5sf_calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->h       = *h;
    r->source  = source;
    r->msg_len = cost;
    atomic_fetch_add(&ctx->qmem, cost);
    return r;
}

int ioc_req_pieces(ioc_server_req_t *r, bool with_mem)
{
    uint64_t n = r->h.count;
    if (n && (!(r->offs = h5sf_malloc(2 * n * sizeof *r->offs)) ||
              (with_mem && !(r->mem = h5sf_malloc(n * sizeof *r->mem)))))
        return -1;
    r->lens = r->offs + n;
    return 0;
}

void ioc_req_extent(ioc_server_req_t *r)
{
    uint64_t end = 0;
    r->lo        = UINT64_MAX;
    r->hi        = 0;
    r->sorted    = true;
    for (uint64_t i = 0; i < r->h.count; i++) {
        if (r->offs[i] < end)
            r->sorted = false;
        end = r->offs[i] + r->lens[i];
        if (r->lens[i] == 0)
            continue;
        if (r->offs[i] < r->lo)
            r->lo = r->offs[i];
        if (end > r->hi)
            r->hi = end;
    }
    if (r->lo > r->hi)
        r->lo = r->hi = 0;
    r->barrier = r->h.op != H5SF_WIRE_WRITE && r->h.op != H5SF_WIRE_READ;
}

void ioc_req_free(h5sf_ioc_ctx_t *ctx, ioc_server_req_t *r)
{
    if (!r)
        return;
    if (r->msg_len)
        atomic_fetch_sub(&ctx->qmem, r->msg_len);
    h5sf_free(r->msg);
    h5sf_free(r->offs);
    h5sf_free(r->mem);
    h5sf_free(r->dependents);
    h5sf_free(r);
}
