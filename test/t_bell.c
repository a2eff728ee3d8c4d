/*
 * t_bell.c -- an idle IOC whose clients are all on its node sleeps until a
 * client rings its doorbell, instead of polling MPI (ioc/shm.c).
 *
 * Rank 0 serves one subfile.  Checks:
 *   - idle: with a subfile open and no request, once the IOC's progress
 *     thread has come to rest (its context switches, from
 *     /proc/self/task/<tid>/status, stay put for 100 ms; a loaded machine
 *     stretches its back-off before it arms the bell, so this is waited
 *     for, up to 3 s), it wakes at most IDLE_MAX times in the next second.
 *     Polling never comes to rest and wakes it ~1000 times a second (1 ms
 *     sleeps once idle);
 *   - rung: after each idle pause (0 to 30 ms, so that requests meet the
 *     thread spinning, arming and asleep), every rank writes its block for
 *     the round through the IOC -- small ones inline in the message, larger
 *     ones through shared memory (or as messages under H5SF_IOC_SHM=0) --
 *     and waits for it: each must be answered within the IOC timeout of
 *     20 s (the test runs with H5SF_TEST_BELL_WAIT_S=600, so a lost
 *     wake-up is not covered by the bell's 50 ms sleeps), and the subfile
 *     must hold the pattern of its offsets (pread).
 * Through the IOC API directly, as t_shm.
 *
 * usage: mpiexec -n N t_bell DIR
 */
#include <dirent.h>
#include <fcntl.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "../ioc/ioc.h"
#include "h5sf_test.h"

#define ROUNDS   60
#define IDLE_MAX 20

static size_t block_len(int round) { return round % 2 ? 512 : 256u << 10; } /* inline, then payload */

/* Where rank r's block of round k starts: rounds one after another, ranks
 * side by side within a round. */
static uint64_t block_off(int r, int k)
{
    uint64_t off = 0;
    for (int j = 0; j < k; j++)
        off += (uint64_t)t_size * block_len(j);
    return off + (uint64_t)r * block_len(k);
}

/* Context switches of this process's thread named name, or -1. */
static long thread_switches(const char *name)
{
    DIR           *d = opendir("/proc/self/task");
    struct dirent *de;
    long           found = -1;
    while (d && found < 0 && (de = readdir(d))) {
        char p[300], comm[64] = "", line[256];
        if (de->d_name[0] == '.')
            continue;
        snprintf(p, sizeof p, "/proc/self/task/%s/comm", de->d_name);
        FILE *f = fopen(p, "r");
        if (!f)
            continue;
        if (!fgets(comm, sizeof comm, f))
            comm[0] = '\0';
        fclose(f);
        comm[strcspn(comm, "\n")] = '\0';
        if (strcmp(comm, name))
            continue;
        snprintf(p, sizeof p, "/proc/self/task/%s/status", de->d_name);
        if (!(f = fopen(p, "r")))
            continue;
        found = 0;
        while (fgets(line, sizeof line, f)) {
            long v;
            if (sscanf(line, "voluntary_ctxt_switches: %ld", &v) == 1 ||
                sscanf(line, "nonvoluntary_ctxt_switches: %ld", &v) == 1)
                found += v;
        }
        fclose(f);
    }
    if (d)
        closedir(d);
    return found;
}

static void pause_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
    h5sf_errbuf_t   e;
    h5sf_ioc_ctx_t *ctx = NULL;
    char            path[4096];
    t_init_multiple(&argc, &argv, "t_bell");
    if (argc != 2) {
        fprintf(stderr, "usage: mpiexec -n N t_bell DIR\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    snprintf(path, sizeof path, "%s/bell.sub", argv[1]);
    uint32_t file_id = t_ioc_setup(&ctx, 20, path, O_RDWR | O_CREAT | O_TRUNC);

    /* Idle: nobody sends anything. */
    if (t_rank == 0) {
        long before = thread_switches("h5sf-progress"), after;
        for (int t = 0; t < 30; t++) { /* until it rests */
            pause_ms(100);
            after = thread_switches("h5sf-progress");
            if (after == before)
                break;
            before = after;
        }
        pause_ms(1000);
        after = thread_switches("h5sf-progress");
        printf("t_bell: the idle progress thread woke %ld times in 1 s\n", after - before);
        CHECK(before >= 0 && after >= 0, "no thread named h5sf-progress on the IOC rank");
        CHECK(after - before <= IDLE_MAX, "the idle progress thread woke %ld times in 1 s (at most %d)", after - before,
              IDLE_MAX);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* Rung: a request after pauses of every length up to 30 ms. */
    for (int k = 0; k < ROUNDS; k++) {
        size_t                 n   = block_len(k);
        unsigned char         *mem = malloc(n);
        uint64_t               off = block_off(t_rank, k), len = n;
        void                  *buf = mem;
        h5sf_ioc_client_req_t *q;
        t_fill(mem, n, 1, off);
        pause_ms((k * 7 + t_rank * 3) % 31);
        CHECK(h5sf_ioc_post(ctx, H5SF_IOC_OP_WRITE, 0, file_id, 0, 1, &off, &len, &buf, &q, &e) == 0 &&
                  h5sf_ioc_wait(q, &e) == 0,
              "round %d: write: %s", k, e.msg);
        free(mem);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    if (t_rank == 0) {
        uint64_t       total = block_off(0, ROUNDS);
        unsigned char *got   = malloc(total);
        int            fd    = open(path, O_RDONLY);
        ssize_t        got_n = fd >= 0 ? pread(fd, got, total, 0) : -1;
        size_t         bad   = 0;
        CHECK(got_n == (ssize_t)total, "%s: %zd bytes, expected %llu", path, got_n, (unsigned long long)total);
        for (uint64_t i = 0; got_n == (ssize_t)total && i < total; i++)
            bad += got[i] != t_pat(1, i);
        CHECK(bad == 0, "%s: %zu bytes differ from the pattern", path, bad);
        if (fd >= 0)
            close(fd);
        free(got);
    }
    t_ioc_teardown(ctx, file_id, path);
    return t_finish();
}
