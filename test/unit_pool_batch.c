/*
 * unit_pool_batch.c -- a caller's COBEGIN/COEND bracket in the pool
 * (vfd/threadpool.c h5sf_pool_open/post/close), without HDF5 or MPI, so
 * `ctest -L tsan` watches its threads.
 *
 * Four files in DIR, one job each, posted by two "calls" of two jobs; the
 * jobs live on the heap as h5sf's bracket keeps them.  The bytes are
 * checked with pread of the test's own; reads land by close.
 *
 * usage: unit_pool_batch DIR MODE
 *   overlap  H5SF_FAULT=op=overlap,ms=5000: the jobs of both posts are in
 *            flight together (4); with 2 workers, 3 (the caller runs one
 *            at close); a batch without workers runs each job at its post
 *            (1, done before post returns)
 *   error    no hook: a bad descriptor fails its own job only (EBADF,
 *            with its offset), the others land
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../vfd/threadpool.h"
#include "h5sf_test.h"

#define NF  4
#define LEN 65536


static int fds[NF];

/* Byte i of file f as written by pass: the pattern of seed pass * NF + f. */

/* Jobs and their pieces on the heap, as the bracket's. */
typedef struct {
    h5sf_pool_job_t j[NF];
    sf_piece_t      p[NF];
    unsigned char   mem[NF][LEN];
} set_t;

static set_t *make(bool is_write, int pass)
{
    set_t *s = calloc(1, sizeof *s);
    for (int f = 0; f < NF; f++) {
        for (size_t i = 0; i < LEN; i++)
            s->mem[f][i] = is_write ? t_pat((uint64_t)(pass * NF + f), i) : 0xee;
        s->p[f] = (sf_piece_t){(uint64_t)f * 4096, LEN, (uint64_t)(uintptr_t)s->mem[f]};
        s->j[f] = (h5sf_pool_job_t){.fd = fds[f], .is_write = is_write, .v = &s->p[f], .n = 1, .fault_rank = -1};
    }
    return s;
}

/* Files 0..nf-1 but `skip` hold pass's pattern. */
static void check_files(int pass, const char *what, int skip, int nf)
{
    unsigned char b[LEN];
    for (int f = 0; f < nf; f++) {
        if (f == skip)
            continue;
        long bad = 0;
        if (pread(fds[f], b, LEN, (off_t)f * 4096) != LEN)
            bad = LEN;
        else
            for (size_t i = 0; i < LEN; i++)
                bad += b[i] != t_pat((uint64_t)(pass * NF + f), i);
        CHECK(bad == 0, "%s: file %d: %ld bytes wrong", what, f, bad);
    }
}

int main(int argc, char **argv)
{
    char     path[4096];
    uint64_t inflight = 0;
    t_start("unit_pool_batch");
    if (argc != 3) {
        fprintf(stderr, "usage: unit_pool_batch DIR overlap|error\n");
        return 2;
    }
    for (int f = 0; f < NF; f++) {
        snprintf(path, sizeof path, "%s/batch_%d", argv[1], f);
        fds[f] = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
        VRFY(fds[f] >= 0, "cannot create %s", path);
    }

    if (!strcmp(argv[2], "overlap")) {
        /* Two posts of two jobs: all four in flight at once. */
        set_t             *w = make(true, 1);
        h5sf_pool_batch_t *b = h5sf_pool_open(H5SF_POOL_MAX_THREADS);
        CHECK(b != NULL, "h5sf_pool_open failed");
        h5sf_pool_post(b, w->j, 2);
        h5sf_pool_post(b, w->j + 2, 2);
        h5sf_pool_close(b, &inflight);
        CHECK(inflight == NF, "bracket: %llu jobs in flight at once, want %d", (unsigned long long)inflight, NF);
        for (int f = 0; f < NF; f++)
            CHECK(w->j[f].err == 0, "bracket: job %d failed: errno %d", f, w->j[f].err);
        check_files(1, "bracket write", -1, NF);
        /* Reads land by close.  Two workers hold two jobs (the hook),
         * the caller runs a third at close: 3 at once, never 4 (the hook
         * gives up after its 5 s). */
        set_t *r = make(false, 1);
        b        = h5sf_pool_open(2);
        h5sf_pool_post(b, r->j, 1);
        h5sf_pool_post(b, r->j + 1, 3);
        h5sf_pool_close(b, &inflight);
        CHECK(inflight == 3, "bracket of 2 workers: %llu in flight, want 3", (unsigned long long)inflight);
        CHECK(memcmp(r->mem, w->mem, sizeof r->mem) == 0, "bracket read: bytes differ from those written");
        free(r);
        free(w);
        /* Without workers every job has run when its post returns. */
        w = make(true, 2);
        b = h5sf_pool_open(0);
        h5sf_pool_post(b, w->j, 2);
        check_files(2, "no workers, after the first post", -1, 2);
        h5sf_pool_post(b, w->j + 2, 2);
        check_files(2, "no workers, after the second post", -1, NF);
        h5sf_pool_close(b, &inflight);
        CHECK(inflight == 1, "no workers: %llu in flight, want 1", (unsigned long long)inflight);
        free(w);
    }
    else if (!strcmp(argv[2], "error")) {
        set_t *w             = make(true, 3);
        w->j[2].fd           = -1; /* bad descriptor: EBADF */
        h5sf_pool_batch_t *b = h5sf_pool_open(H5SF_POOL_MAX_THREADS);
        h5sf_pool_post(b, w->j, 3);
        h5sf_pool_post(b, w->j + 3, 1);
        h5sf_pool_close(b, &inflight);
        for (int f = 0; f < NF; f++)
            CHECK(f == 2 ? w->j[f].err == EBADF && w->j[f].err_off == 2 * 4096 : w->j[f].err == 0,
                  "job %d: errno %d at %llu", f, w->j[f].err, (unsigned long long)w->j[f].err_off);
        check_files(3, "bracket with one bad job", 2, NF);
        free(w);
    }
    else {
        fprintf(stderr, "unknown mode %s\n", argv[2]);
        return 2;
    }
    h5sf_pool_shutdown();
    for (int f = 0; f < NF; f++)
        close(fds[f]);
    return t_verdict();
}
