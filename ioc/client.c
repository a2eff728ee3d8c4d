/*
 * client.c -- the requesting side of the IOC protocol.
 *
 * A request is three non-blocking operations: the header send, the payload
 * (a send from the caller's buffers for writes, a receive into them for
 * reads; both described by one derived datatype), and the reply receive.
 * Receives are posted before the header leaves, so an IOC never waits for a
 * client to post.  Each request has its own tag pair, so replies of requests
 * in flight at once cannot be confused.  Every wait is bounded by the
 * context's timeout: an IOC that never answers becomes an error, not a hang.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

struct h5sf_ioc_req {
    h5sf_ioc_ctx_t *ctx;
    int             op, ioc, tag;
    uint32_t        file_id, subfile;
    uint64_t        total;
    MPI_Request     r[3]; /* header send, payload, reply receive */
    MPI_Datatype    dt;
    unsigned char  *hdr;
    unsigned char   reply[H5SF_WIRE_REPLY_SIZE];
};

static const char *opname(int op)
{
    switch (op) {
        case H5SF_WIRE_WRITE: return "write";
        case H5SF_WIRE_READ: return "read";
        case H5SF_WIRE_GET_SIZE: return "size query";
        case H5SF_WIRE_TRUNCATE: return "truncate";
        case H5SF_WIRE_FSYNC: return "fsync";
        default: return "request";
    }
}

static void req_free(h5sf_ioc_req_t *q)
{
    ioc_dtype_free(&q->dt);
    free(q->hdr);
    free(q);
}

static int post(h5sf_ioc_ctx_t *ctx, int op, int ioc, uint32_t file_id, uint32_t subfile, uint64_t arg,
                size_t count, const uint64_t *offs, const uint64_t *lens, void *const *bufs, h5sf_ioc_req_t **out,
                h5sf_errbuf_t *e)
{
    h5sf_ioc_req_t *q = calloc(1, sizeof *q);
    h5sf_wire_hdr_t h;
    size_t          msz;
    void           *base  = NULL;
    int             n     = 0;
    uint64_t        total = 0;

    if (!q)
        return h5sf_fail(e, ENOMEM, "out of memory posting an IOC request");
    for (size_t i = 0; i < count; i++)
        total += lens[i];
    uint64_t id  = atomic_fetch_add(&ctx->next_id, 1);
    int      span = (ctx->tag_ub - H5SF_TAG_FIRST) / 2;
    memset(&h, 0, sizeof h);
    h.op      = (uint16_t)op;
    h.id      = id;
    h.file_id = file_id;
    h.subfile = subfile;
    h.count   = count;
    h.total   = total;
    h.arg     = arg;
    h.tag     = H5SF_TAG_FIRST + 2 * (int)(id % (uint64_t)span);
    if (op == H5SF_WIRE_WRITE && total <= H5SF_WIRE_INLINE_MAX)
        h.flags = H5SF_WIRE_INLINE;
    *q = (h5sf_ioc_req_t){.ctx = ctx, .op = op, .ioc = ioc, .tag = h.tag, .file_id = file_id, .subfile = subfile,
                          .total = total, .r = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL},
                          .dt = MPI_BYTE};
    msz = h5sf_wire_msg_size(&h);
    if (count > H5SF_WIRE_MAX_COUNT || msz > (size_t)INT_MAX) {
        req_free(q);
        return h5sf_fail(e, EOVERFLOW, "IOC request with %zu pieces is too large for one message", count);
    }
    if (!(q->hdr = malloc(msz))) {
        req_free(q);
        return h5sf_fail(e, ENOMEM, "out of memory for a %zu-byte IOC request", msz);
    }
    h5sf_wire_encode(&h, offs, lens, q->hdr);
    if (h.flags & H5SF_WIRE_INLINE) {
        unsigned char *p = q->hdr + msz - total;
        for (size_t i = 0; i < count; p += lens[i], i++)
            if (lens[i])
                memcpy(p, bufs[i], (size_t)lens[i]);
    }
    else if (total && ioc_dtype_make(count, bufs, lens, &base, &q->dt, &n, e) < 0) {
        req_free(q);
        return -1;
    }

    int rc = MPI_SUCCESS;
    if (op == H5SF_WIRE_READ && total)
        rc = MPI_Irecv(base, n, q->dt, ioc, h.tag + 1, ctx->comm, &q->r[1]);
    if (rc == MPI_SUCCESS)
        rc = MPI_Irecv(q->reply, (int)sizeof q->reply, MPI_BYTE, ioc, h.tag, ctx->comm, &q->r[2]);
    if (rc == MPI_SUCCESS)
        rc = MPI_Isend(q->hdr, (int)msz, MPI_BYTE, ioc, H5SF_TAG_REQ, ctx->comm, &q->r[0]);
    if (rc == MPI_SUCCESS && op == H5SF_WIRE_WRITE && !(h.flags & H5SF_WIRE_INLINE) && total)
        rc = MPI_Isend(base, n, q->dt, ioc, h.tag + 1, ctx->comm, &q->r[1]);
    if (rc != MPI_SUCCESS) {
        /* Nothing useful can be cancelled portably; the request leaks. */
        return h5sf_fail(e, 0, "MPI failed posting a %s to IOC rank %d for subfile %u", opname(op), ioc, subfile);
    }
    uint64_t now = atomic_fetch_add(&ctx->inflight, 1) + 1, max = atomic_load(&ctx->max_inflight);
    while (now > max && !atomic_compare_exchange_weak(&ctx->max_inflight, &max, now))
        ;
    *out = q;
    return 0;
}

static int wait_value(h5sf_ioc_req_t *q, uint64_t *value, h5sf_errbuf_t *e)
{
    h5sf_ioc_ctx_t   *ctx = q->ctx;
    uint64_t          t0 = ioc_now_ns(), limit = (uint64_t)ctx->timeout_s * 1000000000u;
    unsigned          idle = 0;
    int               flag = 0, ret = 0;
    h5sf_wire_reply_t rep;

    /* The reply comes last; once it is here, everything else is too (or, on
     * a failed read, the data will never come). */
    while (!flag) {
        if (MPI_Test(&q->r[2], &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
            ret = h5sf_fail(e, 0, "MPI failed waiting for IOC rank %d", q->ioc);
            goto abandon;
        }
        if (!flag) {
            int f0 = 0;
            MPI_Test(&q->r[0], &f0, MPI_STATUS_IGNORE); /* keep sends moving */
            if (ioc_now_ns() - t0 > limit) {
                ret = h5sf_fail(e, ETIMEDOUT,
                                "no answer from IOC rank %d to a %s of %llu bytes on subfile %u after %d s "
                                "(timeout setting); the IOC is stalled or gone",
                                q->ioc, opname(q->op), (unsigned long long)q->total, q->subfile, ctx->timeout_s);
                goto abandon;
            }
            ioc_backoff(&idle);
        }
    }
    if (h5sf_wire_reply_decode(q->reply, sizeof q->reply, &rep, e) < 0) {
        ret = -1;
        goto abandon;
    }
    if (rep.status != 0) {
        ret = h5sf_fail(e, rep.status > 0 ? rep.status : 0, "%s", rep.msg);
        if (q->op == H5SF_WIRE_READ && q->r[1] != MPI_REQUEST_NULL) {
            MPI_Cancel(&q->r[1]);
            MPI_Wait(&q->r[1], MPI_STATUS_IGNORE);
        }
    }
    MPI_Waitall(2, q->r, MPI_STATUSES_IGNORE);
    if (value)
        *value = rep.value;
    atomic_fetch_sub(&ctx->inflight, 1);
    req_free(q);
    return ret;

abandon:
    /* The IOC may still answer or still read our buffers: receives can be
     * cancelled, sends cannot; leak them rather than free what MPI uses. */
    for (int i = 1; i < 3; i++)
        if (q->r[i] != MPI_REQUEST_NULL && (i == 2 || q->op == H5SF_WIRE_READ)) {
            MPI_Cancel(&q->r[i]);
            MPI_Request_free(&q->r[i]);
        }
    atomic_fetch_sub(&ctx->inflight, 1);
    return -1;
}

int h5sf_ioc_post(h5sf_ioc_ctx_t *ctx, int op, int ioc_rank, uint32_t file_id, uint32_t subfile, size_t count,
                  const uint64_t *offs, const uint64_t *lens, void *const *bufs, h5sf_ioc_req_t **req,
                  h5sf_errbuf_t *e)
{
    if (op != H5SF_IOC_OP_WRITE && op != H5SF_IOC_OP_READ)
        return h5sf_fail(e, EINVAL, "unknown IOC operation %d", op);
    return post(ctx, op, ioc_rank, file_id, subfile, 0, count, offs, lens, bufs, req, e);
}

int h5sf_ioc_wait(h5sf_ioc_req_t *req, h5sf_errbuf_t *e) { return wait_value(req, NULL, e); }

static int control(h5sf_ioc_ctx_t *ctx, int op, int ioc, uint32_t file_id, uint32_t subfile, uint64_t arg,
                   uint64_t *value, h5sf_errbuf_t *e)
{
    h5sf_ioc_req_t *q;
    if (post(ctx, op, ioc, file_id, subfile, arg, 0, NULL, NULL, NULL, &q, e) < 0)
        return -1;
    return wait_value(q, value, e);
}

int h5sf_ioc_get_size(h5sf_ioc_ctx_t *ctx, int ioc_rank, uint32_t file_id, uint32_t subfile, uint64_t *size,
                      h5sf_errbuf_t *e)
{
    return control(ctx, H5SF_WIRE_GET_SIZE, ioc_rank, file_id, subfile, 0, size, e);
}

int h5sf_ioc_truncate(h5sf_ioc_ctx_t *ctx, int ioc_rank, uint32_t file_id, uint32_t subfile, uint64_t size,
                      h5sf_errbuf_t *e)
{
    return control(ctx, H5SF_WIRE_TRUNCATE, ioc_rank, file_id, subfile, size, NULL, e);
}

int h5sf_ioc_fsync(h5sf_ioc_ctx_t *ctx, int ioc_rank, uint32_t file_id, uint32_t subfile, h5sf_errbuf_t *e)
{
    return control(ctx, H5SF_WIRE_FSYNC, ioc_rank, file_id, subfile, 0, NULL, e);
}
