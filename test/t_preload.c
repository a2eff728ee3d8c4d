/*
 * t_preload -- a parallel HDF5 program that hard-codes the MPI-IO driver
 * (H5Pset_fapl_mpio), like IOR or h5bench, plus readers that check its file.
 * test/ecosystem/t_preload.sh runs it with and without libh5sf_preload.so.
 *
 *   t_preload write DIR              H5Pset_fapl_mpio(fapl, group comm, info)
 *   t_preload verify-h5sf DIR        read with h5sf (by name)
 *   t_preload verify-subfiling DIR   read with HDF5's built-in subfiling driver
 *   t_preload verify-mpio DIR        read with the MPI-IO driver
 *   t_preload verify-serial DIR      each group's rank 0 alone reads with the
 *                                    default driver (under the shim: h5sf on
 *                                    MPI_COMM_SELF), as HDF5's
 *                                    t_filters_parallel does
 *
 * The ranks are split into two groups (rank % 2) and each group writes its
 * own file DIR/group<g>.h5 through its own communicator, with an info object
 * carrying a group-specific key: a redirect that lost the communicator would
 * open both files on MPI_COMM_WORLD and fail or hang, and the info must come
 * back from H5Pget_fapl_mpio and from the open file's access list.
 * It also calls H5Fset/get_mpi_atomicity, which the shim must answer for
 * h5sf files.  Data: /grid (2-D int, a band of rows per rank, collective) and /blocks
 * (1-D long long, chunked, 1000-element blocks dealt round-robin,
 * independent) plus an attribute; every verify reads everything and compares
 * with the formulas below.  Exit status 1 on any mismatch.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>
#include <hdf5.h>
#if H5SF_HAVE_SUBFILING_VFD /* HDF5's own subfiling driver is built in */
#include <H5FDsubfiling.h>
#endif
#include "h5sf_test.h"

#define ROWS   96 /* per rank */
#define COLS   500
#define BLOCK  1000
#define NBLOCK 37 /* per rank */

static int      grank, gsize, group;
static MPI_Comm gcomm;

/* The two datasets' patterns: each group its own. */
#define grid_value(i, j) t_pat_int((uint64_t)group, (uint64_t)(i)*COLS + (uint64_t)(j))
#define block_value(k)   ((long long)t_pat_int(10 + (uint64_t)group, (uint64_t)(k)))

static MPI_Info group_info(void)
{
    MPI_Info info;
    char     v[32];
    MPI_Info_create(&info);
    snprintf(v, sizeof v, "group-%d", group);
    MPI_Info_set(info, "t_preload_key", v);
    return info;
}

/* The info must carry our key with this group's value. */
static void check_info(MPI_Info info, const char *where)
{
    char want[32], got[64] = "";
    int  flag = 0;
    snprintf(want, sizeof want, "group-%d", group);
    CHECK(info != MPI_INFO_NULL, "%s: no MPI_Info", where);
    if (info == MPI_INFO_NULL)
        return;
    MPI_Info_get(info, "t_preload_key", (int)sizeof got - 1, got, &flag);
    CHECK(flag && !strcmp(got, want), "%s: info key t_preload_key is \"%s\", expected \"%s\"", where,
          flag ? got : "(missing)", want);
}

static void check_comm(MPI_Comm c, const char *where)
{
    int res = MPI_UNEQUAL;
    CHECK(c != MPI_COMM_NULL, "%s: no communicator", where);
    if (c != MPI_COMM_NULL)
        MPI_Comm_compare(c, gcomm, &res);
    CHECK(res == MPI_CONGRUENT || res == MPI_IDENT, "%s: communicator is not the group's (compare %d)", where, res);
}

static void write_file(const char *path)
{
    MPI_Info info = group_info();
    hid_t    fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5VRFY(H5Pset_fapl_mpio(fapl, gcomm, info)); /* the hard-coded choice */
    MPI_Info_free(&info);                        /* the driver keeps its own copy */

    MPI_Comm c = MPI_COMM_NULL;
    MPI_Info i = MPI_INFO_NULL;
    H5VRFY(H5Pget_fapl_mpio(fapl, &c, &i));
    check_comm(c, "H5Pget_fapl_mpio");
    check_info(i, "H5Pget_fapl_mpio");
    if (c != MPI_COMM_NULL)
        MPI_Comm_free(&c);
    if (i != MPI_INFO_NULL)
        MPI_Info_free(&i);
    /* Either output may be NULL, as HDF5's testphdf5 (mpiodup) asks. */
    c = MPI_COMM_NULL;
    H5VRFY(H5Pget_fapl_mpio(fapl, &c, NULL));
    check_comm(c, "H5Pget_fapl_mpio(comm only)");
    if (c != MPI_COMM_NULL)
        MPI_Comm_free(&c);
    i = MPI_INFO_NULL;
    H5VRFY(H5Pget_fapl_mpio(fapl, NULL, &i));
    check_info(i, "H5Pget_fapl_mpio(info only)");
    if (i != MPI_INFO_NULL)
        MPI_Info_free(&i);
    H5VRFY(H5Pget_fapl_mpio(fapl, NULL, NULL));

    hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    H5VRFY(file);
    /* The open file reports the communicator and info it was given. */
    hid_t acc = H5Fget_access_plist(file);
    H5VRFY(acc);
    c = MPI_COMM_NULL;
    i = MPI_INFO_NULL;
    H5VRFY(H5Pget_mpi_params(acc, &c, &i));
    check_comm(c, "open file's access list");
    check_info(i, "open file's access list");
    MPI_Comm_free(&c);
    if (i != MPI_INFO_NULL)
        MPI_Info_free(&i);
    H5Pclose(acc);

    /* MPI atomicity calls, as MPI-IO programs make them: on an h5sf file
     * HDF5 itself would crash (it treats the file as MPI-IO's); the shim
     * must answer them. */
    hbool_t atomic = 1;
    H5VRFY(H5Fset_mpi_atomicity(file, 0));
    H5VRFY(H5Fget_mpi_atomicity(file, &atomic));
    CHECK(!atomic, "H5Fget_mpi_atomicity says atomic after H5Fset_mpi_atomicity(false)");

    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5VRFY(H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE));
    hsize_t gdims[2] = {(hsize_t)ROWS * gsize, COLS}, cnt[2] = {ROWS, COLS}, st[2] = {(hsize_t)grank * ROWS, 0};
    int    *band = malloc(sizeof(int) * ROWS * COLS);
    for (long r = 0; r < ROWS; r++)
        for (long j = 0; j < COLS; j++)
            band[r * COLS + j] = grid_value((long)st[0] + r, j);
    hid_t fs = H5Screate_simple(2, gdims, NULL), ms = H5Screate_simple(2, cnt, NULL);
    hid_t d = H5Dcreate2(file, "grid", H5T_NATIVE_INT, fs, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5VRFY(d);
    H5VRFY(H5Sselect_hyperslab(fs, H5S_SELECT_SET, st, NULL, cnt, NULL));
    H5VRFY(H5Dwrite(d, H5T_NATIVE_INT, ms, fs, dxpl, band));
    hid_t as = H5Screate(H5S_SCALAR);
    hid_t a  = H5Acreate2(d, "group_size", H5T_NATIVE_INT, as, H5P_DEFAULT, H5P_DEFAULT);
    H5VRFY(H5Awrite(a, H5T_NATIVE_INT, &gsize));
    H5Aclose(a);
    H5Sclose(as);
    H5Dclose(d);
    H5Sclose(fs);
    H5Sclose(ms);
    free(band);

    /* Blocks dealt round-robin: rank r owns blocks r, r + gsize, ... */
    hsize_t n = (hsize_t)BLOCK * NBLOCK * gsize, chunk = 4096, one = BLOCK;
    hid_t   dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5VRFY(H5Pset_chunk(dcpl, 1, &chunk));
    H5VRFY(H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY));
    fs = H5Screate_simple(1, &n, NULL);
    ms = H5Screate_simple(1, &one, NULL);
    d  = H5Dcreate2(file, "blocks", H5T_NATIVE_LLONG, fs, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5VRFY(d);
    long long *blk = malloc(sizeof(long long) * BLOCK);
    for (int b = 0; b < NBLOCK; b++) {
        hsize_t s = ((hsize_t)b * gsize + grank) * BLOCK;
        for (long k = 0; k < BLOCK; k++)
            blk[k] = block_value((long)s + k);
        H5VRFY(H5Sselect_hyperslab(fs, H5S_SELECT_SET, &s, NULL, &one, NULL));
        H5VRFY(H5Dwrite(d, H5T_NATIVE_LLONG, ms, fs, H5P_DEFAULT, blk)); /* independent */
    }
    free(blk);
    H5Dclose(d);
    H5Sclose(fs);
    H5Sclose(ms);
    H5Pclose(dcpl);
    H5Pclose(dxpl);
    H5VRFY(H5Fclose(file));
    H5Pclose(fapl);
}

static hid_t reader_fapl(const char *how)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (!strcmp(how, "verify-serial"))
        return fapl;
    if (!strcmp(how, "verify-mpio"))
        H5VRFY(H5Pset_fapl_mpio(fapl, gcomm, MPI_INFO_NULL));
    else if (!strcmp(how, "verify-h5sf")) {
        H5VRFY(H5Pset_mpi_params(fapl, gcomm, MPI_INFO_NULL));
        H5VRFY(H5Pset_driver_by_name(fapl, "h5sf", NULL));
    }
    else { /* built-in subfiling: layout from the file's config */
#if H5SF_HAVE_SUBFILING_VFD
        H5FD_subfiling_config_t cfg;
        H5VRFY(H5Pset_mpi_params(fapl, gcomm, MPI_INFO_NULL));
        H5VRFY(H5Pget_fapl_subfiling(fapl, &cfg));
        H5VRFY(H5Pset_fapl_subfiling(fapl, &cfg));
        H5Pclose(cfg.ioc_fapl_id);
#else
        fprintf(stderr, "t_preload: this HDF5 is built without its subfiling driver\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
#endif
    }
    return fapl;
}

static void verify_file(const char *path, const char *how)
{
    hid_t fapl = reader_fapl(how);
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    H5VRFY(file);

    hsize_t rows = (hsize_t)ROWS * gsize;
    int    *grid = malloc(sizeof(int) * rows * COLS);
    hid_t   d    = H5Dopen2(file, "grid", H5P_DEFAULT);
    H5VRFY(d);
    H5VRFY(H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, grid));
    long bad = 0, first = -1;
    for (long k = 0; k < (long)rows * COLS; k++)
        if (grid[k] != grid_value(k / COLS, k % COLS) && bad++ == 0)
            first = k;
    CHECK(bad == 0, "%s %s: %ld elements of grid wrong; grid[%ld][%ld] = %d, expected %d", how, path, bad, first / COLS,
          first % COLS, bad ? grid[first] : 0, bad ? grid_value(first / COLS, first % COLS) : 0);
    int   gs = -1;
    hid_t a  = H5Aopen(d, "group_size", H5P_DEFAULT);
    H5VRFY(a);
    H5VRFY(H5Aread(a, H5T_NATIVE_INT, &gs));
    CHECK(gs == gsize, "%s %s: attribute group_size = %d, expected %d", how, path, gs, gsize);
    H5Aclose(a);
    H5Dclose(d);
    free(grid);

    hsize_t    n   = (hsize_t)BLOCK * NBLOCK * gsize;
    long long *all = malloc(sizeof(long long) * n);
    d              = H5Dopen2(file, "blocks", H5P_DEFAULT);
    H5VRFY(d);
    H5VRFY(H5Dread(d, H5T_NATIVE_LLONG, H5S_ALL, H5S_ALL, H5P_DEFAULT, all));
    bad = 0;
    for (long k = 0; k < (long)n; k++)
        if (all[k] != block_value(k) && bad++ == 0)
            first = k;
    CHECK(bad == 0, "%s %s: %ld blocks elements wrong; blocks[%ld] = %lld, expected %lld", how, path, bad, first,
          bad ? all[first] : 0, bad ? block_value(first) : 0);
    free(all);
    H5Dclose(d);
    H5VRFY(H5Fclose(file));
    H5Pclose(fapl);
}

int main(int argc, char **argv)
{
    int wsize;
    t_init(&argc, &argv, "t_preload");
    wsize = t_size;
    if (argc != 3) {
        if (t_rank == 0)
            fprintf(stderr, "usage: t_preload write|verify-h5sf|verify-subfiling|verify-mpio|verify-serial DIR\n");
        MPI_Finalize();
        return 2;
    }
    group = wsize > 1 ? t_rank % 2 : 0;
    MPI_Comm_split(MPI_COMM_WORLD, group, t_rank, &gcomm);
    MPI_Comm_rank(gcomm, &grank);
    MPI_Comm_size(gcomm, &gsize);
    char path[4096];
    snprintf(path, sizeof path, "%s/group%d.h5", argv[2], group);

    if (!strcmp(argv[1], "write"))
        write_file(path);
    else if (!strcmp(argv[1], "verify-h5sf") || !strcmp(argv[1], "verify-subfiling") || !strcmp(argv[1], "verify-mpio"))
        verify_file(path, argv[1]);
    else if (!strcmp(argv[1], "verify-serial")) {
        if (grank == 0)
            verify_file(path, argv[1]);
    }
    else
        CHECK(0, "unknown mode '%s'", argv[1]);
    if (t_rank == 0)
        printf("t_preload: %s\n", argv[1]);
    MPI_Comm_free(&gcomm);
    return t_finish();
}
