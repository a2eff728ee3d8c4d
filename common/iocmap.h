/*
 * iocmap.h -- which ranks are I/O concentrators, and in which order.
 *
 * Subfile k is served by iocs[k mod nioc], so the order of the list decides
 * on which node every subfile lives.  HDF5's built-in subfiling driver lists
 * its IOCs node by node: H5FD__subfiling_init_app_layout() sorts the ranks by
 * the lowest rank of their node, then by rank, and
 * H5FD__subfiling_identify_ioc_ranks() picks IOCs from that order.  h5sf
 * builds exactly the same list, so on node-local storage each driver finds
 * the subfiles the other wrote.  No MPI or HDF5 calls here (unit-tested by
 * test/unit_topology.c); vfd/topology.c gathers the nodes and calls this.
 */
#ifndef H5SF_IOCMAP_H
#define H5SF_IOCMAP_H

#include <stdint.h>
#include "settings.h"
#include "errbuf.h"

/* lead[r] is the lowest rank on rank r's node (0 <= lead[r] <= r).
 * nsubfiles is the file's subfile count, or 0 when it defaults to the IOC
 * count: as in the built-in, there are never more IOCs than subfiles.
 * Returns 0 with *iocs (malloc'd, in serving order), *nioc and *nnodes set,
 * or -1 with the reason in e. */
int h5sf_iocmap_select(int size, const int *lead, const h5sf_settings_t *cfg, int32_t nsubfiles, int **iocs, int *nioc,
                       int *nnodes, h5sf_errbuf_t *e);

/* The subfile count of a new file whose settings leave it open: nioc x k,
 * k = min(per_ioc_max, ranks per IOC on the node where an IOC serves the
 * fewest), at least 1, capped at H5SF_MAX_STRIPE_COUNT.  Several subfiles
 * per IOC let its workers write at once (one file is one inode lock); more
 * subfiles than ranks an IOC serves buy nothing (docs/configuration.md,
 * "The default subfile count").  iocs/nioc as h5sf_iocmap_select made them. */
int32_t h5sf_iocmap_default_count(int size, const int *lead, const int *iocs, int nioc, int per_ioc_max);

#endif
