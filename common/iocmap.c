/*
 * iocmap.c -- the I/O concentrator list, in the built-in driver's order.
 *
 * Every mode picks from one sequence, the ranks "node by node": nodes in the
 * order of their lowest rank, ranks ascending within a node.  That is the
 * built-in's sorted app_layout (H5FD__subfiling_init_app_layout), and the
 * picks below follow H5FD__subfiling_init_app_topology and
 * H5FD__subfiling_identify_ioc_ranks (HDF5 1.14.5) step for step, quirks
 * included, because any difference puts subfiles on other nodes.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include "alloc.h"
#include "iocmap.h"

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* order[] = the ranks node by node; *nnodes = the number of nodes. */
static int node_major(int size, const int *lead, int *order, int *nnodes, h5sf_errbuf_t *e)
{
    int64_t *key = h5sf_malloc((size_t)size * sizeof *key);
    if (!key)
        return h5sf_fail(e, ENOMEM, "out of memory ordering the ranks by node");
    *nnodes = 0;
    for (int r = 0; r < size; r++) {
        /* A node is named by its lowest rank, which names itself. */
        if (lead[r] < 0 || lead[r] > r || lead[lead[r]] != lead[r]) {
            h5sf_free(key);
            return h5sf_fail(e, EINVAL, "inconsistent node information: rank %d's node starts at rank %d", r, lead[r]);
        }
        *nnodes += lead[r] == r;
        key[r] = (int64_t)lead[r] << 32 | r; /* sort by (node, rank) */
    }
    qsort(key, (size_t)size, sizeof *key, cmp_i64);
    for (int i = 0; i < size; i++)
        order[i] = (int)(key[i] & INT_MAX);
    h5sf_free(key);
    return 0;
}

/* per_node:N.  The built-in first caps N x nodes at the subfile count, then
 * takes max(1, count / nodes) ranks from each node (fewer if the node has
 * fewer), node after node, until it has count: so per_node:2 with fewer
 * than 2 subfiles per node serves with one IOC per node. */
static int pick_per_node(int size, const int *lead, const int *order, int nnodes, int per, int32_t nsubfiles, int *iocs)
{
    int64_t want = (int64_t)per * nnodes;
    if (nsubfiles > 0 && want > nsubfiles)
        want = nsubfiles;
    int64_t each = want > nnodes ? want / nnodes : 1;
    int     n = 0, taken = 0;
    for (int i = 0; i < size && n < want; i++) {
        if (i == 0 || lead[order[i]] != lead[order[i - 1]])
            taken = 0; /* the next node starts */
        if (taken++ < each)
            iocs[n++] = order[i];
    }
    return n;
}

/* ranks:R1;R2;... (no built-in equivalent): the listed ranks, ordered node
 * by node like every other mode, so a list that names the ranks another
 * mode would pick also gives that mode's layout. */
static int pick_list(int size, const int *order, const char *list, int32_t nsubfiles, int *iocs, h5sf_errbuf_t *e)
{
    int  *ranks = NULL, nr = 0, n = 0;
    bool *in = h5sf_calloc((size_t)size, sizeof *in);
    if (!in)
        return h5sf_fail(e, ENOMEM, "out of memory selecting IOCs");
    if (h5sf_parse_rank_list(list, size, &ranks, &nr, e) < 0) {
        h5sf_free(in);
        return -1;
    }
    for (int i = 0; i < nr; i++)
        in[ranks[i]] = true;
    for (int i = 0; i < size; i++)
        if (in[order[i]] && (nsubfiles <= 0 || n < nsubfiles))
            iocs[n++] = order[i];
    h5sf_free(ranks);
    h5sf_free(in);
    return n;
}

int h5sf_iocmap_select(int size, const int *lead, const h5sf_settings_t *cfg, int32_t nsubfiles, int **iocs_out,
                       int *nioc_out, int *nnodes, h5sf_errbuf_t *e)
{
    int  p = cfg->ioc_param > 0 ? cfg->ioc_param : 1, n = 0, count, step;
    int *order, *iocs;
    *iocs_out = NULL;
    *nioc_out = 0;
    if (size <= 0)
        return h5sf_fail(e, EINVAL, "no ranks to choose IOCs from");
    order = h5sf_malloc((size_t)size * sizeof *order);
    iocs  = h5sf_malloc((size_t)size * sizeof *iocs);
    if (!order || !iocs) {
        n = h5sf_fail(e, ENOMEM, "out of memory selecting IOCs");
        goto done;
    }
    if ((n = node_major(size, lead, order, nnodes, e)) < 0)
        goto done;

    switch (cfg->ioc_mode) {
        case H5SF_IOC_PER_NODE: n = pick_per_node(size, lead, order, *nnodes, p, nsubfiles, iocs); break;
        case H5SF_IOC_EVERY_NTH: /* positions 0, N, 2N, ... of the node-by-node order */
        case H5SF_IOC_TOTAL:     /* N positions with stride (size - 1) / (N - 1), rounded down */
            if (p > size)
                p = size; /* as the built-in: N is capped at the rank count */
            if (cfg->ioc_mode == H5SF_IOC_EVERY_NTH) {
                step  = p;
                count = (size - 1) / step + 1;
            }
            else {
                step  = p > 1 ? (size - 1) / (p - 1) : 1;
                count = p;
            }
            if (nsubfiles > 0 && count > nsubfiles)
                count = nsubfiles;
            for (n = 0; n < count; n++)
                iocs[n] = order[n * step];
            break;
        case H5SF_IOC_LIST: n = pick_list(size, order, cfg->ioc_list, nsubfiles, iocs, e); break;
        default: n = h5sf_fail(e, EINVAL, "unknown IOC selection mode %d", (int)cfg->ioc_mode);
    }
    if (n == 0)
        n = h5sf_fail(e, EINVAL, "IOC selection chose no rank");
done:
    h5sf_free(order);
    if (n < 0) {
        h5sf_free(iocs);
        return -1;
    }
    *iocs_out = iocs;
    *nioc_out = n;
    return 0;
}

int32_t h5sf_iocmap_default_count(int size, const int *lead, const int *iocs, int nioc, int per_ioc_max)
{
    int64_t k = per_ioc_max > 0 ? per_ioc_max : 1;
    int    *ranks, *here; /* per node (indexed by its lead): ranks, IOCs */
    if (nioc <= 0 || size <= 0)
        return 1;
    ranks = h5sf_calloc((size_t)size, sizeof *ranks);
    here  = h5sf_calloc((size_t)size, sizeof *here);
    if (!ranks || !here)
        k = 1; /* no memory to count with: the built-in's default */
    else {
        for (int r = 0; r < size; r++)
            ranks[lead[r]]++;
        for (int i = 0; i < nioc; i++)
            here[lead[iocs[i]]]++;
        for (int i = 0; i < nioc; i++) {
            int node = lead[iocs[i]];
            if (ranks[node] / here[node] < k)
                k = ranks[node] / here[node];
        }
    }
    h5sf_free(ranks);
    h5sf_free(here);
    if (k < 1)
        k = 1;
    return (int32_t)(k * nioc < H5SF_MAX_STRIPE_COUNT ? k * nioc : H5SF_MAX_STRIPE_COUNT);
}
