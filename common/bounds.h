/*
 * bounds.h -- the limits and defaults of h5sf's settings, each defined once.
 *
 * Numbers only: no types, no calls.  settings.c checks
 * settings against them, layout.c the config file, iocmap.c the default
 * subfile count, the tools their options; vfd/fapl_settings.c asserts at compile
 * time that the public struct (include/h5sf.h) has the same lengths.  The
 * address and piece limits are the stripe arithmetic's (stripe.h).
 */
#ifndef H5SF_BOUNDS_H
#define H5SF_BOUNDS_H

#include <stdint.h>

#define H5SF_DEFAULT_STRIPE_SIZE ((int64_t)32 * 1024 * 1024)
#define H5SF_DEFAULT_THREADS     4
/* Subfiles per IOC of a new file when stripe_count is left at 0, at most
 * (common/iocmap.h, h5sf_iocmap_default_count; measured:
 * docs/performance-history.md, Figures behind constants, default subfile count). */
#define H5SF_DEFAULT_SUBFILES_PER_IOC 4
#define H5SF_DEFAULT_TIMEOUT          300
/* Subfile descriptors an IOC, and a rank's same-node shortcut, keep open
 * (H5SF_IOC_MAX_FDS); also the most subfiles for which channel=auto takes
 * the direct channel on one node, which opens every subfile on every rank
 * (a fixed number, so that every rank takes the same channel). */
#define H5SF_DEFAULT_IOC_MAX_FDS 256

#define H5SF_MAX_STRIPE_COUNT 65536     /* subfiles of one file */
#define H5SF_MAX_THREADS      256       /* worker threads of an IOC */
#define H5SF_MAX_IOC_PARAM    (1 << 24) /* N in per_node:N, every:N, total:N */
#define H5SF_MAX_TIMEOUT      86400     /* seconds */

/* Lengths of the text settings, NUL included (H5FD_h5sf_config_t's arrays). */
#define H5SF_IOC_LIST_LEN 1024
#define H5SF_PATH_MAX     4096

#endif
