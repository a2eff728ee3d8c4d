/*
 * t_delete -- H5FDdelete of an h5sf file when one rank's settings are bad.
 *
 * H5FDdelete is collective on the fapl's communicator (vfd/h5sf.c): rank 0
 * removes the stub, the config file and the subfiles, every rank learns
 * the outcome.  A rank whose own settings fail to resolve must still take
 * part, so that nobody waits for it, and nothing may be removed then.
 *
 * Cases, each on a fresh file (created through h5sf on MPI_COMM_WORLD):
 *   bad_last   H5SF_POOL_THREADS=99 on the last rank only
 *   bad_first  the same on rank 0 only
 *   bad_all    on every rank
 * each: H5FDdelete fails on every rank, names the variable on the bad rank,
 * and the stub, config file and subfiles all stay; then, with the variable
 * unset, H5FDdelete succeeds on every rank and removes them all.
 * Each call runs under a watchdog (30 s): a rank left waiting fails the
 * test with the step's name.
 *
 * usage: mpiexec -n N t_delete DIR "<config string>"
 */
#include <mpi.h>
#include <hdf5.h>
#include "h5sf.h"
#include "h5sf_test.h"

/* Files of this test's file in dir (stub, config file, subfiles). */
static int count_files(const char *dir, const char *base)
{
    DIR *dp = opendir(dir);
    int  n  = 0;
    for (struct dirent *de; dp && (de = readdir(dp));)
        n += !strncmp(de->d_name, base, strlen(base));
    if (dp)
        closedir(dp);
    return n;
}

static void make_file(const char *path, const char *cfg)
{
    hid_t fapl = t_fapl(cfg), f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    VRFY(f >= 0 && H5Fclose(f) >= 0, "cannot create %s", path);
    H5Pclose(fapl);
}

/* One case: bad settings on the ranks for which bad(rank) holds. */
static void run_case(const char *dir, const char *cfg, const char *name, int (*bad)(int))
{
    char path[4096], base[256];
    snprintf(base, sizeof base, "%s.h5", name);
    snprintf(path, sizeof path, "%s/%s", dir, base);
    t_step(60, "%s: create", name);
    make_file(path, cfg);
    MPI_Barrier(MPI_COMM_WORLD);
    int before = count_files(dir, base);
    if (t_rank == 0)
        CHECK(before >= 3, "%s: only %d files after create", name, before);

    hid_t fapl = t_fapl(cfg);
    int   mine = bad(t_rank);
    if (mine)
        setenv("H5SF_POOL_THREADS", "99", 1);
    t_step(30, "%s: H5FDdelete with H5SF_POOL_THREADS=99 on some ranks", name);
    herr_t      r = H5FDdelete(path, fapl);
    t_errtext_t t;
    t_errors(&t);
    unsetenv("H5SF_POOL_THREADS");
    CHECK(r < 0, "%s: H5FDdelete succeeded with a bad setting on some rank", name);
    CHECK(!mine || r >= 0 || strstr(t.buf, "H5SF_POOL_THREADS"), "%s: the error does not name H5SF_POOL_THREADS:\n%s",
          name, t.buf);
    t_step(30, "%s: after the failed delete", name);
    MPI_Barrier(MPI_COMM_WORLD);
    int after = count_files(dir, base);
    if (t_rank == 0)
        CHECK(after == before, "%s: the failed delete removed %d of %d files", name, before - after, before);

    t_step(30, "%s: H5FDdelete with good settings", name);
    r = H5FDdelete(path, fapl);
    CHECK(r >= 0, "%s: H5FDdelete failed:\n%s", name, r < 0 ? t_errors(&t) : "");
    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == 0) {
        int left = count_files(dir, base);
        CHECK(left == 0, "%s: %d files left after the delete", name, left);
    }
    H5Pclose(fapl);
}

static int last(int r) { return r == t_size - 1; }
static int first(int r) { return r == 0; }
static int every(int r) { return r >= 0; }

int main(int argc, char **argv)
{
    t_init(&argc, &argv, "t_delete");
    if (argc != 3) {
        if (t_rank == 0)
            fprintf(stderr, "usage: t_delete DIR CONFIG\n");
        MPI_Finalize();
        return 2;
    }
    t_mkdir_world(argv[1]);
    run_case(argv[1], argv[2], "bad_last", last);
    run_case(argv[1], argv[2], "bad_first", first);
    run_case(argv[1], argv[2], "bad_all", every);
    return t_finish();
}
