/*
 * t_preload_coll -- what the LD_PRELOAD shim (preload/h5sf_preload.c) does
 * collectively and what it does alone, for a program that hard-codes
 * MPI-IO.  Run under the shim with H5SF_REDIRECT_MPIO=1
 * (test/t_preload_coll.cmake).
 *
 *   t_preload_coll atomicity DIR   rank 0 alone asks H5Fget_mpi_atomicity
 *                                  (and sets it off) on a redirected h5sf
 *                                  file and on a plain MPI-IO file: local
 *                                  calls, as MPI allows, must not wait for
 *                                  the other ranks
 *   t_preload_coll refusals DIR    what the shim refuses reaches the caller's
 *                                  error stack with its reason, on the shim's
 *                                  error class: H5Fset_mpi_atomicity(true) on
 *                                  a redirected file, H5Pset_fapl_mpio under
 *                                  H5SF_REDIRECT_MPIO=bogus (h5py's callers
 *                                  got "Unspecified error" while these went
 *                                  to stderr only)
 *   t_preload_coll configdir DIR   a file written with H5SF_CONFIG_DIR (its
 *                                  config file away from the stub) is read
 *                                  back through the redirect by every rank,
 *                                  and by rank 0 alone with the default driver;
 *                                  then rank 0 alone replaces it with a plain
 *                                  file, which takes the config file along
 *   t_preload_coll neighbours DIR  rank 0 alone replaces a subfiled file
 *                                  whose subfiles are in H5SF_SUBFILE_DIR with
 *                                  a plain file: exactly its config file and
 *                                  subfiles go (from that directory), while
 *                                  names that only start like them stay: a
 *                                  set whose inode starts with the same
 *                                  digits, "<base>.subfile_<inode>_README.txt"
 *   t_preload_coll plain FILE      rank 0 alone makes FILE a plain HDF5 file
 *                                  (H5Fcreate, H5F_ACC_TRUNC, default driver),
 *                                  for test/t_security_preload.sh
 *   t_preload_coll decide DIR      ranks see the file differently: rank 0's
 *                                  working directory holds the subfiled file,
 *                                  the others' hard links to its stub and
 *                                  subfiles without the config file; every
 *                                  rank must take rank 0's driver
 *
 * Every step runs under a watchdog: a hang fails the test with the step's
 * name instead of running into ctest's timeout.  Exit status 1 on any failed
 * check.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <mpi.h>
#include <hdf5.h>
#include "h5sf_test.h"

#define N 4096 /* ints per rank */

/* A fapl as an MPI-IO program makes it (redirected by the shim). */
static hid_t mpio_fapl(void)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    CHECK(H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL) >= 0, "H5Pset_fapl_mpio failed");
    return fapl;
}

/* Every rank writes its N ints of /d. */
static int write_file(const char *path, hid_t fapl)
{
    int *buf = malloc(N * sizeof *buf);
    for (int i = 0; i < N; i++)
        buf[i] = t_pat_int(t_rank, i);
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    CHECK(f >= 0, "H5Fcreate %s failed", path);
    if (f < 0) {
        free(buf);
        return -1;
    }
    CHECK(t_write_block(f, "d", (hsize_t)N * t_size, (hsize_t)N * t_rank, N, buf, H5P_DEFAULT) >= 0, "H5Dwrite failed");
    CHECK(H5Fclose(f) >= 0, "H5Fclose %s failed", path);
    free(buf);
    return 0;
}

/* Read all of /d through fapl and compare. */
static void verify_file(const char *path, hid_t fapl, int nranks)
{
    hid_t f = -1;
    H5E_BEGIN_TRY { f = H5Fopen(path, H5F_ACC_RDONLY, fapl); }
    H5E_END_TRY
    CHECK(f >= 0, "H5Fopen %s failed", path);
    if (f < 0)
        return;
    int  *all = calloc((size_t)N * nranks, sizeof *all);
    hid_t d   = H5Dopen2(f, "d", H5P_DEFAULT);
    CHECK(d >= 0 && H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, all) >= 0, "reading /d failed");
    long bad = 0;
    for (int r = 0; r < nranks; r++)
        for (int i = 0; i < N; i++)
            bad += all[(size_t)r * N + i] != t_pat_int(r, i);
    CHECK(bad == 0, "%s: %ld of %d values wrong", path, bad, N * nranks);
    if (d >= 0)
        H5Dclose(d);
    CHECK(H5Fclose(f) >= 0, "H5Fclose failed");
    free(all);
}

static int count_glob(const char *pat)
{
    glob_t g;
    int    n = glob(pat, 0, NULL, &g) == 0 ? (int)g.gl_pathc : 0;
    globfree(&g);
    return n;
}

/* Rank 0 alone asks (and sets off) MPI atomicity on file; the others wait
 * in a barrier that rank 0 reaches only if the calls were local. */
static void atomicity_alone(hid_t file, const char *what)
{
    if (t_rank == 0) {
        hbool_t flag = 1;
        CHECK(H5Fget_mpi_atomicity(file, &flag) >= 0, "%s: H5Fget_mpi_atomicity failed", what);
        CHECK(!flag, "%s: H5Fget_mpi_atomicity says atomic", what);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

static void mode_atomicity(const char *dir)
{
    char path[4096];

    /* A redirected file: h5sf. */
    t_step(120, "create the redirected file");
    snprintf(path, sizeof path, "%s/atom_h5sf.h5", dir);
    hid_t fapl = mpio_fapl(), file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    CHECK(file >= 0, "H5Fcreate %s failed", path);
    char pat[4200];
    snprintf(pat, sizeof pat, "%s.subfile_*.config", path);
    CHECK(count_glob(pat) == 1, "%s is not subfiled: the redirect did not happen", path);
    t_step(30, "rank 0 alone: H5Fget_mpi_atomicity on the h5sf file");
    atomicity_alone(file, "h5sf file");
    t_step(30, "rank 0 alone: H5Fset_mpi_atomicity(false) on the h5sf file");
    if (t_rank == 0)
        CHECK(H5Fset_mpi_atomicity(file, 0) >= 0, "H5Fset_mpi_atomicity(false) on the h5sf file failed");
    MPI_Barrier(MPI_COMM_WORLD);
    /* The same file through another identifier of it. */
    t_step(30, "rank 0 alone: H5Fget_mpi_atomicity through H5Iget_file_id");
    hid_t g = H5Gopen2(file, "/", H5P_DEFAULT), fid = H5Iget_file_id(g);
    atomicity_alone(fid, "h5sf file, H5Iget_file_id");
    H5Fclose(fid);
    H5Gclose(g);
    t_step(120, "close the redirected file");
    CHECK(H5Fclose(file) >= 0, "H5Fclose failed");

    /* A plain file written serially, opened through the redirect: MPI-IO. */
    t_step(120, "write a plain file");
    snprintf(path, sizeof path, "%s/atom_plain.h5", dir);
    if (t_rank == 0) {
        hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
        CHECK(f >= 0 && H5Fclose(f) >= 0, "serial H5Fcreate %s failed", path);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    t_step(120, "open the plain file through the redirect");
    file = H5Fopen(path, H5F_ACC_RDWR, fapl);
    CHECK(file >= 0, "H5Fopen %s failed", path);
    snprintf(pat, sizeof pat, "%s.subfile_*", path);
    CHECK(count_glob(pat) == 0, "the plain file %s got subfiles", path);
    t_step(30, "rank 0 alone: H5Fget_mpi_atomicity on the plain MPI-IO file");
    atomicity_alone(file, "plain MPI-IO file");
    t_step(120, "close the plain file");
    CHECK(H5Fclose(file) >= 0, "H5Fclose failed");
    H5Pclose(fapl);
}

/* Whether the current stack holds an entry of class "h5sf_preload" whose
 * text has `want`; the stack is cleared.  The entries are copied out
 * first: HDF5 calls inside the walk would clear the stack being walked. */
typedef struct {
    hid_t cls[32];
    char  desc[32][1024];
    int   n;
} stack_copy_t;

static herr_t copy_cb(unsigned n, const H5E_error2_t *err, void *p)
{
    stack_copy_t *s = p;
    (void)n;
    if (s->n < 32) {
        s->cls[s->n] = err->cls_id;
        snprintf(s->desc[s->n++], sizeof s->desc[0], "%s", err->desc ? err->desc : "");
    }
    return 0;
}

static void check_refusal(const char *what, const char *want)
{
    static stack_copy_t s;
    int                 found = 0;
    s.n                       = 0;
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, copy_cb, &s);
    for (int i = 0; i < s.n; i++) {
        char cls[64] = "";
        if (H5Eget_class_name(s.cls[i], cls, sizeof cls) > 0 && !strcmp(cls, "h5sf_preload") && strstr(s.desc[i], want))
            found = 1;
    }
    CHECK(found, "%s: no h5sf_preload entry saying \"%s\" among the %d entries of the error stack", what, want, s.n);
    H5Eclear2(H5E_DEFAULT);
}

static void mode_refusals(const char *dir)
{
    char   path[4096];
    herr_t r;
    t_step(120, "create the redirected file");
    snprintf(path, sizeof path, "%s/refusals.h5", dir);
    hid_t fapl = mpio_fapl(), file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    CHECK(file >= 0, "H5Fcreate %s failed", path);
    t_step(30, "H5Fset_mpi_atomicity(true) on the h5sf file");
    H5E_BEGIN_TRY { r = H5Fset_mpi_atomicity(file, 1); }
    H5E_END_TRY
    CHECK(r < 0, "H5Fset_mpi_atomicity(true) on an h5sf file succeeded");
    check_refusal("H5Fset_mpi_atomicity(true)", "MPI atomic mode");
    t_step(120, "close the redirected file");
    CHECK(H5Fclose(file) >= 0, "H5Fclose failed");
    H5Pclose(fapl);

    t_step(30, "H5Pset_fapl_mpio with H5SF_REDIRECT_MPIO=bogus");
    setenv("H5SF_REDIRECT_MPIO", "bogus", 1);
    fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5E_BEGIN_TRY { r = H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL); }
    H5E_END_TRY
    setenv("H5SF_REDIRECT_MPIO", "1", 1);
    CHECK(r < 0, "H5Pset_fapl_mpio under H5SF_REDIRECT_MPIO=bogus succeeded");
    check_refusal("H5SF_REDIRECT_MPIO=bogus", "H5SF_REDIRECT_MPIO=\"bogus\"");
    H5Pclose(fapl);
}

static void mode_configdir(const char *dir)
{
    const char *cdir = getenv("H5SF_CONFIG_DIR");
    char        path[4096], pat[4300];
    if (!cdir || !*cdir) {
        CHECK(0, "configdir: set H5SF_CONFIG_DIR");
        return;
    }
    if (t_rank == 0)
        t_mkdir_p(cdir);
    MPI_Barrier(MPI_COMM_WORLD);
    snprintf(path, sizeof path, "%s/cd.h5", dir);
    t_step(120, "write through the redirect with H5SF_CONFIG_DIR");
    hid_t fapl = mpio_fapl();
    write_file(path, fapl);
    snprintf(pat, sizeof pat, "%s/cd.h5.subfile_*.config", cdir);
    CHECK(count_glob(pat) == 1, "no config file in H5SF_CONFIG_DIR %s", cdir);
    snprintf(pat, sizeof pat, "%s.subfile_*.config", path);
    CHECK(count_glob(pat) == 0, "a config file next to the stub %s", path);
    t_step(120, "every rank reads back through the redirect");
    verify_file(path, fapl, t_size);
    H5Pclose(fapl);
    MPI_Barrier(MPI_COMM_WORLD);
    t_step(120, "rank 0 alone reads back with the default driver");
    if (t_rank == 0)
        verify_file(path, H5P_DEFAULT, t_size);
    MPI_Barrier(MPI_COMM_WORLD);
    /* A plain file replacing it (same stub, same inode) takes its config
     * file along, so that it is then opened as the plain file it is. */
    t_step(120, "rank 0 alone replaces it with a plain file");
    if (t_rank == 0) {
        hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
        CHECK(f >= 0 && H5Fclose(f) >= 0, "serial H5Fcreate over %s failed", path);
        snprintf(pat, sizeof pat, "%s/cd.h5.subfile_*.config", cdir);
        CHECK(count_glob(pat) == 0, "the config file in H5SF_CONFIG_DIR %s outlived a plain H5Fcreate", cdir);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    t_step(120, "every rank opens the plain file through the redirect");
    fapl    = mpio_fapl();
    hid_t f = -1;
    H5E_BEGIN_TRY { f = H5Fopen(path, H5F_ACC_RDONLY, fapl); }
    H5E_END_TRY
    CHECK(f >= 0, "H5Fopen of the plain %s through the redirect failed", path);
    if (f >= 0)
        CHECK(H5Fclose(f) >= 0, "H5Fclose failed");
    H5Pclose(fapl);
}

/* Hard links in b to every file in a whose name starts with base, except
 * its config file. */
static void link_but_config(const char *a, const char *b, const char *base)
{
    DIR *dp = opendir(a);
    char from[4400], to[4400];
    for (struct dirent *de; dp && (de = readdir(dp));) {
        size_t n = strlen(de->d_name);
        if (strncmp(de->d_name, base, strlen(base)) || (n > 7 && !strcmp(de->d_name + n - 7, ".config")))
            continue;
        snprintf(from, sizeof from, "%s/%s", a, de->d_name);
        snprintf(to, sizeof to, "%s/%s", b, de->d_name);
        unlink(to);
        CHECK(link(from, to) == 0, "link %s %s: %s", from, to, strerror(errno));
    }
    if (dp)
        closedir(dp);
}

/* An empty file at dir/name (a neighbour the clean-up must leave alone). */
static void plant(const char *dir, const char *name)
{
    char  path[4400];
    FILE *fp;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    CHECK((fp = fopen(path, "w")) != NULL && fclose(fp) == 0, "cannot create %s: %s", path, strerror(errno));
}

static int exists_in(const char *dir, const char *name)
{
    char        path[4400];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return lstat(path, &st) == 0;
}

static void mode_neighbours(const char *dir)
{
    const char *sdir = getenv("H5SF_SUBFILE_DIR");
    char        path[4096], pat[4400], names[4][600];
    struct stat st;
    if (!sdir || !*sdir) {
        CHECK(0, "neighbours: set H5SF_SUBFILE_DIR");
        return;
    }
    if (t_rank == 0) { /* fresh: the checks count names */
        t_fresh_dir(dir);
        t_fresh_dir(sdir);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    snprintf(path, sizeof path, "%s/nb.h5", dir);
    t_step(120, "write through the redirect, subfiles in H5SF_SUBFILE_DIR");
    hid_t fapl = mpio_fapl();
    write_file(path, fapl);
    H5Pclose(fapl);
    snprintf(pat, sizeof pat, "%s/nb.h5.subfile_*_of_*", sdir);
    CHECK(count_glob(pat) >= 1, "no subfiles in H5SF_SUBFILE_DIR %s", sdir);
    MPI_Barrier(MPI_COMM_WORLD);
    t_step(120, "rank 0 alone replaces it with a plain file; neighbours stay");
    if (t_rank == 0 && stat(path, &st) == 0) {
        unsigned long long ino = (unsigned long long)st.st_ino;
        /* Another set's subfile and config file (its inode: this one's
         * digits and one more), and a file named after the set. */
        snprintf(names[0], sizeof names[0], "nb.h5.subfile_%llu7_1_of_1", ino);
        snprintf(names[1], sizeof names[1], "nb.h5.subfile_%llu7.config", ino);
        snprintf(names[2], sizeof names[2], "nb.h5.subfile_%llu_README.txt", ino);
        snprintf(names[3], sizeof names[3], "nb.h5.subfile_%llu_1_of_2.bak", ino);
        for (int i = 0; i < 4; i++) {
            plant(dir, names[i]);
            plant(sdir, names[i]);
        }
        hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
        CHECK(f >= 0 && H5Fclose(f) >= 0, "serial H5Fcreate over %s failed", path);
        snprintf(pat, sizeof pat, "%s/nb.h5.subfile_%llu.config", dir, ino);
        CHECK(count_glob(pat) == 0, "the config file %s outlived a plain H5Fcreate", pat);
        snprintf(pat, sizeof pat, "%s/nb.h5.subfile_%llu_[12]_of_2", sdir, ino);
        CHECK(count_glob(pat) == 0, "subfiles %s outlived a plain H5Fcreate", pat);
        for (int i = 0; i < 4; i++) {
            CHECK(exists_in(dir, names[i]), "%s/%s, not the file's, was removed", dir, names[i]);
            CHECK(exists_in(sdir, names[i]), "%s/%s, not the file's, was removed", sdir, names[i]);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

static void mode_plain(const char *file)
{
    t_step(120, "rank 0 alone: a plain H5Fcreate(H5F_ACC_TRUNC)");
    if (t_rank == 0) {
        hid_t f = H5Fcreate(file, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
        CHECK(f >= 0 && H5Fclose(f) >= 0, "plain H5Fcreate %s failed", file);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

static void mode_decide(const char *dir)
{
    char a[2048], b[2048], path[4200];
    snprintf(a, sizeof a, "%s/seen", dir);
    snprintf(b, sizeof b, "%s/unseen", dir);
    if (t_rank == 0) { /* an earlier run's hard links would block the create */
        t_fresh_dir(a);
        t_fresh_dir(b);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    t_step(120, "write through the redirect");
    snprintf(path, sizeof path, "%s/dd.h5", a);
    hid_t fapl = mpio_fapl();
    write_file(path, fapl);
    if (t_rank == 0)
        link_but_config(a, b, "dd.h5");
    MPI_Barrier(MPI_COMM_WORLD);
    /* Rank 0 finds the config file next to the stub, the others do not. */
    CHECK(chdir(t_rank == 0 ? a : b) == 0, "chdir: %s", strerror(errno));
    t_step(60, "every rank opens dd.h5 through the redirect, seeing it differently");
    verify_file("dd.h5", fapl, t_size);
    H5Pclose(fapl);
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv, "t_preload_coll");
    if (argc != 3) {
        if (t_rank == 0)
            fprintf(stderr,
                    "usage: t_preload_coll atomicity|refusals|configdir|neighbours|decide DIR, or plain FILE\n");
        MPI_Finalize();
        return 2;
    }
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/%s_np%d", argv[2], argv[1], t_size);
    const int plain = !strcmp(argv[1], "plain");
    if (t_rank == 0 && !plain) {
        t_mkdir_p(argv[2]);
        t_mkdir_p(dir);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (plain)
        mode_plain(argv[2]);
    else if (!strcmp(argv[1], "atomicity"))
        mode_atomicity(dir);
    else if (!strcmp(argv[1], "configdir"))
        mode_configdir(dir);
    else if (!strcmp(argv[1], "refusals"))
        mode_refusals(dir);
    else if (!strcmp(argv[1], "neighbours"))
        mode_neighbours(dir);
    else if (!strcmp(argv[1], "decide"))
        mode_decide(dir);
    else
        CHECK(0, "unknown mode '%s'", argv[1]);
    t_step(120, "finish");
    if (t_rank == 0)
        printf("t_preload_coll: %s\n", argv[1]);
    int rc = t_verdict();
    t_step(120, "MPI_Finalize");
    MPI_Finalize();
    t_step_done();
    return rc;
}
