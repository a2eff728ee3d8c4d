/*
 * t_timeout.c -- a request to a remote IOC that times out leaves the
 * caller's memory alone.
 *
 * Two ranks; rank 0 is the IOC of one subfile, rank 1 its client, with a
 * 1-second timeout.  H5SF_FAULT stalls every request at rank 0 for 2.5 s.
 * Rank 1 reads (or writes) 9 MiB in three pieces, times out, fills its
 * buffer with a canary (as a program reusing the memory would) and keeps
 * calling MPI -- so that MPI can move whatever is still posted -- until
 * rank 0 has served the stalled request.  Then:
 *   read   the buffer still holds only the canary;
 *   write  no canary byte reached the subfile (rank 0 preads it): every
 *          byte is the old one or the written one.
 * Late read data and replies sent after the timeout are received here
 * into a scratch buffer (by probing the private communicator), so that
 * the IOC's worker can finish.
 *
 * usage: mpiexec -n 2 t_timeout DIR read|write
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

#define NPIECE 3
#define PIECE  ((size_t)3 << 20) /* 9 MiB in all: more than one chunk */
#define TOTAL  (NPIECE * PIECE)
#define OLD    0x0d
#define NEW    0x5e
#define CANARY 0xc5


static void nap_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Rank 1: the request times out. */
static void timed_out(h5sf_ioc_ctx_t *ctx, int op, uint32_t file_id, unsigned char *buf)
{
    uint64_t               offs[NPIECE], lens[NPIECE];
    void                  *bufs[NPIECE];
    h5sf_errbuf_t          e;
    h5sf_ioc_client_req_t *q;
    for (int i = 0; i < NPIECE; i++) {
        offs[i] = (uint64_t)(NPIECE - 1 - i) * PIECE;
        lens[i] = PIECE;
        bufs[i] = buf + (size_t)i * PIECE;
    }
    CHECK(h5sf_ioc_post(ctx, op, 0, file_id, 0, NPIECE, offs, lens, bufs, &q, &e) == 0, "post: %s", e.msg);
    int rc = h5sf_ioc_wait(q, &e);
    CHECK(rc < 0 && e.err_no == ETIMEDOUT, "the stalled request did not time out (rc %d, errno %d: %s)", rc, e.err_no,
          rc < 0 ? e.msg : "");
}

/* Rank 1: call MPI (receiving late messages from the IOC into scratch)
 * until rank 0 joins the barrier `done`. */
static void progress_until(MPI_Comm comm, MPI_Request *done)
{
    unsigned char *scratch = malloc(TOTAL);
    int            flag    = 0;
    while (!flag) {
        int        there = 0, n = 0;
        MPI_Status st;
        MPI_Iprobe(0, MPI_ANY_TAG, comm, &there, &st);
        if (there) {
            MPI_Get_count(&st, MPI_BYTE, &n);
            MPI_Recv(scratch, n, MPI_BYTE, 0, st.MPI_TAG, comm, MPI_STATUS_IGNORE);
        }
        MPI_Test(done, &flag, MPI_STATUS_IGNORE);
        if (!there && !flag)
            nap_ms(5);
    }
    free(scratch);
}

/* Rank 0: wait until the stalled request has been served (bounded). */
static void wait_served(h5sf_ioc_ctx_t *ctx)
{
    h5sf_ioc_counters_t c;
    for (int i = 0; i < 3000; i++) {
        h5sf_ioc_get_counters(ctx, &c);
        if (c.requests_served >= 1)
            return;
        nap_ms(10);
    }
    CHECK(0, "the stalled request was never served");
}

static void check_subfile(const char *path, unsigned char *buf)
{
    int     fd     = open(path, O_RDONLY);
    ssize_t got    = fd >= 0 ? pread(fd, buf, TOTAL, 0) : -1;
    size_t  canary = 0, other = 0;
    CHECK(got == (ssize_t)TOTAL, "cannot read %s back", path);
    for (ssize_t i = 0; i < got; i++) {
        canary += buf[i] == CANARY;
        other += buf[i] != OLD && buf[i] != NEW;
    }
    CHECK(canary == 0, "write: %zu bytes of the reused buffer reached the subfile", canary);
    CHECK(other == 0, "write: %zu bytes of the subfile are neither old nor written bytes", other);
    if (fd >= 0)
        close(fd);
}

int main(int argc, char **argv)
{
    h5sf_ioc_ctx_t *ctx = NULL;
    char            path[4096];
    unsigned char  *buf = malloc(TOTAL);
    MPI_Request     done;
    if (argc != 3 || (strcmp(argv[2], "read") && strcmp(argv[2], "write"))) {
        fprintf(stderr, "usage: t_timeout DIR read|write\n");
        return 2;
    }
    int op = !strcmp(argv[2], "read") ? H5SF_IOC_OP_READ : H5SF_IOC_OP_WRITE;
    setenv("H5SF_FAULT", "op=stall,ms=2500,rank=0", 1); /* before anything reads it */
    t_init_multiple(&argc, &argv, "t_timeout");
    if (t_size != 2) {
        fprintf(stderr, "t_timeout: needs 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    snprintf(path, sizeof path, "%s/timeout_%s.sub", argv[1], argv[2]);
    if (t_rank == 0) { /* the old bytes, written past the IOC */
        int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
        memset(buf, OLD, TOTAL);
        CHECK(fd >= 0 && pwrite(fd, buf, TOTAL, 0) == (ssize_t)TOTAL, "cannot prepare %s", path);
        if (fd >= 0)
            close(fd);
    }
    uint32_t file_id = t_ioc_setup(&ctx, 1, path, O_RDWR);
    if (t_rank == 1) {
        memset(buf, op == H5SF_IOC_OP_WRITE ? NEW : 0, TOTAL);
        timed_out(ctx, op, file_id, buf);
        memset(buf, CANARY, TOTAL);
        MPI_Ibarrier(MPI_COMM_WORLD, &done);
        progress_until(h5sf_ioc_ctx_comm(ctx), &done);
        size_t bad = 0;
        for (size_t i = 0; i < TOTAL && op == H5SF_IOC_OP_READ; i++)
            bad += buf[i] != CANARY;
        CHECK(bad == 0, "read: %zu bytes of the buffer changed after the timeout", bad);
    }
    else {
        wait_served(ctx);
        MPI_Ibarrier(MPI_COMM_WORLD, &done);
        MPI_Wait(&done, MPI_STATUS_IGNORE);
        if (op == H5SF_IOC_OP_WRITE)
            check_subfile(path, buf);
    }
    t_ioc_teardown(ctx, file_id, path); /* rank 0 is the IOC, the else branch */
    free(buf);
    return t_finish();
}
