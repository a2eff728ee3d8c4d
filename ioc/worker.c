/*
 * worker.c -- the IOC worker pool: libuv threads that execute requests on
 * subfile descriptors and answer the requesting rank.
 *
 * A write arrives as one buffer (the whole payload of one client's vector for
 * this subfile); pieces that are contiguous in the subfile are also
 * contiguous in the buffer, so each run is a single pwrite, looped over short
 * writes and EINTR.  Reads fill one buffer the same way (zeros past EOF, as
 * HDF5 expects) and go back in one message that lands in the client's pieces.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "internal.h"

void ioc_req_free(ioc_req_t *r)
{
    if (!r)
        return;
    if (r->data && !(r->h.flags & H5SF_WIRE_INLINE))
        free(r->data);
    free(r->msg);
    free(r->offs);
    free(r->dependents);
    free(r);
}

/* Post a send and wait for it, giving up if the daemon is stopping (the
 * client has gone away and will never receive it). */
static void send_wait(h5sf_ioc_ctx_t *ctx, const void *buf, int count, MPI_Datatype dt, int dest, int tag)
{
    MPI_Request req;
    int         flag = 0;
    unsigned    idle = 0;
    if (MPI_Isend(buf, count, dt, dest, tag, ctx->comm, &req) != MPI_SUCCESS)
        return;
    while (MPI_Test(&req, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS && !flag) {
        if (atomic_load(&ctx->stop)) {
            MPI_Cancel(&req);
            MPI_Request_free(&req);
            return;
        }
        ioc_backoff(&idle);
    }
}

static void send_reply(h5sf_ioc_ctx_t *ctx, int source, int tag, const h5sf_wire_reply_t *rep)
{
    unsigned char buf[H5SF_WIRE_REPLY_SIZE];
    h5sf_wire_reply_encode(rep, buf);
    send_wait(ctx, buf, (int)sizeof buf, MPI_BYTE, source, tag);
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

static const char *opname(int op)
{
    return op == H5SF_WIRE_WRITE ? "pwrite" : op == H5SF_WIRE_READ ? "pread" : "request";
}

/* One contiguous run: loop over short transfers and EINTR.  Returns bytes
 * done (a read stops early at EOF) or -1 with errno. */
static int64_t xfer(h5sf_ioc_ctx_t *ctx, int op, int fd, unsigned char *p, uint64_t n, uint64_t off)
{
    uint64_t done = 0;
    while (done < n) {
        size_t  want = n - done > ((size_t)1 << 30) ? ((size_t)1 << 30) : (size_t)(n - done);
        int     f    = ioc_fault(op == H5SF_WIRE_WRITE ? "pwrite" : "pread", ctx->rank);
        ssize_t k;
        if (f == H5SF_FAULT_SHORT)
            want = want > 1 ? want / 2 : want;
        else if (f) {
            errno = f;
            if (f == EINTR)
                continue;
            return -1;
        }
        k = op == H5SF_WIRE_WRITE ? pwrite(fd, p + done, want, (off_t)(off + done))
                                  : pread(fd, p + done, want, (off_t)(off + done));
        if (k < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        if (k == 0) {
            if (op == H5SF_WIRE_READ)
                break; /* EOF */
            errno = EIO; /* pwrite returning 0 for n > 0: treat as a device error */
            return -1;
        }
        done += (uint64_t)k;
    }
    return (int64_t)done;
}

static void execute(h5sf_ioc_ctx_t *ctx, ioc_req_t *r, h5sf_wire_reply_t *rep)
{
    ioc_sf_t   *sf = r->sf;
    struct stat st;
    int         err = 0;
    uint64_t    t0  = ioc_now_ns();

    ioc_fault_delay(ctx);
    switch (r->h.op) {
        case H5SF_WIRE_WRITE:
        case H5SF_WIRE_READ: {
            if (r->h.op == H5SF_WIRE_READ && r->h.total && !(r->data = malloc(r->h.total))) {
                err = ENOMEM;
                snprintf(rep->msg, sizeof rep->msg, "IOC rank %d: out of memory for a %llu-byte read of %s",
                         ctx->rank, (unsigned long long)r->h.total, sf->path);
                break;
            }
            unsigned char *p = r->data;
            for (uint64_t i = 0; i < r->h.count;) {
                /* Extend the run while the next piece continues it on disk. */
                uint64_t off = r->offs[i], n = r->lens[i], j = i + 1;
                while (j < r->h.count && r->offs[j] == off + n)
                    n += r->lens[j++];
                int64_t got = xfer(ctx, r->h.op, sf->fd, p, n, off);
                if (got < 0) {
                    err = errno;
                    snprintf(rep->msg, sizeof rep->msg,
                             "IOC rank %d: %s of %llu bytes at offset %llu of subfile %s failed: %s (errno %d)",
                             ctx->rank, opname(r->h.op), (unsigned long long)n, (unsigned long long)off, sf->path,
                             strerror(err), err);
                    break;
                }
                if ((uint64_t)got < n)
                    memset(p + got, 0, (size_t)(n - (uint64_t)got));
                p += n;
                i = j;
            }
            break;
        }
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
    rep->status = err;
    atomic_fetch_add(&ctx->io_ns, ioc_now_ns() - t0);
}

static void worker_main(void *arg)
{
    h5sf_ioc_ctx_t *ctx = arg;
    for (;;) {
        ioc_req_t *r;
        uv_mutex_lock(&ctx->lock);
        while (!ctx->ready && !atomic_load(&ctx->stop))
            uv_cond_wait(&ctx->cond, &ctx->lock);
        if (!ctx->ready) {
            uv_mutex_unlock(&ctx->lock);
            return;
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
        execute(ctx, r, &rep);
        atomic_fetch_add(&ctx->served, 1);

        /* Release the requests that waited for this one before answering, so
         * the pool stays busy while the reply travels. */
        ioc_req_t *now = NULL, *now_tail = NULL;
        uv_mutex_lock(&ctx->lock);
        ioc_sched_done(r->sf, r, &now, &now_tail);
        while (now) {
            ioc_req_t *n = now->next;
            ioc_runnable_locked(ctx, now);
            now = n;
        }
        uv_cond_broadcast(&ctx->cond);
        uv_mutex_unlock(&ctx->lock);

        if (r->h.op == H5SF_WIRE_READ && rep.status == 0 && r->h.total) {
            MPI_Datatype dt    = MPI_BYTE;
            void        *base  = NULL, *b = r->data;
            int          count = 0;
            h5sf_errbuf_t eb;
            if (ioc_dtype_make(1, &b, &r->h.total, &base, &dt, &count, &eb) == 0) {
                send_wait(ctx, base, count, dt, r->source, r->h.tag + 1);
                ioc_dtype_free(&dt);
            }
            else {
                rep.status = eb.err_no ? eb.err_no : -1;
                snprintf(rep.msg, sizeof rep.msg, "IOC rank %d: %.380s", ctx->rank, eb.msg);
            }
        }
        send_reply(ctx, r->source, r->h.tag, &rep);
        ioc_req_free(r);
    }
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

void ioc_runnable_locked(h5sf_ioc_ctx_t *ctx, ioc_req_t *r)
{
    if (r->payload_pending)
        r->deps_clear = true;
    else
        ioc_enqueue_locked(ctx, r);
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
