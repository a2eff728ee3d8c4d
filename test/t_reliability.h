/*
 * t_reliability.h -- helpers shared by the reliability tests (t_fault,
 * t_badinput, t_damaged, t_stress): checks that count instead of abort, a
 * watchdog that turns a hang into a named failure, the HDF5 error stack as
 * text, data patterns, and snapshots of the files on disk.
 *
 * Header-only (static functions) so each test stays one executable.
 */
#ifndef T_RELIABILITY_H
#define T_RELIABILITY_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <hdf5.h>
#include <mpi.h>
#include "h5sf.h"

/* Not every test uses every helper. */
#define RL_FN static inline __attribute__((unused))

static int         rl_rank, rl_size;
static long        rl_fail;
static const char *rl_prog = "test";
static char        rl_step_name[256];
static int         rl_alarm_fd = 2; /* where the watchdog speaks (a test may redirect stderr) */

/* A file operation of the test itself failed: no verdict is possible. */
static inline void rl_die_io(const char *what, const char *p)
{
    fprintf(stderr, "%s: cannot %s %s: %s\n", rl_prog, what, p, strerror(errno));
    MPI_Abort(MPI_COMM_WORLD, 2);
}

/* Whole small file (under 1 MiB), NUL-terminated; *n its length. */
static inline char *rl_slurp(const char *p, size_t *n)
{
    FILE *f = fopen(p, "rb");
    if (!f)
        rl_die_io("open", p);
    char *b = malloc(1 << 20);
    *n      = fread(b, 1, (1 << 20) - 1, f);
    b[*n]   = '\0';
    fclose(f);
    return b;
}

static inline void rl_spit(const char *p, const void *b, size_t n)
{
    FILE *f = fopen(p, "wb");
    if (!f || fwrite(b, 1, n, f) != n || fclose(f) != 0)
        rl_die_io("write", p);
}

#define CHECK(cond, ...)                                                                                               \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            rl_fail++;                                                                                                 \
            fprintf(stderr, "[%s rank %d] FAIL (%s) line %d: ", rl_prog, rl_rank, rl_step_name, __LINE__);             \
            fprintf(stderr, __VA_ARGS__);                                                                              \
            fputc('\n', stderr);                                                                                       \
            fflush(stderr);                                                                                            \
        }                                                                                                              \
    } while (0)

/* ---- watchdog: a hang becomes a failure that names the step ------------ */

static char rl_stack_cmd[512]; /* the gdb pipeline, made before any alarm */
static int  rl_in_alarm;

/* Where every thread of this process is, from gdb if there is one: a hang
 * seen once in a loaded CI run is then a stack, not a guess.  fork, exec
 * and waitpid are async-signal-safe; a gdb that itself hangs ends with the
 * second alarm. */
RL_FN void rl_dump_stacks(void)
{
    if (!rl_stack_cmd[0] || getenv("RL_NO_STACKS"))
        return;
    prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0); /* Yama: let gdb attach */
    pid_t c = fork();
    if (c == 0) {
        dup2(rl_alarm_fd, 1);
        dup2(rl_alarm_fd, 2);
        execl("/bin/sh", "sh", "-c", rl_stack_cmd, (char *)NULL);
        _exit(127);
    }
    if (c > 0) {
        alarm(60);
        waitpid(c, NULL, 0);
        /* The first rank to exit ends the job: give the others' gdb time. */
        struct timespec ts = {15, 0};
        nanosleep(&ts, NULL);
    }
}

RL_FN void rl_on_alarm(int sig)
{
    (void)sig;
    if (rl_in_alarm++)
        _exit(3);
    char msg[400];
    int  n = snprintf(msg, sizeof msg, "[%s rank %d] FAIL: step \"%s\" hung (watchdog expired)\n", rl_prog, rl_rank,
                      rl_step_name);
    if (n > 0 && write(rl_alarm_fd, msg, (size_t)n) < 0)
        _exit(3);
    rl_dump_stacks();
    _exit(3); /* mpiexec then stops the other ranks */
}

/* Start a step: name it (for messages) and arm the watchdog. */
RL_FN void rl_step(unsigned seconds, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
RL_FN void rl_step(unsigned seconds, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rl_step_name, sizeof rl_step_name, fmt, ap);
    va_end(ap);
    if (!rl_stack_cmd[0])
        /* Frames only, without MPI's and PMIx's own event threads. */
        snprintf(rl_stack_cmd, sizeof rl_stack_cmd,
                 "command -v gdb >/dev/null && gdb -nx -batch -p %ld -ex 'thread apply all bt 16' 2>/dev/null | "
                 "grep -E '^(Thread|#[0-9]+ )' | grep -v -E 'libevent|libpmix|clone3|start_thread' | "
                 "sed 's/^/[%s rank %d] /' | cut -c1-200",
                 (long)getpid(), rl_prog, rl_rank);
    signal(SIGALRM, rl_on_alarm);
    alarm(seconds);
}

RL_FN void rl_init(int *argc, char ***argv, const char *prog)
{
    int provided = 0;
    rl_prog      = prog;
    MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rl_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &rl_size);
    if (provided != MPI_THREAD_MULTIPLE && rl_rank == 0)
        fprintf(stderr, "%s: MPI_THREAD_MULTIPLE not provided (%d); channel=ioc tests will fail\n", prog, provided);
    /* The tests look at the error stack themselves; keep stderr readable. */
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

/* Number of ranks for which v is true. */
RL_FN int rl_count(int v)
{
    int mine = v != 0, sum = 0;
    MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    return sum;
}

/* Agree on the verdict, print it on rank 0, return the exit status. */
RL_FN int rl_finish(void)
{
    long all = 0;
    alarm(0);
    MPI_Allreduce(&rl_fail, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rl_rank == 0)
        printf("%s: %s (%ld failed checks)\n", rl_prog, all ? "FAIL" : "ok", all);
    fflush(stdout);
    MPI_Finalize();
    return all ? 1 : 0;
}

/* ---- the HDF5 error stack as text ------------------------------------- */

typedef struct rl_errtext {
    char   buf[16384];
    size_t len;
} rl_errtext_t;

RL_FN herr_t rl_walk_cb(unsigned n, const H5E_error2_t *err, void *data)
{
    rl_errtext_t *t = data;
    (void)n;
    /* No HDF5 API calls in here: they would clear the stack being walked. */
    if (t->len < sizeof t->buf) {
        int w = snprintf(t->buf + t->len, sizeof t->buf - t->len, "  %s(): %s\n", err->func_name ? err->func_name : "?",
                         err->desc ? err->desc : "");
        if (w > 0)
            t->len = t->len + (size_t)w >= sizeof t->buf ? sizeof t->buf - 1 : t->len + (size_t)w;
    }
    return 0;
}

/* Collect the current error stack (call right after the failing API call:
 * the next API call clears it). */
RL_FN void rl_errors(rl_errtext_t *t)
{
    t->len    = 0;
    t->buf[0] = '\0';
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, rl_walk_cb, t);
    if (t->len == 0)
        snprintf(t->buf, sizeof t->buf, "(empty error stack)");
}

/* ---- fapl, datasets, patterns ------------------------------------------ */

RL_FN hid_t rl_fapl(const char *cfg)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_mpi_params(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    /* Registered from the linked library, not loaded as a plugin: HDF5 2.x
     * empties the error stack of a failed H5Fopen when a plugin directory
     * is searched (t_reliability.cmake), and these tests read that stack. */
    if (H5FD_h5sf_init() < 0 || H5Pset_driver_by_name(fapl, "h5sf", cfg) < 0) {
        fprintf(stderr, "[%s rank %d] cannot select h5sf with \"%s\" (plugin not found?)\n", rl_prog, rl_rank, cfg);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return fapl;
}

/* Byte at logical position off of a pattern: no short period, so a stripe
 * landing in the wrong place cannot go unnoticed. */
RL_FN unsigned char rl_pat(uint64_t off, unsigned seed)
{
    uint64_t x = (off + 1) * 0x9E3779B97F4A7C15ull + (uint64_t)seed * 0xBF58476D1CE4E5B9ull;
    x ^= x >> 31;
    x *= 0x94D049BB133111EBull;
    x ^= x >> 29;
    return (unsigned char)x;
}

RL_FN void rl_fill(unsigned char *buf, uint64_t off, size_t len, unsigned seed)
{
    for (size_t i = 0; i < len; i++)
        buf[i] = rl_pat(off + i, seed);
}

/* First index where buf differs from the pattern, or len. */
RL_FN size_t rl_mismatch(const unsigned char *buf, uint64_t off, size_t len, unsigned seed)
{
    for (size_t i = 0; i < len; i++)
        if (buf[i] != rl_pat(off + i, seed))
            return i;
    return len;
}

/* A 1-D byte dataset with its space allocated at creation and no fill, so
 * raw-data writes later change no metadata. */
RL_FN hid_t rl_dset_create(hid_t f, const char *name, hsize_t n)
{
    hid_t sp = H5Screate_simple(1, &n, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY);
    H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER);
    hid_t d = H5Dcreate2(f, name, H5T_NATIVE_UCHAR, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Pclose(dcpl);
    H5Sclose(sp);
    return d;
}

/* Write or read [off, off+len) of a 1-D byte dataset; dxpl may be collective.
 * On failure the error stack goes to *err (if given) before the dataspaces
 * are closed, since any API call clears it. */
RL_FN herr_t rl_io(hid_t d, int write, hsize_t off, hsize_t len, void *buf, hid_t dxpl, rl_errtext_t *err)
{
    hsize_t one = len ? len : 1;
    hid_t   fs = H5Dget_space(d), ms = H5Screate_simple(1, &one, NULL);
    if (len == 0) {
        H5Sselect_none(fs);
        H5Sselect_none(ms);
    }
    else
        H5Sselect_hyperslab(fs, H5S_SELECT_SET, &off, NULL, &len, NULL);
    herr_t r =
        write ? H5Dwrite(d, H5T_NATIVE_UCHAR, ms, fs, dxpl, buf) : H5Dread(d, H5T_NATIVE_UCHAR, ms, fs, dxpl, buf);
    if (r < 0 && err)
        rl_errors(err);
    H5Sclose(ms);
    H5Sclose(fs);
    return r;
}

/* ---- files on disk: snapshots ------------------------------------------ */

typedef struct rl_fileinfo {
    char     name[512];
    int64_t  size;
    int64_t  mtime_ns, ctime_ns;
    uint64_t sum; /* FNV-1a of the contents */
    int      mode;
} rl_fileinfo_t;

typedef struct rl_snap {
    rl_fileinfo_t f[256];
    int           n;
} rl_snap_t;

RL_FN uint64_t rl_checksum(const char *path)
{
    uint64_t      h = 1469598103934665603ull;
    unsigned char buf[65536];
    int           fd = open(path, O_RDONLY);
    ssize_t       k;
    if (fd < 0)
        return 0;
    while ((k = read(fd, buf, sizeof buf)) > 0)
        for (ssize_t i = 0; i < k; i++)
            h = (h ^ buf[i]) * 1099511628211ull;
    close(fd);
    return h;
}

RL_FN int rl_cmp_name(const void *a, const void *b)
{
    return strcmp(((const rl_fileinfo_t *)a)->name, ((const rl_fileinfo_t *)b)->name);
}

/* Every file in dir whose name starts with prefix (sorted by name). */
RL_FN void rl_snapshot(const char *dir, const char *prefix, rl_snap_t *s)
{
    DIR           *dp = opendir(dir);
    struct dirent *de;
    s->n = 0;
    if (!dp)
        return;
    while ((de = readdir(dp)) && s->n < (int)(sizeof s->f / sizeof s->f[0])) {
        if (strncmp(de->d_name, prefix, strlen(prefix)) != 0)
            continue;
        rl_fileinfo_t *fi = &s->f[s->n];
        char           path[4096 + 512];
        struct stat    st;
        snprintf(fi->name, sizeof fi->name, "%s", de->d_name);
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        if (stat(path, &st) < 0)
            continue;
        fi->size     = (int64_t)st.st_size;
        fi->mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
        fi->ctime_ns = (int64_t)st.st_ctim.tv_sec * 1000000000 + st.st_ctim.tv_nsec;
        fi->mode     = (int)st.st_mode;
        fi->sum      = rl_checksum(path);
        s->n++;
    }
    closedir(dp);
    qsort(s->f, (size_t)s->n, sizeof s->f[0], rl_cmp_name);
}

/* Describe the first difference into why; 0 if the snapshots are equal.
 * with_times: also compare mtime and ctime (a read-only open touches
 * nothing at all). */
RL_FN int rl_snap_diff(const rl_snap_t *a, const rl_snap_t *b, int with_times, char *why, size_t n)
{
    if (a->n != b->n) {
        snprintf(why, n, "%d files before, %d after", a->n, b->n);
        return 1;
    }
    for (int i = 0; i < a->n; i++) {
        const rl_fileinfo_t *x = &a->f[i], *y = &b->f[i];
        if (strcmp(x->name, y->name)) {
            snprintf(why, n, "file %s became %s", x->name, y->name);
            return 1;
        }
        if (x->size != y->size || x->sum != y->sum) {
            snprintf(why, n, "%s changed: size %lld -> %lld, checksum %016llx -> %016llx", x->name, (long long)x->size,
                     (long long)y->size, (unsigned long long)x->sum, (unsigned long long)y->sum);
            return 1;
        }
        if (x->mode != y->mode) {
            snprintf(why, n, "%s changed mode %o -> %o", x->name, x->mode, y->mode);
            return 1;
        }
        if (with_times && (x->mtime_ns != y->mtime_ns || x->ctime_ns != y->ctime_ns)) {
            snprintf(why, n, "%s was touched (mtime or ctime changed)", x->name);
            return 1;
        }
    }
    return 0;
}

/* mkdir -p on rank 0, then everyone may use it. */
/* Descriptors this process has open (leak checks). */
RL_FN int rl_count_fds(void)
{
    int            n  = 0;
    DIR           *dp = opendir("/proc/self/fd");
    struct dirent *de;
    while (dp && (de = readdir(dp)))
        n += de->d_name[0] != '.';
    if (dp)
        closedir(dp);
    return n;
}

RL_FN void rl_mkdir(const char *dir)
{
    if (rl_rank == 0) {
        char p[4096];
        snprintf(p, sizeof p, "%s", dir);
        for (char *s = p + 1;; s++)
            if (*s == '/' || *s == '\0') {
                char c = *s;
                *s     = '\0';
                if (mkdir(p, 0755) < 0 && errno != EEXIST) {
                    fprintf(stderr, "%s: cannot create %s: %s\n", rl_prog, p, strerror(errno));
                    MPI_Abort(MPI_COMM_WORLD, 2);
                }
                if (!(*s = c))
                    break;
            }
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

#endif
