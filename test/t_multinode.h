/*
 * t_multinode.h -- shared by t_multinode.c (phases, topology, placement)
 * and t_multinode_data.c (the datasets, their values, write and compare).
 * Checks, verdict and pattern: h5sf_test.h.
 */
#ifndef T_MULTINODE_H
#define T_MULTINODE_H

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>
#include <hdf5.h>
#include <H5FDsubfiling.h>
#include <H5FDioc.h>
#include "h5sf.h"
#include "h5sf_test.h"

#define HOSTLEN 256
#define MAXREP  8

/* t_multinode_data.c: write every dataset (iteration iter of the pattern)
 * with the same calls for every driver; every rank reads another rank's
 * share of file and of the MPI-IO reference ref and compares both with
 * the pattern. */
void write_data(hid_t file, int iter);
void check(hid_t file, hid_t ref, const char *ctx);

#endif
