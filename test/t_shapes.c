/*
 * t_shapes.c -- round trips the main round-trip test does not cover:
 * 1-, 2- and 3-D datasets in a group written with one H5Dwrite_multi,
 * a deflate-compressed chunked dataset (collective, as parallel filters
 * require), zero-size selections on some ranks, stripe sizes from 128 B to
 * 64 MiB; then the file is read back by rank 0 alone (write with all ranks,
 * read with one), and by every rank with H5Dread_multi, collective and
 * independent, each reading another rank's rows.  Values are a pure
 * function of the global index, so the check is independent of the code
 * under test.
 *
 * usage: t_shapes DIR
 */
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "h5sf_test.h"

#define NX 24                                                 /* rows per rank (first dimension) */
static const hsize_t TAIL[3][2] = {{1, 1}, {37, 1}, {9, 11}}; /* extra dims of 1-, 2-, 3-D */

/* Rows [rank*NX, (rank+1)*NX) of dataset d; rank 1 writes nothing (a
 * zero-size selection) when there are more than 2 ranks, its rows stay at
 * the fill value -1. */
static int writes_rows(int r) { return !(t_size > 2 && r == 1); }

/* Every rank reads the rows of the next rank (another rank's bytes) of
 * the datasets in one H5Dread_multi: collective, all four (the deflated one
 * included); independent, the three unfiltered ones. */
static void read_multi(const char *path, hid_t fapl, int coll)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, fapl), dx = H5Pcreate(H5P_DATASET_XFER);
    CHECK(f >= 0, "reopen %s for H5Dread_multi", path);
    if (f < 0) {
        H5Pclose(dx);
        return;
    }
    H5Pset_dxpl_mpio(dx, coll ? H5FD_MPIO_COLLECTIVE : H5FD_MPIO_INDEPENDENT);
    const int n = coll ? 4 : 3, from = (t_rank + 1) % t_size;
    hid_t     dset[4], mt[4], ms[4], fs[4];
    double   *got[4];
    void     *vbuf[4];
    hsize_t   rowsz[4];
    for (int d = 0; d < n; d++) {
        char name[48];
        snprintf(name, sizeof name, d == 3 ? "grp/deflate3d" : "grp/d%dd", d + 1);
        dset[d]         = H5Dopen2(f, name, H5P_DEFAULT);
        fs[d]           = H5Dget_space(dset[d]);
        hsize_t dims[3] = {1, 1, 1}, start[3] = {(hsize_t)from * NX, 0, 0};
        int     nd       = H5Sget_simple_extent_dims(fs[d], dims, NULL);
        hsize_t count[3] = {NX, dims[1], dims[2]};
        rowsz[d]         = (nd > 1 ? dims[1] : 1) * (nd > 2 ? dims[2] : 1);
        H5Sselect_hyperslab(fs[d], H5S_SELECT_SET, start, NULL, count, NULL);
        ms[d]   = H5Screate_simple(nd, count, NULL);
        mt[d]   = H5T_NATIVE_DOUBLE;
        got[d]  = calloc(NX * rowsz[d], sizeof(double));
        vbuf[d] = got[d];
    }
    CHECK(H5Dread_multi((size_t)n, dset, mt, ms, fs, dx, vbuf) >= 0, "H5Dread_multi (%s)",
          coll ? "collective" : "independent");
    for (int d = 0; d < n; d++) {
        for (hsize_t i = 0; i < NX * rowsz[d]; i++) {
            double want = writes_rows(from) ? (double)t_pat_int((uint64_t)d, (hsize_t)from * NX * rowsz[d] + i) : -1;
            if (got[d][i] != want) {
                CHECK(0, "H5Dread_multi (%s), dataset %d, element %llu of rank %d's rows: %g, want %g",
                      coll ? "collective" : "independent", d, (unsigned long long)i, from, got[d][i], want);
                break;
            }
        }
        free(got[d]);
        H5Sclose(ms[d]);
        H5Sclose(fs[d]);
        H5Dclose(dset[d]);
    }
    H5Pclose(dx);
    CHECK(H5Fclose(f) >= 0, "close after H5Dread_multi");
}

static void run(const char *dir, size_t stripe)
{
    char path[4096], cfg[128];
    snprintf(path, sizeof path, "%s/shapes_%zu.h5", dir, stripe);
    snprintf(cfg, sizeof cfg, "stripe_size=%zu,stripe_count=3", stripe);
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_mpi_params(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    if (H5Pset_driver_by_name(fapl, "h5sf", cfg) < 0)
        MPI_Abort(MPI_COMM_WORLD, 2);
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    CHECK(f >= 0, "create %s", path);
    hid_t g  = H5Gcreate2(f, "grp", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t dx = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(dx, H5FD_MPIO_COLLECTIVE);

    hid_t       dset[4], mt[4], ms[4], fs[4];
    double     *buf[4];
    const void *cbuf[4];
    for (int d = 0; d < 4; d++) {
        int     nd      = d < 3 ? d + 1 : 3;
        hsize_t dims[3] = {(hsize_t)NX * t_size, d < 3 ? TAIL[d][0] : 9, d < 3 ? TAIL[d][1] : 11};
        hsize_t rowsz; /* elements per row of the first dimension */
        if (nd == 1)
            rowsz = 1;
        else if (nd == 2)
            rowsz = dims[1];
        else
            rowsz = dims[1] * dims[2];
        hid_t  dcpl = H5Pcreate(H5P_DATASET_CREATE);
        double fill = -1;
        H5Pset_fill_value(dcpl, H5T_NATIVE_DOUBLE, &fill);
        if (d == 3) { /* compressed, chunked */
            hsize_t chunk[3] = {5, 4, 11};
            H5Pset_chunk(dcpl, 3, chunk);
            H5Pset_deflate(dcpl, 6);
        }
        char name[32];
        snprintf(name, sizeof name, d == 3 ? "deflate3d" : "d%dd", nd);
        fs[d]   = H5Screate_simple(nd, dims, NULL);
        dset[d] = H5Dcreate2(g, name, H5T_NATIVE_DOUBLE, fs[d], H5P_DEFAULT, dcpl, H5P_DEFAULT);
        H5Pclose(dcpl);
        hsize_t start[3] = {(hsize_t)t_rank * NX, 0, 0}, count[3] = {NX, dims[1], dims[2]};
        ms[d]  = H5Screate_simple(nd, count, NULL);
        buf[d] = malloc(NX * rowsz * sizeof(double));
        for (hsize_t i = 0; i < NX * rowsz; i++)
            buf[d][i] = (double)t_pat_int((uint64_t)d, (hsize_t)t_rank * NX * rowsz + i);
        if (writes_rows(t_rank))
            H5Sselect_hyperslab(fs[d], H5S_SELECT_SET, start, NULL, count, NULL);
        else {
            H5Sselect_none(fs[d]);
            H5Sselect_none(ms[d]);
        }
        mt[d]   = H5T_NATIVE_DOUBLE;
        cbuf[d] = buf[d];
    }
    CHECK(H5Dwrite_multi(3, dset, mt, ms, fs, dx, cbuf) >= 0, "H5Dwrite_multi (stripe %zu)", stripe);
    CHECK(H5Dwrite(dset[3], H5T_NATIVE_DOUBLE, ms[3], fs[3], dx, buf[3]) >= 0, "deflate write (stripe %zu)", stripe);
    for (int d = 0; d < 4; d++) {
        H5Dclose(dset[d]);
        H5Sclose(ms[d]);
        H5Sclose(fs[d]);
    }
    H5Gclose(g);
    CHECK(H5Fclose(f) >= 0, "close (stripe %zu)", stripe);
    MPI_Barrier(MPI_COMM_WORLD);

    /* Rank 0 alone reads everything back. */
    if (t_rank == 0) {
        hid_t fapl1 = H5Pcreate(H5P_FILE_ACCESS);
        H5Pset_mpi_params(fapl1, MPI_COMM_SELF, MPI_INFO_NULL);
        H5Pset_driver_by_name(fapl1, "h5sf", NULL);
        f = H5Fopen(path, H5F_ACC_RDONLY, fapl1);
        CHECK(f >= 0, "reopen %s with one rank", path);
        for (int d = 0; d < 4 && f >= 0; d++) {
            char name[48];
            snprintf(name, sizeof name, d == 3 ? "grp/deflate3d" : "grp/d%dd", d + 1);
            hid_t    ds  = H5Dopen2(f, name, H5P_DEFAULT);
            hid_t    sp  = H5Dget_space(ds);
            hssize_t n   = H5Sget_simple_extent_npoints(sp);
            double  *all = malloc((size_t)n * sizeof *all);
            CHECK(H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, all) >= 0, "read %s", name);
            hsize_t per = (hsize_t)n / ((hsize_t)NX * t_size) * NX; /* elements per rank */
            for (hsize_t i = 0; i < (hsize_t)n; i++) {
                int    r    = (int)(i / per);
                double want = writes_rows(r) ? (double)t_pat_int((uint64_t)d, i) : -1;
                if (all[i] != want) {
                    CHECK(0, "stripe %zu, %s[%llu] = %g, want %g", stripe, name, (unsigned long long)i, all[i], want);
                    break;
                }
            }
            free(all);
            H5Sclose(sp);
            H5Dclose(ds);
        }
        if (f >= 0)
            H5Fclose(f);
        H5Pclose(fapl1);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    read_multi(path, fapl, 1);
    read_multi(path, fapl, 0);
    for (int d = 0; d < 4; d++)
        free(buf[d]);
    H5Pclose(dx);
    H5Pclose(fapl);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv, "t_shapes");
    if (argc < 2)
        MPI_Abort(MPI_COMM_WORLD, 2);
    if (t_rank == 0)
        mkdir(argv[1], 0755);
    MPI_Barrier(MPI_COMM_WORLD);
    const size_t stripes[] = {128, 4096, (size_t)64 << 20};
    for (size_t i = 0; i < 3; i++)
        run(argv[1], stripes[i]);
    return t_finish();
}
