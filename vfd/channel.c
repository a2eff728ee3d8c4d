/*
 * channel.c -- per-subfile channels: the rule that picks a file's channel
 * (h5sf_channel_pick), their open, close, truncate and sync, and what a
 * finished subfile transfer counts and reports.  Running a plan on them is
 * dispatch.c's; the caller's COBEGIN/COEND bracket is bracket.c's.
 *
 * In direct mode a channel is a plain descriptor per subfile (f->fd: each
 * rank touches the subfiles itself, through common/sysio.c); in IOC mode an
 * HDF5 VFD instance of the "h5sf_ioc" class (ioc_channel.c) stacked beneath
 * h5sf, one per subfile, that ships vectors to the IOC owning the subfile.
 * Requests to several subfiles are bracketed by COBEGIN/COEND so the IOC
 * channel keeps them all in flight (dispatch.c).
 *
 * The subfile's owner (iocs[s mod nioc]) creates, sizes, truncates and syncs
 * it; in IOC mode only ranks of the owner's node touch it: the IOC, and the
 * node's other ranks through the same-node shortcut (which requests take it:
 * samenode.c's opening comment).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "internal.h"
#include "threadpool.h"


/* The channel an open takes, and why (H5SF_LOG's channel_reason).  The one
 * rule of channel=auto that docs/configuration.md and README quote: a named
 * channel is taken (channel=ioc without MPI_THREAD_MULTIPLE already failed
 * the open: settings_share); auto takes the direct channel without MPI,
 * below MPI_THREAD_MULTIPLE, for a plain HDF5 file, and on one node unless
 * the file has more subfiles than an IOC keeps open by default (256: the
 * direct channel opens every subfile on every rank); else the IOC channel.
 * On one node the IOC channel would move every byte as the direct channel
 * does (its same-node shortcut, samenode.c), adding only a costlier open and
 * close and threads that compete with the ranks for cores.  Every input is
 * the same on every rank (agreed), so every rank takes the same channel. */
H5FD_h5sf_channel_t h5sf_channel_pick(const h5sf_file_t *f, int provided, const char **why)
{
    const char         *w = "MPI_THREAD_MULTIPLE available, several nodes";
    H5FD_h5sf_channel_t c = H5FD_H5SF_CHANNEL_DIRECT;
    if (f->comm == MPI_COMM_NULL) /* no IOC without MPI */
        w = "no MPI: a serial open, MPI not initialized";
    else if (f->cfg.channel != H5FD_H5SF_CHANNEL_AUTO)
        c = f->cfg.channel, w = "requested";
    else if (provided != MPI_THREAD_MULTIPLE) /* the progress thread calls MPI while the application does */
        w = "MPI_THREAD_MULTIPLE not available";
    else if (f->layout.plain) /* one shared file: each rank writes its own pieces, as MPI-IO does */
        w = "a plain HDF5 file";
    else if (f->nnodes == 1 && f->layout.stripe_count <= H5SF_DEFAULT_IOC_MAX_FDS)
        w = "one node";
    else
        c = H5FD_H5SF_CHANNEL_IOC, w = f->nnodes == 1 ? "one node, but over 256 subfiles" : w;
    if (why)
        *why = w;
    return c;
}

static bool owns(const h5sf_file_t *f, int s) { return h5sf_owner(f, s) == f->rank; }

static int subfile_path(const h5sf_file_t *f, int s, char *buf, size_t n, h5sf_errbuf_t *e)
{
    return h5sf_subfile_path(&f->layout, s, buf, n, e);
}

/* mkdir -p for the subfile directory (node-local directories may not exist
 * yet on a host whose rank is the first to use it). */
static int make_dirs(const char *dir, h5sf_errbuf_t *e)
{
    char path[H5SF_LAYOUT_PATH_MAX];
    snprintf(path, sizeof path, "%s", dir);
    for (char *p = path + 1;; p++) {
        if (*p == '/' || *p == '\0') {
            char c = *p;
            *p     = '\0';
            if (h5sf_sysio_mkdir(path, 0777) < 0 && errno != EEXIST)
                return h5sf_fail(e, errno, "cannot create subfile directory %s: %s", path, strerror(errno));
            if (c == '\0')
                break;
            *p = c;
        }
    }
    return 0;
}

/* Copy the newest HDF5 error text into eb (public HDF5 calls clear the error
 * stack on entry, so it must be saved before the next call). */
static herr_t walk_cb(unsigned n, const H5E_error2_t *err, void *data)
{
    h5sf_errbuf_t *eb = data;
    (void)n;
    /* Keep the innermost entry (a downward walk visits it last):
     * it holds the cause (subfile, offset, errno from the IOC); the outermost
     * is HDF5's generic "file vector write request failed", which is all the
     * other ranks of a collective call got to see. */
    if (err->desc)
        snprintf(eb->msg, sizeof eb->msg, "%s", err->desc);
    return 0;
}
void h5sf_err_capture(h5sf_errbuf_t *eb, const char *fallback)
{
    eb->msg[0] = '\0';
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, walk_cb, eb);
    if (!eb->msg[0])
        snprintf(eb->msg, sizeof eb->msg, "%s", fallback);
}

/* HDF5's error stack while h5sf's callback runs inside an HDF5 call: it
 * may hold errors that call recorded already (a file close that goes on
 * flushing after a failed write).  The IOC channel is reached through
 * public H5FD calls, and each clears the stack on entry, so it is set
 * aside before them and put back after (H5I_INVALID_HID: it was empty). */
hid_t h5sf_stack_keep(void) { return H5Eget_num(H5E_DEFAULT) > 0 ? H5Eget_current_stack() : H5I_INVALID_HID; }
void  h5sf_stack_back(hid_t keep)
{
    if (keep >= 0)
        H5Eset_current_stack(keep);
}

/* h5sf_fail() naming what failed (printf-style), with the newest HDF5 error
 * text as the cause (captured first: the next HDF5 call clears it). */
static int fail_hdf5(h5sf_errbuf_t *e, int err_no, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail_hdf5(h5sf_errbuf_t *e, int err_no, const char *fmt, ...)
{
    char    what[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    h5sf_err_capture(e, "");
    /* A copy: formatting a buffer into itself is undefined. */
    char cause[sizeof e->msg];
    memcpy(cause, e->msg, sizeof cause);
    return h5sf_fail(e, err_no, "%.200s (%.300s)", what, cause);
}

/* Open (or, with O_CREAT, make: h5sf_subfile_create) subfile s's
 * descriptor; h5sf_fail() if not. */
static int open_fd(h5sf_file_t *f, int s, int oflags, const char *verb, h5sf_errbuf_t *e)
{
    char path[2 * H5SF_LAYOUT_PATH_MAX];
    if (subfile_path(f, s, path, sizeof path, e) < 0)
        return -1;
    if (oflags & O_CREAT) {
        if ((f->fd[s] = h5sf_subfile_create(path, oflags, -1, e)) < 0)
            return -1;
        f->made[s] = 1;
        return 0;
    }
    if ((f->fd[s] = h5sf_sysio_open(path, oflags, -1)) < 0) {
        int err = errno;
        return h5sf_fail(e, err, "cannot %s subfile %.3000s: %s (errno %d)", verb, path, h5sf_sysio_strerror(err), err);
    }
    return 0;
}

/* Close the direct channel's descriptors; the first failure in e (unless
 * *failed already). */
static void close_fds(h5sf_file_t *f, int *failed, h5sf_errbuf_t *e)
{
    for (int s = 0; f->fd && s < f->layout.stripe_count; s++) {
        if (f->fd[s] >= 0 && h5sf_sysio_close(f->fd[s]) < 0 && !*failed) {
            int err = errno;
            *failed = h5sf_fail(e, err, "cannot close subfile %d: %s (errno %d)", s, strerror(err), err) < 0;
        }
        f->fd[s] = -1;
    }
}

static int open_direct(h5sf_file_t *f, unsigned flags, h5sf_errbuf_t *e)
{
    int       failed = 0;
    const int oflags = (flags & H5F_ACC_RDWR) ? O_RDWR : O_RDONLY;

    /* Owners create first so nobody opens a file that does not exist yet. */
    if (flags & H5F_ACC_CREAT) {
        for (int s = 0; s < f->layout.stripe_count && !failed; s++) {
            if (!owns(f, s))
                continue;
            if (f->layout.subfile_dir[0] && make_dirs(f->layout.subfile_dir, e) < 0)
                failed = 1;
            else if (open_fd(f, s, O_RDWR | O_CREAT | (f->own_names ? 0 : O_EXCL), "create", e) < 0)
                failed = 1;
        }
        if (h5sf_agree(f->comm, failed, e) < 0)
            return -1;
    }
    for (int s = 0; s < f->layout.stripe_count && !failed; s++)
        if (f->fd[s] < 0 && open_fd(f, s, oflags, "open", e) < 0)
            failed = 1;
    return h5sf_agree(f->comm, failed, e);
}

static int open_ioc(h5sf_file_t *f, unsigned flags, h5sf_errbuf_t *e)
{
    char  path[2 * H5SF_LAYOUT_PATH_MAX];
    int   failed = 0;
    hid_t fapl   = H5I_INVALID_HID, id;

    if (h5sf_ioc_ctx_acquire(f->comm, f->cfg.timeout > 0 ? f->cfg.timeout : H5SF_DEFAULT_TIMEOUT, &f->ctx, e) < 0)
        return h5sf_agree(f->comm, 1, e);
    f->file_id = h5sf_ioc_ctx_next_file_id(f->ctx);

    int oflags = (flags & H5F_ACC_RDWR) ? O_RDWR : O_RDONLY;
    if (flags & H5F_ACC_CREAT)
        oflags |= O_CREAT | O_RDWR | (f->own_names ? 0 : O_EXCL);
    for (int s = 0; s < f->layout.stripe_count && !failed; s++) {
        if (!owns(f, s))
            continue;
        if (h5sf_ioc_serve(f->ctx, f->cfg.threads > 0 ? f->cfg.threads : H5SF_DEFAULT_THREADS, e) < 0)
            failed = 1;
        else if ((oflags & O_CREAT) && f->layout.subfile_dir[0] && make_dirs(f->layout.subfile_dir, e) < 0)
            failed = 1;
        else if (subfile_path(f, s, path, sizeof path, e) < 0)
            failed = 1;
        else if (h5sf_ioc_subfile_open(f->ctx, f->file_id, (uint32_t)s, path, oflags, e) < 0)
            failed = 1;
        else if (oflags & O_CREAT)
            f->made[s] = 1;
    }
    if (h5sf_agree(f->comm, failed, e) < 0)
        return -1;

    if ((id = h5sf_ioc_channel_register()) < 0 || (fapl = H5Pcreate(H5P_FILE_ACCESS)) < 0)
        failed = h5sf_fail(e, 0, "cannot register the IOC channel driver");
    for (int s = 0; s < f->layout.stripe_count && !failed; s++) {
        h5sf_ioc_fa_t fa = {f->ctx, f->file_id, (uint32_t)s, h5sf_owner(f, s)};
        if (subfile_path(f, s, path, sizeof path, e) < 0)
            failed = 1;
        else if (H5Pset_driver(fapl, id, &fa) < 0 ||
                 !(f->chan[s] = H5FDopen(path, flags & ~(unsigned)(H5F_ACC_CREAT | H5F_ACC_TRUNC | H5F_ACC_EXCL), fapl,
                                         H5SF_MAXADDR)))
            failed = fail_hdf5(e, 0, "cannot open IOC channel for subfile %.250s", path) < 0;
    }
    if (fapl >= 0)
        H5Pclose(fapl);
    return h5sf_agree(f->comm, failed, e);
}

/* Logical EOF from the subfile sizes the owners see: the longest prefix
 * every subfile holds.  A subfile longer than that (a job killed after a
 * flush) is ignored and cut back by the next read-write close; one cut short
 * makes the EOF smaller than the superblock's end of allocation, which HDF5
 * reports as a truncated file. */
static int compute_eof(h5sf_file_t *f, h5sf_errbuf_t *e)
{
    int       N = f->layout.stripe_count, failed = 0;
    uint64_t *mine = h5sf_calloc((size_t)N, sizeof *mine), *all = h5sf_calloc((size_t)N, sizeof *all);
    if (!mine || !all)
        failed = h5sf_fail(e, ENOMEM, "out of memory");
    for (int s = 0; s < N && !failed; s++) {
        if (!owns(f, s))
            continue;
        if (f->channel == H5FD_H5SF_CHANNEL_IOC)
            failed = h5sf_ioc_get_size(f->ctx, f->rank, f->file_id, (uint32_t)s, &mine[s], e) < 0;
        else if (h5sf_sysio_size(f->fd[s], &mine[s]) < 0)
            failed = h5sf_fail(e, errno, "cannot get the size of subfile %d: %s", s, strerror(errno)) < 0;
    }
    if (h5sf_agree(f->comm, failed, e) < 0) {
        h5sf_free(mine);
        h5sf_free(all);
        return -1;
    }
    /* Each subfile has one owner; the others contribute 0. */
    if (h5sf_coll_allreduce(mine, all, N, MPI_UINT64_T, MPI_MAX, f->comm) != MPI_SUCCESS) {
        h5sf_free(mine);
        h5sf_free(all);
        return h5sf_fail(e, 0, "MPI_Allreduce of the subfile sizes failed");
    }
    const uint64_t S = (uint64_t)f->layout.stripe_size;
    f->eof           = sf_complete_eof(all, S, N);
    f->eof_long      = sf_logical_eof(all, S, N) > f->eof;
    h5sf_free(mine);
    h5sf_free(all);
    return 0;
}

int h5sf_channels_open(h5sf_file_t *f, unsigned flags, h5sf_errbuf_t *e)
{
    int N = f->layout.stripe_count;
    /* Test-only: both tables fail on one rank (H5SF_FAULT op=nomem-chan). */
    bool nomem  = h5sf_fault("nomem-chan", f->rank) != 0;
    f->chan     = nomem ? NULL : h5sf_calloc((size_t)N, sizeof *f->chan);
    f->chan_eoa = h5sf_calloc((size_t)N, sizeof *f->chan_eoa);
    f->fd       = nomem ? NULL : h5sf_malloc((size_t)N * sizeof *f->fd);
    f->jobs     = h5sf_calloc((size_t)N, sizeof *f->jobs); /* a call touches at most N */
    f->js       = h5sf_calloc((size_t)N, sizeof *f->js);
    f->made     = h5sf_calloc((size_t)N, sizeof *f->made);
    int failed  = !f->chan || !f->chan_eoa || !f->fd || !f->jobs || !f->js || !f->made
                      ? h5sf_fail(e, ENOMEM, "out of memory") < 0
                      : 0;
    for (int s = 0; f->fd && s < N; s++)
        f->fd[s] = -1;
    if (h5sf_agree(f->comm, failed, e) < 0)
        return -1;
    if ((f->channel == H5FD_H5SF_CHANNEL_IOC ? open_ioc(f, flags, e) : open_direct(f, flags, e)) < 0)
        return -1;
    if (h5sf_samenode_init(f, e) < 0)
        return -1;
    return compute_eof(f, e);
}

/* Every rank reaches the agreement at the end, even one that has neither
 * table (an open that failed allocating them): the others wait in it. */
int h5sf_channels_close(h5sf_file_t *f, h5sf_errbuf_t *e)
{
    int failed = 0;
    if (f->ctx && !f->mpi_dead) {
        MPI_Barrier(f->comm); /* no request of any rank is outstanding */
        for (int s = 0; s < f->layout.stripe_count; s++)
            if (owns(f, s) && h5sf_ioc_subfile_close(f->ctx, f->file_id, (uint32_t)s, e) < 0)
                failed = 1;
    }
    for (int s = 0; f->chan && s < f->layout.stripe_count; s++)
        if (f->chan[s] && H5FDclose(f->chan[s]) < 0 && !failed)
            failed = fail_hdf5(e, 0, "cannot close subfile %d", s) < 0;
    h5sf_free(f->chan);
    f->chan = NULL;
    close_fds(f, &failed, e);
    h5sf_free(f->fd);
    f->fd = NULL;
    h5sf_samenode_close(f);
    if (f->ctx && !f->mpi_dead) {
        if (h5sf_ioc_ctx_release(f->ctx, e) < 0)
            failed = 1;
        f->ctx = NULL;
    }
    if (f->mpi_dead)
        return failed ? -1 : 0;
    return h5sf_agree(f->comm, failed, e);
}

int h5sf_channels_direct(h5sf_file_t *f, h5sf_errbuf_t *e)
{
    const int N = f->layout.stripe_count;
    if (f->channel != H5FD_H5SF_CHANNEL_IOC || !f->chan || !f->fd)
        return 0;
    if (open_direct(f, f->flags & ~(unsigned)(H5F_ACC_CREAT | H5F_ACC_TRUNC | H5F_ACC_EXCL), e) < 0) {
        int ignored = 1;
        close_fds(f, &ignored, e);
        return -1;
    }
    /* Nothing is posted on them: the hook waited for a COBEGIN bracket
     * left open before the IOCs stopped (h5sf.c, on_mpi_finalize). */
    for (int s = 0; s < N; s++)
        if (f->chan[s])
            H5FDclose(f->chan[s]);
    h5sf_free(f->chan);
    f->chan = NULL;
    h5sf_samenode_close(f);
    f->channel = H5FD_H5SF_CHANNEL_DIRECT;
    f->ctx     = NULL; /* freed at the end of the finalize hook */
    return 0;
}

int h5sf_channels_truncate(h5sf_file_t *f, haddr_t eoa, h5sf_errbuf_t *e)
{
    const uint64_t S = (uint64_t)f->layout.stripe_size;
    const int      N = f->layout.stripe_count;
    for (int s = 0; s < N; s++) {
        if (!owns(f, s))
            continue;
        uint64_t size = sf_subfile_size(eoa, S, N, s);
        if (f->channel == H5FD_H5SF_CHANNEL_IOC) {
            if (h5sf_ioc_truncate(f->ctx, f->rank, f->file_id, (uint32_t)s, size, e) < 0)
                return -1;
        }
        else if (h5sf_sysio_truncate(f->fd[s], size) < 0) {
            int  err = errno;
            char path[2 * H5SF_LAYOUT_PATH_MAX];
            if (subfile_path(f, s, path, sizeof path, e) < 0)
                snprintf(path, sizeof path, "%d", s);
            return h5sf_fail(e, err, "cannot truncate subfile %.3000s to %llu bytes: %s", path,
                             (unsigned long long)size, strerror(err));
        }
    }
    return 0;
}

/* IOC channel: the owner's IOC syncs each subfile once.  Direct channel:
 * every rank wrote through descriptors of its own, and fsync covers only
 * what went through the descriptor's open file, so every rank syncs every
 * subfile it has open. */
int h5sf_channels_sync(h5sf_file_t *f, h5sf_errbuf_t *e)
{
    for (int s = 0; s < f->layout.stripe_count; s++) {
        if (f->channel == H5FD_H5SF_CHANNEL_IOC) {
            if (owns(f, s) && h5sf_ioc_fsync(f->ctx, f->rank, f->file_id, (uint32_t)s, e) < 0)
                return -1;
            continue;
        }
        if (f->fd[s] < 0)
            continue;
        if (h5sf_sysio_sync(f->fd[s], f->rank) < 0) {
            int  err = errno;
            char path[2 * H5SF_LAYOUT_PATH_MAX];
            if (subfile_path(f, s, path, sizeof path, e) < 0)
                snprintf(path, sizeof path, "%d", s);
            return h5sf_fail(e, err, "rank %d: fsync of subfile %.3000s failed: %s (errno %d)", f->rank, path,
                             strerror(err), err);
        }
    }
    return 0;
}

/* Count one finished subfile call (a vector call or a pool job) of
 * `bytes` bytes in f->stats. */
void h5sf_count_subfile_call(h5sf_file_t *f, int s, bool is_write, uint64_t bytes)
{
    f->stats.messages++;
    if (s < H5SF_REPORT_SUBFILES)
        f->stats.subfile_messages[s]++;
    if (is_write)
        f->stats.bytes_written += bytes;
    else
        f->stats.bytes_read += bytes;
}

/* One finished job of subfile s (`bytes` bytes): count it
 * (h5sf_count_subfile_call); unless `failed`, turn its errno into e.  Returns
 * whether the transfers so far failed. */
int h5sf_pio_done(h5sf_file_t *f, bool is_write, const h5sf_pool_job_t *j, int s, uint64_t bytes, int failed,
                  h5sf_errbuf_t *e)
{
    int err = j->err;
    h5sf_count_subfile_call(f, s, is_write, err == 0 ? bytes : 0);
    if (err == 0)
        return failed;
    if (failed)
        return failed;
    char path[2 * H5SF_LAYOUT_PATH_MAX];
    if (subfile_path(f, s, path, sizeof path, e) < 0)
        snprintf(path, sizeof path, "%d", s);
    return h5sf_fail(e, err, "rank %d: %s of %llu bytes at offset %llu of subfile %.3000s failed: %s (errno %d)",
                     f->rank, is_write ? "pwrite" : "pread", (unsigned long long)j->err_len,
                     (unsigned long long)j->err_off, path, strerror(err), err) < 0;
}
