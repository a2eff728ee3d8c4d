/*
 * t_agree.c -- ranks whose environments differ still open, write and close
 * a file together: rank 0's settings are every rank's.
 *
 * Before H5Fcreate each rank sets H5SF_* variables of its own (as a wrapper
 * script or a setenv() in the program could), one case per setting that
 * shapes a collective step, and one with all of them at once:
 *   fsync    H5SF_FSYNC=1 on even ranks (rank 0 too), 0 on odd ones
 *   stats    H5SF_STATS=1 on rank 0 only
 *   channel  H5SF_CHANNEL: rank 0 the test's channel, odd ranks the other
 *   stripe   H5SF_STRIPE_SIZE / H5SF_STRIPE_COUNT: 64 KiB and 3 on rank 0,
 *            (rank+1) * 4 KiB and rank+1 elsewhere
 *   ioc      H5SF_IOC=total:1 and H5SF_THREADS=2 on rank 0, every:1 and 3
 *            elsewhere
 *   all      every one of the above
 * Each rank writes its own slab of a byte dataset (a known pattern of the
 * logical offset), the file is flushed and closed; then, with the variables
 * the same on every rank again, every rank reopens it read-only and compares
 * every byte with the pattern.  While the file is open every rank checks
 * that the channel and stripe layout are rank 0's.  Before rank 0's
 * settings were shared, differing ranks took different collective paths and
 * hung: the watchdog (t_step) turns that into a failure naming the case.
 * usage: t_agree DIR [CASE]   (H5SF_CHANNEL=ioc|direct in the environment;
 *        CASE runs that case alone)
 */
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "h5sf.h"
#include "h5sf_test.h"

#define SLAB 70000 /* bytes per rank: not a multiple of any stripe size */
#define STEP 60    /* seconds any one case may take */

static const char *the_channel, *other_channel, *dir;


static void set(const char *var, const char *value) { setenv(var, value, 1); }

static void set_int(const char *var, long v)
{
    char b[32];
    snprintf(b, sizeof b, "%ld", v);
    setenv(var, b, 1);
}

/* This rank's variables for a case (rank 0's are the ones that must win). */
static void set_case(const char *c)
{
    bool all = !strcmp(c, "all");
    if (all || !strcmp(c, "fsync"))
        set("H5SF_FSYNC", t_rank % 2 == 0 ? "1" : "0");
    if (all || !strcmp(c, "stats"))
        set("H5SF_STATS", t_rank == 0 ? "1" : "0");
    if (all || !strcmp(c, "channel"))
        set("H5SF_CHANNEL", t_rank % 2 ? other_channel : the_channel);
    if (all || !strcmp(c, "stripe")) {
        set_int("H5SF_STRIPE_SIZE", t_rank == 0 ? 65536 : 4096L * (t_rank + 1));
        set_int("H5SF_STRIPE_COUNT", t_rank == 0 ? 3 : t_rank + 1);
    }
    if (all || !strcmp(c, "ioc")) {
        set("H5SF_IOC", t_rank == 0 ? "total:1" : "every:1");
        set_int("H5SF_THREADS", t_rank == 0 ? 2 : 3);
    }
}

/* The same variables on every rank again. */
static void reset_env(void)
{
    const char *vars[] = {"H5SF_FSYNC",        "H5SF_STATS", "H5SF_STRIPE_SIZE",
                          "H5SF_STRIPE_COUNT", "H5SF_IOC",   "H5SF_THREADS"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        unsetenv(vars[i]);
    set("H5SF_CHANNEL", the_channel);
}

/* What rank 0 asked for, checked on every rank while the file is open. */
static void check_layout(const char *c, hid_t f)
{
    H5FD_h5sf_layout_t l;
    bool               stripe  = !strcmp(c, "stripe") || !strcmp(c, "all");
    int                want_ch = strcmp(the_channel, "ioc") ? H5FD_H5SF_CHANNEL_DIRECT : H5FD_H5SF_CHANNEL_IOC;
    if (H5FD_h5sf_get_layout(f, &l) < 0) {
        CHECK(0, "%s: H5FD_h5sf_get_layout failed", c);
        return;
    }
    CHECK(l.channel == want_ch, "%s: channel %d, want rank 0's %s", c, (int)l.channel, the_channel);
    if (stripe) {
        CHECK(l.stripe_size == 65536, "%s: stripe_size %lld, want rank 0's 65536", c, (long long)l.stripe_size);
        CHECK(l.stripe_count == 3, "%s: stripe_count %d, want rank 0's 3", c, l.stripe_count);
    }
    if (!strcmp(c, "ioc") || !strcmp(c, "all"))
        CHECK(l.ioc_count == 1, "%s: %d IOCs, want rank 0's total:1", c, l.ioc_count);
}

static void write_case(const char *c, const char *path)
{
    hsize_t        n = (hsize_t)SLAB * (hsize_t)t_size, start = (hsize_t)SLAB * (hsize_t)t_rank, count = SLAB;
    unsigned char *buf = malloc(SLAB);
    for (hsize_t i = 0; i < count; i++)
        buf[i] = t_pat(7, start + i);
    hid_t p = t_fapl(""), f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, p);
    CHECK(f >= 0, "%s: H5Fcreate failed", c);
    if (f >= 0) {
        check_layout(c, f);
        hid_t sp = H5Screate_simple(1, &n, NULL), ms = H5Screate_simple(1, &count, NULL);
        hid_t d = H5Dcreate2(f, "d", H5T_NATIVE_UCHAR, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        H5Sselect_hyperslab(sp, H5S_SELECT_SET, &start, NULL, &count, NULL);
        CHECK(H5Dwrite(d, H5T_NATIVE_UCHAR, ms, sp, H5P_DEFAULT, buf) >= 0, "%s: H5Dwrite failed", c);
        CHECK(H5Fflush(f, H5F_SCOPE_GLOBAL) >= 0, "%s: H5Fflush failed", c);
        H5Sclose(ms);
        H5Sclose(sp);
        H5Dclose(d);
        CHECK(H5Fclose(f) >= 0, "%s: H5Fclose failed", c);
    }
    H5Pclose(p);
    free(buf);
}

static void read_case(const char *c, const char *path)
{
    size_t         n   = (size_t)SLAB * (size_t)t_size;
    unsigned char *buf = malloc(n);
    hid_t          p = t_fapl(""), f = H5Fopen(path, H5F_ACC_RDONLY, p), d = -1;
    CHECK(f >= 0, "%s: reopening with the same settings everywhere failed", c);
    if (f >= 0 && (d = H5Dopen2(f, "d", H5P_DEFAULT)) >= 0 &&
        H5Dread(d, H5T_NATIVE_UCHAR, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0) {
        for (size_t i = 0; i < n; i++)
            if (buf[i] != t_pat(7, i)) {
                CHECK(0, "%s: byte %zu (rank %zu's slab) is %u, want %u", c, i, i / SLAB, buf[i], t_pat(7, i));
                break;
            }
    }
    else if (f >= 0)
        CHECK(0, "%s: reading the dataset back failed", c);
    if (d >= 0)
        H5Dclose(d);
    if (f >= 0)
        CHECK(H5Fclose(f) >= 0, "%s: closing the reopened file failed", c);
    H5Pclose(p);
    free(buf);
}

int main(int argc, char **argv)
{
    static const char *cases[] = {"fsync", "stats", "channel", "stripe", "ioc", "all"};
    t_init(&argc, &argv, "t_agree");
    the_channel = getenv("H5SF_CHANNEL");
    if (argc < 2 || argc > 3 || !the_channel || (strcmp(the_channel, "ioc") && strcmp(the_channel, "direct"))) {
        if (t_rank == 0)
            fprintf(stderr, "usage: H5SF_CHANNEL=ioc|direct t_agree DIR [CASE]\n");
        MPI_Finalize();
        return 2;
    }
    the_channel   = strcmp(the_channel, "ioc") ? "direct" : "ioc"; /* a copy: setenv may free it */
    other_channel = strcmp(the_channel, "ioc") ? "ioc" : "direct";
    dir           = argv[1];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[4200];
        if (argc == 3 && strcmp(argv[2], cases[i]))
            continue;
        snprintf(path, sizeof path, "%s/agree_%s.h5", dir, cases[i]);
        t_step(STEP, "%s: write with rank-dependent settings", cases[i]);
        set_case(cases[i]);
        write_case(cases[i], path);
        reset_env();
        t_step(STEP, "%s: read back with uniform settings", cases[i]);
        read_case(cases[i], path);
    }
    int rc = t_verdict();
    MPI_Finalize();
    return rc;
}
