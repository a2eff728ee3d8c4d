/*
 * ioc.h -- the I/O concentrator as seen from the VFD layer.
 *
 * One context per communicator group (all files opened on congruent
 * communicators share it, with a private MPI_Comm_dup for our traffic).  On a
 * rank that is an IOC for at least one open file, the context runs a daemon:
 * a progress thread that receives requests and a pool of libuv worker threads
 * that run pwritev/preadv on the subfiles.  Every rank is a client.
 *
 * Nothing in ioc/ calls HDF5.  Errors come back as h5sf_errbuf_t text that
 * names the subfile, the offset and the errno seen by the IOC.
 */
#ifndef H5SF_IOC_H
#define H5SF_IOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <mpi.h>
#include "../common/errbuf.h"
#include "../common/wire.h"

typedef struct h5sf_ioc_ctx        h5sf_ioc_ctx_t;
typedef struct h5sf_ioc_client_req h5sf_ioc_client_req_t;

/* Request operations are the wire's (common/wire.h), so a request's op
 * goes into its header as it is. */
enum { H5SF_IOC_OP_WRITE = H5SF_WIRE_WRITE, H5SF_IOC_OP_READ = H5SF_WIRE_READ };

/* Collective on comm: 0 if no rank failed; else -1 on every rank, e holding
 * the lowest failing rank's reason ("rank R: ..." on the others). */
int h5sf_ioc_agree(MPI_Comm comm, int failed_here, h5sf_errbuf_t *e);
/* Check the IOC's environment settings (H5SF_IOC_MEMORY, H5SF_IOC_MAX_FDS,
 * H5SF_IOC_MERGE_WAIT) so that bad values fail every open, whatever the
 * channel. */
int h5sf_ioc_check_env(h5sf_errbuf_t *e);
/* H5SF_IOC_MAX_FDS (its default if unset or bad: open checks it). */
int h5sf_ioc_fd_cap(void);
/* Collective over comm.  Returns the shared context for comm's group (created
 * on first use, reference counted).  timeout_s bounds every client wait. */
int h5sf_ioc_ctx_acquire(MPI_Comm comm, int timeout_s, h5sf_ioc_ctx_t **out, h5sf_errbuf_t *e);
/* Collective over the context's communicator.  The last release parks the
 * context (see ctx.c) or stops its daemon and frees it. */
int h5sf_ioc_ctx_release(h5sf_ioc_ctx_t *ctx, h5sf_errbuf_t *e);
/* The private communicator (rank numbers are those of the file's comm). */
MPI_Comm h5sf_ioc_ctx_comm(const h5sf_ioc_ctx_t *ctx);
/* Next file id: call on every rank at each collective open (same sequence). */
uint32_t h5sf_ioc_ctx_next_file_id(h5sf_ioc_ctx_t *ctx);

/* IOC side, local (not collective): make sure this rank's daemon runs with at
 * least `threads` workers, then open subfile `subfile` of file `file_id` at
 * `path` with open(2) flags and keep the fd for requests.  With O_CREAT the
 * subfile is made by h5sf_subfile_create (O_TRUNC means nothing: it is
 * always a new file). */
int h5sf_ioc_serve(h5sf_ioc_ctx_t *ctx, int threads, h5sf_errbuf_t *e);
int h5sf_ioc_subfile_open(h5sf_ioc_ctx_t *ctx, uint32_t file_id, uint32_t subfile, const char *path, int flags,
                          h5sf_errbuf_t *e);
/* Create the subfile at path, new (O_CREAT|O_EXCL, mode 0666 less the
 * umask), for both channels: a file already at path is removed first only
 * if it is a regular file owned by the caller with one link, and only
 * without O_EXCL in flags (O_EXCL: no config file of this file named it, so
 * it is someone else's); otherwise the create fails naming the file and its
 * owner.  A descriptor, or -1 with e set. */
int h5sf_subfile_create(const char *path, int flags, int fault_rank, h5sf_errbuf_t *e);
/* After an O_CREAT|O_EXCL open that failed (not with EEXIST): remove the
 * file at path if it is the empty regular file of the caller's, one link,
 * that the open made before a later step of it failed.  errno is kept. */
void h5sf_unmake(const char *path);
/* Close the fd (after the caller made sure no requests are outstanding). */
int h5sf_ioc_subfile_close(h5sf_ioc_ctx_t *ctx, uint32_t file_id, uint32_t subfile, h5sf_errbuf_t *e);

/* Client side.  Post a vector request for `count` pieces: subfile offsets
 * offs[i], lengths lens[i], memory bufs[i].  The buffers must stay valid until
 * h5sf_ioc_wait returns, and are not touched after it returns, even when it
 * times out.  Write payloads to a remote IOC leave from a contiguous copy
 * (small ones inline in the request); read data lands in the caller's
 * buffers (MPI derived datatypes, no unpacking copy). */
int h5sf_ioc_post(h5sf_ioc_ctx_t *ctx, int op, int ioc_rank, uint32_t file_id, uint32_t subfile, size_t count,
                  const uint64_t *offs, const uint64_t *lens, void *const *bufs, h5sf_ioc_client_req_t **req,
                  h5sf_errbuf_t *e);
/* Wait for one request and free it; returns the IOC's error if it failed. */
int h5sf_ioc_wait(h5sf_ioc_client_req_t *req, h5sf_errbuf_t *e);

/* Synchronous control requests to the IOC that owns the subfile.  They are
 * ordering barriers on that subfile. */
int h5sf_ioc_get_size(h5sf_ioc_ctx_t *ctx, int ioc_rank, uint32_t file_id, uint32_t subfile, uint64_t *size,
                      h5sf_errbuf_t *e);
int h5sf_ioc_truncate(h5sf_ioc_ctx_t *ctx, int ioc_rank, uint32_t file_id, uint32_t subfile, uint64_t size,
                      h5sf_errbuf_t *e);
int h5sf_ioc_fsync(h5sf_ioc_ctx_t *ctx, int ioc_rank, uint32_t file_id, uint32_t subfile, h5sf_errbuf_t *e);

/* Counters for tests and H5SF_STATS (this rank). */
typedef struct h5sf_ioc_counters {
    uint64_t max_inflight;    /* most client requests posted and not yet waited */
    uint64_t requests_served; /* requests executed by this rank's daemon       */
    uint64_t queue_wait_ns;   /* total time served requests waited in the queue */
    uint64_t io_ns;           /* total time executing requests (I/O and transfer) */
    uint64_t batches;         /* worker executions (a request and those merged)  */
    uint64_t merged;          /* requests merged into another's execution        */
    uint64_t merge_waits;     /* times a worker waited for other ranks' requests */
    uint64_t syscalls;        /* pwritev/preadv calls                            */
    uint64_t reopens;         /* subfiles reopened after the descriptor cap      */
    uint64_t open_fds;        /* subfile descriptors open now                    */
    uint64_t slots;           /* transfer slots allocated (H5SF_IOC_CHUNK each)  */
} h5sf_ioc_counters_t;
void h5sf_ioc_get_counters(const h5sf_ioc_ctx_t *ctx, h5sf_ioc_counters_t *out);

/* MPI_Finalize has begun (the MPI_COMM_SELF delete-attribute callback), on
 * every rank.  begin: from now on h5sf's threads take turns inside MPI,
 * one MPI call at a time (the finalize gate, ioc/gate.c): waits without
 * MPI for calls already inside; call it before any other MPI call there.
 * The daemons keep serving, so this rank may still wait for requests it
 * posted (a COBEGIN bracket left open).  stop: serves late requests until
 * every rank of each context with files open is here too, then stops
 * every daemon and marks its IOCs dead, so that requests still made fail
 * at once. */
void h5sf_ioc_finalize_begin(void);
void h5sf_ioc_finalize_stop(void);
/* Called when MPI is being finalized with contexts still alive (from the
 * MPI_COMM_SELF delete-attribute callback): stop all daemons without MPI
 * collectives and drop contexts.  Safe to call more than once. */
void h5sf_ioc_shutdown_all(void);
/* HDF5 is closing the driver: end parked contexts (no file uses them). */
void h5sf_ioc_end_parked(void);

/* ---- MPI calls that can fail on one rank alone (mpisite.c) --------------
 * As MPI's own, each a fault site of the sweep (common/alloc.h): a failing
 * site returns MPI_ERR_NO_MEM with nothing made (a communicator made
 * collectively is freed again).  The handle is the null one on failure.
 * Prefix h5sf_mpisite_, apart from vfd/mpi.c's h5sf_mpi_* (MPI's life cycle). */
int h5sf_mpisite_comm_dup(MPI_Comm comm, MPI_Comm *out);
int h5sf_mpisite_comm_split_type(MPI_Comm comm, int type, int key, MPI_Comm *out);
int h5sf_mpisite_info_dup(MPI_Info info, MPI_Info *out);
int h5sf_mpisite_info_create(MPI_Info *out);
int h5sf_mpisite_ibarrier(MPI_Comm comm, MPI_Request *req);
/* MPI_Type_create_hindexed over MPI_BYTE, committed. */
int h5sf_mpisite_type_hindexed(int n, const int *lens, const MPI_Aint *disp, MPI_Datatype *out);
/* MPI_Error_string of rc in buf (MPI_MAX_ERROR_STRING bytes). */
const char *h5sf_mpisite_errstr(int rc, char *buf);

#endif
