/*
 * t_roundtrip.h -- shared by the files of t_roundtrip (see t_roundtrip.c):
 * the datasets and their values, selections, buffers, the write/read passes
 * and the on-disk checks.  Checks, verdict and pattern: h5sf_test.h.
 */
#ifndef T_ROUNDTRIP_H
#define T_ROUNDTRIP_H

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <mpi.h>
#include <hdf5.h>
#include "h5sf.h"

#include "h5sf_test.h"

#define MAX_REPORT 8 /* mismatches printed per check */

/* ---- the data -------------------------------------------------------- */

enum { DS_CONTIG, DS_STRIDED, DS_POINTS, DS_UNION, DS_CHUNKED, DS_SLAB2D, DS_COMPACT, DS_COUNT };

#define N1         131101 /* contig: ints per rank (odd, so nothing aligns) */
#define BLK        1024   /* strided: 4 KiB blocks of int                   */
#define NB         48     /* strided: blocks per rank                       */
#define NP         3000   /* points: elements per rank (on average)         */
#define U_ROWS     16     /* union: rows per rank                           */
#define U_COLS     300
#define C_ROWS     40 /* chunked: rows per rank, chunk 16 x 50          */
#define C_COLS     200
#define S_ROWS     64 /* slab2d: 64 rows, 300 columns per rank          */
#define S_COLS     300
#define S_PAD      5    /* slab2d: memory row is S_COLS + S_PAD wide       */
#define CP_N       200  /* compact                                        */
#define OWN_ALL    (-2) /* compact: every rank writes everything          */
#define FILL_VALUE (-1.0)
#define POISON     (-777.0)

typedef struct {
    const char *name;
    int         kind;
    int         is_double;
    int         ndims;
    hsize_t     dims[2];
} dsinfo_t;

extern dsinfo_t g_ds[DS_COUNT];

typedef struct {
    hid_t     fspace, mspace;
    size_t    n;    /* selected elements          */
    size_t    memn; /* elements in memory buffer  */
    uint64_t *gidx;
    size_t   *memoff;
} sel_t;

/* t_roundtrip_data.c: the datasets, their values, each rank's selection,
 * buffers of int or double viewed as double, mismatch reports. */
void     ds_setup(int np);
uint64_t ds_nelem(const dsinfo_t *d);
double   pattern(int ds, uint64_t g, int is_double);
int      union_has(uint64_t lr, uint64_t j);
int      owner(const dsinfo_t *d, uint64_t g);
double   expected(const dsinfo_t *d, uint64_t g);
void     sel_free(sel_t *s);
void     sel_make(const dsinfo_t *d, int r, sel_t *s);
hid_t    memtype(const dsinfo_t *d);
hid_t    filetype(const dsinfo_t *d);
void    *buf_alloc(const dsinfo_t *d, size_t n);
double   buf_get(const dsinfo_t *d, const void *b, size_t i);
void     buf_set(const dsinfo_t *d, void *b, size_t i, double v);
void     report(const char *ctx, const dsinfo_t *d, uint64_t g, double got, double want, long *nbad);
void     report_done(const char *ctx, const dsinfo_t *d, long nbad);

/* t_roundtrip_io.c: the write pass, the read-and-compare passes, the
 * on-disk layout against the built-in subfiling driver's templates. */
hid_t make_dxpl(int collective);
void  write_file(hid_t file, int collective, const char *ctx);
void  check_attrs(hid_t file, const char *ctx);
void  read_check(hid_t file, int collective, const char *ctx, double *const ref[DS_COUNT], double *keep[DS_COUNT]);
int   check_disk(const char *dir, const char *base, int64_t want_size, int want_count);

#endif
