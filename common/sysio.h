/*
 * sysio.h -- the one layer between h5sf and the system calls on its files:
 * the stub, the config file, the subfiles and the node's shared memory
 * (open, close, stat, truncate, sync, unlink, mkdir, rename, shm_open,
 * mmap, ...), and the pwritev/preadv loops of the IOC workers (ioc/run.c)
 * and of the transfers a rank does itself (vfd/threadpool.c), with the
 * test-only fault injection they share: H5SF_FAULT's named faults, and the
 * sweep's "fail the Nth system call" (common/alloc.h, H5SF_SITE_SYSCALL).
 *
 * No HDF5, no MPI: a rank is passed in as an int (-1: no fault applies).
 * Owns the table of system calls (sysio.c), what a short transfer, EINTR
 * and EOF mean, and the H5SF_FAULT syntax; must not know who asked.
 */
#ifndef H5SF_SYSIO_H
#define H5SF_SYSIO_H

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>

/* iovecs per pwritev/preadv: IOV_MAX on Linux, never more. */
#define H5SF_SYSIO_BATCH 1024
/* Longest iovec the callers build (iov_len stays under 1 GiB). */
#define H5SF_SYSIO_LEN_MAX ((uint64_t)1 << 30)

/* ---- the system calls --------------------------------------------------- */

/* Override system call `name` (a row of sysio.c's table: "open", "close",
 * "fstat", "ftruncate", "fsync", "pwritev", "preadv", "stat", "unlink",
 * ...) with fn, or restore the real one (fn NULL); -1 for an unknown name.
 * Tests only, before any thread uses the layer (SQLite's xSetSystemCall).
 *
 * Every call below is one site of H5SF_SITE_SYSCALL (the pwritev/preadv
 * loop: one per system call it makes); a failed site returns as the call
 * would, with the armed errno. */
typedef void (*h5sf_syscall_ptr)(void);
int h5sf_sysio_set(const char *name, h5sf_syscall_ptr fn);

/* The one open of a stub, config file or subfile (docs/security.md), for
 * the driver, the IOC, the tools and the shim alike: open(2) with
 * O_CLOEXEC, O_NOFOLLOW (a symlink at path fails with ELOOP: a caller that
 * means to follow one resolves it first, on purpose) and O_NONBLOCK (a
 * FIFO or device never blocks the open), then anything but a regular file
 * is closed and refused with H5SF_ENOTREG, and O_NONBLOCK is cleared.
 * O_CREAT makes mode 0666 less the umask.  Fault "open" for fault_rank.
 * A descriptor, or -1 with errno set. */
int h5sf_sysio_open(const char *path, int flags, int fault_rank);
/* errno of an open that found a FIFO, device, socket or directory. */
#define H5SF_ENOTREG ENXIO
/* strerror(3), but ELOOP and H5SF_ENOTREG as h5sf_sysio_open means them. */
const char *h5sf_sysio_strerror(int err);
/* close(2), never retried (Linux frees the descriptor either way). */
int h5sf_sysio_close(int fd);
/* fstat(2)'s size; 0 or -1 with errno set. */
int h5sf_sysio_size(int fd, uint64_t *size);
/* ftruncate(2); 0 or -1 with errno set. */
int h5sf_sysio_truncate(int fd, uint64_t size);
/* fsync(2), fault "fsync" for fault_rank; 0 or -1 with errno set. */
int h5sf_sysio_sync(int fd, int fault_rank);
/* fstat(2); fcntl(F_DUPFD_CLOEXEC). */
int h5sf_sysio_fstat(int fd, struct stat *st);
int h5sf_sysio_dup(int fd);
/* stat(2), unlink(2), mkdir(2), rename(2); 0 or -1 with errno set. */
int h5sf_sysio_stat(const char *path, struct stat *st);
int h5sf_sysio_unlink(const char *path);
int h5sf_sysio_mkdir(const char *path, mode_t mode);
int h5sf_sysio_rename(const char *from, const char *to);
/* One read(2) or pread(2), as the call returns. */
ssize_t h5sf_sysio_read(int fd, void *buf, size_t n);
ssize_t h5sf_sysio_pread(int fd, void *buf, size_t n, uint64_t off);
/* All n bytes at off, over short writes and EINTR; 0 or -1 with errno
 * set (a write that moves nothing: EIO). */
int h5sf_sysio_pwrite_all(int fd, const void *buf, size_t n, uint64_t off);
/* getcwd(3), realpath(3) into buf (PATH_MAX bytes); NULL with errno set. */
char *h5sf_sysio_getcwd(char *buf, size_t n);
char *h5sf_sysio_realpath(const char *path, char *buf);
/* opendir(3), readdir(3) (NULL at the end or, errno set, on failure),
 * closedir(3) (the stream is closed even when it reports a failure), and
 * fstatat(2). */
DIR           *h5sf_sysio_opendir(const char *path);
struct dirent *h5sf_sysio_readdir(DIR *dp);
int            h5sf_sysio_closedir(DIR *dp);
int            h5sf_sysio_fstatat(int dirfd, const char *name, struct stat *st, int flags);
/* POSIX shared memory (ioc/shm.c): shm_open(3) with O_CLOEXEC,
 * shm_unlink(3), a shared read-write mapping of fd's first len bytes
 * (MAP_FAILED on failure), munmap(2), and madvise(MADV_POPULATE_WRITE),
 * which allocates the pages or fails where a touch would raise SIGBUS. */
int   h5sf_sysio_shm_open(const char *name, int flags, mode_t mode);
int   h5sf_sysio_shm_unlink(const char *name);
void *h5sf_sysio_mmap_shared(int fd, size_t len);
int   h5sf_sysio_munmap(void *p, size_t len);
int   h5sf_sysio_populate(void *p, size_t len);

/* One run of contiguous bytes of a subfile. */
typedef struct h5sf_sysio_xfer {
    int      fd;
    bool     is_write;
    int      fault_rank; /* >= 0: H5SF_FAULT pwrite/pread of this rank apply */
    bool     stuck;      /* also H5SF_FAULT stuck before each write (IOC)     */
    uint64_t syscalls;   /* out: pwritev/preadv calls made, added to          */
} h5sf_sysio_xfer_t;

/* Transfer iov[0..n) (any n: H5SF_SYSIO_BATCH a call) at subfile offset
 * off, looping over short transfers and EINTR; a read past EOF leaves
 * zeros in the rest, as sec2 does and HDF5 expects.  iov is used as
 * scratch and given back as it came.  0, or -1 with errno set (a write
 * that moves nothing: EIO). */
int h5sf_sysio_xferv(h5sf_sysio_xfer_t *x, struct iovec *iov, int n, uint64_t off);

/* Append len bytes at p to iov[*k..cap) as iovecs of at most
 * H5SF_SYSIO_LEN_MAX; the bytes appended (fewer than len when iov filled). */
uint64_t h5sf_sysio_iov_add(struct iovec *iov, int *k, int cap, void *p, uint64_t len);

/* A transfer of `count` pieces, `total` bytes over `extent` bytes of a
 * subfile, is sparse: many small pieces with gaps, one system call each
 * unless other ranks' pieces fill the gaps.  The IOC waits a moment to
 * merge such requests into runs (ioc/merge.c); clients on its node write
 * everything else themselves (vfd/samenode.c). */
bool h5sf_sparse(uint64_t count, uint64_t extent, uint64_t total);

/* ---- fault injection (H5SF_FAULT, test only) ----------------------------
 *
 *   H5SF_FAULT="op=pwrite,errno=EIO,rank=1,after=2,count=1"
 *
 *   op     open | pwrite | pread | fsync | stall | hang | stuck | overlap |
 *          nomem-topo | nomem-plan | nomem-ctx | nomem-chan (an allocation
 *          at open fails: choosing the IOCs, the stripe plan, a new IOC
 *          context, the channel tables -- both the IOC channels' and the
 *          descriptors') |
 *          nomem-accept (an allocation fails while the IOC's progress
 *          thread accepts a request: the IOC refuses it) |
 *          nomem-finalize (the allocations of the MPI_Finalize hook fail;
 *          rank: in MPI_COMM_WORLD)
 *   errno  EIO | ENOSPC | EINTR | EACCES | short   (short: half a transfer)
 *   rank   only calls made for this rank (in the file's communicator): the
 *          IOC's, or the rank's own on the direct channel; default all
 *   after  let this many matching calls pass first (default 0)
 *   count  inject this many times (default: always)
 *   ms     for stall: delay every request by this many milliseconds;
 *          for stuck: how long a pwrite blocks (default an hour);
 *          for overlap: how long each subfile transfer h5sf runs itself
 *          together with others waits for all of them to start (vfd/threadpool.c)
 *
 * hang never answers but lets the daemon stop; stuck blocks a worker in its
 * pwrite as a file system that stopped answering does, deaf to the stop
 * (stall and hang: ioc/fault.c).  Parsing is forgiving on purpose: a
 * malformed value disables injection and says so on stderr, because this
 * is not user input. */

/* h5sf_fault's answer for errno=short. */
#define H5SF_FAULT_SHORT (-2)
/* The errno to fake for this call of `op` made for `rank`, H5SF_FAULT_SHORT,
 * or 0; counts the call against after/count when op and rank match. */
int h5sf_fault(const char *op, int rank);
/* H5SF_FAULT's ms if its op is `op`, else -1 (counts nothing). */
long h5sf_fault_ms(const char *op);
/* Any fault configured. */
bool h5sf_fault_on(void);
/* op=stuck for `rank`: block as a dead file system does (ms, else an hour). */
void h5sf_fault_stuck(int rank);

#endif
