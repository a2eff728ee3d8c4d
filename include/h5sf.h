/*
 * h5sf.h -- public interface of the h5sf subfiling virtual file driver.
 *
 * h5sf stripes one logical HDF5 file over several subfiles and funnels the
 * I/O of each subfile through an I/O concentrator (IOC) rank.  The driver is
 * normally loaded as an HDF5 VFD plugin ("h5sf"); linking against this header
 * is only needed for H5Pset_fapl_h5sf() and the statistics/file-list calls.
 */
#ifndef H5SF_H
#define H5SF_H

#include <stdint.h>
#include <mpi.h>
#include <hdf5.h>

#ifdef __cplusplus
extern "C" {
#endif

#define H5FD_H5SF_NAME      "h5sf"
#define H5FD_H5SF_VALUE     ((H5FD_class_value_t)311) /* testing range 256-511 */
#define H5FD_H5SF_IOC_NAME  "h5sf_ioc"
#define H5FD_H5SF_IOC_VALUE ((H5FD_class_value_t)312)

/* H5FDctl opcodes (experimental range 512-1023).  A layer that does not know
 * COBEGIN/COEND ignores them and simply runs the bracketed calls in order.
 *
 * COBEGIN/COEND on an h5sf file (H5FDopen'ed, or reached through a
 * pass-through VFD with H5FD_CTL_ROUTE_TO_TERMINAL_VFD_FLAG): after
 * COBEGIN each independent read/write call (H5FDwrite, H5FDread, their
 * _vector and _selection forms) posts its subfile transfers and returns
 * without waiting; COEND waits for all of them and fails, naming subfile,
 * offset and cause, if any failed (an IOC that does not answer fails it
 * after the `timeout` setting).  If several failed, it names one: not
 * necessarily the first in time, but the first h5sf finds when it waits --
 * requests to IOCs, by subfile, before the transfers the calling rank runs
 * itself, in the order they were posted.  Until COEND returns:
 *   - every buffer given to a bracketed call must stay valid and unchanged
 *     (reads land in them as the transfers complete);
 *   - the transfers of the bracket are not ordered with respect to each
 *     other: do not read what the same bracket writes, nor write one
 *     range twice.
 * A call that fails to post fails at once; a transfer that fails later
 * fails the COEND.  Brackets nest: only the outermost COEND waits (an
 * unmatched COEND fails).  A collective call (MPI-IO collective transfer
 * mode) inside a bracket first completes what the bracket posted, then runs
 * as outside one.  H5FDflush, H5FDtruncate and H5FDclose inside a bracket
 * complete what it posted first and fail if that failed (close still
 * closes).  A bracket still open when MPI_Finalize starts is waited for
 * there (a failure is said on stderr); every later call on that file then
 * fails saying so -- COEND and H5FDclose with the bracket's outcome -- and
 * only H5FDclose frees it.  The bracket belongs to the file, not the thread
 * (HDF5 runs one call at a time).  HDF5 1.14 defines no IGNORE_IF_UNKNOWN flag: without
 * H5FD_CTL_FAIL_IF_UNKNOWN_FLAG an unknown opcode is ignored. */
#define H5FD_H5SF_CTL_COBEGIN      595 /* start posting requests without waiting  */
#define H5FD_H5SF_CTL_COEND        596 /* wait for all posted requests            */
#define H5FD_H5SF_CTL_GET_STATS    597 /* output: h5sf_stats_t *                  */
#define H5FD_H5SF_CTL_GET_LAYOUT   598 /* output: H5FD_h5sf_layout_t *            */
#define H5FD_H5SF_CTL_GET_TRANSFER 599 /* output: H5FD_h5sf_transfer_t *        */

#define H5FD_H5SF_CONFIG_MAGIC   0x48355346u /* "H5SF" */
#define H5FD_H5SF_CONFIG_VERSION 1u
#define H5FD_H5SF_PATH_MAX       4096

/* Which channel carries per-subfile I/O. */
typedef enum {
    H5FD_H5SF_CHANNEL_AUTO = 0, /* direct on one node; across nodes IOC with
                                 * MPI_THREAD_MULTIPLE, else direct         */
    H5FD_H5SF_CHANNEL_IOC,      /* through the I/O concentrators            */
    H5FD_H5SF_CHANNEL_DIRECT    /* every rank writes its own pieces         */
} H5FD_h5sf_channel_t;

/* How I/O concentrator ranks are chosen.  As in HDF5's built-in subfiling
 * driver, every mode takes the ranks node by node (nodes in the order of
 * their lowest rank, ranks ascending within a node) and the IOCs keep that
 * order: subfile k is served by IOC k mod (IOC count). */
typedef enum {
    H5FD_H5SF_IOC_PER_NODE = 0, /* ioc_param per node (default 1)            */
    H5FD_H5SF_IOC_EVERY_NTH,    /* positions 0, N, 2N, ... node by node      */
    H5FD_H5SF_IOC_TOTAL,        /* N, at a stride of (ranks-1)/(N-1)         */
    H5FD_H5SF_IOC_LIST          /* explicit ranks in ioc_list, e.g. "0;4;8"  */
} H5FD_h5sf_ioc_mode_t;

/* Zero in a numeric field and "" in a string field mean "default". */
typedef struct H5FD_h5sf_config_t {
    uint32_t             magic;        /* H5FD_H5SF_CONFIG_MAGIC   */
    uint32_t             version;      /* H5FD_H5SF_CONFIG_VERSION */
    int64_t              stripe_size;  /* bytes per stripe (default 32 MiB)   */
    int32_t              stripe_count; /* subfiles (default: min(4, ranks per IOC) per IOC) */
    H5FD_h5sf_ioc_mode_t ioc_mode;
    int32_t              ioc_param; /* N for PER_NODE / EVERY_NTH / TOTAL   */
    char                 ioc_list[1024];
    int32_t              threads; /* IOC worker threads (default 4)      */
    H5FD_h5sf_channel_t  channel;
    int32_t              fsync;                           /* 1: fsync subfiles at flush           */
    int32_t              timeout;                         /* seconds a client waits for an IOC (default 300) */
    char                 subfile_dir[H5FD_H5SF_PATH_MAX]; /* default: stub's directory */
    char                 config_dir[H5FD_H5SF_PATH_MAX];  /* default: stub's directory */
    MPI_Comm             comm;                            /* NULL: the fapl's MPI params, else MPI_COMM_SELF (serial) */
    MPI_Info             info;                            /* duplicated by H5Pset_fapl_h5sf, as H5Pset_fapl_mpio does */
} H5FD_h5sf_config_t;

/* Fill *config with defaults (all "default" markers, comm = MPI_COMM_NULL). */
H5_DLL herr_t H5FD_h5sf_config_init(H5FD_h5sf_config_t *config);
H5_DLL hid_t  H5FD_h5sf_init(void);
H5_DLL herr_t H5Pset_fapl_h5sf(hid_t fapl_id, const H5FD_h5sf_config_t *config);
/* Reports the values in effect: fapl, then environment overrides applied.
 * comm and info, when not MPI_COMM_NULL / MPI_INFO_NULL, are duplicates the
 * caller frees (MPI_Comm_free, MPI_Info_free), as with H5Pget_fapl_mpio. */
H5_DLL herr_t H5Pget_fapl_h5sf(hid_t fapl_id, H5FD_h5sf_config_t *config);

/* The counters of h5sf_stats_t, one line each (an X-macro: the struct, the
 * library's copy of its IOC's counters, the reduction over ranks and
 * H5SF_STATS's close summary all expand this list, so a new counter is this
 * line and the statement that counts it):
 *   X(field, reduce, source, head, text)
 * field   the h5sf_stats_t member (uint64_t);
 * reduce  how the close summary combines the ranks: sum, max, secs (a sum of
 *         nanoseconds, printed in seconds) or none (not in the summary);
 * source  vfd: counted by this rank's VFD calls on the file; ioc.<counter>:
 *         taken from this rank's I/O concentrator (all files on the
 *         communicator; zero on ranks that are not IOCs or with the direct
 *         channel), combined with the VFD's own count by `reduce`;
 * head    the summary line it starts ("": a continuation line), or 0 to
 *         continue the line before;
 * text    its words in the summary (one printf conversion).
 * New counters go at the end: the struct's size field relies on it. */
#define H5FD_H5SF_STATS_COUNTERS(X)                                                                                    \
    X(read_calls, sum, vfd, "VFD calls", "%llu reads")                                                                 \
    X(write_calls, sum, vfd, 0, ", %llu writes")                                                                       \
    X(pieces_in, sum, vfd, "pieces", "%llu in") /* before merging */                                                   \
    X(pieces_out, sum, vfd, 0, ", %llu after striping and merging")                                                    \
    X(messages, sum, vfd, "requests", "%llu subfile requests")                                                         \
    X(cobegin_max_inflight, max, ioc.max_inflight, 0, ", %llu most in flight at once")                                 \
    X(samenode_reads, sum, vfd, "", "%llu reads") /* subfile I/O that skipped the IOC (same node) */                   \
    X(samenode_writes, sum, vfd, 0, " and %llu writes straight to subfiles on the IOC's node")                         \
    X(bytes_read, sum, vfd, "bytes", "%llu read")                                                                      \
    X(bytes_written, sum, vfd, 0, ", %llu written")                                                                    \
    X(ioc_requests, sum, ioc.requests_served, "IOC", "%llu requests served")                                           \
    X(ioc_merged, sum, ioc.merged, 0, " (%llu merged into another's runs)")                                            \
    X(ioc_syscalls, sum, ioc.syscalls, 0, ", %llu pwritev/preadv")                                                     \
    X(ioc_merge_waits, sum, ioc.merge_waits, "", "%llu waits for other ranks' requests to merge with")                 \
    X(ioc_queue_wait_ns, secs, ioc.queue_wait_ns, "", "%.3f s queue wait")                                             \
    X(ioc_io_ns, secs, ioc.io_ns, 0, ", %.3f s executing")                                                             \
    X(ioc_open_fds, none, ioc.open_fds, 0, "subfile descriptors open now")                                             \
    X(ioc_reopens, none, ioc.reopens, 0, "subfiles reopened after the descriptor cap")                                 \
    X(ioc_slots, none, ioc.slots, 0, "transfer buffers held now (8 MiB each)")

/* Per-file statistics, summed over this rank's calls (H5FD_H5SF_CTL_GET_STATS,
 * H5FD_h5sf_get_stats).  `size` keeps callers built against an older header
 * working when counters are added: set it to sizeof(h5sf_stats_t) before
 * H5FD_H5SF_CTL_GET_STATS (H5FD_h5sf_get_stats sets it itself); h5sf fills
 * that many bytes at most and writes back how many it filled.  0 stands for
 * H5FD_H5SF_STATS_SIZE_1, the first layout with a size. */
typedef struct h5sf_stats_t {
    uint64_t size;
    uint64_t subfile_messages[64]; /* request messages per subfile (first 64) */
#define H5FD_H5SF_STATS_MEMBER(field, reduce, source, head, text) uint64_t field;
    H5FD_H5SF_STATS_COUNTERS(H5FD_H5SF_STATS_MEMBER)
#undef H5FD_H5SF_STATS_MEMBER
} h5sf_stats_t;
#define H5FD_H5SF_STATS_SIZE_1 672u /* sizeof(h5sf_stats_t) with 19 counters */

/* Layout of an open file (H5FD_H5SF_CTL_GET_LAYOUT, H5FD_h5sf_get_layout). */
typedef struct H5FD_h5sf_layout_t {
    int64_t  stripe_size;
    int32_t  stripe_count;
    int32_t  ioc_count;
    int32_t  channel; /* H5FD_h5sf_channel_t actually in use */
    uint64_t inode;
} H5FD_h5sf_layout_t;

/* Statistics and layout of a file open with h5sf (this rank's view); fail
 * if file_id is not an h5sf file.  Same data as the ctl opcodes above.  The
 * getters of the sized structs are macros that pass the size of the
 * caller's struct (the _sized functions). */
H5_DLL herr_t H5FD_h5sf_get_stats_sized(hid_t file_id, h5sf_stats_t *stats, size_t size);
#define H5FD_h5sf_get_stats(file_id, stats) H5FD_h5sf_get_stats_sized((file_id), (stats), sizeof(h5sf_stats_t))
H5_DLL herr_t H5FD_h5sf_get_layout(hid_t file_id, H5FD_h5sf_layout_t *layout);

/* How one subfile's share of a transfer travelled (bits of
 * H5FD_h5sf_transfer_subfile_t.via; the index of the counters in
 * H5FD_h5sf_transfer_t.via_requests / via_bytes is the bit number). */
typedef enum {
    H5FD_H5SF_VIA_IOC_REMOTE = 0, /* request message to the IOC on another rank        */
    H5FD_H5SF_VIA_IOC_SELF   = 1, /* request message to this rank's own IOC thread      */
    H5FD_H5SF_VIA_SAMENODE   = 2, /* IOC channel, IOC on this node: this rank did the I/O */
    H5FD_H5SF_VIA_DIRECT     = 3, /* direct channel: this rank's own pwritev/preadv     */
    H5FD_H5SF_VIA_KINDS      = 4
} H5FD_h5sf_via_t;
/* The old name of H5FD_H5SF_VIA_SAMENODE, kept for one release. */
#define H5FD_H5SF_VIA_SHORTCUT H5FD_H5SF_VIA_SAMENODE

#define H5FD_H5SF_TRANSFER_SUBFILES 64

typedef struct H5FD_h5sf_transfer_subfile_t {
    int32_t  subfile;  /* 0-based; its file is ..._<subfile+1>_of_<N>      */
    int32_t  owner;    /* rank of its IOC (IOC channel), else -1            */
    uint32_t via;      /* bit (1 << H5FD_H5SF_VIA_*) per way used            */
    uint32_t requests; /* vector calls on its channel (one per round)        */
    uint64_t messages; /* of those, request messages sent to an IOC          */
    uint64_t pieces;   /* pieces after striping and merging                  */
    uint64_t bytes;
} H5FD_h5sf_transfer_subfile_t;

/* What h5sf did for this rank's last raw-data read or write call on a file
 * (H5FD_H5SF_CTL_GET_TRANSFER, H5FD_h5sf_get_last_transfer).  One H5Dread
 * or H5Dwrite is usually one such call; HDF5 makes several of it for
 * multi-chunk collective I/O and type conversion in pieces: `call` counts
 * them.  Metadata calls are not reported here (see h5sf_stats_t). */
typedef struct H5FD_h5sf_transfer_t {
    uint64_t size; /* as h5sf_stats_t's; 0: H5FD_H5SF_TRANSFER_SIZE_1 */
    uint64_t call; /* this rank's raw-data read/write calls on the file, this one included (0: none) */
    int32_t  is_write;
    int32_t  collective;                        /* HDF5 ran the call collectively (its API context) */
    int32_t  failed;                            /* the call returned an error                       */
    uint32_t rounds;                            /* times the pieces were sent down the channels     */
    uint64_t bytes;                             /* logical bytes this rank moved                    */
    uint64_t pieces_in;                         /* extents of the request: runs contiguous in both file
                           * and memory (from the selections, vector entries or
                           * HDF5's MPI datatypes), before striping            */
    uint64_t pieces_out;                        /* pieces after cutting at stripe boundaries and merging */
    uint64_t messages;                          /* requests sent to IOCs (on the wire each is a header
                           * and payload messages; a huge one goes in parts)   */
    uint64_t via_requests[H5FD_H5SF_VIA_KINDS]; /* vector calls per H5FD_h5sf_via_t */
    uint64_t via_bytes[H5FD_H5SF_VIA_KINDS];
    int32_t  subfiles; /* subfiles touched                              */
    int32_t  nsubfile; /* entries in subfile[], in the order h5sf sent them */
    H5FD_h5sf_transfer_subfile_t subfile[H5FD_H5SF_TRANSFER_SUBFILES];
} H5FD_h5sf_transfer_t;
#define H5FD_H5SF_TRANSFER_SIZE_1 2696u /* sizeof(H5FD_h5sf_transfer_t), the first layout with a size */

/* This rank's report of its last raw-data transfer on file_id (all zero
 * before the first); fail if file_id is not an h5sf file.  h5sf's I/O is
 * never MPI-IO collective I/O, whatever H5Pget_mpio_actual_io_mode says:
 * docs/user-guide.md, "What H5Pget_mpio_actual_io_mode says". */
H5_DLL herr_t H5FD_h5sf_get_last_transfer_sized(hid_t file_id, H5FD_h5sf_transfer_t *transfer, size_t size);
#define H5FD_h5sf_get_last_transfer(file_id, transfer)                                                                 \
    H5FD_h5sf_get_last_transfer_sized((file_id), (transfer), sizeof(H5FD_h5sf_transfer_t))

/* List the physical files of a subfiled file: stub, config, subfiles; of
 * a plain HDF5 file (no config file, as h5sf opens it), the file alone.
 * Fails naming the config file if a subfiled file's is missing.  Serial,
 * needs no MPI.  Free with H5FD_h5sf_free_files(). */
H5_DLL herr_t H5FD_h5sf_get_files(const char *path, const char *config_dir, char ***files, size_t *count);
H5_DLL void   H5FD_h5sf_free_files(char **files, size_t count);

/* ---- Stage account of the IOC channel ----------------------------------
 * Where a request to an I/O concentrator spends its time: on the client
 * (CALL, PACK, POST, WAIT) and on the IOC (HEADER, QUEUE, PAYLOAD, IO,
 * REPLY).  Process-wide (all files, every thread of this process, the
 * IOC's threads included); reduce it over ranks to see both sides of a
 * call, as h5sf-bench --account does.  Off unless H5SF_STATS=stages or
 * H5FD_h5sf_set_account(1); off, it costs one load per stage. */
typedef enum {
    H5FD_H5SF_STAGE_CALL    = 0, /* client: one subfile vector call, post to reply   */
    H5FD_H5SF_STAGE_PACK    = 1, /* client: payload copy, piece list encoding        */
    H5FD_H5SF_STAGE_POST    = 2, /* client: posting header, payload, reply to MPI    */
    H5FD_H5SF_STAGE_WAIT    = 3, /* client: waiting for reply and payload (a round trip) */
    H5FD_H5SF_STAGE_HEADER  = 4, /* IOC: receiving a request header                  */
    H5FD_H5SF_STAGE_QUEUE   = 5, /* IOC: arrival to a worker taking the request      */
    H5FD_H5SF_STAGE_PAYLOAD = 6, /* IOC: waiting for payload chunks to arrive/leave  */
    H5FD_H5SF_STAGE_IO      = 7, /* IOC: pwritev/preadv                              */
    H5FD_H5SF_STAGE_REPLY   = 8, /* IOC: sending the reply                           */
    H5FD_H5SF_STAGES        = 9
} H5FD_h5sf_stage_t;

typedef struct H5FD_h5sf_account_t {
    uint64_t size;                    /* set by the getter macro: sizeof the caller's struct */
    uint64_t ns[H5FD_H5SF_STAGES];    /* time in the stage, summed over threads */
    uint64_t count[H5FD_H5SF_STAGES]; /* times entered (WAIT: round trips)       */
    uint64_t bytes[H5FD_H5SF_STAGES]; /* PACK: bytes copied; PAYLOAD: bytes over MPI; IO: bytes to disk */
    uint64_t messages;                /* MPI messages of requests to other ranks' IOCs, both ways */
} H5FD_h5sf_account_t;

/* This process's account since the last reset; reset != 0 zeroes it.  A
 * sized struct, as h5sf_stats_t: the macro passes the caller's size. */
H5_DLL herr_t H5FD_h5sf_get_account_sized(H5FD_h5sf_account_t *account, int reset, size_t size);
#define H5FD_h5sf_get_account(account, reset)                                                                          \
    H5FD_h5sf_get_account_sized((account), (reset), sizeof(H5FD_h5sf_account_t))
/* Turn the account on (1) or off (0) in this process, whatever H5SF_STATS says. */
H5_DLL herr_t H5FD_h5sf_set_account(int on);

#ifdef __cplusplus
}
#endif
#endif /* H5SF_H */
