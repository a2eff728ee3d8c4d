/*
 * runs.h -- cutting a subfile's pieces into runs for pwritev/preadv: the
 * one run-cutter of the transfers a rank does itself (vfd/threadpool.c)
 * and of the IOC workers (ioc/run.c).
 *
 * A run is a stretch of pieces contiguous in the subfile, up to
 * H5SF_SYSIO_BATCH iovecs (common/sysio.c's one system call); a piece too
 * long for the room left is split, and the next run resumes inside it.
 * Owns only the cutting: the caller makes the system call
 * (h5sf_sysio_xferv) and decides what a failure means.  No HDF5, no MPI.
 */
#ifndef H5SF_RUNS_H
#define H5SF_RUNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>
#include "sysio.h"

/* One piece: len bytes at subfile offset off, to or from mem. */
typedef struct h5sf_run_piece {
    uint64_t off, len;
    void    *mem;
} h5sf_run_piece_t;

/* Piece i of the caller's list into *p; false to skip it (its owner has
 * failed).  Called again for a piece whenever a run may start or go on
 * there, so what it answers may change between runs. */
typedef bool (*h5sf_run_piece_fn)(void *arg, size_t i, h5sf_run_piece_t *p);

typedef struct h5sf_runs {
    /* the list: pieces [0..n), sorted by offset where runs should form */
    size_t            n;
    h5sf_run_piece_fn piece;
    void             *arg;
    /* the cursor: the next run starts at piece i, po bytes into it */
    size_t   i;
    uint64_t po;
    /* the run cut last: iov[0..niov), len bytes at subfile offset off,
     * holding pieces first..last (the first and last perhaps in part) */
    struct iovec iov[H5SF_SYSIO_BATCH];
    int          niov;
    uint64_t     off, len;
    size_t       first, last;
} h5sf_runs_t;

/* Start cutting pieces [0..n) of `piece`. */
void h5sf_runs_init(h5sf_runs_t *r, size_t n, h5sf_run_piece_fn piece, void *arg);

/* Cut the next run into r's run fields; false when no piece is left.
 * Empty and skipped pieces never start a run, and end the one before. */
bool h5sf_runs_next(h5sf_runs_t *r);

#endif
