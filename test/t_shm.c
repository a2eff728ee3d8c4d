/*
 * t_shm.c -- requests to an IOC on the client's own node move their payload
 * through shared memory, not MPI messages (ioc/shm.c).
 *
 * Rank 0 is the IOC of one subfile; every rank (rank 0 too, through its own
 * queue) writes an interleaved strided pattern of 4 KiB blocks, 24 MiB per
 * rank in one h5sf_ioc_post (parts cut at half a segment), plus one 20 MiB
 * piece (cut inside the piece), then reads all of it back the same way.
 * Through the IOC API directly, as t_iocpieces.
 *
 * Checks:
 *   - the subfile holds every rank's pattern (pread on rank 0) and the reads
 *     return it;
 *   - payload bytes that went over MPI, counted by this program's own
 *     MPI_Isend/MPI_Irecv (PMPI) on the payload tags (16 + 4k + 1 and + 2,
 *     ioc/internal.h): none with `shm` (the default settings), and more than
 *     the written bytes with `mpi` (run under H5SF_IOC_SHM=0: it shows the
 *     count sees payloads).
 *
 * usage: mpiexec -n N t_shm DIR shm|mpi
 */
#include <fcntl.h>
#include <mpi.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../ioc/ioc.h"
#include "h5sf_test.h"

#define BLOCK   ((uint64_t)4096)
#define NBLOCKS ((uint64_t)6144)     /* 24 MiB per rank */
#define BIG     ((uint64_t)20 << 20) /* one piece past half a segment */

static atomic_ullong payload_bytes;

static void count(MPI_Datatype dt, int n, int tag)
{
    int sz = 0;
    if (tag >= 16 && (tag % 4 == 1 || tag % 4 == 2) && MPI_Type_size(dt, &sz) == MPI_SUCCESS)
        atomic_fetch_add(&payload_bytes, (unsigned long long)sz * (unsigned long long)n);
}

int MPI_Isend(const void *buf, int n, MPI_Datatype dt, int dest, int tag, MPI_Comm comm, MPI_Request *req)
{
    count(dt, n, tag);
    return PMPI_Isend(buf, n, dt, dest, tag, comm, req);
}

int MPI_Irecv(void *buf, int n, MPI_Datatype dt, int src, int tag, MPI_Comm comm, MPI_Request *req)
{
    count(dt, n, tag);
    return PMPI_Irecv(buf, n, dt, src, tag, comm, req);
}

/* Subfile offset of rank r's byte i: its strided blocks, then its big piece. */
static uint64_t file_off(int r, uint64_t i)
{
    if (i < NBLOCKS * BLOCK)
        return ((i / BLOCK) * (uint64_t)t_size + (uint64_t)r) * BLOCK + i % BLOCK;
    return NBLOCKS * BLOCK * (uint64_t)t_size + (uint64_t)r * BIG + (i - NBLOCKS * BLOCK);
}

/* This rank's pieces over mem, one request, waited for. */
static void transfer(h5sf_ioc_ctx_t *ctx, int op, uint32_t file_id, unsigned char *mem)
{
    size_t                 n    = NBLOCKS + 1;
    uint64_t              *offs = malloc(n * sizeof *offs), *lens = malloc(n * sizeof *lens);
    void                 **bufs = malloc(n * sizeof *bufs);
    h5sf_errbuf_t          e;
    h5sf_ioc_client_req_t *q;
    for (uint64_t b = 0; b < NBLOCKS; b++) {
        offs[b] = file_off(t_rank, b * BLOCK);
        lens[b] = BLOCK;
        bufs[b] = mem + b * BLOCK;
    }
    offs[NBLOCKS] = file_off(t_rank, NBLOCKS * BLOCK);
    lens[NBLOCKS] = BIG;
    bufs[NBLOCKS] = mem + NBLOCKS * BLOCK;
    CHECK(h5sf_ioc_post(ctx, op, 0, file_id, 0, n, offs, lens, bufs, &q, &e) == 0 && h5sf_ioc_wait(q, &e) == 0,
          "%s: %s", op == H5SF_IOC_OP_WRITE ? "write" : "read", e.msg);
    free(offs);
    free(lens);
    free(bufs);
}

static void check_subfile(const char *path)
{
    uint64_t       mine = NBLOCKS * BLOCK + BIG, len = mine * (uint64_t)t_size;
    unsigned char *got = malloc(len);
    int            fd  = open(path, O_RDONLY);
    ssize_t        n   = fd >= 0 ? pread(fd, got, len, 0) : -1;
    size_t         bad = 0;
    CHECK(n == (ssize_t)len, "%s: %zd bytes, expected %llu", path, n, (unsigned long long)len);
    for (int r = 0; n == (ssize_t)len && r < t_size; r++)
        for (uint64_t i = 0; i < mine; i++)
            bad += got[file_off(r, i)] != t_pat((uint64_t)r, i);
    CHECK(bad == 0, "%s: %zu bytes differ from the ranks' patterns", path, bad);
    if (fd >= 0)
        close(fd);
    free(got);
}

int main(int argc, char **argv)
{
    h5sf_ioc_ctx_t *ctx = NULL;
    char            path[4096];
    bool            shm = argc == 3 && !strcmp(argv[2], "shm");
    t_init_multiple(&argc, &argv, shm ? "t_shm" : "t_shm (messages)");
    if (argc != 3 || (strcmp(argv[2], "shm") && strcmp(argv[2], "mpi"))) {
        fprintf(stderr, "usage: mpiexec -n N t_shm DIR shm|mpi\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    snprintf(path, sizeof path, "%s/shm.sub", argv[1]);
    uint32_t       file_id = t_ioc_setup(&ctx, 300, path, O_RDWR | O_CREAT | O_TRUNC);
    uint64_t       mine    = NBLOCKS * BLOCK + BIG;
    unsigned char *mem = malloc(mine), *back = malloc(mine);
    for (uint64_t i = 0; i < mine; i++)
        mem[i] = t_pat((uint64_t)t_rank, i);
    transfer(ctx, H5SF_IOC_OP_WRITE, file_id, mem);
    MPI_Barrier(MPI_COMM_WORLD);
    memset(back, 0, mine);
    transfer(ctx, H5SF_IOC_OP_READ, file_id, back);
    CHECK(!memcmp(mem, back, mine), "the bytes read back differ from the pattern");
    free(mem);
    free(back);
    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == 0)
        check_subfile(path);
    t_ioc_teardown(ctx, file_id, path);

    unsigned long long moved = atomic_load(&payload_bytes), all = 0;
    MPI_Allreduce(&moved, &all, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    /* Both ends count a message: the other ranks' bytes, written and read. */
    unsigned long long remote = 2ull * 2ull * (unsigned long long)(t_size - 1) * mine;
    if (t_rank == 0)
        printf("t_shm (%s): %llu payload bytes over MPI (%llu without shared memory)\n", argv[2], all, remote);
    if (shm)
        CHECK(all == 0, "%llu payload bytes went over MPI between ranks of one node", all);
    else
        CHECK(t_size == 1 || all == remote, "%llu payload bytes over MPI, expected %llu", all, remote);
    return t_finish();
}
