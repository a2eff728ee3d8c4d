/*
 * topology.c -- choosing the I/O concentrator ranks.
 *
 * Finds every rank's node and leaves the choice to common/iocmap.c, which
 * builds the list in the order of HDF5's built-in subfiling driver: node by
 * node, nodes in the order of their lowest rank, ranks ascending within a
 * node.  Subfile s is owned by iocs[s mod nioc], so with the same order the
 * two drivers put every subfile on the same node, which is what lets each
 * read the other's files on node-local storage.
 *
 * Why two files: the choice is pure arithmetic on node numbers, so it lives
 * in common/ (no MPI) where unit_topology checks it against the built-in
 * driver's order without an MPI job; this file only gathers the nodes.
 */
#include <errno.h>
#include <stdlib.h>
#include "internal.h"
#include "iocmap.h"

/* Nodes as the built-in finds them (H5FD__subfiling_setup_context):
 * MPI_COMM_TYPE_SHARED; a node is named by its lowest rank in comm
 * (H5FD__subfiling_gather_topology_info's node_lead_rank).  Collective. */
static int node_leads(MPI_Comm comm, int rank, int *leads, h5sf_errbuf_t *e)
{
    MPI_Comm node;
    int      lead, rc;
    char     why[MPI_MAX_ERROR_STRING];
    if ((rc = h5sf_mpisite_comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, &node)) != MPI_SUCCESS)
        h5sf_fail(e, 0, "MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) failed: %s", h5sf_mpisite_errstr(rc, why));
    /* Agreed: a rank without its node's communicator would leave the
     * others in the collectives on theirs. */
    if (h5sf_agree(comm, rc != MPI_SUCCESS, e) < 0) {
        if (rc == MPI_SUCCESS)
            MPI_Comm_free(&node);
        return -1;
    }
    MPI_Allreduce(&rank, &lead, 1, MPI_INT, MPI_MIN, node);
    MPI_Comm_free(&node);
    MPI_Allgather(&lead, 1, MPI_INT, leads, 1, MPI_INT, comm);
    return 0;
}

int h5sf_topology_select(MPI_Comm comm, const H5FD_h5sf_config_t *cfg, int32_t nsubfiles, int **iocs_out, int *nioc_out,
                         int *nnodes, int **leads_out, h5sf_errbuf_t *e)
{
    int  rank, size, rc;
    int *leads;
    h5sf_coll_rank_size(comm, &rank, &size);
    /* The ranks agree on the allocation before the collectives below: a
     * rank that returned alone would leave the others in them. */
    int bad, anybad = 1;
    leads = h5sf_fault("nomem-topo", rank) ? NULL : h5sf_malloc((size_t)size * sizeof *leads);
    bad   = !leads;
    if (h5sf_coll_allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS || anybad) {
        h5sf_free(leads);
        return h5sf_fail(e, ENOMEM,
                         bad ? "out of memory selecting IOCs" : "another rank ran out of memory selecting IOCs");
    }

    if (comm == MPI_COMM_NULL) /* one process without MPI (solo.c) */
        leads[0] = 0;
    else if (node_leads(comm, rank, leads, e) < 0) {
        h5sf_free(leads);
        return -1;
    }

    h5sf_settings_t set;
    h5sf_config_to_settings(cfg, &set);
    rc = h5sf_iocmap_select(size, leads, &set, nsubfiles, iocs_out, nioc_out, nnodes, e);
    if (rc < 0) {
        h5sf_free(leads);
        return rc;
    }
    *leads_out = leads;
    return rc;
}
