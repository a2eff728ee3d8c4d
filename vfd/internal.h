/*
 * internal.h -- shared by the files of the VFD layer (vfd/).
 *
 * Layers; a file calls only files of its own line or lines below it, and
 * within the top line only to the right (docs/architecture.md):
 *
 *   public API, class   fapl.c -> plugin.c -> h5sf.c -> open.c -> stats.c;  physical.c, finalize.c
 *   I/O planning        io.c, mpitype.c, topology.c
 *   channels            dispatch.c -> bracket.c -> channel.c -> samenode.c, ioc_channel.c, threadpool.c
 *   (ioc/ client, common/sysio.c)
 *   services            fapl_settings.c, registry.c, solo.c, mpi.c, err.c
 *
 *   fapl.c          H5Pset/get_fapl_h5sf, H5FD_h5sf_config_init, H5FD_h5sf_init
 *   plugin.c        the HDF5 plugin entry points, h5sf_register(), the MPI family check
 *   h5sf.c          the H5FD class: close, EOA/EOF, truncate, flush, delete, ctl, superblock
 *   open.c          its open callback in five steps
 *   finalize.c      the MPI_Finalize hook: files left open are drained, moved off the IOCs, closed
 *   stats.c         H5SF_STATS / H5SF_LOG output, H5FD_h5sf_get_stats/_layout/_last_transfer
 *   physical.c      H5FD_h5sf_get_files (no open file)
 *   io.c            read/write, vector and selection callbacks: flatten, stripe, dispatch
 *   mpitype.c       flattening of MPI derived datatypes (collective I/O)
 *   topology.c      which ranks are I/O concentrators
 *   dispatch.c      running a plan: a vector call per subfile on the IOC channel, or jobs for the pool
 *   bracket.c       the caller's COBEGIN/COEND bracket: depth, posted jobs, first failure
 *   channel.c       per-subfile channels (direct = descriptors, or the IOC channel), which one (pick)
 *   threadpool.c    the thread pool running the subfile transfers h5sf does itself together, and
 *                   the caller's COBEGIN/COEND batch on it (threadpool.h)
 *   samenode.c      IOC channel: the same-node shortcut, I/O of subfiles whose IOC is on this node
 *                   done by the caller (which requests: its opening comment)
 *   ioc_channel.c   the "h5sf_ioc" VFD class: ships vectors to the IOC daemons; the stage account
 *   fapl_settings.c the settings in effect for a fapl (driver info, config string, environment)
 *   registry.c      the list of open files
 *   solo.c          files without MPI (a serial program that did not start it), the collectives
 *                   that take the local case for them
 *   mpi.c           MPI life cycle (the finalize hook); h5sf_agree is an inline below
 *   err.c           the error class (H5SF_PUSH and H5SF_GOTO are macros, below)
 *   hdf5priv.c      HDF5's private API context (looked up at run time), the version check
 */
#ifndef H5SF_VFD_INTERNAL_H
#define H5SF_VFD_INTERNAL_H

#include <stdint.h>
#include <stdbool.h>
#include <mpi.h>
#include <hdf5.h>
#include "h5sf.h"
#include "fapl_settings.h"
#include "../common/alloc.h"
#include "../common/layout.h"
#include "../common/stripe.h"
#include "../common/sysio.h"
#include "../ioc/ioc.h"

#define H5SF_API __attribute__((visibility("default")))

/* ---- errors (err.c) --------------------------------------------------- */
extern hid_t h5sf_err_class;
int          h5sf_err_init(void);
void         h5sf_err_term(void);
/* Compile-time printf check of H5SF_PUSH's arguments (never called). */
static inline __attribute__((format(printf, 1, 2))) void h5sf_err_fmt(const char *fmt, ...) { (void)fmt; }

/* Push an error on h5sf's class naming the caller's file, function and line
 * (the one call of H5Epush2 in h5sf). */
#define H5SF_PUSH(maj, min, ...)                                                                                       \
    do {                                                                                                               \
        if (0)                                                                                                         \
            h5sf_err_fmt(__VA_ARGS__);                                                                                 \
        if (h5sf_err_init() == 0)                                                                                      \
            H5Epush2(H5E_DEFAULT, __FILE__, __func__, __LINE__, h5sf_err_class, maj, min, __VA_ARGS__);                \
    } while (0)

/* Push an error and jump to the function's single `done:` exit. */
#define H5SF_GOTO(ret, maj, min, ...)                                                                                  \
    do {                                                                                                               \
        H5SF_PUSH(maj, min, __VA_ARGS__);                                                                              \
        ret_value = (ret);                                                                                             \
        goto done;                                                                                                     \
    } while (0)
/* Same, with the text of an h5sf_errbuf_t from common/ or ioc/.  A system
 * call's errno is added in HDF5's own form (sec2's ", errno = 2, error
 * message = '...'"), which callers such as h5py read to tell "does not
 * exist" from "exists" from "permission denied". */
#define H5SF_GOTO_EB(ret, maj, min, eb)                                                                                \
    do {                                                                                                               \
        if ((eb)->err_no > 0)                                                                                          \
            H5SF_GOTO(ret, maj, min, "%s, errno = %d, error message = '%s'", (eb)->msg, (eb)->err_no,                  \
                      h5sf_sysio_strerror((eb)->err_no));                                                              \
        H5SF_GOTO(ret, maj, min, "%s", (eb)->msg);                                                                     \
    } while (0)

/* ---- HDF5 beyond its public API (hdf5priv.c) -------------------------- */
/* Whether HDF5 runs the current transfer collectively. */
bool h5sf_priv_collective(hid_t dxpl);
/* HDF5's memory and file MPI datatypes of the current collective transfer
 * of memory type `type`. */
int h5sf_priv_coll_datatypes(H5FD_mem_t type, MPI_Datatype *btype, MPI_Datatype *ftype, h5sf_errbuf_t *e);
/* 0 if the running HDF5 is in the tested range (or overridden), else pushes
 * an HDF5 error naming the range and returns -1. */
int h5sf_check_hdf5_version(void);

/* ---- MPI (mpi.c) ------------------------------------------------------ */
/* For an open or delete on a communicator: fails unless MPI is initialized
 * and not finalized (h5sf never starts it); registers the MPI_Finalize hook;
 * returns the thread level. */
int h5sf_mpi_ensure(int *provided, h5sf_errbuf_t *e);
/* True once MPI_Finalize has started: nothing may call MPI after that. */
bool h5sf_mpi_finalizing(void);
bool h5sf_mpi_usable(void); /* initialized, not finalized or finalizing */
/* The fapl's communicator (driver info, else MPI parameters), else
 * MPI_COMM_SELF for a fapl that names none (*named false: a serial open). */
int h5sf_fapl_comm(hid_t fapl_id, const H5FD_h5sf_config_t *cfg, MPI_Comm *comm, MPI_Info *info, bool *named,
                   h5sf_errbuf_t *e);
/* Register a callback run (once) from the MPI_COMM_SELF delete-attribute hook. */
void          h5sf_mpi_on_finalize(void (*fn)(void));
H5SF_API void h5sf_mpi_finalize_now(void); /* exported: the preload shim's MPI_Finalize */
/* Collective: if any rank failed, every rank fails with the message of the
 * lowest failing rank (prefixed with its rank).  Returns 0 or -1.  The one
 * implementation is ioc/ctx.c's h5sf_ioc_agree: the IOC's collectives need
 * it too, and ioc/ may not call up into vfd/ (common/ has no MPI).  This
 * name is the VFD's, for steps that are not the IOC's (open, the direct
 * channel, close), so a reader of vfd/ sees no IOC where there is none. */
static inline int h5sf_agree(MPI_Comm comm, int failed_here, h5sf_errbuf_t *e)
{
    return h5sf_ioc_agree(comm, failed_here, e);
}

/* ---- files without MPI (solo.c) ---------------------------------------- */
/* True if an open or delete of fapl_id runs without MPI: MPI is not usable
 * (not initialized, or finalized) and the fapl names no communicator.  The
 * file's comm is then MPI_COMM_NULL: one process, rank 0 of 1. */
bool h5sf_solo_open(hid_t fapl_id);
/* Collectives on comm; on MPI_COMM_NULL the local case, without MPI
 * (h5sf_agree too).  Reductions take MPI_INT or MPI_UINT64_T; reduce's
 * root is 0. */
void h5sf_coll_rank_size(MPI_Comm comm, int *rank, int *size);
int  h5sf_coll_bcast(void *buf, int len, int root, MPI_Comm comm);
int  h5sf_coll_allreduce(const void *in, void *out, int n, MPI_Datatype t, MPI_Op op, MPI_Comm comm);
int  h5sf_coll_reduce(const void *in, void *out, int n, MPI_Datatype t, MPI_Op op, MPI_Comm comm);

/* ---- settings (fapl_settings.c) ---------------------------------------- */
/* The settings an open of fapl_id would use: driver info or defaults, the
 * driver config string, the environment; validated. */
int h5sf_fapl_resolve(hid_t fapl_id, H5FD_h5sf_config_t *out, h5sf_errbuf_t *e);
/* H5SF_SAMENODE_READS (default on) / H5SF_SAMENODE_WRITES (default all:
 * a same-node rank writes its sparse requests itself too). */
enum { H5SF_SAMENODE_NONE, H5SF_SAMENODE_DENSE, H5SF_SAMENODE_ALL };
int h5sf_samenode_settings(bool *reads, int *writes, h5sf_errbuf_t *e);
/* H5SF_POOL_THREADS: pool workers one call may use (0..15, default 15). */
int h5sf_pool_setting(int *threads, h5sf_errbuf_t *e);

/* ---- topology (topology.c) -------------------------------------------- */
/* Choose IOC ranks of comm per config, for a file of nsubfiles subfiles (0:
 * as many as IOCs); *iocs is malloc'd, in the built-in driver's order (node
 * by node, see common/iocmap.h).  *leads (malloc'd) names every rank's node
 * by its lowest rank: ranks r and q share a node iff leads[r] == leads[q].
 * Collective. */
int h5sf_topology_select(MPI_Comm comm, const H5FD_h5sf_config_t *cfg, int32_t nsubfiles, int **iocs, int *nioc,
                         int *nnodes, int **leads, h5sf_errbuf_t *e);
/* Drop the nodes kept for later opens (at MPI_Finalize and when HDF5
 * terminates the driver).  No MPI. */
void h5sf_topology_forget(void);

/* ---- channels (channel.c) --------------------------------------------- */
typedef struct h5sf_file         h5sf_file_t;
typedef struct h5sf_samenode_ent h5sf_samenode_ent_t; /* samenode.c's */

/* The IOC channel class (ioc_channel.c) and its fapl info. */
typedef struct h5sf_ioc_fa {
    h5sf_ioc_ctx_t *ctx;
    uint32_t        file_id;
    uint32_t        subfile;
    int32_t         ioc_rank;
} h5sf_ioc_fa_t;
hid_t h5sf_ioc_channel_register(void);

int h5sf_channels_open(h5sf_file_t *f, unsigned flags, h5sf_errbuf_t *e);
int h5sf_channels_close(h5sf_file_t *f, h5sf_errbuf_t *e);
/* Collective, at MPI_Finalize once the IOCs have stopped: an IOC-channel
 * file reaches its subfiles directly from now on, as on the direct channel
 * (every rank must see them).  On failure it keeps its IOC channels. */
int h5sf_channels_direct(h5sf_file_t *f, h5sf_errbuf_t *e);
/* Collective: every subfile sized to what eoa implies. */
int h5sf_channels_truncate(h5sf_file_t *f, haddr_t eoa, h5sf_errbuf_t *e);
/* fsync (or flush) every channel. */
int h5sf_channels_sync(h5sf_file_t *f, h5sf_errbuf_t *e);
/* dispatch.c: send the planned request (f->plan) down the channels.
 * post: the call may leave its transfers in flight when the caller's
 * bracket is open (f->co; an independent call), else it waits for them. */
int h5sf_channels_dispatch(h5sf_file_t *f, bool is_write, bool post, h5sf_errbuf_t *e);
/* dispatch.c: free the working space kept with the file (at its free). */
void h5sf_channels_free(h5sf_file_t *f);
/* channel.c: count one finished subfile call (a vector call or a job) of
 * `bytes` bytes in f->stats; finish job j of subfile s: count it, and
 * unless `failed` turn its errno into e.  Returns whether the transfers so
 * far failed. */
void h5sf_count_subfile_call(h5sf_file_t *f, int s, bool is_write, uint64_t bytes);
struct h5sf_pool_job;
int h5sf_pio_done(h5sf_file_t *f, bool is_write, const struct h5sf_pool_job *j, int s, uint64_t bytes, int failed,
                  h5sf_errbuf_t *e);
/* channel.c: keep the caller's HDF5 error stack across calls into the
 * stacked IOC channel (an id, or H5I_INVALID_HID: nothing to keep); back
 * puts it back. */
hid_t h5sf_stack_keep(void);
void  h5sf_stack_back(hid_t keep);

/* ---- the caller's COBEGIN/COEND bracket (bracket.c owns it) ------------- */
/* H5FD_H5SF_CTL_COBEGIN: open f->co or nest one deeper. */
int h5sf_bracket_begin(h5sf_file_t *f, h5sf_errbuf_t *e);
/* H5FD_H5SF_CTL_COEND: the outermost waits for all of the bracket and
 * closes it.  0, or why not (e: the failed transfer's cause, if one did). */
enum {
    H5SF_BRACKET_NONE             = -1, /* no bracket open                           */
    H5SF_BRACKET_FAILED           = -2, /* a transfer of the bracket failed          */
    H5SF_BRACKET_FINALIZED        = -3, /* left open across MPI_Finalize, which waited */
    H5SF_BRACKET_FINALIZED_FAILED = -4  /* the same, and a transfer failed           */
};
int h5sf_bracket_end(h5sf_file_t *f, h5sf_errbuf_t *e);
/* Wait for everything posted so far; -1 with the first failure's cause if
 * any transfer of the bracket failed (the failure stays the bracket's
 * until it closes).  0 without a bracket. */
int h5sf_bracket_drain(h5sf_file_t *f, h5sf_errbuf_t *e);
/* Drain and free the bracket, whatever its depth (close). */
int h5sf_bracket_close(h5sf_file_t *f, h5sf_errbuf_t *e);
/* dispatch.c's side: subfile s's IOC channel was left in COBEGIN; jobs
 * [0..n) of subfiles js run without the caller waiting. */
void h5sf_bracket_mark(h5sf_file_t *f, int s);
int  h5sf_bracket_post(h5sf_file_t *f, bool is_write, const struct h5sf_pool_job *jobs, const int *js, int n,
                       h5sf_errbuf_t *e);

/* ---- the file --------------------------------------------------------- */
struct h5sf_file {
    H5FD_t pub;                 /* must be first: HDF5 owns this part */
    struct {                    /* what was opened, and how */
        H5FD_h5sf_config_t cfg; /* settings in effect (env applied)        */
        h5sf_layout_t      layout;
        char              *name;  /* stub path as given                      */
        unsigned           flags; /* H5F_ACC_*                               */
    };
    struct {                        /* what a create made, for its undo when it fails */
        bool           made_stub;   /* rank 0: the stub is new                */
        bool           made_config; /* rank 0: the config file was written   */
        bool           own_names;   /* a config file of this stub named these
                                       subfiles before: one left there is the
                                       set's own (h5sf_subfile_create)       */
        unsigned char *made;        /* per subfile: this rank created it      */
    };
    struct {           /* the file's communicator */
        MPI_Comm comm; /* our dup of the file's communicator      */
        MPI_Info info;
        int      rank, size;
        bool     serial; /* the fapl named no communicator: MPI_COMM_SELF,
                            or MPI_COMM_NULL without MPI (solo.c);
                            HDF5 sees a serial driver (h5sf_query) */
    };
    struct {          /* placement, chosen at open */
        int  channel; /* H5FD_H5SF_CHANNEL_IOC or _DIRECT        */
        int *iocs;    /* IOC ranks in comm, in the built-in driver's node order */
        int  nioc;
        int  nnodes;
        int *leads; /* node of each rank, during open only     */
    };
    struct {             /* extent */
        int     stub_fd; /* superblock mirror for legacy tools      */
        haddr_t eoa, eof;
        bool    eof_long; /* a subfile extends past eof: truncate even if eoa == eof */
        haddr_t wend;     /* end of this rank's writes since open or truncate */
    };
    struct { /* IOC channel */
        h5sf_ioc_ctx_t *ctx;
        uint32_t        file_id;
        H5FD_t        **chan;     /* one per subfile                         */
        haddr_t        *chan_eoa; /* EOA set on each of them                 */
    };
    struct {                                /* same-node shortcut (samenode.c) */
        int                 *samenode_fd;   /* subfiles on this node, -1               */
        h5sf_samenode_ent_t *samenode_ents; /* per subfile: its place in the use order */
        unsigned char       *samenode_state;
        int                  samenode_cap;
        bool                 samenode_reads;
        int                  samenode_writes; /* H5SF_SAMENODE_NONE, _DENSE or _ALL   */
    };
    struct {               /* direct channel */
        int *fd;           /* descriptors, -1: none                   */
        int  pool_threads; /* H5SF_POOL_THREADS                       */
    };
    struct { /* one call's working space, reused from call to call */
        sf_plan_t             plan;
        struct seq_side      *sides; /* io.c's selection walk                   */
        struct h5sf_pool_job *jobs;  /* dispatch.c's jobs (stripe_count)        */
        int                  *js;    /* their subfiles                          */
        struct h5sf_vecbuf   *vec;   /* dispatch.c's vector arrays (IOC channel) */
    };
    struct {                     /* the caller's COBEGIN/COEND bracket */
        struct h5sf_bracket *co; /* open bracket (bracket.c), or NULL */
        /* The bracket was open at MPI_Finalize, whose hook waited for it
         * (h5sf.c): every later call but close fails, saying so. */
        bool co_finalized;
    };
    struct { /* accounting */
        h5sf_stats_t stats;
        /* The per-call report (H5FD_h5sf_get_last_transfer): every call
         * resets *xcur (xfer for raw data, xmeta otherwise), each dispatch
         * round adds to it.  xmark[s] = (xseq << 7) | slot of subfile s in
         * this call. */
        H5FD_h5sf_transfer_t xfer, xmeta, *xcur;
        uint64_t            *xmark;
        uint64_t             xseq;
        uint64_t             via_requests[H5FD_H5SF_VIA_KINDS], via_bytes[H5FD_H5SF_VIA_KINDS]; /* all calls */
        bool                 stats_transfers; /* this rank's H5SF_STATS=transfers */
        bool                 stats_on;        /* H5SF_STATS, rank 0's (report at close) */
    };
    bool         mpi_dead; /* MPI finalized under us: close locally */
    h5sf_file_t *next;     /* registry of open files (registry.c)   */
};

static inline int h5sf_owner(const h5sf_file_t *f, int subfile) { return f->iocs[subfile % f->nioc]; }

/* channel.c: the channel an open of f takes, the one rule (its comment);
 * *why (may be NULL) says why in H5SF_LOG's words. */
H5FD_h5sf_channel_t h5sf_channel_pick(const h5sf_file_t *f, int provided, const char **why);

/* The maxaddr of the driver and of its IOC channels (not HADDR_MAX:
 * subfile offsets must fit an off_t). */
#define H5SF_MAXADDR ((haddr_t)(H5SF_ADDR_LIMIT - 1))

/* Subfiles with counters of their own in a report: h5sf_stats_t's
 * subfile_messages and H5FD_h5sf_transfer_t's subfile entries (the first
 * ones; include/h5sf.h). */
#define H5SF_REPORT_SUBFILES H5FD_H5SF_TRANSFER_SUBFILES
_Static_assert(sizeof((h5sf_stats_t *)0)->subfile_messages / sizeof(uint64_t) == H5SF_REPORT_SUBFILES,
               "h5sf_stats_t.subfile_messages and H5FD_H5SF_TRANSFER_SUBFILES count the same subfiles");

/* samenode.c: the IOC channel's same-node shortcut (which requests take it:
 * its opening comment). */
int h5sf_samenode_init(h5sf_file_t *f, h5sf_errbuf_t *e); /* collective */
/* The descriptor for this request to subfile s (sorted piece list l,
 * ending at `end`), or -1: send it to the IOC. */
int  h5sf_samenode_fd(h5sf_file_t *f, int s, bool is_write, const sf_list_t *l, haddr_t end);
void h5sf_samenode_close(h5sf_file_t *f);
/* A request starts: the descriptors it uses from now on stay open until
 * the next one (the descriptor budget closes only ones not in use). */
void h5sf_samenode_begin(void);

/* Count one vector call of a dispatch round in the running call's report
 * (f->xcur, reset by io.c): subfile s, its `pieces` pieces of `bytes`
 * bytes, sent `via` (H5FD_H5SF_VIA_*).  O(1), no allocation. */
static inline void h5sf_report_add(h5sf_file_t *f, int s, int via, uint64_t pieces, uint64_t bytes)
{
    H5FD_h5sf_transfer_t *t    = f->xcur;
    uint64_t              mark = f->xmark[s];
    unsigned              slot;
    if (!t)
        return;
    if ((mark >> 7) == f->xseq)
        slot = (unsigned)(mark & 127);
    else {
        slot        = t->nsubfile < H5FD_H5SF_TRANSFER_SUBFILES ? (unsigned)t->nsubfile++ : H5FD_H5SF_TRANSFER_SUBFILES;
        f->xmark[s] = (f->xseq << 7) | slot;
        t->subfiles++;
        if (slot < H5FD_H5SF_TRANSFER_SUBFILES) {
            H5FD_h5sf_transfer_subfile_t z = {
                s, f->channel == H5FD_H5SF_CHANNEL_IOC ? h5sf_owner(f, s) : -1, 0, 0, 0, 0, 0};
            t->subfile[slot] = z;
        }
    }
    const uint64_t msg = via == H5FD_H5SF_VIA_IOC_REMOTE || via == H5FD_H5SF_VIA_IOC_SELF;
    if (slot < H5FD_H5SF_TRANSFER_SUBFILES) {
        H5FD_h5sf_transfer_subfile_t *e = &t->subfile[slot];
        e->via |= 1u << via;
        e->requests++;
        e->messages += msg;
        e->pieces += pieces;
        e->bytes += bytes;
    }
    t->pieces_out += pieces;
    t->bytes += bytes;
    t->messages += msg;
    t->via_requests[via]++;
    t->via_bytes[via] += bytes;
    f->via_requests[via]++;
    f->via_bytes[via] += bytes;
}
/* The way subfile s's request goes: `samenode`: on the descriptor
 * samenode.c chose for it. */
static inline int h5sf_report_via(const h5sf_file_t *f, int s, bool samenode)
{
    if (f->channel != H5FD_H5SF_CHANNEL_IOC)
        return H5FD_H5SF_VIA_DIRECT;
    if (samenode)
        return H5FD_H5SF_VIA_SAMENODE;
    return h5sf_owner(f, s) == f->rank ? H5FD_H5SF_VIA_IOC_SELF : H5FD_H5SF_VIA_IOC_REMOTE;
}

/* io.c */
herr_t h5sf_read(H5FD_t *file, H5FD_mem_t type, hid_t dxpl, haddr_t addr, size_t size, void *buf);
herr_t h5sf_write(H5FD_t *file, H5FD_mem_t type, hid_t dxpl, haddr_t addr, size_t size, const void *buf);
herr_t h5sf_read_vector(H5FD_t *file, hid_t dxpl, uint32_t count, H5FD_mem_t types[], haddr_t addrs[], size_t sizes[],
                        void *bufs[]);
herr_t h5sf_write_vector(H5FD_t *file, hid_t dxpl, uint32_t count, H5FD_mem_t types[], haddr_t addrs[], size_t sizes[],
                         const void *bufs[]);
herr_t h5sf_read_selection(H5FD_t *file, H5FD_mem_t type, hid_t dxpl, size_t count, hid_t mem_spaces[],
                           hid_t file_spaces[], haddr_t offsets[], size_t element_sizes[], void *bufs[]);
herr_t h5sf_write_selection(H5FD_t *file, H5FD_mem_t type, hid_t dxpl, size_t count, hid_t mem_spaces[],
                            hid_t file_spaces[], haddr_t offsets[], size_t element_sizes[], const void *bufs[]);

/* Where a flattener puts an extent (logical addr, len, memory address mem):
 * io.c's planner, which runs a round when the plan is full, or a test's own
 * collector.  -1 with the error filled by the callee. */
typedef int (*h5sf_extent_fn)(void *arg, uint64_t addr, uint64_t len, uint64_t mem);

/* mpitype.c: extents of a collective call described by HDF5's MPI datatypes
 * (memory btype at buf, file ftype at addr), handed to add(arg, ...) in
 * order; -1 with e filled if add fails or the datatypes are refused. */
int h5sf_coll_extents(h5sf_extent_fn add, void *arg, haddr_t addr, size_t size, const void *buf, MPI_Datatype btype,
                      MPI_Datatype ftype, h5sf_errbuf_t *e);
/* mpitype.c, for t_mpitype: one instance of t as contiguous byte runs in
 * typemap order (adjacent runs merged), displacements from t's origin;
 * *runs is malloc'd; *visits counts the datatype nodes read. */
typedef struct h5sf_run {
    MPI_Aint disp, len;
} h5sf_run_t;
int h5sf_mpitype_runs(MPI_Datatype t, h5sf_run_t **runs, size_t *nruns, uint64_t *visits, h5sf_errbuf_t *e);
/* channel.c: save the newest HDF5 error text (public calls clear the stack). */
void h5sf_err_capture(h5sf_errbuf_t *eb, const char *fallback);

/* ---- public API and class (h5sf.c, plugin.c, stats.c) ------------------ */
extern const H5FD_class_t h5sf_class;
extern hid_t              h5sf_id; /* h5sf.c: set by h5sf_register() */
/* plugin.c: the driver's id (registers it if the plugin loader did not). */
hid_t h5sf_register(void);
/* stats.c: H5SF_STATS summary at close (collective when f->stats_on),
 * H5SF_LOG at open.  h5sf_stats_wanted(): this rank's H5SF_STATS. */
bool h5sf_stats_wanted(void);
bool h5sf_stats_transfers_wanted(void); /* H5SF_STATS=transfers */
/* stats.c: H5FD_H5SF_CTL_GET_STATS (out->size bytes at most; include/h5sf.h). */
void h5sf_stats_get(const h5sf_file_t *f, h5sf_stats_t *out);
void h5sf_transfer_get(const h5sf_file_t *f, H5FD_h5sf_transfer_t *out); /* _CTL_GET_TRANSFER */
void h5sf_stats_report(h5sf_file_t *f);
void h5sf_log_open(h5sf_file_t *f, int provided);

/* ---- registry of open files (registry.c) -------------------------------- */
void h5sf_registry_add(h5sf_file_t *f);
void h5sf_registry_remove(h5sf_file_t *f);
/* The first open file (then ->next), for walks over all of them. */
h5sf_file_t *h5sf_registry_first(void);

/* open.c: the class's open callback, and what close and delete share with it. */
H5FD_t *h5sf_open(const char *name, unsigned flags, hid_t fapl_id, haddr_t maxaddr);
void    h5sf_file_free(h5sf_file_t *f);
void    h5sf_fallback_cfg(hid_t fapl_id, H5FD_h5sf_config_t *cfg);

/* The MPI_Finalize hook (finalize.c): close what is still open while MPI
 * works, and mark the rest. */
void h5sf_on_mpi_finalize(void);
/* f if it is an open h5sf file, else NULL. */
h5sf_file_t *h5sf_registry_find(const void *f);

#endif
