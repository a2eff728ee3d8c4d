/*
 * t_plaindelete.c -- H5Fdelete and H5FD_h5sf_get_files on files that open
 * through h5sf as plain HDF5 files, and on subfiled stubs that lost their
 * config file.
 *
 *   - a plain file written by sec2 (superblock version 0, and version 3
 *     with the latest format): H5FD_h5sf_get_files lists the file alone;
 *     H5Fdelete through h5sf succeeds on every rank and removes it;
 *   - a subfiled file (h5sf, superblock version 0 with its driver-info
 *     block in the stub, and version 3 whose objects are in the subfiles)
 *     whose config file was removed: H5FD_h5sf_get_files and H5Fdelete
 *     fail, on every rank, naming the missing config file, and nothing
 *     is removed;
 *   - the same subfiled file with its config file deletes completely.
 *
 * usage: t_plaindelete DIR
 */
#include <mpi.h>
#include <hdf5.h>
#include "h5sf.h"
#include "h5sf_test.h"

static char dir[2048];

/* Rank 0 writes a small plain file with sec2; latest: version 3 superblock. */
static void make_plain(const char *path, bool latest)
{
    if (t_rank == 0) {
        hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
        H5Pset_fapl_sec2(fapl);
        if (latest)
            H5Pset_libver_bounds(fapl, H5F_LIBVER_LATEST, H5F_LIBVER_LATEST);
        hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
        CHECK(f >= 0, "sec2 cannot create %s", path);
        hsize_t n = 1000;
        hid_t   s = H5Screate_simple(1, &n, NULL);
        hid_t   d = H5Dcreate2(f, "d", H5T_NATIVE_INT, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        int     v[1000];
        for (int i = 0; i < 1000; i++)
            v[i] = i;
        CHECK(H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0, "sec2 write");
        H5Dclose(d);
        H5Sclose(s);
        H5Fclose(f);
        H5Pclose(fapl);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Every rank writes a subfiled file; latest: version 3 superblock. */
static void make_subfiled(const char *path, bool latest)
{
    hid_t fapl = t_fapl("stripe_size=4096,stripe_count=3");
    if (latest)
        H5Pset_libver_bounds(fapl, H5F_LIBVER_LATEST, H5F_LIBVER_LATEST);
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    CHECK(f >= 0, "h5sf cannot create %s", path);
    hid_t         d = t_dset_create(f, "d", 3 * 4096);
    unsigned char b[3 * 4096];
    t_fill(b, sizeof b, 5, 0);
    if (t_rank == 0)
        CHECK(t_dset_io(d, 1, 0, sizeof b, b, H5P_DEFAULT, NULL) >= 0, "write");
    H5Dclose(d);
    H5Fclose(f);
    H5Pclose(fapl);
    MPI_Barrier(MPI_COMM_WORLD);
}

static bool exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

static void config_path(const char *stub, const char *base, char *out, size_t n)
{
    struct stat st;
    CHECK(stat(stub, &st) == 0, "stat %s", stub);
    snprintf(out, n, "%s/%s.subfile_%llu.config", dir, base, (unsigned long long)st.st_ino);
}

static void plain_case(const char *base, bool latest)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, base);
    t_step(60, "plain %s", base);
    make_plain(path, latest);
    char **files = NULL;
    size_t n     = 0;
    if (t_rank == 0) {
        herr_t r = H5FD_h5sf_get_files(path, NULL, &files, &n);
        CHECK(r >= 0 && n == 1 && !strcmp(files[0], path), "H5FD_h5sf_get_files of plain %s: %s, %zu files", path,
              r < 0 ? "failed" : "ok", n);
        if (r < 0) {
            t_errtext_t t;
            t_errors(&t);
            fprintf(stderr, "%s", t.buf);
        }
        H5FD_h5sf_free_files(files, n);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    hid_t  fapl = t_fapl("");
    herr_t r    = H5Fdelete(path, fapl);
    if (r < 0) {
        t_errtext_t t;
        t_errors(&t);
        CHECK(0, "H5Fdelete of plain %s through h5sf failed:\n%s", path, t.buf);
    }
    H5Pclose(fapl);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(!exists(path), "%s is still there after H5Fdelete", path);
}

static void stub_without_config(const char *base, bool latest)
{
    char path[4096], cfg[4200];
    snprintf(path, sizeof path, "%s/%s", dir, base);
    t_step(60, "subfiled %s without its config file", base);
    make_subfiled(path, latest);
    config_path(path, base, cfg, sizeof cfg);
    CHECK(exists(cfg), "no config file %s after create", cfg);
    MPI_Barrier(MPI_COMM_WORLD); /* every rank looked before it goes */
    char moved[4300];
    snprintf(moved, sizeof moved, "%s.away", cfg);
    if (t_rank == 0 && rename(cfg, moved) < 0)
        t_die_io("rename", cfg);
    MPI_Barrier(MPI_COMM_WORLD);
    t_snap_t before, after;
    t_snapshot(dir, base, &before);

    char **files = NULL;
    size_t n     = 0;
    if (t_rank == 0) {
        herr_t r = H5FD_h5sf_get_files(path, NULL, &files, &n);
        CHECK(r < 0, "H5FD_h5sf_get_files of a subfiled stub without its config file succeeded (%zu files)", n);
        if (r < 0) {
            t_errtext_t t;
            t_errors(&t);
            CHECK(strstr(t.buf, cfg) != NULL, "H5FD_h5sf_get_files's error does not name the missing %s:\n%s", cfg,
                  t.buf);
        }
        else
            H5FD_h5sf_free_files(files, n);
    }
    hid_t  fapl = t_fapl("");
    herr_t r    = H5Fdelete(path, fapl);
    CHECK(r < 0, "H5Fdelete of a subfiled stub without its config file succeeded");
    if (r < 0) {
        t_errtext_t t;
        t_errors(&t);
        CHECK(strstr(t.buf, cfg) != NULL, "H5Fdelete's error does not name the missing %s:\n%s", cfg, t.buf);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    t_snapshot(dir, base, &after);
    char why[600];
    CHECK(!t_snap_diff(&before, &after, 0, why, sizeof why), "the refused delete changed the files: %s", why);
    MPI_Barrier(MPI_COMM_WORLD); /* every rank looked before the config file comes back */

    /* With its config file back it deletes completely. */
    if (t_rank == 0 && rename(moved, cfg) < 0)
        t_die_io("rename", moved);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(H5Fdelete(path, fapl) >= 0, "H5Fdelete of %s with its config file failed", path);
    H5Pclose(fapl);
    MPI_Barrier(MPI_COMM_WORLD);
    t_snapshot(dir, base, &after);
    CHECK(after.n == 0, "%d files of %s left after H5Fdelete (first %s)", after.n, base,
          after.n ? after.f[0].name : "");
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv, "t_plaindelete");
    if (argc != 2) {
        fprintf(stderr, "usage: t_plaindelete DIR\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    snprintf(dir, sizeof dir, "%s", argv[1]);
    t_mkdir_world(dir);
    plain_case("plain_v0.h5", false);
    plain_case("plain_v3.h5", true);
    stub_without_config("sub_v0.h5", false);
    stub_without_config("sub_v3.h5", true);
    return t_finish();
}
