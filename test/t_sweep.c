/*
 * t_sweep.c -- reliability by sweep, SQLite's way: for N = 1, 2, ... until
 * a scenario runs to its end without reaching an Nth site, fail the Nth
 * allocation, system call or local MPI call (common/alloc.h) on one rank,
 * the first and then the last, and check every outcome:
 *
 *   - every rank returns within 60 s (a watchdog per iteration names the
 *     scenario, N and the rank, and dumps every thread's stack);
 *   - a collective step (open, create, close, delete, collective transfer)
 *     ends the same on every rank; an independent one (a transfer in a
 *     COBEGIN bracket, COEND) may fail alone;
 *   - every failure names the injected cause ("out of memory", strerror
 *     of the injected errno, MPI_Error_string(MPI_ERR_NO_MEM));
 *   - a step that succeeded did what it said: the bytes written read back,
 *     the bytes read are the file's (a known pattern), a deleted file is gone;
 *   - after a failure, a fresh file opens, writes and reads back in the
 *     same job;
 *   - after H5close() (which ends the parked IOC context and the pool:
 *     h5sf's only threads and blocks that outlive a file), no h5sf thread
 *     is left and h5sf's live block count is back at its baseline.
 *
 * Where HDF5 itself cannot keep the ranks together or drops the cause, the
 * sweep says so and counts it (hdf5_diverges, cause_lost_in_hdf5 below).
 * T_SWEEP_N=from[:to] runs only those N; H5SF_TEST_SITES_TRACE shows
 * where the failing site is.
 *
 * usage: t_sweep DIR SCENARIO CHANNEL [KINDS [RANKS [STRIDE]]]
 *   SCENARIO create (H5Fcreate, dataset, collective write, close) | read
 *            (open, collective read, close) | plain (the same on a file
 *            sec2 wrote) | delete (H5Fdelete of a subfiled file) |
 *            delete_plain (of a plain one) | cobracket (H5FDopen, COBEGIN,
 *            four H5FDwrite each, COEND, H5FDclose)
 *   CHANNEL  direct | ioc (ctest turns the same-node shortcuts off)
 *   KINDS    alloc,syscall,mpi (default all)
 *   RANKS    first,last (default both)
 *   STRIDE   try N = 1, 1+STRIDE, ... only (default 1: every site)
 * usage: t_sweep DIR finalize CHANNEL KIND RANK N
 *   one launch of the scenario "a file left open at MPI_Finalize": create
 *   and write a file, leave it open; the Nth site counted from the start
 *   of MPI_Finalize fails on rank RANK.  Prints "t_sweep finalize:
 *   reached=0|1" on RANK (t_sweep_finalize.sh runs the launches).
 * usage: t_sweep DIR finalize_verify CHANNEL
 *   reads back what the finalize launches left (the last one's file).
 */
#include <dirent.h>
#include <execinfo.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <mpi.h>
#include <hdf5.h>
#include "h5sf.h"
#include "../common/alloc.h"
#include "h5sf_test.h"

#define STRIPE  4096
#define PER     8192 /* bytes each rank writes: two stripes */
#define STEPMAX 16
#define WATCH_S 60 /* a bound for any iteration, on a loaded 2-core machine too */

static const char *kind_name[] = {"alloc", "syscall", "mpi"};

static struct {
    const char *dir, *scn, *chan;
    char        cfg[256];
    char        file[4200], plain[4200], fresh[4200];
    hid_t       fapl, dxpl;
    hsize_t     total;
    char        cause[H5SF_SITE_KINDS][MPI_MAX_ERROR_STRING];
    long        base_live;
    int         base_threads;
} P;

/* ---- what one run of a scenario did, step by step ---------------------- */

typedef struct rec {
    int         n;
    const char *name[STEPMAX];
    bool        coll[STEPMAX];
    int         failed[STEPMAX];
    int         err_step; /* first failed step, -1 */
    char        err[8192];
    int         bad_bytes; /* a read that succeeded returned wrong bytes */
} rec_t;

static void rec_init(rec_t *r)
{
    memset(r, 0, sizeof *r);
    r->err_step = -1;
}

static void err_into(char *dst, size_t n)
{
    static t_errtext_t t; /* 32 KiB: not on the stack */
    t_errors(&t);
    snprintf(dst, n, "%s", t.buf[0] ? t.buf : "(empty error stack)");
}

/* Record step `name`; on failure keep the error stack of the first one
 * (txt: already collected, else taken now).  Returns ok. */
static bool step(rec_t *r, const char *name, bool coll, bool ok, const char *txt)
{
    if (r->n >= STEPMAX)
        abort();
    r->name[r->n]   = name;
    r->coll[r->n]   = coll;
    r->failed[r->n] = !ok;
    if (!ok && r->err_step < 0) {
        r->err_step = r->n;
        if (txt)
            snprintf(r->err, sizeof r->err, "%s", txt);
        else
            err_into(r->err, sizeof r->err);
    }
    r->n++;
    return ok;
}

/* ---- where HDF5 itself cannot keep the ranks together ------------------ */

/* Sites the sweep lets pass: their failure makes the ranks take different
 * ways inside HDF5, before h5sf can agree on anything, and the next
 * collective hangs (docs/reliability.md, "What the sweep covers").  Found
 * by the failing site's stack. */
static const struct {
    const char *frame, *why;
} hdf5_diverges[] = {
    {"H5FD_locate_signature", "H5Fdelete first looks for the file's signature on every rank alone; a rank whose read "
                              "fails returns while the others go on to the collective delete"},
    {"(an IOC thread)", "during H5Fdelete the IOC threads serve only that signature read"},
};
static atomic_int  vetoed_why = -1;
static atomic_bool deleting; /* inside H5Fdelete */
static pthread_t   main_thread;

static bool veto(h5sf_site_kind_t kind)
{
    (void)kind;
    if (!atomic_load(&deleting))
        return true;
    if (!pthread_equal(pthread_self(), main_thread)) {
        atomic_store(&vetoed_why, 1);
        return false;
    }
    void  *pc[64];
    int    n   = backtrace(pc, 64);
    char **sym = backtrace_symbols(pc, n);
    for (int i = 0; sym && i < n; i++)
        if (strstr(sym[i], hdf5_diverges[0].frame)) {
            atomic_store(&vetoed_why, 0);
            free(sym);
            return false;
        }
    free(sym);
    return true;
}

/* H5Fdelete, marked for the veto. */
static herr_t delete_file(const char *path)
{
    atomic_store(&deleting, true);
    herr_t r = H5Fdelete(path, P.fapl);
    atomic_store(&deleting, false);
    return r;
}

/* Failures whose cause HDF5 drops on the way: its collective metadata
 * read (rank 0 reads and broadcasts zeros when the read fails, so the
 * others fail decoding them) and its rank-0 search for the superblock
 * signature (under H5E_BEGIN_TRY).  On the ranks named here a failure
 * need not name the cause. */
static bool cause_lost_in_hdf5(const char *err, bool fault_rank)
{
    return strstr(err, "file signature not found") || (!fault_rank && strstr(err, "H5C_protect"));
}

/* ---- HDF5 helpers ------------------------------------------------------ */

static void make_fapl(void)
{
    /* After H5close() HDF5 prints errors again: the test reads them. */
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    P.fapl = t_fapl(P.cfg);
    /* Metadata collectively too: without it a metadata write that fails on
     * some ranks only hangs HDF5's flush (docs/reliability.md, Known gaps). */
    H5Pset_all_coll_metadata_ops(P.fapl, true);
    H5Pset_coll_metadata_write(P.fapl, true);
    P.dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(P.dxpl, H5FD_MPIO_COLLECTIVE);
}

static void free_fapl(void)
{
    H5Pclose(P.dxpl);
    H5Pclose(P.fapl);
}

/* This rank's slice of dataset "d", written or read collectively; on
 * failure the error text goes to txt (before any other HDF5 call). */
static herr_t slice_io(hid_t d, bool wr, unsigned char *buf, char *txt, size_t n)
{
    static t_errtext_t t;
    hsize_t            off = (hsize_t)t_rank * PER, len = PER;
    herr_t             r = t_dset_io(d, wr, off, len, buf, P.dxpl, &t);
    if (r < 0)
        snprintf(txt, n, "%s", t.buf);
    return r;
}

/* Create `path` with dataset "d" holding pattern `seed` (rec: steps). */
static void create_file(rec_t *r, const char *path, unsigned seed)
{
    static char    txt[8192];
    unsigned char *buf = malloc(PER);
    t_fill(buf, PER, seed, (uint64_t)t_rank * PER);
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, P.fapl);
    if (step(r, "H5Fcreate", true, f >= 0, NULL)) {
        hid_t d = t_dset_create(f, "d", P.total);
        if (step(r, "H5Dcreate", true, d >= 0, NULL)) {
            herr_t w = slice_io(d, true, buf, txt, sizeof txt);
            step(r, "H5Dwrite", true, w >= 0, txt);
            step(r, "H5Dclose", true, H5Dclose(d) >= 0, NULL);
        }
        step(r, "H5Fclose", true, H5Fclose(f) >= 0, NULL);
    }
    free(buf);
}

/* Open `path`, read this rank's slice and compare it with `seed`. */
static void read_file(rec_t *r, const char *path, unsigned seed)
{
    static char    txt[8192];
    unsigned char *buf = calloc(1, PER);
    hid_t          f   = H5Fopen(path, H5F_ACC_RDONLY, P.fapl);
    if (step(r, "H5Fopen", true, f >= 0, NULL)) {
        hid_t d = H5Dopen2(f, "d", H5P_DEFAULT);
        if (step(r, "H5Dopen", true, d >= 0, NULL)) {
            herr_t g = slice_io(d, false, buf, txt, sizeof txt);
            if (step(r, "H5Dread", true, g >= 0, txt) && t_mismatch(buf, PER, seed, (uint64_t)t_rank * PER) != PER)
                r->bad_bytes = 1;
            step(r, "H5Dclose", true, H5Dclose(d) >= 0, NULL);
        }
        step(r, "H5Fclose", true, H5Fclose(f) >= 0, NULL);
    }
    free(buf);
}

/* A plain HDF5 file, written by sec2 on rank 0: dataset "d", pattern seed. */
static void write_plain(const char *path, unsigned seed)
{
    if (t_rank == 0) {
        hid_t          fapl = H5Pcreate(H5P_FILE_ACCESS);
        unsigned char *buf  = malloc(P.total);
        H5Pset_fapl_sec2(fapl);
        t_fill(buf, P.total, seed, 0);
        hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
        hid_t d = f >= 0 ? t_dset_create(f, "d", P.total) : -1;
        VRFY(d >= 0 && H5Dwrite(d, H5T_NATIVE_UCHAR, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0 && H5Dclose(d) >= 0 &&
                 H5Fclose(f) >= 0,
             "cannot write plain file %s with sec2", path);
        H5Pclose(fapl);
        free(buf);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Nothing of a subfiled file or a plain one at path is left. */
static bool gone(const char *path)
{
    char           dir[4200], *slash;
    const char    *base;
    DIR           *dp;
    struct dirent *de;
    bool           none = true;
    snprintf(dir, sizeof dir, "%s", path);
    slash  = strrchr(dir, '/');
    *slash = '\0';
    base   = slash + 1;
    if (!(dp = opendir(dir)))
        return false;
    while ((de = readdir(dp)))
        if (!strncmp(de->d_name, base, strlen(base)) &&
            (de->d_name[strlen(base)] == '\0' || de->d_name[strlen(base)] == '.'))
            none = false;
    closedir(dp);
    return none;
}

/* ---- the scenarios ----------------------------------------------------- */

/* The bracket's regions: four writes of STRIPE/2 bytes each per rank, in
 * a region of its own, so the four touch two or three subfiles. */
#define CO_PIECES 4
#define CO_LEN    (STRIPE / 2)
static haddr_t co_off(int rank, int k) { return (haddr_t)rank * CO_PIECES * CO_LEN * 3 + (haddr_t)k * CO_LEN * 3; }

static void run_cobracket(rec_t *r, unsigned seed)
{
    unsigned char buf[CO_PIECES][CO_LEN];
    H5FD_t       *fd = H5FDopen(P.file, H5F_ACC_RDWR | H5F_ACC_CREAT | H5F_ACC_TRUNC, P.fapl, (haddr_t)1 << 40);
    if (!step(r, "H5FDopen", true, fd != NULL, NULL))
        return;
    H5FDset_eoa(fd, H5FD_MEM_DRAW, co_off(t_size, 0));
    if (step(r, "COBEGIN", false, H5FDctl(fd, H5FD_H5SF_CTL_COBEGIN, 0, NULL, NULL) >= 0, NULL)) {
        for (int k = 0; k < CO_PIECES; k++) {
            t_fill(buf[k], CO_LEN, seed, co_off(t_rank, k));
            step(r, "H5FDwrite", false,
                 H5FDwrite(fd, H5FD_MEM_DRAW, H5P_DEFAULT, co_off(t_rank, k), CO_LEN, buf[k]) >= 0, NULL);
        }
        step(r, "COEND", false, H5FDctl(fd, H5FD_H5SF_CTL_COEND, 0, NULL, NULL) >= 0, NULL);
    }
    step(r, "H5FDclose", true, H5FDclose(fd) >= 0, NULL);
}

/* The bytes of a bracket whose steps all succeeded on this rank. */
static bool verify_cobracket(unsigned seed, bool mine)
{
    unsigned char buf[CO_LEN];
    bool          ok = true;
    H5FD_t       *fd = H5FDopen(P.file, H5F_ACC_RDONLY, P.fapl, (haddr_t)1 << 40);
    if (!fd)
        return false;
    H5FDset_eoa(fd, H5FD_MEM_DRAW, co_off(t_size, 0));
    for (int k = 0; mine && k < CO_PIECES; k++)
        ok = ok && H5FDread(fd, H5FD_MEM_DRAW, H5P_DEFAULT, co_off(t_rank, k), CO_LEN, buf) >= 0 &&
             t_mismatch(buf, CO_LEN, seed, co_off(t_rank, k)) == CO_LEN;
    return H5FDclose(fd) >= 0 && ok;
}

/* Run the scenario once (armed or not); seed: this iteration's pattern. */
static void run(rec_t *r, unsigned seed)
{
    if (!strcmp(P.scn, "create"))
        create_file(r, P.file, seed);
    else if (!strcmp(P.scn, "read"))
        read_file(r, P.file, 1);
    else if (!strcmp(P.scn, "plain"))
        read_file(r, P.plain, 2);
    else if (!strcmp(P.scn, "delete"))
        step(r, "H5Fdelete", true, delete_file(P.file) >= 0, NULL);
    else if (!strcmp(P.scn, "delete_plain"))
        step(r, "H5Fdelete", true, delete_file(P.plain) >= 0, NULL);
    else if (!strcmp(P.scn, "cobracket"))
        run_cobracket(r, seed);
}

/* Before each iteration, unarmed: what the scenario works on. */
static void prepare(void)
{
    rec_t r;
    rec_init(&r);
    if (!strcmp(P.scn, "delete"))
        create_file(&r, P.file, 3);
    else if (!strcmp(P.scn, "delete_plain"))
        write_plain(P.plain, 4);
    VRFY(r.err_step < 0, "cannot prepare %s: %s: %s", P.scn, r.name[r.err_step], r.err);
}

/* Once, unarmed: the files the read scenarios read. */
static void prepare_once(void)
{
    rec_t r;
    rec_init(&r);
    if (!strcmp(P.scn, "read"))
        create_file(&r, P.file, 1);
    else if (!strcmp(P.scn, "plain"))
        write_plain(P.plain, 2);
    VRFY(r.err_step < 0, "cannot prepare %s: %s: %s", P.scn, r.name[r.err_step], r.err);
}

/* Unarmed, after a run where every step succeeded everywhere: it did
 * what it said. */
static bool verify(const rec_t *r, unsigned seed, char *why, size_t n)
{
    rec_t v;
    rec_init(&v);
    if (!strcmp(P.scn, "create")) {
        read_file(&v, P.file, seed);
        if (v.err_step >= 0 || v.bad_bytes)
            return snprintf(why, n, "the file written reads back %s", v.bad_bytes ? "wrong bytes" : "with an error"),
                   false;
    }
    else if (!strcmp(P.scn, "read") || !strcmp(P.scn, "plain")) {
        if (r->bad_bytes)
            return snprintf(why, n, "H5Dread succeeded with wrong bytes"), false;
    }
    else if (!strcmp(P.scn, "delete") || !strcmp(P.scn, "delete_plain")) {
        if (!gone(!strcmp(P.scn, "delete") ? P.file : P.plain))
            return snprintf(why, n, "H5Fdelete succeeded but files are left"), false;
    }
    else if (!strcmp(P.scn, "cobracket")) {
        if (!verify_cobracket(seed, true))
            return snprintf(why, n, "the bracket's bytes do not read back"), false;
    }
    return true;
}

/* ---- checks between iterations ---------------------------------------- */

/* h5sf's threads (named h5sf-*, ioc/affinity.c) and all threads. */
static int count_threads(int *h5sf)
{
    DIR           *dp = opendir("/proc/self/task");
    struct dirent *de;
    int            n = 0;
    *h5sf            = 0;
    while (dp && (de = readdir(dp))) {
        char p[300], comm[64] = "";
        if (de->d_name[0] == '.')
            continue;
        n++;
        snprintf(p, sizeof p, "/proc/self/task/%s/comm", de->d_name);
        FILE *f = fopen(p, "r");
        if (f) {
            if (fgets(comm, sizeof comm, f) && !strncmp(comm, "h5sf", 4))
                (*h5sf)++;
            fclose(f);
        }
    }
    if (dp)
        closedir(dp);
    return n;
}

/* HDF5 closed: the parked IOC context and the pool are gone with it, so
 * nothing of h5sf may be left.  Threads end asynchronously after a join
 * only in /proc's view: give them a moment. */
static void check_quiet(const char *when)
{
    int h = 0, all = 0;
    for (int tries = 0; tries < 200; tries++) {
        all = count_threads(&h);
        if (h == 0 && all <= P.base_threads)
            break;
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
    }
    CHECK(h == 0, "%s: %d h5sf thread(s) left after H5close", when, h);
    CHECK(all <= P.base_threads, "%s: %d threads after H5close, %d before the sweep", when, all, P.base_threads);
    CHECK(h5sf_alloc_live() == P.base_live, "%s: %ld h5sf blocks live after H5close, %ld before", when,
          h5sf_alloc_live(), P.base_live);
    P.base_live = h5sf_alloc_live(); /* each leak reported once */
}

/* A fresh file opens, writes and reads back, unarmed. */
static void check_fresh(const char *when, unsigned seed)
{
    rec_t c, v;
    rec_init(&c);
    rec_init(&v);
    create_file(&c, P.fresh, seed);
    if (c.err_step < 0)
        read_file(&v, P.fresh, seed);
    CHECK(c.err_step < 0, "%s: a fresh file then fails at %s: %s", when, c.err_step >= 0 ? c.name[c.err_step] : "",
          c.err);
    CHECK(c.err_step >= 0 || (v.err_step < 0 && !v.bad_bytes), "%s: a fresh file then reads back %s", when,
          v.bad_bytes ? "wrong bytes" : v.err);
}

/* ---- one iteration ----------------------------------------------------- */

typedef struct tally {
    long runs, failed, succeeded, vetoed, lost, defects;
} tally_t;

/* Fail the nth site of kind on rank frank; check everything.  Returns
 * whether rank frank reached its nth site. */
static bool iteration(int kind, int frank, long n, tally_t *t)
{
    char     when[200];
    unsigned seed  = (unsigned)(n * 7 + kind * 1000 + frank * 100000);
    long     fails = t_fails;
    snprintf(when, sizeof when, "%s %s np%d %s rank %d N=%ld", P.scn, P.chan, t_size, kind_name[kind], frank, n);
    t_step(WATCH_S, "%s", when);

    make_fapl();
    prepare();
    MPI_Barrier(MPI_COMM_WORLD);
    rec_t r;
    rec_init(&r);
    h5sf_sites_arm(kind, t_rank == frank ? n : 0, EIO);
    run(&r, seed);
    bool fired = h5sf_sites_fired(kind), skipped = h5sf_sites_vetoed(kind);
    h5sf_sites_arm(kind, 0, 0);
    bool reached = t_count(t_rank == frank && (fired || skipped)) > 0;
    bool vetoed  = t_count(skipped) > 0;
    int  lost    = 0;

    /* Collective steps end alike everywhere: the same ones ran, and each
     * failed on every rank or on none (independent ones may differ). */
    int steps[STEPMAX + 1], lo[STEPMAX + 1], hi[STEPMAX + 1], ci[STEPMAX], nc = 0;
    for (int i = 0; i < r.n; i++)
        if (r.coll[i])
            ci[nc++] = i;
    steps[0] = nc;
    for (int k = 0; k < STEPMAX; k++)
        steps[1 + k] = k < nc ? r.failed[ci[k]] : -1;
    MPI_Allreduce(steps, lo, STEPMAX + 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(steps, hi, STEPMAX + 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    bool alike = lo[0] == hi[0];
    CHECK(alike, "%s: ranks ran different collective steps (%d here, %d to %d)", when, nc, lo[0], hi[0]);
    for (int k = 0; alike && k < nc; k++)
        if (lo[1 + k] != hi[1 + k]) {
            int i = ci[k];
            CHECK(0, "%s: collective step %s failed on some ranks only (here: %s%s)", when, r.name[i],
                  r.failed[i] ? "failed: " : "succeeded", r.failed[i] && r.err_step == i ? r.err : "");
            alike = false;
        }
    /* Every failure names the cause. */
    if (r.err_step >= 0) {
        CHECK(reached, "%s: %s failed without a fault: %s", when, r.name[r.err_step], r.err);
        /* ioc/merge.c says "no memory for a transfer buffer". */
        bool named = strstr(r.err, P.cause[kind]) || (kind == H5SF_SITE_ALLOC && strstr(r.err, "no memory"));
        lost       = !named && cause_lost_in_hdf5(r.err, t_rank == frank);
        CHECK(lost || named, "%s: %s failed without naming the cause \"%s\": %s", when, r.name[r.err_step],
              P.cause[kind], r.err);
    }
    lost           = t_count(lost);
    int any_failed = t_count(r.err_step >= 0);
    if (!any_failed) {
        char why[300];
        bool ok = verify(&r, seed, why, sizeof why);
        CHECK(ok, "%s: every step succeeded, but %s", when, why);
    }
    else if (!strcmp(P.scn, "cobracket") && alike && (nc == 0 || !hi[1]) && (nc < 2 || !hi[nc])) {
        /* The file was made and closed (its collective steps, the first
         * and the last, succeeded everywhere): whoever's bracket succeeded
         * has its bytes in it. */
        CHECK(verify_cobracket(seed, r.err_step < 0), "%s: a bracket that succeeded does not read back", when);
    }
    else if (r.bad_bytes)
        CHECK(0, "%s: H5Dread succeeded with wrong bytes", when);
    if (!alike) {
        /* The ranks went different ways: what comes next cannot be trusted
         * (a collective call some ranks skip hangs).  Stop here. */
        VRFY(0, "%s: stopping after a divergent outcome", when);
    }

    /* After a failure, a fresh file still works (a run that succeeded
     * showed that already). */
    if (any_failed)
        check_fresh(when, seed + 1);
    free_fapl();
    H5close();
    check_quiet(when);

    t->runs++;
    if (t_fails > fails)
        t->defects++;
    else if (vetoed)
        t->vetoed++;
    else if (lost)
        t->lost++;
    else if (any_failed)
        t->failed++;
    else
        t->succeeded++;
    return reached;
}

static void sweep(int kind, int frank, long stride)
{
    tally_t t  = {0};
    double  t0 = t_now_s();
    long    n = 1, last = 0, to = LONG_MAX;
    /* T_SWEEP_N=from[:to]: only those N (to look at one iteration). */
    const char *only = getenv("T_SWEEP_N");
    if (only) {
        n  = atol(only);
        to = strchr(only, ':') ? atol(strchr(only, ':') + 1) : n;
    }
    while (n <= to && iteration(kind, frank, n, &t)) {
        last = n;
        n += stride;
    }
    /* The sites the scenario has: the last one reached, or its count in a
     * run that reached none when every site was tried. */
    if (t_rank == 0)
        printf("t_sweep: %-12s %-6s np%d %-7s rank %d: %s%ld sites; %ld runs: %ld failed naming the cause, %ld "
               "succeeded, %ld failed with the cause lost in HDF5, %ld not failed (HDF5 diverges), %ld with defects; "
               "%.1f s\n",
               P.scn, P.chan, t_size, kind_name[kind], frank, stride > 1 ? ">= " : "", stride > 1 ? last : n - 1,
               t.runs, t.failed, t.succeeded, t.lost, t.vetoed, t.defects, t_now_s() - t0);
    int why = atomic_exchange(&vetoed_why, -1);
    if (t_rank == 0 && t.vetoed && why >= 0)
        printf("t_sweep:   not failed: sites under %s: %s\n", hdf5_diverges[why].frame, hdf5_diverges[why].why);
    fflush(stdout);
}

/* ---- a file left open at MPI_Finalize ---------------------------------- */

static struct {
    int  kind, rank;
    long n;
} FIN;

/* Runs first among MPI_COMM_SELF's delete callbacks (the last attribute
 * set is deleted first), before h5sf's finalize hook. */
static int arm_at_finalize(MPI_Comm c, int key, void *attr, void *extra)
{
    (void)c, (void)key, (void)attr, (void)extra;
    h5sf_sites_arm(FIN.kind, t_rank == FIN.rank ? FIN.n : 0, EIO);
    t_step(WATCH_S, "finalize %s np%d %s rank %d N=%ld: MPI_Finalize", P.chan, t_size, kind_name[FIN.kind], FIN.rank,
           FIN.n);
    return MPI_SUCCESS;
}

static int finalize_launch(int kind, int frank, long n)
{
    FIN.kind = kind;
    FIN.rank = frank;
    FIN.n    = n;
    t_step(WATCH_S, "finalize %s np%d %s rank %d N=%ld: before MPI_Finalize", P.chan, t_size, kind_name[kind], frank,
           n);
    make_fapl();
    unsigned char *buf = malloc(PER);
    t_fill(buf, PER, 9, (uint64_t)t_rank * PER);
    hid_t f = H5Fcreate(P.file, H5F_ACC_TRUNC, H5P_DEFAULT, P.fapl);
    hid_t d = f >= 0 ? t_dset_create(f, "d", P.total) : -1;
    VRFY(d >= 0 && t_dset_io(d, 1, (hsize_t)t_rank * PER, PER, buf, P.dxpl, NULL) >= 0,
         "finalize: cannot create and write %s", P.file);
    free(buf);
    free_fapl();
    /* The file and its dataset stay open. */
    t_mpich_calm();
    int key;
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, arm_at_finalize, &key, NULL);
    MPI_Comm_set_attr(MPI_COMM_SELF, key, NULL);
    MPI_Finalize();
    t_step_done();
    bool fired = h5sf_sites_fired(kind);
    h5sf_sites_arm(kind, 0, 0);
    int  h = 0, bad = 0;
    long live;
    for (int tries = 0; tries < 200 && (count_threads(&h), h); tries++) {
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
    }
    live = h5sf_alloc_live();
    if (t_rank == frank)
        printf("t_sweep finalize: reached=%d sites=%ld\n", fired, h5sf_sites_passed(kind));
    fflush(stdout);
    /* MPI is gone: every rank speaks for itself. */
    if (h) {
        fprintf(stderr, "[t_sweep rank %d] FAIL finalize N=%ld: %d h5sf thread(s) left after MPI_Finalize\n", t_rank, n,
                h);
        bad = 1;
    }
    if (live != P.base_live) {
        fprintf(stderr, "[t_sweep rank %d] FAIL finalize N=%ld: %ld h5sf blocks live after MPI_Finalize, %ld before\n",
                t_rank, n, live, P.base_live);
        bad = 1;
    }
    return bad;
}

/* After the finalize launches: the last one's file (no fault was reached)
 * reads back. */
static int finalize_verify(void)
{
    rec_t v;
    rec_init(&v);
    make_fapl();
    read_file(&v, P.file, 9);
    CHECK(v.err_step < 0 && !v.bad_bytes, "the file left open at MPI_Finalize reads back %s",
          v.bad_bytes ? "wrong bytes" : v.err);
    free_fapl();
    return t_finish();
}

/* ---- main -------------------------------------------------------------- */

static int kind_of(const char *s)
{
    for (int k = 0; k < H5SF_SITE_KINDS; k++)
        if (!strcmp(s, kind_name[k]))
            return k;
    fprintf(stderr, "t_sweep: unknown kind %s\n", s);
    exit(2);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv, "t_sweep");
    t_stack_frames = 40; /* h5sf's frames lie under HDF5's */
    VRFY(argc >= 4, "usage: t_sweep DIR SCENARIO CHANNEL [KINDS [RANKS [STRIDE]]]");
    P.dir  = argv[1];
    P.scn  = argv[2];
    P.chan = argv[3];
    t_mkdir_world(P.dir);
    snprintf(P.cfg, sizeof P.cfg, "stripe_size=%d,stripe_count=3,ioc=total:2,channel=%s,timeout=5", STRIPE, P.chan);
    snprintf(P.file, sizeof P.file, "%s/%s.h5", P.dir, P.scn);
    snprintf(P.plain, sizeof P.plain, "%s/%s_plain.h5", P.dir, P.scn);
    snprintf(P.fresh, sizeof P.fresh, "%s/%s_fresh.h5", P.dir, P.scn);
    P.total = (hsize_t)t_size * PER;
    snprintf(P.cause[H5SF_SITE_ALLOC], sizeof P.cause[0], "out of memory");
    snprintf(P.cause[H5SF_SITE_SYSCALL], sizeof P.cause[0], "%s", strerror(EIO));
    int len = 0;
    MPI_Error_string(MPI_ERR_NO_MEM, P.cause[H5SF_SITE_MPI], &len);
    VRFY(!getenv("H5SF_FAULT"), "H5SF_FAULT must not be set");

    if (!strcmp(P.scn, "finalize")) {
        VRFY(argc == 7, "usage: t_sweep DIR finalize CHANNEL KIND RANK N");
        P.base_live = h5sf_alloc_live();
        return finalize_launch(kind_of(argv[4]), atoi(argv[5]), atol(argv[6]));
    }
    if (!strcmp(P.scn, "finalize_verify")) {
        P.scn = "finalize";
        snprintf(P.file, sizeof P.file, "%s/finalize.h5", P.dir);
        return finalize_verify();
    }

    const char *kinds  = argc > 4 ? argv[4] : "alloc,syscall,mpi";
    const char *ranks  = argc > 5 ? argv[5] : "first,last";
    long        stride = argc > 6 ? atol(argv[6]) : 1;
    if (stride < 1)
        stride = 1;

    /* Baseline: h5sf used once and closed again, as after each iteration. */
    t_step(WATCH_S, "%s %s np%d: setup", P.scn, P.chan, t_size);
    make_fapl();
    prepare_once();
    check_fresh("setup", 5);
    free_fapl();
    H5close();
    P.base_live = h5sf_alloc_live();
    int h;
    P.base_threads = count_threads(&h);
    CHECK(h == 0, "setup: %d h5sf thread(s) left after H5close", h);

    main_thread = pthread_self();
    h5sf_sites_veto(veto);
    char buf[64];
    snprintf(buf, sizeof buf, "%s", kinds);
    for (char *save = NULL, *k = strtok_r(buf, ",", &save); k; k = strtok_r(NULL, ",", &save)) {
        int kind = kind_of(k);
        if (strstr(ranks, "first"))
            sweep(kind, 0, stride);
        if (strstr(ranks, "last") && t_size > 1)
            sweep(kind, t_size - 1, stride);
    }
    return t_finish();
}
