/*
 * t_huge.c -- a selection of very many pieces goes through in bounded memory.
 *
 * A 1-byte dataset of 2*K elements (contiguous, never filled) is written
 * through a regular hyperslab of K one-element blocks at stride 2 -- K
 * pieces, 2K bytes of file -- from a contiguous buffer, with selection I/O
 * on so h5sf gets the selection itself; then read back the same way.  With
 * P ranks, rank r takes the blocks j = r, r+P, r+2P ... (start 2r, stride 2P),
 * so the K pieces are shared and the ranks' pieces interleave in the file.
 * The channel and its shortcuts come from the environment (H5SF_CHANNEL,
 * H5SF_SAMENODE_READS/WRITES), set by ctest.
 *
 * Checks:
 *   - every subfile byte, read with pread and this file's own stripe
 *     arithmetic, holds the pattern at written elements and 0 elsewhere;
 *   - the strided read returns the pattern, and a contiguous read of the
 *     whole dataset on rank 0 the pattern at even elements and 0 at odd;
 *   - the write was planned in rounds: every message carries at most the
 *     round limit of pieces (H5SF_MAX_PIECES, or H5SF_TEST_MAX_PIECES);
 *   - unless `data`: memory does not follow the pieces.  The whole test
 *     runs twice, first with BASE_LOG2 (2^21: a full round per rank at
 *     P <= 2), then with K; during each write and read the peak RSS growth
 *     (VmHWM after a reset through /proc/self/clear_refs, over VmRSS before)
 *     is measured.  Those of K must stay below BOUND_MIB and within
 *     SLACK_MIB of the baseline's (+128 MiB on an IOC rank serving other
 *     ranks: its queue, bounded by H5SF_IOC_MEMORY).  The buffers exist before; HDF5 walks a
 *     regular hyperslab without per-element memory, so what grows is h5sf's
 *     plan, vectors and messages (and, on rank 0 with the IOC channel, the
 *     IOC's queue).  Unbounded, that is ~40 (direct) to ~70 (IOC) bytes a
 *     piece: 2^23 pieces ~300-550 MiB, 2^27 several GiB.
 *     glibc's mmap threshold is pinned at 128 KiB (mallopt): its default
 *     rises to the largest block freed so far (up to 32 MiB), after which
 *     the per-round blocks come from the heap and its fragmentation adds to
 *     the peak with every round (measured 2026-11-26: +252 MiB at 2^24
 *     pieces instead of +149 MiB); the pin measures what h5sf allocates.
 *
 * usage: mpiexec -n P t_huge DIR LOG2K [data]
 */
#include <errno.h>
#include <fcntl.h>
#include <hdf5.h>
#include <malloc.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "h5sf.h"
#include "../common/stripe.h"
#include "h5sf_test.h"

#ifndef H5SF_MAX_PIECES /* a library from before the limit: what it should be */
#define H5SF_MAX_PIECES ((uint64_t)1 << 20)
#endif

/* Peak growth allowed during one transfer, and over the baseline's. */
#define BOUND_MIB 256
#define SLACK_MIB 64
#define BASE_LOG2 21
#define STRIPE    ((int64_t)4 << 20)
#define NSUB      3


/* Forget the peak so far; the RSS now (KiB), the base of a growth. */
static long long peak_reset(void)
{
    t_peak_reset();
    return t_status_kib("VmRSS:");
}

static long long peak_growth_mib(long long base_kib) { return (t_status_kib("VmHWM:") - base_kib) >> 10; }

/* The round limit the library uses (io.c). */
static uint64_t round_limit(void)
{
    const char *v = getenv("H5SF_TEST_MAX_PIECES");
    if (v && *v && strtoull(v, NULL, 10) >= 1 && strtoull(v, NULL, 10) < H5SF_MAX_PIECES)
        return strtoull(v, NULL, 10);
    return H5SF_MAX_PIECES;
}

/* Every logical byte [off, off + 2K) of the file, from the subfiles: stripe
 * k lives in subfile k mod N at (k div N) * S.  Rank 0 only. */
static void check_subfiles(const char *dir, const char *base, uint64_t off, uint64_t K)
{
    int            fd[NSUB];
    unsigned char *buf = malloc((size_t)STRIPE);
    uint64_t       bad = 0, end = off + 2 * K;
    for (int s = 0; s < NSUB; s++) {
        char path[4096];
        fd[s] = -1;
        if (t_subfile(dir, base, s + 1, NSUB, path, sizeof path) == 0)
            fd[s] = open(path, O_RDONLY);
        CHECK(fd[s] >= 0, "subfile %d of %s not found", s + 1, base);
    }
    for (uint64_t a = off; buf && a < end && !bad;) {
        uint64_t k = a / (uint64_t)STRIPE, in = a % (uint64_t)STRIPE;
        uint64_t n = (uint64_t)STRIPE - in < end - a ? (uint64_t)STRIPE - in : end - a;
        int      s = (int)(k % NSUB);
        if (fd[s] < 0)
            break;
        ssize_t got = pread(fd[s], buf, (size_t)n, (off_t)((k / NSUB) * (uint64_t)STRIPE + in));
        if (got < 0)
            got = 0;
        memset(buf + got, 0, (size_t)(n - (uint64_t)got)); /* past a subfile's end reads as 0 */
        for (uint64_t i = 0; i < n; i++) {
            uint64_t e    = a + i - off;
            unsigned want = e % 2 ? 0 : t_pat(1, e);
            if (buf[i] != want && bad++ < 5)
                CHECK(0, "file element %llu (subfile %d) holds %u, want %u", (unsigned long long)e, s + 1, buf[i],
                      want);
        }
        a += n;
    }
    CHECK(bad == 0, "%llu file bytes wrong", (unsigned long long)bad);
    for (int s = 0; s < NSUB; s++)
        if (fd[s] >= 0)
            close(fd[s]);
    free(buf);
}

/* Write K pieces strided, read them back, check against the subfiles and
 * a contiguous read; *wgrow and *rgrow get the peak RSS growth (MiB) of
 * the strided write and read. */
static void run(const char *dir, uint64_t K, long long *wgrow, long long *rgrow, int *channel)
{
    const uint64_t mine = K / (uint64_t)t_size + ((uint64_t)t_rank < K % (uint64_t)t_size);
    char           path[4096], base[96];
    snprintf(base, sizeof base, "huge_%d_%s_%llu.h5", t_size, getenv("H5SF_CHANNEL") ? getenv("H5SF_CHANNEL") : "auto",
             (unsigned long long)K);
    snprintf(path, sizeof path, "%s/%s", dir, base);

    /* The buffers, touched before any measurement. */
    unsigned char *wbuf = malloc(mine ? mine : 1), *rbuf = malloc(mine ? mine : 1);
    if (!wbuf || !rbuf) {
        fprintf(stderr, "rank %d: out of memory for %llu-byte buffers\n", t_rank, (unsigned long long)mine);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (uint64_t j = 0; j < mine; j++)
        wbuf[j] = t_pat(1, 2 * ((uint64_t)t_rank + (uint64_t)t_size * j));
    memset(rbuf, 0, mine ? mine : 1);

    H5FD_h5sf_config_t cfg;
    H5FD_h5sf_config_init(&cfg);
    cfg.stripe_size  = STRIPE;
    cfg.stripe_count = NSUB;
    cfg.comm         = MPI_COMM_WORLD;
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS), dcpl = H5Pcreate(H5P_DATASET_CREATE), dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_fapl_h5sf(fapl, &cfg);
    H5Pset_layout(dcpl, H5D_CONTIGUOUS);
    H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER);
    H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY);
    H5Pset_selection_io(dxpl, H5D_SELECTION_IO_MODE_ON);

    hsize_t dims = 2 * K, start = 2 * (hsize_t)t_rank, stride = 2 * (hsize_t)t_size, count = mine, one = 1;
    hid_t   file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    hid_t   fsp = H5Screate_simple(1, &dims, NULL), msp = H5Screate_simple(1, &count, NULL);
    hid_t   dset = H5Dcreate2(file, "d", H5T_NATIVE_UCHAR, fsp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    CHECK(file >= 0 && dset >= 0, "cannot create %s", path);
    if (mine)
        H5Sselect_hyperslab(fsp, H5S_SELECT_SET, &start, &stride, &count, &one);
    else
        H5Sselect_none(fsp), H5Sselect_none(msp);

    h5sf_stats_t st0, st1;
    H5FD_h5sf_get_stats(file, &st0);
    MPI_Barrier(MPI_COMM_WORLD);
    double    t0    = MPI_Wtime();
    long long basek = peak_reset();
    CHECK(H5Dwrite(dset, H5T_NATIVE_UCHAR, msp, fsp, dxpl, wbuf) >= 0, "strided write failed");
    *wgrow    = peak_growth_mib(basek);
    double tw = MPI_Wtime() - t0;
    H5FD_h5sf_get_stats(file, &st1);

    /* Rounds: no message carries more than the limit. */
    uint64_t pin = st1.pieces_in - st0.pieces_in, pout = st1.pieces_out - st0.pieces_out,
             msgs = st1.messages - st0.messages, lim = round_limit();
    CHECK(pin >= mine && pout >= mine, "write planned %llu/%llu pieces, want >= %llu", (unsigned long long)pin,
          (unsigned long long)pout, (unsigned long long)mine);
    CHECK(msgs * lim >= pout, "write sent %llu pieces in %llu messages: more than %llu per message",
          (unsigned long long)pout, (unsigned long long)msgs, (unsigned long long)lim);

    MPI_Barrier(MPI_COMM_WORLD);
    t0    = MPI_Wtime();
    basek = peak_reset();
    CHECK(H5Dread(dset, H5T_NATIVE_UCHAR, msp, fsp, dxpl, rbuf) >= 0, "strided read failed");
    *rgrow       = peak_growth_mib(basek);
    double   tr  = MPI_Wtime() - t0;
    uint64_t bad = 0;
    for (uint64_t j = 0; j < mine; j++)
        if (rbuf[j] != wbuf[j] && bad++ < 5)
            CHECK(0, "strided read: block %llu is %u, want %u", (unsigned long long)j, rbuf[j], wbuf[j]);
    CHECK(bad == 0, "strided read: %llu bytes wrong", (unsigned long long)bad);

    haddr_t off = H5Dget_offset(dset);
    CHECK(off != HADDR_UNDEF, "no dataset offset");
    H5FD_h5sf_layout_t lay;
    CHECK(H5FD_h5sf_get_layout(file, &lay) >= 0 && lay.stripe_size == STRIPE && lay.stripe_count == NSUB,
          "layout is not %lld x %d", (long long)STRIPE, NSUB);
    *channel = lay.channel;
    printf("rank %d: %llu pieces, %llu messages; write %.1f s +%lld MiB, read %.1f s +%lld MiB\n", t_rank,
           (unsigned long long)mine, (unsigned long long)msgs, tw, *wgrow, tr, *rgrow);
    H5Dclose(dset);
    H5Fclose(file);
    free(rbuf);
    free(wbuf);
    MPI_Barrier(MPI_COMM_WORLD);

    /* Independent references: the subfiles, then a contiguous read. */
    if (t_rank == 0 && off != HADDR_UNDEF)
        check_subfiles(dir, base, off, K);
    unsigned char *all = malloc(2 * K);
    hid_t          f2 = H5Fopen(path, H5F_ACC_RDONLY, fapl), d2 = H5Dopen2(f2, "d", H5P_DEFAULT);
    CHECK(all && H5Dread(d2, H5T_NATIVE_UCHAR, H5S_ALL, H5S_ALL, H5P_DEFAULT, all) >= 0, "contiguous read");
    for (uint64_t e = 0, n = 0; all && e < 2 * K; e++)
        if (all[e] != (e % 2 ? 0 : t_pat(1, e)) && n++ < 5)
            CHECK(0, "contiguous read: element %llu is %u", (unsigned long long)e, all[e]);
    free(all);
    H5Dclose(d2);
    H5Fclose(f2);
    H5Sclose(fsp);
    H5Sclose(msp);
    H5Pclose(fapl);
    H5Pclose(dcpl);
    H5Pclose(dxpl);

    /* 2K bytes of file per run: do not keep them. */
    MPI_Barrier(MPI_COMM_WORLD);
    char **files = NULL;
    size_t n     = 0;
    if (t_rank == 0 && H5FD_h5sf_get_files(path, NULL, &files, &n) >= 0) {
        for (size_t i = 0; i < n; i++)
            unlink(files[i]);
        H5FD_h5sf_free_files(files, n);
    }
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv, "t_huge");
    if (argc < 3) {
        if (t_rank == 0)
            fprintf(stderr, "usage: t_huge DIR LOG2K [data]\n");
        MPI_Finalize();
        return 2;
    }
    const int  lk  = atoi(argv[2]);
    const bool mem = !(argc > 3 && !strcmp(argv[3], "data"));
    long long  bw = 0, br = 0, w, r;
    int        ch = 0;
    mallopt(M_MMAP_THRESHOLD, 128 * 1024);
    if (mem && lk > BASE_LOG2)
        run(argv[1], (uint64_t)1 << BASE_LOG2, &bw, &br, &ch);
    run(argv[1], (uint64_t)1 << lk, &w, &r, &ch);
    /* Rank 0 is the IOC (one per node): its queue holds what several
     * clients have in flight, up to half of H5SF_IOC_MEMORY (128 MiB) --
     * bounded by that setting, not by the pieces, but more clients' rounds
     * overlap in a longer transfer than in the baseline. */
    const long long slack = SLACK_MIB + (ch == H5FD_H5SF_CHANNEL_IOC && t_rank == 0 && t_size > 1 ? 128 : 0);
    if (mem) {
        CHECK(w < BOUND_MIB && r < BOUND_MIB, "peak RSS grew by %lld MiB (write), %lld MiB (read): bound %d MiB", w, r,
              BOUND_MIB);
        if (lk > BASE_LOG2)
            CHECK(w < bw + slack && r < br + slack,
                  "peak RSS growth follows the pieces: 2^%d: +%lld/+%lld MiB (write/read), 2^%d: +%lld/+%lld MiB",
                  BASE_LOG2, bw, br, lk, w, r);
    }
    int ret = t_verdict();
    MPI_Finalize();
    return ret;
}
