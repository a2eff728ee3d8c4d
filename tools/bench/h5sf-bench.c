/*
 * h5sf-bench.c -- side-by-side I/O benchmark: h5sf (IOC and direct
 * channels), HDF5's built-in subfiling driver, MPI-IO (independent and
 * collective) and POSIX baselines (contiguous: file per process; strided:
 * one shared file, a pwrite/pread per block), in one run.
 *
 * Every configuration runs once per repetition, interleaved (rep 1 of all,
 * rep 2 of all, ...), so slow drift of the machine hits all of them alike.
 * Within a workload the configurations take turns going first (repetition
 * r starts at the r-th): the first run after another workload pays for
 * the switch (measured: docs/performance-history.md, Figures behind constants,
 * benchmark rotation), which a fixed order would charge to one driver
 * every time.
 * Each run writes, closes, reopens, reads and verifies; a run whose data
 * does not verify is reported as BAD and the program exits non-zero.
 *
 * Output: one CSV line per run on rank 0:
 *   ranks,workload,driver,xfer,rep,write_MiBps,read_MiBps,bytes_per_rank,ok
 *   (workload small is written small-<xfer size>)
 * (metadata workload: rates are datasets per second).
 *
 * usage: mpiexec -n N h5sf-bench [--dir D] [--mib M] [--reps R]
 *        [--workloads contiguous,strided,multi,metadata,chunked,small]
 *        [--drivers h5sf-ioc,h5sf-direct,subfiling,mpio,posix]
 *        [--xfer independent,collective] [--stripe-size BYTES] [--ndsets N]
 *        [--stripe-count N]   (subfiles, both subfiling drivers; 0: each driver's default)
 *        [--xfer-size LIST]   (small: bytes per H5Dwrite/H5Dread, default 4096;
 *                              a list such as 4096,1048576 runs it once per size)
 *        [--cb-nodes N]       (MPI-IO: MPI_Info cb_nodes=N, the aggregators of
 *                              collective I/O; scripts/bench-hosts.sh sets it to
 *                              h5sf's IOC count)
 *        [--subfile-dir DIR]  (h5sf: subfile_dir=DIR, e.g. node-local storage,
 *                              which only the IOC channel can serve)
 *        [--configs LIST]     (driver:xfer pairs, e.g. h5sf-ioc:collective,
 *                              mpio:independent, instead of --drivers x --xfer)
 *        [--rep-start K]      (number the repetitions from K: a run split into
 *                              one process per repetition keeps the rotation)
 *        [--account FILE]     (h5sf: the IOC channel's stage account of each
 *                              run's H5Dwrite and H5Dread, summed over ranks,
 *                              appended to FILE as CSV; see account_line)
 *
 * Drivers: h5sf-ioc, h5sf-direct and h5sf-auto (channel=ioc, direct, auto),
 * subfiling (HDF5's built-in driver), mpio, posix.
 *
 * `small` (not in the default list): IOR's pattern through its HDF5
 * backend -- each rank writes, then reads, its own contiguous block of one
 * shared dataset in --xfer-size pieces, one H5Dwrite/H5Dread of one
 * hyperslab per piece, independent transfers only; the POSIX column is a
 * pwrite/pread per piece at the same offsets of one shared file.  What it
 * measures is the cost of a call, not of the bytes.
 *
 * `chunked` (not in the default list): a 2-D chunked dataset, each rank a
 * band of columns, selection I/O off -- collective transfers then reach the
 * driver as MPI derived datatypes (h5sf: vfd/mpitype.c), one per chunk.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <getopt.h>
#include <hdf5.h>
#include "../../include/h5sf.h" /* H5FD_h5sf_account_t: the account, looked up at run time (account_begin) */
#if H5SF_HAVE_SUBFILING_VFD     /* HDF5's own subfiling driver is built in */
#include <H5FDsubfiling.h>
#endif
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int    rank, nranks;
static char   dir[1024] = "/dev/shm";
static size_t mib = 32, stripe = 4 << 20, ndsets_meta = 2000;
static int    stripe_count;     /* 0: each driver's default */
static size_t xfer_size = 4096; /* the small workload's bytes per call */
static int    bad_runs;
static int    cb_nodes;          /* MPI-IO aggregators (0: MPI-IO's default) */
static char   subfile_dir[1024]; /* h5sf subfile_dir ("": the stub's) */
static FILE  *account_fp;        /* --account: rank 0's CSV */
static int    account_on;        /* every rank: --account was given */

static double now(void) { return MPI_Wtime(); }

static int has(const char *list, const char *item)
{
    size_t n = strlen(item);
    for (const char *p = list; (p = strstr(p, item)); p += n)
        if ((p == list || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
            return 1;
    return 0;
}

/* --configs: is driver:xfer listed?  small is independent only, so for it
 * driver:collective counts too. */
static int wanted(const char *configs, const char *driver, const char *xfer, int small)
{
    char k[64];
    snprintf(k, sizeof k, "%s:collective", driver);
    if (small && has(configs, k))
        return 1;
    snprintf(k, sizeof k, "%s:%s", driver, xfer);
    return has(configs, k);
}

/* ---- drivers ------------------------------------------------------------ */

static hid_t make_fapl(const char *driver)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (!strncmp(driver, "h5sf-", 5)) {
        char cfg[1400];
        snprintf(cfg, sizeof cfg, "stripe_size=%zu,stripe_count=%d,channel=%s%s%s", stripe, stripe_count, driver + 5,
                 subfile_dir[0] ? ",subfile_dir=" : "", subfile_dir);
        if (H5Pset_driver_by_name(fapl, "h5sf", cfg) < 0)
            MPI_Abort(MPI_COMM_WORLD, 3);
        H5Pset_mpi_params(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    }
    else if (!strcmp(driver, "subfiling")) {
#if !H5SF_HAVE_SUBFILING_VFD
        fprintf(stderr, "h5sf-bench: this HDF5 is built without its subfiling driver\n");
        MPI_Abort(MPI_COMM_WORLD, 3);
#else
        H5FD_subfiling_config_t c;
        H5Pget_fapl_subfiling(fapl, &c);
        c.shared_cfg.stripe_size = (int64_t)stripe;
        if (stripe_count > 0)
            c.shared_cfg.stripe_count = stripe_count;
        H5Pset_mpi_params(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
        if (H5Pset_fapl_subfiling(fapl, &c) < 0)
            MPI_Abort(MPI_COMM_WORLD, 3);
#endif
    }
    else {
        /* cb_nodes: ROMIO's aggregator count; OMPIO takes its own from the
         * MCA parameter io_ompio_num_aggregators (bench-hosts.sh sets both). */
        MPI_Info info = MPI_INFO_NULL;
        char     n[16];
        if (cb_nodes > 0) {
            MPI_Info_create(&info);
            snprintf(n, sizeof n, "%d", cb_nodes);
            MPI_Info_set(info, "cb_nodes", n);
        }
        H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, info);
        if (info != MPI_INFO_NULL)
            MPI_Info_free(&info);
    }
    if (!strcmp(driver, "mpio") || !strncmp(driver, "h5sf", 4)) {
        /* Parallel metadata: collective writes, as the metadata workload asks. */
        H5Pset_all_coll_metadata_ops(fapl, true);
        H5Pset_coll_metadata_write(fapl, true);
    }
    return fapl;
}

static void remove_files(const char *path)
{
    /* Collective-free cleanup: rank 0 removes the stub and anything that
     * starts with "<path>.subfile_". */
    if (rank == 0) {
        char cmd[2300];
        snprintf(cmd, sizeof cmd, "rm -f '%s' '%s'.subfile_* 2>/dev/null", path, path);
        if (system(cmd) != 0) { /* nothing to do */
        }
    }
    /* Subfiles in a directory of their own may be on every host's own
     * storage: every rank removes what it sees there (a race of unlinks
     * of the same names is harmless). */
    if (subfile_dir[0]) {
        char        pat[2200];
        glob_t      g;
        const char *base = strrchr(path, '/');
        snprintf(pat, sizeof pat, "%s/%s.subfile_*", subfile_dir, base ? base + 1 : path);
        if (glob(pat, 0, NULL, &g) == 0)
            for (size_t i = 0; i < g.gl_pathc; i++)
                unlink(g.gl_pathv[i]);
        globfree(&g);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* ---- the stage account (--account) -------------------------------------- */

/* The run being measured, for account_end's line. */
static const char *cur_wl = "", *cur_driver = "";
static int         cur_coll, cur_rep;
typedef herr_t (*get_account_fn)(H5FD_h5sf_account_t *, int, size_t);
static get_account_fn get_account;
static const char    *STAGE[H5FD_H5SF_STAGES] = {"call",  "pack",    "post", "wait", "header",
                                                 "queue", "payload", "io",   "reply"};

/* Collective.  1 if this run is accounted: its account zeroed on every
 * rank.  The getter is looked up in the h5sf plugin HDF5 loaded for the
 * run's fapl (h5sf-bench does not link h5sf). */
static int account_begin(const char *driver)
{
    if (!account_on || strncmp(driver, "h5sf-", 5))
        return 0;
    if (!get_account) {
        void *h            = dlopen("libh5sf.so.0", RTLD_NOW | RTLD_NOLOAD);
        herr_t (*set)(int) = h ? (herr_t(*)(int))dlsym(h, "H5FD_h5sf_set_account") : NULL;
        get_account        = h ? (get_account_fn)dlsym(h, "H5FD_h5sf_get_account_sized") : NULL;
        if (!get_account || !set) {
            fprintf(stderr, "h5sf-bench: --account: the h5sf plugin is not loaded or has no account\n");
            MPI_Abort(MPI_COMM_WORLD, 6);
        }
        set(1);
    }
    H5FD_h5sf_account_t zero;
    MPI_Barrier(MPI_COMM_WORLD);
    get_account(&zero, 1, sizeof zero);
    MPI_Barrier(MPI_COMM_WORLD);
    return 1;
}

/* Collective.  The account of the `calls` calls since account_begin (t0),
 * summed over ranks: one CSV line on rank 0 (header: main). */
static void account_end(int on, const char *op, size_t calls, double t0)
{
    if (!on)
        return;
    MPI_Barrier(MPI_COMM_WORLD);
    double secs = now() - t0;
    usleep(2000); /* an IOC ends its reply stage just after the client has the reply */
    H5FD_h5sf_account_t a, sum;
    get_account(&a, 1, sizeof a);
    MPI_Reduce(&a, &sum, (int)(sizeof a / sizeof(uint64_t)), MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank != 0 || !account_fp)
        return;
    fprintf(account_fp, "%d,%s,%s,%s,%s,%d,%zu,%.6f,%llu", nranks, cur_wl, cur_driver,
            cur_coll ? "collective" : "independent", op, cur_rep, calls, secs, (unsigned long long)sum.messages);
    for (int k = 0; k < H5FD_H5SF_STAGES; k++)
        fprintf(account_fp, ",%llu,%llu,%llu", (unsigned long long)sum.count[k], (unsigned long long)sum.ns[k],
                (unsigned long long)sum.bytes[k]);
    fputc('\n', account_fp);
    fflush(account_fp);
}

/* ---- data --------------------------------------------------------------- */

static inline unsigned char pat(uint64_t global, int salt)
{
    return (unsigned char)(global * 2654435761u >> 13) ^ (unsigned char)salt;
}

/* The strided workload: the logical byte (within the dataset) of byte i of
 * this rank's selection -- 4 KiB blocks interleaved across ranks. */
static inline uint64_t strided_byte(size_t i)
{
    return ((i / 4096) * (uint64_t)nranks + (uint64_t)rank) * 4096 + i % 4096;
}

/* ---- workloads ---------------------------------------------------------- */

typedef struct {
    double write_s, read_s;
    int    ok;
} result_t;

/* One dataset (or 16 for multi) of bytes; `strided` interleaves 4 KiB blocks. */
static result_t run_bulk(const char *wl, const char *driver, int coll, const char *path)
{
    result_t       r     = {0, 0, 1};
    size_t         bytes = mib << 20;
    int            nd    = !strcmp(wl, "multi") ? 16 : 1;
    size_t         per   = bytes / (size_t)nd; /* bytes per rank per dataset */
    hsize_t        total = (hsize_t)per * (hsize_t)nranks;
    unsigned char *buf = malloc(bytes), *got = malloc(bytes);
    hid_t          dxpl = H5Pcreate(H5P_DATASET_XFER);
    if (coll)
        H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);

    hid_t   fs  = H5Screate_simple(1, &total, NULL), ms;
    hsize_t cnt = per;
    ms          = H5Screate_simple(1, &cnt, NULL);
    if (!strcmp(wl, "strided")) {
        hsize_t start = (hsize_t)rank * 4096, strd = (hsize_t)nranks * 4096, count = per / 4096, blk = 4096;
        H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, &strd, &count, &blk);
    }
    else {
        hsize_t start = (hsize_t)rank * per;
        H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &cnt, NULL);
    }
    /* Fill: byte i of this rank's selection in dataset d. */
    const int strided = !strcmp(wl, "strided");
    for (int d = 0; d < nd; d++)
        for (size_t i = 0; i < per; i++) {
            uint64_t g               = strided ? strided_byte(i) : (uint64_t)rank * per + i;
            buf[(size_t)d * per + i] = pat(g, d);
        }

    hid_t fapl = make_fapl(driver), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER);
    H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY);
    hid_t       dsets[16], mtypes[16], mspaces[16], fspaces[16];
    const void *wbufs[16];
    void       *rbufs[16];

    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = now();
    hid_t  f  = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    if (f < 0)
        MPI_Abort(MPI_COMM_WORLD, 4);
    for (int d = 0; d < nd; d++) {
        char name[16];
        snprintf(name, sizeof name, "d%02d", d);
        dsets[d]   = H5Dcreate2(f, name, H5T_NATIVE_UCHAR, fs, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        mtypes[d]  = H5T_NATIVE_UCHAR;
        mspaces[d] = ms;
        fspaces[d] = fs;
        wbufs[d]   = buf + (size_t)d * per;
        rbufs[d]   = got + (size_t)d * per;
    }
    int    acct = account_begin(driver);
    double ta   = now();
    if ((nd == 1 ? H5Dwrite(dsets[0], H5T_NATIVE_UCHAR, ms, fs, dxpl, buf)
                 : H5Dwrite_multi((size_t)nd, dsets, mtypes, mspaces, fspaces, dxpl, wbufs)) < 0)
        r.ok = 0;
    account_end(acct, "write", 1, ta);
    for (int d = 0; d < nd; d++)
        H5Dclose(dsets[d]);
    if (H5Fclose(f) < 0)
        r.ok = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    r.write_s = now() - t0;

    memset(got, 0, bytes);
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = now();
    f  = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    if (f < 0)
        MPI_Abort(MPI_COMM_WORLD, 5);
    for (int d = 0; d < nd; d++) {
        char name[16];
        snprintf(name, sizeof name, "d%02d", d);
        dsets[d] = H5Dopen2(f, name, H5P_DEFAULT);
    }
    acct = account_begin(driver);
    ta   = now();
    if ((nd == 1 ? H5Dread(dsets[0], H5T_NATIVE_UCHAR, ms, fs, dxpl, got)
                 : H5Dread_multi((size_t)nd, dsets, mtypes, mspaces, fspaces, dxpl, rbufs)) < 0)
        r.ok = 0;
    account_end(acct, "read", 1, ta);
    for (int d = 0; d < nd; d++)
        H5Dclose(dsets[d]);
    H5Fclose(f);
    MPI_Barrier(MPI_COMM_WORLD);
    r.read_s = now() - t0;
    if (memcmp(buf, got, bytes) != 0)
        r.ok = 0;

    H5Pclose(fapl);
    H5Pclose(dcpl);
    H5Pclose(dxpl);
    H5Sclose(fs);
    H5Sclose(ms);
    free(buf);
    free(got);
    return r;
}

/* IOR's HDF5 pattern: this rank's block [rank*bytes, (rank+1)*bytes) of one
 * dataset, xfer_size bytes per call, written and then read in order. */
static result_t run_small(const char *driver, const char *path)
{
    result_t       r     = {0, 0, 1};
    size_t         bytes = mib << 20, n = bytes / xfer_size;
    hsize_t        total = (hsize_t)bytes * (hsize_t)nranks, xs = xfer_size;
    unsigned char *buf = malloc(bytes), *got = malloc(bytes);
    for (size_t i = 0; i < bytes; i++)
        buf[i] = pat((uint64_t)rank * bytes + i, 0);
    hid_t fapl = make_fapl(driver), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER);
    H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY);
    hid_t fs = H5Screate_simple(1, &total, NULL), ms = H5Screate_simple(1, &xs, NULL);

    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = now();
    hid_t  f  = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    if (f < 0)
        MPI_Abort(MPI_COMM_WORLD, 4);
    hid_t  d    = H5Dcreate2(f, "small", H5T_NATIVE_UCHAR, fs, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    int    acct = account_begin(driver);
    double ta   = now();
    for (size_t i = 0; i < n && r.ok; i++) {
        hsize_t start = (hsize_t)rank * bytes + i * xfer_size;
        H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &xs, NULL);
        if (H5Dwrite(d, H5T_NATIVE_UCHAR, ms, fs, H5P_DEFAULT, buf + i * xfer_size) < 0)
            r.ok = 0;
    }
    account_end(acct, "write", n, ta);
    H5Dclose(d);
    if (H5Fclose(f) < 0)
        r.ok = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    r.write_s = now() - t0;

    memset(got, 0, bytes);
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = now();
    f  = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    if (f < 0)
        MPI_Abort(MPI_COMM_WORLD, 5);
    d    = H5Dopen2(f, "small", H5P_DEFAULT);
    acct = account_begin(driver);
    ta   = now();
    for (size_t i = 0; i < n && r.ok; i++) {
        hsize_t start = (hsize_t)rank * bytes + i * xfer_size;
        H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &xs, NULL);
        if (H5Dread(d, H5T_NATIVE_UCHAR, ms, fs, H5P_DEFAULT, got + i * xfer_size) < 0)
            r.ok = 0;
    }
    account_end(acct, "read", n, ta);
    H5Dclose(d);
    H5Fclose(f);
    MPI_Barrier(MPI_COMM_WORLD);
    r.read_s = now() - t0;
    if (memcmp(buf, got, bytes) != 0)
        r.ok = 0;
    H5Pclose(fapl);
    H5Pclose(dcpl);
    H5Sclose(fs);
    H5Sclose(ms);
    free(buf);
    free(got);
    return r;
}

/* A 2-D chunked dataset of bytes, `per` rows of CHUNKED_W columns per rank
 * side by side: rank r owns columns [r*W, (r+1)*W).  Chunks of 64 rows x
 * 1024 columns, so a rank's 1024-byte row pieces of each chunk are strided
 * in its buffer.  Selection I/O off: HDF5 hands collective transfers to the
 * driver as one memory and one file MPI datatype (link-chunk I/O). */
#define CHUNKED_W 4096
static result_t run_chunked(const char *driver, int coll, const char *path)
{
    result_t       r     = {0, 0, 1};
    size_t         bytes = mib << 20;
    hsize_t        rows = bytes / CHUNKED_W, dims[2] = {rows, (hsize_t)nranks * CHUNKED_W};
    hsize_t        chunk[2] = {64, 1024}, start[2] = {0, (hsize_t)rank * CHUNKED_W}, cnt[2] = {rows, CHUNKED_W};
    unsigned char *buf = malloc(bytes), *got = malloc(bytes);
    hid_t          dxpl = H5Pcreate(H5P_DATASET_XFER);
    if (coll)
        H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);
    H5Pset_selection_io(dxpl, H5D_SELECTION_IO_MODE_OFF);
    hid_t fs = H5Screate_simple(2, dims, NULL), ms = H5Screate_simple(2, cnt, NULL);
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, cnt, NULL);
    for (size_t i = 0; i < bytes; i++)
        buf[i] = pat((i / CHUNKED_W) * dims[1] + start[1] + i % CHUNKED_W, 7);

    hid_t fapl = make_fapl(driver), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 2, chunk);
    H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER);
    H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY);

    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = now();
    hid_t  f  = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    if (f < 0)
        MPI_Abort(MPI_COMM_WORLD, 4);
    hid_t  d    = H5Dcreate2(f, "c", H5T_NATIVE_UCHAR, fs, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    int    acct = account_begin(driver);
    double ta   = now();
    if (d < 0 || H5Dwrite(d, H5T_NATIVE_UCHAR, ms, fs, dxpl, buf) < 0)
        r.ok = 0;
    account_end(acct, "write", 1, ta);
    H5Dclose(d);
    if (H5Fclose(f) < 0)
        r.ok = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    r.write_s = now() - t0;

    memset(got, 0, bytes);
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = now();
    f  = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    if (f < 0)
        MPI_Abort(MPI_COMM_WORLD, 5);
    d    = H5Dopen2(f, "c", H5P_DEFAULT);
    acct = account_begin(driver);
    ta   = now();
    if (d < 0 || H5Dread(d, H5T_NATIVE_UCHAR, ms, fs, dxpl, got) < 0)
        r.ok = 0;
    account_end(acct, "read", 1, ta);
    H5Dclose(d);
    H5Fclose(f);
    MPI_Barrier(MPI_COMM_WORLD);
    r.read_s = now() - t0;
    if (memcmp(buf, got, bytes) != 0)
        r.ok = 0;

    H5Pclose(fapl);
    H5Pclose(dcpl);
    H5Pclose(dxpl);
    H5Sclose(fs);
    H5Sclose(ms);
    free(buf);
    free(got);
    return r;
}

/* Many small datasets with an attribute each, created collectively; rank
 * (i mod nranks) writes dataset i.  Rate: datasets per second. */
static result_t run_metadata(const char *driver, int coll, const char *path)
{
    result_t r  = {0, 0, 1};
    hsize_t  n  = 64;
    hid_t    sp = H5Screate_simple(1, &n, NULL), asp = H5Screate(H5S_SCALAR);
    hid_t    fapl = make_fapl(driver), dxpl = H5Pcreate(H5P_DATASET_XFER);
    int      v[64], w[64];
    if (coll)
        H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);

    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = now();
    hid_t  f  = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    /* Accounted: the whole loop, per dataset (create, attribute, write). */
    int    acct = account_begin(driver);
    double ta   = now();
    for (size_t i = 0; i < ndsets_meta; i++) {
        char name[32];
        snprintf(name, sizeof name, "m%05zu", i);
        hid_t d  = H5Dcreate2(f, name, H5T_NATIVE_INT, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        hid_t a  = H5Acreate2(d, "index", H5T_NATIVE_INT, asp, H5P_DEFAULT, H5P_DEFAULT);
        int   iv = (int)i;
        H5Awrite(a, H5T_NATIVE_INT, &iv);
        H5Aclose(a);
        for (int k = 0; k < 64; k++)
            v[k] = (int)i * 64 + k;
        if (coll) {
            hid_t fsel = H5Scopy(sp);
            if ((int)(i % (size_t)nranks) != rank)
                H5Sselect_none(fsel);
            hid_t msel = H5Scopy(fsel);
            if (H5Dwrite(d, H5T_NATIVE_INT, msel, fsel, dxpl, v) < 0)
                r.ok = 0;
            H5Sclose(fsel);
            H5Sclose(msel);
        }
        else if ((int)(i % (size_t)nranks) == rank && H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, dxpl, v) < 0)
            r.ok = 0;
        H5Dclose(d);
    }
    account_end(acct, "write", ndsets_meta, ta);
    if (H5Fclose(f) < 0)
        r.ok = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    r.write_s = now() - t0;

    MPI_Barrier(MPI_COMM_WORLD);
    t0   = now();
    f    = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    acct = account_begin(driver);
    ta   = now();
    /* Opens are collective with collective metadata ops: every rank opens
     * every dataset and checks its attribute, and reads the data it wrote. */
    for (size_t i = 0; i < ndsets_meta; i++) {
        char name[32];
        snprintf(name, sizeof name, "m%05zu", i);
        hid_t d  = H5Dopen2(f, name, H5P_DEFAULT);
        hid_t a  = H5Aopen(d, "index", H5P_DEFAULT);
        int   iv = -1;
        H5Aread(a, H5T_NATIVE_INT, &iv);
        H5Aclose(a);
        if (iv != (int)i)
            r.ok = 0;
        if ((int)(i % (size_t)nranks) == rank) {
            if (H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, w) < 0)
                r.ok = 0;
            for (int k = 0; k < 64; k++)
                if (w[k] != (int)i * 64 + k)
                    r.ok = 0;
        }
        H5Dclose(d);
    }
    account_end(acct, "read", ndsets_meta, ta);
    H5Fclose(f);
    MPI_Barrier(MPI_COMM_WORLD);
    r.read_s = now() - t0;
    H5Pclose(fapl);
    H5Pclose(dxpl);
    H5Sclose(sp);
    H5Sclose(asp);
    return r;
}

/* The practical limits, no HDF5, one copy per byte:
 *   contiguous  the same bytes, one pwrite/pread to one file per rank;
 *   strided     one shared file, each rank's 4 KiB blocks interleaved as in
 *               run_bulk, one pwrite/pread per block, at the offset HDF5
 *               gives the benchmark's dataset (2048: blocks straddle pages
 *               as they do there).  This is what MPI-IO's independent
 *               strided transfers do on one node (strace: a pread64 or
 *               pwrite64 per block); merging the ranks' blocks into runs,
 *               as h5sf's IOC does for writes, does less. */
#define POSIX_STRIDED_BASE 2048
static int posix_xfer(int fd, int wr, unsigned char *b, size_t n, uint64_t off)
{
    for (size_t o = 0; o < n;) {
        ssize_t k = wr ? pwrite(fd, b + o, n - o, (off_t)(off + o)) : pread(fd, b + o, n - o, (off_t)(off + o));
        if (k <= 0)
            return -1;
        o += (size_t)k;
    }
    return 0;
}
static int posix_pass(int fd, int wr, unsigned char *b, size_t bytes, int strided, int small)
{
    if (small) {
        for (size_t i = 0; i < bytes / xfer_size; i++)
            if (posix_xfer(fd, wr, b + i * xfer_size, xfer_size,
                           POSIX_STRIDED_BASE + (uint64_t)rank * bytes + i * xfer_size) < 0)
                return -1;
        return 0;
    }
    if (!strided)
        return posix_xfer(fd, wr, b, bytes, 0);
    for (size_t i = 0; i < bytes / 4096; i++)
        if (posix_xfer(fd, wr, b + i * 4096, 4096, POSIX_STRIDED_BASE + strided_byte(i * 4096)) < 0)
            return -1;
    return 0;
}
static result_t run_posix(const char *wl, const char *path)
{
    result_t       r     = {0, 0, 1};
    size_t         bytes = mib << 20;
    int            small = !strcmp(wl, "small"), strided = !strcmp(wl, "strided"), shared = strided || small;
    unsigned char *buf = malloc(bytes), *got = malloc(bytes);
    char           p[1200];
    for (size_t i = 0; i < bytes; i++)
        buf[i] = pat(strided ? strided_byte(i) : (uint64_t)rank * bytes + i, 0);
    if (shared)
        snprintf(p, sizeof p, "%s.shared", path);
    else
        snprintf(p, sizeof p, "%s.rank%d", path, rank);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = now();
    /* The shared file is created by rank 0 before the others open it. */
    int fd = -1;
    if (!shared || rank == 0)
        fd = open(p, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    if (shared) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank != 0)
            fd = open(p, O_WRONLY);
    }
    if (fd < 0 || posix_pass(fd, 1, buf, bytes, strided, small) < 0)
        r.ok = 0;
    if (fd >= 0 && close(fd) < 0)
        r.ok = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    r.write_s = now() - t0;
    /* Touch the destination first, as run_bulk does: the timed read must
     * not include the page faults of fresh memory. */
    memset(got, 0, bytes);
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = now();
    fd = open(p, O_RDONLY);
    if (fd < 0 || posix_pass(fd, 0, got, bytes, strided, small) < 0)
        r.ok = 0;
    if (fd >= 0)
        close(fd);
    MPI_Barrier(MPI_COMM_WORLD);
    r.read_s = now() - t0;
    if (memcmp(buf, got, bytes))
        r.ok = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (!shared || rank == 0)
        unlink(p);
    free(buf);
    free(got);
    return r;
}

int main(int argc, char **argv)
{
    int                  provided, reps = 5, nxs = 1, rep0 = 1;
    size_t               xsizes[8]    = {4096};
    const char          *workloads    = "contiguous,strided,multi,metadata";
    const char          *drivers      = "h5sf-ioc,h5sf-direct,subfiling,mpio,posix";
    const char          *xfers        = "independent,collective";
    static struct option opts[]       = {{"dir", 1, 0, 'd'},
                                         {"mib", 1, 0, 'm'},
                                         {"reps", 1, 0, 'r'},
                                         {"workloads", 1, 0, 'w'},
                                         {"drivers", 1, 0, 'D'},
                                         {"xfer", 1, 0, 'x'},
                                         {"stripe-size", 1, 0, 's'},
                                         {"ndsets", 1, 0, 'n'},
                                         {"help", 0, 0, 'h'},
                                         {"stripe-count", 1, 0, 'c'},
                                         {"xfer-size", 1, 0, 'X'},
                                         {"cb-nodes", 1, 0, 'B'},
                                         {"subfile-dir", 1, 0, 'S'},
                                         {"account", 1, 0, 'A'},
                                         {"rep-start", 1, 0, 'R'},
                                         {"configs", 1, 0, 'C'},
                                         {0, 0, 0, 0}};
    const char          *account_path = NULL, *configs = NULL;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    for (int c; (c = getopt_long(argc, argv, "d:m:r:w:D:x:s:n:c:X:B:S:A:R:C:h", opts, NULL)) != -1;) {
        switch (c) {
            case 'd': snprintf(dir, sizeof dir, "%s", optarg); break;
            case 'm': mib = strtoul(optarg, NULL, 10); break;
            case 'r': reps = atoi(optarg); break;
            case 'w': workloads = optarg; break;
            case 'D': drivers = optarg; break;
            case 'x': xfers = optarg; break;
            case 's': stripe = strtoul(optarg, NULL, 10); break;
            case 'n': ndsets_meta = strtoul(optarg, NULL, 10); break;
            case 'c': stripe_count = atoi(optarg); break;
            case 'B': cb_nodes = atoi(optarg); break;
            case 'S': snprintf(subfile_dir, sizeof subfile_dir, "%s", optarg); break;
            case 'A': account_path = optarg; break;
            case 'R': rep0 = atoi(optarg); break;
            case 'C': configs = optarg; break;
            case 'X': /* a list: the small workload runs once per size */
                nxs = 0;
                for (char *t = strtok(optarg, ","); t && nxs < 8; t = strtok(NULL, ","))
                    xsizes[nxs++] = strtoul(t, NULL, 10);
                break;
            default:
                if (rank == 0)
                    fprintf(stderr,
                            "usage: mpiexec -n N h5sf-bench [--dir D] [--mib M] [--reps R] [--workloads "
                            "LIST] [--drivers LIST] [--xfer LIST] [--stripe-size B] [--ndsets N] "
                            "[--stripe-count N] [--xfer-size B] [--cb-nodes N] [--subfile-dir D] [--account FILE]\n");
                MPI_Finalize();
                return c == 'h' ? 0 : 2;
        }
    }
    if (provided < MPI_THREAD_MULTIPLE && rank == 0)
        fprintf(stderr, "h5sf-bench: no MPI_THREAD_MULTIPLE; the built-in subfiling driver will fail\n");
    if (mib == 0 || (mib << 20) % (4096 * 16)) {
        if (rank == 0)
            fprintf(stderr, "h5sf-bench: --mib must be a positive multiple of 1/16 MiB\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }

    for (int v = 0; v < nxs; v++)
        if (xsizes[v] == 0 || (mib << 20) % xsizes[v]) {
            if (rank == 0)
                fprintf(stderr, "h5sf-bench: every --xfer-size must divide --mib MiB\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }

    static const char *WL[] = {"contiguous", "strided", "multi", "metadata", "chunked", "small"};
    static const char *DR[] = {"h5sf-ioc", "h5sf-direct", "h5sf-auto", "subfiling", "mpio", "posix"};
    const int          NDR  = (int)(sizeof DR / sizeof DR[0]);
    if (account_path) {
        account_on = 1;
        if (rank == 0 && !(account_fp = fopen(account_path, "a"))) {
            fprintf(stderr, "h5sf-bench: cannot open %s: %s\n", account_path, strerror(errno));
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        if (rank == 0 && ftell(account_fp) == 0) {
            fputs("ranks,workload,driver,xfer,op,rep,calls,call_s,messages", account_fp);
            for (int k = 0; k < H5FD_H5SF_STAGES; k++)
                fprintf(account_fp, ",%s_n,%s_ns,%s_bytes", STAGE[k], STAGE[k], STAGE[k]);
            fputc('\n', account_fp);
        }
    }
    static const char *XF[] = {"independent", "collective"};
    char               path[1100];
    snprintf(path, sizeof path, "%s/h5sf-bench.h5", dir);
    if (rank == 0)
        printf("ranks,workload,driver,xfer,rep,write_rate,read_rate,bytes_per_rank,ok\n");
    for (int rep = rep0; rep < rep0 + reps; rep++)
        for (size_t w = 0; w < sizeof WL / sizeof WL[0]; w++)
            for (int v = 0; v < (strcmp(WL[w], "small") ? 1 : nxs); v++) {
                if (!has(workloads, WL[w]))
                    continue;
                xfer_size = xsizes[v];
                /* This workload's configurations (driver, transfer mode), in
             * the fixed order; run from the (rep-1)-th on, wrapping. */
                int cfg[16], ncfg = 0;
                for (int d = 0; d < NDR; d++) {
                    if (!configs && !has(drivers, DR[d]))
                        continue;
                    for (int x = 0; x < 2; x++) {
                        if (configs ? !wanted(configs, DR[d], XF[x], !strcmp(WL[w], "small")) : !has(xfers, XF[x]))
                            continue;
                        /* POSIX has no transfer modes: run it once per rep. */
                        if (!strcmp(DR[d], "posix") && (x == 1 || (strcmp(WL[w], "contiguous") &&
                                                                   strcmp(WL[w], "strided") && strcmp(WL[w], "small"))))
                            continue;
                        /* IOR's pattern is independent transfers. */
                        if (!strcmp(WL[w], "small") && x == 1)
                            continue;
                        cfg[ncfg++] = d * 2 + x;
                    }
                }
                for (int k = 0; k < ncfg; k++) {
                    int c = cfg[(k + rep - 1) % ncfg], d = c / 2, x = c % 2;
                    /* Every run starts with no dirty pages of earlier runs: on
                 * a disk file system their writeback would otherwise land
                 * in whichever run comes next (bimodal rates on ext4). */
                    if (rank == 0)
                        sync();
                    MPI_Barrier(MPI_COMM_WORLD);
                    /* small names its transfer size: small-4096, small-1048576. */
                    char wname[48];
                    snprintf(wname, sizeof wname, "%s", WL[w]);
                    if (!strcmp(WL[w], "small"))
                        snprintf(wname, sizeof wname, "small-%zu", xfer_size);
                    cur_wl = wname, cur_driver = DR[d], cur_coll = x, cur_rep = rep;
                    result_t r;
                    if (!strcmp(DR[d], "posix"))
                        r = run_posix(WL[w], path);
                    else if (!strcmp(WL[w], "metadata"))
                        r = run_metadata(DR[d], x, path);
                    else if (!strcmp(WL[w], "chunked"))
                        r = run_chunked(DR[d], x, path);
                    else if (!strcmp(WL[w], "small"))
                        r = run_small(DR[d], path);
                    else
                        r = run_bulk(WL[w], DR[d], x, path);
                    int ok = 0;
                    MPI_Allreduce(&r.ok, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
                    double units =
                        !strcmp(WL[w], "metadata") ? (double)ndsets_meta : (double)(mib << 20) * nranks / 1048576.0;
                    if (rank == 0) {
                        printf("%d,%s,%s,%s,%d,%.2f,%.2f,%zu,%s\n", nranks, wname, DR[d],
                               !strcmp(DR[d], "posix") ? "-" : XF[x], rep, units / r.write_s, units / r.read_s,
                               !strcmp(WL[w], "metadata") ? (size_t)0 : mib << 20, ok ? "ok" : "BAD");
                        fflush(stdout);
                    }
                    if (!ok)
                        bad_runs++;
                    if (strcmp(DR[d], "posix"))
                        remove_files(path);
                }
            }
    MPI_Finalize();
    return bad_runs ? 1 : 0;
}
