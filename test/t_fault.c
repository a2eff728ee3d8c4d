/*
 * t_fault.c -- injected disk and IOC faults (H5SF_FAULT, ioc/fault.c) at 4
 * ranks with 2 IOCs (ranks 0 and 2) through the IOC channel, and on the
 * direct channel (scenarios *_direct).
 *
 * Each scenario runs in three processes (ctest fixtures), because the fault
 * switch is read once per process:
 *   prepare   no fault: create <dir>/<scenario>.h5 with two datasets, "good"
 *             (the data acknowledged before the fault) and "victim" (the
 *             target of the faulty I/O), both filled with known patterns;
 *   run       H5SF_FAULT set (from the table below): do the scenario's I/O;
 *             a failing scenario must fail on EVERY rank, with an HDF5 error
 *             stack that names the subfile, the offset and the errno; a
 *             benign one (short transfers, EINTR, a stall) must succeed with
 *             correct data; a hung IOC must become an error naming the
 *             timeout.  The watchdog turns a hang of any step into a failure;
 *   verify    no fault: reopen; "good" must be intact, "victim" must hold the
 *             new data (benign faults) or, byte by byte, either the old or
 *             the new data (failed writes), never anything else.
 *
 * usage: t_fault prepare|run|verify SCENARIO DIR      (t_fault list)
 */
#include <mpi.h>
#include <hdf5.h>
#include "h5sf.h"
#include "h5sf_test.h"
#include <time.h>

#define REGION    (1024 * 1024) /* bytes per rank: 16 stripes, 4 pieces per subfile */
#define STRIPE    65536
#define SEED_GOOD 11u
#define SEED_OLD  22u /* victim before the run */
#define SEED_NEW  33u /* victim as the run writes it */
/* IOCs named outright: the scenarios inject faults at rank 2 (total:2 picks
 * ranks 0 and 3, as the built-in driver does). */
#define BASE_CFG "channel=ioc,ioc=ranks:0;2,stripe_size=65536,stripe_count=4"

enum action { A_WRITE, A_WRITE_COLL, A_READ, A_FLUSH, A_CREATE, A_OPEN, A_META_COLL };

typedef struct scenario {
    const char *name;
    const char *fault; /* H5SF_FAULT for the run phase */
    const char *cfg;   /* added to BASE_CFG */
    enum action act;
    int         err;    /* expected errno, 0: the call must succeed */
    int         offset; /* the error text must name an offset */
    int         bound;  /* >0: H5Fclose and MPI_Finalize must each return within this many seconds */
} scenario_t;

static const scenario_t scenarios[] = {
    {"pwrite_eio", "op=pwrite,errno=EIO,rank=2", "", A_WRITE, EIO, 1, 0},
    {"pwrite_enospc", "op=pwrite,errno=ENOSPC,rank=2", "", A_WRITE, ENOSPC, 1, 0},
    /* Only ranks 1 and 3 write to IOC 2; a collective write fails everywhere. */
    {"pwrite_eio_coll", "op=pwrite,errno=EIO,rank=2", "", A_WRITE_COLL, EIO, 1, 0},
    {"pwrite_short", "op=pwrite,errno=short,rank=2", "", A_WRITE, 0, 0, 0},
    {"pwrite_eintr", "op=pwrite,errno=EINTR,rank=2,count=200", "", A_WRITE, 0, 0, 0},
    {"pread_eio", "op=pread,errno=EIO,rank=2", "", A_READ, EIO, 1, 0},
    {"pread_short", "op=pread,errno=short,rank=2", "", A_READ, 0, 0, 0},
    {"pread_eintr", "op=pread,errno=EINTR,rank=2,count=200", "", A_READ, 0, 0, 0},
    {"open_create", "op=open,errno=EACCES,rank=2", "", A_CREATE, EACCES, 0, 0},
    {"open_reopen", "op=open,errno=EACCES,rank=2", "", A_OPEN, EACCES, 0, 0},
    /* Durability: H5Fflush must wait for the sync of every subfile on every
     * IOC; failing one sync at a time shows that each one is awaited. */
    {"fsync", "op=fsync,errno=EIO,rank=2", ",fsync=1", A_FLUSH, EIO, 0, 0},
    {"fsync_ioc0", "op=fsync,errno=EIO,rank=0", ",fsync=1", A_FLUSH, EIO, 0, 0},
    {"fsync_second", "op=fsync,errno=EIO,rank=2,after=1,count=1", ",fsync=1", A_FLUSH, EIO, 0, 0},
    /* Direct channel: rank 1 owns no subfile but wrote through descriptors
     * of its own, which it must sync too. */
    {"fsync_direct", "op=fsync,errno=EIO,rank=1", ",fsync=1,channel=direct", A_FLUSH, EIO, 0, 0},
    /* Direct channel: every rank's own transfers, run on the pool's
     * threads (vfd/threadpool.c), fail or stutter; rank would name the rank doing
     * the transfer.  The open writes nothing, so the first pwrite is the
     * H5Dwrite's (count=1: the metadata flush at close must not fail on
     * some ranks only, which HDF5's distributed flush does not survive). */
    {"pwrite_direct", "op=pwrite,errno=EIO,count=1", ",channel=direct", A_WRITE, EIO, 1, 0},
    {"pwrite_short_direct", "op=pwrite,errno=short", ",channel=direct", A_WRITE, 0, 0, 0},
    {"pread_short_direct", "op=pread,errno=short", ",channel=direct", A_READ, 0, 0, 0},
    {"pread_eintr_direct", "op=pread,errno=EINTR,count=200", ",channel=direct", A_READ, 0, 0, 0},
    /* Metadata written at close with collective metadata writes (HDF5
     * writes it as one collective vector; h5sf agrees on the outcome): every
     * write to IOC 0, which holds the superblock and root group, fails, and
     * H5Fclose must fail on every rank.  With HDF5's default distributed
     * metadata writes a failure on some ranks only hangs the flush inside
     * HDF5 (docs/reliability.md). */
    {"pwrite_meta_coll", "op=pwrite,errno=EIO,rank=0", "", A_META_COLL, EIO, 1, 0},
    {"stall", "op=stall,ms=300,rank=2", "", A_WRITE, 0, 0, 0},
    /* Every request to IOC 2 hangs; the first call that needs it (the open:
     * sizes of its subfiles) must give up after timeout=3. */
    {"hang", "op=hang,rank=2", ",timeout=3", A_OPEN, ETIMEDOUT, 0, 0},
    /* The open's two size queries to IOC 2 pass; the write's requests hang. */
    {"hang_write", "op=hang,rank=2,after=2", ",timeout=3", A_WRITE, ETIMEDOUT, 0, 0},
    /* A worker of IOC 2 blocks in pwrite for an hour, deaf to the stop, as
     * in a file system that stopped answering: the write fails after
     * timeout=2, and close and MPI_Finalize must still return soon, IOC 2
     * saying once on stderr that it left the worker behind. */
    {"stuck_write", "op=stuck,rank=2", ",timeout=2", A_WRITE, ETIMEDOUT, 0, 15},
};
#define NSCEN (sizeof scenarios / sizeof scenarios[0])

static const scenario_t *S;
static char              path[8192], dir[4096];

static hid_t fapl_of(void)
{
    char cfg[512];
    snprintf(cfg, sizeof cfg, "%s%s", BASE_CFG, S->cfg);
    return t_fapl(cfg);
}

static void prepare(void)
{
    t_step(60, "prepare %s", S->name);
    hid_t fapl = fapl_of();
    hid_t f    = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    if (f < 0) {
        fprintf(stderr, "[rank %d] prepare: H5Fcreate(%s) failed\n", t_rank, path);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    hsize_t        n    = (hsize_t)REGION * (hsize_t)t_size;
    hid_t          good = t_dset_create(f, "good", n), victim = t_dset_create(f, "victim", n);
    unsigned char *buf = malloc(REGION);
    uint64_t       off = (uint64_t)t_rank * REGION;
    t_fill(buf, REGION, SEED_GOOD, off);
    CHECK(t_dset_io(good, 1, off, REGION, buf, H5P_DEFAULT, NULL) >= 0, "write of good failed");
    t_fill(buf, REGION, SEED_OLD, off);
    CHECK(t_dset_io(victim, 1, off, REGION, buf, H5P_DEFAULT, NULL) >= 0, "write of victim failed");
    H5Dclose(good);
    H5Dclose(victim);
    CHECK(H5Fclose(f) >= 0, "H5Fclose failed");
    H5Pclose(fapl);
    free(buf);
}

/* Check the error text of a failed call against the scenario. */
static void check_text(const char *call, const t_errtext_t *t)
{
    char num[32];
    snprintf(num, sizeof num, "errno %d", S->err);
    if (S->err == ETIMEDOUT) {
        CHECK(strstr(t->buf, "timeout") != NULL, "%s: the error does not name the timeout:\n%s", call, t->buf);
        CHECK(strstr(t->buf, "IOC") != NULL, "%s: the error does not name the IOC:\n%s", call, t->buf);
        return;
    }
    CHECK(strstr(t->buf, ".subfile_") != NULL, "%s: the error does not name the subfile:\n%s", call, t->buf);
    CHECK(strstr(t->buf, num) != NULL || strstr(t->buf, strerror(S->err)) != NULL,
          "%s: the error does not name errno %d (%s):\n%s", call, S->err, strerror(S->err), t->buf);
    if (S->offset)
        CHECK(strstr(t->buf, "offset") != NULL, "%s: the error does not name the offset:\n%s", call, t->buf);
}

/* A call every rank makes: it must fail on all ranks (S->err) or on none. */
static void expect(const char *call, int failed, const t_errtext_t *t)
{
    int nfailed = t_count(failed);
    if (S->err) {
        CHECK(failed, "%s succeeded here, but %s must fail on every rank (%d of %d failed)", call, S->fault, nfailed,
              t_size);
        if (failed)
            check_text(call, t);
        if (failed && t_rank == 0)
            printf("t_fault %s: %s failed on %d of %d ranks; rank 0's error stack:\n%s", S->name, call, nfailed, t_size,
                   t->buf);
    }
    else
        CHECK(!failed, "%s failed under %s, which must be harmless:\n%s", call, S->fault, t->buf);
}

/* Stripe-aligned piece of the victim in logical stripe k with k % 4 == want
 * (dataset offsets), so rank r writes only to subfile r % 4. */
static void piece_in_subfile(hid_t d, int want, hsize_t *off, hsize_t *len)
{
    haddr_t  base = H5Dget_offset(d);
    uint64_t k    = (base + STRIPE - 1) / STRIPE;
    while (k % 4 != (uint64_t)want)
        k++;
    *off = k * STRIPE - base + 100;
    *len = 4000;
}

static void run(void)
{
    t_errtext_t    t;
    hid_t          fapl = fapl_of(), f = H5I_INVALID_HID, dxpl = H5P_DEFAULT;
    unsigned char *buf = malloc(REGION);
    uint64_t       off = (uint64_t)t_rank * REGION;
    int            failed;

    if (S->act == A_META_COLL) {
        H5Pset_all_coll_metadata_ops(fapl, true);
        H5Pset_coll_metadata_write(fapl, true);
    }
    setenv("H5SF_FAULT", S->fault, 1); /* read by the IOC on first use */
    if (t_rank == 0)
        printf("t_fault %s: H5SF_FAULT=\"%s\", config \"%s%s\"\n", S->name, S->fault, BASE_CFG, S->cfg);

    if (S->act == A_CREATE) {
        char p2[4200];
        snprintf(p2, sizeof p2, "%s/%s_new.h5", dir, S->name);
        t_step(60, "%s: H5Fcreate", S->name);
        f      = H5Fcreate(p2, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
        failed = f < 0;
        if (failed)
            t_errors(&t);
        expect("H5Fcreate", failed, &t);
        goto done;
    }

    /* Files of this scenario before the open, to prove a failed open changed
     * nothing. */
    t_snap_t *before = calloc(1, sizeof *before), *after = calloc(1, sizeof *after);
    char      prefix[512];
    snprintf(prefix, sizeof prefix, "%s.h5", S->name);
    if (t_rank == 0)
        t_snapshot(dir, prefix, before);
    MPI_Barrier(MPI_COMM_WORLD);

    t_step(60, "%s: H5Fopen", S->name);
    f      = H5Fopen(path, S->act == A_READ ? H5F_ACC_RDONLY : H5F_ACC_RDWR, fapl);
    failed = f < 0;
    if (failed)
        t_errors(&t);
    if (S->act == A_OPEN) {
        expect("H5Fopen", failed, &t);
        MPI_Barrier(MPI_COMM_WORLD);
        if (failed && t_rank == 0) {
            char why[600];
            t_snapshot(dir, prefix, after);
            CHECK(!t_snap_diff(before, after, 0, why, sizeof why), "the failed open modified the file: %s", why);
        }
        free(before);
        free(after);
        goto done;
    }
    free(before);
    free(after);
    CHECK(!failed, "H5Fopen failed before the fault could matter:\n%s", t.buf);
    if (t_count(failed))
        goto done;

    hid_t victim = H5Dopen2(f, S->act == A_READ ? "good" : "victim", H5P_DEFAULT);
    CHECK(victim >= 0, "H5Dopen2 failed");
    switch (S->act) {
        case A_WRITE:
        case A_WRITE_COLL: {
            hsize_t o = off, n = REGION;
            if (S->act == A_WRITE_COLL) {
                dxpl = H5Pcreate(H5P_DATASET_XFER);
                H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);
                piece_in_subfile(victim, t_rank % 4, &o, &n);
            }
            t_fill(buf, (size_t)n, SEED_NEW, o);
            t_step(60, "%s: H5Dwrite", S->name);
            failed = t_dset_io(victim, 1, o, n, buf, dxpl, &t) < 0;
            expect("H5Dwrite", failed, &t);
            if (!S->err && !failed) { /* benign: read it back at once */
                memset(buf, 0, REGION);
                t_step(60, "%s: H5Dread back", S->name);
                CHECK(t_dset_io(victim, 0, o, n, buf, H5P_DEFAULT, &t) >= 0, "read back failed:\n%s", t.buf);
                size_t bad = t_mismatch(buf, (size_t)n, SEED_NEW, o);
                CHECK(bad == n, "read back differs at dataset offset %llu", (unsigned long long)(o + bad));
            }
            break;
        }
        case A_READ: {
            t_step(60, "%s: H5Dread", S->name);
            failed = t_dset_io(victim, 0, off, REGION, buf, H5P_DEFAULT, &t) < 0;
            expect("H5Dread", failed, &t);
            if (!failed) {
                size_t bad = t_mismatch(buf, REGION, SEED_GOOD, off);
                CHECK(bad == REGION, "read returned wrong data at dataset offset %llu",
                      (unsigned long long)(off + bad));
            }
            break;
        }
        case A_FLUSH: {
            t_fill(buf, REGION, SEED_NEW, off);
            t_step(60, "%s: H5Dwrite before the flush", S->name);
            CHECK(t_dset_io(victim, 1, off, REGION, buf, H5P_DEFAULT, &t) >= 0, "write before the flush failed:\n%s",
                  t.buf);
            t_step(60, "%s: H5Fflush", S->name);
            failed = H5Fflush(f, H5F_SCOPE_GLOBAL) < 0;
            if (failed)
                t_errors(&t);
            expect("H5Fflush", failed, &t);
            break;
        }
        case A_META_COLL: {
            /* New objects: the close writes their metadata and the root
             * group's, collectively. */
            t_step(60, "%s: H5Gcreate2", S->name);
            for (int i = 0; i < 64; i++) {
                char name[32];
                snprintf(name, sizeof name, "g%02d", i);
                hid_t g = H5Gcreate2(f, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
                CHECK(g >= 0, "H5Gcreate2(%s) failed before the close", name);
                if (g >= 0)
                    H5Gclose(g);
            }
            H5Dclose(victim);
            victim = H5I_INVALID_HID;
            t_step(60, "%s: H5Fclose", S->name);
            failed = H5Fclose(f) < 0;
            f      = H5I_INVALID_HID;
            if (failed)
                t_errors(&t);
            expect("H5Fclose", failed, &t);
            goto done;
        }
        default: break;
    }
    /* Whatever happened, closing must end (an error is allowed after a
     * failure, never a hang). */
    t_step(60, "%s: H5Dclose/H5Fclose after the fault", S->name);
    double t0 = MPI_Wtime();
    if (victim >= 0)
        H5Dclose(victim);
    failed = H5Fclose(f) < 0;
    f      = H5I_INVALID_HID;
    if (S->bound) {
        double dt = MPI_Wtime() - t0;
        CHECK(dt <= S->bound, "H5Fclose took %.1f s, more than %d s", dt, S->bound);
        if (t_rank == 2)
            printf("t_fault %s: H5Fclose on the stuck IOC's rank took %.2f s\n", S->name, dt);
    }
    if (failed)
        t_errors(&t);
    int nclose = t_count(failed);
    if (!S->err)
        CHECK(!failed, "H5Fclose failed under a harmless fault:\n%s", t.buf);
    else if (t_rank == 0)
        printf("t_fault %s: H5Fclose after the fault failed on %d of %d ranks\n", S->name, nclose, t_size);
done:
    t_step(60, "%s: cleanup", S->name);
    if (f >= 0)
        H5Fclose(f);
    if (dxpl != H5P_DEFAULT)
        H5Pclose(dxpl);
    H5Pclose(fapl);
    free(buf);
}

/* ---- a bounded MPI_Finalize (scenarios with a bound) --------------------
 * This rank's stderr goes to a file from the start, so that after
 * MPI_Finalize the test can count the library's "left behind" line. */

#define LEFT_BEHIND "did not stop within the timeout"

static void capture_stderr(void)
{
    char p[4352];
    snprintf(p, sizeof p, "%s/%s.stderr.%d", dir, S->name, t_rank);
    t_stderr_capture(p); /* a hang must still be seen: the watchdog keeps the real stderr */
}

/* Restore stderr, copy the captured text to it, count the LEFT_BEHIND
 * lines. */
static int release_stderr(void)
{
    char *b = t_stderr_release();
    int   n = 0;
    fputs(b, stderr);
    for (const char *q = b; (q = strstr(q, LEFT_BEHIND)) != NULL; q += sizeof LEFT_BEHIND - 1)
        n++;
    free(b);
    return n;
}

/* The verdict of the checks so far is agreed first (MPI is needed for it);
 * then MPI_Finalize runs under the watchdog and the clock, and what follows
 * is this rank's alone: its exit status fails the job. */
static int bounded_finish(void)
{
    long mine = t_fails, all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    t_fails = all;
    t_step((unsigned)S->bound, "%s: MPI_Finalize", S->name);
    double t0 = t_now_s();
    MPI_Finalize();
    double dt = t_now_s() - t0;
    t_step_done();
    int said = release_stderr();
    CHECK(dt <= S->bound, "MPI_Finalize took %.1f s, more than %d s", dt, S->bound);
    /* IOC 2 holds the stuck worker; nobody else has one to leave. */
    CHECK(said == (t_rank == 2), "rank %d printed the \"" LEFT_BEHIND "\" line %d times, want %d", t_rank, said,
          t_rank == 2);
    printf("t_fault %s rank %d: %s (MPI_Finalize %.2f s)\n", S->name, t_rank, t_fails ? "FAILED" : "passed", dt);
    fflush(stdout);
    return t_fails ? 1 : 0;
}

static void verify(void)
{
    t_errtext_t t;
    if (S->act == A_CREATE)
        return; /* nothing was acknowledged */
    t_step(60, "verify %s: reopen without the fault", S->name);
    hid_t fapl = t_fapl(BASE_CFG);
    hid_t f    = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    if (f < 0)
        t_errors(&t);
    CHECK(f >= 0, "reopening %s without the fault failed:\n%s", path, t.buf);
    if (t_count(f < 0)) {
        H5Pclose(fapl);
        return;
    }
    unsigned char *buf = malloc(REGION);
    /* Every rank checks every region, so the check does not depend on which
     * ranks wrote what. */
    hid_t good = H5Dopen2(f, "good", H5P_DEFAULT), victim = H5Dopen2(f, "victim", H5P_DEFAULT);
    for (int r = 0; r < t_size; r++) {
        uint64_t off = (uint64_t)r * REGION;
        CHECK(t_dset_io(good, 0, off, REGION, buf, H5P_DEFAULT, &t) >= 0, "reading good failed:\n%s", t.buf);
        size_t bad = t_mismatch(buf, REGION, SEED_GOOD, off);
        CHECK(bad == REGION, "data acknowledged before the fault was lost: good[%llu] = %u, want %u",
              (unsigned long long)(off + bad), bad < REGION ? buf[bad] : 0,
              bad < REGION ? t_pat(SEED_GOOD, off + bad) : 0);
        CHECK(t_dset_io(victim, 0, off, REGION, buf, H5P_DEFAULT, &t) >= 0, "reading victim failed:\n%s", t.buf);
        for (size_t i = 0; i < REGION; i++) {
            unsigned char o = t_pat(SEED_OLD, off + i), n = t_pat(SEED_NEW, off + i);
            int           ok;
            if (S->err || S->act == A_READ || S->act == A_OPEN || S->act == A_WRITE_COLL)
                ok = buf[i] == o || buf[i] == n; /* old, or new if it got through */
            else
                ok = buf[i] == n; /* a harmless fault: the write must be complete */
            if (!ok) {
                CHECK(0, "victim[%llu] = %u, want %s%u (old %u, new %u)", (unsigned long long)(off + i), buf[i],
                      S->err ? "old or new: " : "new ", S->err ? o : n, o, n);
                break;
            }
        }
    }
    H5Dclose(good);
    H5Dclose(victim);
    CHECK(H5Fclose(f) >= 0, "closing the verified file failed");
    H5Pclose(fapl);
    free(buf);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv, "t_fault");
    if (argc == 2 && !strcmp(argv[1], "list")) {
        for (size_t i = 0; t_rank == 0 && i < NSCEN; i++)
            printf("%s\n", scenarios[i].name);
        MPI_Finalize();
        return 0;
    }
    for (size_t i = 0; argc == 4 && i < NSCEN; i++)
        if (!strcmp(argv[2], scenarios[i].name))
            S = &scenarios[i];
    if (!S || t_size != 4) {
        if (t_rank == 0)
            fprintf(stderr, "usage: mpiexec -n 4 t_fault prepare|run|verify SCENARIO DIR (t_fault list)\n");
        MPI_Finalize();
        return 2;
    }
    snprintf(dir, sizeof dir, "%s", argv[3]);
    snprintf(path, sizeof path, "%s/%s.h5", dir, S->name);
    t_mkdir_world(dir);
    if (!strcmp(argv[1], "prepare"))
        prepare();
    else if (!strcmp(argv[1], "run") && S->bound) {
        capture_stderr();
        run();
        return bounded_finish();
    }
    else if (!strcmp(argv[1], "run"))
        run();
    else if (!strcmp(argv[1], "verify"))
        verify();
    else {
        if (t_rank == 0)
            fprintf(stderr, "t_fault: unknown phase %s\n", argv[1]);
        MPI_Finalize();
        return 2;
    }
    return t_finish();
}
