/*
 * h5sf-info -- describe a subfiled HDF5 file and check that its pieces fit.
 *
 *   h5sf-info [options] FILE.h5...
 *
 * Prints the layout (stripe size and count, IOCs at write time, every
 * subfile with its size and the size the logical EOF implies, the logical
 * EOF) and checks consistency: stub, config file, missing / short / extra
 * subfiles, the superblock and its driver info against the config file.
 * Reads bytes only (no HDF5, no MPI), so it can describe a file HDF5 cannot
 * open.  Exit status: 0 healthy, 1 problems found, 2 usage error.
 *
 * Everything it prints that comes from the files (names, config values,
 * the driver name) goes through tk_print/tk_escape: a name in a shared
 * directory cannot drive the terminal.  It opens the stub, the config file
 * and the subfiles through h5sf_sysio_open only (no FIFO blocks it, no
 * symlinked subfile is followed), and writes, creates or deletes nothing.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "stripe.h"
#include "toolkit.h"

typedef struct issue {
    bool warning; /* warnings do not make the file unhealthy */
    char kind[32];
    char msg[1200];
} issue_t;

typedef struct report {
    const char   *file;
    bool          stub_ok, layout_ok, sb_ok, drv_present, drv_ok;
    uint64_t      inode;
    tk_set_t      t;
    sb_info_t     sb;
    bool          sb_from_stub;
    h5sf_layout_t drv;
    uint64_t      eof;
    uint64_t     *expected;
    char          hdf5_file[TK_PATH]; /* the config's hdf5_file= line */
    issue_t      *issues;
    int           nissues;
    char        **extra;
    int           nextra;
} report_t;

static void add_issue(report_t *r, bool warning, const char *kind, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void add_issue(report_t *r, bool warning, const char *kind, const char *fmt, ...)
{
    issue_t *p = realloc(r->issues, (size_t)(r->nissues + 1) * sizeof *p);
    if (!p)
        return;
    r->issues  = p;
    issue_t *i = &p[r->nissues++];
    i->warning = warning;
    snprintf(i->kind, sizeof i->kind, "%s", kind);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(i->msg, sizeof i->msg, fmt, ap);
    va_end(ap);
}

static int problems(const report_t *r)
{
    int n = 0;
    for (int i = 0; i < r->nissues; i++)
        n += !r->issues[i].warning;
    return n;
}

/* Files named like this file's subfiles that the layout does not list, and
 * leftovers of other files (other inodes) with the same base name. */
static void scan_dir(report_t *r, const char *dir, bool subfiles)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *de;
    int            stale       = 0;
    uint64_t       stale_inode = 0;
    while ((de = readdir(d))) {
        uint64_t ino;
        long     nn = 0, m = 0;
        int      k = tk_classify_name(de->d_name, r->t.l.base, &ino, &nn, &m);
        if (k == TK_NAME_OTHER || (k == TK_NAME_SUBFILE) != subfiles)
            continue;
        if (ino != r->inode) {
            stale++;
            stale_inode = ino;
            continue;
        }
        if (k == TK_NAME_SUBFILE && (m != r->t.n || nn < 1 || nn > r->t.n)) {
            char **p = realloc(r->extra, (size_t)(r->nextra + 1) * sizeof *p);
            if (!p)
                break;
            r->extra   = p;
            size_t len = strlen(dir) + strlen(de->d_name) + 2;
            if ((r->extra[r->nextra] = malloc(len)))
                snprintf(r->extra[r->nextra++], len, "%s/%s", dir, de->d_name);
        }
    }
    closedir(d);
    if (stale)
        add_issue(r, true, "stale_files",
                  "%d file%s in %s belong%s to another file named %s (inode %" PRIu64 "%s): left over from an "
                  "earlier file, or copied without h5sf-mv",
                  stale, stale > 1 ? "s" : "", dir, stale > 1 ? "" : "s", r->t.l.base, stale_inode,
                  stale > 1 ? " or others" : "");
}

/* No config file for this inode: say what is there instead. */
static void explain_no_config(report_t *r, const char *dir, const char *why)
{
    DIR           *d = opendir(dir);
    struct dirent *de;
    char           renamed[1200] = "", copied[1200] = "";
    char           tag[64];
    snprintf(tag, sizeof tag, ".subfile_%" PRIu64 ".config", r->inode);
    while (d && (de = readdir(d))) {
        size_t   n = strlen(de->d_name), tl = strlen(tag);
        uint64_t ino;
        long     nn, m;
        if (n > tl && strcmp(de->d_name + n - tl, tag) == 0 && !renamed[0])
            snprintf(renamed, sizeof renamed,
                     " %.400s/%.300s is this stub's config under another name: the stub was renamed "
                     "without h5sf-mv.",
                     dir, de->d_name);
        else if (tk_classify_name(de->d_name, r->t.l.base, &ino, &nn, &m) == TK_NAME_CONFIG && !copied[0])
            snprintf(copied, sizeof copied,
                     " %.400s/%.300s belongs to inode %" PRIu64 ": the stub was copied or moved "
                     "without h5sf-mv (the subfile names contain the stub's inode).",
                     dir, de->d_name, ino);
    }
    if (d)
        closedir(d);
    add_issue(r, false, "no_config", "%s%s%s%s", why, renamed, copied,
              renamed[0] || copied[0] ? ""
                                      : " (not a subfiled file, or its config file is in another directory: "
                                        "see --config-dir)");
}

/* The hdf5_file= line, which the layout parser does not keep. */
static void read_hdf5_file_line(report_t *r)
{
    int   fd = h5sf_sysio_open(r->t.config, O_RDONLY, -1);
    FILE *f  = fd >= 0 ? fdopen(fd, "r") : NULL;
    if (fd >= 0 && !f)
        close(fd);
    char line[TK_PATH + 16];
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "hdf5_file=", 10) == 0) {
            line[strcspn(line, "\r\n")] = '\0';
            snprintf(r->hdf5_file, sizeof r->hdf5_file, "%.*s", (int)sizeof r->hdf5_file - 1, line + 10);
            break;
        }
    if (f)
        fclose(f);
}

/* Both drivers mirror superblock writes into the stub; a stub whose copy
 * differs was overwritten or belongs to another file. */
static void check_stub_copy(report_t *r)
{
    unsigned char buf[H5SF_SB_MAX];
    if (r->sb_from_stub || r->t.stub_size < r->sb.hdr.sig_off + r->sb.hdr.len)
        return;
    int fd = tk_open_stub(r->file, O_RDONLY, NULL);
    if (fd < 0)
        return;
    ssize_t n = tk_pread(fd, buf, r->sb.hdr.len, r->sb.hdr.sig_off);
    close(fd);
    if (n == (ssize_t)r->sb.hdr.len && memcmp(buf, r->sb.raw, r->sb.hdr.len) != 0)
        add_issue(r, true, "stub_differs",
                  "the superblock copy in the stub differs from the superblock in the subfiles (the stub was "
                  "overwritten?); readers use the subfiles' copy");
}

static void inspect(report_t *r, const char *file, const char *config_dir, const char *subfile_dir)
{
    h5sf_errbuf_t eb = {0};
    struct stat   st;
    memset(r, 0, sizeof *r);
    r->file = file;
    if (stat(file, &st) < 0) {
        add_issue(r, false, "no_stub", "cannot find the stub %s: %s", file, strerror(errno));
        return;
    }
    if (!S_ISREG(st.st_mode)) {
        add_issue(r, false, "no_stub", "the stub %s is not a regular file", file);
        return;
    }
    r->stub_ok = true;
    r->inode   = (uint64_t)st.st_ino;
    if (tk_open(&r->t, file, config_dir, subfile_dir, O_RDONLY, &eb) < 0) {
        if (eb.err_no == ENOENT && r->t.config[0]) {
            const char *slash = strrchr(r->t.config, '/');
            char        dir[TK_PATH];
            snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - r->t.config) : 1, slash ? r->t.config : ".");
            explain_no_config(r, dir, eb.msg);
        }
        else
            add_issue(r, false, "bad_config", "%s", eb.msg);
        return;
    }
    r->layout_ok = true;
    read_hdf5_file_line(r);
    const uint64_t S = (uint64_t)r->t.l.stripe_size;
    const int      N = r->t.n;

    /* The superblock, and the driver info in it. */
    if (tk_superblock(&r->t, &r->sb, &r->sb_from_stub, &eb) < 0)
        add_issue(r, false, "bad_superblock", "superblock of the logical file%s: %s",
                  r->sb_from_stub ? " (read from the stub: subfile 1 is missing)" : "", eb.msg);
    else {
        r->sb_ok = true;
        if (r->sb.hdr.status_flags)
            add_issue(r, true, "open_for_write",
                      "the superblock marks the file as open for writing (flags 0x%x): a writer crashed or still "
                      "runs (h5clear -s clears the mark)",
                      r->sb.hdr.status_flags);
        check_stub_copy(r);
        if (!r->sb.has_drvinfo)
            add_issue(r, true, "no_driver_info",
                      "the superblock has no driver info; the layout is known from the config file only "
                      "(both h5sf and the built-in driver accept this)");
        else {
            r->drv_present = true;
            if (h5sf_drvinfo_decode(r->sb.drv_name, r->sb.drv_buf, r->sb.drv_len, &r->drv, &eb) < 0)
                add_issue(r, false, "bad_driver_info", "superblock driver info: %s", eb.msg);
            else {
                r->drv_ok = true;
                if (r->drv.stripe_size != r->t.l.stripe_size || r->drv.stripe_count != r->t.l.stripe_count)
                    add_issue(r, false, "driver_info_mismatch",
                              "config file %s (stripe size %" PRId64 ", %d subfiles) disagrees with the superblock's "
                              "driver info (stripe size %" PRId64 ", %" PRId32 " subfiles)",
                              r->t.config, r->t.l.stripe_size, N, r->drv.stripe_size, r->drv.stripe_count);
            }
        }
    }

    /* Sizes: what the logical EOF implies against what is there. */
    r->eof = r->t.sub_eof;
    if (r->sb_ok && r->sb.hdr.eof > r->eof)
        r->eof = r->sb.hdr.eof;
    r->expected = calloc((size_t)N, sizeof *r->expected);
    for (int s = 0; r->expected && s < N; s++) {
        r->expected[s] = sf_subfile_size(r->eof, S, N, s);
        if (r->t.size[s] < 0 && r->t.err[s] == ENOENT)
            add_issue(r, false, "missing_subfile", "subfile %d of %d is missing: %s: %s", s + 1, N, r->t.path[s],
                      strerror(r->t.err[s]));
        else if (r->t.size[s] < 0)
            add_issue(r, false, "bad_subfile", "subfile %d of %d cannot be used: %s: %s", s + 1, N, r->t.path[s],
                      h5sf_sysio_strerror(r->t.err[s]));
        else if ((uint64_t)r->t.size[s] < r->expected[s])
            add_issue(r, false, "short_subfile",
                      "subfile %d of %d is short: %" PRId64 " bytes, the logical EOF %" PRIu64 " needs %" PRIu64 ": %s",
                      s + 1, N, r->t.size[s], r->eof, r->expected[s], r->t.path[s]);
        else if ((uint64_t)r->t.size[s] > r->expected[s])
            add_issue(r, true, "long_subfile", "subfile %d of %d holds %" PRIu64 " bytes beyond the logical EOF: %s",
                      s + 1, N, (uint64_t)r->t.size[s] - r->expected[s], r->t.path[s]);
    }
    if (r->sb_ok && r->sb.hdr.eof < r->t.sub_eof)
        add_issue(r, true, "beyond_eof",
                  "the subfiles hold data up to %" PRIu64 ", past the superblock's end of file %" PRIu64
                  " (not truncated at close?)",
                  r->t.sub_eof, r->sb.hdr.eof);

    /* Files the layout does not account for. */
    char sdir[TK_PATH];
    snprintf(sdir, sizeof sdir, "%s", r->t.l.subfile_dir[0] ? r->t.l.subfile_dir : r->t.l.stub_dir);
    scan_dir(r, sdir, true);
    for (int i = 0; i < r->nextra; i++)
        add_issue(r, false, "extra_subfile", "%s is named like a subfile of this file but is not one of its %d",
                  r->extra[i], N);
    char real[TK_PATH + 16];
    snprintf(real, sizeof real, "%s%s%s", r->t.l.stub_dir, strcmp(r->t.l.stub_dir, "/") ? "/" : "", r->t.l.base);
    if (r->hdf5_file[0] && strcmp(r->hdf5_file, real) != 0)
        add_issue(r, true, "renamed", "the config file names hdf5_file=%s, not %s (renamed or moved without h5sf-mv?)",
                  r->hdf5_file, real);
}

static void report_free(report_t *r)
{
    tk_close(&r->t);
    free(r->expected);
    free(r->issues);
    for (int i = 0; i < r->nextra; i++)
        free(r->extra[i]);
    free(r->extra);
}

/* ---- output ------------------------------------------------------------- */

static const char *subfile_status(const report_t *r, int s)
{
    if (r->t.size[s] < 0)
        return r->t.err[s] == ENOENT ? "missing" : "bad";
    if ((uint64_t)r->t.size[s] < r->expected[s])
        return "short";
    if ((uint64_t)r->t.size[s] > r->expected[s])
        return "long";
    return "ok";
}

static void print_text(const report_t *r)
{
    char h[32];
    tk_print(stdout, "%s\n", r->file);
    if (r->stub_ok)
        tk_print(stdout, "  stub          %" PRIu64 " bytes, inode %" PRIu64 "\n", r->t.stub_size, r->inode);
    if (r->t.config[0])
        tk_print(stdout, "  config        %s\n", r->t.config);
    if (r->layout_ok) {
        tk_print(stdout,
                 "  layout        %d subfile%s, stripe size %" PRId64 " (%s), %" PRId32
                 " I/O concentrator%s at write time\n",
                 r->t.n, r->t.n > 1 ? "s" : "", r->t.l.stripe_size, tk_human((uint64_t)r->t.l.stripe_size, h, sizeof h),
                 r->t.l.ioc_count, r->t.l.ioc_count == 1 ? "" : "s");
        tk_print(stdout, "  subfile dir   %s\n", r->t.l.subfile_dir[0] ? r->t.l.subfile_dir : r->t.l.stub_dir);
    }
    if (r->sb_ok) {
        tk_print(stdout, "  superblock    version %d at %" PRIu64 ", end of file %" PRIu64, r->sb.hdr.version,
                 r->sb.hdr.sig_off, r->sb.hdr.eof);
        if (r->drv_ok)
            tk_print(stdout, ", driver info \"%s\": stripe size %" PRId64 ", %" PRId32 " subfiles", r->sb.drv_name,
                     r->drv.stripe_size, r->drv.stripe_count);
        else if (r->drv_present)
            tk_print(stdout, ", driver info \"%s\" (unreadable)", r->sb.drv_name);
        else
            tk_print(stdout, ", no driver info");
        tk_print(stdout, "\n");
    }
    if (r->layout_ok && r->expected) {
        tk_print(stdout, "  logical EOF   %" PRIu64 " (%s)\n", r->eof, tk_human(r->eof, h, sizeof h));
        tk_print(stdout, "  subfiles      %5s %14s %14s  %-7s  %s\n", "#", "size", "expected", "status", "path");
        for (int s = 0; s < r->t.n; s++) {
            char sz[24];
            if (r->t.size[s] < 0)
                snprintf(sz, sizeof sz, "-");
            else
                snprintf(sz, sizeof sz, "%" PRId64, r->t.size[s]);
            tk_print(stdout, "                %5d %14s %14" PRIu64 "  %-7s  %s\n", s + 1, sz, r->expected[s],
                     subfile_status(r, s), r->t.path[s]);
        }
    }
    for (int i = 0; i < r->nissues; i++)
        tk_print(stdout, "  %-8s [%s] %s\n", r->issues[i].warning ? "warning" : "PROBLEM", r->issues[i].kind,
                 r->issues[i].msg);
    int p = problems(r);
    if (p)
        tk_print(stdout, "  status        %d problem%s\n", p, p > 1 ? "s" : "");
    else
        tk_print(stdout, "  status        healthy\n");
}

/* A JSON string of tk_escape's text: no control byte, no malformed UTF-8. */
static void json_str(const char *s)
{
    size_t cap = 4 * strlen(s) + 1;
    char  *t   = malloc(cap);
    if (!t) {
        fputs("null", stdout);
        return;
    }
    tk_escape(s, t, cap);
    putchar('"');
    for (const char *p = t; *p; p++) {
        if (*p == '"' || *p == '\\')
            putchar('\\');
        putchar(*p);
    }
    putchar('"');
    free(t);
}

static void print_json(const report_t *r)
{
    printf("{\"file\": ");
    json_str(r->file);
    printf(", \"healthy\": %s", problems(r) ? "false" : "true");
    if (r->stub_ok)
        printf(", \"stub_size\": %" PRIu64 ", \"inode\": %" PRIu64, r->t.stub_size, r->inode);
    if (r->t.config[0]) {
        printf(", \"config\": ");
        json_str(r->t.config);
    }
    if (r->layout_ok) {
        printf(", \"stripe_size\": %" PRId64 ", \"stripe_count\": %d, \"ioc_count\": %" PRId32 ", \"subfile_dir\": ",
               r->t.l.stripe_size, r->t.n, r->t.l.ioc_count);
        json_str(r->t.l.subfile_dir[0] ? r->t.l.subfile_dir : r->t.l.stub_dir);
    }
    if (r->sb_ok) {
        printf(", \"superblock\": {\"version\": %d, \"offset\": %" PRIu64 ", \"eof\": %" PRIu64 ", \"from_stub\": %s",
               r->sb.hdr.version, r->sb.hdr.sig_off, r->sb.hdr.eof, r->sb_from_stub ? "true" : "false");
        if (r->drv_present) {
            printf(", \"driver_info\": {\"name\": ");
            json_str(r->sb.drv_name);
            printf(", \"offset\": %" PRIu64 ", \"size\": %zu", r->sb.drvinfo_off, r->sb.drv_len);
            if (r->drv_ok)
                printf(", \"stripe_size\": %" PRId64 ", \"stripe_count\": %" PRId32, r->drv.stripe_size,
                       r->drv.stripe_count);
            printf("}");
        }
        else
            printf(", \"driver_info\": null");
        printf("}");
    }
    if (r->layout_ok && r->expected) {
        printf(", \"logical_eof\": %" PRIu64 ", \"subfiles\": [", r->eof);
        for (int s = 0; s < r->t.n; s++) {
            printf("%s{\"index\": %d, \"path\": ", s ? ", " : "", s + 1);
            json_str(r->t.path[s]);
            if (r->t.size[s] < 0)
                printf(", \"size\": null");
            else
                printf(", \"size\": %" PRId64, r->t.size[s]);
            printf(", \"expected\": %" PRIu64 ", \"status\": \"%s\"}", r->expected[s], subfile_status(r, s));
        }
        printf("]");
    }
    printf(", \"extra_files\": [");
    for (int i = 0; i < r->nextra; i++) {
        printf("%s", i ? ", " : "");
        json_str(r->extra[i]);
    }
    printf("], \"issues\": [");
    for (int i = 0; i < r->nissues; i++) {
        printf("%s{\"severity\": \"%s\", \"kind\": \"%s\", \"message\": ", i ? ", " : "",
               r->issues[i].warning ? "warning" : "problem", r->issues[i].kind);
        json_str(r->issues[i].msg);
        printf("}");
    }
    printf("]}");
}

static void usage(FILE *fp)
{
    fprintf(fp, "usage: h5sf-info [options] FILE.h5...\n"
                "Describe an h5sf (or HDF5 built-in subfiling) file and check its consistency:\n"
                "stub, config file, subfile sizes against the logical EOF, extra subfiles, and\n"
                "the superblock's driver info against the config file.\n\n"
                "  -j, --json             one JSON object per FILE (an array for several FILEs)\n"
                "  -l, --files            only list the physical files (stub, config, subfiles), one per line\n"
                "  -c, --config-dir DIR   directory of the .config file (default: $H5SF_CONFIG_DIR,\n"
                "                         $H5FD_SUBFILING_CONFIG_FILE_PREFIX, else the stub's)\n"
                "  -s, --subfile-dir DIR  directory of the subfiles (default: from the config file)\n"
                "  -q, --quiet            print nothing; the exit status tells\n"
                "  -h, --help             this text\n"
                "Exit status: 0 healthy, 1 problems found (each one is reported), 2 usage error.\n");
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {{"json", no_argument, 0, 'j'},
                                         {"files", no_argument, 0, 'l'},
                                         {"config-dir", required_argument, 0, 'c'},
                                         {"subfile-dir", required_argument, 0, 's'},
                                         {"quiet", no_argument, 0, 'q'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    bool                       json = false, files = false, quiet = false;
    const char                *config_opt = NULL, *subfile_dir = NULL;
    int                        c, status                       = 0;
    while ((c = getopt_long(argc, argv, "jlc:s:qh", opts, NULL)) != -1) {
        switch (c) {
            case 'j': json = true; break;
            case 'l': files = true; break;
            case 'c': config_opt = optarg; break;
            case 's': subfile_dir = optarg; break;
            case 'q': quiet = true; break;
            case 'h': usage(stdout); return 0;
            default: usage(stderr); return 2;
        }
    }
    if (optind >= argc) {
        fprintf(stderr, "h5sf-info: no file given\n");
        usage(stderr);
        return 2;
    }
    const int nfiles = argc - optind;
    if (json && nfiles > 1 && !quiet)
        printf("[");
    for (int i = optind; i < argc; i++) {
        report_t r;
        inspect(&r, argv[i], tk_config_dir(config_opt), subfile_dir);
        if (problems(&r))
            status = 1;
        if (quiet)
            ;
        else if (files) {
            if (r.layout_ok) {
                tk_print(stdout, "%s\n", argv[i]);
                tk_print(stdout, "%s\n", r.t.config);
                for (int s = 0; s < r.t.n; s++)
                    tk_print(stdout, "%s\n", r.t.path[s]);
            }
            else
                tk_print(stderr, "h5sf-info: %s: %s\n", argv[i], r.nissues ? r.issues[0].msg : "not a subfiled file");
        }
        else if (json) {
            printf("%s", i > optind ? ",\n" : "");
            print_json(&r);
        }
        else {
            if (i > optind)
                printf("\n");
            print_text(&r);
        }
        report_free(&r);
    }
    if (json && !quiet)
        printf("%s\n", nfiles > 1 ? "]" : "");
    return status;
}
