/*
 * h5sf-fuse -- reassemble a subfiled HDF5 file into one ordinary file.
 *
 *   h5sf-fuse [options] INPUT.h5 OUTPUT.h5
 *   h5sf-fuse [options] --in-place INPUT.h5
 *
 * The layout comes from the config file of the stub.  Work is cut into jobs
 * of whole stripes of one subfile; a pool of threads copies them with
 * copy_file_range (falling back to pread/pwrite), so stripes move without
 * passing through user space.  The output grows as stripes land and is
 * then sized to the logical EOF, so holes and missing trailing stripes read
 * as zeros.  Under mpiexec the jobs are dealt over the ranks too.  The
 * output is written to a temporary next to the destination (mode 0600
 * until it is complete) and renamed when complete, so a failed or
 * interrupted run (SIGINT, SIGTERM, SIGHUP) never leaves a half-written
 * OUTPUT or a temporary.
 *
 * The input may be someone else's (docs/security.md): the superblock's end
 * of file is believed only as far as the subfiles can reach, stripe
 * arithmetic is overflow-checked, and the output is never more open than
 * the stub, any subfile or the umask allows.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* copy_file_range, SEEK_DATA */
#endif
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <mpi.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "stripe.h"
#include "toolkit.h"

#define JOB_BYTES    ((uint64_t)64 << 20) /* per copy job: a few stripes or part of one */
#define VERIFY_BYTES ((uint64_t)8 << 20)  /* per verify job (logical range)            */

typedef struct job {
    int      s;        /* subfile, or -1 for a verify job over a logical range */
    uint64_t off, len; /* range inside the subfile (or the logical file)       */
} job_t;

static struct {
    tk_set_t t;
    int      out;
    uint64_t eof;
    job_t   *jobs;
    size_t   njobs;
} G;

/* Stripe by stripe: consecutive stripes of a subfile are N*S apart in the output. */
static int64_t copy_job(void *arg, size_t i, char *buf)
{
    (void)arg;
    const job_t   *j = &G.jobs[i];
    const uint64_t S = (uint64_t)G.t.l.stripe_size;
    const int      N = G.t.n;
    for (uint64_t o = j->off; o < j->off + j->len && !tk_pool_failed();) {
        uint64_t in_stripe = o % S, n = S - in_stripe, laddr;
        if (tk_logical_addr(S, N, j->s, o, &laddr) < 0) {
            tk_pool_fail("subfile %d (%s) at offset %" PRIu64 ": beyond the logical address space", j->s + 1,
                         G.t.path[j->s], o);
            return -1;
        }
        if (n > j->off + j->len - o)
            n = j->off + j->len - o;
        if (laddr >= G.eof)
            break;
        if (laddr + n > G.eof)
            n = G.eof - laddr;
        if (tk_copy_range(G.t.fd[j->s], o, G.out, laddr, n, buf, 2 * TK_POOL_BUF) < 0) {
            tk_pool_fail("copy from subfile %d (%s) at offset %" PRIu64 ": %s", j->s + 1, G.t.path[j->s], o,
                         strerror(errno));
            return -1;
        }
        o += n;
    }
    return (int64_t)j->len;
}

/* The output against the logical file read through the layout. */
static int64_t verify_job(void *arg, size_t i, char *buf)
{
    (void)arg;
    const job_t *j = &G.jobs[i];
    char        *a = buf, *b = buf + TK_POOL_BUF;
    for (uint64_t o = j->off; o < j->off + j->len;) {
        size_t n = j->off + j->len - o < TK_POOL_BUF ? (size_t)(j->off + j->len - o) : TK_POOL_BUF;
        if (tk_read_logical(&G.t, o, a, n) < 0) {
            tk_pool_fail("verify: cannot read the subfiles at logical offset %" PRIu64 ": %s", o, strerror(errno));
            return -1;
        }
        ssize_t got = tk_pread(G.out, b, n, o);
        if (got < 0) {
            tk_pool_fail("verify: cannot read the output at offset %" PRIu64 ": %s", o, strerror(errno));
            return -1;
        }
        if ((size_t)got != n) {
            tk_pool_fail("verify: the output ends at %" PRIu64 ", before the logical EOF %" PRIu64, o + (uint64_t)got,
                         G.eof);
            return -1;
        }
        if (memcmp(a, b, n) != 0) {
            size_t k = 0;
            while (a[k] == b[k])
                k++;
            uint64_t at = o + k;
            tk_pool_fail("verify: output differs from the logical file at offset %" PRIu64
                         " (subfile %d, offset %" PRIu64 ")",
                         at, sf_subfile_of(at, (uint64_t)G.t.l.stripe_size, G.t.n) + 1,
                         sf_subfile_off(at, (uint64_t)G.t.l.stripe_size, G.t.n));
            return -1;
        }
        o += n;
    }
    return (int64_t)j->len;
}

static int run_pool(int threads, bool is_copy, bool show)
{
    uint64_t total = 0;
    for (size_t i = 0; i < G.njobs; i++)
        total += G.jobs[i].len;
    return tk_pool_run(threads, G.njobs, is_copy ? copy_job : verify_job, NULL, total,
                       show ? (is_copy ? "fuse" : "verify") : NULL);
}

/* Copy jobs, this rank's share: row-major (all subfiles' first ranges, then
 * the second ...) so the output fills roughly front to back. */
static int make_copy_jobs(int rank, int nranks)
{
    const uint64_t S       = (uint64_t)G.t.l.stripe_size;
    const uint64_t jb      = JOB_BYTES < S ? JOB_BYTES : (JOB_BYTES / S) * S;
    uint64_t       longest = 0;
    size_t         cap = 0, k = 0;
    for (int s = 0; s < G.t.n; s++)
        if ((uint64_t)G.t.size[s] > longest)
            longest = (uint64_t)G.t.size[s];
    G.njobs = 0;
    for (uint64_t o = 0; o < longest; o += jb)
        for (int s = 0; s < G.t.n; s++) {
            if (o >= (uint64_t)G.t.size[s])
                continue;
            if (k++ % (size_t)nranks != (size_t)rank)
                continue;
            if (G.njobs == cap) {
                cap      = cap ? 2 * cap : 64;
                job_t *p = realloc(G.jobs, cap * sizeof *p);
                if (!p)
                    return -1;
                G.jobs = p;
            }
            uint64_t left     = (uint64_t)G.t.size[s] - o;
            G.jobs[G.njobs++] = (job_t){s, o, left < jb ? left : jb};
        }
    return 0;
}

static int make_verify_jobs(int rank, int nranks)
{
    size_t n = (size_t)((G.eof + VERIFY_BYTES - 1) / VERIFY_BYTES);
    free(G.jobs);
    G.jobs  = calloc(n ? n : 1, sizeof *G.jobs);
    G.njobs = 0;
    if (!G.jobs)
        return -1;
    for (size_t i = (size_t)rank; i < n; i += (size_t)nranks) {
        uint64_t o        = (uint64_t)i * VERIFY_BYTES;
        G.jobs[G.njobs++] = (job_t){-1, o, G.eof - o < VERIFY_BYTES ? G.eof - o : VERIFY_BYTES};
    }
    return 0;
}

static void usage(FILE *fp)
{
    fprintf(fp, "usage: h5sf-fuse [options] INPUT.h5 OUTPUT.h5\n"
                "       h5sf-fuse [options] --in-place INPUT.h5\n"
                "Reassemble an h5sf (or HDF5 built-in subfiling) file into one ordinary HDF5 file,\n"
                "byte-identical to the logical file.  OUTPUT may be a directory.  Run it under\n"
                "mpiexec to share the copy over several processes.\n\n"
                "  -t, --threads N        copy threads per process (default: 4)\n"
                "  -c, --config-dir DIR   directory of the .config file (default: $H5SF_CONFIG_DIR,\n"
                "                         $H5FD_SUBFILING_CONFIG_FILE_PREFIX, else the stub's)\n"
                "  -s, --subfile-dir DIR  directory of the subfiles (default: from the config file)\n"
                "  -v, --verify           compare the output with the logical file read through the layout\n"
                "  -r, --remove-subfiles  remove subfiles and config after a verified copy (implies --verify)\n"
                "  -i, --in-place         replace the stub with the fused file\n"
                "  -f, --force            replace OUTPUT even if it is the stub of a subfiled file\n"
                "                         (an ordinary OUTPUT is always replaced, once the new one is complete)\n"
                "  -q, --quiet            no progress bar, no summary\n"
                "  -h, --help             this text\n"
                "Exit status: 0 success, 1 failure (OUTPUT untouched), 2 usage error.\n");
}

static bool under_mpiexec(void)
{
    /* The launchers' own variables (Open MPI, PMI, PMIx, MPICH's Hydra). */
    return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_SIZE") || getenv("PMIX_RANK") || getenv("MPI_LOCALNRANKS");
}

/* Everyone learns whether anyone failed (one rank: just the flag). */
static int agree(bool mpi, int failed)
{
    int any = failed;
    if (mpi)
        MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return any;
}

/* Where the output goes: OUTPUT, or OUTPUT/<stub name> for a directory. */
static int resolve_output(const char *input, const char *output, bool in_place, bool force, const char *config_opt,
                          char *dest, size_t n)
{
    struct stat so, si;
    if (in_place) {
        snprintf(dest, n, "%s", input);
        return 0;
    }
    if (stat(output, &so) == 0 && S_ISDIR(so.st_mode)) {
        if (tk_join_basename(output, input, dest, n) < 0) {
            fprintf(stderr, "h5sf-fuse: output path too long\n");
            return -1;
        }
    }
    else
        snprintf(dest, n, "%s", output);
    if (stat(dest, &so) == 0) {
        if (stat(input, &si) == 0 && so.st_dev == si.st_dev && so.st_ino == si.st_ino) {
            tk_print(stderr, "h5sf-fuse: %s is the input stub itself; use --in-place to replace it\n", dest);
            return -1;
        }
        /* A plain file is replaced (only once the new one is complete); the
         * stub of another subfiled file would orphan its subfiles. */
        tk_set_t      other;
        h5sf_errbuf_t eb       = {0};
        int           subfiled = tk_open(&other, dest, tk_config_dir(config_opt), NULL, -1, &eb) == 0;
        tk_close(&other);
        if (subfiled && !force) {
            tk_print(stderr, "h5sf-fuse: %s is the stub of a subfiled file; use --force to replace it anyway\n", dest);
            return -1;
        }
    }
    return 0;
}

/* The temporary's name for the signal handler (rank 0): an interrupted run
 * leaves no temporary behind. */
static char                  sig_tmp[TK_PATH + 64];
static volatile sig_atomic_t sig_armed;

static void on_signal(int sig)
{
    if (sig_armed)
        unlink(sig_tmp);
    signal(sig, SIG_DFL);
    raise(sig);
}

static void arm_cleanup(const char *tmp)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    snprintf(sig_tmp, sizeof sig_tmp, "%s", tmp);
    sig_armed = 1;
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        sigaction(sigs[i], &sa, NULL);
}

/* The furthest end of file the subfiles can stand for: each as long as the
 * longest one, rounded up to a whole stripe, and one more row of stripes
 * (trailing stripes nobody wrote read as zeros).  A superblock that says
 * more is damaged or forged: believing it would size the output from a
 * number anyone can write. */
static uint64_t eof_bound(void)
{
    const uint64_t S       = (uint64_t)G.t.l.stripe_size;
    uint64_t       longest = 0, b;
    for (int s = 0; s < G.t.n; s++)
        if (G.t.size[s] > 0 && (uint64_t)G.t.size[s] > longest)
            longest = (uint64_t)G.t.size[s];
    if (__builtin_mul_overflow(longest / S + 2, S, &b) || __builtin_mul_overflow(b, (uint64_t)G.t.n, &b) ||
        b > H5SF_ADDR_LIMIT)
        return H5SF_ADDR_LIMIT;
    return b;
}

/* Rank 0: the output's name, the input's layout and subfiles, and the
 * logical EOF (G.eof).  0, or 1 after saying why. */
static int check_input(const char *input, const char *output, bool in_place, bool force, const char *config_opt,
                       const char *subfile_dir, char *dest, size_t dn, char *note, size_t nn)
{
    h5sf_errbuf_t eb = {0};
    sb_info_t     sb;
    bool          from_stub;
    if (resolve_output(input, output, in_place, force, config_opt, dest, dn) < 0)
        return 1;
    if (tk_open(&G.t, input, tk_config_dir(config_opt), subfile_dir, O_RDONLY, &eb) < 0) {
        tk_print(stderr, "h5sf-fuse: %s\n", eb.msg);
        return 1;
    }
    for (int s = 0; s < G.t.n; s++)
        if (G.t.size[s] < 0) {
            tk_print(stderr, "h5sf-fuse: subfile %d of %d is %s: %s: %s\n", s + 1, G.t.n,
                     G.t.err[s] == ENOENT ? "missing" : "unusable", G.t.path[s], h5sf_sysio_strerror(G.t.err[s]));
            return 1;
        }
    G.eof = G.t.sub_eof;
    /* The superblock's EOF address covers trailing stripes that were never
     * written (they are zeros in the logical file). */
    if (tk_superblock(&G.t, &sb, &from_stub, &eb) < 0)
        snprintf(note, nn, "note: no usable superblock (%s); output sized from the subfiles", eb.msg);
    else if (sb.hdr.eof > eof_bound()) {
        tk_print(stderr,
                 "h5sf-fuse: %s: the superblock's end of file %" PRIu64 " lies beyond anything the subfiles can "
                 "hold (%" PRIu64 " bytes at most, the subfiles end at %" PRIu64
                 "): the superblock is damaged; nothing written\n",
                 input, sb.hdr.eof, eof_bound(), G.eof);
        return 1;
    }
    else if (sb.hdr.eof > G.eof) {
        snprintf(note, nn,
                 "note: the subfiles end at %" PRIu64 ", the superblock's end of file is %" PRIu64
                 "; the rest reads as zeros",
                 G.eof, sb.hdr.eof);
        G.eof = sb.hdr.eof;
    }
    return 0;
}

int main(int argc, char **argv)
{
    static const struct option opts[]  = {{"threads", required_argument, 0, 't'},
                                          {"config-dir", required_argument, 0, 'c'},
                                          {"subfile-dir", required_argument, 0, 's'},
                                          {"verify", no_argument, 0, 'v'},
                                          {"remove-subfiles", no_argument, 0, 'r'},
                                          {"in-place", no_argument, 0, 'i'},
                                          {"force", no_argument, 0, 'f'},
                                          {"quiet", no_argument, 0, 'q'},
                                          {"help", no_argument, 0, 'h'},
                                          {0, 0, 0, 0}};
    int                        threads = 4, c, rank = 0, nranks = 1, failed = 0;
    bool                       verify = false, remove_sf = false, in_place = false, quiet = false, force = false;
    const char                *config_opt = NULL, *subfile_dir = NULL;
    h5sf_errbuf_t              eb            = {0};
    char                       dest[TK_PATH] = "", tmp[TK_PATH + 64] = "";
    char                       note[1024] = "";

    while ((c = getopt_long(argc, argv, "t:c:s:vrifqh", opts, NULL)) != -1) {
        switch (c) {
            case 't': {
                char *end;
                long  v = strtol(optarg, &end, 10);
                if (*end || v < 1 || v > 256) {
                    tk_print(stderr, "h5sf-fuse: --threads must be 1..256, not '%s'\n", optarg);
                    return 2;
                }
                threads = (int)v;
                break;
            }
            case 'c': config_opt = optarg; break;
            case 's': subfile_dir = optarg; break;
            case 'v': verify = true; break;
            case 'r': remove_sf = verify = true; break;
            case 'i': in_place = true; break;
            case 'f': force = true; break;
            case 'q': quiet = true; break;
            case 'h': usage(stdout); return 0;
            default: usage(stderr); return 2;
        }
    }
    if (argc - optind != (in_place ? 1 : 2)) {
        tk_print(stderr, "h5sf-fuse: %s\n", in_place ? "--in-place takes one file" : "need INPUT and OUTPUT");
        usage(stderr);
        return 2;
    }
    const char *input = argv[optind];
    const bool  mpi   = under_mpiexec();
    G.out             = -1;
    /* Before any thread: the umask, and past RLIMIT_FSIZE a write fails
     * (EFBIG, reported, temporary removed) instead of killing the process. */
    const mode_t um = tk_umask();
    signal(SIGXFSZ, SIG_IGN);
    if (mpi) {
        MPI_Init(&argc, &argv);
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    }
    const bool      show = !quiet && rank == 0 && isatty(STDERR_FILENO);
    struct timespec ts0;
    clock_gettime(CLOCK_MONOTONIC, &ts0);

    /* Rank 0 checks everything and creates the temporary. */
    if (rank == 0 && (failed = check_input(input, in_place ? NULL : argv[optind + 1], in_place, force, config_opt,
                                           subfile_dir, dest, sizeof dest, note, sizeof note)) == 0) {
        snprintf(tmp, sizeof tmp, "%s.h5sf-fuse.%ld", dest, (long)getpid());
        /* 0600 until complete: nobody reads the data through a wider mode
         * meanwhile (the final mode is set before the rename). */
        if ((G.out = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600)) < 0) {
            tk_print(stderr, "h5sf-fuse: cannot create %s: %s\n", tmp, strerror(errno));
            tmp[0] = '\0';
            failed = 1;
        }
        else
            arm_cleanup(tmp);
    }
    if (mpi) {
        MPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD);
        MPI_Bcast(&G.eof, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
        MPI_Bcast(tmp, (int)sizeof tmp, MPI_CHAR, 0, MPI_COMM_WORLD);
        MPI_Bcast(dest, (int)sizeof dest, MPI_CHAR, 0, MPI_COMM_WORLD);
    }
    if (failed)
        goto out;
    if (rank != 0) {
        int bad = 0;
        if (tk_open(&G.t, input, tk_config_dir(config_opt), subfile_dir, O_RDONLY, &eb) < 0) {
            tk_print(stderr, "h5sf-fuse [rank %d]: %s\n", rank, eb.msg);
            bad = 1;
        }
        else if ((G.out = open(tmp, O_RDWR | O_NOFOLLOW | O_CLOEXEC)) < 0) {
            tk_print(stderr, "h5sf-fuse [rank %d]: cannot open %s: %s\n", rank, tmp, strerror(errno));
            bad = 1;
        }
        for (int s = 0; !bad && s < G.t.n; s++)
            bad = G.t.size[s] < 0;
        failed = bad;
    }
    if (agree(mpi, failed))
        goto cleanup;

    if (make_copy_jobs(rank, nranks) < 0) {
        fprintf(stderr, "h5sf-fuse: out of memory\n");
        failed = 1;
    }
    else if (run_pool(threads, true, show) < 0) {
        tk_print(stderr, "h5sf-fuse: %s\n", tk_pool_error());
        failed = 1;
    }
    /* The stripes made the output as long as the data; now the zeros after it. */
    if (!failed && rank == 0 && ftruncate(G.out, (off_t)G.eof) < 0) {
        tk_print(stderr, "h5sf-fuse: cannot size %s to %" PRIu64 " bytes: %s\n", tmp, G.eof, strerror(errno));
        failed = 1;
    }
    if (agree(mpi, failed))
        goto cleanup;
    /* Other processes (maybe on other nodes) verify what this one wrote. */
    if (mpi && fsync(G.out) < 0) {
        tk_print(stderr, "h5sf-fuse [rank %d]: fsync of %s: %s\n", rank, tmp, strerror(errno));
        failed = 1;
    }
    if (agree(mpi, failed))
        goto cleanup;
    if (verify) {
        if (make_verify_jobs(rank, nranks) < 0) {
            fprintf(stderr, "h5sf-fuse: out of memory\n");
            failed = 1;
        }
        else if (run_pool(threads, false, show) < 0) {
            tk_print(stderr, "h5sf-fuse: %s\n", tk_pool_error());
            failed = 1;
        }
        if (agree(mpi, failed))
            goto cleanup;
    }
    if (rank == 0) {
        int fd = G.out;
        G.out  = -1;
        /* Durable before the rename only when the source is going away (as
         * cp, h5fuse and cat, it is not synced otherwise). */
        /* No more open than the stub, any subfile or the umask. */
        if (fchmod(fd, 0666 & ~um & G.t.perm) < 0 || ((remove_sf || in_place) && fsync(fd) < 0) || close(fd) < 0 ||
            rename(tmp, dest) < 0) {
            tk_print(stderr, "h5sf-fuse: cannot finish %s: %s\n", dest, strerror(errno));
            failed = 1;
            goto cleanup;
        }
        sig_armed = 0;
        if (remove_sf) {
            for (int s = 0; s < G.t.n; s++)
                tk_unlink_piece("h5sf-fuse", G.t.path[s], G.t.stub_uid);
            tk_unlink_piece("h5sf-fuse", G.t.config, G.t.stub_uid);
        }
        if (!quiet) {
            struct timespec ts1;
            clock_gettime(CLOCK_MONOTONIC, &ts1);
            double secs = (double)(ts1.tv_sec - ts0.tv_sec) + 1e-9 * (double)(ts1.tv_nsec - ts0.tv_nsec);
            char   h[32];
            if (note[0])
                tk_print(stderr, "h5sf-fuse: %s\n", note);
            tk_print(stdout, "h5sf-fuse: %s: %s (%" PRIu64 " bytes) from %d subfiles in %.2f s (%.0f MiB/s)%s%s\n",
                     dest, tk_human(G.eof, h, sizeof h), G.eof, G.t.n, secs,
                     secs > 0 ? (double)G.eof / 1048576.0 / secs : 0.0, verify ? ", verified" : "",
                     remove_sf ? ", subfiles removed" : "");
        }
    }
cleanup:
    if (G.out >= 0)
        close(G.out);
    if (rank == 0 && failed && tmp[0])
        unlink(tmp);
out:
    tk_close(&G.t);
    free(G.jobs);
    if (mpi) {
        MPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD);
        MPI_Finalize();
    }
    return failed ? 1 : 0;
}
