/*
 * t_comm.c -- h5sf's collective steps run on the communicator the caller gave.
 *
 *   dup      H5Pset_fapl_h5sf with a communicator and info the program frees
 *            right after the call (legal with H5Pset_fapl_mpio); a copy of
 *            that fapl outlives the original; create, write, reopen, read.
 *   self     IOR's delete step: every rank writes one shared file, then rank
 *            0 alone deletes it with H5Pset_mpi_params(MPI_COMM_SELF) and the
 *            h5sf driver selected by name, as libh5sf_preload.so does for
 *            H5Pset_fapl_mpio(fapl, MPI_COMM_SELF, ...) + H5Fdelete.
 *   split    MPI_Comm_split into two groups; each creates, writes, reads and
 *            H5Fdelete-s its own file on its own communicator.
 *
 * After each delete the directory must hold nothing that starts with the
 * file's name (stub, .config, every subfile), checked with readdir, not h5sf.
 * Data is checked against a known pattern.  usage: t_comm DIR [CASE...]
 * (default: all cases).
 */
#include <dirent.h>
#include <stdbool.h>
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "h5sf.h"
#include "h5sf_test.h"

#define N 40000 /* ints per rank: 160 KB, several 64 KiB stripes */


/* Every rank of comm writes its N ints to dataset "v" of path. */
static int write_file(const char *path, hid_t fapl, MPI_Comm comm)
{
    int r, n;
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &n);
    hsize_t dims = (hsize_t)N * n, start = (hsize_t)N * r, count = N;
    int    *buf = malloc(N * sizeof *buf);
    for (int i = 0; i < N; i++)
        buf[i] = t_pat_int((uint64_t)r, (uint64_t)i);
    herr_t rc = -1;
    hid_t  f  = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    if (f >= 0) {
        rc = t_write_block(f, "v", dims, start, count, buf, H5P_DEFAULT);
        if (H5Fclose(f) < 0)
            rc = -1;
    }
    free(buf);
    return rc < 0 ? -1 : 0;
}

/* Every rank of comm reads the whole dataset and checks every value. */
static int check_file(const char *path, hid_t fapl, MPI_Comm comm)
{
    int n, bad = 0;
    MPI_Comm_size(comm, &n);
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    if (f < 0)
        return -1;
    hid_t d   = H5Dopen2(f, "v", H5P_DEFAULT);
    int  *buf = malloc((size_t)N * n * sizeof *buf);
    if (d < 0 || H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0)
        bad = 1;
    for (int r = 0; r < n && !bad; r++)
        for (int i = 0; i < N; i++)
            if (buf[(size_t)r * N + i] != t_pat_int((uint64_t)r, (uint64_t)i)) {
                fprintf(stderr, "rank %d: %s: element %d of rank %d is %d, expected %d\n", t_rank, path, i, r,
                        buf[(size_t)r * N + i], t_pat_int((uint64_t)r, (uint64_t)i));
                bad = 1;
                break;
            }
    free(buf);
    if (d >= 0)
        H5Dclose(d);
    return (H5Fclose(f) < 0 || bad) ? -1 : 0;
}

/* Names in dir that start with base (the stub's own name). */
static int leftovers(const char *dir, const char *base)
{
    int            n  = 0;
    DIR           *dp = opendir(dir);
    struct dirent *de;
    if (!dp)
        return -1;
    while ((de = readdir(dp)))
        if (!strncmp(de->d_name, base, strlen(base))) {
            fprintf(stderr, "rank %d: left behind: %s/%s\n", t_rank, dir, de->d_name);
            n++;
        }
    closedir(dp);
    return n;
}

/* A fapl the way the preload shim builds it from H5Pset_fapl_mpio. */
static hid_t byname_fapl(MPI_Comm comm, const char *config)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (H5Pset_mpi_params(fapl, comm, MPI_INFO_NULL) < 0 || H5Pset_driver_by_name(fapl, "h5sf", config) < 0) {
        H5Pclose(fapl);
        return H5I_INVALID_HID;
    }
    return fapl;
}

static void case_dup(const char *dir)
{
    char               path[4096];
    MPI_Comm           comm;
    MPI_Info           info;
    H5FD_h5sf_config_t cfg;

    snprintf(path, sizeof path, "%s/comm_dup.h5", dir);
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Info_create(&info);
    MPI_Info_set(info, "h5sf_test_key", "1");
    H5FD_h5sf_config_init(&cfg);
    cfg.stripe_size  = 65536;
    cfg.stripe_count = t_size > 1 ? 2 : 1;
    cfg.comm         = comm;
    cfg.info         = info;
    hid_t fapl       = H5Pcreate(H5P_FILE_ACCESS);
    CHECK(H5Pset_fapl_h5sf(fapl, &cfg) >= 0, "H5Pset_fapl_h5sf failed");
    /* Legal after H5Pset_fapl_mpio, so legal here. */
    MPI_Comm_free(&comm);
    MPI_Info_free(&info);
    hid_t copy = H5Pcopy(fapl);
    CHECK(copy >= 0, "H5Pcopy failed");
    H5Pclose(fapl);

    H5FD_h5sf_config_t got;
    CHECK(H5Pget_fapl_h5sf(copy, &got) >= 0, "H5Pget_fapl_h5sf failed");
    if (got.comm != MPI_COMM_NULL) {
        int cmp = MPI_UNEQUAL;
        MPI_Comm_compare(got.comm, MPI_COMM_WORLD, &cmp);
        CHECK(cmp == MPI_CONGRUENT, "H5Pget_fapl_h5sf: communicator not congruent with the one set (%d)", cmp);
        MPI_Comm_free(&got.comm);
    }
    else
        CHECK(0, "H5Pget_fapl_h5sf returned MPI_COMM_NULL");
    if (got.info != MPI_INFO_NULL)
        MPI_Info_free(&got.info);

    CHECK(write_file(path, copy, MPI_COMM_WORLD) == 0, "write through a fapl whose comm was freed failed");
    CHECK(check_file(path, copy, MPI_COMM_WORLD) == 0, "read back failed");
    CHECK(H5Fdelete(path, copy) >= 0, "H5Fdelete failed");
    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == 0)
        CHECK(leftovers(dir, "comm_dup.h5") == 0, "comm_dup.h5: files left after H5Fdelete");
    H5Pclose(copy);
}

static void case_self(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/comm_self.h5", dir);
    hid_t fapl = byname_fapl(MPI_COMM_WORLD, "stripe_size=65536,stripe_count=3");
    CHECK(fapl >= 0, "fapl");
    CHECK(write_file(path, fapl, MPI_COMM_WORLD) == 0, "write failed");
    H5Pclose(fapl);
    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == 0) {
        /* The other ranks are not in this call: a delete that waits for them
         * hangs here (the test's timeout then fails it). */
        hid_t self = byname_fapl(MPI_COMM_SELF, NULL);
        CHECK(self >= 0, "self fapl");
        CHECK(H5Fdelete(path, self) >= 0, "H5Fdelete on MPI_COMM_SELF failed");
        H5Pclose(self);
        CHECK(leftovers(dir, "comm_self.h5") == 0, "comm_self.h5: files left after H5Fdelete");
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

static void case_split(const char *dir)
{
    char     path[4096], base[64];
    MPI_Comm group;
    int      color = t_rank % 2, grank;
    MPI_Comm_split(MPI_COMM_WORLD, color, t_rank, &group);
    MPI_Comm_rank(group, &grank);
    snprintf(base, sizeof base, "comm_split%d.h5", color);
    snprintf(path, sizeof path, "%s/%s", dir, base);
    hid_t fapl = byname_fapl(group, "stripe_size=65536,stripe_count=2");
    CHECK(fapl >= 0, "fapl");
    CHECK(write_file(path, fapl, group) == 0, "group %d: write failed", color);
    CHECK(check_file(path, fapl, group) == 0, "group %d: read back failed", color);
    CHECK(H5Fdelete(path, fapl) >= 0, "group %d: H5Fdelete failed", color);
    H5Pclose(fapl);
    MPI_Barrier(MPI_COMM_WORLD);
    if (grank == 0)
        CHECK(leftovers(dir, base) == 0, "%s: files left after H5Fdelete", base);
    MPI_Comm_free(&group);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv, "t_comm");
    if (argc < 2) {
        if (t_rank == 0)
            fprintf(stderr, "usage: t_comm DIR [dup|self|split...]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    static const struct {
        const char *name;
        void (*fn)(const char *);
    } cases[] = {{"dup", case_dup}, {"self", case_self}, {"split", case_split}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        bool want = argc == 2;
        for (int a = 2; a < argc; a++)
            want = want || !strcmp(argv[a], cases[c].name);
        if (want)
            cases[c].fn(argv[1]);
    }

    int rc = t_verdict();
    MPI_Finalize();
    return rc;
}
