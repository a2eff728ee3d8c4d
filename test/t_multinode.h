/*
 * t_multinode.h -- shared by t_multinode.c (phases, topology, placement)
 * and t_multinode_data.c (the datasets, their pattern, write and compare).
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

#define HOSTLEN 256
#define MAXREP  8

extern int  g_rank, g_size;
extern long g_fail;

#define H5X(call)                                                                                                      \
    do {                                                                                                               \
        if ((call) < 0)                                                                                                \
            fatal(__LINE__, #call);                                                                                    \
    } while (0)
#define H5ID(call) h5id_at((call), #call, __FILE__, __LINE__)
#define FAIL(...)                                                                                                      \
    do {                                                                                                               \
        g_fail++;                                                                                                      \
        fprintf(stderr, "[rank %d] FAIL ", g_rank);                                                                    \
        fprintf(stderr, __VA_ARGS__);                                                                                  \
        fputc('\n', stderr);                                                                                           \
    } while (0)

/* t_multinode.c: print the HDF5 error stack and abort, naming the source
 * file and line; h5id_at passes a valid id through. */
void  fatal_at(const char *file, int line, const char *what);
hid_t h5id_at(hid_t id, const char *what, const char *file, int line);
#define fatal(line, what) fatal_at(__FILE__, line, what)

/* t_multinode_data.c: write every dataset (iteration iter of the pattern)
 * with the same calls for every driver; every rank reads another rank's
 * share of file and of the MPI-IO reference ref and compares both with
 * the pattern. */
void write_data(hid_t file, int iter);
void check(hid_t file, hid_t ref, const char *ctx);

#endif
