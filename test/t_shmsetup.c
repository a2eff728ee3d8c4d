/*
 * t_shmsetup.c -- setting up the node's shared-memory area (ioc/shm.c) at
 * its edges, through ioc_shm_setup on contexts of MPI_COMM_WORLD (all ranks
 * on one node).
 *
 *   unaligned  a segment size that is not a multiple of the page size
 *              (H5SF_IOC_SHM=1048577): every rank can still reserve its
 *              segment and hand a region to its peers (the size is rounded
 *              up to whole pages); before, the reservation (madvise) failed
 *              with EINVAL on every rank but the node's first, and shared
 *              memory was silently off there
 *   overflow   a size whose total over the node's ranks overflows (2^63 per
 *              rank): setup refuses it with a message naming H5SF_IOC_SHM,
 *              no segment, nothing left in /dev/shm
 *   bcast      the broadcast of the object's name fails (this program's
 *              MPI_Bcast, over PMPI, fails it on every rank): setup fails,
 *              and the object rank 0 made is gone from /dev/shm
 * After every case, good setups still work (a 1 MiB segment, regions
 * checked between ranks).
 *
 * usage: mpiexec -n N t_shmsetup   (N >= 2: one rank has no shared area)
 */
#include <dirent.h>
#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../ioc/internal.h"
#include "h5sf_test.h"

static bool fail_bcast; /* the next MPI_Bcast of a name fails */

/* The name broadcast of make_object (64 chars) fails on every rank, before
 * any message moves, as a broken transport would fail it. */
int MPI_Bcast(void *buf, int n, MPI_Datatype dt, int root, MPI_Comm comm)
{
    if (fail_bcast && dt == MPI_CHAR) {
        fail_bcast = false;
        return MPI_ERR_OTHER;
    }
    return PMPI_Bcast(buf, n, dt, root, comm);
}

/* Objects this job's rank 0 made in /dev/shm ("h5sf-<pid>-..."). */
static int leftovers(long pid0)
{
    char pre[64];
    int  n  = 0;
    DIR *dp = opendir("/dev/shm");
    snprintf(pre, sizeof pre, "h5sf-%ld-", pid0);
    for (struct dirent *de; dp && (de = readdir(dp));)
        n += !strncmp(de->d_name, pre, strlen(pre));
    if (dp)
        closedir(dp);
    return n;
}

static h5sf_ioc_ctx_t *new_ctx(void)
{
    h5sf_errbuf_t   e   = {0};
    h5sf_ioc_ctx_t *ctx = ioc_ctx_new(t_rank, t_size, 5, &e);
    if (!ctx || MPI_Comm_dup(MPI_COMM_WORLD, &ctx->comm) != MPI_SUCCESS) {
        fprintf(stderr, "t_shmsetup [rank %d]: cannot make a context: %s\n", t_rank, e.msg);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm_set_errhandler(ctx->comm, MPI_ERRORS_RETURN);
    return ctx;
}

/* Every rank takes a region of its segment, fills it, and the next rank
 * reads it where the IOC would. */
static void check_regions(h5sf_ioc_ctx_t *ctx, const char *what)
{
    uint64_t               off = UINT64_MAX, n = 8192, peer_off = 0;
    h5sf_ioc_client_req_t *q  = (h5sf_ioc_client_req_t *)&n; /* a tag for the region only */
    int                    ok = ioc_shm_take(ctx, q, n, &off) == 0;
    CHECK(ok, "%s: cannot take a region of this rank's segment (%llu bytes)", what,
          (unsigned long long)ioc_shm_seg_size(ctx));
    if (ok)
        memset(ioc_shm_own(ctx, off), 'a' + t_rank, n);
    int from = (t_rank + t_size - 1) % t_size, to = (t_rank + 1) % t_size;
    MPI_Sendrecv(&off, 1, MPI_UINT64_T, to, 7, &peer_off, 1, MPI_UINT64_T, from, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    int all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (all) {
        const unsigned char *p   = ioc_shm_region(ctx, from, peer_off, n);
        size_t               bad = 0;
        for (uint64_t i = 0; p && i < n; i++)
            bad += p[i] != 'a' + from;
        CHECK(p && bad == 0, "%s: rank %d's region seen here: %s", what, from, p ? "wrong bytes" : "none");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (ok)
        ioc_shm_give(ctx, q, true);
}

static void case_good(const char *what)
{
    h5sf_errbuf_t   e   = {0};
    h5sf_ioc_ctx_t *ctx = new_ctx();
    CHECK(ioc_shm_setup(ctx, (uint64_t)1 << 20, &e) == 0, "%s: setup of 1 MiB failed: %s", what, e.msg);
    CHECK(ioc_shm_seg_size(ctx) == (uint64_t)1 << 20, "%s: segment of %llu bytes, expected 1 MiB", what,
          (unsigned long long)ioc_shm_seg_size(ctx));
    check_regions(ctx, what);
    ioc_ctx_free(ctx, true);
}

static void case_unaligned(void)
{
    h5sf_errbuf_t   e    = {0};
    h5sf_ioc_ctx_t *ctx  = new_ctx();
    uint64_t        want = ((uint64_t)1 << 20) + 1, page = (uint64_t)sysconf(_SC_PAGESIZE);
    CHECK(ioc_shm_setup(ctx, want, &e) == 0, "unaligned: setup failed: %s", e.msg);
    uint64_t seg = ioc_shm_seg_size(ctx);
    CHECK(seg >= want && seg % page == 0, "unaligned: segment of %llu bytes for %llu asked (page %llu)",
          (unsigned long long)seg, (unsigned long long)want, (unsigned long long)page);
    check_regions(ctx, "unaligned");
    ioc_ctx_free(ctx, true);
}

static void case_overflow(long pid0)
{
    h5sf_errbuf_t   e   = {0};
    h5sf_ioc_ctx_t *ctx = new_ctx();
    int             r   = ioc_shm_setup(ctx, (uint64_t)1 << 63, &e);
    CHECK(r < 0 && strstr(e.msg, "H5SF_IOC_SHM"),
          "overflow: setup returned %d (message \"%s\"), expected a "
          "failure naming H5SF_IOC_SHM",
          r, e.msg);
    CHECK(ioc_shm_seg_size(ctx) == 0, "overflow: a segment of %llu bytes", (unsigned long long)ioc_shm_seg_size(ctx));
    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == 0)
        CHECK(leftovers(pid0) == 0, "overflow: %d object(s) left in /dev/shm", leftovers(pid0));
    ioc_ctx_free(ctx, true);
}

static void case_bcast(long pid0)
{
    h5sf_errbuf_t   e   = {0};
    h5sf_ioc_ctx_t *ctx = new_ctx();
    fail_bcast          = true;
    int r               = ioc_shm_setup(ctx, (uint64_t)1 << 20, &e);
    fail_bcast          = false;
    CHECK(r < 0 && e.msg[0], "bcast: setup returned %d (message \"%s\"), expected a failure", r, e.msg);
    CHECK(ioc_shm_seg_size(ctx) == 0, "bcast: a segment of %llu bytes", (unsigned long long)ioc_shm_seg_size(ctx));
    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == 0)
        CHECK(leftovers(pid0) == 0, "bcast: %d object(s) left in /dev/shm after a failed broadcast", leftovers(pid0));
    ioc_ctx_free(ctx, true);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv, "t_shmsetup");
    if (t_size < 2) {
        if (t_rank == 0)
            fprintf(stderr, "t_shmsetup: needs at least 2 ranks\n");
        MPI_Finalize();
        return 2;
    }
    long pid0 = (long)getpid();
    MPI_Bcast(&pid0, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    case_good("good, first");
    case_unaligned();
    case_overflow(pid0);
    case_good("good, after overflow");
    case_bcast(pid0);
    case_good("good, after a failed broadcast");
    if (t_rank == 0)
        CHECK(leftovers(pid0) == 0, "%d object(s) left in /dev/shm at the end", leftovers(pid0));
    return t_finish();
}
