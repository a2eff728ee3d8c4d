/*
 * t_plain -- plain HDF5 files (no subfiling config file) opened through
 * h5sf: read and written in place as the single files they are.
 *
 * Two plain files are made without h5sf: one by MPI-IO (every rank writes
 * its slab, collectively) and one by sec2 (rank 0 alone).  Each is opened
 * through h5sf read-write and read back against the pattern; every rank
 * then overwrites its slab and fills its part of a new, larger dataset (the
 * file grows), and the file is closed.  MPI-IO, the independent reference,
 * reads both datasets back.  No config file and no subfile may appear, and
 * no driver info block may be added (sec2 still opens the file).
 *
 * A subfiled file whose config file is gone is not plain: opening it fails
 * on every rank with an error naming the missing config file.
 *
 * Usage: mpiexec -n N t_plain DIR MODE
 *   MODE auto: fapl with H5Pset_driver_by_name("h5sf", "") and the
 *              communicator through H5Pset_mpi_params, h5sf registered by
 *              H5FD_h5sf_init() (ctest empties HDF5_PLUGIN_PATH, so
 *              HDF5 keeps h5sf's error messages)
 *   MODE ioc:  the same with "channel=ioc"
 *   MODE env:  h5sf from HDF5_DRIVER=h5sf in the environment (ctest sets
 *              it), loaded as a plugin; the opens through h5sf use a new
 *              fapl (h5sf by the environment) naming the communicator
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <mpi.h>
#include <hdf5.h>

#include "h5sf.h"
#include "h5sf_test.h"

#define PER_RANK 50021 /* odd, so slabs do not line up with anything */
#define GROWN    (3 * PER_RANK)

static const char *mode;

/* The fapl that opens through h5sf in this mode. */
static hid_t h5sf_fapl(void)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_mpi_params(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    if (!strcmp(mode, "env"))
        return fapl;
    CHECK(H5Pset_driver_by_name(fapl, "h5sf", !strcmp(mode, "ioc") ? "channel=ioc" : "") >= 0,
          "cannot select h5sf by name");
    return fapl;
}

static hid_t mpio_fapl(void)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    return fapl;
}

/* This rank's slab [*off, *off + *cnt) of a dataset of n elements. */
static void slab(hsize_t n, hsize_t *off, hsize_t *cnt)
{
    hsize_t per = n / (hsize_t)t_size;
    *off        = per * (hsize_t)t_rank;
    *cnt        = t_rank == t_size - 1 ? n - *off : per;
}

/* Write (wr) or read-and-check this rank's slab of dataset dset. */
static void xfer_slab(hid_t file, const char *dset, int gen, int wr, const char *what)
{
    hid_t   d  = H5Dopen2(file, dset, H5P_DEFAULT);
    hid_t   fs = H5Dget_space(d);
    hsize_t n, off, cnt;
    H5Sget_simple_extent_dims(fs, &n, NULL);
    slab(n, &off, &cnt);
    int  *buf = malloc(cnt * sizeof *buf);
    hid_t ms  = H5Screate_simple(1, &cnt, NULL);
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, &off, NULL, &cnt, NULL);
    if (wr) {
        for (hsize_t i = 0; i < cnt; i++)
            buf[i] = t_pat_int((uint64_t)gen, off + i);
        CHECK(H5Dwrite(d, H5T_NATIVE_INT, ms, fs, H5P_DEFAULT, buf) >= 0, "%s: write of %s failed", what, dset);
    }
    else {
        hsize_t bad = 0;
        CHECK(H5Dread(d, H5T_NATIVE_INT, ms, fs, H5P_DEFAULT, buf) >= 0, "%s: read of %s failed", what, dset);
        for (hsize_t i = 0; i < cnt; i++)
            bad += buf[i] != t_pat_int((uint64_t)gen, off + i);
        CHECK(bad == 0, "%s: %llu of %llu elements of %s wrong (generation %d expected)", what, (unsigned long long)bad,
              (unsigned long long)cnt, dset, gen);
    }
    free(buf);
    H5Sclose(ms);
    H5Sclose(fs);
    H5Dclose(d);
}

static void make_dset(hid_t file, const char *name, hsize_t n)
{
    hid_t fs = H5Screate_simple(1, &n, NULL);
    hid_t d  = H5Dcreate2(file, name, H5T_NATIVE_INT, fs, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(d >= 0, "cannot create dataset %s", name);
    H5Dclose(d);
    H5Sclose(fs);
}

/* A plain file by MPI-IO: every rank writes its slab. */
static void make_mpio(const char *path)
{
    hid_t fapl = mpio_fapl();
    hid_t f    = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    CHECK(f >= 0, "MPI-IO cannot create %s", path);
    make_dset(f, "d", (hsize_t)PER_RANK * (hsize_t)t_size);
    xfer_slab(f, "d", 0, 1, "MPI-IO create");
    H5Fclose(f);
    H5Pclose(fapl);
}

/* A plain file by sec2, rank 0 alone. */
static void make_sec2(const char *path)
{
    if (t_rank == 0) {
        hid_t   fapl = H5Pcreate(H5P_FILE_ACCESS);
        hsize_t n    = (hsize_t)PER_RANK * (hsize_t)t_size;
        H5Pset_fapl_sec2(fapl);
        hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
        CHECK(f >= 0, "sec2 cannot create %s", path);
        make_dset(f, "d", n);
        hid_t d   = H5Dopen2(f, "d", H5P_DEFAULT);
        int  *buf = malloc(n * sizeof *buf);
        for (hsize_t i = 0; i < n; i++)
            buf[i] = t_pat_int((uint64_t)0, i);
        CHECK(H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0, "sec2 write failed");
        free(buf);
        H5Dclose(d);
        H5Fclose(f);
        H5Pclose(fapl);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Through h5sf: read generation 0, write generation 1 and a new dataset. */
static void through_h5sf(const char *path)
{
    hid_t fapl = h5sf_fapl();
    hid_t f    = H5Fopen(path, H5F_ACC_RDWR, fapl);
    CHECK(f >= 0, "h5sf cannot open the plain file %s (%s)", path, mode);
    if (f >= 0) {
        hid_t got = H5Fget_access_plist(f);
        CHECK(H5Pget_driver(got) != H5FD_MPIO && H5Pget_driver(got) != H5FD_SEC2, "%s: not opened through h5sf", path);
        H5Pclose(got);
        xfer_slab(f, "d", 0, 0, "h5sf read");
        xfer_slab(f, "d", 1, 1, "h5sf overwrite");
        make_dset(f, "grown", (hsize_t)GROWN * (hsize_t)t_size);
        xfer_slab(f, "grown", 2, 1, "h5sf write of a new dataset");
        CHECK(H5Fclose(f) >= 0, "h5sf close of %s failed", path);
    }
    if (fapl != H5P_DEFAULT)
        H5Pclose(fapl);
    /* Read-only through h5sf too. */
    fapl = h5sf_fapl();
    f    = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    CHECK(f >= 0, "h5sf cannot open %s read-only", path);
    if (f >= 0) {
        xfer_slab(f, "grown", 2, 0, "h5sf read-only");
        H5Fclose(f);
    }
    if (fapl != H5P_DEFAULT)
        H5Pclose(fapl);
}

/* The reference reads: MPI-IO on every rank, sec2 on rank 0. */
static void check_reference(const char *path)
{
    hid_t fapl = mpio_fapl();
    hid_t f    = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    CHECK(f >= 0, "MPI-IO cannot reopen %s", path);
    if (f >= 0) {
        xfer_slab(f, "d", 1, 0, "MPI-IO reference");
        xfer_slab(f, "grown", 2, 0, "MPI-IO reference");
        H5Fclose(f);
    }
    H5Pclose(fapl);
    if (t_rank == 0) {
        hid_t s = H5Pcreate(H5P_FILE_ACCESS);
        H5Pset_fapl_sec2(s);
        f = H5Fopen(path, H5F_ACC_RDONLY, s);
        CHECK(f >= 0, "sec2 cannot open %s after h5sf wrote it (driver info added?)", path);
        if (f >= 0)
            H5Fclose(f);
        H5Pclose(s);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Nothing but the plain files (and the subfiled one's own files) in dir. */
static void check_no_subfiles(const char *dir)
{
    DIR           *dp = opendir(dir);
    struct dirent *de;
    while (dp && (de = readdir(dp)))
        if (strncmp(de->d_name, "sub.h5", 6))
            CHECK(!strstr(de->d_name, ".subfile_"), "h5sf made %s beside the plain files", de->d_name);
    if (dp)
        closedir(dp);
}

/* A subfiled file without its config file: an error naming it, everywhere. */
static void missing_config(const char *dir)
{
    char               path[4096], cfg[4200] = "", moved[4300];
    static t_errtext_t t;
    const char        *msg  = t.desc;
    hid_t              fapl = h5sf_fapl();
    snprintf(path, sizeof path, "%s/sub.h5", dir);
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    CHECK(f >= 0, "h5sf cannot create %s", path);
    make_dset(f, "d", (hsize_t)PER_RANK * (hsize_t)t_size);
    xfer_slab(f, "d", 5, 1, "subfiled write");
    H5Fclose(f);
    if (t_rank == 0) {
        DIR           *dp = opendir(dir);
        struct dirent *de;
        while (dp && (de = readdir(dp)))
            if (!strncmp(de->d_name, "sub.h5.subfile_", 15) && strstr(de->d_name, ".config"))
                snprintf(cfg, sizeof cfg, "%s/%s", dir, de->d_name);
        closedir(dp);
        snprintf(moved, sizeof moved, "%s.away", cfg);
        CHECK(cfg[0] && rename(cfg, moved) == 0, "cannot move the config file of %s away", path);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    H5E_BEGIN_TRY { f = H5Fopen(path, H5F_ACC_RDONLY, fapl); }
    H5E_END_TRY
    CHECK(f < 0, "a subfiled file without its config file opened as a plain file");
    if (f >= 0)
        H5Fclose(f);
    else {
        /* The reason is on h5sf's error stack entry, which HDF5 keeps
         * below its own "unable to open file" (read it before clearing). */
        H5E_BEGIN_TRY { f = H5Fopen(path, H5F_ACC_RDONLY, fapl); }
        H5E_END_TRY
        t_errors(&t);
        /* HDF5 empties the stack below H5VL_file_open when plugins are on
         * HDF5_PLUGIN_PATH (docs/user-guide.md): the env mode, which needs
         * the plugin, checks the failure only. */
        CHECK(!strcmp(mode, "env") || (strstr(msg, "config file") && strstr(msg, "does not exist")),
              "the error does not name the missing config file: \"%s\"", msg);

        H5Eclear2(H5E_DEFAULT);
    }
    if (t_rank == 0)
        CHECK(rename(moved, cfg) == 0, "cannot move the config file back");
    MPI_Barrier(MPI_COMM_WORLD);
    f = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    CHECK(f >= 0, "the subfiled file does not open with its config file back");
    if (f >= 0) {
        xfer_slab(f, "d", 5, 0, "subfiled read");
        H5Fclose(f);
    }
    if (fapl != H5P_DEFAULT)
        H5Pclose(fapl);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv, "t_plain");
    if (argc < 3) {
        if (t_rank == 0)
            fprintf(stderr, "usage: t_plain DIR auto|ioc|env\n");
        MPI_Finalize();
        return 2;
    }
    mode = argv[2];
    if (strcmp(mode, "env"))
        CHECK(H5FD_h5sf_init() >= 0, "cannot register h5sf");
    char mpio[4096], sec2[4096];
    snprintf(mpio, sizeof mpio, "%s/mpio.h5", argv[1]);
    snprintf(sec2, sizeof sec2, "%s/sec2.h5", argv[1]);

    if (t_rank == 0) /* a fresh directory: no files of an earlier run */
        t_fresh_dir(argv[1]);
    MPI_Barrier(MPI_COMM_WORLD);
    make_mpio(mpio);
    make_sec2(sec2);
    through_h5sf(mpio);
    through_h5sf(sec2);
    check_reference(mpio);
    check_reference(sec2);
    check_no_subfiles(argv[1]);
    missing_config(argv[1]);

    int all = t_verdict();
    MPI_Finalize();
    return all;
}
