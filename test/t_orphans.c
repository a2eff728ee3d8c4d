/*
 * t_orphans.c -- the config files and subfiles a removed stub leaves
 * behind: H5Fcreate of the same name reclaims them, h5sf-orphans lists
 * and removes them, and nothing alive is touched (common/orphans.h).
 *
 *   abort     a file's stub is removed alone (netCDF's abort path); the
 *             tool lists the set and leaves it; H5Fcreate(TRUNC) of the
 *             name with another subfile count leaves exactly the new set
 *   truncate  H5Fcreate(TRUNC) over a live file with another subfile count
 *             leaves no subfile of the old count
 *   excl      H5Fcreate(EXCL) after the stub was removed reclaims too
 *   others    two stubs of one name in two directories, config files in a
 *             shared config_dir: a create of one reclaims nothing of the
 *             other's; a stub renamed with mv in its directory is no
 *             orphan; the tool (listing, then --remove) takes exactly the
 *             orphaned sets, and every live file still reads back
 *
 * Expectations are directory listings built from the stubs' inodes (stat)
 * and the subfile names of the built-in's template, not from h5sf.  Files
 * are created collectively on MPI_COMM_WORLD; rank 0 removes and renames.
 *
 * usage: mpiexec -n N t_orphans DIR PATH/TO/h5sf-orphans
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* asprintf */
#endif
#include <inttypes.h>
#include <sys/wait.h>
#include <mpi.h>
#include <hdf5.h>
#include "h5sf.h"
#include "h5sf_test.h"

static char        g_dir[3000];
static const char *g_tool;

static hid_t fapl_for(int count, const char *config_dir)
{
    char cfg[4096];
    int  w = snprintf(cfg, sizeof cfg, "stripe_size=4096");
    if (count > 0) /* 0: reading, the layout comes from the file */
        w += snprintf(cfg + w, sizeof cfg - (size_t)w, ",stripe_count=%d", count);
    if (config_dir)
        snprintf(cfg + w, sizeof cfg - (size_t)w, ",config_dir=%s", config_dir);
    return t_fapl(cfg);
}

/* Create path with `count` subfiles, one dataset of 20000 bytes (every
 * subfile gets stripes), seeded `seed`; flags TRUNC or EXCL. */
static void make(const char *path, int count, unsigned flags, unsigned seed, const char *config_dir)
{
    hid_t          fapl = fapl_for(count, config_dir);
    unsigned char *buf  = malloc(20000);
    hid_t          f    = H5Fcreate(path, flags, H5P_DEFAULT, fapl);
    CHECK(f >= 0, "H5Fcreate(%s, %s) failed", path, flags == H5F_ACC_EXCL ? "EXCL" : "TRUNC");
    if (f >= 0) {
        hid_t d = t_dset_create(f, "d", 20000);
        t_fill(buf, 20000, seed, 0);
        if (t_rank == 0)
            CHECK(t_dset_io(d, 1, 0, 20000, buf, H5P_DEFAULT, NULL) >= 0, "write to %s failed", path);
        H5Dclose(d);
        CHECK(H5Fclose(f) >= 0, "H5Fclose(%s) failed", path);
    }
    H5Pclose(fapl);
    free(buf);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* The data of path reads back as seeded. */
static void check_data(const char *path, unsigned seed, const char *config_dir)
{
    hid_t          fapl = fapl_for(0, config_dir);
    unsigned char *buf  = malloc(20000);
    hid_t          f    = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    CHECK(f >= 0, "H5Fopen(%s) failed", path);
    if (f >= 0) {
        hid_t d = H5Dopen2(f, "d", H5P_DEFAULT);
        CHECK(d >= 0 && t_dset_io(d, 0, 0, 20000, buf, H5P_DEFAULT, NULL) >= 0 &&
                  t_mismatch(buf, 20000, seed, 0) == 20000,
              "%s does not read back", path);
        if (d >= 0)
            H5Dclose(d);
        H5Fclose(f);
    }
    H5Pclose(fapl);
    free(buf);
}

static uint64_t inode_of(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (uint64_t)st.st_ino : 0;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The stub (with_stub), "base.subfile_<ino>.config" (with_config) and
 * subfiles 1..count of the built-in's template, sorted, one per line. */
static void set_names(char *out, size_t n, const char *base, uint64_t ino, int count, int with_stub, int with_config)
{
    char  *names[70];
    int    k = 0;
    size_t w = 0;
    if (with_stub)
        names[k++] = strdup(base);
    if (with_config && asprintf(&names[k], "%s.subfile_%" PRIu64 ".config", base, ino) > 0)
        k++;
    for (int s = 1; s <= count && k < 70; s++)
        if (asprintf(&names[k], "%s.subfile_%" PRIu64 "_%d_of_%d", base, ino, s, count) > 0)
            k++;
    qsort(names, (size_t)k, sizeof names[0], cmp_str);
    out[0] = '\0';
    for (int i = 0; i < k; i++) {
        w += (size_t)snprintf(out + w, w < n ? n - w : 0, "%s\n", names[i]);
        free(names[i]);
    }
}

/* The files of dir whose names start with prefix, sorted, one per line. */
static void listing(char *out, size_t n, const char *dir, const char *prefix)
{
    t_snap_t *s = malloc(sizeof *s);
    size_t    w = 0;
    t_snapshot(dir, prefix, s);
    out[0] = '\0';
    for (int i = 0; i < s->n; i++)
        w += (size_t)snprintf(out + w, w < n ? n - w : 0, "%s\n", s->f[i].name);
    free(s);
}

static void expect_listing(const char *dir, const char *prefix, const char *want, const char *what)
{
    char got[16384];
    listing(got, sizeof got, dir, prefix);
    CHECK(!strcmp(got, want), "%s: files %s* in %s:\n%s-- expected:\n%s", what, prefix, dir, got, want);
}

/* Run the tool; its output into out, its exit status returned. */
static int tool(const char *args, char *out, size_t n)
{
    char  cmd[8192];
    FILE *p;
    snprintf(cmd, sizeof cmd, "%s %s 2>&1", g_tool, args);
    out[0] = '\0';
    if (!(p = popen(cmd, "r")))
        return -1;
    size_t got = fread(out, 1, n - 1, p);
    out[got]   = '\0';
    int st     = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void step_abort(void)
{
    char a[4096], want[8192], out[16384];
    snprintf(a, sizeof a, "%s/abort/a.h5", g_dir);
    t_step(60, "abort: a file whose stub is removed alone");
    make(a, 4, H5F_ACC_TRUNC, 1, NULL);
    uint64_t old = inode_of(a);
    if (t_rank == 0) {
        CHECK(unlink(a) == 0, "cannot remove the stub %s", a);
        set_names(want, sizeof want, "a.h5", old, 4, 0, 1);
        char d[4096];
        snprintf(d, sizeof d, "%s/abort", g_dir);
        expect_listing(d, "a.h5", want, "after remove() of the stub");
        char args[4200];
        snprintf(args, sizeof args, "%s", d);
        int rc = tool(args, out, sizeof out);
        CHECK(rc == 0 && strstr(out, "a.h5.subfile_") && strstr(out, "1 orphaned set(s) found"),
              "h5sf-orphans %s: exit %d, output:\n%s", d, rc, out);
        expect_listing(d, "a.h5", want, "h5sf-orphans without --remove");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    t_step(60, "abort: H5Fcreate(TRUNC) of the name reclaims the set");
    make(a, 2, H5F_ACC_TRUNC, 2, NULL);
    if (t_rank == 0) {
        char d[4096];
        snprintf(d, sizeof d, "%s/abort", g_dir);
        set_names(want, sizeof want, "a.h5", inode_of(a), 2, 1, 1);
        expect_listing(d, "a.h5", want, "after H5Fcreate(TRUNC) of the removed name");
    }
    check_data(a, 2, NULL);
}

static void step_truncate(void)
{
    char a[4200], d[4096], want[8192];
    snprintf(d, sizeof d, "%s/trunc", g_dir);
    snprintf(a, sizeof a, "%s/t.h5", d);
    t_step(60, "truncate: H5Fcreate(TRUNC) over a live file, 4 then 3 subfiles");
    make(a, 4, H5F_ACC_TRUNC, 3, NULL);
    make(a, 3, H5F_ACC_TRUNC, 4, NULL);
    if (t_rank == 0) {
        set_names(want, sizeof want, "t.h5", inode_of(a), 3, 1, 1);
        expect_listing(d, "t.h5", want, "after H5Fcreate(TRUNC) over the live file");
    }
    check_data(a, 4, NULL);
}

static void step_excl(void)
{
    char a[4200], d[4096], want[8192];
    snprintf(d, sizeof d, "%s/excl", g_dir);
    snprintf(a, sizeof a, "%s/e.h5", d);
    t_step(60, "excl: H5Fcreate(EXCL) after the stub was removed");
    make(a, 3, H5F_ACC_TRUNC, 5, NULL);
    if (t_rank == 0)
        CHECK(unlink(a) == 0, "cannot remove the stub %s", a);
    MPI_Barrier(MPI_COMM_WORLD);
    make(a, 1, H5F_ACC_EXCL, 6, NULL);
    if (t_rank == 0) {
        set_names(want, sizeof want, "e.h5", inode_of(a), 1, 1, 1);
        expect_listing(d, "e.h5", want, "after H5Fcreate(EXCL)");
    }
    check_data(a, 6, NULL);
}

static void step_others(void)
{
    char x[4096], y[4096], b[4096], c[4096], c2[4096], cfgd[4096], d[4096], want[16384], out[16384];
    snprintf(cfgd, sizeof cfgd, "%s/others/cfg", g_dir);
    snprintf(d, sizeof d, "%s/others", g_dir);
    snprintf(x, sizeof x, "%s/others/x/run.h5", g_dir);
    snprintf(y, sizeof y, "%s/others/y/run.h5", g_dir);
    snprintf(b, sizeof b, "%s/others/b.h5", g_dir);
    snprintf(c, sizeof c, "%s/others/c.h5", g_dir);
    snprintf(c2, sizeof c2, "%s/others/c2.h5", g_dir);
    t_step(90, "others: a shared config_dir, a renamed stub, live files");
    char xd[4200], yd[4200];
    snprintf(xd, sizeof xd, "%s/x", d);
    snprintf(yd, sizeof yd, "%s/y", d);
    t_mkdir_world(cfgd);
    t_mkdir_world(xd);
    t_mkdir_world(yd);
    make(x, 2, H5F_ACC_TRUNC, 7, cfgd);
    make(y, 2, H5F_ACC_TRUNC, 8, cfgd);
    make(b, 2, H5F_ACC_TRUNC, 9, NULL);
    make(c, 2, H5F_ACC_TRUNC, 10, NULL);
    uint64_t xi = inode_of(x), yi, ci = inode_of(c);
    if (t_rank == 0) {
        CHECK(unlink(x) == 0, "cannot remove %s", x);
        CHECK(rename(c, c2) == 0, "cannot rename %s", c);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    /* y's create reclaims nothing of x's set in the shared config_dir. */
    make(y, 2, H5F_ACC_TRUNC, 11, cfgd);
    yi = inode_of(y);
    if (t_rank == 0) {
        char xs[4096], ys[4096], xsub[8192];
        set_names(xs, sizeof xs, "run.h5", xi, 0, 0, 1);
        set_names(ys, sizeof ys, "run.h5", yi, 0, 0, 1);
        /* Both config files in cfgd, in name order. */
        snprintf(want, sizeof want, "%s%s", strcmp(xs, ys) < 0 ? xs : ys, strcmp(xs, ys) < 0 ? ys : xs);
        expect_listing(cfgd, "run.h5", want, "the shared config_dir after y's create");
        /* x's subfiles stay in x/ (its config file is in cfgd). */
        set_names(xsub, sizeof xsub, "run.h5", xi, 2, 0, 0);
        expect_listing(xd, "run.h5", xsub, "x's orphaned subfiles before the tool");

        /* The tool: lists exactly x's set (cfgd) and nothing in d. */
        char args[8400];
        snprintf(args, sizeof args, "%s %s", d, cfgd);
        int rc = tool(args, out, sizeof out);
        CHECK(rc == 0 && strstr(out, "1 orphaned set(s) found") && strstr(out, xd) && !strstr(out, "c.h5") &&
                  !strstr(out, "b.h5"),
              "h5sf-orphans %s: exit %d, output:\n%s", args, rc, out);
        /* b's stub removed too: now two; --remove takes both. */
        CHECK(unlink(b) == 0, "cannot remove %s", b);
        snprintf(args, sizeof args, "--remove %s %s", d, cfgd);
        rc = tool(args, out, sizeof out);
        CHECK(rc == 0 && strstr(out, "2 orphaned set(s) found, 2 removed"), "h5sf-orphans %s: exit %d, output:\n%s",
              args, rc, out);
        expect_listing(xd, "run.h5", "", "x's set after --remove");
        expect_listing(d, "b.h5", "", "b's set after --remove");
        set_names(want, sizeof want, "run.h5", yi, 0, 0, 1);
        expect_listing(cfgd, "run.h5", want, "y's config file after --remove");
        /* c renamed to c2 in its directory: its set (named c.h5) stays. */
        set_names(want, sizeof want, "c.h5", ci, 2, 0, 1);
        expect_listing(d, "c.h5", want, "the renamed stub's set");
        rc = tool(d, out, sizeof out);
        CHECK(rc == 0 && strstr(out, "0 orphaned set(s) found"), "h5sf-orphans after --remove: exit %d:\n%s", rc, out);
        rc = tool("--bogus", out, sizeof out);
        CHECK(rc == 2, "h5sf-orphans --bogus: exit %d, expected 2", rc);
        rc = tool("/nonexistent-h5sf-dir", out, sizeof out);
        CHECK(rc == 1 && strstr(out, "cannot read directory"), "h5sf-orphans on a missing directory: exit %d:\n%s", rc,
              out);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    check_data(y, 11, cfgd);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv, "t_orphans");
    if (argc != 3) {
        if (t_rank == 0)
            fprintf(stderr, "usage: mpiexec -n N t_orphans DIR PATH/TO/h5sf-orphans\n");
        MPI_Finalize();
        return 2;
    }
    snprintf(g_dir, sizeof g_dir, "%s", argv[1]);
    g_tool = argv[2];
    /* A fresh directory: listings must see only this run's files. */
    if (t_rank == 0) {
        char cmd[8192];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
        if (system(cmd) != 0)
            t_die_io("empty", g_dir);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    t_mkdir_world(g_dir);
    char sub[3100];
    snprintf(sub, sizeof sub, "%s/abort", g_dir);
    t_mkdir_world(sub);
    snprintf(sub, sizeof sub, "%s/trunc", g_dir);
    t_mkdir_world(sub);
    snprintf(sub, sizeof sub, "%s/excl", g_dir);
    t_mkdir_world(sub);
    snprintf(sub, sizeof sub, "%s/others", g_dir);
    t_mkdir_world(sub);
    step_abort();
    step_truncate();
    step_excl();
    step_others();
    return t_finish();
}
