/*
 * shm.c -- the node's shared-memory area: how clients hand payloads to an
 * IOC on their own node without MPI moving the bytes, and how they wake it.
 *
 * Every rank of a context owns one segment of H5SF_IOC_SHM bytes in one
 * POSIX shared-memory object per node, mapped by all the node's ranks of the
 * context.  A client copies a write's pieces into its segment and sends only
 * the request (H5SF_WIRE_SHM, the offset in `arg`); the IOC pwritev()s
 * straight from there.  Reads go the other way: the IOC preadv()s into the
 * segment, the client copies out after the reply.  So a same-node request
 * costs one memcpy and the system call, against a memcpy plus MPI's copies
 * for a message, and the IOC needs no transfer slot for it.
 *
 * Invariants:
 *  - A segment is written only by its owner (client side, the application's
 *    thread) or by an IOC worker serving a request that names that region;
 *    the owner reuses a region only after the reply to its request came.
 *  - A region whose request was given up (timeout) is never reused: the IOC
 *    may still use it.  The ring then stays blocked and later requests
 *    travel as MPI messages, as without shared memory.
 *  - A segment is reserved by its owner before its first request names it
 *    (madvise MADV_POPULATE_WRITE: the pages are allocated, or the call
 *    fails where a touch would raise SIGBUS), so a full /dev/shm shows up
 *    then (that rank sends messages instead), never as a SIGBUS mid-write;
 *    the IOC only touches regions a request names.  No descriptor is kept:
 *    a parked context holds none.  Ranks that never send a payload to
 *    an IOC of their node (contiguous writes go straight to the subfile)
 *    never pay for clearing its pages.
 *  - Segments are whole pages (H5SF_IOC_SHM rounded up), so each one starts
 *    on a page, as the reservation needs; a size whose total over the node
 *    overflows is refused.
 *  - Setting up is collective over the context's communicator and ends the
 *    same on every rank of the node; the object's name is unlinked on every
 *    path once the ranks have mapped it or failed.  Taking it down is local
 *    (munmap), so a context freed on one rank alone is safe.
 *
 * Doorbells.  The area starts with one bell per rank of the node.  When
 * every rank of the context is on this node, nobody else can send the IOC a
 * request, so its idle progress thread need not poll MPI: it arms its bell,
 * probes once more and sleeps on the bell (a futex) until a client rings it.
 * Polling costs the ranks that share its cores a wake-up per millisecond;
 * the bell costs a client one system call per request to a sleeping IOC.
 *  - A client rings after posting a request, and again while it waits for
 *    the reply (a send MPI had not pushed out yet when the IOC probed).
 *    Either the client sees the bell armed and rings, or the IOC's probe
 *    after arming sees the request (both sides order with seq_cst).
 *  - The IOC sleeps at most IOC_BELL_WAIT_NS at a time, so nothing depends
 *    on the bell alone; that bound doubles with each sleep nothing ends
 *    early, up to IOC_BELL_WAIT_MAX_NS, so an IOC left idle (a file open
 *    while the ranks compute, or at MPI_Finalize) is rarely inside MPI:
 *    MPICH 4.0 breaks when one of its threads is there the instant
 *    MPI_Finalize starts (docs/reliability.md).  With a rank on another
 *    node it polls as before.
 *  - A context of one rank has a bell in private memory: only stopping
 *    rings it.
 *
 * Owns the area, the rank -> segment map, the bells and the client's ring
 * of regions.  Must not touch requests, the scheduler or MPI outside
 * ioc_shm_setup.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "internal.h"
#include "../common/settings.h"

/* Regions one client may have in flight (a request is one region). */
#define SHM_RING_MAX 256
/* The first sleep on a bell, and the longest after doubling
 * (H5SF_TEST_BELL_WAIT_S, test only: longer, so that a lost wake-up shows as
 * a timeout). */
#define IOC_BELL_WAIT_NS     50000000L
#define IOC_BELL_WAIT_MAX_NS 1600000000L

/* One per rank of the node, a cache line each (clients ring them often). */
typedef struct ioc_bell {
    _Atomic uint32_t seq;   /* rung: +1 (the futex word)       */
    _Atomic uint32_t armed; /* its progress thread sleeps on it */
    char             pad[56];
} ioc_bell_t;

struct ioc_shm {
    unsigned char *map; /* the node's area (NULL: a private bell)   */
    size_t         maplen;
    ioc_bell_t    *bells; /* at the start of map, one per node rank   */
    bool           alone; /* every rank of the context is on the node */
    uint64_t       seg;   /* bytes per rank, 0: no payloads here      */
    int           *idx;   /* ctx rank -> segment number, -1: off node */
    int            size;
    unsigned char *segs;     /* the segments, after the bells            */
    unsigned char *own;      /* this rank's segment                      */
    int            reserved; /* 0: not yet, 1: done, -1: failed: unused  */
    /* The ring over `own`: regions in the order they were taken. */
    struct {
        uint64_t               off, len;
        bool                   busy; /* request not finished (or given up)  */
        h5sf_ioc_client_req_t *q;
    } r[SHM_RING_MAX];
    int first, n;
};

/* Make the object (sized, not yet reserved) on the node's first rank and
 * say its name (or "" on failure) to the others.  On failure the object is
 * gone and name is "" on every rank that returns. */
static int make_object(MPI_Comm node, int nrank, size_t len, char *name, size_t namesz, h5sf_errbuf_t *e)
{
    static unsigned made;
    int             fd = -1;
    name[0]            = '\0';
    if (nrank == 0) {
        snprintf(name, namesz, "/h5sf-%ld-%u-%lx", (long)getpid(), made++, (unsigned long)ioc_now_ns());
        fd      = h5sf_sysio_shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
        int err = fd < 0 ? errno : h5sf_sysio_truncate(fd, len) < 0 ? errno : 0;
        if (err) {
            if (fd >= 0) {
                h5sf_sysio_close(fd);
                h5sf_sysio_shm_unlink(name);
            }
            h5sf_fail(e, err, "cannot make %zu bytes of shared memory (%s): %s", len, name, strerror(err));
            name[0] = '\0';
        }
        else
            h5sf_sysio_close(fd);
    }
    if (MPI_Bcast(name, (int)namesz, MPI_CHAR, 0, node) != MPI_SUCCESS) {
        if (nrank == 0 && name[0])
            h5sf_sysio_shm_unlink(name);
        name[0] = '\0';
        return h5sf_fail(e, 0,
                         "cannot tell the node's ranks the name of the shared-memory object (MPI_Bcast "
                         "failed)");
    }
    if (!name[0] && nrank != 0)
        return h5sf_fail(e, 0, "the node's first rank could not make the shared-memory object");
    return name[0] ? 0 : -1;
}

static unsigned char *map_object(const char *name, size_t len)
{
    int fd = h5sf_sysio_shm_open(name, O_RDWR, 0);
    if (fd < 0)
        return NULL;
    void *p = h5sf_sysio_mmap_shared(fd, len);
    h5sf_sysio_close(fd);
    return p == MAP_FAILED ? NULL : p;
}

/* Bytes per segment: seg rounded up to whole pages, so that every segment
 * starts on a page (madvise takes nothing else); *len the whole area for
 * nsize ranks after `bells` bytes of bells.  -1 if that overflows or is
 * more than one object can hold (the same on every rank of the node). */
static int area_size(uint64_t seg, int nsize, size_t bells, uint64_t *segp, size_t *len, h5sf_errbuf_t *e)
{
    long     pg   = sysconf(_SC_PAGESIZE);
    uint64_t page = pg > 0 ? (uint64_t)pg : 4096;
    uint64_t most = (uint64_t)INT64_MAX < (uint64_t)SIZE_MAX ? (uint64_t)INT64_MAX : (uint64_t)SIZE_MAX;
    if (seg > most - bells || (seg + page - 1) / page * page > (most - bells) / (uint64_t)nsize)
        return h5sf_fail(e, EOVERFLOW,
                         "H5SF_IOC_SHM=%llu bytes per rank: %d ranks of this node would need more "
                         "shared memory than one object can hold; payloads to the node's IOCs travel as MPI "
                         "messages",
                         (unsigned long long)seg, nsize);
    *segp = (seg + page - 1) / page * page;
    *len  = bells + (size_t)(*segp * (uint64_t)nsize);
    return 0;
}

/* ioc_shm_setup for a communicator of one rank: nobody to share with, only
 * a private bell (none if there is no memory for it). */
static void setup_alone(h5sf_ioc_ctx_t *ctx)
{
    ioc_shm_t *s = h5sf_calloc(1, sizeof *s);
    if (s && (s->bells = h5sf_calloc(1, sizeof *s->bells)) && (s->idx = h5sf_calloc(1, sizeof *s->idx))) {
        s->alone = true;
        s->size  = 1;
        ctx->shm = s;
        return;
    }
    if (s)
        h5sf_free(s->bells);
    h5sf_free(s);
}

/* The node's communicator; agreed: without it a rank has no shared memory,
 * nor then has anyone (the others would wait for it). */
static int split_node(h5sf_ioc_ctx_t *ctx, MPI_Comm *node, h5sf_errbuf_t *e)
{
    int  all = 0, rc = h5sf_mpisite_comm_split_type(ctx->comm, MPI_COMM_TYPE_SHARED, ctx->rank, node);
    int  bad = rc != MPI_SUCCESS;
    char why[MPI_MAX_ERROR_STRING];
    if (MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_MAX, ctx->comm) != MPI_SUCCESS || all)
        return bad ? h5sf_fail(e, 0, "MPI_Comm_split_type failed: %s", h5sf_mpisite_errstr(rc, why))
                   : h5sf_fail(e, 0, "another rank could not split the communicator by node");
    return 0;
}

/* The mapped area becomes ctx's: bells first, then one segment of seg
 * bytes per rank of the node (ranks[i]: node rank i's rank in ctx). */
static void adopt(h5sf_ioc_ctx_t *ctx, ioc_shm_t *s, const int *ranks, int nsize, int nrank, size_t len, size_t bells,
                  uint64_t seg)
{
    for (int r = 0; r < ctx->size; r++)
        s->idx[r] = -1;
    for (int i = 0; i < nsize; i++)
        s->idx[ranks[i]] = i;
    s->maplen = len;
    s->bells  = (ioc_bell_t *)(void *)s->map;
    s->alone  = nsize == ctx->size;
    s->seg    = seg;
    s->size   = ctx->size;
    s->segs   = s->map + bells;
    s->own    = s->segs + (size_t)nrank * seg;
    ctx->shm  = s;
}

/* Returns -1 (with the reason in e) when the node's ranks have no shared
 * area, which leaves payloads to MPI messages; the outcome is the same on
 * every rank of the node. */
int ioc_shm_setup(h5sf_ioc_ctx_t *ctx, uint64_t seg, h5sf_errbuf_t *e)
{
    MPI_Comm   node  = MPI_COMM_NULL;
    int        nrank = 0, nsize = 0, ok = 0, all = 0, ret = 0, *ranks = NULL;
    char       name[64] = "";
    uint64_t   least    = seg;
    size_t     bells, len = 0;
    ioc_shm_t *s = NULL;

    ctx->shm = NULL;
    if (ctx->size == 1) {
        setup_alone(ctx);
        return 0;
    }
    if ((ret = split_node(ctx, &node, e)) < 0)
        goto done;
    MPI_Comm_rank(node, &nrank);
    MPI_Comm_size(node, &nsize);
    /* One size per node, and nothing to share with nobody. */
    if (MPI_Allreduce(&seg, &least, 1, MPI_UINT64_T, MPI_MIN, node) != MPI_SUCCESS) {
        ret = h5sf_fail(e, 0, "cannot agree on the shared-memory segment size (MPI_Allreduce failed)");
        goto done;
    }
    if (nsize < 2)
        goto done;
    bells = ((size_t)nsize * sizeof(ioc_bell_t) + 4095) & ~(size_t)4095;
    if (least && area_size(least, nsize, bells, &least, &len, e) < 0) {
        ret = -1;
        goto done;
    }
    if (!least)
        len = bells;
    if (make_object(node, nrank, len, name, sizeof name, e) == 0) {
        s     = h5sf_calloc(1, sizeof *s);
        ranks = h5sf_malloc((size_t)nsize * sizeof *ranks);
        if (s && ranks && (s->idx = h5sf_malloc((size_t)ctx->size * sizeof *s->idx)) &&
            (s->map = map_object(name, len)))
            ok = 1;
    }
    /* Everyone has mapped it (or failed): the name can go. */
    if (MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, node) != MPI_SUCCESS)
        all = 0;
    if (nrank == 0 && name[0])
        h5sf_sysio_shm_unlink(name);
    if (!all || MPI_Allgather(&ctx->rank, 1, MPI_INT, ranks, 1, MPI_INT, node) != MPI_SUCCESS) {
        if (!e->msg[0])
            h5sf_fail(e, 0, "a rank of this node could not make or map the shared-memory object");
        ret = -1;
        goto done;
    }
    adopt(ctx, s, ranks, nsize, nrank, len, bells, least);
    s = NULL;
done:
    if (s) {
        if (s->map)
            h5sf_sysio_munmap(s->map, len);
        h5sf_free(s->idx);
        h5sf_free(s);
    }
    h5sf_free(ranks);
    if (node != MPI_COMM_NULL)
        MPI_Comm_free(&node);
    /* The caller goes on without it; say so once, not silently. */
    static atomic_bool said;
    if (ret < 0 && nrank == 0 && !atomic_exchange(&said, true))
        fprintf(stderr,
                "h5sf: IOC rank %d: no shared memory for payloads on this node (%s); they travel as MPI "
                "messages\n",
                ctx->rank, e->msg);
    return ret;
}

void ioc_shm_free(h5sf_ioc_ctx_t *ctx)
{
    ioc_shm_t *s = ctx->shm;
    if (!s)
        return;
    if (s->map)
        h5sf_sysio_munmap(s->map, s->maplen);
    else
        h5sf_free(s->bells);
    h5sf_free(s->idx);
    h5sf_free(s);
    ctx->shm = NULL;
}

uint64_t ioc_shm_seg_size(const h5sf_ioc_ctx_t *ctx) { return ctx->shm ? ctx->shm->seg : 0; }

bool ioc_shm_peer(const h5sf_ioc_ctx_t *ctx, int rank)
{
    const ioc_shm_t *s = ctx->shm;
    return s && s->seg && rank >= 0 && rank < s->size && s->idx[rank] >= 0 && rank != ctx->rank;
}

unsigned char *ioc_shm_region(const h5sf_ioc_ctx_t *ctx, int rank, uint64_t off, uint64_t len)
{
    const ioc_shm_t *s = ctx->shm;
    if (!ioc_shm_peer(ctx, rank) || off > s->seg || len > s->seg - off)
        return NULL;
    return s->segs + (size_t)s->idx[rank] * s->seg + off;
}

/* ---- doorbells ----------------------------------------------------------- */

static ioc_bell_t *bell_of(const h5sf_ioc_ctx_t *ctx, int rank)
{
    const ioc_shm_t *s = ctx->shm;
    if (!s || rank < 0 || rank >= s->size || s->idx[rank] < 0)
        return NULL;
    return &s->bells[s->idx[rank]];
}

static long futex(_Atomic uint32_t *w, int op, uint32_t val, const struct timespec *ts)
{
    return syscall(SYS_futex, (uint32_t *)w, op, val, ts, NULL, 0);
}

bool ioc_bell_arm(h5sf_ioc_ctx_t *ctx, uint32_t *seq)
{
    ioc_bell_t *b = ctx->shm && ctx->shm->alone ? bell_of(ctx, ctx->rank) : NULL;
    if (!b)
        return false;
    atomic_store(&b->armed, 1);
    atomic_thread_fence(memory_order_seq_cst); /* before the caller's probe */
    *seq = atomic_load(&b->seq);
    return true;
}

void ioc_bell_disarm(h5sf_ioc_ctx_t *ctx)
{
    ioc_bell_t *b = bell_of(ctx, ctx->rank);
    if (b)
        atomic_store(&b->armed, 0);
}

bool ioc_bell_sleep(h5sf_ioc_ctx_t *ctx, uint32_t seq, unsigned naps)
{
    static _Atomic long test_s = -1; /* progress threads of several contexts */
    ioc_bell_t         *b      = bell_of(ctx, ctx->rank);
    long                ns     = IOC_BELL_WAIT_NS;
    long                t      = atomic_load(&test_s);
    if (!b)
        return false;
    for (unsigned k = 0; k < naps && ns < IOC_BELL_WAIT_MAX_NS; k++)
        ns *= 2;
    struct timespec ts = {ns / 1000000000L, ns % 1000000000L};
    if (t < 0) {
        const char *v = h5sf_var(H5SF_VAR_TEST_BELL_WAIT_S);
        t             = v ? atol(v) : 0;
        atomic_store(&test_s, t);
    }
    if (t > 0)
        ts = (struct timespec){t, 0};
    /* Returns at once if it was rung since ioc_bell_arm read seq. */
    bool timed_out = futex(&b->seq, FUTEX_WAIT, seq, &ts) < 0 && errno == ETIMEDOUT;
    atomic_store(&b->armed, 0);
    return timed_out;
}

void ioc_bell_ring(h5sf_ioc_ctx_t *ctx, int ioc, bool always)
{
    ioc_bell_t *b = bell_of(ctx, ioc);
    if (!b)
        return;
    atomic_thread_fence(memory_order_seq_cst); /* after the caller's send */
    if (!always && !atomic_load(&b->armed))
        return;
    atomic_fetch_add(&b->seq, 1);
    futex(&b->seq, FUTEX_WAKE, 1, NULL);
}

/* ---- the client's ring (application thread only) ---------------------- */

static void ring_pop(ioc_shm_t *s)
{
    while (s->n > 0 && !s->r[s->first].busy) {
        s->first = (s->first + 1) % SHM_RING_MAX;
        s->n--;
    }
}

/* Where n bytes fit after the newest region, or UINT64_MAX. */
static uint64_t ring_fit(const ioc_shm_t *s, uint64_t n)
{
    if (s->n == 0)
        return n <= s->seg ? 0 : UINT64_MAX;
    if (s->n == SHM_RING_MAX)
        return UINT64_MAX;
    uint64_t head = s->r[s->first].off;
    int      last = (s->first + s->n - 1) % SHM_RING_MAX;
    uint64_t tail = s->r[last].off + s->r[last].len;
    if (s->r[last].off >= head) { /* not wrapped: after the newest, else from the start */
        if (s->seg - tail >= n)
            return tail;
        return head >= n ? 0 : UINT64_MAX;
    }
    return head - tail >= n ? tail : UINT64_MAX;
}

h5sf_ioc_client_req_t *ioc_shm_oldest(const h5sf_ioc_ctx_t *ctx)
{
    const ioc_shm_t *s = ctx->shm;
    return s && s->n > 0 && s->r[s->first].q ? s->r[s->first].q : NULL;
}

int ioc_shm_take(h5sf_ioc_ctx_t *ctx, h5sf_ioc_client_req_t *q, uint64_t n, uint64_t *off)
{
    ioc_shm_t *s = ctx->shm;
    if (!s || !s->seg)
        return -1;
    if (s->reserved == 0)
        s->reserved = h5sf_sysio_populate(s->own, (size_t)s->seg) == 0 ? 1 : -1;
    if (s->reserved < 0)
        return -1;
    ring_pop(s);
    uint64_t at = ring_fit(s, n);
    if (at == UINT64_MAX)
        return -1;
    int i        = (s->first + s->n) % SHM_RING_MAX;
    s->r[i].off  = at;
    s->r[i].len  = n;
    s->r[i].busy = true;
    s->r[i].q    = q;
    s->n++;
    *off = at;
    return 0;
}

unsigned char *ioc_shm_own(const h5sf_ioc_ctx_t *ctx, uint64_t off) { return ctx->shm->own + off; }

void ioc_shm_give(h5sf_ioc_ctx_t *ctx, h5sf_ioc_client_req_t *q, bool reuse)
{
    ioc_shm_t *s = ctx->shm;
    for (int k = 0; s && k < s->n; k++) {
        int i = (s->first + k) % SHM_RING_MAX;
        if (s->r[i].q != q)
            continue;
        s->r[i].q = NULL;
        if (reuse) /* else it stays busy for good: the IOC may still use it */
            s->r[i].busy = false;
        break;
    }
    if (s)
        ring_pop(s);
}
