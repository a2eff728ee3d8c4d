/*
 * unit_pool.c -- the pool that runs a call's subfile transfers together
 * (vfd/threadpool.c), without HDF5 or MPI, so `ctest -L tsan` watches its threads.
 *
 * Four "subfiles" (plain files in DIR), pieces with gaps, more contiguous
 * pieces than one pwritev takes (IOV_MAX), writes then reads checked with
 * pread/pwrite of the test's own; reads past the end give zeros; a bad
 * descriptor fails only its own job, naming offset and errno; more jobs
 * than workers; shutdown and a fresh start; a forked child (not under
 * TSan, which does not follow threads across fork).
 *
 * usage: unit_pool DIR MODE
 *   plain     the above, H5SF_FAULT unset
 *   overlap   H5SF_FAULT=op=overlap,ms=5000: all jobs of a call are in
 *             flight at once (together), one at a time (in order)
 *   limit     H5SF_FAULT=op=overlap,ms=300: a call's limit of workers
 *             (H5SF_POOL_THREADS) holds, also when the pool has more
 *   short     H5SF_FAULT=op=pwrite,errno=short: short writes are resumed
 *   eintr     H5SF_FAULT=op=pread,errno=EINTR,count=5: retried
 *   enospc    H5SF_FAULT=op=pwrite,errno=ENOSPC,after=2,count=1: exactly one
 *             job fails, with ENOSPC
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "../vfd/threadpool.h"
#include "h5sf_test.h"

#define NF   4
#define NP   3000 /* pieces per file: more than IOV_MAX */
#define PLEN 16
#define GAP  4096 /* every 500th piece starts after a gap */


static int           fds[NF];
static sf_piece_t    pieces[NF][NP];
static unsigned char mem[NF][NP * PLEN];

/* Pieces of file f: PLEN bytes each, contiguous except for a gap before
 * every 500th; memory in order. */
static void layout(void)
{
    for (int f = 0; f < NF; f++) {
        uint64_t off = (uint64_t)f * 100;
        for (size_t i = 0; i < NP; i++) {
            if (i && i % 500 == 0)
                off += GAP;
            pieces[f][i] = (sf_piece_t){off, PLEN, (uint64_t)(uintptr_t)&mem[f][i * PLEN]};
            off += PLEN;
        }
    }
}

static void jobs_for(h5sf_pool_job_t *j, bool is_write, int nfiles)
{
    memset(j, 0, (size_t)nfiles * sizeof *j);
    for (int f = 0; f < nfiles; f++) {
        j[f].fd         = fds[f % NF];
        j[f].is_write   = is_write;
        j[f].v          = pieces[f % NF];
        j[f].n          = NP;
        j[f].fault_rank = 0;
    }
}

/* The files hold the pattern where the pieces are (checked with pread). */
static void check_files(const char *what)
{
    for (int f = 0; f < NF; f++)
        for (size_t i = 0; i < NP; i++) {
            unsigned char b[PLEN];
            if (pread(fds[f], b, PLEN, (off_t)pieces[f][i].off) != PLEN) {
                CHECK(0, "%s: file %d piece %zu: short pread", what, f, i);
                return;
            }
            for (int k = 0; k < PLEN; k++)
                if (b[k] != t_pat(f, i * PLEN + (size_t)k)) {
                    CHECK(0, "%s: file %d piece %zu byte %d is %u, want %u", what, f, i, k, b[k],
                          t_pat(f, i * PLEN + (size_t)k));
                    return;
                }
        }
}

static void fill_mem(void)
{
    for (int f = 0; f < NF; f++)
        for (size_t i = 0; i < NP * PLEN; i++)
            mem[f][i] = t_pat(f, i);
}

static void check_mem(const char *what)
{
    for (int f = 0; f < NF; f++)
        for (size_t i = 0; i < NP * PLEN; i++)
            if (mem[f][i] != t_pat(f, i)) {
                CHECK(0, "%s: file %d byte %zu read as %u, want %u", what, f, i, mem[f][i], t_pat(f, i));
                return;
            }
}

#define ALL H5SF_POOL_MAX_THREADS /* threads: as many workers as the call has jobs */

/* Write and read back all files with at most `threads` workers beside the
 * caller (0: in order on the caller); most in flight. */
static void round_trip(int threads, const char *what, uint64_t *w_inflight, uint64_t *r_inflight)
{
    h5sf_pool_job_t j[NF];
    fill_mem();
    for (int f = 0; f < NF; f++)
        CHECK(ftruncate(fds[f], 0) == 0, "ftruncate");
    jobs_for(j, true, NF);
    h5sf_pool_run(j, NF, threads, w_inflight);
    for (int f = 0; f < NF; f++)
        CHECK(j[f].err == 0, "%s: write of file %d failed: errno %d", what, f, j[f].err);
    check_files(what);
    memset(mem, 0xee, sizeof mem);
    jobs_for(j, false, NF);
    h5sf_pool_run(j, NF, threads, r_inflight);
    for (int f = 0; f < NF; f++)
        CHECK(j[f].err == 0, "%s: read of file %d failed: errno %d", what, f, j[f].err);
    check_mem(what);
}

/* Reads past the end fill zeros: cut file 1 inside its third run. */
static void past_eof(void)
{
    uint64_t        inflight;
    h5sf_pool_job_t j[NF];
    round_trip(ALL, "before eof", &inflight, &inflight);
    uint64_t cut = pieces[1][1200].off + 5;
    CHECK(ftruncate(fds[1], (off_t)cut) == 0, "ftruncate");
    memset(mem, 0xee, sizeof mem);
    jobs_for(j, false, NF);
    h5sf_pool_run(j, NF, ALL, &inflight);
    for (size_t i = 0; i < NP * PLEN; i++) {
        size_t        p    = i / PLEN;
        uint64_t      off  = pieces[1][p].off + i % PLEN;
        unsigned char want = off < cut ? t_pat(1, i) : 0;
        if (mem[1][i] != want) {
            CHECK(0, "past eof: byte %zu (offset %llu) is %u, want %u", i, (unsigned long long)off, mem[1][i], want);
            break;
        }
    }
    CHECK(j[1].err == 0, "past eof: read failed: errno %d", j[1].err);
}

/* A bad descriptor fails its own job only, and says where. */
static void bad_fd(void)
{
    uint64_t        inflight;
    h5sf_pool_job_t j[NF];
    fill_mem();
    jobs_for(j, true, NF);
    j[2].fd = -1;
    h5sf_pool_run(j, NF, ALL, &inflight);
    for (int f = 0; f < NF; f++)
        if (f == 2)
            CHECK(j[f].err == EBADF && j[f].err_off == pieces[2][0].off && j[f].err_len == 500 * PLEN,
                  "bad fd: err %d at %llu+%llu, want EBADF at %llu+%d", j[f].err, (unsigned long long)j[f].err_off,
                  (unsigned long long)j[f].err_len, (unsigned long long)pieces[2][0].off, 500 * PLEN);
        else
            CHECK(j[f].err == 0, "bad fd: job %d failed too: errno %d", f, j[f].err);
}

/* More jobs than workers: the caller takes what is left. */
static void many_jobs(void)
{
    enum { NJ = H5SF_POOL_MAX_THREADS + 5 };
    static h5sf_pool_job_t j[NJ];
    uint64_t               inflight;
    fill_mem();
    jobs_for(j, true, NJ); /* the same files several times: same bytes */
    h5sf_pool_run(j, NJ, ALL, &inflight);
    for (int f = 0; f < NJ; f++)
        CHECK(j[f].err == 0, "many: job %d failed: errno %d", f, j[f].err);
    CHECK(inflight >= 1 && inflight <= H5SF_POOL_MAX_THREADS + 1, "many: %llu in flight", (unsigned long long)inflight);
    CHECK(h5sf_pool_threads() <= H5SF_POOL_MAX_THREADS, "%d workers", h5sf_pool_threads());
    check_files("many");
}

int main(int argc, char **argv)
{
    t_start("unit_pool");
    if (argc != 3) {
        fprintf(stderr, "usage: unit_pool DIR plain|overlap|limit|short|eintr|enospc\n");
        return 2;
    }
    const char *mode  = argv[2];
    const char *fault = !strcmp(mode, "overlap")  ? "op=overlap,ms=5000"
                        : !strcmp(mode, "limit")  ? "op=overlap,ms=300"
                        : !strcmp(mode, "short")  ? "op=pwrite,errno=short"
                        : !strcmp(mode, "eintr")  ? "op=pread,errno=EINTR,count=5"
                        : !strcmp(mode, "enospc") ? "op=pwrite,errno=ENOSPC,after=2,count=1"
                                                  : NULL;
    if (fault)
        setenv("H5SF_FAULT", fault, 1); /* read once, at the first use */
    else
        unsetenv("H5SF_FAULT");
    for (int f = 0; f < NF; f++) {
        char p[4200];
        snprintf(p, sizeof p, "%s/pool_%s_%d", argv[1], mode, f);
        fds[f] = open(p, O_RDWR | O_CREAT | O_TRUNC, 0644);
        if (fds[f] < 0)
            t_die_io("create", p);
    }
    layout();
    uint64_t w = 0, r = 0;

    if (!strcmp(mode, "enospc")) {
        h5sf_pool_job_t j[NF];
        int             failed = 0;
        fill_mem();
        jobs_for(j, true, NF);
        h5sf_pool_run(j, NF, ALL, &w);
        for (int f = 0; f < NF; f++) {
            CHECK(j[f].err == 0 || j[f].err == ENOSPC, "enospc: job %d: errno %d", f, j[f].err);
            failed += j[f].err != 0;
        }
        CHECK(failed == 1, "enospc: %d jobs failed, want 1", failed);
    }
    else if (!strcmp(mode, "limit")) {
        /* The hook holds each job until all have started (or 300 ms), so
         * the most in flight is exactly what the limit lets run: the
         * caller and that many workers.  The first call leaves NF - 1
         * workers in the pool; the later ones must not use them all. */
        round_trip(ALL, "no limit", &w, &r);
        CHECK(w == NF && r == NF, "no limit: %llu/%llu in flight, want %d", (unsigned long long)w,
              (unsigned long long)r, NF);
        for (int t = 1; t < NF - 1; t++) {
            char what[32];
            snprintf(what, sizeof what, "%d worker(s)", t);
            round_trip(t, what, &w, &r);
            CHECK(w == (uint64_t)t + 1 && r == (uint64_t)t + 1, "%s: %llu/%llu in flight, want %d", what,
                  (unsigned long long)w, (unsigned long long)r, t + 1);
        }
        CHECK(h5sf_pool_threads() == NF - 1, "%d workers, want %d", h5sf_pool_threads(), NF - 1);
    }
    else if (!strcmp(mode, "overlap")) {
        round_trip(ALL, "together", &w, &r);
        CHECK(w == NF && r == NF, "together: %llu writes and %llu reads in flight at once, want %d",
              (unsigned long long)w, (unsigned long long)r, NF);
        round_trip(0, "in order", &w, &r);
        CHECK(w == 1 && r == 1, "in order: %llu writes and %llu reads in flight at once, want 1", (unsigned long long)w,
              (unsigned long long)r);
    }
    else {
        round_trip(ALL, "together", &w, &r);
        round_trip(0, "in order", &w, &r);
        CHECK(w == 1 && r == 1, "in order: %llu/%llu in flight, want 1", (unsigned long long)w, (unsigned long long)r);
        if (!strcmp(mode, "plain")) {
            past_eof();
            bad_fd();
            many_jobs();
            h5sf_pool_shutdown();
            CHECK(h5sf_pool_threads() == 0, "%d workers after shutdown", h5sf_pool_threads());
            round_trip(ALL, "after shutdown", &w, &r);
            CHECK(h5sf_pool_threads() >= 1, "no workers after a restart");
#ifndef __SANITIZE_THREAD__
            pid_t pid = fork();
            if (pid == 0) { /* the parent's workers are not here: a fresh pool */
                t_fails = 0;
                round_trip(ALL, "forked child", &w, &r);
                h5sf_pool_shutdown();
                _exit(t_fails ? 1 : 0);
            }
            int st = 0;
            CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
                  "the forked child failed (status %d)", st);
            round_trip(ALL, "after fork", &w, &r);
#endif
        }
    }
    h5sf_pool_shutdown();
    for (int f = 0; f < NF; f++)
        close(fds[f]);
    return t_verdict();
}
