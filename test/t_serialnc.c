/*
 * t_serialnc.c -- what netCDF-4's serial tests do to a file, without
 * netCDF: each step is a small HDF5 program run on a serial h5sf file (a
 * fapl that names no communicator: H5P_DEFAULT under HDF5_DRIVER=h5sf)
 * and, as the reference, on sec2.  Under parallel HDF5's rules (which h5sf
 * applied to such files until they became serial) each failed:
 *
 *   huge3d   netCDF's tst_chunks2: a chunked 3-D float variable of
 *            1804289383 x 846930886 x 1681692777 with netCDF's default
 *            chunks (211 x 99 x 197) and a fill value.  Parallel HDF5
 *            allocates every chunk at creation (early allocation): the
 *            subfile grew past 16 TiB, the write failed with EFBIG, and
 *            HDF5 crashed in its B-tree cache at the next close (HDF5's
 *            MPI-IO driver fails the same way).  Serially nothing is
 *            allocated until written.
 *   huge2d   netCDF's tst_vars2 ("too-large chunks"): 2147483644 x 1000
 *            uint64 in 5 x 5 chunks.  Early allocation wrote fill values
 *            for 8.6e10 chunks (over 100 s, gigabytes); serially the
 *            dataset takes no space.
 *   virtual  netCDF's tst_virtual_datasets: a virtual dataset whose source
 *            is another file; parallel HDF5 refuses to read it ("parallel
 *            reads not supported on virtual datasets").
 *
 * Each step checks its data against the values written (or the fill
 * value), H5Dget_storage_size against sec2's, and finishes under a
 * watchdog.  RLIMIT_FSIZE caps every file this process writes at 1 GiB,
 * so a regression fails with EFBIG at once instead of filling the disk.
 * Every rank works on files of its own.
 *
 * And one that HDF5's own page_buffer test found once h5sf files were
 * serial (HDF5 runs no page buffer on MPI files):
 *
 *   pagebuf  paged aggregation, 512-byte pages, a 4-page buffer: metadata
 *            pages evicted while the file is written must read back.
 *
 * usage: HDF5_DRIVER=h5sf mpiexec -n N t_serialnc DIR huge3d|huge2d|virtual|pagebuf
 */
#include <signal.h>
#include <sys/resource.h>
#include <mpi.h>
#include <hdf5.h>
#include "h5sf_test.h"

static char g_dir[4096];

/* A file of this rank for step `what` and driver `drv`. */
static void path_of(char *out, size_t n, const char *what, const char *drv)
{
    snprintf(out, n, "%s/%s_%s_%d.h5", g_dir, what, drv, t_rank);
}

static hid_t fapl_of(const char *drv)
{
    if (!strcmp(drv, "h5sf"))
        return H5Pcopy(H5P_FILE_ACCESS_DEFAULT); /* HDF5_DRIVER: h5sf, no communicator */
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_sec2(fapl);
    return fapl;
}

/* netCDF's file access list and dataset creation list (hdf5create.c,
 * nc4hdf.c): weak close, libver bounds, no time tracking, a fill value. */
static hid_t nc_fapl(const char *drv)
{
    hid_t fapl = fapl_of(drv);
    H5Pset_fclose_degree(fapl, H5F_CLOSE_WEAK);
    H5Pset_libver_bounds(fapl, H5F_LIBVER_EARLIEST, H5F_LIBVER_LATEST);
    return fapl;
}

static void remove_files(const char *path, const char *drv)
{
    if (!strcmp(drv, "h5sf")) {
        hid_t fapl = fapl_of(drv);
        H5E_BEGIN_TRY { H5Fdelete(path, fapl); }
        H5E_END_TRY
        H5Pclose(fapl);
    }
    unlink(path);
}

/* ---- huge3d ------------------------------------------------------------ */

static hsize_t huge3d(const char *drv)
{
    char path[4200];
    path_of(path, sizeof path, "huge3d", drv);
    hsize_t dims[3] = {1804289383, 846930886, 1681692777}, chunk[3] = {211, 99, 197}, n = 100;
    hsize_t storage = (hsize_t)-1;
    float   fill    = 9.96921e+36f;
    int     w[100], r[100];
    hid_t   fapl = nc_fapl(drv), dcpl = H5Pcreate(H5P_DATASET_CREATE), sp = H5Screate_simple(3, dims, dims);
    hid_t   sp1 = H5Screate_simple(1, &n, NULL);
    H5Pset_obj_track_times(dcpl, 0);
    H5Pset_fill_value(dcpl, H5T_NATIVE_FLOAT, &fill);
    H5Pset_chunk(dcpl, 3, chunk);
    for (int i = 0; i < 100; i++)
        w[i] = i * 7 - 3;

    /* As tst_chunks2: define, close, reopen read-write, close; HDF5
     * cannot count this dataspace's elements, so no transfer touches it,
     * and a small dataset beside it carries data. */
    t_step(60, "huge3d (%s): create 1804289383 x 846930886 x 1681692777 floats", drv);
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl), d = -1;
    CHECK(f >= 0, "huge3d (%s): H5Fcreate failed", drv);
    if (f >= 0) {
        d = H5Dcreate2(f, "v", H5T_IEEE_F32LE, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        CHECK(d >= 0, "huge3d (%s): H5Dcreate2 failed", drv);
        if (d >= 0) {
            storage = H5Dget_storage_size(d);
            H5Dclose(d);
        }
        d = H5Dcreate2(f, "w", H5T_NATIVE_INT, sp1, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        CHECK(d >= 0 && H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, w) >= 0,
              "huge3d (%s): writing the small dataset failed", drv);
        if (d >= 0)
            H5Dclose(d);
        CHECK(H5Fclose(f) >= 0, "huge3d (%s): H5Fclose failed", drv);
    }
    t_step(60, "huge3d (%s): reopen read-write, close", drv);
    f = H5Fopen(path, H5F_ACC_RDWR, fapl);
    CHECK(f >= 0, "huge3d (%s): reopen failed", drv);
    if (f >= 0) {
        d = H5Dopen2(f, "v", H5P_DEFAULT);
        CHECK(d >= 0, "huge3d (%s): the dataset does not open", drv);
        if (d >= 0)
            H5Dclose(d);
        d = H5Dopen2(f, "w", H5P_DEFAULT);
        memset(r, 0, sizeof r);
        CHECK(d >= 0 && H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, r) >= 0 && !memcmp(r, w, sizeof w),
              "huge3d (%s): the small dataset does not read back", drv);
        if (d >= 0)
            H5Dclose(d);
        CHECK(H5Fclose(f) >= 0, "huge3d (%s): H5Fclose after the reopen failed", drv);
    }
    remove_files(path, drv);
    H5Sclose(sp1);
    H5Sclose(sp);
    H5Pclose(dcpl);
    H5Pclose(fapl);
    return storage;
}

/* ---- huge2d ------------------------------------------------------------ */

static hsize_t huge2d(const char *drv)
{
    char path[4200];
    path_of(path, sizeof path, "huge2d", drv);
    hsize_t  dims[2] = {2147483644, 1000}, chunk[2] = {5, 5}, storage = (hsize_t)-1;
    uint64_t fill = 18446744073709551614ull;
    hid_t    fapl = nc_fapl(drv), dcpl = H5Pcreate(H5P_DATASET_CREATE), sp = H5Screate_simple(2, dims, dims);
    H5Pset_obj_track_times(dcpl, 0);
    H5Pset_fill_value(dcpl, H5T_NATIVE_UINT64, &fill);
    H5Pset_chunk(dcpl, 2, chunk);
    t_step(60, "huge2d (%s): create 2147483644 x 1000 uint64 in 5 x 5 chunks", drv);
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl), d;
    CHECK(f >= 0, "huge2d (%s): H5Fcreate failed", drv);
    if (f >= 0) {
        d = H5Dcreate2(f, "ed", H5T_STD_U64LE, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        CHECK(d >= 0, "huge2d (%s): H5Dcreate2 failed", drv);
        if (d >= 0) {
            storage = H5Dget_storage_size(d);
            H5Dclose(d);
        }
        CHECK(H5Fclose(f) >= 0, "huge2d (%s): H5Fclose failed", drv);
    }
    t_step(60, "huge2d (%s): reopen", drv);
    f = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    CHECK(f >= 0, "huge2d (%s): reopen failed", drv);
    if (f >= 0) {
        d              = H5Dopen2(f, "ed", H5P_DEFAULT);
        uint64_t v     = 0;
        hsize_t  at[2] = {2147483643, 999}, one = 1;
        hid_t    fs = H5Dget_space(d), ms = H5Screate_simple(1, &one, NULL);
        H5Sselect_hyperslab(fs, H5S_SELECT_SET, at, NULL, (hsize_t[2]){1, 1}, NULL);
        CHECK(d >= 0 && H5Dread(d, H5T_NATIVE_UINT64, ms, fs, H5P_DEFAULT, &v) >= 0 && v == fill,
              "huge2d (%s): the last element reads %llu, not the fill value", drv, (unsigned long long)v);
        H5Sclose(ms);
        H5Sclose(fs);
        H5Dclose(d);
        H5Fclose(f);
    }
    remove_files(path, drv);
    H5Sclose(sp);
    H5Pclose(dcpl);
    H5Pclose(fapl);
    return storage;
}

/* ---- pagebuf ----------------------------------------------------------- */

/* HDF5 runs its page buffer on serial files only.  With paged aggregation
 * (512-byte pages) and a buffer of 4 pages, metadata pages are evicted to
 * the file while it is written and read back later: a page the driver's
 * EOF did not cover came back as zeros (the EOF must follow the writes, as
 * sec2's does), and the file did not reopen ("bad object header version
 * number"). */
static void pagebuf(const char *drv)
{
    char    path[4200];
    hsize_t dims[2] = {100, 20};
    int     w[2000], r[2000];
    path_of(path, sizeof path, "pagebuf", drv);
    hid_t fapl = fapl_of(drv), fcpl = H5Pcreate(H5P_FILE_CREATE);
    H5Pset_file_space_strategy(fcpl, H5F_FSPACE_STRATEGY_PAGE, 0, 1);
    H5Pset_file_space_page_size(fcpl, 512);
    H5Pset_page_buffer_size(fapl, 4 * 512, 0, 0);
    for (int i = 0; i < 2000; i++)
        w[i] = i * 3 + t_rank;
    t_step(60, "pagebuf (%s): write 8 datasets through a 4-page buffer", drv);
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, fcpl, fapl);
    CHECK(f >= 0, "pagebuf (%s): H5Fcreate failed", drv);
    if (f >= 0) {
        hid_t g = H5Gcreate2(f, "GROUP", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), sp = H5Screate_simple(2, dims, NULL);
        for (int k = 0; k < 8; k++) {
            char n[16];
            snprintf(n, sizeof n, "dset%d", k);
            hid_t d = H5Dcreate2(g, n, H5T_NATIVE_INT, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
            w[0]    = k;
            CHECK(d >= 0 && H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, w) >= 0,
                  "pagebuf (%s): writing %s failed", drv, n);
            if (d >= 0)
                H5Dclose(d);
        }
        H5Sclose(sp);
        H5Gclose(g);
        CHECK(H5Fclose(f) >= 0, "pagebuf (%s): H5Fclose failed", drv);
    }
    t_step(60, "pagebuf (%s): read back through the page buffer", drv);
    f = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    CHECK(f >= 0, "pagebuf (%s): reopen failed", drv);
    hid_t g = -1;
    if (f >= 0) {
        H5E_BEGIN_TRY { g = H5Gopen2(f, "GROUP", H5P_DEFAULT); }
        H5E_END_TRY
        CHECK(g >= 0, "pagebuf (%s): the group does not open (its object header is lost)", drv);
    }
    for (int k = 0; k < 8 && g >= 0; k++) {
        char n[16];
        snprintf(n, sizeof n, "dset%d", k);
        hid_t d = -1;
        H5E_BEGIN_TRY { d = H5Dopen2(g, n, H5P_DEFAULT); }
        H5E_END_TRY
        memset(r, 0, sizeof r);
        w[0] = k;
        CHECK(d >= 0 && H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, r) >= 0 && !memcmp(r, w, sizeof w),
              "pagebuf (%s): %s does not read back", drv, n);
        if (d >= 0)
            H5Dclose(d);
    }
    if (g >= 0)
        H5Gclose(g);
    if (f >= 0)
        H5Fclose(f);
    remove_files(path, drv);
    H5Pclose(fcpl);
    H5Pclose(fapl);
}

/* ---- virtual ----------------------------------------------------------- */

static void virtual(const char *drv)
{
    char    src[4200], vds[4200], srcname[300];
    hsize_t n    = 5;
    int     w[5] = {0, 1, 2, 3, 4}, r[5] = {-1, -1, -1, -1, -1};
    path_of(src, sizeof src, "vsrc", drv);
    path_of(vds, sizeof vds, "vds", drv);
    snprintf(srcname, sizeof srcname, "vsrc_%s_%d.h5", drv, t_rank); /* relative to the VDS file */
    hid_t fapl = nc_fapl(drv), sp = H5Screate_simple(1, &n, NULL);
    t_step(60, "virtual (%s): source file", drv);
    hid_t f = H5Fcreate(src, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    CHECK(f >= 0, "virtual (%s): H5Fcreate of the source failed", drv);
    if (f >= 0) {
        hid_t d = H5Dcreate2(f, "v", H5T_NATIVE_INT, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        CHECK(d >= 0 && H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, w) >= 0,
              "virtual (%s): writing the source failed", drv);
        H5Dclose(d);
        H5Fclose(f);
    }
    t_step(60, "virtual (%s): the virtual dataset", drv);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_virtual(dcpl, sp, srcname, "/v", sp);
    f = H5Fcreate(vds, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    CHECK(f >= 0, "virtual (%s): H5Fcreate of the VDS file failed", drv);
    if (f >= 0) {
        hid_t d = H5Dcreate2(f, "v", H5T_NATIVE_INT, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        CHECK(d >= 0, "virtual (%s): H5Dcreate2 of the virtual dataset failed", drv);
        H5Dclose(d);
        H5Fclose(f);
    }
    t_step(60, "virtual (%s): read through the virtual dataset", drv);
    f = H5Fopen(vds, H5F_ACC_RDONLY, fapl);
    CHECK(f >= 0, "virtual (%s): reopen of the VDS file failed", drv);
    if (f >= 0) {
        hid_t       d  = H5Dopen2(f, "v", H5P_DEFAULT);
        t_errtext_t e  = {.len = 0};
        herr_t      rr = d < 0 ? -1 : H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, r);
        if (rr < 0)
            t_errors(&e);
        CHECK(rr >= 0, "virtual (%s): reading the virtual dataset failed:\n%s", drv, e.buf);
        CHECK(rr < 0 || !memcmp(r, w, sizeof w), "virtual (%s): read %d %d %d %d %d, wrote 0 1 2 3 4", drv, r[0], r[1],
              r[2], r[3], r[4]);
        if (d >= 0)
            H5Dclose(d);
        H5Fclose(f);
    }
    remove_files(vds, drv);
    remove_files(src, drv);
    H5Pclose(dcpl);
    H5Sclose(sp);
    H5Pclose(fapl);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv, "t_serialnc");
    const char *step = argc == 3 ? argv[2] : "";
    if ((strcmp(step, "huge3d") && strcmp(step, "huge2d") && strcmp(step, "virtual") && strcmp(step, "pagebuf")) ||
        !getenv("HDF5_DRIVER") || strcmp(getenv("HDF5_DRIVER"), "h5sf")) {
        if (t_rank == 0)
            fprintf(stderr, "usage: HDF5_DRIVER=h5sf mpiexec -n N t_serialnc DIR huge3d|huge2d|virtual|pagebuf\n");
        MPI_Finalize();
        return 2;
    }
    snprintf(g_dir, sizeof g_dir, "%s", argv[1]);
    t_mkdir_world(g_dir);
    /* A regression fails at 1 GiB (EFBIG) instead of writing terabytes. */
    struct rlimit lim = {1u << 30, 1u << 30};
    signal(SIGXFSZ, SIG_IGN);
    if (setrlimit(RLIMIT_FSIZE, &lim) < 0)
        t_die_io("limit the file size of", "this process");

    if (!strcmp(step, "huge3d")) {
        hsize_t s = huge3d("sec2"), h = huge3d("h5sf");
        CHECK(h == s, "huge3d: storage after H5Dcreate2 %llu bytes, sec2's %llu", (unsigned long long)h,
              (unsigned long long)s);
    }
    else if (!strcmp(step, "huge2d")) {
        hsize_t s = huge2d("sec2"), h = huge2d("h5sf");
        CHECK(h == s, "huge2d: storage after H5Dcreate2 %llu bytes, sec2's %llu", (unsigned long long)h,
              (unsigned long long)s);
    }
    else if (!strcmp(step, "pagebuf")) {
        pagebuf("sec2");
        pagebuf("h5sf");
    }
    else {
        virtual("sec2");
        virtual("h5sf");
    }
    return t_finish();
}
