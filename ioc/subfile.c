/*
 * subfile.c -- the descriptors of the subfiles this rank serves.
 *
 * h5sf opens the subfiles an IOC owns on the IOC itself, at file open, so
 * open errors (permissions, missing files) surface there, collectively, and
 * the daemon only ever sees descriptors.  A job with many files open would
 * run out of descriptors, though (64 files x 8 subfiles per IOC is 512), so
 * at most H5SF_IOC_MAX_FDS stay open: opening one more closes the least
 * recently used idle one, and a worker reopens it when a request comes.
 * A handful to a few hundred entries per context: a list is the right
 * structure.  The open entries are also in ctx->lru, in order of use (common/lru.c,
 * the same-node shortcut's cap uses it too): the oldest one nobody uses
 * is nearly always at its front.
 *
 * open(2) and close(2) run without ctx->lock: a close can block for long
 * (NFS writes back dirty pages there), and the progress thread, the local
 * waiters and the stop all need the lock.  Under the lock a descriptor to
 * close is taken off its entry (fd -1: never handed out again, a request
 * reopens the file), and an entry to open is marked SF_OPENING and counted,
 * so that nobody opens it twice; whoever wants it waits for that open.
 *
 * Also owns how a subfile is created, for both channels
 * (h5sf_subfile_create): never into a file the caller did not create.
 */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "internal.h"

/* "user NAME (uid N)" or "uid N" for messages. */
static void owner_text(uid_t uid, char *out, size_t n)
{
    struct passwd pw, *r = NULL;
    char          buf[1024];
    if (getpwuid_r(uid, &pw, buf, sizeof buf, &r) == 0 && r)
        snprintf(out, n, "user %s (uid %u)", r->pw_name, (unsigned)uid);
    else
        snprintf(out, n, "uid %u", (unsigned)uid);
}

/* An O_CREAT|O_EXCL open that failed after open(2) made the file (its
 * fstat or fcntl failed) leaves it behind: remove it if it is still the
 * empty regular file of the caller's that the open made (one planted since
 * is someone else's or not empty, and stays). */
void h5sf_unmake(const char *path)
{
    struct stat st;
    int         err = errno;
    if (h5sf_sysio_fstatat(AT_FDCWD, path, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
        st.st_uid == geteuid() && st.st_nlink == 1 && st.st_size == 0)
        (void)h5sf_sysio_unlink(path);
    errno = err;
}

/* A name of the set that exists already is the caller's to replace only if
 * it is a regular file the caller owns with no other link (a truncating
 * re-create keeps the stub's inode, so the names are known in advance: a
 * link or a file planted there must not receive the new data), and, without
 * O_EXCL in flags, if it may belong to this set at all. */
int h5sf_subfile_create(const char *path, int flags, int fault_rank, h5sf_errbuf_t *e)
{
    struct stat st;
    char        who[160];
    if (h5sf_sysio_fstatat(AT_FDCWD, path, &st, AT_SYMLINK_NOFOLLOW) == 0) {
        owner_text(st.st_uid, who, sizeof who);
        if (S_ISLNK(st.st_mode))
            return h5sf_fail(e, EEXIST, "cannot create subfile %s: a symbolic link (owned by %s) is in its place", path,
                             who);
        if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() || st.st_nlink != 1)
            return h5sf_fail(e, EEXIST,
                             "cannot create subfile %s: a file owned by %s is in its place (%s); "
                             "h5sf replaces only a regular file of its own with one link",
                             path, who,
                             !S_ISREG(st.st_mode)     ? "not a regular file"
                             : st.st_uid != geteuid() ? "not the caller's"
                                                      : "it has other links");
        if (flags & O_EXCL)
            return h5sf_fail(e, EEXIST,
                             "cannot create subfile %s: it exists already and no config file of this file names it "
                             "(a file of the same name and inode number on another file system may use it, or it "
                             "is left from a lost set); not overwritten: remove it or choose another subfile_dir",
                             path);
        if (h5sf_sysio_unlink(path) < 0 && errno != ENOENT)
            return h5sf_fail(e, errno, "cannot replace subfile %s: %s", path, strerror(errno));
    }
    else if (errno != ENOENT)
        return h5sf_fail(e, errno, "cannot create subfile %s: %s", path, h5sf_sysio_strerror(errno));
    int fd = h5sf_sysio_open(path, O_RDWR | O_CREAT | O_EXCL, fault_rank);
    if (fd < 0 && errno != EEXIST)
        h5sf_unmake(path);
    if (fd < 0)
        return h5sf_fail(e, errno, "cannot create subfile %s: %s (errno %d)", path, h5sf_sysio_strerror(errno), errno);
    return fd;
}

ioc_sf_t *ioc_sf_find(h5sf_ioc_ctx_t *ctx, uint32_t file_id, uint32_t subfile)
{
    for (ioc_sf_t *sf = ctx->sfs; sf; sf = sf->next)
        if (sf->file_id == file_id && sf->subfile == subfile)
            return sf;
    return NULL;
}

/* sf->fd while one thread opens it: the others wait (lock dropped). */
#define SF_OPENING (-2)
/* Descriptors sf_make_room takes off their entries at most, per call. */
#define EVICT_MAX 4

/* An open entry nobody is using (lock held): its descriptor may close. */
static bool sf_idle(const h5sf_lru_node_t *n, void *arg)
{
    const ioc_sf_t *sf = H5SF_LRU_ENTRY(n, ioc_sf_t, lru);
    (void)arg;
    return !sf->active && !sf->barrier && !sf->held;
}

/* Take the descriptor of the least recently used entry nobody is using off
 * it, for the caller to close after dropping the lock; -1 if there is none
 * (all busy or being opened). */
static int evict_one(h5sf_ioc_ctx_t *ctx)
{
    h5sf_lru_node_t *n = h5sf_lru_oldest(&ctx->lru, sf_idle, NULL);
    if (!n)
        return -1;
    ioc_sf_t *old = H5SF_LRU_ENTRY(n, ioc_sf_t, lru);
    int       fd  = old->fd;
    h5sf_lru_remove(n);
    old->fd = -1;
    ctx->nfds--;
    return fd;
}

/* Make room for one more descriptor under the cap (lock held): the
 * descriptors to close go to fds[EVICT_MAX], their number is returned.
 * Nothing to close (all busy) lets the count go over the cap for a while
 * rather than stall I/O. */
static int sf_make_room(h5sf_ioc_ctx_t *ctx, int *fds)
{
    int n = 0;
    while (ctx->nfds >= ctx->max_fds && ctx->nfds > 0 && n < EVICT_MAX) {
        int fd = evict_one(ctx);
        if (fd < 0)
            break;
        fds[n++] = fd;
    }
    return n;
}

/* Close what sf_make_room took (lock not held).  A failed close of an idle
 * descriptor loses nothing: every write on it was answered already. */
static void close_evicted(const int *fds, int n)
{
    for (int i = 0; i < n; i++)
        h5sf_sysio_close(fds[i]);
}

int ioc_sf_use(h5sf_ioc_ctx_t *ctx, ioc_sf_t *sf)
{
    int err = 0, fds[EVICT_MAX], n, fd;
    uv_mutex_lock(&ctx->lock);
    /* Another thread opens it: wait for that.  (done_cond, not cond: a
     * waiter here must not take the signal meant for an idle worker.) */
    while (sf->fd == SF_OPENING && !atomic_load(&ctx->abandoned))
        uv_cond_wait(&ctx->done_cond, &ctx->lock);
    if (sf->fd >= 0) {
        h5sf_lru_touch(&ctx->lru, &sf->lru);
        goto done;
    }
    if (atomic_load(&ctx->abandoned)) { /* back too late: no more I/O */
        err = ECANCELED;
        goto done;
    }
    n      = sf_make_room(ctx, fds);
    sf->fd = SF_OPENING; /* sf is active: nobody evicts or frees it meanwhile */
    ctx->nfds++;
    uv_mutex_unlock(&ctx->lock);

    close_evicted(fds, n);
    /* Created at open already: never create or truncate again. */
    if ((fd = h5sf_sysio_open(sf->path, sf->flags, ctx->rank)) < 0)
        err = errno ? errno : EIO;

    uv_mutex_lock(&ctx->lock);
    sf->fd = fd;
    if (fd < 0)
        ctx->nfds--;
    else {
        h5sf_lru_touch(&ctx->lru, &sf->lru);
        atomic_fetch_add(&ctx->reopens, 1);
    }
    uv_cond_broadcast(&ctx->done_cond);
done:
    uv_mutex_unlock(&ctx->lock);
    return err;
}

int h5sf_ioc_subfile_open(h5sf_ioc_ctx_t *ctx, uint32_t file_id, uint32_t subfile, const char *path, int flags,
                          h5sf_errbuf_t *e)
{
    ioc_sf_t *sf = h5sf_calloc(1, sizeof *sf);
    if (!sf || !(sf->path = h5sf_strdup(path))) {
        h5sf_free(sf);
        return h5sf_fail(e, ENOMEM, "out of memory opening subfile %s", path);
    }
    int fds[EVICT_MAX], n;
    uv_mutex_lock(&ctx->lock);
    n = sf_make_room(ctx, fds);
    ctx->nfds++; /* ours, while we open it */
    uv_mutex_unlock(&ctx->lock);
    close_evicted(fds, n);
    h5sf_errbuf_t ce = {0};
    sf->fd =
        (flags & O_CREAT) ? h5sf_subfile_create(path, flags, ctx->rank, &ce) : h5sf_sysio_open(path, flags, ctx->rank);
    if (sf->fd < 0) {
        int err = (flags & O_CREAT) ? ce.err_no : errno;
        uv_mutex_lock(&ctx->lock);
        ctx->nfds--;
        uv_mutex_unlock(&ctx->lock);
        h5sf_free(sf->path);
        h5sf_free(sf);
        if (flags & O_CREAT)
            return h5sf_fail(e, err, "IOC rank %d: %s", ctx->rank, ce.msg);
        return h5sf_fail(e, err, "cannot open subfile %s on IOC rank %d: %s (errno %d)", path, ctx->rank,
                         h5sf_sysio_strerror(err), err);
    }
    sf->flags   = flags & ~(O_CREAT | O_TRUNC | O_EXCL);
    sf->file_id = file_id;
    sf->subfile = subfile;
    uv_mutex_lock(&ctx->lock);
    sf->next = ctx->sfs;
    ctx->sfs = sf;
    h5sf_lru_touch(&ctx->lru, &sf->lru);
    uv_mutex_unlock(&ctx->lock);
    return 0;
}

int h5sf_ioc_subfile_close(h5sf_ioc_ctx_t *ctx, uint32_t file_id, uint32_t subfile, h5sf_errbuf_t *e)
{
    ioc_sf_t *sf, **pp;
    uv_mutex_lock(&ctx->lock);
    for (pp = &ctx->sfs; (sf = *pp) && !(sf->file_id == file_id && sf->subfile == subfile); pp = &sf->next)
        ;
    if (!sf) {
        uv_mutex_unlock(&ctx->lock);
        return h5sf_fail(e, 0, "IOC rank %d does not serve subfile %u of file %u", ctx->rank, subfile, file_id);
    }
    /* Callers close after a barrier, so this rarely waits: only for a worker
     * that has replied but not yet dropped its bookkeeping -- or for one that
     * is stuck (a hung disk).  Then give up after the timeout and leave the
     * entry to the context, which frees it once its workers have stopped. */
    /* One such wait per context: once a worker is known stuck, the other
     * subfiles' closes do not add a timeout each. */
    uint64_t t0 = ioc_now_ns(), limit = ctx->close_stuck ? 0 : (uint64_t)atomic_load(&ctx->timeout_s) * 1000000000u;
    while ((sf->active || sf->barrier || sf->held) && ioc_now_ns() - t0 < limit)
        uv_cond_timedwait(&ctx->cond, &ctx->lock, 100u * 1000000u);
    if (sf->active || sf->barrier || sf->held) {
        size_t n         = sf->active;
        ctx->close_stuck = true;
        uv_mutex_unlock(&ctx->lock);
        return h5sf_fail(e, ETIMEDOUT,
                         "subfile %s still has %zu requests running on IOC rank %d after %d s; "
                         "not closed",
                         sf->path, n, ctx->rank, atomic_load(&ctx->timeout_s));
    }
    *pp = sf->next;
    h5sf_lru_remove(&sf->lru);
    if (sf->fd >= 0)
        ctx->nfds--;
    uv_mutex_unlock(&ctx->lock);
    int rc = sf->fd >= 0 ? h5sf_sysio_close(sf->fd) : 0, err = errno;
    if (rc < 0)
        h5sf_fail(e, err, "closing subfile %s failed: %s (errno %d)", sf->path, h5sf_sysio_strerror(err), err);
    h5sf_free(sf->path);
    h5sf_free(sf);
    return rc < 0 ? -1 : 0;
}
