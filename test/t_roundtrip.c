/*
 * t_roundtrip -- write and read back through h5sf, compared with a pattern
 * and with the same data written through the MPI-IO driver.
 *
 * For every stripe setting (stripe_size x stripe_count) and both channels
 * (ioc, direct) each rank writes seven datasets with different selection
 * kinds (contiguous slab, strided 4 KiB blocks interleaved across ranks,
 * irregular unsorted points, a union of overlapping hyperslabs, chunked,
 * a 2-D slab from a padded memory buffer, compact) plus two attributes.
 * Values are a pure function of the dataset and the global element index,
 * so every rank knows the whole expected content.
 *
 * The file is then reopened twice: with the fapl it was written with
 * (independent reads), and with the other channel and deliberately
 * different stripe settings (collective reads; the stored layout must win).
 * Each pass reads the rank's own selection (checking that memory padding is
 * left alone) and the whole dataset, and compares with the pattern and
 * element-wise with the MPI-IO reference file.  The layout the open file
 * reports (H5FD_h5sf_get_layout: stripe settings, channel in use) is
 * checked after every open; the subfile names, their count and the config
 * file are checked on disk against the built-in subfiling driver's
 * templates.
 *
 * Usage: mpiexec -n N t_roundtrip [dir]      (dir: argv[1], $H5SF_TEST_DIR,
 *        or a fresh /tmp/h5sf-rt-XXXXXX)
 * Env:   H5SF_TEST_XFER=both   write every configuration twice
 *                              (independent and collective); the default
 *                              alternates the write mode over the matrix.
 *        H5SF_TEST_KEEP=1      keep the files.
 * Exit status 1 on any mismatch (agreed over all ranks).
 *
 * This file owns the configurations, the failure accounting and main;
 * t_roundtrip_data.c the datasets, pattern and selections; t_roundtrip_io.c
 * the write and read passes and the on-disk checks.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "t_roundtrip.h"

/* ---- agreement --------------------------------------------------------- */


/* ---- configurations --------------------------------------------------- */

typedef struct {
    int64_t     size;
    const char *size_text; /* as written in the config string */
} stripe_t;

static const stripe_t g_sizes[]  = {{4096, "4096"}, {65536, "64KiB"}, {1048576, "1MiB"}};
static const int      g_counts[] = {0, 1, 3, 7}; /* 0: default */

static hid_t fapl_h5sf(int use_struct, int64_t size, const char *size_text, int count, int channel_ioc)
{
    hid_t fapl = H5VRFY(H5Pcreate(H5P_FILE_ACCESS));
    H5VRFY(H5Pset_mpi_params(fapl, MPI_COMM_WORLD, MPI_INFO_NULL));
    if (use_struct) {
        H5FD_h5sf_config_t c;
        H5VRFY(H5FD_h5sf_config_init(&c));
        c.stripe_size  = size;
        c.stripe_count = count;
        c.channel      = channel_ioc ? H5FD_H5SF_CHANNEL_IOC : H5FD_H5SF_CHANNEL_DIRECT;
        H5VRFY(H5Pset_fapl_h5sf(fapl, &c));
    }
    else {
        char cfg[256];
        int  n = snprintf(cfg, sizeof cfg, "stripe_size=%s,channel=%s", size_text, channel_ioc ? "ioc" : "direct");
        if (count > 0)
            snprintf(cfg + n, sizeof cfg - (size_t)n, ",stripe_count=%d", count);
        H5VRFY(H5Pset_driver_by_name(fapl, H5FD_H5SF_NAME, cfg));
    }
    return fapl;
}

static void free_bufs(double *b[DS_COUNT])
{
    for (int k = 0; k < DS_COUNT; k++) {
        free(b[k]);
        b[k] = NULL;
    }
}

/* The layout the open file reports (H5FD_h5sf_get_layout): stripe settings
 * and the channel actually in use.  want_count 0: any. */
static int  g_thread_multiple;
static void check_layout(hid_t f, const char *ctx, int64_t want_size, int want_count, int want_ioc)
{
    H5FD_h5sf_layout_t lay;
    memset(&lay, 0, sizeof lay);
    if (H5FD_h5sf_get_layout(f, &lay) < 0) {
        CHECK(0, "%s: H5FD_h5sf_get_layout failed", ctx);
        return;
    }
    const int want_channel = want_ioc && g_thread_multiple ? H5FD_H5SF_CHANNEL_IOC : H5FD_H5SF_CHANNEL_DIRECT;
    CHECK(lay.stripe_size == want_size && (want_count <= 0 || lay.stripe_count == want_count) &&
              lay.channel == want_channel && lay.stripe_count >= 1 && lay.ioc_count >= 1,
          "%s: H5FD_h5sf_get_layout: stripe_size %" PRId64 " (want %" PRId64
          "), stripe_count %d (want %d), channel %d (want %d), ioc_count %d",
          ctx, lay.stripe_size, want_size, (int)lay.stripe_count, want_count, (int)lay.channel, want_channel,
          (int)lay.ioc_count);
}

int main(int argc, char **argv)
{
    t_unset_layout_env(); /* the test sets every layout knob itself */
    int provided      = t_init(&argc, &argv, "t_roundtrip");
    g_thread_multiple = provided >= MPI_THREAD_MULTIPLE;

    const char *xfer_env  = getenv("H5SF_TEST_XFER");
    const int   both_xfer = xfer_env && !strcmp(xfer_env, "both");
    const int   keep      = getenv("H5SF_TEST_KEEP") && atoi(getenv("H5SF_TEST_KEEP"));

    /* Directory. */
    char dir[4096] = "";
    int  made_dir  = t_test_dir(argc > 1 ? argv[1] : NULL, "rt", dir, sizeof dir);
    if (t_rank == 0)
        printf("t_roundtrip: %d ranks, directory %s, thread level %d\n", t_size, dir, provided);

    ds_setup(t_size);

    /* ---- reference file through MPI-IO ---- */
    double *ref[DS_COUNT] = {0};
    char    base[256], path[8192];
    snprintf(base, sizeof base, "rt_np%d_ref_mpio.h5", t_size);
    snprintf(path, sizeof path, "%s/%s", dir, base);
    {
        hid_t fapl = H5VRFY(H5Pcreate(H5P_FILE_ACCESS));
        H5VRFY(H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL));
        hid_t f = H5VRFY(H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
        write_file(f, 1, "reference (MPI-IO)");
        H5VRFY(H5Fclose(f));
        f = H5VRFY(H5Fopen(path, H5F_ACC_RDONLY, fapl));
        read_check(f, 1, "reference (MPI-IO)", NULL, ref);
        H5VRFY(H5Fclose(f));
        H5Pclose(fapl);
    }
    long ref_fail = 0, mine = t_fails;
    MPI_Allreduce(&mine, &ref_fail, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (ref_fail) {
        if (t_rank == 0)
            fprintf(stderr, "t_roundtrip: the MPI-IO reference does not match the pattern: test bug or HDF5 "
                            "problem; stopping\n");
        MPI_Finalize();
        return 1;
    }

    /* ---- the h5sf matrix ---- */
    const size_t nsz = sizeof g_sizes / sizeof *g_sizes, ncnt = sizeof g_counts / sizeof *g_counts;
    int          nconf = 0, nconf_bad = 0;
    for (size_t si = 0; si < nsz; si++)
        for (size_t ci = 0; ci < ncnt; ci++)
            for (int chan = 0; chan < 2; chan++) { /* 0: ioc, 1: direct */
                for (int xm = 0; xm < 2; xm++) {   /* 0: independent, 1: collective write */
                    if (!both_xfer && xm != (int)((si + ci + (size_t)chan) % 2))
                        continue;
                    const int64_t size      = g_sizes[si].size;
                    const int     count     = g_counts[ci];
                    const int     ioc       = chan == 0;
                    const int     use_strct = (int)((si + ci) % 2); /* alternate the two APIs */
                    char          ctx[512];
                    long          fail0 = t_fails;

                    snprintf(base, sizeof base, "rt_np%d_s%" PRId64 "_c%d_%s_%s.h5", t_size, size, count,
                             ioc ? "ioc" : "direct", xm ? "coll" : "indep");
                    snprintf(path, sizeof path, "%s/%s", dir, base);
                    nconf++;

                    hid_t fapl = fapl_h5sf(use_strct, size, g_sizes[si].size_text, count, ioc);
                    /* Reopen with the other channel and a different layout:
                     * the stored layout must win. */
                    hid_t fapl2 = fapl_h5sf(!use_strct, 32768, "32KiB", 2, !ioc);

                    /* write */
                    snprintf(ctx, sizeof ctx, "%s: %s write", base, xm ? "collective" : "independent");
                    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
                    if (t_all_ok(f >= 0, "H5Fcreate")) {
                        check_layout(f, ctx, size, count, ioc);
                        write_file(f, xm, ctx);
                        CHECK(H5Fclose(f) >= 0, "%s: H5Fclose failed", ctx);
                        MPI_Barrier(MPI_COMM_WORLD);
                        if (t_rank == 0)
                            CHECK(check_disk(dir, base, size, count) == 0, "%s: the files on disk", base);

                        /* read back with the same fapl, independent */
                        snprintf(ctx, sizeof ctx, "%s: reopen, same fapl, independent read", base);
                        f = H5Fopen(path, H5F_ACC_RDONLY, fapl);
                        if (t_all_ok(f >= 0, "H5Fopen")) {
                            check_layout(f, ctx, size, count, ioc);
                            read_check(f, 0, ctx, ref, NULL);
                            CHECK(H5Fclose(f) >= 0, "%s: H5Fclose failed", ctx);
                        }
                        else
                            CHECK(0, "%s: H5Fopen failed", ctx);

                        /* other channel, other stripe settings, collective */
                        snprintf(ctx, sizeof ctx,
                                 "%s: reopen via %s channel with stripe_size=32KiB,stripe_count=2, collective read",
                                 base, ioc ? "direct" : "ioc");
                        f = H5Fopen(path, H5F_ACC_RDONLY, fapl2);
                        if (t_all_ok(f >= 0, "H5Fopen")) {
                            check_layout(f, ctx, size, count, !ioc);
                            read_check(f, 1, ctx, ref, NULL);
                            CHECK(H5Fclose(f) >= 0, "%s: H5Fclose failed", ctx);
                        }
                        else
                            CHECK(0, "%s: H5Fopen failed", ctx);
                        MPI_Barrier(MPI_COMM_WORLD);
                        if (t_rank == 0) /* layout untouched by the mismatched reopen */
                            CHECK(check_disk(dir, base, size, count) == 0, "%s: the files on disk", base);
                    }
                    else
                        CHECK(0, "%s: H5Fcreate failed", ctx);
                    H5Pclose(fapl);
                    H5Pclose(fapl2);

                    long all = 0;
                    mine     = t_fails - fail0;
                    MPI_Allreduce(&mine, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
                    if (all)
                        nconf_bad++;
                    if (t_rank == 0) {
                        printf("%-4s %s (%s)\n", all ? "FAIL" : "ok", base,
                               use_strct ? "H5Pset_fapl_h5sf" : "H5Pset_driver_by_name");
                        fflush(stdout);
                        if (!all && !keep)
                            t_remove_h5(dir, base);
                    }
                    MPI_Barrier(MPI_COMM_WORLD);
                }
            }

    long total = 0;
    mine       = t_fails;
    MPI_Allreduce(&mine, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    free_bufs(ref);
    if (t_rank == 0) {
        printf("t_roundtrip: %d of %d configurations passed\n", nconf - nconf_bad, nconf);
        if (!total && !keep) {
            snprintf(base, sizeof base, "rt_np%d_ref_mpio.h5", t_size);
            t_remove_h5(dir, base);
            if (made_dir)
                rmdir(dir);
        }
        else if (total)
            printf("t_roundtrip: files kept in %s\n", dir);
    }
    H5close();
    return t_finish();
}
