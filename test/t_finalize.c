/*
 * t_finalize.c -- MPI_Finalize with h5sf files still open: every rank
 * returns within a bound (a watchdog turns a hang into a failure naming
 * the step), and what h5sf could not do there is said, not lost.
 *
 *   hang     2 ranks, IOC channel, the IOC on rank 0, every transfer
 *            through it, timeout=2, H5SF_FAULT="op=hang,rank=0,after=1"
 *            (the open's size query passes).  Both open a file (H5FDopen);
 *            rank 0 calls MPI_Finalize at once, rank 1 writes 0.5 s later,
 *            into a group that never ends.  Rank 1's write fails with the
 *            timeout, and both MPI_Finalize return within 30 s.
 *   nomem    H5SF_FAULT="op=nomem-finalize,rank=R": every allocation of
 *            the finalize hook fails on rank R, with an HDF5 file (written,
 *            not flushed) open.  Every rank returns; `check` reads the
 *            file back.
 *   check    read nomem's file back (any rank count).
 *   bracket-coend, bracket-close
 *            H5FDopen, COBEGIN, H5FDwrite of one stripe per rank (to a
 *            subfile another rank's IOC serves, on the IOC channel),
 *            MPI_Finalize with the bracket open, then COEND (or H5FDclose,
 *            with HDF5 initialized before MPI: see mode_bracket): no
 *            crash; it fails naming the file and MPI_Finalize, once; the
 *            bytes are in the subfile (the hook waited for them).  With
 *            T_FAIL_RANK=R that rank's transfer fails (H5SF_FAULT): its
 *            error names the cause, and the hook said so on stderr.
 *   closefail  an HDF5 file left open with fsync=1, H5SF_FAULT="op=fsync":
 *            the hook's close fails on every rank, which prints one line
 *            naming the file, MPI_Finalize and the cause.
 *   directfail  an H5FDopen'ed IOC-channel file whose subfiles rank 0
 *            unlinked: the hook cannot move it off its IOCs and says so;
 *            GET_STATS and H5FDclose afterwards touch no freed context.
 *
 * usage: t_finalize MODE DIR
 */
#include <mpi.h>
#include <hdf5.h>
#include "h5sf.h"
#include "h5sf_test.h"

#define S ((size_t)64 << 10) /* stripe size */

static char path[4096], dir[2048];

/* Each rank's own verdict: after MPI_Finalize nothing can be agreed. */
static int verdict(const char *mode)
{
    t_step_done();
    long n = t_fails;
    printf("t_finalize %s rank %d: %s (%ld failed checks)\n", mode, t_rank, n ? "FAILED" : "passed", n);
    fflush(stdout);
    return n ? 1 : 0;
}

/* stderr goes to a file while MPI_Finalize runs (the hook's lines are
 * checked); the watchdog keeps speaking to the real stderr. */
static void capture_stderr(const char *tag)
{
    char p[4352];
    snprintf(p, sizeof p, "%s/%s.err.%d", dir, tag, t_rank);
    t_stderr_capture(p);
}

/* Back to the real stderr; the captured text (echoed there too). */
static char *release_stderr(void)
{
    char *b = t_stderr_release();
    if (*b)
        fprintf(stderr, "[t_finalize rank %d] stderr during MPI_Finalize:\n%s", t_rank, b);
    return b;
}

static void finalize_bounded(unsigned limit)
{
    t_mpich_calm();
    t_step(limit, "MPI_Finalize");
    double t0 = t_now_s();
    MPI_Finalize();
    t_step_done();
    double el = t_now_s() - t0;
    printf("t_finalize rank %d: MPI_Finalize took %.2f s\n", t_rank, el);
    CHECK(el < limit, "MPI_Finalize took %.1f s", el);
}

/* A fresh file opened with H5FDopen (settings cfg), its EOA at eoa; the
 * job stops if it does not open. */
static H5FD_t *open_raw(const char *cfg, haddr_t eoa)
{
    hid_t   fapl = t_fapl(cfg);
    H5FD_t *f    = H5FDopen(path, H5F_ACC_RDWR | H5F_ACC_CREAT | H5F_ACC_TRUNC, fapl, (haddr_t)1 << 40);
    H5Pclose(fapl); /* its communicator must not outlive MPI */
    CHECK(f != NULL, "H5FDopen failed");
    if (!f)
        MPI_Abort(MPI_COMM_WORLD, 2);
    H5FDset_eoa(f, H5FD_MEM_DRAW, eoa);
    return f;
}

static void mode_hang(void)
{
    unsigned char buf[4096];
    t_step(60, "open");
    H5FD_t *f = open_raw("channel=ioc,ioc=total:1,stripe_size=64KiB,stripe_count=1,timeout=2", (haddr_t)S);
    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == 1) {
        struct timespec ts = {0, 500000000};
        nanosleep(&ts, NULL); /* rank 0 is in MPI_Finalize by now */
        t_fill(buf, sizeof buf, 1, 0);
        t_step(20, "rank 1's write to the hung IOC");
        double t0 = t_now_s();
        herr_t r  = H5FDwrite(f, H5FD_MEM_DRAW, H5P_DEFAULT, 0, sizeof buf, buf);
        double el = t_now_s() - t0;
        CHECK(r < 0, "the write to a hung IOC succeeded");
        if (r < 0) {
            t_errtext_t t;
            t_errors(&t);
            CHECK(strstr(t.buf, "no answer from IOC rank 0") && strstr(t.buf, "timeout"),
                  "the write's error does not name the timeout:\n%s", t.buf);
        }
        CHECK(el < 10, "the write failed only after %.1f s (timeout=2)", el);
    }
    finalize_bounded(30);
    /* HDF5 ended itself at MPI_Finalize (its own MPI_COMM_SELF hook): the
     * driver's id is gone and H5FDclose fails there, before h5sf. */
    (void)f;
}

/* An HDF5 file with settings cfg, dataset "d" holding one stripe per rank
 * (pattern 7, as mode_check reads it), left open: its metadata unflushed,
 * so the hook's close has work to do. */
static void create_left_open(const char *cfg)
{
    hid_t         fapl = t_fapl(cfg);
    unsigned char buf[S];
    t_step(60, "create and write");
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    CHECK(f >= 0, "H5Fcreate failed");
    if (f < 0)
        MPI_Abort(MPI_COMM_WORLD, 2);
    hid_t d = t_dset_create(f, "d", (hsize_t)t_size * S);
    t_fill(buf, S, 7, (uint64_t)t_rank * S);
    CHECK(t_dset_io(d, 1, (hsize_t)t_rank * S, S, buf, H5P_DEFAULT, NULL) >= 0, "write");
    H5Dclose(d);
    H5Pclose(fapl);
}

static void mode_nomem(void)
{
    create_left_open("channel=ioc,stripe_size=64KiB,stripe_count=2");
    finalize_bounded(30);
}

static void mode_check(void)
{
    hid_t fapl = t_fapl("");
    t_step(60, "read back");
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    CHECK(f >= 0, "cannot open %s: the finalize hook did not close it", path);
    if (f >= 0) {
        hid_t          d  = H5Dopen2(f, "d", H5P_DEFAULT);
        hid_t          sp = H5Dget_space(d);
        hssize_t       n  = H5Sget_simple_extent_npoints(sp);
        unsigned char *b  = malloc(n > 0 ? (size_t)n : 1);
        CHECK(d >= 0 && n > 0 && n % S == 0, "dataset d missing or of %lld bytes", (long long)n);
        if (d >= 0 && n > 0) {
            CHECK(t_dset_io(d, 0, 0, (hsize_t)n, b, H5P_DEFAULT, NULL) >= 0, "read");
            size_t bad = t_mismatch(b, (size_t)n, 7, 0);
            CHECK(bad == (size_t)n, "byte %zu of %lld differs from what was written", bad, (long long)n);
        }
        free(b);
        H5Sclose(sp);
        H5Dclose(d);
        H5Fclose(f);
    }
    H5Pclose(fapl);
}

/* Stripe this rank writes: the next rank's, so that on the IOC channel
 * (an IOC on every rank, subfile s served by rank s mod 2) most requests
 * go to another rank. */
static uint64_t my_stripe(void) { return (uint64_t)((t_rank + 1) % t_size); }

/* HDF5 ends itself at MPI_Finalize if it was initialized after MPI (an
 * MPI_COMM_SELF hook of its own), and then H5FDclose fails before it
 * reaches h5sf; bracket-close initializes HDF5 first (main), so that its
 * close reaches h5sf as it does for a program that did (and so does
 * bracket-coend under HDF5 2.x: see main). */
static void mode_bracket(bool coend)
{
    const char   *fr   = getenv("T_FAIL_RANK");
    const bool    fail = fr && atoi(fr) == t_rank;
    unsigned char buf[S], got[S];
    t_step(60, "open and post");
    H5FD_t  *f = open_raw("stripe_size=64KiB,stripe_count=2", (haddr_t)t_size * S);
    uint64_t a = my_stripe() * S;
    t_fill(buf, S, 3, a);
    CHECK(H5FDctl(f, H5FD_H5SF_CTL_COBEGIN, 0, NULL, NULL) >= 0, "COBEGIN failed");
    CHECK(H5FDwrite(f, H5FD_MEM_DRAW, H5P_DEFAULT, a, S, buf) >= 0, "posting the write failed");
    MPI_Barrier(MPI_COMM_WORLD);
    capture_stderr(coend ? "bracket-coend" : "bracket-close");
    finalize_bounded(60);
    char *err = release_stderr();
    if (fail)
        CHECK(strstr(err, path) && strstr(err, "Input/output error"),
              "the hook did not say that the bracket's transfer failed (stderr above)");
    free(err);

    t_step(20, "%s after MPI_Finalize", coend ? "COEND" : "H5FDclose");
    herr_t r = coend ? H5FDctl(f, H5FD_H5SF_CTL_COEND, 0, NULL, NULL) : H5FDclose(f);
    CHECK(r < 0, "%s after MPI_Finalize succeeded for a bracket left open", coend ? "COEND" : "H5FDclose");
    if (r < 0) {
        t_errtext_t t;
        t_errors(&t);
        CHECK(strstr(t.buf, path) && strstr(t.buf, "MPI_Finalize"),
              "the error names neither file nor MPI_Finalize:\n%s", t.buf);
        if (fail)
            CHECK(strstr(t.buf, "Input/output error"), "the error does not name the transfer's cause:\n%s", t.buf);
        else
            CHECK(!strstr(t.buf, "failed:"), "a transfer that worked is reported as failed:\n%s", t.buf);
    }
    if (coend) {
        r = H5FDctl(f, H5FD_H5SF_CTL_COEND, 0, NULL, NULL);
        CHECK(r < 0, "a second COEND after MPI_Finalize succeeded");
        t_errtext_t t;
        t_errors(&t);
        CHECK(strstr(t.buf, "without a COBEGIN"), "the second COEND:\n%s", t.buf);
    }

    /* The bytes, in subfile my_stripe() mod 2 at (my_stripe() / 2) * S. */
    char **files = NULL;
    size_t n     = 0;
    CHECK(H5FD_h5sf_get_files(path, NULL, &files, &n) >= 0 && n == 4, "H5FD_h5sf_get_files");
    if (n == 4 && !fail) {
        int fd = open(files[2 + my_stripe() % 2], O_RDONLY);
        CHECK(fd >= 0 && pread(fd, got, S, (off_t)(my_stripe() / 2 * S)) == (ssize_t)S && !memcmp(got, buf, S),
              "the bracket's write is not in subfile %s", files[2 + my_stripe() % 2]);
        if (fd >= 0)
            close(fd);
    }
    H5FD_h5sf_free_files(files, n);
}

static void mode_closefail(void)
{
    create_left_open("stripe_size=64KiB,stripe_count=2,fsync=1");
    /* The close's flush syncs, which H5SF_FAULT=op=fsync makes fail. */
    capture_stderr("closefail");
    finalize_bounded(30);
    char *err = release_stderr();
    CHECK(strstr(err, path) && strstr(err, "MPI_Finalize") && strstr(err, "fsync") && strstr(err, "Input/output error"),
          "no line on stderr names the file, MPI_Finalize and the failed fsync (stderr above)");
    free(err);
}

/* IOC channel, a file opened with H5FDopen whose subfiles are gone (rank 0
 * unlinks them; the IOCs keep theirs open), so that MPI_Finalize's hook
 * cannot move it to the direct channel and says so; afterwards GET_STATS
 * and H5FDclose must not touch the IOC context the hook freed (under ASan:
 * a heap-use-after-free before).  HDF5 starts before MPI (main), so that
 * both calls reach h5sf. */
static void mode_directfail(void)
{
    unsigned char buf[S];
    t_step(60, "open, write, unlink the subfiles");
    H5FD_t *f = open_raw("stripe_size=64KiB,stripe_count=2", (haddr_t)t_size * S);
    t_fill(buf, S, 5, (uint64_t)t_rank * S);
    CHECK(H5FDwrite(f, H5FD_MEM_DRAW, H5P_DEFAULT, (haddr_t)t_rank * S, S, buf) >= 0, "write");
    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == 0) {
        char **files = NULL;
        size_t n     = 0;
        CHECK(H5FD_h5sf_get_files(path, NULL, &files, &n) >= 0 && n == 4, "H5FD_h5sf_get_files");
        for (size_t i = 2; i < n; i++)
            CHECK(unlink(files[i]) == 0, "unlink %s", files[i]);
        H5FD_h5sf_free_files(files, n);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    capture_stderr("directfail");
    finalize_bounded(60);
    char *err = release_stderr();
    CHECK(strstr(err, path) && strstr(err, "cannot be closed without its I/O concentrators"),
          "the hook did not say that the file cannot move off its IOCs (stderr above)");
    free(err);

    t_step(20, "GET_STATS and H5FDclose after MPI_Finalize");
    h5sf_stats_t st = {0}, *p = &st;
    CHECK(H5FDctl(f, H5FD_H5SF_CTL_GET_STATS, 0, NULL, (void **)&p) >= 0, "GET_STATS after MPI_Finalize failed");
    CHECK(st.write_calls >= 1, "GET_STATS: %llu write calls", (unsigned long long)st.write_calls);
    H5E_BEGIN_TRY { H5FDclose(f); }
    H5E_END_TRY
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: t_finalize hang|nomem|check|bracket-coend|bracket-close|closefail|directfail DIR\n");
        return 2;
    }
    const char *mode = argv[1];
    /* Before MPI, HDF5 outlives MPI_Finalize.  HDF5 2.x, once it has ended
     * itself there, answers H5FDctl without calling the driver (2.2.0:
     * COEND returns 0 and never reaches h5sf), so under 2.x bracket-coend
     * starts HDF5 first too; 1.14 restarts itself and reaches h5sf. */
    if (!strcmp(mode, "bracket-close") || !strcmp(mode, "directfail") ||
        (H5_VERSION_GE(2, 0, 0) && !strcmp(mode, "bracket-coend")))
        H5open();
    t_init(&argc, &argv, "t_finalize");
    snprintf(dir, sizeof dir, "%s", argv[2]);
    t_mkdir_world(dir);
    snprintf(path, sizeof path, "%s/fin.h5", dir);
    if (!strcmp(mode, "check")) {
        mode_check();
        return t_finish();
    }
    if (!strcmp(mode, "hang"))
        mode_hang();
    else if (!strcmp(mode, "nomem"))
        mode_nomem();
    else if (!strcmp(mode, "bracket-coend") || !strcmp(mode, "bracket-close"))
        mode_bracket(!strcmp(mode, "bracket-coend"));
    else if (!strcmp(mode, "closefail"))
        mode_closefail();
    else if (!strcmp(mode, "directfail"))
        mode_directfail();
    else {
        fprintf(stderr, "t_finalize: unknown mode %s\n", mode);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return verdict(mode);
}
