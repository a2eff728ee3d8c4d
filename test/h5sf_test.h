/*
 * h5sf_test.h -- the one harness of every C test (after libuv's test/task.h):
 * checks, the verdict, steps and the watchdog, the data pattern, the random
 * source, the clock, files and subfiles, and the HDF5 error stack as text.
 * Header-only, so each test stays one executable (or a few files sharing
 * one state: t_roundtrip, t_multinode).
 *
 * Which parts are compiled: the core always; it needs neither MPI nor HDF5,
 * so common/'s unit tests include it as it is.  The MPI part is compiled
 * when <mpi.h> was included before this header, the HDF5 part when <hdf5.h>
 * was, the h5sf part (t_fapl) when "h5sf.h" was, the IOC part when
 * "ioc/ioc.h" was.  A test includes what it links, then this header last.
 *
 *   t_init(&argc, &argv, "name")   how an MPI test starts: MPI_Init_thread
 *                            (MULTIPLE; less is a warning), t_start, no
 *                            automatic HDF5 error printing; the level.
 *                            t_init_multiple: less than MULTIPLE ends the
 *                            job (status 2).  t_init_level: another level.
 *   t_start("name")          name the test; with MPI up t_rank and t_size of
 *                            MPI_COMM_WORLD, and with T_STDERR_DIR=dir each
 *                            rank's stderr in dir/stderr.<rank>.  Alone only
 *                            for a test without MPI or one that starts MPI
 *                            its own way (and says why).
 *   t_test_dir(arg, tag, ...) the test's directory on every rank: arg,
 *                            $H5SF_TEST_DIR or a new /tmp/h5sf-<tag>-XXXXXX.
 *   CHECK(cond, "fmt", ...)  count a failure, name file, line, rank (MPI up)
 *                            and the step; go on.  The message is optional;
 *                            the condition's text is printed either way.
 *   CHECK_EQ(a, b), _NE, _LT, _LE, _GE, CHECK_STREQ(a, b)  the same for a
 *                            comparison, printing both operands' values.
 *                            CHECK_AT(line, ...) for a helper reporting its
 *                            caller's line; t_max_fails stops a flood.
 *   VRFY(cond, "fmt", ...)   the same, but fatal: the whole job stops now
 *                            (MPI_Abort, or exit without MPI), as testpar's
 *                            VRFY; for setup whose failure leaves nothing to
 *                            test.  Prints the HDF5 error stack if any.
 *   t_verdict()              every rank's failures summed; rank 0 prints
 *                            "<prog>: passed" or "<prog>: FAILED (...)";
 *                            the exit status every rank agrees on.
 *                            t_finish(): t_verdict, then MPI_Finalize.
 *   t_step(s, "fmt", ...)    name the step and arm the watchdog: a step that
 *                            takes more than s seconds is a failure naming
 *                            it, with the stack of every thread (gdb), and
 *                            the process exits 3.  t_on_hang(fn) makes it
 *                            call fn instead (a test releasing its own
 *                            stall) and go on.  s = 0 only names the step.
 *                            t_stack_frames: frames per thread (16).
 *   t_pat / t_fill / t_mismatch  bytes of (seed, offset): any rank can
 *                            write or check any range; never 0, so a hole
 *                            or a zero fill never passes for data.
 *                            t_pat_int for int elements; t_mix is the
 *                            64-bit value behind them all.
 *   t_rnd / t_rnd_below / t_rnd_seed   xorshift64, one stream per thread.
 *   t_now_s                  monotonic seconds.
 *   t_fresh_dir, t_mkdir_p, t_subfile, t_slurp, t_spit, t_snapshot ...
 *                            files; t_remove_h5 a subfiled file; t_count,
 *                            t_all_ok, t_mkdir_world (MPI).
 *   t_status_kib, t_peak_reset  this process's RSS and its peak.
 *   t_ndigits                the width of a number in a subfile's name.
 *   t_unset_layout_env       no layout or driver from the environment.
 *   t_stderr_capture / t_stderr_release  stderr into a file and back.
 *   t_errors (HDF5)          the error stack as text: "func(): desc" lines,
 *                            and the descriptions alone.
 *   H5VRFY(call) (HDF5)      VRFY for an HDF5 call: its value, or the job
 *                            stops naming the call.
 *   t_dset_create, t_dset_io, t_small_roundtrip (HDF5), t_fapl (h5sf)
 *                            byte datasets and an h5sf fapl, for the
 *                            reliability tests.
 *   t_write_block (HDF5)     each rank writes its block of a 1-D int dataset.
 *   t_create_pattern (HDF5)  a new file whose "v" holds t_pat_int's pattern.
 *   t_ioc_setup / t_ioc_teardown (ioc/ioc.h)  an IOC context with rank 0
 *                            serving one subfile, for the tests of ioc/;
 *                            t_need_tag_ub; t_nap_barrier, a barrier that
 *                            sleeps instead of spinning.
 */
#ifndef H5SF_TEST_H
#define H5SF_TEST_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#if defined(MPI_VERSION)
#define T_HAVE_MPI 1
#else
#define T_HAVE_MPI 0
#endif
#if defined(H5_VERS_MAJOR)
#define T_HAVE_HDF5 1
#else
#define T_HAVE_HDF5 0
#endif

/* Not every test uses every helper.  The state is weak, not static: a
 * test of several files (t_roundtrip, t_multinode) shares one. */
#define T_FN  static inline __attribute__((unused))
#define T_VAR __attribute__((weak))

T_VAR int         t_rank = -1; /* -1: no MPI (or not started): never printed */
T_VAR int         t_size = 1;
T_VAR atomic_long t_fails;                /* failed checks of this process */
T_VAR long        t_max_fails;            /* more failed checks end the test; 0: no limit */
T_VAR const char *t_prog        = "test"; /* the name in every message */
T_VAR int         t_watchdog_fd = 2;      /* where the watchdog speaks (a test may redirect stderr) */
/* Frames per thread in the watchdog's stacks (more for a test whose frames
 * of interest lie deep under HDF5's). */
T_VAR int t_stack_frames = 16;

/* The step: its name (for messages) and the watchdog's deadline. */
T_VAR pthread_mutex_t t_wd_mu = PTHREAD_MUTEX_INITIALIZER;
T_VAR pthread_cond_t  t_wd_cv;
T_VAR char            t_step_name[256];
T_VAR double          t_wd_deadline; /* 0: disarmed */
T_VAR unsigned        t_wd_seconds;
T_VAR void (*t_wd_release)(void);
T_VAR pid_t t_wd_pid; /* the process whose watchdog thread runs */

/* Environment variable `name`, else the old name h5sf still reads in its
 * place when `name` is unset (common/options.c's aliases). */
T_FN const char *t_env_renamed(const char *name, const char *old)
{
    const char *v = getenv(name);
    return v ? v : getenv(old);
}

T_FN double t_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- checks -------------------------------------------------------------- */

T_FN int t_rank_now(void);

/* "[prog rank R]", or "[prog]" without MPI, into out; its length. */
T_FN int t_who(char *out, size_t n)
{
    int r = t_rank_now();
    return r >= 0 ? snprintf(out, n, "[%s rank %d]", t_prog, r) : snprintf(out, n, "[%s]", t_prog);
}

/* t_who, then file:line (if file) and the step in parentheses. */
T_FN void t_where(char *out, size_t n, const char *file, int line)
{
    char step[sizeof t_step_name];
    int  k;
    pthread_mutex_lock(&t_wd_mu);
    memcpy(step, t_step_name, sizeof step);
    pthread_mutex_unlock(&t_wd_mu);
    k = t_who(out, n);
    if (k > 0 && (size_t)k < n && file) {
        const char *base = strrchr(file, '/');
        k += snprintf(out + k, n - (size_t)k, " %s:%d", base ? base + 1 : file, line);
    }
    if (k > 0 && (size_t)k < n && step[0])
        snprintf(out + k, n - (size_t)k, " (%s)", step);
}

T_FN void t_errors_print(FILE *f);
T_FN void t_abort(int code) __attribute__((noreturn));

/* fmt is " " and the caller's literal format (see CHECK). */
T_FN void t_report(const char *kind, const char *file, int line, const char *cond, const char *fmt, va_list ap)
{
    char where[512], msg[2048];
    t_where(where, sizeof where, file, line);
    vsnprintf(msg, sizeof msg, fmt, ap);
    /* Both the message and the condition: the message says what was being
     * checked, the condition exactly what failed. */
    if (strcmp(msg, " "))
        fprintf(stderr, "%s %s:%s [failed:%s]\n", where, kind, msg, cond);
    else
        fprintf(stderr, "%s %s:%s\n", where, kind, cond);
    fflush(stderr);
}

T_FN void t_check_failed(const char *file, int line, const char *cond, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
T_FN void t_check_failed(const char *file, int line, const char *cond, const char *fmt, ...)
{
    va_list ap;
    long    n = ++t_fails;
    va_start(ap, fmt);
    t_report("FAIL", file, line, cond, fmt, ap);
    va_end(ap);
    if (t_max_fails && n > t_max_fails) {
        fprintf(stderr, "%s: more than %ld failed checks, stopping\n", t_prog, t_max_fails);
        t_abort(1);
    }
}


T_FN void t_vrfy_failed(const char *file, int line, const char *cond, const char *fmt, ...)
    __attribute__((format(printf, 4, 5), noreturn));
T_FN void t_vrfy_failed(const char *file, int line, const char *cond, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    t_report("FATAL", file, line, cond, fmt, ap);
    va_end(ap);
    t_errors_print(stderr);
    t_abort(1);
}

/* The message is a literal format, or nothing: then the condition is
 * printed.  (" " before it: an empty format would draw a warning.) */
#define CHECK(cond, ...)                                                                                               \
    do {                                                                                                               \
        if (!(cond))                                                                                                   \
            t_check_failed(__FILE__, __LINE__, " " #cond, " " __VA_ARGS__);                                            \
    } while (0)
#define VRFY(cond, ...)                                                                                                \
    do {                                                                                                               \
        if (!(cond))                                                                                                   \
            t_vrfy_failed(__FILE__, __LINE__, " " #cond, " " __VA_ARGS__);                                             \
    } while (0)

/* Typed comparisons that print both operands (libuv's ASSERT_EQ family):
 * CHECK_EQ(a, b) and the like for integers, CHECK_STREQ for strings. */
#define T_CHECK_CMP(a, op, b)                                                                                          \
    do {                                                                                                               \
        intmax_t t_a_ = (intmax_t)(a), t_b_ = (intmax_t)(b);                                                           \
        if (!(t_a_ op t_b_))                                                                                           \
            t_check_failed(__FILE__, __LINE__, " " #a " " #op " " #b, " left %jd, right %jd", t_a_, t_b_);             \
    } while (0)
#define CHECK_EQ(a, b) T_CHECK_CMP(a, ==, b)
#define CHECK_NE(a, b) T_CHECK_CMP(a, !=, b)
#define CHECK_LT(a, b) T_CHECK_CMP(a, <, b)
#define CHECK_LE(a, b) T_CHECK_CMP(a, <=, b)
#define CHECK_GE(a, b) T_CHECK_CMP(a, >=, b)
#define CHECK_STREQ(a, b)                                                                                              \
    do {                                                                                                               \
        const char *t_a_ = (a), *t_b_ = (b);                                                                           \
        if (!t_a_ || !t_b_ || strcmp(t_a_, t_b_))                                                                      \
            t_check_failed(__FILE__, __LINE__, " " #a " == " #b, " left \"%s\", right \"%s\"", t_a_ ? t_a_ : "(null)", \
                           t_b_ ? t_b_ : "(null)");                                                                    \
    } while (0)

/* CHECK for a helper that reports its caller's line. */
#define CHECK_AT(line, cond, ...)                                                                                      \
    do {                                                                                                               \
        if (!(cond))                                                                                                   \
            t_check_failed(__FILE__, line, " " #cond, " " __VA_ARGS__);                                                \
    } while (0)

/* A file operation of the test itself failed: no verdict is possible. */
T_FN void t_die_io(const char *what, const char *path)
{
    fprintf(stderr, "%s: cannot %s %s: %s\n", t_prog, what, path, strerror(errno));
    t_abort(2);
}

/* ---- watchdog: a hang becomes a failure that names the step -------------- */

/* Where every thread of this process is, from gdb if there is one: a hang
 * seen once in a loaded CI run is then a stack, not a guess.  T_NO_STACKS=1
 * turns it off. */
T_FN void t_dump_stacks(void)
{
    char cmd[1024], who[300];
    if (getenv("T_NO_STACKS"))
        return;
    t_who(who, sizeof who);
    prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0); /* Yama: let gdb attach */
    /* Frames only, without MPI's and PMIx's own event threads. */
    snprintf(cmd, sizeof cmd,
             "command -v gdb >/dev/null && timeout 60 gdb -nx -batch -p %ld -ex 'thread apply all bt %d' 2>/dev/null | "
             "grep -E '^(Thread|#[0-9]+ )' | "
             "grep -v -E 'libevent|libpmix|clone3|start_thread|t_dump_stacks|t_watchdog_main|do_system|_GI___wait' | "
             "sed 's/^/%s /' | cut -c1-200 >&%d",
             (long)getpid(), t_stack_frames, who, t_watchdog_fd);
    if (system(cmd) < 0)
        return;
    /* The first rank to exit ends the job: give the others' gdb time. */
    struct timespec ts = {15, 0};
    nanosleep(&ts, NULL);
}

T_FN void *t_watchdog_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&t_wd_mu);
    for (;;) {
        if (t_wd_deadline == 0) {
            pthread_cond_wait(&t_wd_cv, &t_wd_mu);
            continue;
        }
        double left = t_wd_deadline - t_now_s();
        if (left > 0) {
            struct timespec ts;
            clock_gettime(CLOCK_MONOTONIC, &ts);
            ts.tv_sec += (time_t)left;
            ts.tv_nsec += (long)((left - (double)(time_t)left) * 1e9);
            if (ts.tv_nsec >= 1000000000) {
                ts.tv_sec++;
                ts.tv_nsec -= 1000000000;
            }
            pthread_cond_timedwait(&t_wd_cv, &t_wd_mu, &ts);
            continue;
        }
        /* Expired. */
        void (*release)(void) = t_wd_release;
        unsigned s            = t_wd_seconds;
        t_wd_deadline         = 0;
        pthread_mutex_unlock(&t_wd_mu);
        char where[512], msg[768];
        t_where(where, sizeof where, NULL, 0);
        int n = snprintf(msg, sizeof msg, "%s FAIL: the step hung (watchdog expired after %u s)%s\n", where, s,
                         release ? "; released" : "");
        t_fails++;
        if (n > 0 && write(t_watchdog_fd, msg, (size_t)n) < 0)
            _exit(3);
        if (release)
            release();
        else {
            t_dump_stacks();
            _exit(3); /* mpiexec then stops the other ranks */
        }
        pthread_mutex_lock(&t_wd_mu);
    }
    return NULL;
}

/* Name the step; seconds > 0 arms the watchdog for it, 0 disarms it. */
T_FN void t_step(unsigned seconds, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
T_FN void t_step(unsigned seconds, const char *fmt, ...)
{
    va_list ap;
    if (seconds && t_wd_pid != getpid()) { /* first arming in this process (or a forked child) */
        pthread_condattr_t ca;
        pthread_t          tid;
        if (t_wd_pid) /* a forked child: the parent's lock state is not ours */
            pthread_mutex_init(&t_wd_mu, NULL);
        pthread_condattr_init(&ca);
        pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
        pthread_cond_init(&t_wd_cv, &ca);
        pthread_condattr_destroy(&ca);
        t_wd_pid = getpid();
        if (pthread_create(&tid, NULL, t_watchdog_main, NULL) != 0) {
            fprintf(stderr, "%s: cannot start the watchdog thread\n", t_prog);
            t_abort(2);
        }
#ifdef _GNU_SOURCE
        pthread_setname_np(tid, "t-watchdog");
#endif
        pthread_detach(tid);
    }
    pthread_mutex_lock(&t_wd_mu);
    va_start(ap, fmt);
    vsnprintf(t_step_name, sizeof t_step_name, fmt, ap);
    va_end(ap);
    t_wd_seconds  = seconds;
    t_wd_deadline = seconds ? t_now_s() + seconds : 0;
    if (t_wd_pid == getpid())
        pthread_cond_signal(&t_wd_cv);
    pthread_mutex_unlock(&t_wd_mu);
}

/* Disarm the watchdog, keep the step's name. */
T_FN void t_step_done(void)
{
    pthread_mutex_lock(&t_wd_mu);
    t_wd_deadline = 0;
    pthread_mutex_unlock(&t_wd_mu);
}

/* On expiry call release (from the watchdog's thread) and count a failure
 * instead of ending the process: for a test that can undo its own stall. */
T_FN void t_on_hang(void (*release)(void))
{
    pthread_mutex_lock(&t_wd_mu);
    t_wd_release = release;
    pthread_mutex_unlock(&t_wd_mu);
}

/* ---- pattern, random source ---------------------------------------------- */

/* 64 bits of (seed, off), no short period in either. */
T_FN uint64_t t_mix(uint64_t seed, uint64_t off)
{
    uint64_t x = (off + 1) * 0x9E3779B97F4A7C15ull + seed * 0xBF58476D1CE4E5B9ull;
    x ^= x >> 31;
    x *= 0x94D049BB133111EBull;
    x ^= x >> 29;
    return x;
}

/* Byte at position off of the pattern of seed, never 0, so a stripe in the
 * wrong place, a hole or a zero fill cannot pass for it.  Eight bytes come
 * from one t_mix, so filling and checking gigabytes stays cheap. */
T_FN unsigned char t_pat_byte(uint64_t x, unsigned k)
{
    unsigned char v = (unsigned char)(x >> (8 * k));
    return v ? v : 0x5a;
}

T_FN unsigned char t_pat(uint64_t seed, uint64_t off) { return t_pat_byte(t_mix(seed, off >> 3), (unsigned)(off & 7)); }

T_FN void t_fill(void *buf, size_t len, uint64_t seed, uint64_t off)
{
    unsigned char *b = buf;
    for (size_t i = 0; i < len;) {
        uint64_t a = off + i, x = t_mix(seed, a >> 3);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        /* A whole word without a zero byte: as it is. */
        if ((a & 7) == 0 && len - i >= 8 && !((x - 0x0101010101010101ull) & ~x & 0x8080808080808080ull)) {
            memcpy(b + i, &x, 8);
            i += 8;
            continue;
        }
#endif
        for (unsigned k = (unsigned)(a & 7); k < 8 && i < len; k++, i++)
            b[i] = t_pat_byte(x, k);
    }
}

/* Element i of an int pattern of seed: 1..2^30-1, exact in a double too. */
T_FN int t_pat_int(uint64_t seed, uint64_t i) { return (int)(1 + t_mix(seed, i) % 0x3fffffff); }

/* First index where buf differs from the pattern, or len. */
T_FN size_t t_mismatch(const void *buf, size_t len, uint64_t seed, uint64_t off)
{
    const unsigned char *b = buf;
    for (size_t i = 0; i < len;) {
        uint64_t a = off + i, x = t_mix(seed, a >> 3);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        if ((a & 7) == 0 && len - i >= 8 && !((x - 0x0101010101010101ull) & ~x & 0x8080808080808080ull) &&
            !memcmp(b + i, &x, 8)) {
            i += 8;
            continue;
        }
#endif
        for (unsigned k = (unsigned)(a & 7); k < 8 && i < len; k++, i++)
            if (b[i] != t_pat_byte(x, k))
                return i;
    }
    return len;
}

/* xorshift64; each thread its own stream, the first thread to draw starts
 * from a fixed value, so an unseeded run repeats. */
T_VAR _Thread_local uint64_t t_rnd_state;
T_VAR atomic_uint            t_rnd_streams;

T_FN void t_rnd_seed(uint64_t seed) { t_rnd_state = seed ? seed : 0x2545F4914F6CDD1Dull; }

T_FN uint64_t t_rnd(void)
{
    if (!t_rnd_state)
        t_rnd_seed(0x2545F4914F6CDD1Dull + 0x9E3779B97F4A7C15ull * atomic_fetch_add(&t_rnd_streams, 1));
    t_rnd_state ^= t_rnd_state << 13;
    t_rnd_state ^= t_rnd_state >> 7;
    t_rnd_state ^= t_rnd_state << 17;
    return t_rnd_state;
}

T_FN uint64_t t_rnd_below(uint64_t n) { return n ? t_rnd() % n : 0; }

/* ---- files --------------------------------------------------------------- */

/* mkdir -p; a failure ends the test. */
T_FN void t_mkdir_p(const char *dir)
{
    char p[4096];
    snprintf(p, sizeof p, "%s", dir);
    for (char *s = p + 1;; s++)
        if (*s == '/' || *s == '\0') {
            char c = *s;
            *s     = '\0';
            if (mkdir(p, 0755) < 0 && errno != EEXIST)
                t_die_io("create", p);
            if (!(*s = c))
                break;
        }
}

/* Make dir (and its parents) and empty it: no file of an earlier run.
 * Call on one rank, then barrier.  (HDF5 first opens an existing file
 * without H5F_ACC_TRUNC to see whether it is open already: a test that
 * injects one fault into an open must not leave a file for that probe.) */
T_FN void t_fresh_dir(const char *dir)
{
    char           p[8192];
    DIR           *dp;
    struct dirent *de;
    t_mkdir_p(dir);
    if ((dp = opendir(dir))) {
        while ((de = readdir(dp)))
            if (de->d_name[0] != '.') {
                snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
                unlink(p);
            }
        closedir(dp);
    }
}

/* Path of subfile k (1-based, as in the names) of n, of the file whose
 * stub is dir/base: its name is <base>.subfile_<inode>_<k>_of_<n>.
 * 0 if found, -1 if not. */
T_FN int t_subfile(const char *dir, const char *base, int k, int n, char *out, size_t len)
{
    char           tail[32];
    DIR           *dp = opendir(dir);
    struct dirent *de;
    int            found = -1;
    snprintf(tail, sizeof tail, "_%d_of_%d", k, n);
    while (dp && (de = readdir(dp))) {
        size_t l = strlen(de->d_name), t = strlen(tail);
        if (!strncmp(de->d_name, base, strlen(base)) && strstr(de->d_name, ".subfile_") && l > t &&
            !strcmp(de->d_name + l - t, tail)) {
            snprintf(out, len, "%s/%s", dir, de->d_name);
            found = 0;
        }
    }
    if (dp)
        closedir(dp);
    return found;
}

/* Whole small file (under 1 MiB), NUL-terminated; *n its length. */
T_FN char *t_slurp(const char *p, size_t *n)
{
    FILE *f = fopen(p, "rb");
    if (!f)
        t_die_io("open", p);
    char *b = malloc(1 << 20);
    if (!b)
        t_die_io("read", p);
    *n    = fread(b, 1, (1 << 20) - 1, f);
    b[*n] = '\0';
    fclose(f);
    return b;
}

/* Stderr into a file and back, for a test that reads what was printed.
 * t_stderr_capture(path): fd 2 goes to path (created or truncated); the
 * watchdog keeps speaking to the real stderr.  t_stderr_release(): the real
 * stderr back; returns the captured text (t_slurp's: free it). */
T_VAR int  t_stderr_saved = -1;
T_VAR char t_stderr_path[4352];

T_FN void t_stderr_capture(const char *path)
{
    snprintf(t_stderr_path, sizeof t_stderr_path, "%s", path);
    fflush(stderr);
    int fd         = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    t_stderr_saved = dup(2);
    if (fd < 0 || t_stderr_saved < 0 || dup2(fd, 2) < 0)
        t_die_io("redirect stderr to", path);
    close(fd);
    t_watchdog_fd = t_stderr_saved;
}

T_FN char *t_stderr_release(void)
{
    size_t n;
    fflush(stderr);
    dup2(t_stderr_saved, 2);
    close(t_stderr_saved);
    t_stderr_saved = -1;
    t_watchdog_fd  = 2;
    return t_slurp(t_stderr_path, &n);
}

T_FN void t_spit(const char *p, const void *b, size_t n)
{
    FILE *f = fopen(p, "wb");
    if (!f || fwrite(b, 1, n, f) != n || fclose(f) != 0)
        t_die_io("write", p);
}

/* Unset every variable that chooses a file's layout or driver: h5sf's,
 * HDF5's subfiling driver's, HDF5_DRIVER(_CONFIG); for a test that sets
 * the layout itself.  Before HDF5 starts (t_init): it reads HDF5_DRIVER
 * then. */
T_FN void t_unset_layout_env(void)
{
    static const char *const v[] = {"H5SF_STRIPE_SIZE",
                                    "H5SF_STRIPE_COUNT",
                                    "H5SF_IOC",
                                    "H5SF_CHANNEL",
                                    "H5SF_THREADS",
                                    "H5SF_SUBFILE_DIR",
                                    "H5SF_CONFIG_DIR",
                                    "H5FD_SUBFILING_STRIPE_SIZE",
                                    "H5FD_SUBFILING_IOC_PER_NODE",
                                    "H5FD_SUBFILING_IOC_SELECTION_CRITERIA",
                                    "H5FD_SUBFILING_SUBFILE_PREFIX",
                                    "H5FD_SUBFILING_CONFIG_FILE_PREFIX",
                                    "HDF5_DRIVER",
                                    "HDF5_DRIVER_CONFIG"};
    for (size_t i = 0; i < sizeof v / sizeof *v; i++)
        unsetenv(v[i]);
}

/* A field of /proc/self/status ("VmRSS:", "VmHWM:"), in KiB; -1 if
 * missing. */
T_FN long long t_status_kib(const char *key)
{
    char      line[256];
    long long v = -1;
    FILE     *f = fopen("/proc/self/status", "r");
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, key, strlen(key)))
            v = atoll(line + strlen(key));
    if (f)
        fclose(f);
    return v;
}

/* Forget this process's peak RSS (Linux >= 4.0): VmHWM becomes VmRSS.
 * 0, or -1 (errno) if it could not. */
T_FN int t_peak_reset(void)
{
    FILE *f  = fopen("/proc/self/clear_refs", "w");
    int   ok = f && fputs("5", f) >= 0;
    if (f)
        ok = fclose(f) == 0 && ok;
    return ok ? 0 : -1;
}

/* Decimal digits of n >= 0: the width of the zero-padded numbers in
 * subfile names ((int)(log10(n) + 1), as HDF5's subfiling driver has it). */
T_FN int t_ndigits(long long n)
{
    int d = 1;
    while (n >= 10) {
        n /= 10;
        d++;
    }
    return d;
}

/* Remove the stub dir/base and every <base>.subfile_* beside it. */
T_FN void t_remove_h5(const char *dir, const char *base)
{
    char   path[8192], prefix[4200];
    DIR   *dp = opendir(dir);
    size_t pl;
    snprintf(prefix, sizeof prefix, "%s.subfile_", base);
    pl = strlen(prefix);
    if (!dp)
        return;
    struct dirent *e;
    while ((e = readdir(dp)))
        if (!strcmp(e->d_name, base) || !strncmp(e->d_name, prefix, pl)) {
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            unlink(path);
        }
    closedir(dp);
}

/* Descriptors this process has open (leak checks). */
T_FN int t_count_fds(void)
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

/* ---- files on disk: snapshots -------------------------------------------- */

typedef struct t_fileinfo {
    char     name[512];
    int64_t  size;
    int64_t  mtime_ns, ctime_ns;
    uint64_t sum; /* FNV-1a of the contents */
    int      mode;
} t_fileinfo_t;

typedef struct t_snap {
    t_fileinfo_t f[256];
    int          n;
} t_snap_t;

T_FN uint64_t t_checksum(const char *path)
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

T_FN int t_cmp_name(const void *a, const void *b)
{
    return strcmp(((const t_fileinfo_t *)a)->name, ((const t_fileinfo_t *)b)->name);
}

/* Every file in dir whose name starts with prefix (sorted by name). */
T_FN void t_snapshot(const char *dir, const char *prefix, t_snap_t *s)
{
    DIR           *dp = opendir(dir);
    struct dirent *de;
    s->n = 0;
    if (!dp)
        return;
    while ((de = readdir(dp)) && s->n < (int)(sizeof s->f / sizeof s->f[0])) {
        if (strncmp(de->d_name, prefix, strlen(prefix)) != 0)
            continue;
        t_fileinfo_t *fi = &s->f[s->n];
        char          path[4096 + 512];
        struct stat   st;
        snprintf(fi->name, sizeof fi->name, "%s", de->d_name);
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        if (stat(path, &st) < 0)
            continue;
        fi->size     = (int64_t)st.st_size;
        fi->mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
        fi->ctime_ns = (int64_t)st.st_ctim.tv_sec * 1000000000 + st.st_ctim.tv_nsec;
        fi->mode     = (int)st.st_mode;
        fi->sum      = t_checksum(path);
        s->n++;
    }
    closedir(dp);
    qsort(s->f, (size_t)s->n, sizeof s->f[0], t_cmp_name);
}

/* Describe the first difference into why; 0 if the snapshots are equal.
 * with_times: also compare mtime and ctime (a read-only open touches
 * nothing at all). */
T_FN int t_snap_diff(const t_snap_t *a, const t_snap_t *b, int with_times, char *why, size_t n)
{
    if (a->n != b->n) {
        snprintf(why, n, "%d files before, %d after", a->n, b->n);
        return 1;
    }
    for (int i = 0; i < a->n; i++) {
        const t_fileinfo_t *x = &a->f[i], *y = &b->f[i];
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

/* ---- MPI part -------------------------------------------------------------- */

#if T_HAVE_MPI

/* MPI is up: between MPI_Init and MPI_Finalize. */
T_FN int t_mpi_up(void)
{
    int init = 0, fin = 0;
    MPI_Initialized(&init);
    if (init)
        MPI_Finalized(&fin);
    return init && !fin;
}

T_FN int t_rank_now(void)
{
    if (t_rank < 0 && t_mpi_up())
        MPI_Comm_rank(MPI_COMM_WORLD, &t_rank);
    return t_rank;
}

/* _exit, not exit: other threads may be running (t_max_fails). */
T_FN void t_abort(int code)
{
    fflush(stdout);
    fflush(stderr);
    if (t_mpi_up())
        MPI_Abort(MPI_COMM_WORLD, code);
    _exit(code);
}

/* T_STDERR_DIR=dir: this rank's stderr goes to dir/stderr.<rank>.  For a
 * test that reads h5sf's own report lines: mpiexec merges the ranks' stderr
 * in pieces of its own choosing (Open MPI 4.1 splits a 300-byte line), so a
 * merged log need not hold any rank's line whole. */
T_FN void t_stderr_per_rank(void)
{
    const char *d = getenv("T_STDERR_DIR");
    if (!d || !*d)
        return;
    char path[4096];
    snprintf(path, sizeof path, "%s/stderr.%d", d, t_rank);
    t_stderr_capture(path); /* for the whole run: never released */
}

/* Name the test; take this rank's place in MPI_COMM_WORLD if MPI is up
 * (call after MPI_Init, which stays the test's own). */
T_FN void t_start(const char *prog)
{
    t_prog = prog;
    if (t_mpi_up()) {
        MPI_Comm_rank(MPI_COMM_WORLD, &t_rank);
        MPI_Comm_size(MPI_COMM_WORLD, &t_size);
        t_stderr_per_rank();
    }
}

/* mkdir -p on rank 0, then every rank may use dir. */
T_FN void t_mkdir_world(const char *dir)
{
    if (t_rank_now() == 0)
        t_mkdir_p(dir);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Number of ranks of MPI_COMM_WORLD for which v is true. */
T_FN int t_count(int v)
{
    int mine = v != 0, sum = 0;
    MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    return sum;
}

/* 1 if ok on every rank of MPI_COMM_WORLD, 0 if on none; a split outcome
 * of a collective call cannot be recovered from: the job stops. */
T_FN int t_all_ok(int ok, const char *what)
{
    int sum = t_count(ok);
    if (sum == t_size)
        return 1;
    if (sum == 0)
        return 0;
    VRFY(0, "%s: succeeded on %d of %d ranks (here: %s)", what, sum, t_size, ok ? "ok" : "failed");
}

/* ---- starting a test: every MPI test starts through one of these ------- */

/* MPI_Init_thread at level required, t_start, and (HDF5 included) no
 * automatic error-stack printing: the tests read the stack themselves and
 * VRFY prints it.  That first HDF5 call initializes HDF5: a test setting
 * HDF5_* variables sets them before.  The level provided.  For a test of
 * another level than t_init's (MPI_THREAD_SINGLE is what MPI_Init asks). */
T_FN int t_init_level(int *argc, char ***argv, const char *prog, int required)
{
    int provided = 0;
    MPI_Init_thread(argc, argv, required, &provided);
    t_start(prog);
#if T_HAVE_HDF5
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
#endif
    return provided;
}

/* t_init_level(MPI_THREAD_MULTIPLE, which the IOC channel needs).  A lower
 * level is a warning on rank 0 and the test goes on (its direct-channel
 * cases still run); the level provided. */
T_FN int t_init(int *argc, char ***argv, const char *prog)
{
    int provided = t_init_level(argc, argv, prog, MPI_THREAD_MULTIPLE);
    if (provided != MPI_THREAD_MULTIPLE && t_rank == 0)
        fprintf(stderr, "%s: MPI_THREAD_MULTIPLE not provided (%d); channel=ioc tests will fail\n", prog, provided);
    return provided;
}

/* t_init for a test that cannot run without MPI_THREAD_MULTIPLE (it drives
 * IOC threads itself): a lower level ends the job, status 2. */
T_FN void t_init_multiple(int *argc, char ***argv, const char *prog)
{
    int provided = t_init_level(argc, argv, prog, MPI_THREAD_MULTIPLE);
    if (provided == MPI_THREAD_MULTIPLE)
        return;
    if (t_rank == 0)
        fprintf(stderr, "%s: needs MPI_THREAD_MULTIPLE, MPI gives thread level %d\n", prog, provided);
    MPI_Finalize();
    exit(2);
}

/* The test's directory, the same on every rank: arg (a command-line
 * argument; NULL: none), else $H5SF_TEST_DIR, made if missing; else a new
 * /tmp/h5sf-<tag>-XXXXXX.  No directory ends the job.  1 on rank 0 if it
 * made a new one (the test removes it), else 0. */
T_FN int t_test_dir(const char *arg, const char *tag, char *dir, size_t n)
{
    int made = 0;
    if (t_rank_now() == 0) {
        const char *given = arg ? arg : getenv("H5SF_TEST_DIR");
        if (given && *given) {
            snprintf(dir, n, "%s", given);
            if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
                fprintf(stderr, "%s: cannot create %s: %s\n", t_prog, dir, strerror(errno));
                dir[0] = 0;
            }
        }
        else {
            snprintf(dir, n, "/tmp/h5sf-%s-XXXXXX", tag);
            if (!mkdtemp(dir)) {
                fprintf(stderr, "%s: mkdtemp: %s\n", t_prog, strerror(errno));
                dir[0] = 0;
            }
            else
                made = 1;
        }
    }
    MPI_Bcast(dir, (int)n, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (!dir[0])
        MPI_Abort(MPI_COMM_WORLD, 1);
    return made;
}

#else

T_FN int  t_rank_now(void) { return -1; }
T_FN void t_abort(int code)
{
    fflush(stdout);
    fflush(stderr);
    _exit(code);
}
T_FN void t_start(const char *prog) { t_prog = prog; }

#endif

/* Sum of every rank's failed checks (MPI up: over MPI_COMM_WORLD); rank 0
 * prints the verdict.  Returns the exit status, the same on every rank.
 * Disarms the watchdog. */
T_FN int t_verdict(void)
{
    long all = t_fails;
    t_step_done();
#if T_HAVE_MPI
    if (t_mpi_up()) {
        long mine = all;
        MPI_Allreduce(&mine, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        MPI_Comm_size(MPI_COMM_WORLD, &t_size);
    }
#endif
    if (t_rank_now() <= 0) {
        if (!all)
            printf("%s: passed", t_prog);
        else
            printf("%s: FAILED (%ld failed checks)", t_prog, all);
        if (t_rank >= 0)
            printf(" (%d rank%s)", t_size, t_size == 1 ? "" : "s");
        putchar('\n');
    }
    fflush(stdout);
    return all ? 1 : 0;
}

#if T_HAVE_MPI
/* t_verdict, then MPI_Finalize: the exit status. */
T_FN int t_finish(void)
{
    int rc = t_verdict();
    MPI_Finalize();
    return rc;
}
#endif

/* ---- HDF5 part ------------------------------------------------------------- */

#if T_HAVE_HDF5

/* The error stack, outermost record first, in two views: buf for
 * messages, one "  func(): desc" line a record; desc the descriptions
 * alone, one a line, for checks that must not match a function's name. */
typedef struct t_errtext {
    char   buf[16384];
    char   desc[16384];
    size_t len, dlen;
} t_errtext_t;

/* Append printf output to b (of n bytes, *len used), truncating. */
T_FN void t_append(char *b, size_t n, size_t *len, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
T_FN void t_append(char *b, size_t n, size_t *len, const char *fmt, ...)
{
    va_list ap;
    if (*len >= n - 1)
        return;
    va_start(ap, fmt);
    int w = vsnprintf(b + *len, n - *len, fmt, ap);
    va_end(ap);
    if (w > 0)
        *len = *len + (size_t)w >= n ? n - 1 : *len + (size_t)w;
}

T_FN herr_t t_errors_cb(unsigned n, const H5E_error2_t *err, void *data)
{
    t_errtext_t *t    = data;
    const char  *desc = err->desc ? err->desc : "";
    (void)n;
    /* No HDF5 API calls in here: they would clear the stack being walked. */
    t_append(t->buf, sizeof t->buf, &t->len, "  %s(): %s\n", err->func_name ? err->func_name : "?", desc);
    t_append(t->desc, sizeof t->desc, &t->dlen, "%s\n", desc);
    return 0;
}

/* The default error stack as text (t->buf; "" if it is empty).  Call right
 * after the failing API call: the next one clears the stack. */
T_FN const char *t_errors(t_errtext_t *t)
{
    t->len = t->dlen = 0;
    t->buf[0] = t->desc[0] = '\0';
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, t_errors_cb, t);
    return t->buf;
}

/* H5VRFY(call): the call's value if it is not negative (an id, a status);
 * else the job stops, naming the call, with the error stack.  For setup. */
#define H5VRFY(call) t_h5vrfy((int64_t)(call), #call, __FILE__, __LINE__)
T_FN int64_t t_h5vrfy(int64_t v, const char *call, const char *file, int line)
{
    if (v < 0)
        t_vrfy_failed(file, line, " ", " %s failed", call);
    return v;
}

T_FN void t_errors_print(FILE *f)
{
    static t_errtext_t t; /* not on the stack of a thread that may be small */
    if (t_errors(&t)[0])
        fprintf(f, "HDF5 error stack:\n%s", t.buf);
    fflush(f);
}

/* A 1-D byte dataset with its space allocated at creation and no fill, so
 * raw-data writes later change no metadata. */
T_FN hid_t t_dset_create(hid_t f, const char *name, hsize_t n)
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
T_FN herr_t t_dset_io(hid_t d, int write, hsize_t off, hsize_t len, void *buf, hid_t dxpl, t_errtext_t *err)
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
        t_errors(err);
    H5Sclose(ms);
    H5Sclose(fs);
    return r;
}

/* A 1-D int dataset name of total elements in f, of which this rank writes
 * buf (count ints) to its block [start, start + count) with dxpl
 * (independent or collective, as dxpl says).  Negative if the dataset could
 * not be made or the write failed. */
T_FN herr_t t_write_block(hid_t f, const char *name, hsize_t total, hsize_t start, hsize_t count, const int *buf,
                          hid_t dxpl)
{
    hid_t fs = H5Screate_simple(1, &total, NULL), ms = H5Screate_simple(1, &count, NULL);
    hid_t d = H5Dcreate2(f, name, H5T_NATIVE_INT, fs, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &count, NULL);
    herr_t rc = d < 0 ? -1 : H5Dwrite(d, H5T_NATIVE_INT, ms, fs, dxpl, buf);
    H5Sclose(ms);
    H5Sclose(fs);
    if (d >= 0)
        H5Dclose(d);
    return rc;
}

/* Create path with fapl and write this rank's block (rank of size, n ints
 * each) of a dataset "v" holding t_pat_int(seed, element).  The file, still
 * open, or -1. */
T_FN hid_t t_create_pattern(const char *path, hid_t fapl, int seed, hsize_t n, int rank, int size)
{
    hsize_t start = n * (hsize_t)rank;
    int    *buf   = malloc((n ? n : 1) * sizeof *buf);
    hid_t   f     = buf ? H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl) : -1;
    for (hsize_t i = 0; f >= 0 && i < n; i++)
        buf[i] = t_pat_int(seed, start + i);
    if (f >= 0 && t_write_block(f, "v", n * (hsize_t)size, start, n, buf, H5P_DEFAULT) < 0) {
        H5Fclose(f);
        f = -1;
    }
    free(buf);
    return f;
}

#if T_HAVE_MPI
/* A dataset "d" of n bytes in file f: each rank of MPI_COMM_WORLD writes
 * its share of the pattern and reads it back (independent I/O). */
T_FN void t_small_roundtrip(hid_t f, hsize_t n)
{
    hsize_t        per = n / (hsize_t)t_size, off = per * (hsize_t)t_rank;
    hid_t          fs = H5Screate_simple(1, &n, NULL), ms = H5Screate_simple(1, &per, NULL);
    hid_t          d = H5Dcreate2(f, "d", H5T_NATIVE_UCHAR, fs, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    unsigned char *b = malloc(per ? per : 1), *g = malloc(per ? per : 1);
    t_fill(b, per, 1, off);
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, &off, NULL, &per, NULL);
    CHECK(H5Dwrite(d, H5T_NATIVE_UCHAR, ms, fs, H5P_DEFAULT, b) >= 0, "small round trip: write");
    CHECK(H5Dread(d, H5T_NATIVE_UCHAR, ms, fs, H5P_DEFAULT, g) >= 0 && t_mismatch(g, per, 1, off) == per,
          "small round trip: read back");
    free(b);
    free(g);
    H5Dclose(d);
    H5Sclose(ms);
    H5Sclose(fs);
}

/* Before a test calls MPI_Finalize with h5sf files still open: under
 * MPICH a moment for the IOC threads to leave MPI and sleep on their
 * doorbell, since MPICH 4.0.2 aborts at the end of an MPI_Finalize that
 * began while another thread was inside MPI (docs/reliability.md, Known
 * gaps), which is not what these tests test.  Nothing under Open MPI. */
T_FN void t_mpich_calm(void)
{
#ifdef MPICH_VERSION
    struct timespec calm = {0, 300000000};
    nanosleep(&calm, NULL);
#endif
}

#endif

#else
T_FN void t_errors_print(FILE *f) { (void)f; }
#endif

/* ---- IOC part (tests of ioc/ itself) ------------------------------------- */

#if defined(H5SF_IOC_H) && T_HAVE_MPI
/* An IOC context on MPI_COMM_WORLD with timeout_s, a new file id, and rank
 * 0 serving (2 threads) subfile 0 of it at path, opened with flags; returns
 * the file id once every rank is there.  No context ends the job. */
T_FN uint32_t t_ioc_setup(h5sf_ioc_ctx_t **ctx, int timeout_s, const char *path, int flags)
{
    h5sf_errbuf_t e;
    VRFY(h5sf_ioc_ctx_acquire(MPI_COMM_WORLD, timeout_s, ctx, &e) == 0, "IOC context: %s", e.msg);
    uint32_t file_id = h5sf_ioc_ctx_next_file_id(*ctx);
    if (t_rank == 0)
        CHECK(h5sf_ioc_serve(*ctx, 2, &e) == 0 && h5sf_ioc_subfile_open(*ctx, file_id, 0, path, flags, &e) == 0,
              "serve and open %s: %s", path, e.msg);
    MPI_Barrier(MPI_COMM_WORLD);
    return file_id;
}

/* A barrier that naps instead of spinning: the IOC threads need the cores. */
T_FN void t_nap_barrier(void)
{
    MPI_Request     r;
    int             flag = 0;
    struct timespec ts   = {0, 1000000L};
    MPI_Ibarrier(MPI_COMM_WORLD, &r);
    while (MPI_Test(&r, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS && !flag)
        nanosleep(&ts, NULL);
}

/* A test that wraps the tag space runs with H5SF_TEST_TAG_UB=ub; else the
 * job stops, status 2. */
T_FN void t_need_tag_ub(int ub)
{
    const char *v = getenv("H5SF_TEST_TAG_UB");
    if (v && atoi(v) == ub)
        return;
    fprintf(stderr, "%s: run with H5SF_TEST_TAG_UB=%d (two requests' tags)\n", t_prog, ub);
    MPI_Abort(MPI_COMM_WORLD, 2);
}

/* t_ioc_setup undone: rank 0 closes and removes the subfile, every rank
 * releases the context. */
T_FN void t_ioc_teardown(h5sf_ioc_ctx_t *ctx, uint32_t file_id, const char *path)
{
    h5sf_errbuf_t e;
    if (t_rank == 0) {
        CHECK(h5sf_ioc_subfile_close(ctx, file_id, 0, &e) == 0, "close %s: %s", path, e.msg);
        unlink(path);
    }
    CHECK(h5sf_ioc_ctx_release(ctx, &e) == 0, "release: %s", e.msg);
}
#endif

/* ---- h5sf part ------------------------------------------------------------- */

#if defined(H5SF_H) && T_HAVE_MPI
/* A fapl of h5sf with config string cfg on MPI_COMM_WORLD.  The driver is
 * registered from the linked library, not loaded as a plugin: HDF5 2.x
 * empties the error stack of a failed H5Fopen when a plugin directory is
 * searched (t_reliability.cmake), and these tests read that stack. */
T_FN hid_t t_fapl(const char *cfg)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_mpi_params(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    VRFY(H5FD_h5sf_init() >= 0 && H5Pset_driver_by_name(fapl, "h5sf", cfg) >= 0,
         "cannot select h5sf with \"%s\" (plugin not found?)", cfg);
    return fapl;
}
#endif

#endif
