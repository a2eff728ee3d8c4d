/*
 * worker.c -- the IOC worker pool: libuv threads that execute requests on
 * subfile descriptors and answer the requesting rank.
 *
 * Payload moves in chunks (H5SF_IOC_CHUNK) through one buffer per worker:
 * receive chunk k, write its pieces, receive chunk k+1 ...; reads mirror it.
 * Pieces contiguous in the subfile are contiguous in a chunk too, so each
 * run is one pwrite, looped over short transfers and EINTR.  Reads past EOF
 * give zeros, as HDF5 expects.
 *
 * Requests an IOC rank makes to itself never touch MPI: the worker runs
 * pwritev/preadv straight on the client's buffers (zero copy) and reports
 * through ctx->done_cond.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#include "internal.h"

#define IOV_BATCH 512

void ioc_req_free(ioc_req_t *r)
{
    if (!r)
        return;
    free(r->msg);
    free(r->offs);
    free(r->mem);
    free(r->dependents);
    free(r);
}

/* Wait for a non-blocking operation, giving up if the daemon is stopping
 * (the peer has gone away and will never match it).  0 when complete. */
static int wait_req(h5sf_ioc_ctx_t *ctx, MPI_Request *req)
{
    int      flag = 0;
    unsigned idle = 0;
    while (MPI_Test(req, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS && !flag) {
        if (atomic_load(&ctx->stop)) {
            MPI_Cancel(req);
            MPI_Request_free(req);
            return -1;
        }
        ioc_backoff(&idle);
    }
    return flag ? 0 : -1;
}

static int send_bytes(h5sf_ioc_ctx_t *ctx, const void *buf, uint64_t n, int dest, int tag)
{
    MPI_Request req;
    if (MPI_Isend(buf, (int)n, MPI_BYTE, dest, tag, ctx->comm, &req) != MPI_SUCCESS)
        return -1;
    return wait_req(ctx, &req);
}

static int recv_bytes(h5sf_ioc_ctx_t *ctx, void *buf, uint64_t n, int src, int tag)
{
    MPI_Request req;
    if (MPI_Irecv(buf, (int)n, MPI_BYTE, src, tag, ctx->comm, &req) != MPI_SUCCESS)
        return -1;
    return wait_req(ctx, &req);
}

static uint64_t nchunks(uint64_t total) { return (total + H5SF_IOC_CHUNK - 1) / H5SF_IOC_CHUNK; }
static uint64_t chunk_len(uint64_t total, uint64_t k)
{
    uint64_t left = total - k * H5SF_IOC_CHUNK;
    return left < H5SF_IOC_CHUNK ? left : H5SF_IOC_CHUNK;
}

void ioc_drain_payload(h5sf_ioc_ctx_t *ctx, ioc_req_t *r, uint64_t from)
{
    unsigned char *scratch = malloc(H5SF_IOC_CHUNK);
    for (uint64_t k = from; k < nchunks(r->h.total); k++) {
        uint64_t n = chunk_len(r->h.total, k);
        if (!scratch || recv_bytes(ctx, scratch, n, r->source, H5SF_TAG_WDATA(r->h.tag)) < 0) {
            /* Cannot take it: the client will time out with our error. */
            break;
        }
    }
    free(scratch);
}

static void send_reply(h5sf_ioc_ctx_t *ctx, int source, int tag, const h5sf_wire_reply_t *rep)
{
    unsigned char buf[H5SF_WIRE_REPLY_SIZE];
    h5sf_wire_reply_encode(rep, buf);
    send_bytes(ctx, buf, sizeof buf, source, tag);
}

void ioc_reply_error(h5sf_ioc_ctx_t *ctx, const h5sf_wire_hdr_t *h, int source, int err, const char *msg)
{
    h5sf_wire_reply_t rep;
    memset(&rep, 0, sizeof rep);
    rep.status = err ? err : -1;
    rep.id     = h->id;
    snprintf(rep.msg, sizeof rep.msg, "%s", msg);
    send_reply(ctx, source, h->tag, &rep);
}

/* ---- file I/O ----------------------------------------------------------- */

/* Transfer iov[0..n) at `off`, looping over short transfers and EINTR, with
 * fault injection.  Returns bytes done (reads stop early at EOF) or -1. */
static int64_t xferv(h5sf_ioc_ctx_t *ctx, int op, int fd, struct iovec *iov, int n, uint64_t off)
{
    uint64_t done = 0;
    while (n > 0) {
        int     f = ioc_fault(op == H5SF_WIRE_WRITE ? "pwrite" : "pread", ctx->rank);
        ssize_t k;
        if (f && f != H5SF_FAULT_SHORT) {
            errno = f;
            if (f == EINTR)
                continue;
            return -1;
        }
        if (f == H5SF_FAULT_SHORT && iov[0].iov_len > 1) {
            /* Half of the first buffer only. */
            struct iovec half = {iov[0].iov_base, iov[0].iov_len / 2};
            k = op == H5SF_WIRE_WRITE ? pwritev(fd, &half, 1, (off_t)(off + done))
                                      : preadv(fd, &half, 1, (off_t)(off + done));
        }
        else
            k = op == H5SF_WIRE_WRITE ? pwritev(fd, iov, n, (off_t)(off + done))
                                      : preadv(fd, iov, n, (off_t)(off + done));
        if (k < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        if (k == 0) {
            if (op == H5SF_WIRE_READ)
                break; /* EOF */
            errno = EIO; /* pwrite returning 0 for n > 0: a device error */
            return -1;
        }
        done += (uint64_t)k;
        /* Drop what was transferred from the front of iov. */
        size_t left = (size_t)k;
        while (n > 0 && left >= iov[0].iov_len) {
            left -= iov[0].iov_len;
            iov++;
            n--;
        }
        if (n > 0) {
            iov[0].iov_base = (char *)iov[0].iov_base + left;
            iov[0].iov_len -= left;
        }
    }
    return (int64_t)done;
}

static void io_error(h5sf_ioc_ctx_t *ctx, const ioc_req_t *r, h5sf_wire_reply_t *rep, int err, uint64_t n,
                     uint64_t off)
{
    rep->status = err ? err : EIO;
    snprintf(rep->msg, sizeof rep->msg,
             "IOC rank %d: %s of %llu bytes at offset %llu of subfile %s failed: %s (errno %d)", ctx->rank,
             r->h.op == H5SF_WIRE_WRITE ? "pwrite" : "pread", (unsigned long long)n, (unsigned long long)off,
             r->sf->path, strerror(rep->status), rep->status);
}

/* A cursor over the pieces of a request: piece i, byte po within it. */
typedef struct cursor {
    uint64_t i, po;
} cursor_t;

/* Move n payload bytes between `buf` (or, for local requests with buf NULL,
 * the client's own buffers) and the subfile, starting at the cursor.  Runs
 * of pieces contiguous in the subfile become one pwritev/preadv. */
static int span(h5sf_ioc_ctx_t *ctx, ioc_req_t *r, unsigned char *buf, uint64_t n, cursor_t *c,
                h5sf_wire_reply_t *rep)
{
    struct iovec iov[IOV_BATCH];
    while (n > 0 && c->i < r->h.count) {
        uint64_t off = r->offs[c->i] + c->po, run = 0;
        int      k   = 0;
        /* Gather pieces while they continue the run on disk. */
        while (n > 0 && k < IOV_BATCH && r->offs[c->i] + c->po == off + run) {
            uint64_t m = r->lens[c->i] - c->po;
            if (m > n)
                m = n;
            if (m > (uint64_t)1 << 30)
                m = (uint64_t)1 << 30;
            iov[k].iov_base = buf ? (void *)buf : (char *)r->mem[c->i] + c->po;
            iov[k].iov_len  = (size_t)m;
            k++;
            if (buf)
                buf += m;
            run += m;
            n -= m;
            if ((c->po += m) == r->lens[c->i]) {
                c->i++;
                c->po = 0;
                while (c->i < r->h.count && r->lens[c->i] == 0)
                    c->i++;
                if (c->i >= r->h.count)
                    break;
            }
        }
        struct iovec save[IOV_BATCH];
        memcpy(save, iov, (size_t)k * sizeof *iov); /* xferv consumes iov */
        int64_t got = xferv(ctx, r->h.op, r->sf->fd, iov, k, off);
        if (got < 0) {
            io_error(ctx, r, rep, errno, run, off);
            return -1;
        }
        if ((uint64_t)got < run) { /* EOF: the rest of the run reads as zeros */
            uint64_t skip = (uint64_t)got;
            for (int j = 0; j < k; j++) {
                if (skip >= save[j].iov_len) {
                    skip -= save[j].iov_len;
                    continue;
                }
                memset((char *)save[j].iov_base + skip, 0, save[j].iov_len - skip);
                skip = 0;
            }
        }
    }
    return 0;
}

static void rw(h5sf_ioc_ctx_t *ctx, ioc_req_t *r, unsigned char *wbuf, h5sf_wire_reply_t *rep)
{
    cursor_t c = {0, 0};
    while (c.i < r->h.count && r->lens[c.i] == 0)
        c.i++;
    if (r->local || r->data) { /* the whole payload is addressable already */
        span(ctx, r, r->local ? NULL : r->data, r->h.total, &c, rep);
        return;
    }
    for (uint64_t k = 0; k < nchunks(r->h.total); k++) {
        uint64_t n = chunk_len(r->h.total, k);
        if (r->h.op == H5SF_WIRE_WRITE) {
            if (recv_bytes(ctx, wbuf, n, r->source, H5SF_TAG_WDATA(r->h.tag)) < 0) {
                rep->status = EPIPE;
                snprintf(rep->msg, sizeof rep->msg, "IOC rank %d: lost the write payload from rank %d", ctx->rank,
                         r->source);
                return;
            }
            if (rep->status == 0)
                span(ctx, r, wbuf, n, &c, rep);
            /* After a failure keep receiving: the client's sends must end. */
        }
        else {
            if (span(ctx, r, wbuf, n, &c, rep) < 0)
                return; /* the client cancels its receives on an error */
            if (send_bytes(ctx, wbuf, n, r->source, H5SF_TAG_RDATA(r->h.tag)) < 0)
                return;
        }
    }
}

static void execute(h5sf_ioc_ctx_t *ctx, ioc_req_t *r, unsigned char *wbuf, h5sf_wire_reply_t *rep)
{
    ioc_sf_t   *sf = r->sf;
    struct stat st;
    int         err = 0;
    uint64_t    t0  = ioc_now_ns();

    ioc_fault_delay(ctx);
    switch (r->h.op) {
        case H5SF_WIRE_WRITE:
        case H5SF_WIRE_READ:
            rw(ctx, r, wbuf, rep);
            break;
        case H5SF_WIRE_GET_SIZE:
            if (fstat(sf->fd, &st) < 0)
                err = errno;
            else
                rep->value = (uint64_t)st.st_size;
            if (err)
                snprintf(rep->msg, sizeof rep->msg, "IOC rank %d: fstat of subfile %s failed: %s (errno %d)",
                         ctx->rank, sf->path, strerror(err), err);
            break;
        case H5SF_WIRE_TRUNCATE:
            if (ftruncate(sf->fd, (off_t)r->h.arg) < 0) {
                err = errno;
                snprintf(rep->msg, sizeof rep->msg,
                         "IOC rank %d: truncating subfile %s to %llu bytes failed: %s (errno %d)", ctx->rank,
                         sf->path, (unsigned long long)r->h.arg, strerror(err), err);
            }
            break;
        case H5SF_WIRE_FSYNC: {
            int f = ioc_fault("fsync", ctx->rank);
            if (f || fsync(sf->fd) < 0) {
                err = f ? f : errno;
                snprintf(rep->msg, sizeof rep->msg, "IOC rank %d: fsync of subfile %s failed: %s (errno %d)",
                         ctx->rank, sf->path, strerror(err), err);
            }
            break;
        }
        default:
            break;
    }
    if (err)
        rep->status = err;
    atomic_fetch_add(&ctx->io_ns, ioc_now_ns() - t0);
}

static void worker_main(void *arg)
{
    h5sf_ioc_ctx_t *ctx  = arg;
    unsigned char  *wbuf = NULL; /* this worker's chunk buffer, made on first need */
    for (;;) {
        ioc_req_t *r;
        uv_mutex_lock(&ctx->lock);
        while (!ctx->ready && !atomic_load(&ctx->stop))
            uv_cond_wait(&ctx->cond, &ctx->lock);
        if (!ctx->ready) {
            uv_mutex_unlock(&ctx->lock);
            break;
        }
        r          = ctx->ready;
        ctx->ready = r->next;
        if (!ctx->ready)
            ctx->ready_tail = NULL;
        uv_mutex_unlock(&ctx->lock);

        h5sf_wire_reply_t rep;
        memset(&rep, 0, sizeof rep);
        rep.id = r->h.id;
        atomic_fetch_add(&ctx->queue_wait_ns, ioc_now_ns() - r->t_arrive);
        if (!wbuf && !r->local && !r->data && r->h.total && !(wbuf = malloc(H5SF_IOC_CHUNK))) {
            rep.status = ENOMEM;
            snprintf(rep.msg, sizeof rep.msg, "IOC rank %d: out of memory for a transfer buffer", ctx->rank);
            if (r->h.op == H5SF_WIRE_WRITE)
                ioc_drain_payload(ctx, r, 0);
        }
        else
            execute(ctx, r, wbuf, &rep);
        atomic_fetch_add(&ctx->served, 1);

        /* Release the requests that waited for this one, then answer. */
        ioc_req_t *now = NULL, *now_tail = NULL;
        uv_mutex_lock(&ctx->lock);
        ioc_sched_done(r->sf, r, &now, &now_tail);
        while (now) {
            ioc_req_t *n = now->next;
            ioc_enqueue_locked(ctx, now);
            now = n;
        }
        if (r->local) {
            r->local->rep  = rep;
            r->local->done = true;
            uv_cond_broadcast(&ctx->done_cond);
        }
        uv_cond_broadcast(&ctx->cond);
        uv_mutex_unlock(&ctx->lock);
        if (!r->local)
            send_reply(ctx, r->source, r->h.tag, &rep);
        ioc_req_free(r);
    }
    free(wbuf);
}

void ioc_enqueue_locked(h5sf_ioc_ctx_t *ctx, ioc_req_t *r)
{
    r->next = NULL;
    if (ctx->ready_tail)
        ctx->ready_tail->next = r;
    else
        ctx->ready = r;
    ctx->ready_tail = r;
    uv_cond_signal(&ctx->cond);
}

bool ioc_submit(h5sf_ioc_ctx_t *ctx, ioc_req_t *r)
{
    r->t_arrive = ioc_now_ns();
    uv_mutex_lock(&ctx->lock);
    ioc_sf_t *sf = ioc_sf_find(ctx, r->h.file_id, r->h.subfile);
    r->sf        = sf;
    if (sf && ioc_sched_arrive(sf, r))
        ioc_enqueue_locked(ctx, r);
    uv_mutex_unlock(&ctx->lock);
    return sf != NULL;
}

int ioc_workers_start(h5sf_ioc_ctx_t *ctx, int n, h5sf_errbuf_t *e)
{
    if (n <= ctx->nworkers)
        return 0;
    uv_thread_t *w = realloc(ctx->workers, (size_t)n * sizeof *w);
    if (!w)
        return h5sf_fail(e, ENOMEM, "out of memory starting IOC workers");
    ctx->workers = w;
    while (ctx->nworkers < n) {
        int rc = uv_thread_create(&ctx->workers[ctx->nworkers], worker_main, ctx);
        if (rc)
            return h5sf_fail(e, -rc, "cannot start IOC worker thread: %s", uv_strerror(rc));
        ctx->nworkers++;
    }
    return 0;
}

void ioc_workers_stop(h5sf_ioc_ctx_t *ctx)
{
    uv_mutex_lock(&ctx->lock);
    uv_cond_broadcast(&ctx->cond);
    uv_mutex_unlock(&ctx->lock);
    for (int i = 0; i < ctx->nworkers; i++)
        uv_thread_join(&ctx->workers[i]);
    free(ctx->workers);
    ctx->workers  = NULL;
    ctx->nworkers = 0;
}
