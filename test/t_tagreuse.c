/*
 * t_tagreuse.c -- no two requests a client has outstanding to one IOC share
 * a tag, however the request ids before them were used.
 *
 * Three ranks, every one an IOC (ioc=every:1), six subfiles (subfile s on
 * rank s % 3), a tag space of two requests (H5SF_TEST_TAG_UB=24), payloads
 * as MPI messages (H5SF_IOC_SHM=0, as between nodes).  Rank 1 writes, in
 * one call as the channel does (post all, then wait all), subfile 0 (IOC 0),
 * subfile 1 (its own IOC: a request id but no tag) and subfile 3 (IOC 0
 * again): ids 0, 1, 2, so the two requests to IOC 0 map to the same tag
 * when only the posted remote requests are counted.  H5SF_FAULT stalls the
 * first request rank 0 serves, so IOC 0's second worker takes the later
 * request first: sharing a tag, it would receive the earlier payload (and
 * the client would take its reply for the earlier one's).
 *
 * Checked: every wait succeeds, and each IOC's subfiles, read back with
 * pread, hold the pattern -- an independent reference, a function of the
 * subfile and the offset.
 *
 * usage: mpiexec -n 3 t_tagreuse DIR
 */
#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "../ioc/ioc.h"
#include "h5sf_test.h"

#define NSUB 6
#define LEN  ((size_t)256 << 10) /* above the inline limit: payload messages */

static void subfile_path(const char *dir, int s, char *out, size_t n)
{
    snprintf(out, n, "%s/tagreuse_%d.sub", dir, s);
}

/* Rank 1: post the writes of `subs` in order, then wait for all of them. */
static void write_together(h5sf_ioc_ctx_t *ctx, uint32_t file_id, const int *subs, int n, unsigned char **bufs)
{
    h5sf_ioc_client_req_t *q[NSUB] = {0};
    h5sf_errbuf_t          e;
    for (int i = 0; i < n; i++) {
        uint64_t off = 0, len = LEN;
        void    *b = bufs[subs[i]];
        CHECK(h5sf_ioc_post(ctx, H5SF_IOC_OP_WRITE, subs[i] % t_size, file_id, (uint32_t)subs[i], 1, &off, &len, &b,
                            &q[i], &e) == 0,
              "post to subfile %d: %s", subs[i], e.msg);
    }
    for (int i = 0; i < n; i++)
        if (q[i])
            CHECK(h5sf_ioc_wait(q[i], &e) == 0, "write of subfile %d: %s", subs[i], e.msg);
}

/* An IOC: its subfiles hold the pattern where written, zeros elsewhere. */
static void check_subfiles(const char *dir, const int *subs, int n)
{
    unsigned char *got = malloc(LEN);
    char           path[4096];
    for (int s = t_rank; s < NSUB; s += t_size) {
        bool written = false;
        for (int i = 0; i < n; i++)
            written |= subs[i] == s;
        subfile_path(dir, s, path, sizeof path);
        int     fd = open(path, O_RDONLY);
        ssize_t r  = fd >= 0 ? pread(fd, got, LEN, 0) : -1;
        if (fd >= 0)
            close(fd);
        if (!written) {
            CHECK(r == 0, "subfile %d was never written but holds %zd bytes", s, r);
            continue;
        }
        CHECK(r == (ssize_t)LEN, "subfile %d: read %zd of %zu bytes", s, r, LEN);
        size_t bad = 0, first = LEN;
        for (size_t o = 0; r == (ssize_t)LEN && o < LEN; o++)
            if (got[o] != t_pat(s, o)) {
                bad++;
                first = first < o ? first : o;
            }
        /* Whose bytes are they? */
        int from = -1;
        for (int t = 0; bad && t < NSUB && first < LEN; t++)
            if (t != s && got[first] == t_pat(t, first) && got[first + 1] == t_pat(t, first + 1))
                from = t;
        CHECK(bad == 0, "subfile %d: %zu of %zu bytes wrong from offset %zu%s%d", s, bad, LEN, first,
              from >= 0 ? "; they are subfile " : "", from >= 0 ? from : 0);
    }
    free(got);
}

int main(int argc, char **argv)
{
    h5sf_errbuf_t   e;
    h5sf_ioc_ctx_t *ctx = NULL;
    char            path[4096];
    /* IOC 0, this rank's own IOC, IOC 0 again. */
    static const int subs[] = {0, 1, 3};
    const int        n      = (int)(sizeof subs / sizeof subs[0]);

    if (argc != 2) {
        fprintf(stderr, "usage: t_tagreuse DIR\n");
        return 2;
    }
    /* Before anything reads them (the fault table is parsed once). */
    setenv("H5SF_FAULT", "op=stall,ms=1500,rank=0,count=1", 1);
    setenv("H5SF_IOC_MERGE_WAIT", "0", 1);
    t_init_multiple(&argc, &argv, "t_tagreuse");
    if (t_size != 3) {
        fprintf(stderr, "t_tagreuse: needs 3 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    t_need_tag_ub(24);
    /* A timeout only bounds a failure: far above the 1.5 s stall, even
     * under ThreadSanitizer on a loaded machine. */
    VRFY(h5sf_ioc_ctx_acquire(MPI_COMM_WORLD, 60, &ctx, &e) == 0, "%s", e.msg);
    uint32_t file_id = h5sf_ioc_ctx_next_file_id(ctx);
    /* Two workers, so that IOC 0 runs a request while the first stalls. */
    CHECK(h5sf_ioc_serve(ctx, 2, &e) == 0, "serve: %s", e.msg);
    for (int s = t_rank; s < NSUB; s += t_size) {
        subfile_path(argv[1], s, path, sizeof path);
        CHECK(h5sf_ioc_subfile_open(ctx, file_id, (uint32_t)s, path, O_RDWR | O_CREAT | O_TRUNC, &e) == 0, "%s", e.msg);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    if (t_rank == 1) {
        unsigned char *bufs[NSUB] = {0};
        for (int i = 0; i < n; i++) {
            bufs[subs[i]] = malloc(LEN);
            for (size_t o = 0; o < LEN; o++)
                bufs[subs[i]][o] = t_pat(subs[i], o);
        }
        write_together(ctx, file_id, subs, n, bufs);
        for (int s = 0; s < NSUB; s++)
            free(bufs[s]);
    }
    /* Every write has been answered (or given up on): check, then close. */
    t_nap_barrier();
    check_subfiles(argv[1], subs, n);
    for (int s = t_rank; s < NSUB; s += t_size) {
        CHECK(h5sf_ioc_subfile_close(ctx, file_id, (uint32_t)s, &e) == 0, "%s", e.msg);
        subfile_path(argv[1], s, path, sizeof path);
        unlink(path);
    }
    CHECK(h5sf_ioc_ctx_release(ctx, &e) == 0, "release: %s", e.msg);
    int all = t_verdict();
    MPI_Finalize();
    return all != 0;
}
