/*
 * t_damaged.c -- opening damaged files.
 *
 * For each case a good file is created (a 64 KiB dataset of a known pattern
 * over 4 subfiles of 4 KiB stripes), then rank 0 damages it, then every rank
 * opens it read-only and read-write.  h5sf must not crash; it must fail on
 * EVERY rank with an error that names what is wrong, or, where reading is
 * still well defined (stray extra files), succeed with the right data; a
 * read-only open must leave every file byte-for-byte and timestamp-for-
 * timestamp alone; a failed read-write open must not truncate or change
 * anything.  The opens, failed or not, must not leak file descriptors.
 *
 * usage: mpiexec -n 4 t_damaged DIR CONFIG   (CONFIG: h5sf config string)
 */
#include <mpi.h>
#include <hdf5.h>
#include "h5sf.h"
#include "h5sf_test.h"

#define NBYTES (64 * 1024)
#define SEED   7u
#define SCOUNT 4

enum expect { FAILS, WORKS, FAILS_OR_READ_FAILS };

typedef struct dcase {
    const char *name;
    void (*damage)(void);
    enum expect expect;
    const char *must; /* text in the error ("" = anything) */
} dcase_t;

static char     dir[4096], cfg[512], stub[8192], cfgfile[8300], sub[SCOUNT][8300];
static uint64_t inode;

/* ---- damage (rank 0) ---------------------------------------------------- */

static off_t fsize(const char *p)
{
    struct stat st;
    if (stat(p, &st) < 0)
        t_die_io("stat", p);
    return st.st_size;
}

static void cut(const char *p, off_t n)
{
    if (truncate(p, n) < 0)
        t_die_io("truncate", p);
}

static void rm(const char *p)
{
    if (unlink(p) < 0)
        t_die_io("remove", p);
}

/* Cut the config file just after the first occurrence of key + k bytes. */
static void cut_config_after(const char *key, size_t k)
{
    size_t n;
    char  *t = t_slurp(cfgfile, &n), *at = strstr(t, key);
    if (!at)
        t_die_io("find key in", cfgfile);
    cut(cfgfile, (off_t)(at - t) + (off_t)k);
    free(t);
}

/* Replace the value of "key=" in the config file. */
static void edit_config(const char *key, const char *value)
{
    size_t n;
    char  *t = t_slurp(cfgfile, &n), *at = strstr(t, key), *out = malloc(n + 256);
    if (!at)
        t_die_io("find key in", cfgfile);
    char *eol = strchr(at, '\n');
    int   w   = snprintf(out, n + 256, "%.*s%s%s%s", (int)(at - t), t, key, value, eol ? eol : "");
    t_spit(cfgfile, out, (size_t)w);
    free(t);
    free(out);
}

/* Overwrite bytes at (offset of "Subfilin" + 8 + at) in f, if it has one. */
static int poke_drvinfo(const char *f, ptrdiff_t at, const void *bytes, size_t n)
{
    size_t len;
    char  *b     = t_slurp(f, &len);
    int    found = 0;
    for (size_t i = 0; i + 8 <= len && i < 4096; i++)
        if (!memcmp(b + i, "Subfilin", 8) && (ptrdiff_t)i + 8 + at >= 0) {
            memcpy(b + i + 8 + at, bytes, n);
            t_spit(f, b, len);
            found = 1;
            break;
        }
    free(b);
    return found;
}

/* Both copies of the superblock: the one HDF5 reads (subfile 1, logical
 * offset 0) and the stub's mirror. */
static void poke_both(ptrdiff_t at, const void *bytes, size_t n)
{
    if (!poke_drvinfo(sub[0], at, bytes, n))
        t_die_io("find the driver info block in", sub[0]);
    poke_drvinfo(stub, at, bytes, n);
}

static void d_config_missing(void) { rm(cfgfile); }
static void d_config_empty(void) { cut(cfgfile, 0); }
static void d_config_cut_key(void) { cut_config_after("subfile_count=", 5); }
static void d_config_cut_name(void) { cut(cfgfile, fsize(cfgfile) - 6); }
static void d_config_garbage(void)
{
    unsigned char g[300];
    for (size_t i = 0; i < sizeof g; i++)
        g[i] = t_pat(99, i);
    t_spit(cfgfile, g, sizeof g);
}
static void d_config_stripe(void) { edit_config("stripe_size=", "8192"); }
static void d_config_count(void) { edit_config("subfile_count=", "3"); }
static void d_subfile_missing(void) { rm(sub[2]); }
static void d_stub_only(void)
{
    for (int s = 0; s < SCOUNT; s++)
        rm(sub[s]);
}
static void d_stub_alone(void)
{
    d_stub_only();
    rm(cfgfile);
}
/* The logical EOF comes from the longest subfile: shorten one that does not
 * hold the last stripe, so the EOF still looks complete. */
static void d_subfile_short(void)
{
    int last = 0;
    for (int s = 0; s < SCOUNT; s++)
        if (fsize(sub[s]) >= fsize(sub[last]))
            last = s;
    int victim = (last + 1) % SCOUNT;
    cut(sub[victim], fsize(sub[victim]) / 2);
}
static void d_subfile_short_last(void)
{
    int last = 0;
    for (int s = 0; s < SCOUNT; s++)
        if (fsize(sub[s]) >= fsize(sub[last]))
            last = s;
    cut(sub[last], fsize(sub[last]) - 100);
}
static void d_subfile_extra(void)
{
    char          p[8300];
    unsigned char g[5000];
    t_fill(g, sizeof g, 5, 0);
    snprintf(p, sizeof p, "%s/%s.subfile_%llu_5_of_4", dir, strrchr(stub, '/') + 1, (unsigned long long)inode);
    t_spit(p, g, sizeof g);
    snprintf(p, sizeof p, "%s/%s.subfile_%llu_1_of_8", dir, strrchr(stub, '/') + 1, (unsigned long long)inode);
    t_spit(p, g, sizeof g);
}
static void d_drvinfo_magic(void) { poke_both(0, "\xde\xad\xbe\xef", 4); }
static void d_drvinfo_count(void)
{
    static const unsigned char zero[8] = {0};
    poke_both(20, zero, 8); /* Subfilin stripe_count */
}
static void d_drvinfo_prefix(void)
{
    static const unsigned char big[8] = {0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0};
    poke_both(28, big, 8); /* config prefix length past the block */
}
static void d_drvinfo_prefix_long(void)
{
    /* Past the 73-byte block HDF5 read, but under the 4096 of a path: the
     * decoder used to read that far past HDF5's buffer. */
    static const unsigned char len2000[8] = {0xd0, 0x07, 0, 0, 0, 0, 0, 0};
    poke_both(28, len2000, 8);
}
static void d_drvinfo_declared_short(void)
{
    /* The version 0/1 block's declared length (4 bytes before its name),
     * 20 instead of 73: HDF5 hands the decoder a 20-byte buffer, which it
     * used to read as if it held H5SF_DRVINFO_MAX bytes (a heap overread
     * under ASan, heap bytes in the error text without it). */
    static const unsigned char len20[4] = {20, 0, 0, 0};
    poke_both(-12, len20, 4);
}
static void d_drvinfo_iocname(void) { poke_both(36, "XYZ", 3); /* nested "IOC" block (no prefix) */ }
static void d_drvinfo_disagree(void)
{
    static const unsigned char one[8] = {1, 0, 0, 0, 0, 0, 0, 0};
    poke_both(36 + 9 + 20, one, 8); /* IOC block stripe_count 1, Subfilin says 4 */
}

static const dcase_t cases[] = {
    {"config_missing", d_config_missing, FAILS, "config file"},
    {"config_empty", d_config_empty, FAILS, "config file"},
    {"config_cut_key", d_config_cut_key, FAILS, "config file"},
    {"config_cut_name", d_config_cut_name, FAILS, "config file"},
    {"config_garbage", d_config_garbage, FAILS, "config file"},
    {"config_stripe", d_config_stripe, FAILS, "disagrees"},
    {"config_count", d_config_count, FAILS, "config file"},
    {"subfile_missing", d_subfile_missing, FAILS, "_3_of_4"},
    {"stub_only", d_stub_only, FAILS, "_of_4"},
    {"stub_alone", d_stub_alone, FAILS, "config file"},
    {"subfile_short", d_subfile_short, FAILS_OR_READ_FAILS, ""},
    {"subfile_short_last", d_subfile_short_last, FAILS_OR_READ_FAILS, ""},
    {"subfile_extra", d_subfile_extra, WORKS, ""},
    {"drvinfo_magic", d_drvinfo_magic, FAILS, "driver info"},
    {"drvinfo_count", d_drvinfo_count, FAILS, "driver info"},
    {"drvinfo_prefix", d_drvinfo_prefix, FAILS, "driver info"},
    {"drvinfo_prefix_long", d_drvinfo_prefix_long, FAILS, "does not fit"},
    {"drvinfo_iocname", d_drvinfo_iocname, FAILS, "driver info"},
    {"drvinfo_declared_short", d_drvinfo_declared_short, FAILS, "truncated"},
    {"drvinfo_disagree", d_drvinfo_disagree, FAILS, "driver info"},
};
#define NCASES (sizeof cases / sizeof cases[0])

/* ---- the test ----------------------------------------------------------- */

static void create_good(const char *name)
{
    snprintf(stub, sizeof stub, "%s/%s.h5", dir, name);
    hid_t fapl = t_fapl(cfg);
    hid_t f    = H5Fcreate(stub, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    if (f < 0) {
        fprintf(stderr, "[rank %d] cannot create %s\n", t_rank, stub);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    hid_t          d   = t_dset_create(f, "d", NBYTES);
    unsigned char *buf = malloc(NBYTES / 4);
    for (int q = t_rank; q < 4; q += t_size) { /* quarters, round robin */
        uint64_t off = (uint64_t)q * (NBYTES / 4);
        t_fill(buf, NBYTES / 4, SEED, off);
        CHECK(t_dset_io(d, 1, off, NBYTES / 4, buf, H5P_DEFAULT, NULL) >= 0, "writing the good file failed");
    }
    H5Dclose(d);
    CHECK(H5Fclose(f) >= 0, "closing the good file failed");
    H5Pclose(fapl);
    free(buf);

    struct stat st;
    if (stat(stub, &st) < 0)
        t_die_io("stat", stub);
    inode = (uint64_t)st.st_ino;
    snprintf(cfgfile, sizeof cfgfile, "%s.subfile_%llu.config", stub, (unsigned long long)inode);
    for (int s = 0; s < SCOUNT; s++)
        snprintf(sub[s], sizeof sub[s], "%s.subfile_%llu_%d_of_%d", stub, (unsigned long long)inode, s + 1, SCOUNT);
}

/* Read the whole dataset; 1 if it matches the pattern, 0 if not, -1 if the
 * read failed (t gets the error). */
static int read_check(hid_t f, t_errtext_t *t)
{
    unsigned char *buf = malloc(NBYTES);
    hid_t          d   = H5Dopen2(f, "d", H5P_DEFAULT);
    int            r;
    if (d < 0) {
        t_errors(t);
        r = -1;
    }
    else if (t_dset_io(d, 0, 0, NBYTES, buf, H5P_DEFAULT, t) < 0)
        r = -1;
    else
        r = t_mismatch(buf, NBYTES, SEED, 0) == NBYTES;
    if (d >= 0)
        H5Dclose(d);
    free(buf);
    return r;
}

/* Open with flags and judge the outcome against the case. */
static void try_open(const dcase_t *c, unsigned flags)
{
    const char *mode = flags == H5F_ACC_RDONLY ? "read-only" : "read-write";
    t_errtext_t t;
    t_snap_t   *before = calloc(1, sizeof *before), *after = calloc(1, sizeof *after);
    char        prefix[600], why[700];
    snprintf(prefix, sizeof prefix, "%s.h5", c->name);
    if (t_rank == 0)
        t_snapshot(dir, prefix, before);
    MPI_Barrier(MPI_COMM_WORLD);

    t_step(60, "%s: %s open", c->name, mode);
    hid_t fapl = t_fapl(cfg);
    hid_t f    = H5Fopen(stub, flags, fapl);
    if (f < 0)
        t_errors(&t);
    int nopen = t_count(f >= 0);
    CHECK(nopen == 0 || nopen == t_size, "%s: %s open succeeded on %d of %d ranks only", c->name, mode, nopen, t_size);
    int rd = 1;
    if (f >= 0) {
        t_step(60, "%s: %s read", c->name, mode);
        rd = read_check(f, &t);
        t_step(60, "%s: %s close", c->name, mode);
        H5Fclose(f);
    }
    H5Pclose(fapl);
    int nread_failed = t_count(rd < 0), nwrong = t_count(rd == 0);

    switch (c->expect) {
        case WORKS:
            CHECK(f >= 0, "%s: %s open failed, but this damage leaves the file readable:\n%s", c->name, mode, t.buf);
            CHECK(rd == 1, "%s: %s: the data %s", c->name, mode, rd < 0 ? "could not be read" : "is wrong");
            break;
        case FAILS_OR_READ_FAILS:
            CHECK(nwrong == 0,
                  "%s: %s: the damage went unnoticed: the read returned wrong data on %d ranks "
                  "(silent data loss)",
                  c->name, mode, nwrong);
            CHECK(nopen == 0 || nread_failed == t_size, "%s: %s: only %d of %d ranks saw an error", c->name, mode,
                  nopen ? nread_failed : t_size, t_size);
            break;
        case FAILS:
            CHECK(f < 0, "%s: %s open of a damaged file succeeded (read %s)", c->name, mode,
                  rd < 0 ? "failed"
                  : rd   ? "gave the right data"
                         : "gave WRONG data");
            break;
    }
    /* HDF5 2.x writes newer superblocks by default, whose driver info sits
     * in a checksummed object header: HDF5 itself refuses the damaged bytes
     * ("incorrect metadata checksum") before h5sf could name them. */
    unsigned maj = 1, min, rel;
    H5get_libversion(&maj, &min, &rel);
    bool must = c->must[0] && !(maj >= 2 && !strncmp(c->name, "drvinfo_", 8) && strstr(t.buf, "checksum"));
    if ((f < 0 || rd < 0) && must)
        CHECK(strstr(t.buf, c->must) != NULL, "%s: %s: the error does not mention \"%s\":\n%s", c->name, mode, c->must,
              t.buf);
    if (t_rank == 0 && (f < 0 || rd < 0)) {
        /* The innermost entry (the last line) carries the reason. */
        size_t n = strlen(t.buf);
        while (n > 0 && t.buf[n - 1] == '\n')
            n--;
        size_t b = n;
        while (b > 0 && t.buf[b - 1] != '\n')
            b--;
        printf("  %-20s %-10s -> %s:%.*s\n", c->name, mode, f < 0 ? "open fails" : "read fails", (int)(n - b),
               t.buf + b);
    }
    else if (t_rank == 0)
        printf("  %-20s %-10s -> opens, data %s\n", c->name, mode, rd ? "correct" : "WRONG (not detected)");

    /* Nothing may change: read-only not even a timestamp; a failed
     * read-write open neither size nor contents. */
    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == 0 && (flags == H5F_ACC_RDONLY || f < 0)) {
        t_snapshot(dir, prefix, after);
        CHECK(!t_snap_diff(before, after, flags == H5F_ACC_RDONLY, why, sizeof why), "%s: %s open%s modified files: %s",
              c->name, mode, f < 0 ? " (failed)" : "", why);
    }
    free(before);
    free(after);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv, "t_damaged");
    if (argc < 3 || t_size < 2) {
        if (t_rank == 0)
            fprintf(stderr, "usage: mpiexec -n 4 t_damaged DIR CONFIG\n");
        MPI_Finalize();
        return 2;
    }
    snprintf(dir, sizeof dir, "%s", argv[1]);
    snprintf(cfg, sizeof cfg, "%s,stripe_size=4096,stripe_count=%d", argv[2], SCOUNT);
    /* An earlier run's damaged sets (subfiles whose config file is gone)
     * would block this run's creates of the same names (docs/security.md). */
    if (t_rank == 0)
        t_fresh_dir(dir);
    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == 0)
        printf("t_damaged: config \"%s\"\n", cfg);

    /* Warm up (plugin, IOC context) before descriptors are counted. */
    t_step(60, "warm-up");
    create_good("warmup");

    for (size_t i = 0; i < NCASES; i++) {
        t_step(60, "%s: create", cases[i].name);
        create_good(cases[i].name);
        MPI_Barrier(MPI_COMM_WORLD);
        if (t_rank == 0)
            cases[i].damage();
        MPI_Barrier(MPI_COMM_WORLD);
        int fds0 = t_count_fds();
        try_open(&cases[i], H5F_ACC_RDONLY);
        try_open(&cases[i], H5F_ACC_RDWR);
        int fds1 = t_count_fds();
        CHECK(fds1 == fds0, "%s: the two opens leaked file descriptors: %d open before, %d after", cases[i].name, fds0,
              fds1);
    }
    return t_finish();
}
