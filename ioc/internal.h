/*
 * internal.h -- shared by the files of the concentrator (ioc/).
 *
 *   ctx.c       contexts: one per communicator group, registry, life cycle
 *   client.c    the requesting side: post, wait, control requests
 *   dtype.c     MPI derived datatypes over (buffer, length) pieces
 *   clock.c     monotonic clock and the back-off of polling loops
 *   account.c   the stage account of requests (account.h; H5SF_STATS=stages)
 *   gate.c      the finalize gate: h5sf's threads and MPI_Finalize take turns
 *               in MPI, one call at a time (IOC_MPI)
 *   progress.c  the progress thread: receive, decode, hand to the scheduler
 *   request.c   a server request's life: new, pieces, extent, free
 *   sched.c     ordering: overlap tracking per subfile (interval treap)
 *   worker.c    the libuv worker threads, the ready queue, submission, and
 *               releasing what a finished batch held back (calls merge.c
 *               and run.c; neither calls it)
 *   merge.c     forming batches: which ready requests run together
 *   run.c       running a batch: merged pwritev/preadv (common/sysio.c),
 *               payload chunks, replies
 *   slots.c     the pool of transfer slots
 *   subfile.c   the table of subfile descriptors this rank serves (capped)
 *   shm.c       the node's shared-memory area: same-node payloads, doorbells
 *   payload.c   the MPI messages of a payload chunk: parts, or one datatype
 *   fault.c     test-only stall and hang faults (H5SF_FAULT; the others and
 *               the parsing: common/sysio.c)
 *   affinity.c  thread names, and the CPUs IOC threads may run on
 *   mpisite.c   the MPI calls that can fail on one rank alone (the sweep's
 *               fault sites; vfd/ uses them too)
 *
 * Locking: one mutex per context (ctx->lock) protects the subfile table and
 * descriptor cap, the schedulers, the ready queue, merge claims and the slot
 * pool.  MPI and file I/O are done without it held, open(2) and close(2)
 * of subfiles too (subfile.c: an entry being opened is marked, one being
 * closed loses its descriptor under the lock first).
 */
#ifndef H5SF_IOC_INTERNAL_H
#define H5SF_IOC_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <uv.h>
#include "ioc.h"
#include "../common/alloc.h"
#include "../common/lru.h"
#include "../common/sysio.h"
#include "../common/wire.h"

/* Tags.  A rank can be a client and an IOC at once, receiving from the same
 * peer in both roles: read data coming back from IOC X and write payload
 * arriving from client X must never match each other's receives, so the two
 * directions use different tags.  Per request (tag = 16 + 4k):
 *   tag      reply            IOC -> client
 *   tag + 1  write payload    client -> IOC
 *   tag + 2  read data        IOC -> client                                 */
#define H5SF_TAG_REQ      7 /* request headers                             */
#define H5SF_TAG_FIRST    16
#define H5SF_TAG_WDATA(t) ((t) + 1)
#define H5SF_TAG_RDATA(t) ((t) + 2)

typedef struct ioc_server_req ioc_server_req_t;
typedef struct ioc_sf         ioc_sf_t;
typedef struct ioc_claim      ioc_claim_t;
typedef struct ioc_shm        ioc_shm_t;

/* Payloads move in chunks of at most this size (ioc_chunk_size): the IOC
 * receives (or reads) one chunk at a time into its worker's own buffer, so an
 * IOC holds at most threads x H5SF_IOC_CHUNK bytes of payload however much
 * its clients send (they wait in MPI's rendezvous: back-pressure). */
#define H5SF_IOC_CHUNK ((uint64_t)8 << 20)

/* How long a parked context keeps its idle transfer slots (ctx.c). */
#define H5SF_IOC_SLOT_KEEP_NS ((uint64_t)1000000000)

/* A client's copies of written payloads (client.c) of at least
 * IOC_COPY_MIN bytes are kept for its next writes: at most IOC_COPIES_KEEP
 * of them, IOC_COPIES_BYTES together.  A fresh buffer costs a page fault
 * per 4 KiB on its first touch, more than the copy itself (measured:
 * docs/performance-history.md, Figures behind constants, kept write
 * copies). */
#define IOC_COPY_MIN     ((uint64_t)64 << 10)
#define IOC_COPIES_KEEP  4
#define IOC_COPIES_BYTES (2 * H5SF_IOC_CHUNK)

/* payload.c: the MPI messages of a payload chunk.  A chunk of at most
 * IOC_SPLIT_MAX parts (pieces cut at chunk borders), IOC_SPLIT_MIN bytes or
 * more each on average, moves as one contiguous message per part; any other
 * chunk as one message (a datatype over its parts at the client). */
#define IOC_SPLIT_MAX 16
#define IOC_SPLIT_MIN ((uint64_t)64 << 10)

/* The chunk size of a payload of total bytes: H5SF_IOC_CHUNK, or for a
 * payload of less than IOC_PIPE_ROUNDS chunks, a quarter of it (at least
 * IOC_PIPE_MIN), so that with two buffers the IOC receives chunk k+1 while
 * it writes chunk k even for a request of one chunk's size. */
#define IOC_PIPE_ROUNDS 4
#define IOC_PIPE_MIN    ((uint64_t)1 << 20)
uint64_t               ioc_chunk_size(uint64_t total);
static inline uint64_t ioc_nchunks(uint64_t total)
{
    uint64_t c = ioc_chunk_size(total);
    return (total + c - 1) / c;
}
/* Bytes of chunk k of a payload of total bytes. */
static inline uint64_t ioc_chunk_len(uint64_t total, uint64_t k)
{
    uint64_t c = ioc_chunk_size(total), left = total - k * c;
    return left < c ? left : c;
}
typedef struct ioc_cursor {
    uint64_t i, po; /* piece i, byte po within it */
} ioc_cursor_t;
/* The parts of the next `want` payload bytes from *c, advancing it: the
 * first `cap` are stored (position in at[] unless NULL, length in plen[]);
 * returns how many there are. */
size_t ioc_parts(const uint64_t *lens, uint64_t count, ioc_cursor_t *c, uint64_t want, ioc_cursor_t *at, uint64_t *plen,
                 size_t cap);
/* Messages a chunk of `len` bytes in `nparts` parts moves as: nparts or 1. */
size_t ioc_chunk_msgs(size_t nparts, uint64_t len);
/* The IOC's side: the messages of the next chunk of `len` bytes from *c,
 * advancing it; their lengths go to mlen[IOC_SPLIT_MAX], their number is
 * returned. */
size_t ioc_chunk_plan(const uint64_t *lens, uint64_t count, ioc_cursor_t *c, uint64_t len, uint64_t *mlen);

/* Completion of a request the IOC rank made to itself (no MPI involved);
 * ctx->lock.  A worker (not the waiting client's own thread) moves the
 * client's bytes by memcpy through a slot, marked busy while it copies; a
 * client that times out sets detached, waits out a copy under way, and
 * returns: its buffers are never touched again (run.c). */
typedef struct ioc_self {
    bool              done;
    bool              detached, busy;
    h5sf_wire_reply_t rep;
} ioc_self_t;

/* A server request: one client request as the IOC holds it (the client
 * side is h5sf_ioc_client_req_t, ioc/client.c). */
struct ioc_server_req {
    h5sf_wire_hdr_t h;
    int             source; /* client rank                         */
    ioc_sf_t       *sf;
    uint64_t       *offs, *lens; /* pieces, in payload order            */
    unsigned char  *data;        /* inline payload (inside msg), or NULL */
    unsigned char  *msg;         /* the received header message         */
    size_t          msg_len;     /* its cost (ioc_msg_cost), in ctx->qmem */
    bool            sorted;      /* pieces ascending and disjoint        */
    void          **mem;         /* own requests: the client's buffers   */
    ioc_self_t     *self;        /* own requests: where to report        */
    uint64_t        lo, hi;      /* extent on the subfile               */
    bool            barrier;     /* truncate/size/fsync: orders with all */
    /* scheduling */
    unsigned           ndeps; /* earlier conflicting requests left   */
    ioc_server_req_t **dependents;
    size_t             ndependents, capdependents;
    ioc_server_req_t  *tl, *tr; /* treap children                      */
    uint64_t           tmax;    /* max hi in the subtree               */
    uint32_t           prio;
    ioc_server_req_t  *next; /* ready queue / held behind a barrier */
    uint64_t           t_arrive;
};

/* A subfile this rank serves. */
struct ioc_sf {
    uint32_t          file_id, subfile;
    int               fd;              /* -1 while closed by the descriptor cap     */
    int               flags;           /* open(2) flags for reopening               */
    h5sf_lru_node_t   lru;             /* in ctx->lru while fd >= 0 (ctx->lock)      */
    uint64_t          no_linger_until; /* ioc_now_ns(): no merge waits before this */
    char             *path;
    ioc_server_req_t *root; /* treap of active (arrived, not done) requests */
    size_t            active;
    ioc_server_req_t *barrier;          /* the active barrier, if any                */
    ioc_server_req_t *held, *held_tail; /* arrived behind the barrier, in order    */
    ioc_sf_t         *next;
};

/* ctx.c: the daemon's environment settings (H5SF_IOC_MEMORY,
 * H5SF_IOC_MAX_FDS, H5SF_IOC_MERGE_WAIT, H5SF_IOC_AFFINITY), read when a
 * context is made. */
typedef struct ioc_env {
    uint64_t memory;
    uint64_t shm; /* H5SF_IOC_SHM: bytes per rank, 0: off    */
    int      max_fds;
    int      merge_wait_us;
    bool     merge_wait_set;
    bool     affinity_node;
} ioc_env_t;
struct h5sf_ioc_ctx {
    MPI_Comm comm; /* private dup                          */
    int      rank, size;
    int      refs;
    /* Seconds a wait may last: the largest of its files' (raised by a
     * later open while the IOC threads read it). */
    atomic_int  timeout_s;
    ioc_env_t   env;       /* settings it was made with            */
    bool        world;     /* comm is congruent with MPI_COMM_WORLD */
    atomic_bool parked;    /* no file open: the daemon sleeps      */
    uv_cond_t   park_cond; /* ... on this, until a file opens      */
    bool        asleep;    /* its thread sleeps parked, or is gone (lock) */
    /* IOC threads of this context inside a stretch of MPI calls
     * (ioc_mpi_enter), and whether someone waits for that count to reach 0
     * (then leaving wakes park_cond). */
    atomic_int           in_mpi;
    atomic_bool          quieting;
    unsigned char       *dead; /* dead[r]: IOC r missed a timeout      */
    uint32_t             next_file_id;
    atomic_uint_fast64_t next_id; /* client request ids                  */
    /* Remote requests posted and not yet finished, oldest first (client
     * side, the application's thread only): fewer than the tag span. */
    struct h5sf_ioc_client_req *posted_head, *posted_tail;
    uint64_t                    nposted;
    int                         tag_ub;
    MPI_Request                 fin_req; /* its barrier at MPI_Finalize (ctx.c)    */
    uv_mutex_t                  lock;
    uv_cond_t                   cond;      /* workers: ready queue non-empty; close: sf idle */
    uv_cond_t                   done_cond; /* local requests completed             */
    ioc_sf_t                   *sfs;
    /* daemon */
    bool         serving;
    atomic_bool  stop;
    uv_thread_t  progress;
    uv_thread_t *workers;
    int          nworkers;
    int          nexited; /* workers gone since the stop (lock)   */
    /* Workers did not stop within the timeout (stuck in a system call):
     * they were detached and the context is leaked, since they still use
     * it.  Set under lock; a worker seeing it touches nothing more. */
    atomic_bool       abandoned;
    bool              close_stuck; /* a subfile close timed out (lock)     */
    ioc_server_req_t *ready, *ready_tail;
    ioc_claim_t      *claims;         /* workers waiting for requests to merge */
    uint64_t          merge_wait_ns;  /* H5SF_IOC_MERGE_WAIT                  */
    bool              merge_wait_set; /* given explicitly: no per-piece bound  */
    bool              affinity_node;  /* H5SF_IOC_AFFINITY=node (default)     */
    /* memory: transfer slots for workers, received messages for the queue;
     * each side gets half of H5SF_IOC_MEMORY (ctx->lock for the slots) */
    uint64_t        mem_cap;
    uint64_t        peer_cap; /* the least mem_cap of all ranks       */
    unsigned char **slots;    /* free slots of H5SF_IOC_CHUNK bytes  */
    int             nslots_free, nslots_made, nslots_max;
    uv_cond_t       slot_cond;
    /* client side: write copies kept for the next write (slots.c, lock) */
    unsigned char       *copies[IOC_COPIES_KEEP];
    uint64_t             copy_caps[IOC_COPIES_KEEP];
    int                  ncopies;
    uint64_t             copies_bytes;
    atomic_uint_fast64_t qmem;
    /* same-node payloads through shared memory (shm.c); NULL: messages */
    ioc_shm_t *shm;
    /* descriptors: at most max_fds subfiles open at once (ctx->lock);
     * lru: the open ones, least recently used first (common/lru.c) */
    int        max_fds, nfds;
    h5sf_lru_t lru;
    /* counters */
    atomic_uint_fast64_t inflight, max_inflight, served, queue_wait_ns, io_ns;
    atomic_uint_fast64_t batches, merged, merge_waits, syscalls, reopens;
    h5sf_ioc_ctx_t      *next;
};

int ioc_read_env(ioc_env_t *env, h5sf_errbuf_t *e);

/* request.c: a server request's life (no lock).  ioc_req_new: a request
 * for header h from source, charged `cost` on ctx->qmem until freed; NULL
 * if out of memory.  ioc_req_pieces: room for its h.count offsets and
 * lengths (and, with_mem, the client's buffers of a request to this rank
 * itself); -1 if out of memory.  ioc_req_extent: set r->lo, hi, sorted
 * and barrier from its header and pieces.  ioc_req_free: its memory and charge back (NULL: none). */
ioc_server_req_t *ioc_req_new(h5sf_ioc_ctx_t *ctx, const h5sf_wire_hdr_t *h, int source, uint64_t cost);
int               ioc_req_pieces(ioc_server_req_t *r, bool with_mem);
void              ioc_req_extent(ioc_server_req_t *r);
void              ioc_req_free(h5sf_ioc_ctx_t *ctx, ioc_server_req_t *r);

/* sched.c */
/* Piece lists of a and b share a byte (conservatively true unless both are
 * sorted).  Linear-logarithmic in the smaller list. */
bool ioc_pieces_overlap(const ioc_server_req_t *a, const ioc_server_req_t *b);
/* The rest with ctx->lock held. */
/* Register an arrived request; returns true if it may run now. */
bool ioc_sched_arrive(ioc_sf_t *sf, ioc_server_req_t *r);
/* A request finished: unregister it and append those now runnable to *ready
 * (the caller checks payload_pending before running them). */
void ioc_sched_done(ioc_sf_t *sf, ioc_server_req_t *r, ioc_server_req_t **ready, ioc_server_req_t **ready_tail);

/* ---- batches: formed by merge.c, run by run.c ----------------------------
 *
 * A worker runs a *batch*: the request it took plus other ready requests of
 * the same kind on the same subfile whose extents touch it -- typically the
 * interleaved strided pieces of several ranks.  Ready requests never
 * conflict (the scheduler saw to that), so their pieces can be sorted by
 * offset and written or read as merged runs: one pwritev per contiguous run
 * instead of one per piece per rank.
 *
 * The batch moves in rounds: in round k every member's chunk k is in memory
 * (its own slot, its inline payload, or for own requests the client's
 * buffers), the pieces of those chunks are sorted into runs, and the runs go
 * to the disk.  Equal-sized requests of an interleaved pattern thus meet
 * chunk by chunk.  A lone request is a batch of one, in its own piece order.
 */
#define BATCH_MAX 16 /* members of one batch                      */

typedef struct member {
    ioc_server_req_t *r;
    uint64_t          i, po;                 /* cursor: piece i, byte po within it       */
    ioc_cursor_t      mc;                    /* cursor of the next chunk's messages      */
    uint64_t          k, nk;                 /* next round, rounds in all                */
    unsigned char    *slot;                  /* transfer buffer (remote, not inline)     */
    unsigned char    *slot2;                 /* a second one, if free: double buffering  */
    MPI_Request       req[2][IOC_SPLIT_MAX]; /* transfers in flight on each buffer */
    int               nreq[2];
    unsigned char    *buf;    /* this round's bytes, NULL: client buffers */
    uint64_t          n;      /* bytes this round                         */
    bool              failed; /* I/O failed: skip its pieces from now on  */
    bool              lost;   /* the client connection broke: stop        */
    h5sf_wire_reply_t rep;
} member_t;

typedef struct seg {
    uint64_t       off, len;
    unsigned char *p;
    uint32_t       m;
} seg_t;

/* What a request message of `len` bytes with `count` pieces over `total`
 * payload bytes costs an IOC while it is queued and run: the message, the
 * decoded piece list (offs, lens) and the worker's sort workspace (a seg_t
 * per piece, one more per chunk).  The progress thread admits a message of
 * len bytes only if IOC_COST_PER_BYTE * len more fits the budget (a piece
 * is 16 message bytes and costs 16 + 16 + 32), and clients split their
 * piece lists so that a message never needs more than a quarter of it
 * (ioc_max_pieces): a message with millions of pieces is no way around
 * H5SF_IOC_MEMORY. */
#define IOC_COST_PER_BYTE 4
static inline uint64_t ioc_msg_cost(uint64_t len, uint64_t count, uint64_t total)
{
    return len + count * 2 * sizeof(uint64_t) + (count + ioc_nchunks(total)) * sizeof(seg_t);
}
static inline uint64_t ioc_max_pieces(uint64_t mem_cap)
{
    uint64_t b = mem_cap / 4 / IOC_COST_PER_BYTE, fixed = H5SF_WIRE_HDR_SIZE + H5SF_WIRE_INLINE_MAX;
    return b > fixed + 16 ? (b - fixed) / 16 : 1;
}

/* Bytes of r can be addressed without a slot: own, inline, or empty.
 * (Local requests still get a slot when a worker runs them: merge.c.) */
static inline bool ioc_addressable(const ioc_server_req_t *r) { return r->self || r->data || r->h.total == 0; }

/* merge.c (lock held) */
/* The first ready request no lingering worker has claimed, unlinked; NULL
 * if there is none. */
ioc_server_req_t *ioc_merge_pick(h5sf_ioc_ctx_t *ctx);
/* q could join the batch a waiting worker has claimed. */
bool ioc_merge_claimed(const h5sf_ioc_ctx_t *ctx, const ioc_server_req_t *q);
/* Unlink q (after prev; NULL: the head) from the ready queue. */
void ioc_ready_unlink(h5sf_ioc_ctx_t *ctx, ioc_server_req_t *prev, ioc_server_req_t *q);
/* Form a batch around r (unlinked) in mb[0..BATCH_MAX); returns its size.
 * May wait on ctx->cond for companions.  Each own member gets a slot (see
 * ioc_self_t). */
int ioc_merge_take(h5sf_ioc_ctx_t *ctx, member_t *mb, ioc_server_req_t *r);

/* run.c (lock not held), for a worker: the batch's I/O, leaving each
 * member's answer in mb[j].rep (*segs, capacity *cap, is the worker's
 * reusable workspace); then, once worker.c has released the requests that
 * waited for the batch, the answers: replies sent, requests freed. */
void ioc_run_batch(h5sf_ioc_ctx_t *ctx, member_t *mb, int nm, seg_t **segs, size_t *cap);
void ioc_run_answer(h5sf_ioc_ctx_t *ctx, member_t *mb, int nm);

/* slots.c (lock held): a slot, waiting for one if `wait`, else NULL when
 * none is free; give one back (NULL is ignored); free the idle ones. */
unsigned char *ioc_slot_get(h5sf_ioc_ctx_t *ctx, bool wait);
void           ioc_slot_put(h5sf_ioc_ctx_t *ctx, unsigned char *p);
void           ioc_slots_trim(h5sf_ioc_ctx_t *ctx);
/* The smallest kept write copy of at least n bytes, its size in *cap, or
 * NULL (then allocate one of ioc_copy_size(n)).  Takes the lock. */
unsigned char *ioc_copy_take(h5sf_ioc_ctx_t *ctx, uint64_t n, uint64_t *cap);
uint64_t       ioc_copy_size(uint64_t n);
/* Keep copy p of cap bytes for a later write, or free it.  Takes the lock. */
void ioc_copy_keep(h5sf_ioc_ctx_t *ctx, unsigned char *p, uint64_t cap);
/* Free the kept copies.  Lock held. */
void ioc_copies_trim(h5sf_ioc_ctx_t *ctx);

/* worker.c */
int ioc_workers_start(h5sf_ioc_ctx_t *ctx, int n, h5sf_errbuf_t *e);
/* Stop the workers, waiting at most the context's timeout; false if some
 * are stuck: then they are detached and ctx->abandoned is set. */
bool ioc_workers_stop(h5sf_ioc_ctx_t *ctx);
/* Admit r in arrival order; queue it if it may run now.  Returns false if
 * the subfile is unknown (r untouched).  After a true return r belongs to
 * the workers: the caller must not touch it. */
bool ioc_submit(h5sf_ioc_ctx_t *ctx, ioc_server_req_t *r);
/* run.c */
void ioc_reply_error(h5sf_ioc_ctx_t *ctx, const h5sf_wire_hdr_t *h, int source, int err, const char *msg);
/* Receive and discard the payload of write h from source (error paths), so
 * that the client's sends end and no later request on its tag gets its
 * bytes; -1, with the reason in e, if not all of it came within the timeout
 * or MPI failed. */
int ioc_drain_payload(h5sf_ioc_ctx_t *ctx, const h5sf_wire_hdr_t *h, int source, h5sf_errbuf_t *e);
/* Refuse request h from source: take its payload (if messages), then reply
 * with err and msg (and why its payload was not taken, if it was not). */
void ioc_refuse(h5sf_ioc_ctx_t *ctx, const h5sf_wire_hdr_t *h, int source, int err, const char *msg);

/* ctx.c: a context with everything but its communicator (MPI_COMM_NULL),
 * not registered; test/unit_sched_mt.c runs workers on such contexts, with
 * requests to rank 0 of 1 that never touch MPI.  ioc_ctx_free also closes
 * the subfiles left and unregisters the context. */
h5sf_ioc_ctx_t *ioc_ctx_new(int rank, int size, int timeout_s, h5sf_errbuf_t *e);
void            ioc_ctx_free(h5sf_ioc_ctx_t *ctx, bool free_comm);

/* shm.c.  Setup is collective over ctx->comm and leaves ctx->shm NULL
 * (messages only) when shared memory is off or cannot be had; the rest is
 * local. */
int      ioc_shm_setup(h5sf_ioc_ctx_t *ctx, uint64_t seg, h5sf_errbuf_t *e);
void     ioc_shm_free(h5sf_ioc_ctx_t *ctx);
uint64_t ioc_shm_seg_size(const h5sf_ioc_ctx_t *ctx);
/* rank is another rank of this node with a segment. */
bool ioc_shm_peer(const h5sf_ioc_ctx_t *ctx, int rank);
/* IOC side: bytes [off, off + len) of rank's segment, NULL if out of it. */
unsigned char *ioc_shm_region(const h5sf_ioc_ctx_t *ctx, int rank, uint64_t off, uint64_t len);
/* Client side (application thread): take n bytes of our segment for q
 * (-1: no room now), the address of offset off, the oldest request holding
 * a region (NULL if none or it was given up), and give q's region back --
 * for reuse, or (reuse false: the request was given up) never. */
int                    ioc_shm_take(h5sf_ioc_ctx_t *ctx, h5sf_ioc_client_req_t *q, uint64_t n, uint64_t *off);
unsigned char         *ioc_shm_own(const h5sf_ioc_ctx_t *ctx, uint64_t off);
h5sf_ioc_client_req_t *ioc_shm_oldest(const h5sf_ioc_ctx_t *ctx);
void                   ioc_shm_give(h5sf_ioc_ctx_t *ctx, h5sf_ioc_client_req_t *q, bool reuse);
/* Doorbells.  Progress thread: arm this rank's bell (false: it has none, or
 * a rank of the context is on another node: keep polling), then, if a
 * probe finds nothing, sleep until rung (or a while); disarm if the probe
 * found something.  Client: wake IOC rank ioc's progress thread if it
 * sleeps on its bell (always: even if not armed, as stopping does). */
bool ioc_bell_arm(h5sf_ioc_ctx_t *ctx, uint32_t *seq);
void ioc_bell_disarm(h5sf_ioc_ctx_t *ctx);
/* Sleep on the bell; `naps`: sleeps in a row that timed out (each doubles
 * the bound).  True if this one timed out too. */
bool ioc_bell_sleep(h5sf_ioc_ctx_t *ctx, uint32_t seq, unsigned naps);
void ioc_bell_ring(h5sf_ioc_ctx_t *ctx, int ioc, bool always);

/* progress.c */
int  ioc_progress_start(h5sf_ioc_ctx_t *ctx, h5sf_errbuf_t *e);
void ioc_progress_stop(h5sf_ioc_ctx_t *ctx);

/* gate.c.  Every MPI call of ioc/ that may run beside the IOC threads goes
 * through IOC_MPI: once MPI_Finalize has begun (h5sf_ioc_finalize_begin)
 * it holds a process-wide gate for that one call, so that only one thread
 * is inside MPI at a time (MPICH stops serializing threads there); before,
 * it only counts itself.  Never hold the gate across anything but one
 * call.  (MPI_Get_address and MPI_Aint_diff, address arithmetic that
 * touches no MPI state, are left out.) */
bool ioc_call_enter(void);
void ioc_call_leave(bool gated);
#define IOC_MPI(call)                                                                                                  \
    __extension__({                                                                                                    \
        bool ioc_gated_ = ioc_call_enter();                                                                            \
        int  ioc_rc_    = (call);                                                                                      \
        ioc_call_leave(ioc_gated_);                                                                                    \
        ioc_rc_;                                                                                                       \
    })
/* The finalizing thread: close the gate for good, then wait (no MPI) at
 * most limit_ns for the calls already inside MPI without it; false if
 * some were still inside. */
bool ioc_gate_close(uint64_t limit_ns);
/* IOC threads also bracket every stretch of MPI calls (a progress step, a
 * batch run), counted in ctx->in_mpi: parking waits until no IOC thread
 * is inside one (ctx.c). */
void ioc_mpi_enter(h5sf_ioc_ctx_t *ctx);
void ioc_mpi_leave(h5sf_ioc_ctx_t *ctx);

/* subfile.c (lock held) */
ioc_sf_t *ioc_sf_find(h5sf_ioc_ctx_t *ctx, uint32_t file_id, uint32_t subfile);
/* Make sure sf has a descriptor (sf must be active, so it cannot be closed
 * under the caller); may close the least recently used idle one.  0 or an
 * errno. */
int ioc_sf_use(h5sf_ioc_ctx_t *ctx, ioc_sf_t *sf);

/* dtype.c: a datatype describing n (addr, len) pieces, relative to *base
 * (the first non-empty piece); *dt is MPI_BYTE with *count = len for one
 * small run.  Pieces over 1 GiB are split so every block length fits an int. */
int  ioc_dtype_make(size_t n, void *const *bufs, const uint64_t *lens, void **base, MPI_Datatype *dt, int *count,
                    h5sf_errbuf_t *e);
void ioc_dtype_free(MPI_Datatype *dt);

/* fault.c: the stall and hang faults of H5SF_FAULT (common/sysio.h has the
 * others, and the parsing). */
void ioc_fault_delay(h5sf_ioc_ctx_t *ctx);

/* affinity.c: name a new IOC thread and, with affinity_node, let it run on
 * any CPU of the node this process may use. */
void ioc_thread_setup(const h5sf_ioc_ctx_t *ctx, uv_thread_t t, const char *name);

/* clock.c: monotonic nanoseconds. */
uint64_t ioc_now_ns(void);
/* Sleep for a progress loop that found nothing to do: polls 0..15 spin,
 * 16..63 yield the core, later ones sleep, growing to 200 us. */
#define IOC_BACKOFF_SPINS  16
#define IOC_BACKOFF_YIELDS 64
void ioc_backoff(unsigned *idle);
/* The same for the idle progress thread: after IOC_IDLE_POLLS polls (the
 * yields, 100 sleeps growing from 1 to 199 us and 100 of 200 us: ~30 ms)
 * the sleeps grow to 1 ms; the progress thread arms its doorbell there. */
#define IOC_IDLE_POLLS 264
void ioc_backoff_idle(unsigned *idle);

#endif
