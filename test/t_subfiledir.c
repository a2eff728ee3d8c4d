/*
 * t_subfiledir.c -- where the subfiles are: subfile_dir and the config file's
 * subfile names.
 *
 *   relative_create  created from cwd D/a with subfile_dir=sub: the config
 *                    file records D/a/sub (absolute), the subfiles are there,
 *                    and an open from cwd D/b reads the pattern back;
 *   relative_edited  subfiles moved to D/elsewhere and the config file
 *                    edited to subfile_dir=../elsewhere: an open from cwd /
 *                    takes it against the stub's directory D/stubs and reads
 *                    the pattern;
 *   bad_names        a config file whose first subfile name is
 *                    ../victim/<the right name>: open (read-only, read-write)
 *                    and H5Fdelete fail on every rank naming the line, and
 *                    no file is removed or changed, inside or outside.
 * Paths and sizes are checked with stat(2), data against a known pattern.
 *
 * usage: mpiexec -n 3 t_subfiledir DIR CONFIG   (CONFIG: h5sf config string)
 */
#include <ftw.h>
#include <mpi.h>
#include <hdf5.h>
#include "h5sf.h"
#include "h5sf_test.h"

#define NBYTES (48 * 1024)
#define SEED   11u
#define NSUB   3

static char dir[4096], cfg[512];

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(p) < 0 && errno != ENOENT ? -1 : 0;
}

/* Rank 0: D/<name> removed with its contents, then made again empty. */
static void fresh_dir(const char *name)
{
    char p[4200];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    if (nftw(p, rm_one, 16, FTW_DEPTH | FTW_PHYS) < 0 && errno != ENOENT)
        t_die_io("remove", p);
    if (mkdir(p, 0777) < 0)
        t_die_io("create", p);
}

static void go(const char *sub)
{
    char p[4200];
    snprintf(p, sizeof p, "%s/%s", dir, sub);
    if (chdir(p) < 0)
        t_die_io("chdir to", p);
}

static uint64_t inode_of(const char *p)
{
    struct stat st;
    if (stat(p, &st) < 0)
        t_die_io("stat", p);
    return (uint64_t)st.st_ino;
}

static hid_t fapl_with(const char *extra)
{
    char c[1024];
    snprintf(c, sizeof c, "%s,stripe_size=4096,stripe_count=%d%s%s", cfg, NSUB, extra[0] ? "," : "", extra);
    return t_fapl(c);
}

/* Every rank writes its share of the pattern into a new file. */
static void create(const char *stub, const char *extra)
{
    hid_t fapl = fapl_with(extra);
    hid_t f    = H5Fcreate(stub, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    if (f < 0) {
        t_errtext_t t;
        t_errors(&t);
        fprintf(stderr, "[rank %d] cannot create %s:\n%s", t_rank, stub, t.buf);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    hid_t          d   = t_dset_create(f, "d", NBYTES);
    unsigned char *buf = malloc(NBYTES / 4);
    for (int q = t_rank; q < 4; q += t_size) {
        uint64_t off = (uint64_t)q * (NBYTES / 4);
        t_fill(buf, NBYTES / 4, SEED, off);
        CHECK(t_dset_io(d, 1, off, NBYTES / 4, buf, H5P_DEFAULT, NULL) >= 0, "write of %s failed", stub);
    }
    H5Dclose(d);
    CHECK(H5Fclose(f) >= 0, "close of %s failed", stub);
    H5Pclose(fapl);
    free(buf);
}

/* Open and read the whole pattern; 1 if right on this rank, else 0 (t gets
 * the error). */
static int open_read(const char *stub, unsigned flags, t_errtext_t *t)
{
    hid_t fapl = fapl_with("");
    hid_t f    = H5Fopen(stub, flags, fapl);
    int   ok   = 0;
    t->buf[0]  = '\0';
    if (f < 0)
        t_errors(t);
    else {
        unsigned char *buf = malloc(NBYTES);
        hid_t          d   = H5Dopen2(f, "d", H5P_DEFAULT);
        if (d >= 0 && t_dset_io(d, 0, 0, NBYTES, buf, H5P_DEFAULT, t) >= 0)
            ok = t_mismatch(buf, NBYTES, SEED, 0) == NBYTES;
        if (d >= 0)
            H5Dclose(d);
        ok = H5Fclose(f) >= 0 && ok;
        free(buf);
    }
    H5Pclose(fapl);
    return ok;
}

static void subfile_name(char *out, size_t n, const char *sdir, const char *base, uint64_t ino, int k)
{
    snprintf(out, n, "%s/%s.subfile_%llu_%d_of_%d", sdir, base, (unsigned long long)ino, k, NSUB);
}

/* ---- the cases ---------------------------------------------------------- */

static void relative_create(void)
{
    char stub[4300], sdir[4300], p[8700], cfgfile[4400], want[4400];
    t_step(60, "relative_create");
    if (t_rank == 0) {
        fresh_dir("a");
        fresh_dir("b");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    snprintf(stub, sizeof stub, "%s/stubs/rel.h5", dir);
    go("a");
    create(stub, "subfile_dir=sub");
    go("b");
    MPI_Barrier(MPI_COMM_WORLD);

    uint64_t ino = inode_of(stub);
    snprintf(sdir, sizeof sdir, "%s/a/sub", dir);
    if (t_rank == 0) {
        struct stat st;
        for (int k = 1; k <= NSUB; k++) {
            subfile_name(p, sizeof p, sdir, "rel.h5", ino, k);
            CHECK(stat(p, &st) == 0, "relative_create: subfile %s not found (in the creator's cwd + sub)", p);
        }
        snprintf(cfgfile, sizeof cfgfile, "%s.subfile_%llu.config", stub, (unsigned long long)ino);
        size_t n;
        char  *text = t_slurp(cfgfile, &n);
        snprintf(want, sizeof want, "\nsubfile_dir=%s\n", sdir);
        CHECK(strstr(text, want) != NULL, "relative_create: config file does not record %s:\n%s", sdir, text);
        free(text);
    }
    t_errtext_t t;
    int         ok = open_read(stub, H5F_ACC_RDONLY, &t);
    CHECK(ok, "relative_create: read-only open from another cwd did not read the pattern:\n%s", t.buf);
    ok = open_read(stub, H5F_ACC_RDWR, &t);
    CHECK(ok, "relative_create: read-write open from another cwd did not read the pattern:\n%s", t.buf);
    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == 0) {
        struct stat st;
        snprintf(p, sizeof p, "%s/b/sub", dir);
        CHECK(stat(p, &st) < 0, "relative_create: the open made %s (relative to its own cwd)", p);
    }
}

static void relative_edited(void)
{
    char stub[4300], from[8700], to[8700], cfgfile[4400], other[4300];
    t_step(60, "relative_edited");
    if (t_rank == 0)
        fresh_dir("elsewhere");
    MPI_Barrier(MPI_COMM_WORLD);
    snprintf(stub, sizeof stub, "%s/stubs/moved.h5", dir);
    go("stubs");
    create(stub, "");
    MPI_Barrier(MPI_COMM_WORLD);
    uint64_t ino = inode_of(stub);
    if (t_rank == 0) {
        /* Move the subfiles out and say so, relatively, in the config. */
        snprintf(other, sizeof other, "%s/elsewhere", dir);
        char sdir[4300];
        snprintf(sdir, sizeof sdir, "%s/stubs", dir);
        for (int k = 1; k <= NSUB; k++) {
            subfile_name(from, sizeof from, sdir, "moved.h5", ino, k);
            subfile_name(to, sizeof to, other, "moved.h5", ino, k);
            if (rename(from, to) < 0)
                t_die_io("move", from);
        }
        snprintf(cfgfile, sizeof cfgfile, "%s.subfile_%llu.config", stub, (unsigned long long)ino);
        size_t n;
        char  *text = t_slurp(cfgfile, &n), *at = strstr(text, "\nsubfile_dir="), *out = malloc(n + 64);
        if (!at)
            t_die_io("find subfile_dir= in", cfgfile);
        char *eol = strchr(at + 1, '\n');
        int   w   = snprintf(out, n + 64, "%.*s\nsubfile_dir=../elsewhere%s", (int)(at - text), text, eol);
        t_spit(cfgfile, out, (size_t)w);
        free(text);
        free(out);
    }
    /* From "/", ../elsewhere taken against the cwd is /elsewhere. */
    if (chdir("/") < 0)
        t_die_io("chdir to", "/");
    MPI_Barrier(MPI_COMM_WORLD);
    t_errtext_t t;
    int         ok = open_read(stub, H5F_ACC_RDONLY, &t);
    CHECK(ok, "relative_edited: subfile_dir=../elsewhere not taken against the stub's directory:\n%s", t.buf);
}

static void bad_names(void)
{
    char stub[4300], sdir[4300], vdir[4300], victim[8700], cfgfile[4400], p[8700];
    t_step(60, "bad_names");
    if (t_rank == 0)
        fresh_dir("victim");
    MPI_Barrier(MPI_COMM_WORLD);
    snprintf(stub, sizeof stub, "%s/stubs/names.h5", dir);
    snprintf(sdir, sizeof sdir, "%s/stubs", dir);
    snprintf(vdir, sizeof vdir, "%s/victim", dir);
    go("stubs");
    create(stub, "");
    MPI_Barrier(MPI_COMM_WORLD);
    uint64_t ino = inode_of(stub);
    snprintf(cfgfile, sizeof cfgfile, "%s.subfile_%llu.config", stub, (unsigned long long)ino);
    subfile_name(victim, sizeof victim, vdir, "names.h5", ino, 1);
    t_snap_t *before = calloc(1, sizeof *before), *after = calloc(1, sizeof *after);
    if (t_rank == 0) {
        size_t n;
        char   name[300];
        snprintf(name, sizeof name, "\nnames.h5.subfile_%llu_1_of_%d\n", (unsigned long long)ino, NSUB);
        char *text = t_slurp(cfgfile, &n), *at = strstr(text, name), *out = malloc(n + 64);
        if (!at)
            t_die_io("find the first subfile name in", cfgfile);
        int w = snprintf(out, n + 64, "%.*s\n../victim/%s", (int)(at - text), text, at + 1);
        t_spit(cfgfile, out, (size_t)w);
        free(text);
        free(out);
        t_spit(victim, "precious", 8);
        t_snapshot(sdir, "names.h5", before);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    t_errtext_t t;
    for (int rw = 0; rw < 2; rw++) {
        hid_t fapl = fapl_with("");
        hid_t f    = H5Fopen(stub, rw ? H5F_ACC_RDWR : H5F_ACC_RDONLY, fapl);
        if (f < 0)
            t_errors(&t);
        else
            H5Fclose(f);
        H5Pclose(fapl);
        CHECK(t_count(f < 0) == t_size,
              "bad_names: %s open of a config file with an edited subfile name "
              "succeeded on %d of %d ranks",
              rw ? "read-write" : "read-only", t_size - t_count(f < 0), t_size);
        if (f < 0)
            CHECK(strstr(t.buf, "is not the name of subfile 1") != NULL, "bad_names: error does not say why:\n%s",
                  t.buf);
    }
    hid_t  fapl = fapl_with("");
    herr_t rc   = H5Fdelete(stub, fapl);
    if (rc < 0)
        t_errors(&t);
    H5Pclose(fapl);
    CHECK(t_count(rc < 0) == t_size, "bad_names: H5Fdelete with an edited subfile name succeeded");
    if (rc < 0)
        CHECK(strstr(t.buf, "is not the name of subfile 1") != NULL, "bad_names: H5Fdelete error does not say why:\n%s",
              t.buf);
    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == 0) {
        char        why[700];
        struct stat st;
        t_snapshot(sdir, "names.h5", after);
        CHECK(!t_snap_diff(before, after, false, why, sizeof why), "bad_names: files changed: %s", why);
        for (int k = 1; k <= NSUB; k++) {
            subfile_name(p, sizeof p, sdir, "names.h5", ino, k);
            CHECK(stat(p, &st) == 0, "bad_names: subfile %s was removed", p);
        }
        CHECK(stat(stub, &st) == 0 && stat(cfgfile, &st) == 0, "bad_names: stub or config file removed");
        size_t n;
        char  *v = t_slurp(victim, &n);
        CHECK(n == 8 && memcmp(v, "precious", 8) == 0, "bad_names: %s outside the file was changed", victim);
        free(v);
    }
    free(before);
    free(after);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv, "t_subfiledir");
    if (argc < 3) {
        if (t_rank == 0)
            fprintf(stderr, "usage: mpiexec -n 3 t_subfiledir DIR CONFIG\n");
        MPI_Finalize();
        return 2;
    }
    t_mkdir_world(argv[1]);
    if (!realpath(argv[1], dir))
        t_die_io("resolve", argv[1]);
    snprintf(cfg, sizeof cfg, "%s", argv[2]);
    if (t_rank == 0) {
        fresh_dir("stubs");
        printf("t_subfiledir: config \"%s\", %s\n", cfg, dir);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    relative_create();
    relative_edited();
    bad_names();
    return t_finish();
}
