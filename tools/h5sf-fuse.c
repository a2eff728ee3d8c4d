/*
 * h5sf-fuse -- reassemble a subfiled HDF5 file into one ordinary file.
 *
 *   h5sf-fuse [options] INPUT.h5 OUTPUT.h5
 *   h5sf-fuse [options] --in-place INPUT.h5
 *
 * The layout comes from the config file next to the stub.  Work is cut into
 * jobs of whole stripes of one subfile; a pool of libuv threads copies them
 * with copy_file_range (falling back to pread/pwrite), so large stripes move
 * without passing through user space.  Holes and missing trailing stripes
 * stay zero because the output is first sized to the logical EOF.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <uv.h>
#include "layout.h"
#include "stripe.h"

#define JOB_BYTES ((uint64_t)64 << 20) /* per job: a few stripes or part of one */

typedef struct job {
    int      s;          /* subfile                          */
    uint64_t off, len;   /* range inside the subfile         */
} job_t;

static struct {
    h5sf_layout_t   l;
    int            *in;       /* subfile fds (-1: missing)       */
    uint64_t       *size;     /* subfile sizes                    */
    int             out;
    uint64_t        eof;
    job_t          *jobs;
    size_t          njobs;
    atomic_size_t   next;
    atomic_uint_fast64_t done_bytes;
    atomic_int      failed;
    char            err[1024];
    uv_mutex_t      lock;
    bool            verify;
} G;

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...)
{
    va_list ap;
    uv_mutex_lock(&G.lock);
    if (!atomic_exchange(&G.failed, 1)) {
        va_start(ap, fmt);
        vsnprintf(G.err, sizeof G.err, fmt, ap);
        va_end(ap);
    }
    uv_mutex_unlock(&G.lock);
}

/* Copy len bytes in -> out; copy_file_range when the kernel can. */
static int copy_range(int in, uint64_t ioff, int out, uint64_t ooff, uint64_t len, char *buf, size_t bufsz)
{
    static atomic_int no_cfr;
    while (len > 0) {
        ssize_t n = -1;
        if (!atomic_load(&no_cfr)) {
            loff_t a = (loff_t)ioff, b = (loff_t)ooff;
            n = copy_file_range(in, &a, out, &b, len, 0);
            if (n < 0 && (errno == EXDEV || errno == ENOSYS || errno == EINVAL || errno == EOPNOTSUPP)) {
                atomic_store(&no_cfr, 1);
                continue;
            }
        }
        else {
            size_t want = len < bufsz ? (size_t)len : bufsz;
            n = pread(in, buf, want, (off_t)ioff);
            if (n > 0) {
                ssize_t w = 0;
                while (w < n) {
                    ssize_t k = pwrite(out, buf + w, (size_t)(n - w), (off_t)(ooff + (uint64_t)w));
                    if (k < 0 && errno == EINTR)
                        continue;
                    if (k <= 0)
                        return -1;
                    w += k;
                }
            }
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        if (n == 0)
            return 0; /* short subfile: the rest stays zero */
        ioff += (uint64_t)n;
        ooff += (uint64_t)n;
        len -= (uint64_t)n;
    }
    return 0;
}

/* Compare the output with the logical file read through the layout. */
static int verify_range(const job_t *j, char *a, char *b, size_t bufsz)
{
    const uint64_t S = (uint64_t)G.l.stripe_size;
    const int      N = G.l.stripe_count;
    for (uint64_t o = j->off; o < j->off + j->len;) {
        uint64_t row = o / S, in_stripe = o % S;
        uint64_t laddr = (row * (uint64_t)N + (uint64_t)j->s) * S + in_stripe;
        uint64_t n = S - in_stripe;
        if (n > j->off + j->len - o) n = j->off + j->len - o;
        if (n > bufsz) n = bufsz;
        memset(a, 0, n);
        if (G.in[j->s] >= 0 && o < G.size[j->s]) {
            uint64_t avail = G.size[j->s] - o < n ? G.size[j->s] - o : n;
            if (pread(G.in[j->s], a, avail, (off_t)o) != (ssize_t)avail)
                return -1;
        }
        if (pread(G.out, b, n, (off_t)laddr) != (ssize_t)n || memcmp(a, b, n) != 0) {
            fail("verify: output differs from subfile %d at subfile offset %" PRIu64 " (logical %" PRIu64 ")",
                 j->s + 1, o, laddr);
            return -1;
        }
        o += n;
    }
    return 0;
}

static void worker(void *arg)
{
    (void)arg;
    const uint64_t S = (uint64_t)G.l.stripe_size;
    const int      N = G.l.stripe_count;
    size_t bufsz = 8u << 20;
    char  *buf = malloc(bufsz), *buf2 = G.verify ? malloc(bufsz) : NULL;
    if (!buf || (G.verify && !buf2)) {
        fail("out of memory");
        goto out;
    }
    for (;;) {
        size_t i = atomic_fetch_add(&G.next, 1);
        if (i >= G.njobs || atomic_load(&G.failed))
            break;
        job_t *j = &G.jobs[i];
        if (G.verify) {
            if (verify_range(j, buf, buf2, bufsz) < 0 && !atomic_load(&G.failed))
                fail("verify: read error: %s", strerror(errno));
        }
        else if (G.in[j->s] >= 0) {
            /* stripe by stripe: consecutive subfile stripes are N*S apart in the output */
            for (uint64_t o = j->off; o < j->off + j->len && o < G.size[j->s];) {
                uint64_t row = o / S, in_stripe = o % S;
                uint64_t n = S - in_stripe;
                if (n > j->off + j->len - o) n = j->off + j->len - o;
                uint64_t laddr = (row * (uint64_t)N + (uint64_t)j->s) * S + in_stripe;
                if (laddr >= G.eof) break;
                if (laddr + n > G.eof) n = G.eof - laddr;
                if (copy_range(G.in[j->s], o, G.out, laddr, n, buf, bufsz) < 0) {
                    fail("copy from subfile %d at offset %" PRIu64 ": %s", j->s + 1, o, strerror(errno));
                    break;
                }
                o += n;
            }
        }
        atomic_fetch_add(&G.done_bytes, j->len);
    }
out:
    free(buf);
    free(buf2);
}

static void usage(FILE *fp)
{
    fprintf(fp,
            "usage: h5sf-fuse [options] INPUT.h5 OUTPUT.h5\n"
            "       h5sf-fuse [options] --in-place INPUT.h5\n"
            "Reassemble an h5sf (or HDF5 built-in subfiling) file into one ordinary HDF5 file.\n\n"
            "  -t, --threads N        copy threads (default: 4)\n"
            "  -c, --config-dir DIR   directory of the .config file (default: the stub's)\n"
            "  -s, --subfile-dir DIR  directory of the subfiles (default: from the config file)\n"
            "  -v, --verify           compare the output with the logical file afterwards\n"
            "  -r, --remove-subfiles  remove subfiles and config after a verified copy (implies --verify)\n"
            "  -i, --in-place         replace the stub with the fused file\n"
            "  -q, --quiet            no progress bar\n"
            "  -h, --help             this text\n");
}

static void progress(const char *what, uint64_t total, bool show)
{
    if (!show)
        return;
    uint64_t d = atomic_load(&G.done_bytes);
    int pct = total ? (int)(d * 100 / total) : 100;
    fprintf(stderr, "\r%-8s [%-40.*s] %3d%%", what, pct * 40 / 100, "########################################", pct);
}

static int run_pool(int threads, const char *what, uint64_t total, bool show)
{
    uv_thread_t *t = calloc((size_t)threads, sizeof *t);
    atomic_store(&G.next, 0);
    atomic_store(&G.done_bytes, 0);
    for (int i = 0; i < threads; i++)
        uv_thread_create(&t[i], worker, NULL);
    if (show) {
        while (atomic_load(&G.next) < G.njobs && !atomic_load(&G.failed)) {
            progress(what, total, true);
            uv_sleep(200);
        }
    }
    for (int i = 0; i < threads; i++)
        uv_thread_join(&t[i]);
    progress(what, total, show);
    if (show)
        fputc('\n', stderr);
    free(t);
    return atomic_load(&G.failed) ? -1 : 0;
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"threads", required_argument, 0, 't'}, {"config-dir", required_argument, 0, 'c'},
        {"subfile-dir", required_argument, 0, 's'}, {"verify", no_argument, 0, 'v'},
        {"remove-subfiles", no_argument, 0, 'r'}, {"in-place", no_argument, 0, 'i'},
        {"quiet", no_argument, 0, 'q'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    int threads = 4, c;
    bool verify = false, remove_sf = false, in_place = false, quiet = false;
    const char *config_dir = "", *subfile_dir = NULL;
    h5sf_errbuf_t eb = {0};
    char path[2 * H5SF_LAYOUT_PATH_MAX], tmp[2 * H5SF_LAYOUT_PATH_MAX];

    while ((c = getopt_long(argc, argv, "t:c:s:vriqh", opts, NULL)) != -1) {
        switch (c) {
            case 't': threads = atoi(optarg); if (threads < 1 || threads > 256) { fprintf(stderr, "h5sf-fuse: bad --threads '%s'\n", optarg); return 2; } break;
            case 'c': config_dir = optarg; break;
            case 's': subfile_dir = optarg; break;
            case 'v': verify = true; break;
            case 'r': remove_sf = verify = true; break;
            case 'i': in_place = true; break;
            case 'q': quiet = true; break;
            case 'h': usage(stdout); return 0;
            default: usage(stderr); return 2;
        }
    }
    if (argc - optind != (in_place ? 1 : 2)) {
        usage(stderr);
        return 2;
    }
    const char *input = argv[optind], *output = in_place ? NULL : argv[optind + 1];
    uv_mutex_init(&G.lock);

    struct stat st;
    if (stat(input, &st) < 0) {
        fprintf(stderr, "h5sf-fuse: %s: %s\n", input, strerror(errno));
        return 1;
    }
    if (h5sf_layout_set_stub(&G.l, input, &eb) < 0) goto layout_err;
    G.l.inode = (uint64_t)st.st_ino;
    snprintf(G.l.config_dir, sizeof G.l.config_dir, "%s", config_dir);
    if (h5sf_config_file_read(&G.l, &eb) < 0) goto layout_err;
    if (subfile_dir)
        snprintf(G.l.subfile_dir, sizeof G.l.subfile_dir, "%s", subfile_dir);

    const int N = G.l.stripe_count;
    const uint64_t S = (uint64_t)G.l.stripe_size;
    G.in = calloc((size_t)N, sizeof *G.in);
    G.size = calloc((size_t)N, sizeof *G.size);
    for (int s = 0; s < N; s++) {
        if (h5sf_subfile_path(&G.l, s, path, sizeof path, &eb) < 0) goto layout_err;
        G.in[s] = open(path, O_RDONLY | O_CLOEXEC);
        if (G.in[s] < 0) {
            fprintf(stderr, "h5sf-fuse: subfile %d of %d missing: %s: %s\n", s + 1, N, path, strerror(errno));
            return 1;
        }
        struct stat ss;
        fstat(G.in[s], &ss);
        G.size[s] = (uint64_t)ss.st_size;
    }
    G.eof = sf_logical_eof(G.size, S, N);

    /* Output: a temp file next to the destination, renamed when complete. */
    const char *dest = in_place ? input : output;
    snprintf(tmp, sizeof tmp, "%s.h5sf-fuse.%d", dest, (int)getpid());
    if ((G.out = open(tmp, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0666)) < 0 || ftruncate(G.out, (off_t)G.eof) < 0) {
        fprintf(stderr, "h5sf-fuse: cannot create %s: %s\n", tmp, strerror(errno));
        return 1;
    }
    /* Jobs: each subfile cut into JOB_BYTES ranges (whole stripes when stripes are small). */
    uint64_t jb = JOB_BYTES < S ? JOB_BYTES : (JOB_BYTES / S) * S;
    size_t cap = 0;
    for (int s = 0; s < N; s++)
        for (uint64_t o = 0; o < G.size[s]; o += jb) {
            if (G.njobs == cap) {
                cap = cap ? 2 * cap : 64;
                G.jobs = realloc(G.jobs, cap * sizeof *G.jobs);
            }
            G.jobs[G.njobs++] = (job_t){s, o, G.size[s] - o < jb ? G.size[s] - o : jb};
        }
    bool show = !quiet && isatty(STDERR_FILENO);
    if (run_pool(threads, "fuse", G.eof, show) < 0)
        goto copy_err;
    if (verify) {
        G.verify = true;
        if (run_pool(threads, "verify", G.eof, show) < 0)
            goto copy_err;
    }
    if (fsync(G.out) < 0 || close(G.out) < 0 || rename(tmp, dest) < 0) {
        fprintf(stderr, "h5sf-fuse: cannot finish %s: %s\n", dest, strerror(errno));
        unlink(tmp);
        return 1;
    }
    if (remove_sf) {
        for (int s = 0; s < N; s++)
            if (h5sf_subfile_path(&G.l, s, path, sizeof path, &eb) == 0)
                unlink(path);
        if (h5sf_config_path(&G.l, path, sizeof path, &eb) == 0)
            unlink(path);
    }
    if (!quiet)
        printf("h5sf-fuse: %s: %" PRIu64 " bytes from %d subfiles%s\n", dest, G.eof, N, verify ? " (verified)" : "");
    return 0;

layout_err:
    fprintf(stderr, "h5sf-fuse: %s\n", eb.msg);
    return 1;
copy_err:
    fprintf(stderr, "\nh5sf-fuse: %s\n", G.err);
    unlink(tmp);
    return 1;
}
