/*
 * topology.c -- choosing the I/O concentrator ranks.
 *
 * Nodes are found with MPI_Comm_split_type(MPI_COMM_TYPE_SHARED); a node's
 * ranks are numbered by their rank in the file's communicator, and the first
 * N of each node serve (one per node by default).  The result is the sorted
 * list of IOC ranks; subfile s is owned by iocs[s mod nioc].
 */
#include <stdlib.h>
#include <string.h>
#include "internal.h"

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Per-node local rank and node count, agreed by all ranks. */
static int node_info(MPI_Comm comm, int *local_rank, int *nnodes, h5sf_errbuf_t *e)
{
    MPI_Comm node;
    int      lrank, leader, count = 0;
    if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) != MPI_SUCCESS)
        return h5sf_fail(e, 0, "MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) failed");
    MPI_Comm_rank(node, &lrank);
    MPI_Comm_free(&node);
    leader = lrank == 0;
    MPI_Allreduce(&leader, &count, 1, MPI_INT, MPI_SUM, comm);
    *local_rank = lrank;
    *nnodes     = count;
    return 0;
}

int h5sf_topology_select(MPI_Comm comm, const H5FD_h5sf_config_t *cfg, int **iocs_out, int *nioc_out,
                         int *nnodes, h5sf_errbuf_t *e)
{
    int  rank, size, lrank, n = 0;
    int *iocs = NULL;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    lrank = 0;
    if (node_info(comm, &lrank, nnodes, e) < 0)
        return -1;

    switch (cfg->ioc_mode) {
        case H5FD_H5SF_IOC_PER_NODE: {
            int per = cfg->ioc_param > 0 ? cfg->ioc_param : 1;
            int me  = lrank < per;
            int *all = malloc((size_t)size * sizeof *all);
            iocs     = malloc((size_t)size * sizeof *iocs);
            if (!all || !iocs) {
                free(all);
                free(iocs);
                return h5sf_fail(e, 0, "out of memory selecting IOCs");
            }
            MPI_Allgather(&me, 1, MPI_INT, all, 1, MPI_INT, comm);
            for (int r = 0; r < size; r++)
                if (all[r])
                    iocs[n++] = r;
            free(all);
            break;
        }
        case H5FD_H5SF_IOC_EVERY_NTH: {
            int step = cfg->ioc_param > 0 ? cfg->ioc_param : 1;
            iocs     = malloc((size_t)size * sizeof *iocs);
            if (!iocs)
                return h5sf_fail(e, 0, "out of memory selecting IOCs");
            for (int r = 0; r < size; r += step)
                iocs[n++] = r;
            break;
        }
        case H5FD_H5SF_IOC_TOTAL: {
            int total = cfg->ioc_param > 0 ? cfg->ioc_param : 1;
            if (total > size)
                total = size; /* more IOCs than ranks: every rank serves */
            iocs = malloc((size_t)total * sizeof *iocs);
            if (!iocs)
                return h5sf_fail(e, 0, "out of memory selecting IOCs");
            /* Spread evenly: rank floor(i * size / total). */
            for (int i = 0; i < total; i++)
                iocs[n++] = (int)(((int64_t)i * size) / total);
            break;
        }
        case H5FD_H5SF_IOC_LIST:
            if (h5sf_parse_rank_list(cfg->ioc_list, size, &iocs, &n, e) < 0)
                return -1;
            break;
        default:
            return h5sf_fail(e, 0, "unknown IOC selection mode %d", (int)cfg->ioc_mode);
    }
    if (n == 0) {
        free(iocs);
        return h5sf_fail(e, 0, "IOC selection chose no rank");
    }
    qsort(iocs, (size_t)n, sizeof *iocs, cmp_int);
    *iocs_out = iocs;
    *nioc_out = n;
    return 0;
}
