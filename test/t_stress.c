/*
 * t_stress.c -- randomized I/O against a serial model, and many open files.
 *
 *   random  (default) Phases separated by barriers.  In each phase the
 *           dataset is cut into one random region per rank (regions move
 *           between ranks from phase to phase); every rank writes its region
 *           many times -- small and large, aligned and unaligned, single
 *           blocks and strided selections, its own writes overlapping each
 *           other -- and reads it back, then all ranks make one collective
 *           write.  Every rank replays all ranks' operations into a serial
 *           model (same seed), so after each barrier any rank can check any
 *           range, and after reopening the whole file must equal the model.
 *   many    64 files open at once, each written, read back while all are
 *           open, closed, reopened together and checked; then one file
 *           opened twice in one process (read-write, then read-only): data
 *           written through one id is read through the other.
 *
 * usage: mpiexec -n 8 t_stress DIR CONFIG [random|many] [SEED]
 */
#include <mpi.h>
#include <hdf5.h>
#include "h5sf.h"
#include "h5sf_test.h"

#define SIZE    (2 * 1024 * 1024) /* dataset bytes */
#define PHASES  10
#define PHASE_S 60 /* watchdog per phase, seconds */
#define OPS     50 /* independent writes per rank per phase */
#define NFILES  64


static char           dir[4096], cfg[512];
static unsigned char *model;
static long           nwrites, nreads;

/* One planned write: a single block or `count` blocks of `blk` bytes every
 * `stride` bytes; data is the pattern of `seed` at the file offsets. */
typedef struct op {
    uint64_t off, blk, stride, count;
    unsigned seed;
} op_t;

/* A random write inside [lo, hi): the size class decides the shape. */
static op_t plan_write(uint64_t lo, uint64_t hi, unsigned seed)
{
    op_t     o   = {lo, 0, 0, 1, seed};
    uint64_t len = hi - lo;
    switch (t_rnd_below(5)) {
        case 0: /* tiny, unaligned */ o.blk = 1 + t_rnd_below(len < 64 ? len : 64); break;
        case 1: /* medium, unaligned */ o.blk = 1 + t_rnd_below(len < 20000 ? len : 20000); break;
        case 2: /* aligned to 4 KiB, in whole pages */
            if (len >= 8192) {
                uint64_t first = (lo + 4095) / 4096 * 4096, pages = (hi - first) / 4096;
                o.off = first + 4096 * t_rnd_below(pages);
                o.blk = 4096 * (1 + t_rnd_below((hi - o.off) / 4096));
                return o;
            }
            o.blk = 1 + t_rnd_below(len);
            break;
        case 3: /* large: most of the region */
            o.blk = len / 2 + t_rnd_below(len - len / 2) + 1;
            if (o.blk > len)
                o.blk = len;
            break;
        default: { /* strided: up to 64 blocks of up to 300 bytes */
            uint64_t blk = 1 + t_rnd_below(len < 300 ? len : 300), stride = blk + t_rnd_below(700);
            uint64_t max  = (len - blk) / stride + 1;
            o.blk         = blk;
            o.stride      = stride;
            o.count       = 1 + t_rnd_below(max < 64 ? max : 64);
            uint64_t span = (o.count - 1) * stride + blk;
            o.off         = lo + t_rnd_below(len - span + 1);
            return o;
        }
    }
    o.off = lo + t_rnd_below(len - o.blk + 1);
    return o;
}

static void model_apply(const op_t *o)
{
    for (uint64_t k = 0; k < o->count; k++) {
        uint64_t at = o->off + k * o->stride;
        t_fill(model + at, (size_t)o->blk, o->seed, at);
    }
}

/* Run a planned write (or, with o == NULL, take part in a collective call
 * with an empty selection). */
static herr_t do_write(hid_t d, const op_t *o, hid_t dxpl, t_errtext_t *t)
{
    hid_t          fs  = H5Dget_space(d);
    hsize_t        n   = o ? o->blk * o->count : 1;
    hid_t          ms  = H5Screate_simple(1, &n, NULL);
    unsigned char *buf = malloc(n);
    if (!o) {
        H5Sselect_none(fs);
        H5Sselect_none(ms);
    }
    else {
        hsize_t start = o->off, count = o->count, stride = o->stride ? o->stride : 1, block = o->blk;
        H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, &stride, &count, &block);
        for (uint64_t k = 0; k < o->count; k++)
            t_fill(buf + k * o->blk, (size_t)o->blk, o->seed, o->off + k * o->stride);
    }
    herr_t r = H5Dwrite(d, H5T_NATIVE_UCHAR, ms, fs, dxpl, buf);
    if (r < 0)
        t_errors(t);
    free(buf);
    H5Sclose(ms);
    H5Sclose(fs);
    nwrites++;
    return r;
}

/* Read [off, off+len) and compare with the model. */
static void check_range(hid_t d, uint64_t off, uint64_t len, const char *when)
{
    t_errtext_t    t;
    unsigned char *buf = malloc(len ? len : 1);
    nreads++;
    if (t_dset_io(d, 0, off, len, buf, H5P_DEFAULT, &t) < 0)
        CHECK(0, "%s: read of [%llu, +%llu) failed:\n%s", when, (unsigned long long)off, (unsigned long long)len,
              t.buf);
    else
        for (uint64_t i = 0; i < len; i++)
            if (buf[i] != model[off + i]) {
                CHECK(0, "%s: byte %llu is %u, the serial model says %u", when, (unsigned long long)(off + i), buf[i],
                      model[off + i]);
                break;
            }
    free(buf);
}

static void test_random(unsigned seed)
{
    char        path[4200];
    t_errtext_t t;
    snprintf(path, sizeof path, "%s/stress.h5", dir);
    model = calloc(SIZE, 1);
    t_step(60, "random: create");
    hid_t fapl = t_fapl(cfg);
    hid_t f    = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    if (f < 0) {
        t_errors(&t);
        fprintf(stderr, "[rank %d] H5Fcreate(%s) failed:\n%s", t_rank, path, t.buf);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    hid_t d    = t_dset_create(f, "d", SIZE);
    hid_t coll = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(coll, H5FD_MPIO_COLLECTIVE);
    /* The model starts as what the first phase finds: zero everywhere. */
    {
        uint64_t       per = SIZE / (uint64_t)t_size, lo = per * (uint64_t)t_rank;
        uint64_t       hi = t_rank == t_size - 1 ? SIZE : lo + per;
        unsigned char *z  = calloc((size_t)(hi - lo) + 1, 1); /* the last rank's region is the largest */
        CHECK(t_dset_io(d, 1, lo, hi - lo, z, coll, &t) >= 0, "zeroing failed:\n%s", t.buf);
        free(z);
    }

    t_rnd_seed(0x9E3779B97F4A7C15ull ^ seed); /* same sequence on every rank */
    double slowest = 0, t_phase = 0;
    int    slowest_p = 0;
    for (int p = 0; p < PHASES; p++) {
        /* About 0.3 s each on 2 idle cores; up to 21 s measured while a
         * multi-host test ran alongside (8 ranks plus 4 more on 2 cores). */
        t_step(PHASE_S, "random: phase %d", p);
        MPI_Barrier(MPI_COMM_WORLD);
        t_phase = MPI_Wtime();
        /* Regions of at least one byte: (n-1) cuts, each at most SIZE/n
         * after the previous one, so the last region is the largest. */
        uint64_t cut[257];
        cut[0]      = 0;
        cut[t_size] = SIZE;
        for (int r = 1; r < t_size; r++)
            cut[r] = cut[r - 1] + 1 + t_rnd_below(SIZE / (uint64_t)t_size);
        /* Every rank plans every rank's writes (for the model) and runs its
         * own; reads of its own region in between check its own writes. */
        for (int r = 0; r < t_size; r++) {
            int      owner = (r + p) % t_size;
            uint64_t lo = cut[r], hi = cut[r + 1];
            for (int k = 0; k < OPS; k++) {
                op_t o = plan_write(lo, hi, (unsigned)(p * 100000 + r * 1000 + k + 1));
                model_apply(&o);
                int read_now = t_rnd_below(4) == 0;
                if (owner != t_rank)
                    continue;
                CHECK(do_write(d, &o, H5P_DEFAULT, &t) >= 0, "phase %d write %d failed:\n%s", p, k, t.buf);
                if (read_now)
                    check_range(d, lo, hi - lo, "read of own region within a phase");
            }
        }
        /* One collective write per phase: a random piece of each region. */
        op_t mine = {0};
        for (int r = 0; r < t_size; r++) {
            op_t o  = plan_write(cut[r], cut[r + 1], (unsigned)(p * 100000 + r * 1000 + 999));
            o.count = 1; /* collective: single blocks */
            if (o.off + o.blk > cut[r + 1])
                o.blk = cut[r + 1] - o.off;
            model_apply(&o);
            if ((r + p) % t_size == t_rank)
                mine = o;
        }
        CHECK(do_write(d, mine.blk ? &mine : NULL, coll, &t) >= 0, "phase %d collective write failed:\n%s", p, t.buf);
        MPI_Barrier(MPI_COMM_WORLD);
        /* After the barrier, anything anywhere. */
        for (int k = 0; k < 6; k++) {
            uint64_t len = 1 + t_rnd_below(65536), off = t_rnd_below(SIZE - len + 1);
            check_range(d, off, len, "read after a phase");
        }
        if (MPI_Wtime() - t_phase > slowest)
            slowest = MPI_Wtime() - t_phase, slowest_p = p;
    }
    /* How close the slowest phase came to its watchdog, for anyone judging
     * a hang report against the load of the run. */
    if (t_rank == 0)
        printf("t_stress random: slowest phase %d took %.2f s (watchdog %d s)\n", slowest_p, slowest, PHASE_S);
    H5Pclose(coll);
    /* Which path the writes took (IOC channel on one node): with
     * H5SF_SAMENODE_WRITES=dense the dense ones went straight to the subfiles,
     * the strided ones through the IOCs -- both paths, interleaved with
     * overlapping writes of the same rank, checked against the model. */
    h5sf_stats_t st = {0};
    uint64_t     mine[2], all[2] = {0, 0};
    CHECK(H5FD_h5sf_get_stats(f, &st) >= 0, "H5FD_h5sf_get_stats failed");
    mine[0] = st.samenode_writes;
    mine[1] = st.messages;
    MPI_Allreduce(mine, all, 2, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    const char *lw = t_env_renamed("H5SF_SAMENODE_WRITES", "H5SF_IOC_LOCAL_WRITES");
    if (lw && !strcmp(lw, "dense"))
        CHECK(all[0] > 0 && all[0] < all[1],
              "H5SF_SAMENODE_WRITES=dense: %llu of %llu subfile requests were local "
              "writes; expected some, not all",
              (unsigned long long)all[0], (unsigned long long)all[1]);
    if (lw && !strcmp(lw, "0"))
        CHECK(all[0] == 0, "H5SF_SAMENODE_WRITES=0, yet %llu writes skipped the IOC", (unsigned long long)all[0]);
    H5Dclose(d);
    t_step(60, "random: close");
    CHECK(H5Fclose(f) >= 0, "H5Fclose failed");

    /* The final file must equal the serial model, byte for byte. */
    t_step(60, "random: reopen and compare with the model");
    f = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    if (f < 0)
        t_errors(&t);
    CHECK(f >= 0, "reopen failed:\n%s", t.buf);
    if (f >= 0) {
        d = H5Dopen2(f, "d", H5P_DEFAULT);
        check_range(d, 0, SIZE, "final file vs serial model");
        H5Dclose(d);
        H5Fclose(f);
    }
    H5Pclose(fapl);
    free(model);
    long w = 0, r = 0;
    MPI_Reduce(&nwrites, &w, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&nreads, &r, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (t_rank == 0)
        printf("t_stress: %s, seed %u: %ld writes and %ld reads by %d ranks; %llu of %llu subfile requests "
               "were local writes\n",
               cfg, seed, w, r, t_size, (unsigned long long)all[0], (unsigned long long)all[1]);
}

/* Subfile descriptors this process holds (the config file aside). */
static int count_subfile_fds(void)
{
    int            n  = 0;
    DIR           *dp = opendir("/proc/self/fd");
    struct dirent *de;
    char           link[300], target[4200];
    while (dp && (de = readdir(dp))) {
        if (de->d_name[0] == '.')
            continue;
        snprintf(link, sizeof link, "/proc/self/fd/%s", de->d_name);
        ssize_t k = readlink(link, target, sizeof target - 1);
        if (k <= 0)
            continue;
        target[k] = '\0';
        n += strstr(target, ".subfile_") && !strstr(target, ".config");
    }
    if (dp)
        closedir(dp);
    return n;
}

#define MANY_BYTES (64 * 1024)

static void test_many(void)
{
    hid_t          fapl = t_fapl(cfg), f[NFILES], d[NFILES];
    char           path[4200];
    t_errtext_t    t;
    uint64_t       per = MANY_BYTES / (uint64_t)t_size, off = per * (uint64_t)t_rank;
    unsigned char *buf  = malloc(MANY_BYTES);
    int            fds0 = t_count_fds();

    t_step(120, "many: create %d files", NFILES);
    for (int i = 0; i < NFILES; i++) {
        snprintf(path, sizeof path, "%s/many%02d.h5", dir, i);
        f[i] = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
        if (f[i] < 0) {
            t_errors(&t);
            CHECK(0, "creating file %d of %d failed:\n%s", i + 1, NFILES, t.buf);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        d[i] = t_dset_create(f[i], "d", MANY_BYTES);
        t_fill(buf, (size_t)per, (unsigned)i + 1, off);
        CHECK(t_dset_io(d[i], 1, off, per, buf, H5P_DEFAULT, &t) >= 0, "write to file %d failed:\n%s", i, t.buf);
    }
    int fds1 = t_count_fds();
    MPI_Barrier(MPI_COMM_WORLD);
    /* With H5SF_IOC_MAX_FDS set, an IOC keeps at most that many subfiles
     * open however many files are open, and so does a rank's node-local
     * I/O (vfd/samenode.c): at most twice that on a rank that is both.  The
     * reads below then reopen them. */
    const char *cap = getenv("H5SF_IOC_MAX_FDS");
    if (cap && *cap) {
        int sub = count_subfile_fds();
        CHECK(sub <= 2 * atoi(cap), "%d subfile descriptors open with %d files, H5SF_IOC_MAX_FDS=%s", sub, NFILES, cap);
        if (t_rank == 0)
            printf("t_stress many: %d subfile descriptors on rank 0 with %d files open (cap %s)\n", sub, NFILES, cap);
    }
    t_step(120, "many: read back with all files open");
    for (int i = 0; i < NFILES; i++) {
        CHECK(t_dset_io(d[i], 0, 0, MANY_BYTES, buf, H5P_DEFAULT, &t) >= 0, "read of file %d failed:\n%s", i, t.buf);
        size_t bad = t_mismatch(buf, MANY_BYTES, (unsigned)i + 1, 0);
        CHECK(bad == MANY_BYTES, "file %d (all open): byte %zu is wrong", i, bad);
    }
    t_step(120, "many: close all");
    for (int i = 0; i < NFILES; i++) {
        H5Dclose(d[i]);
        CHECK(H5Fclose(f[i]) >= 0, "closing file %d failed", i);
    }
    t_step(120, "many: reopen all, check");
    for (int i = 0; i < NFILES; i++) {
        snprintf(path, sizeof path, "%s/many%02d.h5", dir, i);
        f[i] = H5Fopen(path, H5F_ACC_RDONLY, fapl);
        CHECK(f[i] >= 0, "reopening file %d failed", i);
    }
    for (int i = 0; i < NFILES; i++) {
        if (f[i] < 0)
            continue;
        hid_t dd = H5Dopen2(f[i], "d", H5P_DEFAULT);
        CHECK(t_dset_io(dd, 0, 0, MANY_BYTES, buf, H5P_DEFAULT, &t) >= 0, "read of file %d failed:\n%s", i, t.buf);
        size_t bad = t_mismatch(buf, MANY_BYTES, (unsigned)i + 1, 0);
        CHECK(bad == MANY_BYTES, "file %d (reopened): byte %zu is wrong", i, bad);
        H5Dclose(dd);
    }
    for (int i = 0; i < NFILES; i++)
        if (f[i] >= 0)
            H5Fclose(f[i]);
    int fds2 = t_count_fds();
    CHECK(fds2 == fds0, "descriptors: %d before, %d after closing all %d files", fds0, fds2, NFILES);
    if (t_rank == 0)
        printf("t_stress many: %d files open at once: %d descriptors on rank 0 (%d before)\n", NFILES, fds1, fds0);

    /* The same file twice in one process. */
    t_step(60, "twice: open the same file twice");
    snprintf(path, sizeof path, "%s/twice.h5", dir);
    hid_t a  = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    hid_t da = t_dset_create(a, "d", MANY_BYTES);
    H5Dclose(da);
    H5Fclose(a);
    a       = H5Fopen(path, H5F_ACC_RDWR, fapl);
    hid_t b = H5Fopen(path, H5F_ACC_RDWR, fapl);
    if (b < 0)
        t_errors(&t);
    CHECK(a >= 0 && b >= 0, "opening %s twice failed:\n%s", path, b < 0 ? t.buf : "");
    hid_t c = H5Fopen(path, H5F_ACC_RDONLY, fapl); /* a third time, read-only */
    if (c < 0)
        t_errors(&t);
    CHECK(c >= 0, "opening %s a third time (read-only) failed:\n%s", path, c < 0 ? t.buf : "");
    if (a >= 0 && b >= 0) {
        da       = H5Dopen2(a, "d", H5P_DEFAULT);
        hid_t db = H5Dopen2(b, "d", H5P_DEFAULT);
        t_fill(buf, (size_t)per, 77, off);
        CHECK(t_dset_io(da, 1, off, per, buf, H5P_DEFAULT, &t) >= 0, "write through the first id failed:\n%s", t.buf);
        MPI_Barrier(MPI_COMM_WORLD);
        CHECK(t_dset_io(db, 0, 0, MANY_BYTES, buf, H5P_DEFAULT, &t) >= 0, "read through the second id failed:\n%s",
              t.buf);
        CHECK(t_mismatch(buf, MANY_BYTES, 77, 0) == MANY_BYTES, "the second id does not see the first id's data");
        if (c >= 0) {
            hid_t dc = H5Dopen2(c, "d", H5P_DEFAULT);
            CHECK(t_dset_io(dc, 0, 0, MANY_BYTES, buf, H5P_DEFAULT, &t) >= 0, "read through the third id failed");
            size_t bad = t_mismatch(buf, MANY_BYTES, 77, 0);
            CHECK(bad == MANY_BYTES,
                  "the read-only id does not see the data written through the first: byte %zu "
                  "is %u, want %u",
                  bad, bad < MANY_BYTES ? buf[bad] : 0, bad < MANY_BYTES ? t_pat(77, bad) : 0);
            H5Dclose(dc);
        }
        H5Dclose(da);
        CHECK(H5Fclose(a) >= 0, "closing the first id failed");
        /* The second id still works after the first is closed (once every
         * rank has finished reading the old data). */
        MPI_Barrier(MPI_COMM_WORLD);
        t_fill(buf, (size_t)per, 78, off);
        CHECK(t_dset_io(db, 1, off, per, buf, H5P_DEFAULT, &t) >= 0, "write through the second id failed:\n%s", t.buf);
        H5Dclose(db);
        CHECK(H5Fclose(b) >= 0, "closing the second id failed");
    }
    if (c >= 0)
        CHECK(H5Fclose(c) >= 0, "closing the third id failed");
    t_step(60, "twice: reopen and check");
    a = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    CHECK(a >= 0, "reopening %s failed", path);
    if (a >= 0) {
        da = H5Dopen2(a, "d", H5P_DEFAULT);
        CHECK(t_dset_io(da, 0, 0, MANY_BYTES, buf, H5P_DEFAULT, &t) >= 0, "final read failed:\n%s", t.buf);
        CHECK(t_mismatch(buf, MANY_BYTES, 78, 0) == MANY_BYTES, "the second id's last write was lost");
        H5Dclose(da);
        H5Fclose(a);
    }
    H5Pclose(fapl);
    free(buf);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv, "t_stress");
    if (argc < 3) {
        if (t_rank == 0)
            fprintf(stderr, "usage: mpiexec -n 8 t_stress DIR CONFIG [random|many] [SEED]\n");
        MPI_Finalize();
        return 2;
    }
    snprintf(dir, sizeof dir, "%s", argv[1]);
    snprintf(cfg, sizeof cfg, "%s", argv[2]);
    t_mkdir_world(dir);
    if (argc > 3 && !strcmp(argv[3], "many"))
        test_many();
    else
        test_random(argc > 4 ? (unsigned)strtoul(argv[4], NULL, 0) : 12345u);
    return t_finish();
}
