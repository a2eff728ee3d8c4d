/*
 * drvlen.h -- the driver info's declared length, read from a subfiled
 * file's subfiles (drvlen.c).  No HDF5, no MPI.
 */
#ifndef H5SF_DRVLEN_H
#define H5SF_DRVLEN_H

#include <stddef.h>
#include "errbuf.h"
#include "layout.h"

/* The length the superblock of set l (a subfiled layout, config read)
 * declares for its driver info, into *len: 0 when the file has none, or
 * its bytes hold no superblock that parses (H5FDopen alone writes none).
 * 0, or -1 with e naming what failed when an allocation or a system call
 * on a subfile did (a missing subfile among them). */
int h5sf_drvinfo_len_read(const h5sf_layout_t *l, size_t *len, h5sf_errbuf_t *e);

#endif
