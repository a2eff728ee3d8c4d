/*
 * h5sf-split -- turn a plain HDF5 file into a subfiled one (stub, config
 * file, subfiles), readable by h5sf and by HDF5's built-in subfiling driver.
 *
 *   h5sf-split [options] INPUT.h5 OUTPUT.h5
 *
 * A byte-level split, the inverse of h5sf-fuse: the input's bytes are dealt
 * into stripes unchanged, except that the superblock gains the subfiling
 * driver info -- a driver-info block (superblock version 0/1) or a new
 * superblock extension holding a driver-info message (version 2/3), placed
 * at the old end of file.  Fusing the result gives back the input plus that
 * block.  The stub gets the superblock (as both drivers mirror it) and is
 * sized to the logical EOF as a sparse file.
 *
 * Stub and subfiles are created O_EXCL through h5sf_sysio_open (a name
 * planted where a subfile goes is refused, never written through), with
 * no permission the input lacks; a failed run removes only what it made.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "settings.h"
#include "stripe.h"
#include "toolkit.h"

#define JOB_BYTES ((uint64_t)64 << 20)

static struct {
    int           in;
    uint64_t      in_eof; /* bytes of the input that belong to the file */
    tk_set_t      t;      /* the output                                 */
    sb_info_t     sb;
    unsigned char sb_new[H5SF_SB_MAX];
    size_t        sb_len;
    unsigned char tail[SB_TAIL_MAX];
    size_t        tail_len;
    uint64_t      out_eof;
    uint64_t     *job_s, *job_off, *job_len;
    size_t        njobs;
    int           stub_fd;
    bool          created_config;
} G;

static ssize_t read_input(void *ctx, uint64_t off, void *buf, size_t len)
{
    (void)ctx;
    return tk_pread(G.in, buf, len, off);
}

/* Input bytes -> subfile s, stripe by stripe. */
static int64_t copy_job(void *arg, size_t i, char *buf)
{
    (void)arg;
    const uint64_t S = (uint64_t)G.t.l.stripe_size;
    const int      s = (int)G.job_s[i];
    for (uint64_t o = G.job_off[i]; o < G.job_off[i] + G.job_len[i] && !tk_pool_failed();) {
        uint64_t in_stripe = o % S, n = S - in_stripe;
        uint64_t laddr = ((o / S) * (uint64_t)G.t.n + (uint64_t)s) * S + in_stripe;
        if (laddr >= G.in_eof)
            break;
        if (n > G.in_eof - laddr)
            n = G.in_eof - laddr;
        int64_t got = tk_copy_range(G.in, laddr, G.t.fd[s], o, n, buf, 2 * TK_POOL_BUF);
        if (got < 0 || (uint64_t)got != n) {
            tk_pool_fail("copy to subfile %d (%s) at offset %" PRIu64 ": %s", s + 1, G.t.path[s], o,
                         got < 0 ? strerror(errno) : "the input ended early");
            return -1;
        }
        o += n;
    }
    return (int64_t)G.job_len[i];
}

/* What the logical output must hold at [off, off+n): the input, the patched
 * superblock, the appended driver info. */
static int expected_bytes(uint64_t off, char *buf, size_t n)
{
    memset(buf, 0, n);
    if (off < G.in_eof) {
        size_t k = G.in_eof - off < n ? (size_t)(G.in_eof - off) : n;
        if (tk_pread(G.in, buf, k, off) != (ssize_t)k)
            return -1;
    }
    const uint64_t       pieces[2][2] = {{G.sb.hdr.sig_off, G.sb_len}, {G.in_eof, G.tail_len}};
    const unsigned char *src[2]       = {G.sb_new, G.tail};
    for (int p = 0; p < 2; p++) {
        uint64_t a = pieces[p][0], len = pieces[p][1];
        for (uint64_t x = a > off ? a : off; x < a + len && x < off + n; x++)
            buf[x - off] = (char)src[p][x - a];
    }
    return 0;
}

static int64_t verify_job(void *arg, size_t i, char *buf)
{
    (void)arg;
    uint64_t off = (uint64_t)i * TK_POOL_BUF;
    size_t   n   = G.out_eof - off < TK_POOL_BUF ? (size_t)(G.out_eof - off) : TK_POOL_BUF;
    if (expected_bytes(off, buf, n) < 0 || tk_read_logical(&G.t, off, buf + TK_POOL_BUF, n) < 0) {
        tk_pool_fail("verify: read error at offset %" PRIu64 ": %s", off, strerror(errno));
        return -1;
    }
    if (memcmp(buf, buf + TK_POOL_BUF, n) != 0) {
        size_t k = 0;
        while (buf[k] == buf[TK_POOL_BUF + k])
            k++;
        tk_pool_fail("verify: the subfiles differ from the input at logical offset %" PRIu64, off + k);
        return -1;
    }
    return (int64_t)n;
}

/* Remove what this run created (an fd: created here, O_EXCL). */
static void undo(const char *stub)
{
    for (int s = 0; G.t.path && G.t.fd && s < G.t.n; s++)
        if (G.t.path[s] && G.t.fd[s] >= 0)
            unlink(G.t.path[s]);
    if (G.created_config)
        unlink(G.t.config);
    if (G.stub_fd >= 0)
        unlink(stub);
}

static void usage(FILE *fp)
{
    fprintf(fp, "usage: h5sf-split [options] INPUT.h5 OUTPUT.h5\n"
                "Turn a plain HDF5 file into a subfiled one (stub OUTPUT.h5, its config file and\n"
                "subfiles) that h5sf and HDF5's built-in subfiling driver read.  OUTPUT may be a\n"
                "directory.  The bytes are striped unchanged; the superblock gains driver info.\n\n"
                "  -S, --stripe-size SIZE  bytes per stripe, suffixes KiB MiB GiB (default: 32MiB)\n"
                "  -n, --stripe-count N    number of subfiles (default: 4)\n"
                "  -s, --subfile-dir DIR   directory of the subfiles (default: OUTPUT's)\n"
                "  -c, --config-dir DIR    directory of the config file (default: $H5SF_CONFIG_DIR,\n"
                "                          $H5FD_SUBFILING_CONFIG_FILE_PREFIX, else OUTPUT's)\n"
                "  -D, --no-driver-info    leave the superblock as it is (the config file alone\n"
                "                          describes the layout; needed for version 2/3 superblocks\n"
                "                          that already have an extension)\n"
                "  -v, --verify            read the result back through the layout and compare\n"
                "  -t, --threads N         copy threads (default: 4)\n"
                "  -f, --force             replace an existing OUTPUT (and its subfiles)\n"
                "  -q, --quiet             no progress bar, no summary\n"
                "  -h, --help              this text\n"
                "Exit status: 0 success, 1 failure (nothing left behind), 2 usage error.\n");
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {{"stripe-size", required_argument, 0, 'S'},
                                         {"stripe-count", required_argument, 0, 'n'},
                                         {"subfile-dir", required_argument, 0, 's'},
                                         {"config-dir", required_argument, 0, 'c'},
                                         {"no-driver-info", no_argument, 0, 'D'},
                                         {"verify", no_argument, 0, 'v'},
                                         {"threads", required_argument, 0, 't'},
                                         {"force", no_argument, 0, 'f'},
                                         {"quiet", no_argument, 0, 'q'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    int64_t                    stripe = H5SF_DEFAULT_STRIPE_SIZE;
    int32_t                    count = 4, threads = 4;
    bool                       no_drv = false, verify = false, force = false, quiet = false;
    const char                *subfile_dir = NULL, *config_opt = NULL;
    h5sf_errbuf_t              eb = {0};
    char                       out[TK_PATH], h[32];
    int                        c, ret = 1;

    while ((c = getopt_long(argc, argv, "S:n:s:c:Dvt:fqh", opts, NULL)) != -1) {
        switch (c) {
            case 'S':
                if (h5sf_parse_size(optarg, &stripe, &eb, "--stripe-size") < 0 || stripe <= 0) {
                    tk_print(stderr, "h5sf-split: %s\n", eb.msg[0] ? eb.msg : "--stripe-size must be positive");
                    return 2;
                }
                break;
            case 'n':
                if (h5sf_parse_int(optarg, 1, H5SF_MAX_STRIPE_COUNT, &count, &eb, "--stripe-count") < 0) {
                    tk_print(stderr, "h5sf-split: %s\n", eb.msg);
                    return 2;
                }
                break;
            case 't':
                if (h5sf_parse_int(optarg, 1, 256, &threads, &eb, "--threads") < 0) {
                    tk_print(stderr, "h5sf-split: %s\n", eb.msg);
                    return 2;
                }
                break;
            case 's': subfile_dir = optarg; break;
            case 'c': config_opt = optarg; break;
            case 'D': no_drv = true; break;
            case 'v': verify = true; break;
            case 'f': force = true; break;
            case 'q': quiet = true; break;
            case 'h': usage(stdout); return 0;
            default: usage(stderr); return 2;
        }
    }
    if (argc - optind != 2) {
        fprintf(stderr, "h5sf-split: need INPUT and OUTPUT\n");
        usage(stderr);
        return 2;
    }
    const char *input = argv[optind], *config_dir = tk_config_dir(config_opt);
    const bool  show = !quiet && isatty(STDERR_FILENO);
    G.in             = -1;
    G.stub_fd        = -1;

    /* The input: a plain HDF5 file. */
    struct stat si, so;
    if ((G.in = tk_open_stub(input, O_RDONLY, &si)) < 0) {
        tk_print(stderr, "h5sf-split: %s: %s\n", input, h5sf_sysio_strerror(errno));
        return 1;
    }
    const mode_t perm = 0666 & ~tk_umask() & si.st_mode; /* never more open than the input */
    {
        tk_set_t probe;
        if (tk_open(&probe, input, config_dir, NULL, -1, &eb) == 0) {
            tk_print(stderr, "h5sf-split: %s is already a subfiled file (config %s); fuse it first\n", input,
                     probe.config);
            tk_close(&probe);
            return 1;
        }
        tk_close(&probe);
    }
    if (sb_read(read_input, NULL, (uint64_t)si.st_size, &G.sb, &eb) < 0) {
        tk_print(stderr, "h5sf-split: %s is not a readable HDF5 file: %s\n", input, eb.msg);
        return 1;
    }
    if (G.sb.has_drvinfo) {
        tk_print(stderr, "h5sf-split: %s carries driver info for \"%s\"%s; only plain (sec2) files can be split\n",
                 input, G.sb.drv_name,
                 strcmp(G.sb.drv_name, "Subfilin") == 0 ? " (a stub whose config file is elsewhere?)" : "");
        return 1;
    }
    G.in_eof = G.sb.hdr.eof;
    if ((uint64_t)si.st_size < G.in_eof) {
        tk_print(stderr, "h5sf-split: %s is truncated: %" PRIu64 " bytes, its superblock says %" PRIu64 "\n", input,
                 (uint64_t)si.st_size, G.in_eof);
        return 1;
    }
    if (G.sb.hdr.status_flags && !quiet)
        tk_print(stderr, "h5sf-split: warning: %s is marked as open for writing (superblock flags 0x%x)\n", input,
                 G.sb.hdr.status_flags);

    /* The output's name and layout. */
    if (stat(argv[optind + 1], &so) == 0 && S_ISDIR(so.st_mode)) {
        if (tk_join_basename(argv[optind + 1], input, out, sizeof out) < 0) {
            fprintf(stderr, "h5sf-split: output path too long\n");
            return 1;
        }
    }
    else
        snprintf(out, sizeof out, "%s", argv[optind + 1]);
    if (stat(out, &so) == 0) {
        if (so.st_dev == si.st_dev && so.st_ino == si.st_ino) {
            fprintf(stderr, "h5sf-split: INPUT and OUTPUT are the same file\n");
            return 1;
        }
        if (!force) {
            tk_print(stderr, "h5sf-split: %s exists (use --force to replace it)\n", out);
            return 1;
        }
        if (tk_remove_file("h5sf-split", out, config_dir, &eb) < 0) {
            tk_print(stderr, "h5sf-split: %s\n", eb.msg);
            return 1;
        }
    }
    h5sf_layout_t *l = &G.t.l;
    if (h5sf_layout_set_stub(l, out, &eb) < 0) {
        tk_print(stderr, "h5sf-split: %s\n", eb.msg);
        return 1;
    }
    l->stripe_size  = stripe;
    l->stripe_count = count;
    l->ioc_count    = 1; /* no I/O concentrator wrote it; 1 is what the drivers expect as a minimum */
    if (tk_abs_dir(config_dir, l->config_dir, sizeof l->config_dir, "config directory", &eb) < 0 ||
        tk_abs_dir(subfile_dir, l->subfile_dir, sizeof l->subfile_dir, "--subfile-dir", &eb) < 0) {
        tk_print(stderr, "h5sf-split: %s\n", eb.msg);
        return 1;
    }

    /* Superblock with driver info, and the block to append. */
    if (no_drv)
        memcpy(G.sb_new, G.sb.raw, G.sb_len = G.sb.hdr.len);
    else {
        unsigned char info[SB_DRVINFO_MAX];
        char          name[9];
        if (h5sf_drvinfo_size(l) > sizeof info || h5sf_drvinfo_encode(l, name, info) < 0 ||
            sb_add_drvinfo(&G.sb, name, info, h5sf_drvinfo_size(l), G.sb_new, &G.sb_len, G.tail, &G.tail_len, &eb) <
                0) {
            tk_print(stderr, "h5sf-split: %s: %s%s\n", input, eb.msg[0] ? eb.msg : "cannot encode the driver info",
                     eb.err_no == ENOTSUP ? " (use --no-driver-info)" : "");
            return 1;
        }
    }
    G.out_eof = G.in_eof + G.tail_len;

    /* Create: stub (for its inode), subfiles, config. */
    if ((G.stub_fd = h5sf_sysio_open(out, O_RDWR | O_CREAT | O_EXCL, -1)) < 0) {
        tk_print(stderr, "h5sf-split: cannot create %s: %s\n", out, h5sf_sysio_strerror(errno));
        return 1;
    }
    if (fchmod(G.stub_fd, perm) < 0 || fstat(G.stub_fd, &so) < 0) {
        tk_print(stderr, "h5sf-split: cannot create %s: %s\n", out, strerror(errno));
        goto fail;
    }
    l->inode = (uint64_t)so.st_ino;
    if (tk_alloc(&G.t, &eb) < 0) {
        tk_print(stderr, "h5sf-split: %s\n", eb.msg);
        goto fail;
    }
    for (int s = 0; s < count; s++) {
        uint64_t size = sf_subfile_size(G.out_eof, (uint64_t)stripe, count, s);
        if ((G.t.fd[s] = h5sf_sysio_open(G.t.path[s], O_RDWR | O_CREAT | O_EXCL, -1)) < 0) {
            tk_print(stderr, "h5sf-split: cannot create subfile %s: %s%s\n", G.t.path[s], h5sf_sysio_strerror(errno),
                     errno == EEXIST ? " (left from an earlier file whose stub had this inode? see h5sf-orphans)" : "");
            goto fail;
        }
        if (fchmod(G.t.fd[s], perm) < 0 || ftruncate(G.t.fd[s], (off_t)size) < 0) {
            tk_print(stderr, "h5sf-split: cannot create subfile %s: %s\n", G.t.path[s], strerror(errno));
            goto fail;
        }
        G.t.size[s] = (int64_t)size;
    }

    /* Jobs: each subfile in ranges of whole stripes. */
    const uint64_t jb  = JOB_BYTES < (uint64_t)stripe ? JOB_BYTES : (JOB_BYTES / (uint64_t)stripe) * (uint64_t)stripe;
    size_t         cap = 0;
    for (uint64_t o = 0; o < (uint64_t)G.t.size[0]; o += jb)
        for (int s = 0; s < count; s++) {
            if (o >= (uint64_t)G.t.size[s])
                continue;
            if (G.njobs == cap) {
                cap       = cap ? 2 * cap : 64;
                G.job_s   = realloc(G.job_s, cap * sizeof *G.job_s);
                G.job_off = realloc(G.job_off, cap * sizeof *G.job_off);
                G.job_len = realloc(G.job_len, cap * sizeof *G.job_len);
                if (!G.job_s || !G.job_off || !G.job_len) {
                    fprintf(stderr, "h5sf-split: out of memory\n");
                    goto fail;
                }
            }
            uint64_t left      = (uint64_t)G.t.size[s] - o;
            G.job_s[G.njobs]   = (uint64_t)s;
            G.job_off[G.njobs] = o;
            G.job_len[G.njobs] = left < jb ? left : jb;
            G.njobs++;
        }
    if (tk_pool_run(threads, G.njobs, copy_job, NULL, G.out_eof, show ? "split" : NULL) < 0) {
        tk_print(stderr, "h5sf-split: %s\n", tk_pool_error());
        goto fail;
    }
    /* The new superblock and driver info, in the subfiles and mirrored in the stub. */
    if (tk_write_logical(&G.t, G.sb.hdr.sig_off, G.sb_new, G.sb_len) < 0 ||
        tk_write_logical(&G.t, G.in_eof, G.tail, G.tail_len) < 0) {
        tk_print(stderr, "h5sf-split: cannot write the superblock to the subfiles: %s\n", strerror(errno));
        goto fail;
    }
    if (tk_pwrite(G.stub_fd, G.sb_new, G.sb_len, G.sb.hdr.sig_off) < 0 ||
        (G.sb.hdr.version <= 1 && G.tail_len && tk_pwrite(G.stub_fd, G.tail, G.tail_len, G.in_eof) < 0) ||
        ftruncate(G.stub_fd, (off_t)G.out_eof) < 0) {
        tk_print(stderr, "h5sf-split: cannot write the stub %s: %s\n", out, strerror(errno));
        goto fail;
    }
    if (h5sf_config_file_write(l, &eb) < 0) {
        tk_print(stderr, "h5sf-split: %s\n", eb.msg);
        goto fail;
    }
    G.created_config = true;
    if (verify && tk_pool_run(threads, (size_t)((G.out_eof + TK_POOL_BUF - 1) / TK_POOL_BUF), verify_job, NULL,
                              G.out_eof, show ? "verify" : NULL) < 0) {
        tk_print(stderr, "h5sf-split: %s\n", tk_pool_error());
        goto fail;
    }
    for (int s = 0; s < count; s++)
        if (fsync(G.t.fd[s]) < 0) {
            tk_print(stderr, "h5sf-split: fsync of %s: %s\n", G.t.path[s], strerror(errno));
            goto fail;
        }
    if (fsync(G.stub_fd) < 0) {
        tk_print(stderr, "h5sf-split: fsync of %s: %s\n", out, strerror(errno));
        goto fail;
    }
    if (!quiet)
        tk_print(stdout,
                 "h5sf-split: %s: %s (%" PRIu64 " bytes) in %d subfiles of %" PRId64
                 "-byte stripes, driver info %s%s\n",
                 out, tk_human(G.out_eof, h, sizeof h), G.out_eof, count, stripe,
                 no_drv ? "not added" : (G.sb.hdr.version <= 1 ? "block added" : "added in a new superblock extension"),
                 verify ? ", verified" : "");
    ret = 0;
    goto done;
fail:
    undo(out);
done:
    if (G.stub_fd >= 0)
        close(G.stub_fd);
    close(G.in);
    tk_close(&G.t);
    free(G.job_s);
    free(G.job_off);
    free(G.job_len);
    return ret;
}
