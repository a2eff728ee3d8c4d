/*
 * orphans.h -- the pieces of subfiled files whose stub is gone (orphans.c).
 *
 * A subfiled file is a stub, a config file <base>.subfile_<N>.config and
 * subfiles <base>.subfile_<N>_<k>_of_<n>, N the stub's inode.  A program
 * that removes only the stub (netCDF's abort path calls remove()) leaves
 * the config file and subfiles behind, named for an inode no file has any
 * more.  Such a set is an orphan when its config file's stub (hdf5_file=)
 * does not exist or has another inode, and no file in the stub's
 * directory has inode N (a stub renamed there with mv keeps its inode:
 * not an orphan).  h5sf-orphans lists and removes them; H5Fcreate reclaims
 * those of the name it creates.
 */
#ifndef H5SF_ORPHANS_H
#define H5SF_ORPHANS_H

#include <stdint.h>
#include "errbuf.h"
#include "layout.h"

typedef struct h5sf_orphan {
    h5sf_layout_t layout;                           /* the set, as its config file describes it */
    char          config[2 * H5SF_LAYOUT_PATH_MAX]; /* its config file                         */
    char          stub[2 * H5SF_LAYOUT_PATH_MAX];   /* the stub the config file names          */
    char          why[128];                         /* "gone", "another file now (...)"       */
} h5sf_orphan_t;

/* Call fn(o, arg) for every orphaned set whose config file is in
 * config_dir ("": the current directory), in name order; fn returns 0 to go
 * on, anything else to stop (returned).  With stub set (an absolute path,
 * as h5sf_layout_set_stub makes it), only the sets whose config file names
 * that stub; then a set of inode `replacing` (the stub a create just
 * truncated) counts too, whatever the stub's inode.  Config files that do
 * not parse are skipped.  Returns 0, fn's value, or -1 (directory
 * unreadable). */
int h5sf_orphans_scan(const char *config_dir, const char *stub, uint64_t replacing,
                      int (*fn)(const h5sf_orphan_t *o, void *arg), void *arg, h5sf_errbuf_t *e);

/* Remove the set's subfiles (those already gone are fine), then its config
 * file.  -1 with the first failure; what could be removed is. */
int h5sf_orphan_remove(const h5sf_orphan_t *o, h5sf_errbuf_t *e);

#endif
