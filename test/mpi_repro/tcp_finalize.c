/*
 * tcp_finalize.c -- no h5sf, no HDF5: every rank exchanges messages of 64 B,
 * 64 KiB and 1 MiB with every other rank, duplicates and frees a
 * communicator, and calls MPI_Finalize.  Across the network-namespace hosts
 * of scripts/netns-cluster.sh, MPICH 4.0.2 over UCX's TCP transport
 * (UCX_TLS=tcp,self, as the cluster sets) sometimes never returns from
 * MPI_Finalize: one rank progresses UCX there while the others wait in
 * the PMI barrier (2026-11-27: 2 of 3 runs at 2 hosts x 2 ranks, 1 of 4 at
 * 4 x 1; none with shared memory allowed between a host's ranks, which
 * would also cross the hosts).  test/mpi_repro/mpich_checks.sh tcp-finalize
 * runs it.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int provided, rank, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const size_t sizes[] = {64, 65536, 1 << 20};
    MPI_Request *q       = malloc(2 * (size_t)size * sizeof *q);
    for (int k = 0; k < 3; k++) {
        size_t n = sizes[k];
        char  *b = calloc((size_t)size, n), *g = calloc((size_t)size, n);
        int    nq = 0;
        for (int d = 0; d < size; d++)
            if (d != rank) {
                MPI_Irecv(g + (size_t)d * n, (int)n, MPI_BYTE, d, k, MPI_COMM_WORLD, &q[nq++]);
                MPI_Isend(b + (size_t)rank * n, (int)n, MPI_BYTE, d, k, MPI_COMM_WORLD, &q[nq++]);
            }
        MPI_Waitall(nq, q, MPI_STATUSES_IGNORE);
        free(b);
        free(g);
    }
    free(q);
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Barrier(dup);
    MPI_Comm_free(&dup);
    if (rank == 0)
        printf("tcp_finalize: exchanged\n");
    fflush(stdout);
    MPI_Finalize();
    if (rank == 0)
        printf("tcp_finalize: finalized\n");
    return 0;
}
