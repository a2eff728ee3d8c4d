/*
 * t_account.c -- the stage account of the IOC channel (ioc/account.c):
 * off by default, and on, one request's stages add up as the protocol says.
 *
 * Two ranks; rank 0 is the IOC of one subfile, rank 1 its client, payloads
 * as MPI messages (H5SF_IOC_SHM=0, as between nodes).  Rank 1 writes, then
 * reads, LEN bytes in NPIECES pieces, one request each way.
 *
 * Checked: with the account off (H5SF_STATS unset) a write moves no
 * counter; switched on (ioc_acct_enable), summed over both ranks, a write
 * is one PACK copying LEN bytes, one POST of LEN bytes, one WAIT (one round
 * trip), at least 3 messages (header, payload, reply), a QUEUE and a REPLY
 * at the IOC, and IO of LEN bytes; a read copies nothing at PACK and moves
 * LEN bytes at IO; every stage that ran took time; reset zeroes it.
 *
 * usage: mpiexec -n 2 t_account DIR
 */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "../ioc/account.h"
#include "../ioc/ioc.h"
#include "h5sf_test.h"

#define LEN        ((size_t)1 << 20) /* above the inline limit: payload messages */
#define NPIECES    4
#define WATCHDOG_S 60

/* Rank 1: one request of NPIECES pieces, every other piece-sized gap left. */
static void one_request(h5sf_ioc_ctx_t *ctx, uint32_t file_id, int op, unsigned char *buf)
{
    h5sf_errbuf_t          e;
    h5sf_ioc_client_req_t *q = NULL;
    uint64_t               offs[NPIECES], lens[NPIECES];
    void                  *bufs[NPIECES];
    for (int i = 0; i < NPIECES; i++) {
        lens[i] = LEN / NPIECES;
        offs[i] = 2 * (uint64_t)i * lens[i];
        bufs[i] = buf + (size_t)i * lens[i];
    }
    CHECK(h5sf_ioc_post(ctx, op, 0, file_id, 0, NPIECES, offs, lens, bufs, &q, &e) == 0 && h5sf_ioc_wait(q, &e) == 0,
          "%s: %s", op == H5SF_IOC_OP_WRITE ? "write" : "read", e.msg);
}

/* Both ranks: rank 1 runs op; the account summed over the ranks after it. */
static void measured(h5sf_ioc_ctx_t *ctx, uint32_t file_id, int op, unsigned char *buf, ioc_acct_t *sum)
{
    ioc_acct_t a;
    t_nap_barrier();
    ioc_acct_get(&a, true);
    t_nap_barrier();
    if (t_rank == 1)
        one_request(ctx, file_id, op, buf);
    t_nap_barrier();
    usleep(20000); /* the IOC's reply stage ends just after the client has the reply */
    ioc_acct_get(&a, true);
    MPI_Allreduce(&a, sum, (int)(sizeof a / sizeof(uint64_t)), MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
}

static void check_write(const ioc_acct_t *s)
{
    CHECK(s->count[IOC_ACCT_PACK] == 1 && s->bytes[IOC_ACCT_PACK] == LEN, "write: %llu packs of %llu bytes",
          (unsigned long long)s->count[IOC_ACCT_PACK], (unsigned long long)s->bytes[IOC_ACCT_PACK]);
    CHECK(s->count[IOC_ACCT_POST] == 1 && s->bytes[IOC_ACCT_POST] == LEN, "write: %llu posts of %llu bytes",
          (unsigned long long)s->count[IOC_ACCT_POST], (unsigned long long)s->bytes[IOC_ACCT_POST]);
    CHECK(s->count[IOC_ACCT_WAIT] == 1, "write: %llu round trips, not 1", (unsigned long long)s->count[IOC_ACCT_WAIT]);
    CHECK(s->messages >= 3, "write: %llu messages, not header + payload + reply", (unsigned long long)s->messages);
    CHECK(s->count[IOC_ACCT_HEADER] == 1 && s->count[IOC_ACCT_QUEUE] == 1 && s->count[IOC_ACCT_REPLY] == 1,
          "write: IOC stages header %llu, queue %llu, reply %llu, not 1 each",
          (unsigned long long)s->count[IOC_ACCT_HEADER], (unsigned long long)s->count[IOC_ACCT_QUEUE],
          (unsigned long long)s->count[IOC_ACCT_REPLY]);
    CHECK(s->bytes[IOC_ACCT_IO] == LEN && s->count[IOC_ACCT_IO] >= 1, "write: %llu bytes in %llu pwritev",
          (unsigned long long)s->bytes[IOC_ACCT_IO], (unsigned long long)s->count[IOC_ACCT_IO]);
    CHECK(s->ns[IOC_ACCT_WAIT] > 0 && s->ns[IOC_ACCT_IO] > 0, "write: a stage that ran took no time");
}

int main(int argc, char **argv)
{
    int             provided;
    h5sf_errbuf_t   e;
    h5sf_ioc_ctx_t *ctx = NULL;
    char            path[4096];
    ioc_acct_t      s;

    if (argc != 2) {
        fprintf(stderr, "usage: t_account DIR\n");
        return 2;
    }
    unsetenv("H5SF_STATS");
    setenv("H5SF_IOC_SHM", "0", 1);
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    t_start("t_account");
    if (t_size != 2 || provided < MPI_THREAD_MULTIPLE) {
        fprintf(stderr, "t_account: needs 2 ranks and MPI_THREAD_MULTIPLE\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    t_step(WATCHDOG_S, "the requests");
    VRFY(h5sf_ioc_ctx_acquire(MPI_COMM_WORLD, 30, &ctx, &e) == 0, "%s", e.msg);
    uint32_t file_id = h5sf_ioc_ctx_next_file_id(ctx);
    CHECK(h5sf_ioc_serve(ctx, 2, &e) == 0, "serve: %s", e.msg);
    snprintf(path, sizeof path, "%s/account.sub", argv[1]);
    if (t_rank == 0)
        CHECK(h5sf_ioc_subfile_open(ctx, file_id, 0, path, O_RDWR | O_CREAT | O_TRUNC, &e) == 0, "%s", e.msg);
    unsigned char *buf = malloc(LEN);
    for (size_t o = 0; o < LEN; o++)
        buf[o] = t_pat(1, o);

    measured(ctx, file_id, H5SF_IOC_OP_WRITE, buf, &s);
    uint64_t moved = s.messages;
    for (int k = 0; k < IOC_ACCT_STAGES; k++)
        moved += s.count[k] + s.ns[k] + s.bytes[k];
    CHECK(moved == 0, "account off (H5SF_STATS unset), yet its counters moved");

    ioc_acct_enable(true);
    measured(ctx, file_id, H5SF_IOC_OP_WRITE, buf, &s);
    check_write(&s);
    memset(buf, 0, LEN);
    measured(ctx, file_id, H5SF_IOC_OP_READ, buf, &s);
    CHECK(s.count[IOC_ACCT_WAIT] == 1 && s.bytes[IOC_ACCT_PACK] == 0 && s.bytes[IOC_ACCT_IO] == LEN,
          "read: %llu round trips, %llu bytes copied, %llu bytes read", (unsigned long long)s.count[IOC_ACCT_WAIT],
          (unsigned long long)s.bytes[IOC_ACCT_PACK], (unsigned long long)s.bytes[IOC_ACCT_IO]);
    for (size_t o = 0; t_rank == 1 && o < LEN; o++)
        if (buf[o] != t_pat(1, o)) {
            CHECK(0, "read: byte %zu differs", o);
            break;
        }
    ioc_acct_get(&s, false);
    CHECK(s.count[IOC_ACCT_WAIT] == 0 && s.messages == 0, "reset left counters behind");
    ioc_acct_enable(false);

    t_nap_barrier();
    if (t_rank == 0) {
        CHECK(h5sf_ioc_subfile_close(ctx, file_id, 0, &e) == 0, "%s", e.msg);
        unlink(path);
    }
    free(buf);
    CHECK(h5sf_ioc_ctx_release(ctx, &e) == 0, "release: %s", e.msg);
    int all = t_verdict();
    MPI_Finalize();
    return all != 0;
}
