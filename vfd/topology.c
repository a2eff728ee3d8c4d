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
 *
 * Gathering them is a communicator split, a reduction and an allgather:
 * round trips across nodes, on every open (HDF5 opens a file twice to
 * create it).  So the nodes of a group are kept for the next open on the
 * same group (the same processes in the same order, whatever the
 * communicator), and used only when every rank still has them: the ranks
 * agree on that in the reduction the allocation check already makes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
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

/* Kept node leads: KEEP groups of at most KEEP_RANKS ranks, replaced in
 * turn.  Opens run one at a time (HDF5's lock), so no lock of our own. */
#define KEEP       8
#define KEEP_RANKS 65536
typedef struct kept_nodes {
    int  size;
    int *world; /* the group: each rank's rank in MPI_COMM_WORLD */
    int *leads;
} kept_nodes_t;
static kept_nodes_t kept[KEEP];
static int          kept_next;

/* comm's group as ranks of MPI_COMM_WORLD (n of them), or NULL if it
 * cannot be kept: too large, a process outside MPI_COMM_WORLD (spawned),
 * no memory.  Local. */
static int *world_ranks(MPI_Comm comm, int n)
{
    MPI_Group g, wg;
    int      *in = NULL, *out = NULL, ok = n <= KEEP_RANKS;
    if (ok && (in = h5sf_malloc((size_t)n * sizeof *in)) && (out = h5sf_malloc((size_t)n * sizeof *out))) {
        for (int i = 0; i < n; i++)
            in[i] = i;
        MPI_Comm_group(comm, &g);
        MPI_Comm_group(MPI_COMM_WORLD, &wg);
        ok = MPI_Group_translate_ranks(g, n, in, wg, out) == MPI_SUCCESS;
        for (int i = 0; ok && i < n; i++)
            ok = out[i] != MPI_UNDEFINED;
        MPI_Group_free(&g);
        MPI_Group_free(&wg);
    }
    h5sf_free(in);
    if (!ok || !out) {
        h5sf_free(out);
        return NULL;
    }
    return out;
}

/* The kept entry for group world[0..n), or NULL. */
static kept_nodes_t *kept_find(const int *world, int n)
{
    for (int k = 0; world && k < KEEP; k++)
        if (kept[k].size == n && memcmp(kept[k].world, world, (size_t)n * sizeof *world) == 0)
            return &kept[k];
    return NULL;
}

/* Keep leads[0..n) for group world (taken over; NULL: nothing kept). */
static void kept_add(int *world, const int *leads, int n)
{
    int *copy = world ? h5sf_malloc((size_t)n * sizeof *copy) : NULL;
    if (!copy) {
        h5sf_free(world);
        return;
    }
    memcpy(copy, leads, (size_t)n * sizeof *copy);
    kept_nodes_t *k = &kept[kept_next];
    kept_next       = (kept_next + 1) % KEEP;
    h5sf_free(k->world);
    h5sf_free(k->leads);
    *k = (kept_nodes_t){n, world, copy};
}

void h5sf_topology_forget(void)
{
    for (int k = 0; k < KEEP; k++) {
        h5sf_free(kept[k].world);
        h5sf_free(kept[k].leads);
        kept[k] = (kept_nodes_t){0, NULL, NULL};
    }
    kept_next = 0;
}

int h5sf_topology_select(MPI_Comm comm, const H5FD_h5sf_config_t *cfg, int32_t nsubfiles, int **iocs_out, int *nioc_out,
                         int *nnodes, int **leads_out, h5sf_errbuf_t *e)
{
    int           rank, size, rc;
    int          *leads, *world = NULL;
    kept_nodes_t *have = NULL;
    h5sf_coll_rank_size(comm, &rank, &size);
    if (comm != MPI_COMM_NULL && !h5sf_fault("topo-forget", rank)) {
        world = world_ranks(comm, size);
        have  = kept_find(world, size);
    }
    /* The ranks agree on the allocation before the collectives below: a
     * rank that returned alone would leave the others in them.  The same
     * reduction tells whether every rank has this group's nodes kept. */
    int mine[2] = {0, !have}, all[2] = {1, 1};
    leads   = h5sf_fault("nomem-topo", rank) ? NULL : h5sf_malloc((size_t)size * sizeof *leads);
    mine[0] = !leads;
    if (h5sf_coll_allreduce(mine, all, 2, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS || all[0]) {
        h5sf_free(leads);
        h5sf_free(world);
        return h5sf_fail(e, ENOMEM,
                         mine[0] ? "out of memory selecting IOCs" : "another rank ran out of memory selecting IOCs");
    }

    if (comm == MPI_COMM_NULL) /* one process without MPI (solo.c) */
        leads[0] = 0;
    else if (!all[1]) /* every rank has them */
        memcpy(leads, have->leads, (size_t)size * sizeof *leads);
    else if (node_leads(comm, rank, leads, e) < 0) {
        h5sf_free(leads);
        h5sf_free(world);
        return -1;
    }
    else if (!have) {
        kept_add(world, leads, size);
        world = NULL;
    }
    h5sf_free(world);

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
