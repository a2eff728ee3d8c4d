/*
 * t_interop -- h5sf and HDF5 1.14's built-in subfiling driver read each
 * other's files.
 *
 * For two layouts (64 KiB x 3 subfiles, 4 KiB x 2 subfiles):
 *   h5sf (ioc channel, collective)    -> built-in subfiling
 *   h5sf (direct channel, independent)-> built-in subfiling
 *   built-in subfiling                -> h5sf (ioc channel)
 *   built-in subfiling                -> h5sf (direct channel)
 *   built-in subfiling                -> built-in subfiling (checks the test)
 * Every file is read in place by the other driver (no h5fuse reassembly).
 * After every write the directory is checked against the built-in's
 * H5FD_SUBFILING_FILENAME_TEMPLATE / _CONFIG_FILENAME_TEMPLATE, the config
 * file's keys and listed names, and the stub's inode.
 *
 * Usage: mpiexec -n N t_interop [--builtin-only] [dir]
 *   dir: argv, $H5SF_TEST_DIR, or a fresh /tmp/h5sf-io-XXXXXX (removed on
 *   success).  --builtin-only runs only the built-in -> built-in cases and
 *   does not need the h5sf plugin.
 * Exit status 1 on any mismatch (agreed over all ranks).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <mpi.h>
#include <hdf5.h>
#if H5SF_HAVE_SUBFILING_VFD /* HDF5's own subfiling driver (test/CMakeLists.txt) */
#include <H5FDsubfiling.h>
#include <H5FDioc.h>
#endif
#include "h5sf.h"
#include "h5sf_test.h"

#if !H5SF_HAVE_SUBFILING_VFD
int main(void)
{
    printf("t_interop: skipped: this HDF5 is built without its subfiling driver (H5_HAVE_SUBFILING_VFD)\n");
    return 77;
}
#else
#define MAX_REPORT 8

/* ---- data: three datasets and an attribute ----------------------------- */

#define I_N         100003 /* "ints": int slab per rank                    */
#define D_BLK       512    /* "strided": 4 KiB blocks of double             */
#define D_NB        40     /*            blocks per rank, interleaved       */
#define G_ROWS      50     /* "grid": 2-D int, rows per rank                */
#define G_COLS      700

/* The datasets' values: the harness pattern, one seed each. */
#define ival(ds, g) t_pat_int((uint64_t)(ds), g)
#define dval(g)     ((double)t_pat_int(2, g) * 0.75)

static hid_t make_dxpl(int collective)
{
    hid_t dxpl = H5VRFY(H5Pcreate(H5P_DATASET_XFER));
    H5VRFY(H5Pset_dxpl_mpio(dxpl, collective ? H5FD_MPIO_COLLECTIVE : H5FD_MPIO_INDEPENDENT));
    return dxpl;
}

static void write_data(hid_t file, int collective, const char *ctx)
{
    const hsize_t R = (hsize_t)t_rank, NP = (hsize_t)t_size;
    hid_t         dxpl = make_dxpl(collective);
    char          what[1024];

    /* ints: contiguous slab per rank */
    {
        hsize_t dims = NP * I_N, start = R * I_N, count = I_N;
        hid_t   fs = H5VRFY(H5Screate_simple(1, &dims, NULL));
        hid_t   ms = H5VRFY(H5Screate_simple(1, &count, NULL));
        hid_t   d  = H5VRFY(H5Dcreate2(file, "ints", H5T_STD_I32LE, fs, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
        int    *b  = malloc(sizeof *b * I_N);
        VRFY(b, "out of memory");
        for (hsize_t i = 0; i < I_N; i++)
            b[i] = ival(1, start + i);
        H5VRFY(H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &count, NULL));
        snprintf(what, sizeof what, "%s write ints", ctx);
        CHECK((H5Dwrite(d, H5T_NATIVE_INT, ms, fs, dxpl, b)) >= 0,
              "%s: H5Dwrite(d, H5T_NATIVE_INT, ms, fs, dxpl, b) failed", what);

        hsize_t one   = 3;
        int     av[3] = {ival(9, 0), ival(9, 1), ival(9, 2)};
        hid_t   as    = H5VRFY(H5Screate_simple(1, &one, NULL));
        hid_t   a     = H5VRFY(H5Acreate2(d, "attr", H5T_STD_I32LE, as, H5P_DEFAULT, H5P_DEFAULT));
        CHECK((H5Awrite(a, H5T_NATIVE_INT, av)) >= 0, "%s: H5Awrite(a, H5T_NATIVE_INT, av) failed", "write attr");
        H5Aclose(a);
        H5Sclose(as);
        free(b);
        H5Dclose(d);
        H5Sclose(ms);
        H5Sclose(fs);
    }
    /* strided: 4 KiB blocks interleaved across ranks */
    {
        hsize_t dims = NP * D_BLK * D_NB, start = R * D_BLK, stride = NP * D_BLK, count = D_NB, block = D_BLK;
        hsize_t n  = D_BLK * D_NB;
        hid_t   fs = H5VRFY(H5Screate_simple(1, &dims, NULL));
        hid_t   ms = H5VRFY(H5Screate_simple(1, &n, NULL));
        hid_t   d  = H5VRFY(H5Dcreate2(file, "strided", H5T_IEEE_F64LE, fs, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
        double *b  = malloc(sizeof *b * n);
        VRFY(b, "out of memory");
        for (hsize_t k = 0; k < n; k++)
            b[k] = dval((k / D_BLK) * stride + start + k % D_BLK);
        H5VRFY(H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, &stride, &count, &block));
        snprintf(what, sizeof what, "%s write strided", ctx);
        CHECK((H5Dwrite(d, H5T_NATIVE_DOUBLE, ms, fs, dxpl, b)) >= 0,
              "%s: H5Dwrite(d, H5T_NATIVE_DOUBLE, ms, fs, dxpl, b) failed", what);
        free(b);
        H5Dclose(d);
        H5Sclose(ms);
        H5Sclose(fs);
    }
    /* grid: 2-D, rows per rank */
    {
        hsize_t dims[2] = {NP * G_ROWS, G_COLS}, start[2] = {R * G_ROWS, 0}, count[2] = {G_ROWS, G_COLS};
        hid_t   fs = H5VRFY(H5Screate_simple(2, dims, NULL));
        hid_t   ms = H5VRFY(H5Screate_simple(2, count, NULL));
        hid_t   d  = H5VRFY(H5Dcreate2(file, "grid", H5T_STD_I32LE, fs, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
        int    *b  = malloc(sizeof *b * G_ROWS * G_COLS);
        VRFY(b, "out of memory");
        for (hsize_t k = 0; k < G_ROWS * G_COLS; k++)
            b[k] = ival(3, start[0] * G_COLS + k);
        H5VRFY(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL));
        snprintf(what, sizeof what, "%s write grid", ctx);
        CHECK((H5Dwrite(d, H5T_NATIVE_INT, ms, fs, dxpl, b)) >= 0,
              "%s: H5Dwrite(d, H5T_NATIVE_INT, ms, fs, dxpl, b) failed", what);
        free(b);
        H5Dclose(d);
        H5Sclose(ms);
        H5Sclose(fs);
    }
    H5Pclose(dxpl);
}

static void mismatch(const char *ctx, const char *ds, uint64_t g, double got, double want, long *nbad)
{
    if (++*nbad <= MAX_REPORT)
        fprintf(stderr, "[rank %d] MISMATCH %s: dataset %s element %" PRIu64 ": got %.17g expected %.17g\n", t_rank,
                ctx, ds, g, got, want);
}
static void mismatch_done(const char *ctx, const char *ds, long nbad)
{
    if (nbad > MAX_REPORT)
        fprintf(stderr, "[rank %d] MISMATCH %s: dataset %s: %ld mismatching elements in all\n", t_rank, ctx, ds, nbad);
    CHECK(nbad == 0, "%s: dataset %s: %ld mismatching elements", ctx, ds, nbad);
}

/* Every rank reads every dataset whole. */
static void read_check(hid_t file, const char *ctx)
{
    const uint64_t NP = (uint64_t)t_size;
    char           what[1024];
    long           nbad;
    hid_t          d;

    snprintf(what, sizeof what, "%s read", ctx);
    if ((d = H5Dopen2(file, "ints", H5P_DEFAULT)) < 0) {
        CHECK(0, "%s: cannot open ints", ctx);
    }
    else {
        uint64_t n = NP * I_N;
        int     *b = malloc(sizeof *b * n);
        VRFY(b, "out of memory");
        memset(b, 0, sizeof *b * n);
        CHECK((H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, b)) >= 0,
              "%s: H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, b) failed", what);
        nbad = 0;
        for (uint64_t g = 0; g < n; g++)
            if (b[g] != ival(1, g))
                mismatch(what, "ints", g, b[g], ival(1, g), &nbad);
        mismatch_done(what, "ints", nbad);
        int   av[3] = {0, 0, 0};
        hid_t a     = H5Aopen(d, "attr", H5P_DEFAULT);
        if (a < 0 || H5Aread(a, H5T_NATIVE_INT, av) < 0) {
            CHECK(0, "%s: cannot read ints/attr", ctx);
        }
        else
            for (int i = 0; i < 3; i++)
                CHECK(av[i] == ival(9, (uint64_t)i), "%s: attribute ints/attr element %d: got %d expected %d", ctx, i,
                      av[i], ival(9, (uint64_t)i));
        if (a >= 0)
            H5Aclose(a);
        free(b);
        H5Dclose(d);
    }

    if ((d = H5Dopen2(file, "strided", H5P_DEFAULT)) < 0) {
        CHECK(0, "%s: cannot open strided", ctx);
    }
    else {
        uint64_t n = NP * D_BLK * D_NB;
        double  *b = malloc(sizeof *b * n);
        VRFY(b, "out of memory");
        memset(b, 0, sizeof *b * n);
        CHECK((H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, b)) >= 0,
              "%s: H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, b) failed", what);
        nbad = 0;
        for (uint64_t g = 0; g < n; g++)
            if (b[g] != dval(g))
                mismatch(what, "strided", g, b[g], dval(g), &nbad);
        mismatch_done(what, "strided", nbad);
        free(b);
        H5Dclose(d);
    }

    if ((d = H5Dopen2(file, "grid", H5P_DEFAULT)) < 0) {
        CHECK(0, "%s: cannot open grid", ctx);
    }
    else {
        uint64_t n = NP * G_ROWS * G_COLS;
        int     *b = malloc(sizeof *b * n);
        VRFY(b, "out of memory");
        memset(b, 0, sizeof *b * n);
        CHECK((H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, b)) >= 0,
              "%s: H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, b) failed", what);
        nbad = 0;
        for (uint64_t g = 0; g < n; g++)
            if (b[g] != ival(3, g))
                mismatch(what, "grid", g, b[g], ival(3, g), &nbad);
        mismatch_done(what, "grid", nbad);
        free(b);
        H5Dclose(d);
    }
}

/* ---- drivers ---------------------------------------------------------- */

enum { W_H5SF_IOC, W_H5SF_DIRECT, W_BUILTIN };
static const char *drv_name[] = {"h5sf(ioc)", "h5sf(direct)", "builtin-subfiling"};

static hid_t fapl_for(int drv, int64_t stripe_size, int stripe_count)
{
    hid_t fapl = H5VRFY(H5Pcreate(H5P_FILE_ACCESS));
    H5VRFY(H5Pset_mpi_params(fapl, MPI_COMM_WORLD, MPI_INFO_NULL));
    if (drv == W_BUILTIN) {
        H5FD_subfiling_config_t cfg;
        H5FD_ioc_config_t       ioc;
        H5VRFY(H5Pget_fapl_subfiling(fapl, &cfg)); /* defaults, with an IOC fapl */
        H5VRFY(H5Pget_fapl_ioc(cfg.ioc_fapl_id, &ioc));
        ioc.thread_pool_size = 2;
        H5VRFY(H5Pset_fapl_ioc(cfg.ioc_fapl_id, &ioc));
        cfg.require_ioc = true;
        if (stripe_size > 0) /* 0: the built-in's defaults, as H5Pget_fapl_subfiling gave them */
            cfg.shared_cfg.stripe_size = stripe_size;
        if (stripe_count > 0)
            cfg.shared_cfg.stripe_count = stripe_count;
        cfg.shared_cfg.ioc_selection = SELECT_IOC_ONE_PER_NODE;
        H5VRFY(H5Pset_fapl_subfiling(fapl, &cfg));
        H5Pclose(cfg.ioc_fapl_id);
    }
    else {
        char s[256];
        if (stripe_size > 0)
            snprintf(s, sizeof s, "stripe_size=%" PRId64 ",stripe_count=%d,channel=%s", stripe_size, stripe_count,
                     drv == W_H5SF_IOC ? "ioc" : "direct");
        else /* h5sf's defaults */
            snprintf(s, sizeof s, "channel=%s", drv == W_H5SF_IOC ? "ioc" : "direct");
        H5VRFY(H5Pset_driver_by_name(fapl, H5FD_H5SF_NAME, s));
    }
    return fapl;
}

/* The subfile count each driver gives a new file by default, worked out
 * here from the nodes MPI reports: the built-in one per IOC (one IOC per
 * node); h5sf per IOC min(4, ranks on the node with fewest). */
static int default_count(int drv)
{
    MPI_Comm node;
    int      here, fewest, lead, nnodes;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, t_rank, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &here);
    MPI_Comm_rank(node, &lead);
    MPI_Comm_free(&node);
    lead = lead == 0;
    MPI_Allreduce(&here, &fewest, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&lead, &nnodes, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    return drv == W_BUILTIN ? nnodes : nnodes * (fewest < 4 ? fewest : 4);
}

/* ---- on-disk names ----------------------------------------------------- */

/* Rank 0: the directory holds exactly what the built-in would name. */
static int check_disk(const char *dir, const char *base, int64_t want_size, int want_count, const char *ctx)
{
    char        path[8192], name[4300], line[8192];
    struct stat st;
    int         bad = 0;

    snprintf(path, sizeof path, "%s/%s", dir, base);
    if (stat(path, &st) < 0) {
        fprintf(stderr, "[rank 0] FAIL %s: stub %s: %s\n", ctx, path, strerror(errno));
        return 1;
    }
    const uint64_t ino = (uint64_t)st.st_ino;
    snprintf(name, sizeof name, H5FD_SUBFILING_CONFIG_FILENAME_TEMPLATE, base, ino);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *fp = fopen(path, "r");
    if (!fp) {
        fprintf(stderr, "[rank 0] FAIL %s: config file %s: %s\n", ctx, path, strerror(errno));
        return 1;
    }
    int64_t stripe_size = -1;
    long    count = -1, aggr = -1;
    int     have_h5 = 0, have_dir = 0, listed = 0;
    char   *lines = NULL;
    size_t  llen  = 0;
    while (fgets(line, sizeof line, fp)) {
        if (!strncmp(line, "stripe_size=", 12))
            stripe_size = strtoll(line + 12, NULL, 10);
        else if (!strncmp(line, "aggregator_count=", 17))
            aggr = strtol(line + 17, NULL, 10);
        else if (!strncmp(line, "subfile_count=", 14))
            count = strtol(line + 14, NULL, 10);
        else if (!strncmp(line, "hdf5_file=", 10))
            have_h5 = 1;
        else if (!strncmp(line, "subfile_dir=", 12))
            have_dir = 1;
        else {
            size_t n = strlen(line);
            char  *t = realloc(lines, llen + n + 1);
            if (!t)
                VRFY(0, "realloc failed");
            lines = t;
            memcpy(lines + llen, line, n + 1);
            llen += n;
        }
    }
    fclose(fp);
    if (stripe_size != want_size || count != want_count || aggr < 1 || !have_h5 || !have_dir) {
        fprintf(stderr,
                "[rank 0] FAIL %s: config %s: stripe_size=%" PRId64 " (want %" PRId64
                "), subfile_count=%ld (want %d), aggregator_count=%ld (want >= 1), hdf5_file= %s, "
                "subfile_dir= %s\n",
                ctx, path, stripe_size, want_size, count, want_count, aggr, have_h5 ? "present" : "MISSING",
                have_dir ? "present" : "MISSING");
        bad++;
    }
    if (count < 1 || count > 65536) {
        free(lines);
        return bad + 1;
    }
    for (int i = 1; i <= count; i++) {
        if (snprintf(name, sizeof name, H5FD_SUBFILING_FILENAME_TEMPLATE, base, ino, t_ndigits(count), i, (int)count) >=
                (int)sizeof name ||
            snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path || stat(path, &st) < 0) {
            fprintf(stderr, "[rank 0] FAIL %s: subfile %s missing: %s\n", ctx, path, strerror(errno));
            bad++;
        }
        else if (!S_ISREG(st.st_mode)) {
            fprintf(stderr, "[rank 0] FAIL %s: subfile %s is not a regular file\n", ctx, path);
            bad++;
        }
        /* the config file lists every subfile by name, one per line */
        size_t nl    = strlen(name);
        int    found = 0;
        for (char *p = lines; p && (p = strstr(p, name)); p += nl)
            if ((p == lines || p[-1] == '\n') && (p[nl] == '\n' || p[nl] == 0))
                found = 1;
        if (found)
            listed++;
        else {
            fprintf(stderr, "[rank 0] FAIL %s: config %s does not list %s\n", ctx, path, name);
            bad++;
        }
    }
    free(lines);
    /* nothing else carries the subfile prefix */
    char prefix[4300];
    snprintf(prefix, sizeof prefix, "%s.subfile_", base);
    DIR *dp = opendir(dir);
    if (dp) {
        struct dirent *e;
        long           n = 0;
        while ((e = readdir(dp)))
            if (!strncmp(e->d_name, prefix, strlen(prefix)))
                n++;
        closedir(dp);
        if (n != count + 1) {
            fprintf(stderr, "[rank 0] FAIL %s: %ld files named %s*, expected %ld subfiles + 1 config\n", ctx, n, prefix,
                    count);
            bad++;
        }
    }
    return bad;
}

int main(int argc, char **argv)
{
    t_unset_layout_env();
    t_init_multiple(&argc, &argv, "t_interop"); /* the built-in subfiling driver needs it */

    int         builtin_only = 0;
    const char *arg          = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--builtin-only"))
            builtin_only = 1;
        else
            arg = argv[i];
    }

    char dir[4096] = "";
    int  made_dir  = t_test_dir(arg, "io", dir, sizeof dir);
    if (t_rank == 0)
        printf("t_interop: %d ranks, directory %s%s\n", t_size, dir, builtin_only ? " (built-in only)" : "");

    static const struct {
        int64_t size;
        int     count;
    } layouts[] = {{65536, 3}, {4096, 2}, {0, 0}}; /* {0, 0}: each driver's defaults */
    static const struct {
        int writer, reader, coll_write;
    } cases[]       = {{W_BUILTIN, W_BUILTIN, 0},
                       {W_H5SF_IOC, W_BUILTIN, 1},
                       {W_H5SF_DIRECT, W_BUILTIN, 0},
                       {W_BUILTIN, W_H5SF_IOC, 0},
                       {W_BUILTIN, W_H5SF_DIRECT, 0}};
    int       ncase = 0, nbad = 0;
    const int dflt_h5sf = default_count(W_H5SF_IOC), dflt_builtin = default_count(W_BUILTIN); /* collective */

    for (size_t li = 0; li < sizeof layouts / sizeof *layouts; li++)
        for (size_t ci = 0; ci < sizeof cases / sizeof *cases; ci++) {
            const int w = cases[ci].writer, r = cases[ci].reader;
            if (builtin_only && (w != W_BUILTIN || r != W_BUILTIN))
                continue;
            char base[256], path[8192], ctx[512];
            long fail0 = t_fails;
            snprintf(base, sizeof base, "io_np%d_s%" PRId64 "_c%d_%s_to_%s.h5", t_size, layouts[li].size,
                     layouts[li].count,
                     w == W_BUILTIN    ? "builtin"
                     : w == W_H5SF_IOC ? "h5sfioc"
                                       : "h5sfdirect",
                     r == W_BUILTIN    ? "builtin"
                     : r == W_H5SF_IOC ? "h5sfioc"
                                       : "h5sfdirect");
            snprintf(path, sizeof path, "%s/%s", dir, base);
            ncase++;

            snprintf(ctx, sizeof ctx, "%s: write with %s%s", base, drv_name[w],
                     cases[ci].coll_write ? " (collective)" : "");
            hid_t fapl = fapl_for(w, layouts[li].size, layouts[li].count);
            hid_t f    = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
            if (t_all_ok(f >= 0, "H5Fcreate")) {
                write_data(f, cases[ci].coll_write, ctx);
                if (H5Fclose(f) < 0) {
                    CHECK(0, "%s: H5Fclose failed", ctx);
                }
            }
            else {
                CHECK(0, "%s: H5Fcreate failed", ctx);
            }
            H5Pclose(fapl);
            MPI_Barrier(MPI_COMM_WORLD);
            const int want_count = layouts[li].count ? layouts[li].count : w == W_BUILTIN ? dflt_builtin : dflt_h5sf;
            if (t_rank == 0)
                CHECK(check_disk(dir, base, layouts[li].size ? layouts[li].size : 32 << 20, want_count, ctx) == 0,
                      "%s: the files on disk", ctx);

            long wfail = t_fails - fail0, wall = 0;
            MPI_Allreduce(&wfail, &wall, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
            if (!wall) {
                snprintf(ctx, sizeof ctx, "%s: read with %s", base, drv_name[r]);
                fapl = fapl_for(r, layouts[li].size, layouts[li].count);
                f    = H5Fopen(path, H5F_ACC_RDONLY, fapl);
                if (t_all_ok(f >= 0, "H5Fopen")) {
                    read_check(f, ctx);
                    if (H5Fclose(f) < 0) {
                        CHECK(0, "%s: H5Fclose failed", ctx);
                    }
                }
                else {
                    CHECK(0, "%s: H5Fopen failed", ctx);
                }
                H5Pclose(fapl);
            }
            MPI_Barrier(MPI_COMM_WORLD);

            long mine = t_fails - fail0, all = 0;
            MPI_Allreduce(&mine, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
            if (all)
                nbad++;
            if (t_rank == 0) {
                printf("%-4s %s -> %s  (%s)%s\n", all ? "FAIL" : "ok", drv_name[w], drv_name[r], base,
                       wall ? " [write failed, read skipped]" : "");
                fflush(stdout);
                if (!all)
                    t_remove_h5(dir, base);
            }
            MPI_Barrier(MPI_COMM_WORLD);
        }

    long total = 0, fails = t_fails;
    MPI_Allreduce(&fails, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (t_rank == 0) {
        printf("t_interop: %d of %d cases passed\n", ncase - nbad, ncase);
        if (!total && made_dir)
            rmdir(dir);
        else if (total)
            printf("t_interop: files kept in %s\n", dir);
    }
    H5close();
    return t_finish();
}
#endif /* H5SF_HAVE_SUBFILING_VFD */
