/*
 * t_cobracket.c -- the caller's own COBEGIN/COEND bracket around several
 * transfer calls on an h5sf file (H5FDopen, H5FDwrite, _vector, _selection).
 *
 * 64 KiB stripes over 4 subfiles; every call below moves whole stripes, so
 * the stripe a call touches names its subfile.  The test hook
 * H5SF_FAULT="op=overlap,ms=N" (set by ctest) holds each transfer h5sf
 * runs itself until all of its call's -- of a bracket: all of the
 * bracket's, once its COEND came -- have started; requests to an IOC
 * count as in flight from post to wait.  So "most in flight at once"
 * (cobegin_max_inflight) is 1 for four one-stripe calls without a
 * bracket and 4 with one, without timing anything.  Bytes are checked in
 * the subfiles with this test's own stripe arithmetic.
 *
 *   main   (a) the bracket, with IGNORE_IF_UNKNOWN|ROUTE_TO_TERMINAL, is
 *          honoured: transfers overlap across calls, data lands, reads
 *          complete at COEND, nested brackets wait at the outermost COEND
 *          only, a collective call inside runs at once, flush, truncate
 *          and close complete what is posted, COEND without COBEGIN fails;
 *          (b) a VFD that does not know the opcodes (sec2, and h5sf for
 *          an unknown one) succeeds with IGNORE_IF_UNKNOWN and fails with
 *          FAIL_IF_UNKNOWN;  (c) through HDF5's splitter (a pass-through
 *          VFD) ROUTE_TO_TERMINAL reaches h5sf, and without it the
 *          splitter ignores the bracket.
 *   fault  H5SF_FAULT makes a bracketed transfer fail (pwrite EIO, or a
 *          stalled IOC past the timeout): the COEND fails on the caller's
 *          rank naming subfile, offset and cause; nothing hangs.
 *
 * usage: t_cobracket DIR main|fault world|split [SETTINGS]
 *        (H5SF_CHANNEL: the channel; split: ranks work in two groups, each
 *        on a file of its own; SETTINGS: more of h5sf's, e.g. ",timeout=2")
 */
#include <fcntl.h>
#include <hdf5.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "h5sf.h"
#include "h5sf_test.h"

#define S    65536 /* stripe size */
#define NSUB 4
/* The design's IGNORE_IF_UNKNOWN: HDF5 1.14 defines no such flag; an
 * unknown opcode is ignored unless FAIL_IF_UNKNOWN is set (H5FDpublic.h). */
#define IGNORE_IF_UNKNOWN 0
#define FL                (IGNORE_IF_UNKNOWN | H5FD_CTL_ROUTE_TO_TERMINAL_VFD_FLAG)

static MPI_Comm comm; /* the file's communicator */
static int      crank, csize;
static char     dir[2048], base[64];

/* Logical stripe of this rank's stripe k (subfile k) in region g. */
static uint64_t stripe(int g, int k) { return ((uint64_t)g * (uint64_t)csize + (uint64_t)crank) * NSUB + (uint64_t)k; }

/* Bytes of the two regions of all ranks of the file. */
static haddr_t file_end(void) { return (haddr_t)2 * (haddr_t)csize * NSUB * S; }

static hid_t h5sf_fapl(const char *extra)
{
    char  cfg[256];
    hid_t p = H5Pcreate(H5P_FILE_ACCESS);
    snprintf(cfg, sizeof cfg, "stripe_size=64KiB,stripe_count=%d%s", NSUB, extra);
    H5Pset_mpi_params(p, comm, MPI_INFO_NULL);
    H5Pset_driver_by_name(p, "h5sf", cfg);
    return p;
}

static H5FD_t *open_h5sf(const char *extra)
{
    char  path[8192];
    hid_t p = h5sf_fapl(extra);
    snprintf(path, sizeof path, "%s/%s", dir, base);
    H5FD_t *f = H5FDopen(path, H5F_ACC_RDWR | H5F_ACC_CREAT | H5F_ACC_TRUNC, p, (haddr_t)1 << 40);
    H5Pclose(p);
    CHECK(f != NULL, "H5FDopen of %s through h5sf failed", path);
    if (f)
        CHECK(H5FDset_eoa(f, H5FD_MEM_DRAW, file_end()) >= 0, "H5FDset_eoa failed");
    return f;
}

/* The most transfers of a bracket of NSUB in flight at once: requests to
 * IOCs all; the pool's (direct, same-node shortcuts) H5SF_POOL_THREADS
 * workers' and, at COEND, the caller's (0 workers: each at its call). */
static int want_most(void)
{
    const char *ch = getenv("H5SF_CHANNEL"), *lw = getenv("H5SF_SAMENODE_WRITES");
    const char *v = getenv("H5SF_POOL_THREADS");
    int         t = v && *v ? atoi(v) : NSUB;
    if (ch && !strcmp(ch, "ioc") && lw && !strcmp(lw, "0"))
        return NSUB;
    return NSUB < t + 1 ? NSUB : t + 1;
}

static uint64_t inflight(H5FD_t *f, uint64_t flags)
{
    h5sf_stats_t st = {.size = sizeof st}, *p = &st;
    memset(&st, 0, sizeof st);
    CHECK(H5FDctl(f, H5FD_H5SF_CTL_GET_STATS, flags, NULL, (void **)&p) >= 0, "GET_STATS failed");
    return st.cobegin_max_inflight;
}

/* Stripe k of region g as it lies in subfile k: logical stripe j is at
 * offset (j / NSUB) * S of subfile j mod NSUB.  Returns wrong bytes. */
static long check_stripe(int g, int k, int pass, const char *what)
{
    char           sp[8192];
    unsigned char *b   = malloc(S);
    uint64_t       j   = stripe(g, k);
    long           bad = 0;
    int            fd  = t_subfile(dir, base, k + 1, NSUB, sp, sizeof sp) == 0 ? open(sp, O_RDONLY) : -1;
    CHECK(fd >= 0, "%s: subfile %d of %s not found", what, k + 1, base);
    if (fd >= 0 && pread(fd, b, S, (off_t)((j / NSUB) * S)) == S) {
        for (size_t i = 0; i < S; i++)
            bad += b[i] != t_pat(pass, j * S + i);
    }
    else
        bad = S;
    CHECK(bad == 0, "%s: stripe %llu (subfile %d): %ld bytes differ from pass %d", what, (unsigned long long)j, k, bad,
          pass);
    if (fd >= 0)
        close(fd);
    free(b);
    return bad;
}

/* (a) on h5sf. */
static void bracket_h5sf(void)
{
    unsigned char *buf[NSUB], *rd[2 * NSUB];
    const char    *ch     = getenv("H5SF_CHANNEL");
    bool           direct = ch && !strcmp(ch, "direct");
    H5FD_t        *f      = open_h5sf("");
    if (!f)
        return;
    for (int k = 0; k < NSUB; k++)
        buf[k] = malloc(S);
    for (int k = 0; k < 2 * NSUB; k++)
        rd[k] = malloc(S);

    /* Without a bracket: one transfer at a time. */
    for (int k = 0; k < NSUB; k++) {
        t_fill(buf[k], S, 1, stripe(0, k) * S);
        CHECK(H5FDwrite(f, H5FD_MEM_DRAW, H5P_DEFAULT, stripe(0, k) * S, S, buf[k]) >= 0, "write %d failed", k);
    }
    CHECK(inflight(f, 0) == 1, "without a bracket %llu transfers were in flight at once, want 1",
          (unsigned long long)inflight(f, 0));

    /* A bracket: two H5FDwrite and one H5FDwrite_vector of two stripes,
     * each call to other subfiles; a nested bracket inside. */
    uint64_t before = 0;
    {
        h5sf_stats_t st = {.size = sizeof st}, *p = &st;
        H5FDctl(f, H5FD_H5SF_CTL_GET_STATS, 0, NULL, (void **)&p);
        before = st.bytes_written;
    }
    CHECK(H5FDctl(f, H5FD_H5SF_CTL_COBEGIN, FL, NULL, NULL) >= 0, "COBEGIN failed");
    for (int k = 0; k < NSUB; k++)
        t_fill(buf[k], S, 2, stripe(1, k) * S);
    CHECK(H5FDwrite(f, H5FD_MEM_DRAW, H5P_DEFAULT, stripe(1, 0) * S, S, buf[0]) >= 0, "bracketed write 0 failed");
    CHECK(H5FDctl(f, H5FD_H5SF_CTL_COBEGIN, FL, NULL, NULL) >= 0, "nested COBEGIN failed");
    CHECK(H5FDwrite(f, H5FD_MEM_DRAW, H5P_DEFAULT, stripe(1, 1) * S, S, buf[1]) >= 0, "bracketed write 1 failed");
    CHECK(H5FDctl(f, H5FD_H5SF_CTL_COEND, FL, NULL, NULL) >= 0, "nested COEND failed");
    if (direct) { /* the pool's transfers are counted when waited for: not yet */
        h5sf_stats_t st = {.size = sizeof st}, *p = &st;
        H5FDctl(f, H5FD_H5SF_CTL_GET_STATS, 0, NULL, (void **)&p);
        CHECK(st.bytes_written == before, "the nested COEND waited: %llu bytes counted, want 0",
              (unsigned long long)(st.bytes_written - before));
    }
    {
        H5FD_mem_t  t[2] = {H5FD_MEM_DRAW, H5FD_MEM_DRAW};
        haddr_t     a[2] = {stripe(1, 2) * S, stripe(1, 3) * S};
        size_t      n[2] = {S, S};
        const void *b[2] = {buf[2], buf[3]};
        CHECK(H5FDwrite_vector(f, H5P_DEFAULT, 2, t, a, n, b) >= 0, "bracketed vector write failed");
    }
    CHECK(H5FDctl(f, H5FD_H5SF_CTL_COEND, FL, NULL, NULL) >= 0, "COEND failed");
    CHECK(inflight(f, 0) == (uint64_t)want_most(), "in a bracket %llu transfers were in flight at once, want %d",
          (unsigned long long)inflight(f, 0), want_most());
    for (int k = 0; k < NSUB; k++)
        check_stripe(1, k, 2, "bracketed writes");
    MPI_Barrier(comm);

    /* A bracketed read: a vector of region 1, a selection of region 0. */
    for (int k = 0; k < 2 * NSUB; k++)
        memset(rd[k], 0xee, S);
    CHECK(H5FDctl(f, H5FD_H5SF_CTL_COBEGIN, FL, NULL, NULL) >= 0, "COBEGIN (read) failed");
    {
        H5FD_mem_t t[NSUB];
        haddr_t    a[NSUB];
        size_t     n[NSUB];
        void      *b[NSUB];
        for (int k = 0; k < NSUB; k++)
            t[k] = H5FD_MEM_DRAW, a[k] = stripe(1, k) * S, n[k] = S, b[k] = rd[NSUB + k];
        CHECK(H5FDread_vector(f, H5P_DEFAULT, NSUB, t, a, n, b) >= 0, "bracketed vector read failed");
    }
    {
        hsize_t total = file_end(), one = S, start;
        hid_t   ms[NSUB], fs[NSUB];
        haddr_t off[NSUB];
        size_t  es[NSUB];
        void   *b[NSUB];
        for (int k = 0; k < NSUB; k++) {
            start = stripe(0, k) * S;
            ms[k] = H5Screate_simple(1, &one, NULL);
            fs[k] = H5Screate_simple(1, &total, NULL);
            H5Sselect_hyperslab(fs[k], H5S_SELECT_SET, &start, NULL, &one, NULL);
            off[k] = 0, es[k] = 1, b[k] = rd[k];
        }
        CHECK(H5FDread_selection(f, H5FD_MEM_DRAW, H5P_DEFAULT, NSUB, ms, fs, off, es, b) >= 0,
              "bracketed selection read failed");
        for (int k = 0; k < NSUB; k++)
            H5Sclose(ms[k]), H5Sclose(fs[k]);
    }
    CHECK(H5FDctl(f, H5FD_H5SF_CTL_COEND, FL, NULL, NULL) >= 0, "COEND (read) failed");
    for (int g = 0; g < 2; g++)
        for (int k = 0; k < NSUB; k++) {
            long bad = 0;
            for (size_t i = 0; i < S; i++)
                bad += rd[g * NSUB + k][i] != t_pat(g + 1, stripe(g, k) * S + i);
            CHECK(bad == 0, "bracketed read of region %d stripe %d: %ld bytes wrong", g, k, bad);
        }

    /* A collective call inside a bracket completes what was posted and
     * runs at once: both are in the subfiles before COEND. */
    t_fill(buf[0], S, 3, stripe(1, 0) * S);
    t_fill(buf[1], S, 3, stripe(1, 1) * S);
    CHECK(H5FDctl(f, H5FD_H5SF_CTL_COBEGIN, FL, NULL, NULL) >= 0, "COBEGIN (collective) failed");
    CHECK(H5FDwrite(f, H5FD_MEM_DRAW, H5P_DEFAULT, stripe(1, 0) * S, S, buf[0]) >= 0, "posted write failed");
    {
        hid_t dx = H5Pcreate(H5P_DATASET_XFER);
        H5Pset_dxpl_mpio(dx, H5FD_MPIO_COLLECTIVE);
        CHECK(H5FDwrite(f, H5FD_MEM_DRAW, dx, stripe(1, 1) * S, S, buf[1]) >= 0, "collective write failed");
        H5Pclose(dx);
    }
    check_stripe(1, 0, 3, "posted write before a collective call, before COEND");
    check_stripe(1, 1, 3, "collective write inside a bracket, before COEND");
    CHECK(H5FDctl(f, H5FD_H5SF_CTL_COEND, FL, NULL, NULL) >= 0, "COEND (collective) failed");

    /* Flush inside a bracket completes what was posted. */
    t_fill(buf[2], S, 4, stripe(1, 2) * S);
    CHECK(H5FDctl(f, H5FD_H5SF_CTL_COBEGIN, FL, NULL, NULL) >= 0, "COBEGIN (flush) failed");
    CHECK(H5FDwrite(f, H5FD_MEM_DRAW, H5P_DEFAULT, stripe(1, 2) * S, S, buf[2]) >= 0, "posted write failed");
    CHECK(H5FDflush(f, H5P_DEFAULT, 0) >= 0, "flush inside a bracket failed");
    check_stripe(1, 2, 4, "posted write after a flush, before COEND");
    CHECK(H5FDctl(f, H5FD_H5SF_CTL_COEND, FL, NULL, NULL) >= 0, "COEND (flush) failed");

    /* So does a truncate (collective). */
    t_fill(buf[1], S, 9, stripe(1, 1) * S);
    CHECK(H5FDctl(f, H5FD_H5SF_CTL_COBEGIN, FL, NULL, NULL) >= 0, "COBEGIN (truncate) failed");
    CHECK(H5FDwrite(f, H5FD_MEM_DRAW, H5P_DEFAULT, stripe(1, 1) * S, S, buf[1]) >= 0, "posted write failed");
    CHECK(H5FDtruncate(f, H5P_DEFAULT, 0) >= 0, "truncate inside a bracket failed");
    check_stripe(1, 1, 9, "posted write after a truncate, before COEND");
    CHECK(H5FDctl(f, H5FD_H5SF_CTL_COEND, FL, NULL, NULL) >= 0, "COEND (truncate) failed");

    /* COEND without COBEGIN fails; an unknown opcode follows the flags. */
    H5E_BEGIN_TRY
    {
        CHECK(H5FDctl(f, H5FD_H5SF_CTL_COEND, FL, NULL, NULL) < 0, "COEND without COBEGIN succeeded");
        CHECK(H5FDctl(f, 1000, H5FD_CTL_FAIL_IF_UNKNOWN_FLAG, NULL, NULL) < 0,
              "h5sf: an unknown opcode with FAIL_IF_UNKNOWN succeeded");
    }
    H5E_END_TRY
    CHECK(H5FDctl(f, 1000, IGNORE_IF_UNKNOWN, NULL, NULL) >= 0,
          "h5sf: an unknown opcode with IGNORE_IF_UNKNOWN failed");
    CHECK(H5FDctl(f, 1000, 0, NULL, NULL) >= 0, "h5sf: an unknown opcode without flags failed");

    /* Close inside a bracket completes what was posted. */
    t_fill(buf[3], S, 5, stripe(1, 3) * S);
    CHECK(H5FDctl(f, H5FD_H5SF_CTL_COBEGIN, FL, NULL, NULL) >= 0, "COBEGIN (close) failed");
    CHECK(H5FDwrite(f, H5FD_MEM_DRAW, H5P_DEFAULT, stripe(1, 3) * S, S, buf[3]) >= 0, "posted write failed");
    CHECK(H5FDclose(f) >= 0, "close inside a bracket failed");
    check_stripe(1, 3, 5, "posted write after close");
    for (int k = 0; k < NSUB; k++)
        free(buf[k]);
    for (int k = 0; k < 2 * NSUB; k++)
        free(rd[k]);
}

/* (b) sec2 does not know the opcodes (it has no ctl at all). */
static void bracket_sec2(void)
{
    char           path[8192];
    unsigned char *b = malloc(S), *r = malloc(S);
    hid_t          p = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_sec2(p);
    snprintf(path, sizeof path, "%s/sec2_%d.bin", dir, t_rank);
    H5FD_t *f = H5FDopen(path, H5F_ACC_RDWR | H5F_ACC_CREAT | H5F_ACC_TRUNC, p, (haddr_t)1 << 40);
    CHECK(f != NULL, "sec2 open of %s failed", path);
    if (f) {
        t_fill(b, S, 6, 0);
        memset(r, 0, S);
        H5FDset_eoa(f, H5FD_MEM_DRAW, S);
        CHECK(H5FDctl(f, H5FD_H5SF_CTL_COBEGIN, FL, NULL, NULL) >= 0, "sec2: COBEGIN with IGNORE_IF_UNKNOWN failed");
        CHECK(H5FDwrite(f, H5FD_MEM_DRAW, H5P_DEFAULT, 0, S, b) >= 0, "sec2: write failed");
        CHECK(H5FDctl(f, H5FD_H5SF_CTL_COEND, FL, NULL, NULL) >= 0, "sec2: COEND with IGNORE_IF_UNKNOWN failed");
        H5E_BEGIN_TRY
        {
            CHECK(H5FDctl(f, H5FD_H5SF_CTL_COBEGIN, H5FD_CTL_FAIL_IF_UNKNOWN_FLAG, NULL, NULL) < 0,
                  "sec2: COBEGIN with FAIL_IF_UNKNOWN succeeded");
        }
        H5E_END_TRY
        CHECK(H5FDread(f, H5FD_MEM_DRAW, H5P_DEFAULT, 0, S, r) >= 0 && memcmp(b, r, S) == 0, "sec2: read back differs");
        H5FDclose(f);
        unlink(path);
    }
    H5Pclose(p);
    free(b);
    free(r);
}

/* (c) HDF5's splitter, a pass-through VFD: h5sf its read-write channel,
 * sec2 its write-only one (a file per rank). */
static void bracket_splitter(void)
{
    H5FD_splitter_vfd_config_t cfg;
    char                       path[8192];
    unsigned char             *buf[NSUB];
    hid_t                      p = H5Pcreate(H5P_FILE_ACCESS), wo = H5Pcreate(H5P_FILE_ACCESS);
    memset(&cfg, 0, sizeof cfg);
    H5Pset_fapl_sec2(wo);
    cfg.magic      = H5FD_SPLITTER_MAGIC;
    cfg.version    = H5FD_CURR_SPLITTER_VFD_CONFIG_VERSION;
    cfg.rw_fapl_id = h5sf_fapl("");
    cfg.wo_fapl_id = wo;
    snprintf(cfg.wo_path, sizeof cfg.wo_path, "%s/split_wo_%d.bin", dir, t_rank);
    H5Pset_fapl_splitter(p, &cfg);
    snprintf(path, sizeof path, "%s/%s", dir, base);
    H5FD_t *f = H5FDopen(path, H5F_ACC_RDWR | H5F_ACC_CREAT | H5F_ACC_TRUNC, p, (haddr_t)1 << 40);
    CHECK(f != NULL, "open of %s through the splitter failed", path);
    if (f) {
        CHECK(H5FDset_eoa(f, H5FD_MEM_DRAW, file_end()) >= 0, "splitter: set_eoa failed");
        for (int k = 0; k < NSUB; k++)
            buf[k] = malloc(S);
        /* Without routing the splitter ignores the opcodes (or fails them
         * with FAIL_IF_UNKNOWN): the writes run one at a time. */
        H5E_BEGIN_TRY
        {
            CHECK(H5FDctl(f, H5FD_H5SF_CTL_COBEGIN, H5FD_CTL_FAIL_IF_UNKNOWN_FLAG, NULL, NULL) < 0,
                  "splitter: COBEGIN with FAIL_IF_UNKNOWN and no routing succeeded");
        }
        H5E_END_TRY
        CHECK(H5FDctl(f, H5FD_H5SF_CTL_COBEGIN, IGNORE_IF_UNKNOWN, NULL, NULL) >= 0,
              "splitter: COBEGIN with IGNORE_IF_UNKNOWN failed");
        for (int k = 0; k < NSUB; k++) {
            t_fill(buf[k], S, 7, stripe(0, k) * S);
            CHECK(H5FDwrite(f, H5FD_MEM_DRAW, H5P_DEFAULT, stripe(0, k) * S, S, buf[k]) >= 0, "splitter: write failed");
        }
        CHECK(H5FDctl(f, H5FD_H5SF_CTL_COEND, IGNORE_IF_UNKNOWN, NULL, NULL) >= 0,
              "splitter: COEND with IGNORE_IF_UNKNOWN failed");
        CHECK(inflight(f, H5FD_CTL_ROUTE_TO_TERMINAL_VFD_FLAG) == 1,
              "splitter, no routing: %llu transfers in flight at once, want 1",
              (unsigned long long)inflight(f, H5FD_CTL_ROUTE_TO_TERMINAL_VFD_FLAG));
        /* Routed to h5sf: the bracket holds. */
        CHECK(H5FDctl(f, H5FD_H5SF_CTL_COBEGIN, FL, NULL, NULL) >= 0, "splitter: routed COBEGIN failed");
        for (int k = 0; k < NSUB; k++) {
            t_fill(buf[k], S, 8, stripe(1, k) * S);
            CHECK(H5FDwrite(f, H5FD_MEM_DRAW, H5P_DEFAULT, stripe(1, k) * S, S, buf[k]) >= 0, "splitter: write failed");
        }
        CHECK(H5FDctl(f, H5FD_H5SF_CTL_COEND, FL, NULL, NULL) >= 0, "splitter: routed COEND failed");
        CHECK(inflight(f, H5FD_CTL_ROUTE_TO_TERMINAL_VFD_FLAG) == (uint64_t)want_most(),
              "splitter, routed: %llu transfers in flight at once, want %d",
              (unsigned long long)inflight(f, H5FD_CTL_ROUTE_TO_TERMINAL_VFD_FLAG), want_most());
        for (int k = 0; k < NSUB; k++) {
            check_stripe(0, k, 7, "splitter, unbracketed");
            check_stripe(1, k, 8, "splitter, routed bracket");
            free(buf[k]);
        }
        CHECK(H5FDclose(f) >= 0, "splitter: close failed");
    }
    unlink(cfg.wo_path);
    H5Pclose(cfg.rw_fapl_id);
    H5Pclose(wo);
    H5Pclose(p);
}

/* A failing transfer inside a bracket: COEND fails here, naming the cause.
 * extra: more driver settings (a short timeout). */
static void bracket_fault(const char *extra)
{
    unsigned char     *buf[NSUB];
    static t_errtext_t t;
    const char        *text = t.desc;
    H5FD_t            *f    = open_h5sf(extra);
    herr_t             r;
    if (!f)
        return;
    CHECK(H5FDctl(f, H5FD_H5SF_CTL_COBEGIN, FL, NULL, NULL) >= 0, "COBEGIN failed");
    for (int k = 0; k < NSUB; k++) {
        buf[k] = malloc(S);
        t_fill(buf[k], S, 1, stripe(0, k) * S);
        H5E_BEGIN_TRY { r = H5FDwrite(f, H5FD_MEM_DRAW, H5P_DEFAULT, stripe(0, k) * S, S, buf[k]); }
        H5E_END_TRY
        CHECK(r >= 0, "posting write %d failed", k);
    }
    H5E_BEGIN_TRY { r = H5FDctl(f, H5FD_H5SF_CTL_COEND, FL, NULL, NULL); }
    H5E_END_TRY
    CHECK(r < 0, "COEND succeeded although a transfer failed");
    t_errors(&t);
    CHECK(strstr(text, "COEND") && strstr(text, "subfile") &&
              (strstr(text, "Input/output error") || strstr(text, "timeout")),
          "COEND's error does not name the cause: %s", text);
    if (t_rank == 0)
        fprintf(stderr, "t_cobracket: COEND's error: %s\n", text);
    /* Nothing is left posted: the close succeeds (with a hung IOC it
     * fails too, but returns). */
    H5E_BEGIN_TRY { r = H5FDclose(f); }
    H5E_END_TRY
    CHECK(r >= 0 || strstr(extra, "timeout"), "close after the failed bracket failed");
    for (int k = 0; k < NSUB; k++)
        free(buf[k]);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv, "t_cobracket");
    if (argc < 4) {
        if (t_rank == 0)
            fprintf(stderr, "usage: t_cobracket DIR main|fault world|split [SETTINGS]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    bool split = !strcmp(argv[3], "split");
    MPI_Comm_split(MPI_COMM_WORLD, split ? t_rank % 2 : 0, t_rank, &comm);
    MPI_Comm_rank(comm, &crank);
    MPI_Comm_size(comm, &csize);
    snprintf(dir, sizeof dir, "%s", argv[1]);
    if (t_rank == 0)
        t_fresh_dir(dir);
    MPI_Barrier(MPI_COMM_WORLD);
    snprintf(base, sizeof base, "cobracket_%d.h5", split ? t_rank % 2 : 0);
    if (!strcmp(argv[2], "main")) {
        bracket_h5sf();
        MPI_Barrier(MPI_COMM_WORLD);
        bracket_sec2();
        bracket_splitter();
    }
    else
        bracket_fault(argc > 4 ? argv[4] : "");
    MPI_Comm_free(&comm);
    int rc = t_verdict();
    MPI_Finalize();
    return rc;
}
