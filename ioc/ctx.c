/*
 * ctx.c -- IOC contexts: one per communicator group, shared by every file
 * opened on a congruent communicator, so opening many files neither starts
 * many daemons nor duplicates many communicators.
 *
 * Contexts are created and released collectively; HDF5 serializes VFD
 * calls, so the registry needs no lock of its own.
 *
 * When the last file of a context closes, the context is *parked* instead
 * of torn down if its communicator is congruent with MPI_COMM_WORLD (so
 * there is at most one parked context, the same on every rank): its
 * daemon threads sleep on a condition variable and use no CPU, its transfer
 * slots are freed after a second (a file opened sooner reuses them, and
 * fresh ones cost page faults), and the next file opened on those ranks
 * skips the communicator duplication and the start and stop of five
 * threads, which a code writing a file per time step pays every step
 * (measured: docs/performance-history.md, Figures behind constants, parked slots).  A parked context ends at MPI_Finalize,
 * when HDF5 closes the driver, or at the next open if the H5SF_IOC_*
 * settings changed meanwhile.  Contexts of other communicators, and any
 * that saw a failure, end with their last file as before.
 *
 * No IOC thread is inside MPI when the last close returns: the daemon is
 * quieted (parked, with an answer from its threads, no MPI message) before
 * the close's last collective.  MPICH 4.0 turns its locking off at the start
 * of MPI_Finalize without waiting for threads inside MPI; one caught there
 * keeps MPICH's global mutex locked, and MPI_Finalize aborts when it
 * destroys it ("pthread_mutex_destroy: Device or resource busy").  A
 * daemon that polls meanwhile also slows that collective under MPICH's lock.
 * MPI_Finalize with files still open: h5sf_ioc_finalize_begin and _stop,
 * with the finalize gate (gate.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "internal.h"
#include "../common/settings.h"

/* H5SF_IOC_MEMORY: bytes an IOC rank may hold for payload and queued
 * requests; half for transfer slots, half for received messages, and the
 * slots need at least one chunk. */
#define IOC_MEMORY_DEFAULT ((uint64_t)256 << 20)
#define IOC_MEMORY_MIN     (2 * H5SF_IOC_CHUNK)
/* H5SF_IOC_SHM: a segment per rank of two transfer chunks, so a client can
 * fill one while its IOC writes the other (shm.c). */
#define IOC_SHM_DEFAULT     (2 * H5SF_IOC_CHUNK)
#define IOC_SHM_MIN         ((uint64_t)1 << 20)
#define IOC_MAX_FDS_DEFAULT H5SF_DEFAULT_IOC_MAX_FDS
/* Microseconds a worker may wait for requests that fill the gaps of a
 * sparse one (further bounded by ~2 us per piece unless set explicitly). */
#define IOC_MERGE_WAIT_DEFAULT_US 5000

int h5sf_ioc_check_env(h5sf_errbuf_t *e)
{
    ioc_env_t env;
    return ioc_read_env(&env, e);
}

int h5sf_ioc_fd_cap(void)
{
    ioc_env_t     env;
    h5sf_errbuf_t e;
    return ioc_read_env(&env, &e) < 0 ? IOC_MAX_FDS_DEFAULT : env.max_fds;
}

/* The most H5SF_IOC_MEMORY may be: the node's memory (a larger value is a
 * mistake, and 2^56 bytes once made no slot at all), else 1 TiB. */
static uint64_t ioc_memory_max(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0 || (uint64_t)pages > ((uint64_t)1 << 50) / (uint64_t)page)
        return (uint64_t)1 << 40;
    uint64_t m = (uint64_t)pages * (uint64_t)page;
    return m < IOC_MEMORY_MIN ? IOC_MEMORY_MIN : m;
}

/* Read the daemon's environment settings; -1 with a message naming the
 * variable on bad values. */
int ioc_read_env(ioc_env_t *env, h5sf_errbuf_t *e)
{
    const char *v;
    env->memory  = IOC_MEMORY_DEFAULT;
    env->max_fds = IOC_MAX_FDS_DEFAULT;
    if ((v = h5sf_var(H5SF_VAR_IOC_MEMORY)) && *v) {
        int64_t n;
        if (h5sf_parse_size(v, &n, e, "H5SF_IOC_MEMORY") < 0)
            return -1;
        if ((uint64_t)n < IOC_MEMORY_MIN)
            return h5sf_fail(e, EINVAL,
                             "H5SF_IOC_MEMORY=\"%.200s\": must be at least %llu MiB (two transfer "
                             "chunks)",
                             v, (unsigned long long)(IOC_MEMORY_MIN >> 20));
        if ((uint64_t)n > ioc_memory_max())
            return h5sf_fail(e, EINVAL, "H5SF_IOC_MEMORY=\"%.200s\": must be at most %llu MiB (this node's memory)", v,
                             (unsigned long long)(ioc_memory_max() >> 20));
        env->memory = (uint64_t)n;
    }
    env->shm = IOC_SHM_DEFAULT;
    if ((v = h5sf_var(H5SF_VAR_IOC_SHM)) && !strcmp(v, "0"))
        env->shm = 0;
    if ((v = h5sf_var(H5SF_VAR_IOC_SHM)) && *v && strcmp(v, "0") != 0) {
        int64_t n;
        if (h5sf_parse_size(v, &n, e, "H5SF_IOC_SHM") < 0)
            return -1;
        if ((uint64_t)n < IOC_SHM_MIN)
            return h5sf_fail(e, EINVAL, "H5SF_IOC_SHM=\"%.200s\": must be 0 (off) or at least 1 MiB", v);
        env->shm = (uint64_t)n;
    }
    if ((v = h5sf_var(H5SF_VAR_IOC_MAX_FDS)) && *v &&
        h5sf_parse_int(v, 1, 1 << 20, &env->max_fds, e, "H5SF_IOC_MAX_FDS") < 0)
        return -1;
    env->merge_wait_us  = IOC_MERGE_WAIT_DEFAULT_US;
    env->merge_wait_set = false;
    if ((v = h5sf_var(H5SF_VAR_IOC_MERGE_WAIT)) && *v) {
        if (h5sf_parse_int(v, 0, 10000000, &env->merge_wait_us, e, "H5SF_IOC_MERGE_WAIT") < 0)
            return -1;
        env->merge_wait_set = true;
    }
    env->affinity_node = true;
    if ((v = h5sf_var(H5SF_VAR_IOC_AFFINITY)) && *v) {
        if (!strcmp(v, "inherit"))
            env->affinity_node = false;
        else if (strcmp(v, "node"))
            return h5sf_fail(e, EINVAL, "H5SF_IOC_AFFINITY=\"%.200s\": must be node or inherit", v);
    }
    return 0;
}

static h5sf_ioc_ctx_t *contexts;

/* Wait until no IOC thread of ctx is in a stretch of MPI calls and its
 * progress thread sleeps parked: at most the timeout.  No MPI. */
static bool wait_out(h5sf_ioc_ctx_t *ctx)
{
    uint64_t deadline = ioc_now_ns() + (uint64_t)atomic_load(&ctx->timeout_s) * 1000000000u;
    bool     ok       = true;
    atomic_store(&ctx->quieting, true);
    uv_mutex_lock(&ctx->lock);
    while (atomic_load(&ctx->in_mpi) > 0 || !ctx->asleep) {
        uint64_t now = ioc_now_ns();
        if (now >= deadline) {
            ok = false;
            break;
        }
        uv_cond_timedwait(&ctx->park_cond, &ctx->lock, deadline - now);
    }
    uv_mutex_unlock(&ctx->lock);
    atomic_store(&ctx->quieting, false);
    return ok;
}

/* Once per process: more would only repeat it at every later close. */
static void say_abandoned(const h5sf_ioc_ctx_t *ctx)
{
    static bool said;
    if (said)
        return;
    said = true;
    /* Usually a system call that does not return; also seen under heavy
     * load when a worker drains many transfers the clients gave up on (each
     * gets a grace period, run.c). */
    fprintf(stderr,
            "h5sf: IOC rank %d: a worker thread did not stop within the timeout (%d s): stuck in a "
            "file system call, or still ending transfers that other ranks gave up; left behind with its "
            "memory so that close and MPI_Finalize can return\n",
            ctx->rank, atomic_load(&ctx->timeout_s));
}

/* Stop and join the workers (the progress thread is gone or never ran);
 * stuck ones are left with the context (ioc_workers_stop). */
static void stop_workers(h5sf_ioc_ctx_t *ctx)
{
    if (ctx->nworkers == 0 || atomic_load(&ctx->abandoned))
        return; /* abandoned: given up on once already, within the timeout */
    uv_mutex_lock(&ctx->lock);
    atomic_store(&ctx->stop, true);
    uv_mutex_unlock(&ctx->lock);
    if (!ioc_workers_stop(ctx)) {
        say_abandoned(ctx);
        return; /* stop stays set: a worker that comes back leaves */
    }
    atomic_store(&ctx->stop, false);
}

static void ctx_stop_daemon(h5sf_ioc_ctx_t *ctx)
{
    if (ctx->serving) {
        uv_mutex_lock(&ctx->lock);
        atomic_store(&ctx->stop, true);
        uv_cond_broadcast(&ctx->park_cond);
        uv_mutex_unlock(&ctx->lock);
        ioc_bell_ring(ctx, ctx->rank, true);
        ioc_progress_stop(ctx);
        ctx->serving = false;
    }
    stop_workers(ctx);
}

void ioc_ctx_free(h5sf_ioc_ctx_t *ctx, bool free_comm)
{
    for (h5sf_ioc_ctx_t **pp = &contexts; *pp; pp = &(*pp)->next)
        if (*pp == ctx) {
            *pp = ctx->next;
            break;
        }
    if (atomic_load(&ctx->abandoned))
        return;        /* stuck workers still use all of it (ioc_workers_stop) */
    while (ctx->sfs) { /* files the application never closed */
        ioc_sf_t *sf = ctx->sfs;
        ctx->sfs     = sf->next;
        if (sf->fd >= 0)
            h5sf_sysio_close(sf->fd);
        h5sf_free(sf->path);
        h5sf_free(sf);
    }
    ioc_shm_free(ctx);
    if (free_comm && ctx->comm != MPI_COMM_NULL)
        MPI_Comm_free(&ctx->comm);
    uv_cond_destroy(&ctx->cond);
    uv_cond_destroy(&ctx->done_cond);
    uv_cond_destroy(&ctx->slot_cond);
    uv_cond_destroy(&ctx->park_cond);
    while (ctx->nslots_free > 0)
        h5sf_free(ctx->slots[--ctx->nslots_free]);
    ioc_copies_trim(ctx);
    h5sf_free(ctx->slots);
    h5sf_free(ctx->workers); /* kept by a serve whose first worker failed to start */
    h5sf_free(ctx->dead);
    uv_mutex_destroy(&ctx->lock);
    h5sf_free(ctx);
}

h5sf_ioc_ctx_t *ioc_ctx_new(int rank, int size, int timeout_s, h5sf_errbuf_t *e)
{
    ioc_env_t env;
    if (ioc_read_env(&env, e) < 0)
        return NULL;
    h5sf_ioc_ctx_t *ctx    = h5sf_calloc(1, sizeof *ctx);
    int             nslots = (int)(env.memory / 2 / H5SF_IOC_CHUNK);
    if (!ctx || !(ctx->dead = h5sf_calloc((size_t)size, 1)) ||
        !(ctx->slots = h5sf_calloc((size_t)nslots, sizeof *ctx->slots))) {
        if (ctx)
            h5sf_free(ctx->dead);
        h5sf_free(ctx);
        h5sf_fail(e, ENOMEM, "out of memory creating an IOC context");
        return NULL;
    }
    ctx->comm = MPI_COMM_NULL;
    ctx->rank = rank;
    ctx->size = size;
    atomic_init(&ctx->timeout_s, timeout_s);
    ctx->tag_ub         = 32767;
    ctx->mem_cap        = env.memory;
    ctx->peer_cap       = env.memory;
    ctx->max_fds        = env.max_fds;
    ctx->nslots_max     = nslots;
    ctx->env            = env;
    ctx->merge_wait_ns  = (uint64_t)env.merge_wait_us * 1000u;
    ctx->merge_wait_set = env.merge_wait_set;
    ctx->affinity_node  = env.affinity_node;
    uv_mutex_init(&ctx->lock);
    uv_cond_init(&ctx->cond);
    uv_cond_init(&ctx->done_cond);
    uv_cond_init(&ctx->slot_cond);
    uv_cond_init(&ctx->park_cond);
    return ctx;
}

int h5sf_ioc_agree(MPI_Comm comm, int failed_here, h5sf_errbuf_t *e)
{
    int rank, size, first;
    if (comm == MPI_COMM_NULL) /* one process without MPI (vfd/solo.c) */
        return failed_here ? -1 : 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int mine = failed_here ? rank : size;
    if (MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS)
        return h5sf_fail(e, 0, "MPI_Allreduce failed while agreeing on errors");
    if (first == size)
        return 0;
    /* Everyone reports the lowest failing rank's reason; the failing rank
     * keeps its own text. */
    h5sf_errbuf_t tmp;
    memset(&tmp, 0, sizeof tmp);
    if (rank == first && e)
        tmp = *e;
    if (MPI_Bcast(&tmp, (int)sizeof tmp, MPI_BYTE, first, comm) != MPI_SUCCESS && rank != first)
        snprintf(tmp.msg, sizeof tmp.msg, "failed (MPI_Bcast of the reason failed too)");
    if (e && rank != first) {
        char msg[sizeof tmp.msg];
        snprintf(msg, sizeof msg, "rank %d: %.490s", first, tmp.msg);
        memcpy(e->msg, msg, sizeof msg);
        e->err_no = tmp.err_no;
    }
    return -1;
}

static int ctx_create(MPI_Comm comm, int timeout_s, h5sf_ioc_ctx_t **out, h5sf_errbuf_t *e)
{
    h5sf_ioc_ctx_t *ctx;
    MPI_Comm        dup;
    int            *ub, flag = 0, rank, size, cmp, rc;
    char            why[MPI_MAX_ERROR_STRING];
    if ((rc = h5sf_mpisite_comm_dup(comm, &dup)) != MPI_SUCCESS)
        h5sf_fail(e, 0, "MPI_Comm_dup failed creating the IOC communicator: %s", h5sf_mpisite_errstr(rc, why));
    /* Agreed on comm: a rank without the duplicate would leave the others
     * in the collectives on theirs. */
    if (h5sf_ioc_agree(comm, rc != MPI_SUCCESS, e) < 0) {
        if (rc == MPI_SUCCESS)
            MPI_Comm_free(&dup);
        return -1;
    }
    /* Our failures are reported, never fatal. */
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
    MPI_Comm_rank(dup, &rank);
    MPI_Comm_size(dup, &size);
    /* Clients cut piece lists to fit the IOC's budget (client.c): the
     * least H5SF_IOC_MEMORY of all ranks, whichever rank the IOC is.  (The
     * caller checked every rank's settings, so all of them get here.) */
    ioc_env_t env;
    uint64_t  least = 0;
    if (ioc_read_env(&env, e) < 0 || MPI_Allreduce(&env.memory, &least, 1, MPI_UINT64_T, MPI_MIN, dup) != MPI_SUCCESS) {
        MPI_Comm_free(&dup);
        return h5sf_fail(e, 0, "cannot agree on H5SF_IOC_MEMORY for the IOC communicator");
    }
    /* Agreed before the collectives below (shared memory, the daemons): a
     * rank that returned alone would leave the others in them. */
    if (h5sf_fault("nomem-ctx", rank)) {
        h5sf_fail(e, ENOMEM, "out of memory creating an IOC context");
        ctx = NULL;
    }
    else
        ctx = ioc_ctx_new(rank, size, timeout_s, e);
    if (h5sf_ioc_agree(dup, !ctx, e) < 0) {
        if (ctx)
            ioc_ctx_free(ctx, false);
        MPI_Comm_free(&dup);
        return -1;
    }
    ctx->comm     = dup;
    ctx->peer_cap = least;
    ioc_shm_setup(ctx, env.shm, e); /* collective; without it, messages only */
    ctx->world = MPI_Comm_compare(dup, MPI_COMM_WORLD, &cmp) == MPI_SUCCESS && cmp == MPI_CONGRUENT;
    MPI_Comm_get_attr(dup, MPI_TAG_UB, &ub, &flag);
    if (flag)
        ctx->tag_ub = *ub;
    /* Test only: a small tag space, as some MPI libraries have. */
    const char *tub = h5sf_var(H5SF_VAR_TEST_TAG_UB);
    if (tub && atoi(tub) >= H5SF_TAG_FIRST + 4 && atoi(tub) < ctx->tag_ub)
        ctx->tag_ub = atoi(tub);
    ctx->next = contexts;
    contexts  = ctx;
    *out      = ctx;
    return 0;
}

/* A parked context may serve again if the settings it was made with are
 * still the environment's. */
static bool env_unchanged(const h5sf_ioc_ctx_t *ctx)
{
    ioc_env_t     env;
    h5sf_errbuf_t e;
    return ioc_read_env(&env, &e) == 0 && env.memory == ctx->env.memory && env.shm == ctx->env.shm &&
           env.max_fds == ctx->env.max_fds && env.merge_wait_us == ctx->env.merge_wait_us &&
           env.merge_wait_set == ctx->env.merge_wait_set && env.affinity_node == ctx->env.affinity_node;
}

/* Back from parking: the daemon listens again, and counters start afresh as
 * in a new context (they are reported per file). */
static void unpark(h5sf_ioc_ctx_t *ctx)
{
    uv_mutex_lock(&ctx->lock);
    atomic_store(&ctx->parked, false);
    uv_cond_broadcast(&ctx->park_cond);
    uv_mutex_unlock(&ctx->lock);
    atomic_store(&ctx->max_inflight, 0);
    atomic_store(&ctx->served, 0);
    atomic_store(&ctx->queue_wait_ns, 0);
    atomic_store(&ctx->io_ns, 0);
    atomic_store(&ctx->batches, 0);
    atomic_store(&ctx->merged, 0);
    atomic_store(&ctx->merge_waits, 0);
    atomic_store(&ctx->syscalls, 0);
    atomic_store(&ctx->reopens, 0);
}

int h5sf_ioc_ctx_acquire(MPI_Comm comm, int timeout_s, h5sf_ioc_ctx_t **out, h5sf_errbuf_t *e)
{
    h5sf_ioc_ctx_t *found = NULL;
    int             cmp, st[2], all[2];
    for (h5sf_ioc_ctx_t *c = contexts; c && !found; c = c->next)
        if (MPI_Comm_compare(c->comm, comm, &cmp) == MPI_SUCCESS && (cmp == MPI_IDENT || cmp == MPI_CONGRUENT))
            found = c;
    /* 0: none, 1: a parked one made with other settings, 2: usable.  Every
     * member created and parked the context together, so all agree on
     * having one; check anyway, a disagreement would pair requests with the
     * wrong communicator.  (One reduction: the minimum and, negated, the
     * maximum.) */
    st[0] = !found ? 0 : (found->refs > 0 || env_unchanged(found)) ? 2 : 1;
    st[1] = -st[0];
    if (MPI_Allreduce(st, all, 2, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS)
        return h5sf_fail(e, 0, "MPI_Allreduce failed finding the IOC context");
    if ((all[0] == 0) != (-all[1] == 0))
        return h5sf_fail(e, 0, "ranks disagree on the IOC context of this communicator");
    if (found && all[0] == 1) { /* settings changed on some rank: start over */
        ctx_stop_daemon(found);
        ioc_ctx_free(found, true);
        found = NULL;
    }
    if (found && found->refs == 0)
        unpark(found);
    if (!found) {
        /* A bad setting on any rank stops every rank before the collective
         * MPI_Comm_dup, so nobody waits in it alone. */
        ioc_env_t env;
        int       bad = ioc_read_env(&env, e) < 0, anybad = 0;
        MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, comm);
        if (bad)
            return -1;
        if (anybad)
            return h5sf_fail(e, EINVAL, "an H5SF_IOC_* setting is invalid on another rank");
        if (ctx_create(comm, timeout_s, &found, e) < 0)
            return -1;
    }
    /* Atomic: the IOC threads of a context already serving read it. */
    if (timeout_s > atomic_load(&found->timeout_s))
        atomic_store(&found->timeout_s, timeout_s);
    found->refs++;
    *out = found;
    return 0;
}

/* May this context, whose last file just closed, be parked?  Not if
 * anything went wrong in it, or faults are being injected. */
static bool parkable(h5sf_ioc_ctx_t *ctx)
{
    if (!ctx->world || ctx->sfs || h5sf_fault_on())
        return false;
    for (int r = 0; r < ctx->size; r++)
        if (ctx->dead[r])
            return false;
    return true;
}

/* The daemon goes to sleep (progress.c) and says so; returns once it
 * sleeps and no worker is inside MPI, false if that took longer than the
 * timeout.  The idle transfer slots stay for H5SF_IOC_SLOT_KEEP_NS, then the
 * sleeping daemon frees them. */
static bool park(h5sf_ioc_ctx_t *ctx)
{
    uv_mutex_lock(&ctx->lock);
    atomic_store(&ctx->parked, true);
    uv_mutex_unlock(&ctx->lock);
    if (!ctx->serving)
        return true;
    ioc_bell_ring(ctx, ctx->rank, true); /* it may sleep on its bell */
    return wait_out(ctx);
}

int h5sf_ioc_ctx_release(h5sf_ioc_ctx_t *ctx, h5sf_errbuf_t *e)
{
    (void)e;
    if (--ctx->refs > 0)
        return 0;
    /* Every rank is past the close's barrier (vfd/channel.c), so nobody
     * sends to our daemon any more: it sleeps before the collective below,
     * which it would otherwise slow (MPICH), and stays asleep if every rank
     * can park, or is stopped. */
    int ok = park(ctx) && parkable(ctx), all = 0;
    if (MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, ctx->comm) == MPI_SUCCESS && all)
        return 0;
    ctx_stop_daemon(ctx);
    ioc_ctx_free(ctx, true);
    return 0;
}

MPI_Comm h5sf_ioc_ctx_comm(const h5sf_ioc_ctx_t *ctx) { return ctx->comm; }

uint32_t h5sf_ioc_ctx_next_file_id(h5sf_ioc_ctx_t *ctx) { return ++ctx->next_file_id; }

/* A thread that fails to start fails the call.  A context not yet serving
 * is left as it was, with no thread: the workers already started wait on
 * its lock and conditions, and nothing else would stop them before the
 * context is freed (or parked, then freed).  Extra workers for a context
 * already serving stay; its stop joins them. */
int h5sf_ioc_serve(h5sf_ioc_ctx_t *ctx, int threads, h5sf_errbuf_t *e)
{
    int ret = -1;
    if (threads < 1)
        threads = 1;
    if (ioc_workers_start(ctx, threads, e) < 0)
        goto done;
    if (!ctx->serving) {
        if (ioc_progress_start(ctx, e) < 0)
            goto done;
        ctx->serving = true;
    }
    ret = 0;
done:
    if (ret < 0 && !ctx->serving)
        stop_workers(ctx);
    return ret;
}

void h5sf_ioc_get_counters(const h5sf_ioc_ctx_t *ctx, h5sf_ioc_counters_t *out)
{
    h5sf_ioc_ctx_t *c    = (h5sf_ioc_ctx_t *)(uintptr_t)ctx;
    out->max_inflight    = atomic_load(&c->max_inflight);
    out->requests_served = atomic_load(&c->served);
    out->queue_wait_ns   = atomic_load(&c->queue_wait_ns);
    out->io_ns           = atomic_load(&c->io_ns);
    out->batches         = atomic_load(&c->batches);
    out->merged          = atomic_load(&c->merged);
    out->merge_waits     = atomic_load(&c->merge_waits);
    out->syscalls        = atomic_load(&c->syscalls);
    out->reopens         = atomic_load(&c->reopens);
    uv_mutex_lock(&c->lock);
    out->open_fds = (uint64_t)c->nfds;
    out->slots    = (uint64_t)c->nslots_made;
    uv_mutex_unlock(&c->lock);
}

void h5sf_ioc_end_parked(void)
{
    int done = 0;
    MPI_Finalized(&done);
    for (h5sf_ioc_ctx_t *c = contexts, *next; c; c = next) {
        next = c->next;
        if (c->refs > 0)
            continue;
        ctx_stop_daemon(c);
        ioc_ctx_free(c, !done);
    }
}

/* Start c's barrier.  A start that fails (MPI out of memory on this rank
 * alone) is tried again for up to the context's timeout: the other ranks
 * wait in theirs until this one joins.  Given up, nothing is waited for
 * here, and the others are left waiting: said on stderr. */
static void barrier_start(h5sf_ioc_ctx_t *c)
{
    uint64_t t0 = ioc_now_ns(), limit = (uint64_t)atomic_load(&c->timeout_s) * 1000000000u;
    int      rc;
    for (unsigned idle = 0;; ioc_backoff(&idle)) {
        c->fin_req = MPI_REQUEST_NULL;
        if ((rc = IOC_MPI(h5sf_mpisite_ibarrier(c->comm, &c->fin_req))) == MPI_SUCCESS)
            return;
        if (ioc_now_ns() - t0 > limit)
            break;
    }
    char why[MPI_MAX_ERROR_STRING];
    c->fin_req = MPI_REQUEST_NULL;
    fprintf(stderr, "h5sf: rank %d: MPI_Ibarrier at MPI_Finalize failed for %d s (%s); the other ranks may wait\n",
            c->rank, atomic_load(&c->timeout_s), h5sf_mpisite_errstr(rc, why));
}

/* Every IOC of every context with files open gets here too (MPI_Finalize
 * is collective); until all have, our daemons serve their late requests,
 * taking turns with us one MPI call at a time (IOC_MPI).  Each context
 * keeps its own request: nothing to allocate, and a start that fails is
 * tried again, so no rank skips its barrier and leaves the others polling
 * theirs for good. */
static void barrier_gated(void)
{
    for (h5sf_ioc_ctx_t *c = contexts; c; c = c->next) {
        c->fin_req = MPI_REQUEST_NULL;
        if (c->refs > 0 && c->comm != MPI_COMM_NULL)
            barrier_start(c);
    }
    for (unsigned idle = 0;;) {
        int done = 1;
        for (h5sf_ioc_ctx_t *c = contexts; c; c = c->next) {
            int flag = 1; /* a completed one is MPI_REQUEST_NULL: flag 1 */
            if (c->fin_req != MPI_REQUEST_NULL &&
                IOC_MPI(MPI_Test(&c->fin_req, &flag, MPI_STATUS_IGNORE)) != MPI_SUCCESS)
                c->fin_req = MPI_REQUEST_NULL, flag = 1;
            done &= flag;
        }
        if (done)
            break;
        ioc_backoff(&idle);
    }
}

void h5sf_ioc_finalize_begin(void)
{
    /* Close the gate before any MPI call here, and wait (no MPI) for the
     * calls already inside MPI without it: single calls, so the longest
     * timeout is a generous bound. */
    int most = 0;
    for (h5sf_ioc_ctx_t *c = contexts; c; c = c->next)
        if (atomic_load(&c->timeout_s) > most)
            most = atomic_load(&c->timeout_s);
    ioc_gate_close((uint64_t)most * 1000000000u);
}

void h5sf_ioc_finalize_stop(void)
{
    barrier_gated();
    /* Nothing more can arrive: stop the daemons (their last MPI calls take
     * the gate), and fail whatever would still ask them at once. */
    for (h5sf_ioc_ctx_t *c = contexts; c; c = c->next) {
        ctx_stop_daemon(c);
        memset(c->dead, 1, (size_t)c->size);
    }
}

void h5sf_ioc_shutdown_all(void)
{
    /* MPI_Finalize is running: no collectives, no communicator frees (other
     * ranks may be at a different point); stop threads and drop state. */
    while (contexts) {
        h5sf_ioc_ctx_t *c = contexts;
        ctx_stop_daemon(c);
        ioc_ctx_free(c, false);
    }
}
