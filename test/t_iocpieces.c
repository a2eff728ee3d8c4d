/*
 * t_iocpieces.c -- H5SF_IOC_MEMORY caps an IOC also for requests of many
 * small pieces.
 *
 * Two ranks, H5SF_IOC_MEMORY=16 MiB (set by ctest on both); rank 0 is the
 * IOC of one subfile and does no I/O of its own, rank 1 writes 4 Mi
 * one-byte pieces (every other byte of 8 MiB, one h5sf_ioc_post: what
 * HDF5's vector write of a strided selection becomes), then reads them
 * back the same way.  Through the IOC API directly, so that HDF5's own
 * per-element memory stays on rank 1 and out of the measurement.
 *
 * Checks:
 *   - the IOC rank's peak RSS during the write and the read (VmHWM, reset
 *     through /proc/self/clear_refs before; the growth over VmRSS then)
 *     stays under the cap + MARGIN.  Unsplit, the one request's message
 *     alone is 64 MiB, its decoded piece list 64 MiB more and the sort
 *     workspace 128 MiB;
 *   - the subfile holds the pattern at even bytes and zeros at odd ones
 *     (pread on rank 0), and the read returns the pattern.
 *
 * With `data` only the data is checked (the sanitizer builds: their shadow
 * memory would be measured, not ours).
 *
 * usage: mpiexec -n 2 t_iocpieces DIR [data]
 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../ioc/ioc.h"
#include "h5sf_test.h"

#define NPIECES ((size_t)4 << 20)
#define CAP     ((long long)16 << 20)
/* Allowance over the cap: MPI's shared-memory fragments and the pages
 * malloc keeps from the arena of each IOC thread after freeing.  Measured
 * growth with the cap kept: see docs/reliability.md. */
#define MARGIN ((long long)16 << 20)


/* A field of /proc/self/status in bytes, -1 if missing. */
static long long status_bytes(const char *key)
{
    long long kib = t_status_kib(key);
    return kib < 0 ? -1 : kib * 1024;
}

/* Rank 1: one request over all pieces, waited for. */
static void vector(h5sf_ioc_ctx_t *ctx, int op, uint32_t file_id, unsigned char *mem)
{
    uint64_t              *offs = malloc(NPIECES * sizeof *offs), *lens = malloc(NPIECES * sizeof *lens);
    void                 **bufs = malloc(NPIECES * sizeof *bufs);
    h5sf_errbuf_t          e;
    h5sf_ioc_client_req_t *q;
    for (size_t i = 0; i < NPIECES; i++) {
        offs[i] = 2 * (uint64_t)i;
        lens[i] = 1;
        bufs[i] = mem + i;
    }
    CHECK(h5sf_ioc_post(ctx, op, 0, file_id, 0, NPIECES, offs, lens, bufs, &q, &e) == 0 && h5sf_ioc_wait(q, &e) == 0,
          "%s of %zu pieces: %s", op == H5SF_IOC_OP_WRITE ? "write" : "read", NPIECES, e.msg);
    free(offs);
    free(lens);
    free(bufs);
}

static void check_subfile(const char *path)
{
    unsigned char *got = malloc(2 * NPIECES);
    int            fd  = open(path, O_RDONLY);
    ssize_t        n   = fd >= 0 ? pread(fd, got, 2 * NPIECES, 0) : -1;
    size_t         bad = 0;
    CHECK(n >= (ssize_t)(2 * NPIECES - 1), "%s: %zd bytes, expected %zu", path, n, 2 * NPIECES - 1);
    for (ssize_t i = 0; i < n; i++)
        bad += got[i] != (i % 2 ? 0 : t_pat(1, (size_t)i / 2));
    CHECK(bad == 0, "%s: %zu bytes differ from the pattern", path, bad);
    if (fd >= 0)
        close(fd);
    free(got);
}

int main(int argc, char **argv)
{
    h5sf_ioc_ctx_t *ctx = NULL;
    char            path[4096];
    long long       base = 0, peak = 0;
    t_init_multiple(&argc, &argv, "t_iocpieces");
    if (argc < 2 || argc > 3 || (argc == 3 && strcmp(argv[2], "data")) || t_size != 2) {
        fprintf(stderr, "usage: mpiexec -n 2 t_iocpieces DIR [data]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    bool rss = argc == 2;
    snprintf(path, sizeof path, "%s/iocpieces.sub", argv[1]);
    uint32_t file_id = t_ioc_setup(&ctx, 300, path, O_RDWR | O_CREAT | O_TRUNC);
    if (t_rank == 0) {
        CHECK(t_peak_reset() == 0, "cannot reset the peak RSS: %s", strerror(errno));
        base = status_bytes("VmRSS:");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == 1) {
        unsigned char *mem = malloc(NPIECES), *back = malloc(NPIECES);
        for (size_t i = 0; i < NPIECES; i++)
            mem[i] = t_pat(1, i);
        vector(ctx, H5SF_IOC_OP_WRITE, file_id, mem);
        memset(back, 0, NPIECES);
        vector(ctx, H5SF_IOC_OP_READ, file_id, back);
        CHECK(!memcmp(mem, back, NPIECES), "the pieces read back differ from the pattern");
        free(mem);
        free(back);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == 0 && rss) {
        peak = status_bytes("VmHWM:");
        CHECK(base > 0 && peak > 0, "no VmRSS/VmHWM in /proc/self/status");
        printf("t_iocpieces: %zu one-byte pieces through an IOC capped at %lld MiB: its RSS grew by %.1f MiB "
               "(at most cap + %lld MiB)\n",
               NPIECES, CAP >> 20, (double)(peak - base) / (1 << 20), MARGIN >> 20);
        CHECK(peak - base <= CAP + MARGIN, "the IOC rank's RSS grew by %lld MiB, over %lld MiB", (peak - base) >> 20,
              (CAP + MARGIN) >> 20);
    }
    if (t_rank == 0)
        check_subfile(path);
    t_ioc_teardown(ctx, file_id, path);
    return t_finish();
}
