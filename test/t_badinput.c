/*
 * t_badinput.c -- every setting with invalid values: config-string keys,
 * H5SF_* environment variables and the built-in driver's fallback variables.
 *
 * For each case H5Fcreate must fail on EVERY rank (a split outcome or a hang
 * is a failure; the watchdog names the case), the HDF5 error stack must name
 * the offending key or variable, and, for settings that are checked before
 * any I/O, no stub file may be left behind.  A positive control before and
 * after the cases proves the base settings work and the environment was
 * restored.  One extra case sets a bad value on one rank only: the others
 * must fail too, with that rank's message.
 *
 * usage: mpiexec -n 4 t_badinput DIR [CHANNEL]   (CHANNEL: ioc (default) or direct;
 *        with direct, only the cases that reach the file system)
 */
#include <mpi.h>
#include <hdf5.h>
#include "h5sf.h"
#include "h5sf_test.h"

typedef struct bad {
    char        kind;  /* 'c': config-string key, 'e': environment variable */
    const char *name;  /* key or variable */
    const char *value; /* "@" is replaced by the test directory */
    const char *must;  /* text the error must contain ("" = the name) */
    int         early; /* rejected before any file is touched */
} bad_t;

static const bad_t cases[] = {
    /* config string: sizes */
    {'c', "stripe_size", "0", "", 1},
    {'c', "stripe_size", "-1", "", 1},
    {'c', "stripe_size", "abc", "", 1},
    {'c', "stripe_size", "99999999999999999999", "", 1},
    {'c', "stripe_size", "8388608TiB", "", 1},
    {'c', "stripe_size", "1XB", "", 1},
    {'c', "stripe_size", "1.5MiB", "", 1},
    {'c', "stripe_size", "", "", 1},
    /* 2^62-byte stripes over 5 subfiles: past the address space */
    {'c', "stripe_size", "4611686018427387904,stripe_count=5", "address space", 1},
    /* counts */
    {'c', "stripe_count", "-1", "", 1},
    {'c', "stripe_count", "abc", "", 1},
    {'c', "stripe_count", "65537", "", 1},
    {'c', "stripe_count", "4294967297", "", 1},
    {'c', "stripe_count", "2.5", "", 1},
    {'c', "threads", "0", "", 1},
    {'c', "threads", "-4", "", 1},
    {'c', "threads", "257", "", 1},
    {'c', "threads", "four", "", 1},
    {'c', "timeout", "0", "", 1},
    {'c', "timeout", "-1", "", 1},
    {'c', "timeout", "86401", "", 1},
    {'c', "timeout", "99999999999", "", 1},
    {'c', "timeout", "10s", "", 1},
    {'c', "fsync", "2", "", 1},
    {'c', "fsync", "maybe", "", 1},
    {'c', "channel", "mpiio", "", 1},
    /* IOC selection */
    {'c', "ioc", "bogus", "", 1},
    {'c', "ioc", "per_node:0", "", 1},
    {'c', "ioc", "per_node:x", "", 1},
    {'c', "ioc", "every", "", 1},
    {'c', "ioc", "every:0", "", 1},
    {'c', "ioc", "total:-1", "", 1},
    {'c', "ioc", "total:", "", 1},
    {'c', "ioc", "total:99999999999", "", 1},
    {'c', "ioc", "ranks:", "", 1},
    {'c', "ioc", "ranks:-1", "", 1},
    {'c', "ioc", "ranks:0;;1", "", 1},
    {'c', "ioc", "ranks:1;1", "", 1},
    {'c', "ioc", "ranks:0;4", "", 1}, /* 4 ranks: 0..3 */
    {'c', "ioc", "ranks:99999999999", "", 1},
    /* syntax */
    {'c', "stripesize", "4096", "unknown key", 1},
    {'c', "stripe_size", NULL, "not key=value", 1}, /* "stripe_size" alone */
    {'c', "subfile_dir", "\"@/unterminated", "unterminated", 1},
    /* directories that cannot be used (as root, permissions do not stop
     * us: use a path through a regular file, and one in /proc) */
    {'c', "subfile_dir", "@/plainfile/sub", "@/plainfile", 0},
    {'c', "subfile_dir", "/proc/h5sf-no-such-dir/sub", "/proc/h5sf-no-such-dir", 0},
    {'c', "config_dir", "@/no-such-config-dir", "@/no-such-config-dir", 0},
    {'c', "config_dir", "@/plainfile", "@/plainfile", 0},

    /* environment: ours */
    {'e', "H5SF_STRIPE_SIZE", "0", "", 1},
    {'e', "H5SF_STRIPE_SIZE", "-5", "", 1},
    {'e', "H5SF_STRIPE_SIZE", "lots", "", 1},
    {'e', "H5SF_STRIPE_SIZE", "1ZiB", "", 1},
    {'e', "H5SF_STRIPE_SIZE", "18446744073709551616", "", 1},
    {'e', "H5SF_STRIPE_COUNT", "-1", "", 1},
    {'e', "H5SF_STRIPE_COUNT", "65537", "", 1},
    {'e', "H5SF_STRIPE_COUNT", "x", "", 1},
    {'e', "H5SF_IOC", "sometimes", "", 1},
    {'e', "H5SF_IOC", "total:0", "", 1},
    {'e', "H5SF_IOC", "ranks:2;2", "", 1},
    {'e', "H5SF_IOC", "ranks:0;9", "", 1},
    {'e', "H5SF_THREADS", "0", "", 1},
    {'e', "H5SF_THREADS", "100000", "", 1},
    {'e', "H5SF_CHANNEL", "fast", "", 1},
    {'e', "H5SF_FSYNC", "sometimes", "", 1},
    {'e', "H5SF_TIMEOUT", "0", "", 1},
    {'e', "H5SF_TIMEOUT", "-3", "", 1},
    {'e', "H5SF_TIMEOUT", "forever", "", 1},
    {'e', "H5SF_IOC_MEMORY", "1MiB", "", 1},
    {'e', "H5SF_IOC_MEMORY", "-1", "", 1},
    {'e', "H5SF_IOC_MEMORY", "plenty", "", 1},
    {'e', "H5SF_IOC_MEMORY", "72057594037927936", "at most", 1}, /* 2^56: no slot at all */
    {'e', "H5SF_IOC_MEMORY", "32768TiB", "at most", 1},          /* a negative slot count */
    {'e', "H5SF_IOC_MAX_FDS", "0", "", 1},
    {'e', "H5SF_IOC_MAX_FDS", "many", "", 1},
    {'e', "H5SF_IOC_MERGE_WAIT", "-1", "", 1},
    {'e', "H5SF_IOC_MERGE_WAIT", "soon", "", 1},
    {'e', "H5SF_SAMENODE_READS", "2", "", 1},
    {'e', "H5SF_SAMENODE_WRITES", "yes", "", 1},
    /* their old names, still read: the error names the one set */
    {'e', "H5SF_IOC_LOCAL_READS", "2", "", 1},
    {'e', "H5SF_IOC_LOCAL_WRITES", "yes", "", 1},
    {'e', "H5SF_IOC_AFFINITY", "core0", "", 1},
    {'e', "H5SF_POOL_THREADS", "16", "", 1},
    {'e', "H5SF_POOL_THREADS", "-1", "", 1},
    {'e', "H5SF_POOL_THREADS", "some", "", 1},
    {'e', "H5SF_SUBFILE_DIR", "@/plainfile/sub", "@/plainfile", 0},
    {'e', "H5SF_CONFIG_DIR", "@/no-such-config-dir", "@/no-such-config-dir", 0},
    /* environment: the built-in driver's variables */
    {'e', "H5FD_SUBFILING_STRIPE_SIZE", "0", "", 1},
    {'e', "H5FD_SUBFILING_STRIPE_SIZE", "big", "", 1},
    {'e', "H5FD_SUBFILING_IOC_PER_NODE", "0", "", 1},
    {'e', "H5FD_SUBFILING_IOC_PER_NODE", "-2", "", 1},
    {'e', "H5FD_SUBFILING_IOC_SELECTION_CRITERIA", "2:1", "", 1},
    {'e', "H5FD_SUBFILING_IOC_SELECTION_CRITERIA", "7:1", "", 1},
    {'e', "H5FD_SUBFILING_IOC_SELECTION_CRITERIA", "1:0", "", 1},
    {'e', "H5FD_SUBFILING_IOC_SELECTION_CRITERIA", "x", "", 1},
    {'e', "H5FD_IOC_THREAD_POOL_SIZE", "0", "", 1},
    {'e', "H5FD_IOC_THREAD_POOL_SIZE", "1e3", "", 1},
    {'e', "H5FD_SUBFILING_SUBFILE_PREFIX", "@/plainfile/sub", "@/plainfile", 0},
    {'e', "H5FD_SUBFILING_CONFIG_FILE_PREFIX", "@/no-such-config-dir", "@/no-such-config-dir", 0},
};
#define NCASES (sizeof cases / sizeof cases[0])

static char dir[4096], base_cfg[256];

/* s with "@" replaced by the test directory. */
static void expand(const char *s, char *out, size_t n)
{
    size_t k = 0;
    for (; s && *s && k + 1 < n; s++) {
        if (*s == '@') {
            int w = snprintf(out + k, n - k, "%s", dir);
            k     = w > 0 && (size_t)w < n - k ? k + (size_t)w : n - 1;
        }
        else
            out[k++] = *s;
    }
    out[k] = '\0';
}

/* Create a small file; 1 if it worked on every rank, 0 if it failed on every
 * rank; a split outcome is a failure (and the file is closed). */
static int try_create(const char *path, const char *cfg, t_errtext_t *t, int *split)
{
    hid_t fapl = t_fapl(cfg);
    hid_t f    = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    if (f < 0)
        t_errors(t);
    int n  = t_count(f >= 0);
    *split = n != 0 && n != t_size;
    if (f >= 0) {
        hid_t d = t_dset_create(f, "d", 4096);
        H5Dclose(d);
        H5Fclose(f);
    }
    H5Pclose(fapl);
    return n == t_size;
}

static void control(const char *when)
{
    t_errtext_t t;
    char        path[4200];
    int         split;
    t_step(60, "positive control %s", when);
    snprintf(path, sizeof path, "%s/control_%s.h5", dir, when);
    CHECK(try_create(path, base_cfg, &t, &split), "the base settings \"%s\" do not work (%s):\n%s", base_cfg, when,
          t.buf);
}

static void run_case(size_t i)
{
    const bad_t *b = &cases[i];
    char         val[4200], must[4200], cfg[8600], path[4200], show[8700];
    t_errtext_t  t;
    int          split;

    expand(b->value, val, sizeof val);
    expand(b->must[0] ? b->must : b->name, must, sizeof must);
    snprintf(path, sizeof path, "%s/case%03zu.h5", dir, i);
    if (b->kind == 'c') {
        if (b->value)
            snprintf(cfg, sizeof cfg, "%s,%s=%s", base_cfg, b->name, val);
        else
            snprintf(cfg, sizeof cfg, "%s,%s", base_cfg, b->name);
        snprintf(show, sizeof show, "config \"...%s\"", cfg + strlen(base_cfg));
    }
    else {
        snprintf(cfg, sizeof cfg, "%s", base_cfg);
        setenv(b->name, val, 1);
        snprintf(show, sizeof show, "%s=\"%s\"", b->name, val);
    }
    t_step(30, "case %zu: %s", i, show);
    int ok = try_create(path, cfg, &t, &split);
    if (b->kind == 'e')
        unsetenv(b->name);

    CHECK(!split, "%s: H5Fcreate succeeded on some ranks and failed on others", show);
    CHECK(!ok, "%s was accepted: H5Fcreate succeeded", show);
    if (!ok && !split) {
        CHECK(strstr(t.buf, must) != NULL, "%s: the error does not name \"%s\":\n%s", show, must, t.buf);
        if (t_rank == 0) {
            /* The innermost h5sf entry is the reason; show it for the docs. */
            const char *why = strstr(t.buf, "h5sf_open(): ");
            printf("  %-60.60s -> %.*s\n", show, why ? (int)strcspn(why, "\n") : 60, why ? why : t.buf);
        }
    }
    if (b->early && t_rank == 0 && !ok)
        CHECK(access(path, F_OK) != 0, "%s: a stub %s was left behind by a create that should fail before any I/O",
              show, path);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* A bad value on one rank only: every rank must fail, none may hang. */
static void one_rank_case(void)
{
    t_errtext_t t;
    char        path[4200];
    int         split;
    snprintf(path, sizeof path, "%s/onerank.h5", dir);
    t_step(30, "H5SF_STRIPE_SIZE=bad on rank %d only", t_size - 1);
    if (t_rank == t_size - 1)
        setenv("H5SF_STRIPE_SIZE", "bad", 1);
    int ok = try_create(path, base_cfg, &t, &split);
    unsetenv("H5SF_STRIPE_SIZE");
    CHECK(!split && !ok, "a bad H5SF_STRIPE_SIZE on rank %d only did not fail the create everywhere (split %d)",
          t_size - 1, split);
    if (!ok)
        CHECK(strstr(t.buf, "H5SF_STRIPE_SIZE") != NULL, "one-rank case: the error does not name the variable:\n%s",
              t.buf);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv, "t_badinput");
    if (argc < 2) {
        if (t_rank == 0)
            fprintf(stderr, "usage: mpiexec -n 4 t_badinput DIR [ioc|direct]\n");
        MPI_Finalize();
        return 2;
    }
    snprintf(dir, sizeof dir, "%s", argv[1]);
    snprintf(base_cfg, sizeof base_cfg, "channel=%s,ioc=total:2,stripe_size=4096", argc > 2 ? argv[2] : "ioc");
    t_mkdir_world(dir);
    if (t_rank == 0) { /* files of an earlier run would look like leftovers of failed creates */
        DIR           *dp = opendir(dir);
        struct dirent *de;
        char           p[4096 + 260];
        while (dp && (de = readdir(dp)))
            if (!strncmp(de->d_name, "case", 4)) {
                snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
                unlink(p);
            }
        if (dp)
            closedir(dp);
    }
    if (t_rank == 0) { /* a regular file to put "directories" under */
        char p[4200];
        snprintf(p, sizeof p, "%s/plainfile", dir);
        FILE *fp = fopen(p, "w");
        if (fp)
            fclose(fp);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    /* Variables a user might have set would change the outcome. */
    for (size_t i = 0; i < NCASES; i++)
        if (cases[i].kind == 'e')
            unsetenv(cases[i].name);
    if (t_rank == 0)
        printf("t_badinput: base settings \"%s\"; %zu cases, rank 0's reason for each:\n", base_cfg, NCASES);

    /* The parsers do not depend on the channel: with the direct channel only
     * the cases that reach the file system are run again. */
    int direct = strcmp(base_cfg, "channel=direct") == 0 || strstr(base_cfg, "channel=direct,") != NULL;
    control("before");
    for (size_t i = 0; i < NCASES; i++)
        if (!direct || !cases[i].early)
            run_case(i);
    one_rank_case();
    control("after");
    return t_finish();
}
