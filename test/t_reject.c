/*
 * t_reject.c -- a write the IOC refuses before running it (its request
 * cannot be accepted) fails within the timeout, and its payload is gone
 * from the IOC: no later request takes its bytes.
 *
 * Two ranks; rank 0 is the IOC of one subfile, rank 1 its client, with a
 * 3-second timeout, payloads as MPI messages (H5SF_IOC_SHM=0, as between
 * nodes) and a tag space of two requests (H5SF_TEST_TAG_UB=24: ids 0 and 2
 * share a tag).  H5SF_FAULT (op=nomem-accept) makes the IOC fail an
 * allocation while accepting rank 1's first request, a write of 1 MiB of
 * pattern 0 at offset 0 (id 0).  Then rank 1 writes 1 MiB of pattern 1 at
 * offset 0 (id 1) and 1 MiB of pattern 2 at offset 1 MiB (id 2, the
 * refused write's tag).
 *
 * Checked: the refused write fails, naming the refusal, within the timeout
 * (a watchdog ends the job after WATCHDOG_S if it hangs); the two later
 * writes succeed; rank 0 preads the subfile: patterns 1 and 2, none of
 * pattern 0's bytes.
 *
 * usage: mpiexec -n 2 t_reject DIR
 */
#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "../ioc/ioc.h"
#include "h5sf_test.h"

#define LEN        ((size_t)1 << 20) /* above the inline limit: payload messages */
#define TIMEOUT_S  3
#define WATCHDOG_S 30


/* Rank 1: write LEN bytes of pattern p at off; 0 or -1 (message in *e). */
static int write_one(h5sf_ioc_ctx_t *ctx, uint32_t file_id, int p, uint64_t off, unsigned char *buf, h5sf_errbuf_t *e)
{
    h5sf_ioc_client_req_t *q   = NULL;
    uint64_t               len = LEN;
    void                  *b   = buf;
    for (size_t o = 0; o < LEN; o++)
        buf[o] = t_pat(p, o);
    if (h5sf_ioc_post(ctx, H5SF_IOC_OP_WRITE, 0, file_id, 0, 1, &off, &len, &b, &q, e) < 0)
        return -1;
    return h5sf_ioc_wait(q, e);
}

/* Rank 0: the subfile holds pattern 1 in the first MiB, pattern 2 in the
 * second. */
static void check_subfile(const char *path)
{
    unsigned char *got = malloc(2 * LEN);
    int            fd  = open(path, O_RDONLY);
    ssize_t        r   = fd >= 0 ? pread(fd, got, 2 * LEN, 0) : -1;
    if (fd >= 0)
        close(fd);
    CHECK(r == (ssize_t)(2 * LEN), "subfile: read %zd of %zu bytes", r, 2 * LEN);
    for (int half = 0; r == (ssize_t)(2 * LEN) && half < 2; half++) {
        size_t bad = 0, stale = 0, first = LEN;
        for (size_t o = 0; o < LEN; o++) {
            unsigned char c = got[half * LEN + o];
            if (c != t_pat(1 + half, o)) {
                bad++;
                stale += c == t_pat(0, o);
                first = first < o ? first : o;
            }
        }
        CHECK(bad == 0, "subfile MiB %d: %zu of %zu bytes wrong from offset %zu, %zu of them the refused write's", half,
              bad, LEN, first, stale);
    }
    free(got);
}

int main(int argc, char **argv)
{
    h5sf_errbuf_t   e;
    h5sf_ioc_ctx_t *ctx = NULL;
    char            path[4096];

    if (argc != 2) {
        fprintf(stderr, "usage: t_reject DIR\n");
        return 2;
    }
    /* Before anything reads them (the fault table is parsed once). */
    setenv("H5SF_FAULT", "op=nomem-accept,rank=0,count=1", 1);
    setenv("H5SF_IOC_SHM", "0", 1);
    t_init_multiple(&argc, &argv, "t_reject");
    if (t_size != 2) {
        fprintf(stderr, "t_reject: needs 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    t_need_tag_ub(24);
    t_step(WATCHDOG_S, "the writes (a hang: the refused write's payload was never taken)");
    VRFY(h5sf_ioc_ctx_acquire(MPI_COMM_WORLD, TIMEOUT_S, &ctx, &e) == 0, "%s", e.msg);
    uint32_t file_id = h5sf_ioc_ctx_next_file_id(ctx);
    CHECK(h5sf_ioc_serve(ctx, 2, &e) == 0, "serve: %s", e.msg);
    snprintf(path, sizeof path, "%s/reject.sub", argv[1]);
    if (t_rank == 0)
        CHECK(h5sf_ioc_subfile_open(ctx, file_id, 0, path, O_RDWR | O_CREAT | O_TRUNC, &e) == 0, "%s", e.msg);
    MPI_Barrier(MPI_COMM_WORLD);

    if (t_rank == 1) {
        unsigned char *buf = malloc(LEN);
        double         t0  = t_now_s();
        int            rc  = write_one(ctx, file_id, 0, 0, buf, &e);
        double         dt  = t_now_s() - t0;
        CHECK(rc < 0, "the write the IOC refused succeeded");
        CHECK(rc == 0 || strstr(e.msg, "rejected") || strstr(e.msg, "refused"), "refused write: unexpected error: %s",
              e.msg);
        CHECK(dt < TIMEOUT_S + 1.0, "the refused write returned after %.1f s (timeout %d s)", dt, TIMEOUT_S);
        printf("t_reject: refused write: %s after %.2f s: %s\n", rc < 0 ? "failed" : "succeeded", dt,
               rc < 0 ? e.msg : "");
        CHECK(write_one(ctx, file_id, 1, 0, buf, &e) == 0, "second write: %s", e.msg);
        CHECK(write_one(ctx, file_id, 2, LEN, buf, &e) == 0, "third write (the refused write's tag): %s", e.msg);
        free(buf);
    }
    t_nap_barrier();
    if (t_rank == 0) {
        check_subfile(path);
        CHECK(h5sf_ioc_subfile_close(ctx, file_id, 0, &e) == 0, "%s", e.msg);
        unlink(path);
    }
    CHECK(h5sf_ioc_ctx_release(ctx, &e) == 0, "release: %s", e.msg);
    int all = t_verdict();
    MPI_Finalize();
    return all != 0;
}
