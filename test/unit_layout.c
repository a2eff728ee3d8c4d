/* unit_layout -- names, config file and driver info against the built-in
 * subfiling driver's formats; the two parsers against garbage. */
#define _XOPEN_SOURCE 700
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "layout.h"
#include "superblock.h"

#include "h5sf_test.h"

/* Verbatim from HDF5 1.14 H5FDsubfiling.h. */
#define H5FD_SUBFILING_FILENAME_TEMPLATE        "%s.subfile_%" PRIu64 "_%0*d_of_%d"
#define H5FD_SUBFILING_CONFIG_FILENAME_TEMPLATE "%s.subfile_%" PRIu64 ".config"

/* The built-in's width: (int)(log10(n) + 1), done by counting. */
static int digits(int n) { return n < 10 ? 1 : 1 + digits(n / 10); }

static h5sf_layout_t *new_layout(void)
{
    h5sf_layout_t *l = calloc(1, sizeof *l);
    strcpy(l->base, "data.h5");
    strcpy(l->stub_dir, "/scratch/run");
    l->inode        = 1234567;
    l->stripe_size  = 1 << 20;
    l->stripe_count = 4;
    l->ioc_count    = 2;
    return l;
}

static void test_names(void)
{
    h5sf_layout_t   *l = new_layout();
    h5sf_errbuf_t    e = {0};
    char             got[2 * H5SF_LAYOUT_PATH_MAX], want[2 * H5SF_LAYOUT_PATH_MAX];
    static const int counts[] = {1, 2, 9, 10, 11, 99, 100, 101, 999, 1000, 1001, 9999, 10000, 65536};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        int N           = counts[i];
        l->stripe_count = N;
        int idx[]       = {0, N / 2, N - 1};
        for (int j = 0; j < 3; j++) {
            int w = snprintf(want, sizeof want, "/scratch/run/" H5FD_SUBFILING_FILENAME_TEMPLATE, "data.h5",
                             (uint64_t)1234567, digits(N), idx[j] + 1, N);
            CHECK(w > 0 && (size_t)w < sizeof want, "N=%d: reference name does not fit", N);
            CHECK(h5sf_subfile_path(l, idx[j], got, sizeof got, &e) == 0 && strcmp(got, want) == 0,
                  "N=%d idx=%d: %s vs %s (%s)", N, idx[j], got, want, e.msg);
        }
    }
    /* literal spot checks, independent of the template */
    l->stripe_count = 1;
    h5sf_subfile_path(l, 0, got, sizeof got, &e);
    CHECK(strcmp(got, "/scratch/run/data.h5.subfile_1234567_1_of_1") == 0, "%s", got);
    l->stripe_count = 10;
    h5sf_subfile_path(l, 0, got, sizeof got, &e);
    CHECK(strcmp(got, "/scratch/run/data.h5.subfile_1234567_01_of_10") == 0, "%s", got);
    l->stripe_count = 100;
    h5sf_subfile_path(l, 9, got, sizeof got, &e);
    CHECK(strcmp(got, "/scratch/run/data.h5.subfile_1234567_010_of_100") == 0, "%s", got);
    l->stripe_count = 9;
    h5sf_subfile_path(l, 8, got, sizeof got, &e);
    CHECK(strcmp(got, "/scratch/run/data.h5.subfile_1234567_9_of_9") == 0, "%s", got);

    /* config name; the directories */
    snprintf(want, sizeof want, "/scratch/run/" H5FD_SUBFILING_CONFIG_FILENAME_TEMPLATE, "data.h5", (uint64_t)1234567);
    CHECK(h5sf_config_path(l, got, sizeof got, &e) == 0 && strcmp(got, want) == 0, "config %s", got);
    strcpy(l->config_dir, "/cfg");
    strcpy(l->subfile_dir, "/fast");
    h5sf_config_path(l, got, sizeof got, &e);
    CHECK(strcmp(got, "/cfg/data.h5.subfile_1234567.config") == 0, "%s", got);
    h5sf_subfile_path(l, 0, got, sizeof got, &e);
    CHECK(strcmp(got, "/fast/data.h5.subfile_1234567_1_of_9") == 0, "%s", got);
    l->inode = UINT64_MAX - 1;
    h5sf_config_path(l, got, sizeof got, &e);
    CHECK(strcmp(got, "/cfg/data.h5.subfile_18446744073709551614.config") == 0, "%s", got);

    /* errors */
    CHECK(h5sf_subfile_path(l, 9, got, sizeof got, &e) < 0 && strstr(e.msg, "index"), "idx = N: %s", e.msg);
    CHECK(h5sf_subfile_path(l, -1, got, sizeof got, &e) < 0, "idx -1");
    CHECK(h5sf_subfile_path(l, 0, got, 10, &e) < 0 && strstr(e.msg, "longer"), "short buffer: %s", e.msg);
    CHECK(h5sf_config_path(l, got, 10, &e) < 0, "short buffer config");
    l->stripe_count = 0;
    CHECK(h5sf_subfile_path(l, 0, got, sizeof got, &e) < 0, "N=0");
    l->stripe_count = 65537;
    CHECK(h5sf_subfile_path(l, 0, got, sizeof got, &e) < 0, "N too big");
    l->base[0] = '\0';
    CHECK(h5sf_config_path(l, got, sizeof got, &e) < 0, "no base");
    free(l);
}

static void test_set_stub(const char *tmp)
{
    h5sf_layout_t *l = new_layout();
    h5sf_errbuf_t  e = {0};
    char           cwd[PATH_MAX], real[PATH_MAX], p[2 * PATH_MAX];
    CHECK(getcwd(cwd, sizeof cwd) && realpath(cwd, real), "cwd");
    l->inode = 99;
    CHECK(h5sf_layout_set_stub(l, "x.h5", &e) == 0 && strcmp(l->base, "x.h5") == 0 && strcmp(l->stub_dir, real) == 0,
          "relative: %s %s (%s)", l->stub_dir, l->base, e.msg);
    CHECK(l->inode == 99 && l->stripe_count == 4, "set_stub leaves the rest alone");
    CHECK(h5sf_layout_set_stub(l, "./x.h5", &e) == 0 && strcmp(l->stub_dir, real) == 0, "./x.h5 %s", l->stub_dir);
    CHECK(h5sf_layout_set_stub(l, "/nonexistent-h5sf/dir/f.h5", &e) == 0 &&
              strcmp(l->stub_dir, "/nonexistent-h5sf/dir") == 0 && strcmp(l->base, "f.h5") == 0,
          "missing absolute dir: %s", l->stub_dir);
    CHECK(h5sf_layout_set_stub(l, "nonexistent-h5sf/f.h5", &e) == 0 && strncmp(l->stub_dir, cwd, strlen(cwd)) == 0 &&
              strstr(l->stub_dir, "/nonexistent-h5sf") && l->stub_dir[0] == '/',
          "missing relative dir: %s", l->stub_dir);
    CHECK(h5sf_layout_set_stub(l, "/f.h5", &e) == 0 && strcmp(l->stub_dir, "/") == 0 && strcmp(l->base, "f.h5") == 0,
          "root: %s", l->stub_dir);
    snprintf(p, sizeof p, "%s/sub/../stub.h5", tmp);
    char rt[PATH_MAX];
    CHECK(realpath(tmp, rt) != NULL, "realpath tmp");
    mkdir(strcat(strcpy(real, tmp), "/sub"), 0755);
    CHECK(h5sf_layout_set_stub(l, p, &e) == 0 && strcmp(l->stub_dir, rt) == 0 && strcmp(l->base, "stub.h5") == 0,
          "dotdot: %s vs %s", l->stub_dir, rt);
    /* a symlinked stub resolves to its target, as in the built-in */
    char target[2 * PATH_MAX], link[2 * PATH_MAX];
    snprintf(target, sizeof target, "%s/sub/target.h5", tmp);
    snprintf(link, sizeof link, "%s/link.h5", tmp);
    FILE *f = fopen(target, "w");
    if (f)
        fclose(f);
    CHECK(symlink(target, link) == 0, "symlink");
    CHECK(h5sf_layout_set_stub(l, link, &e) == 0 && strcmp(l->base, "target.h5") == 0 && strstr(l->stub_dir, "/sub"),
          "symlink: %s %s", l->stub_dir, l->base);
    unlink(link);
    unlink(target);
    rmdir(real);
    CHECK(h5sf_layout_set_stub(l, "", &e) < 0, "empty");
    CHECK(h5sf_layout_set_stub(l, NULL, &e) < 0, "NULL");
    CHECK(h5sf_layout_set_stub(l, "dir/", &e) < 0 && strstr(e.msg, "dir/"), "trailing slash: %s", e.msg);
    char *lng = malloc(H5SF_LAYOUT_PATH_MAX + 2);
    memset(lng, 'a', H5SF_LAYOUT_PATH_MAX + 1);
    lng[H5SF_LAYOUT_PATH_MAX + 1] = '\0';
    CHECK(h5sf_layout_set_stub(l, lng, &e) < 0, "too long");
    free(lng);
    free(l);
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = malloc(1 << 20);
    *len      = fread(buf, 1, (1 << 20) - 1, f);
    buf[*len] = '\0';
    fclose(f);
    return buf;
}

static int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    int  n = 0;
    for (struct dirent *de; d && (de = readdir(d));)
        n += de->d_name[0] != '.';
    if (d)
        closedir(d);
    return n;
}

static void test_config_file(const char *tmp)
{
    h5sf_layout_t *l = new_layout(), *r = calloc(1, sizeof *r);
    h5sf_errbuf_t  e = {0};
    char           stub[PATH_MAX], path[2 * H5SF_LAYOUT_PATH_MAX], rt[PATH_MAX], want[4096];
    CHECK(realpath(tmp, rt) != NULL, "realpath");
    snprintf(stub, sizeof stub, "%s/file.h5", tmp);
    CHECK(h5sf_layout_set_stub(l, stub, &e) == 0, "set_stub: %s", e.msg);
    l->inode        = 4242;
    l->stripe_size  = 3 << 20;
    l->stripe_count = 12;
    l->ioc_count    = 3;
    CHECK(h5sf_config_file_write(l, &e) == 0, "write: %s", e.msg);
    CHECK(h5sf_config_path(l, path, sizeof path, &e) == 0, "path");
    size_t len;
    char  *text = slurp(path, &len);
    int    off  = snprintf(want, sizeof want,
                           "stripe_size=3145728\naggregator_count=3\nsubfile_count=12\nhdf5_file=%s/file.h5\n"
                               "subfile_dir=%s\n",
                           rt, rt);
    for (int k = 1; k <= 12; k++)
        off += snprintf(want + off, sizeof want - (size_t)off, "file.h5.subfile_4242_%02d_of_12\n", k);
    CHECK(text && strcmp(text, want) == 0, "config text:\n%s\nwant:\n%s", text ? text : "(none)", want);
    free(text);
    CHECK(count_entries(tmp) == 1, "temporary left behind (%d entries)", count_entries(tmp));

    /* read back */
    strcpy(r->base, l->base);
    strcpy(r->stub_dir, l->stub_dir);
    r->inode = 4242;
    CHECK(h5sf_config_file_read(r, &e) == 0, "read: %s", e.msg);
    CHECK(r->stripe_size == 3 << 20 && r->stripe_count == 12 && r->ioc_count == 3 && strcmp(r->subfile_dir, rt) == 0,
          "read back %lld %d %d %s", (long long)r->stripe_size, r->stripe_count, r->ioc_count, r->subfile_dir);

    /* rewrite (truncating create) replaces it atomically; custom dirs */
    strcpy(l->subfile_dir, "/elsewhere");
    l->stripe_count = 1;
    CHECK(h5sf_config_file_write(l, &e) == 0, "rewrite: %s", e.msg);
    CHECK(h5sf_config_file_read(r, &e) == 0 && r->stripe_count == 1 && strcmp(r->subfile_dir, "/elsewhere") == 0,
          "reread: %s", e.msg);
    CHECK(count_entries(tmp) == 1, "one file after rewrite");

    /* a relative subfile_dir in the file means the stub's directory, whatever
     * the reader's working directory */
    static const struct {
        const char *in, *tail;
    } rel[] = {{"sub", "/sub"}, {"a/b", "/a/b"}, {".", ""}, {"../up", "/../up"}};
    for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
        strcpy(l->subfile_dir, rel[i].in);
        CHECK(h5sf_config_file_write(l, &e) == 0, "write relative: %s", e.msg);
        snprintf(want, sizeof want, "%s%s", rt, rel[i].tail);
        CHECK(h5sf_config_file_read(r, &e) == 0 && strcmp(r->subfile_dir, want) == 0,
              "relative %s read as %s (want %s): %s", rel[i].in, r->subfile_dir, want, e.msg);
    }
    /* on create, a relative setting is taken against the working directory */
    {
        char cwd[2048];
        CHECK(getcwd(cwd, sizeof cwd) != NULL, "getcwd");
        CHECK(h5sf_layout_set_subfile_dir(l, "here/sub", &e) == 0, "set_subfile_dir: %s", e.msg);
        snprintf(want, sizeof want, "%s/here/sub", cwd);
        CHECK(strcmp(l->subfile_dir, want) == 0, "set_subfile_dir relative: %s (want %s)", l->subfile_dir, want);
        CHECK(h5sf_layout_set_subfile_dir(l, "/abs/x", &e) == 0 && strcmp(l->subfile_dir, "/abs/x") == 0, "absolute");
        CHECK(h5sf_layout_set_subfile_dir(l, "", &e) == 0 && l->subfile_dir[0] == '\0', "empty");
    }
    unlink(path);

    /* missing file, missing config dir */
    CHECK(h5sf_config_file_read(r, &e) < 0 && strstr(e.msg, path), "missing: %s", e.msg);
    strcpy(l->config_dir, "/nonexistent-h5sf-dir");
    CHECK(h5sf_config_file_write(l, &e) < 0 && strstr(e.msg, "/nonexistent-h5sf-dir"), "bad dir: %s", e.msg);
    l->config_dir[0] = '\0';
    l->stripe_size   = 0;
    CHECK(h5sf_config_file_write(l, &e) < 0, "invalid layout written");

    /* a parse error read from disk names the file and the line */
    l->stripe_size = 1;
    h5sf_config_path(l, path, sizeof path, &e);
    FILE *f = fopen(path, "w");
    fputs("stripe_size=1\nsubfile_count=1\nwhat is this\n", f);
    fclose(f);
    CHECK(h5sf_config_file_read(r, &e) < 0 && strstr(e.msg, path) && strstr(e.msg, "line 3"), "disk error: %s", e.msg);
    unlink(path);
    free(l);
    free(r);
}

static int parse(const char *text, h5sf_layout_t *l, h5sf_errbuf_t *e)
{
    memset(e, 0, sizeof *e);
    return h5sf_config_file_parse(text, strlen(text), l, e);
}

static void bad_config(int line, const char *text, const char *w1, const char *w2)
{
    h5sf_layout_t *l = new_layout(), *before = new_layout();
    h5sf_errbuf_t  e;
    int            rc = parse(text, l, &e);
    CHECK_AT(line, rc != 0 && strstr(e.msg, w1) && (!w2 || strstr(e.msg, w2)),
             "config parse rc=%d msg=\"%s\" (want \"%s\" %s)", rc, e.msg, w1, w2 ? w2 : "");
    CHECK(memcmp(l, before, sizeof *l) == 0, "failed parse modified the layout (line %d)", line);
    free(l);
    free(before);
}
#define BAD_CONFIG(t, w1, w2) bad_config(__LINE__, t, w1, w2)

static void test_config_parse(void)
{
    h5sf_layout_t *l = new_layout();
    h5sf_errbuf_t  e;

    /* exactly what H5FD__subfiling_create_config_file writes */
    const char *builtin = "stripe_size=33554432\naggregator_count=2\nsubfile_count=2\n"
                          "hdf5_file=/home/u/run/out.h5\nsubfile_dir=/home/u/run\n"
                          "out.h5.subfile_3932183_1_of_2\nout.h5.subfile_3932183_2_of_2\n";
    strcpy(l->base, "out.h5");
    l->inode = 3932183;
    CHECK(parse(builtin, l, &e) == 0 && l->stripe_size == 33554432 && l->stripe_count == 2 && l->ioc_count == 2 &&
              strcmp(l->subfile_dir, "/home/u/run") == 0,
          "built-in file: %s", e.msg);
    /* minimal; optional keys keep what the caller had */
    l->ioc_count = 7;
    strcpy(l->subfile_dir, "/keep");
    CHECK(parse("subfile_count=3\nstripe_size=4096", l, &e) == 0 && l->stripe_size == 4096 && l->stripe_count == 3 &&
              l->ioc_count == 7 && strcmp(l->subfile_dir, "/keep") == 0,
          "minimal: %s", e.msg);
    CHECK(parse("stripe_size=1\r\nsubfile_count=65536\r\n\r\n   \n", l, &e) == 0 && l->stripe_count == 65536,
          "CRLF: %s", e.msg);
    BAD_CONFIG("stripe_size=4611686018427387904\nsubfile_count=5\n", "address space", NULL);
    BAD_CONFIG("stripe_size=70369817935873\nsubfile_count=65536\n", "address space", NULL);
    CHECK(parse("stripe_size=70369817935872\nsubfile_count=65536\n", l, &e) == 0, "largest x 65536: %s", e.msg);
    CHECK(parse("stripe_size= 9223372036854775807 \nsubfile_count=1\nsubfile_dir=\n", l, &e) == 0 &&
              l->stripe_size == INT64_MAX && l->subfile_dir[0] == '\0',
          "max stripe: %s", e.msg);
    /* subfile names: exactly this stub's, 1..N in order, zero-padded as the built-in */
    strcpy(l->base, "weird=name.h5");
    l->inode = 5;
    {
        char txt[1024];
        int  k = snprintf(txt, sizeof txt, "stripe_size=1\nsubfile_count=10\n");
        for (int i = 1; i <= 10; i++)
            k += snprintf(txt + k, sizeof txt - (size_t)k, "weird=name.h5.subfile_5_%02d_of_10\n", i);
        CHECK(parse(txt, l, &e) == 0, "names with '=': %s", e.msg);
    }
    BAD_CONFIG("stripe_size=1\nsubfile_count=2\ndata.h5.subfile_1234567_1_of_2\ndata.h5.subfile_1234567_2_of_2\n"
               "data.h5.subfile_1234567_2_of_2\n",
               "line 5", "subfile 3");
    strcpy(l->base, "data.h5");
    l->inode = 1234567;
    CHECK(parse("stripe_size=1\nsubfile_count=2\ndata.h5.subfile_1234567_1_of_2\ndata.h5.subfile_1234567_2_of_2\n", l,
                &e) == 0,
          "names: %s", e.msg);
    BAD_CONFIG("stripe_size=1\nsubfile_count=2\nother.h5.subfile_1234567_1_of_2\n", "line 3", "subfile 1");
    BAD_CONFIG("stripe_size=1\nsubfile_count=2\ndata.h5.subfile_7654321_1_of_2\n", "line 3", "not the name");
    BAD_CONFIG("stripe_size=1\nsubfile_count=2\n../../etc/data.h5.subfile_1234567_1_of_2\n", "line 3", "not the name");
    BAD_CONFIG("stripe_size=1\nsubfile_count=2\nx/data.h5.subfile_1234567_1_of_2\n", "line 3", "not the name");
    BAD_CONFIG("stripe_size=1\nsubfile_count=10\ndata.h5.subfile_1234567_1_of_10\n", "line 3", "not the name");
    BAD_CONFIG("stripe_size=1\nsubfile_count=2\ndata.h5.subfile_1234567_2_of_2\ndata.h5.subfile_1234567_1_of_2\n",
               "line 3", "subfile 1");
    BAD_CONFIG("stripe_size=1\nsubfile_count=2\ndata.h5.subfile_1234567_1_of_2\n", "1 of the 2", NULL);
    BAD_CONFIG("stripe_size=1\nsubfile_count=2\ndata.h5.subfile_01234567_1_of_2\n", "line 3", "not the name");

    BAD_CONFIG("", "no stripe_size", NULL);
    BAD_CONFIG("subfile_count=1\n", "no stripe_size", NULL);
    BAD_CONFIG("stripe_size=1\n", "no subfile_count", NULL);
    BAD_CONFIG("stripe_size=0\nsubfile_count=1\n", "line 1", "stripe_size=0");
    BAD_CONFIG("stripe_size=-5\nsubfile_count=1\n", "line 1", "positive");
    BAD_CONFIG("stripe_size=abc\nsubfile_count=1\n", "line 1", "not an integer");
    BAD_CONFIG("stripe_size=\nsubfile_count=1\n", "line 1", "not an integer");
    BAD_CONFIG("stripe_size=12x\nsubfile_count=1\n", "line 1", "12x");
    BAD_CONFIG("stripe_size=9223372036854775808\nsubfile_count=1\n", "line 1", NULL);
    BAD_CONFIG("stripe_size=99999999999999999999999\nsubfile_count=1\n", "line 1", NULL);
    BAD_CONFIG("stripe_size=1\nsubfile_count=0\n", "line 2", "out of range");
    BAD_CONFIG("stripe_size=1\nsubfile_count=65537\n", "line 2", "out of range");
    BAD_CONFIG("stripe_size=1\nsubfile_count=-1\n", "line 2", NULL);
    BAD_CONFIG("stripe_size=1\nsubfile_count=1\naggregator_count=0\n", "line 3", "aggregator");
    BAD_CONFIG("stripe_size=1\nsubfile_count=1\naggregator_count=4294967296\n", "line 3", "aggregator");
    BAD_CONFIG("stripe_size=1\nsubfile_count=1\nhello world\n", "line 3", "hello world");
    BAD_CONFIG("stripe_size=1\n\n\nsubfile_count=1\nstripe_size=2\n", "line 5", "line 1");
    BAD_CONFIG("stripe_size=1\nsubfile_count=1\nStripe_Size=1\n", "line 3", NULL);
    BAD_CONFIG("stripe_size=1\nsubfile_count=2\nf.subfile_1_1_of_3\n", "line 3", "3");
    BAD_CONFIG("stripe_size=1\nsubfile_count=2\nf.subfile_1_3_of_2\n", "line 3", NULL);
    BAD_CONFIG("stripe_size=1\nsubfile_count=2\nf.subfile_1_0_of_2\n", "line 3", NULL);
    BAD_CONFIG("stripe_size=1\nsubfile_count=2\ndata.h5.subfile_1234567_1_of_2\ndata.h5.subfile_1234567_2_of_3\n",
               "line 4", "disagrees");
    BAD_CONFIG("stripe_size=1\nsubfile_count=2\nf.subfile_1_1_of_2x\n", "line 3", NULL);
    BAD_CONFIG("stripe_size=1\nsubfile_count=2\n.subfile_1_1_of_2\n", "line 3", NULL);
    BAD_CONFIG("stripe_size=1\nsubfile_count=2\nf.subfile__1_of_2\n", "line 3", NULL);
    BAD_CONFIG("stripe_size=1\nsubfile_count=2\nf.subfile_1_1_of_\n", "line 3", NULL);
    BAD_CONFIG(" stripe_size=1\nsubfile_count=1\n", "line 1", NULL);
    BAD_CONFIG("\x01\x02\xff\nstripe_size=1\n", "line 1", "???");
    {
        static const char nul[] = "stripe_size=1\nsubfile_count=1\nx\0y\n";
        CHECK(h5sf_config_file_parse(nul, sizeof nul - 1, l, &e) < 0 && strstr(e.msg, "line 3") && strstr(e.msg, "NUL"),
              "NUL: %s", e.msg);
    }
    {
        /* length is authoritative: no NUL terminator needed, nothing read past it */
        static const char txt[] = "stripe_size=1\nsubfile_count=1";
        char             *exact = malloc(sizeof txt - 1);
        memcpy(exact, txt, sizeof txt - 1);
        CHECK(h5sf_config_file_parse(exact, sizeof txt - 1, l, &e) == 0 && l->stripe_count == 1, "exact: %s", e.msg);
        CHECK(h5sf_config_file_parse(exact, sizeof txt - 2, l, &e) < 0 && strstr(e.msg, "line 2"), "cut: %s", e.msg);
        CHECK(h5sf_config_file_parse(exact, 5, l, &e) < 0, "prefix only");
        CHECK(h5sf_config_file_parse(NULL, 0, l, &e) < 0, "NULL");
        free(exact);
    }
    {
        /* subfile_dir longer than the field */
        size_t n    = H5SF_LAYOUT_PATH_MAX + 64;
        char  *text = malloc(n);
        int    k    = sprintf(text, "stripe_size=1\nsubfile_count=1\nsubfile_dir=");
        memset(text + k, 'd', H5SF_LAYOUT_PATH_MAX);
        text[k + H5SF_LAYOUT_PATH_MAX] = '\0';
        BAD_CONFIG(text, "line 3", "subfile_dir");
        free(text);
    }
    /* random garbage lines never crash and name a line */
    unsigned char buf[512];
    for (int it = 0; it < 20000; it++) {
        size_t n = t_rnd() % sizeof buf;
        for (size_t i = 0; i < n; i++) {
            uint64_t x = t_rnd();
            buf[i]     = (x & 3) == 0   ? '\n'
                         : (x & 7) == 1 ? (unsigned char)"0123456789_="[(x >> 8) % 12]
                                        : (unsigned char)(x >> 16);
        }
        unsigned char *exact = malloc(n ? n : 1);
        memcpy(exact, buf, n);
        h5sf_config_file_parse((const char *)exact, n, l, &e);
        free(exact);
    }
    free(l);
}

static void test_drvinfo(void)
{
    h5sf_layout_t *l = new_layout(), *r = new_layout();
    h5sf_errbuf_t  e = {0};
    unsigned char  buf[2048];
    char           name[9];

    /* exact bytes for stripe 1 MiB, 4 subfiles, no prefix */
    static const unsigned char want[] = {
        0x31, 0x13, 0xD0, 0xFE, 1, 0, 0, 0, 1, 0, 0, 0,             /* magic, version, require_ioc */
        0,    0,    0x10, 0,    0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, /* stripe size, count */
        0,    0,    0,    0,    0, 0, 0, 0,                         /* prefix length */
        'I',  'O',  'C',  0,    0, 0, 0, 0, 0,                      /* nested name */
        0x31, 0x13, 0xD2, 0xFE, 1, 0, 0, 0, 4, 0, 0, 0,             /* IOC magic, version, threads */
        0,    0,    0x10, 0,    0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0};
    CHECK(h5sf_drvinfo_size(l) == sizeof want, "size %zu", h5sf_drvinfo_size(l));
    memset(buf, 0xAA, sizeof buf);
    memset(name, 'x', sizeof name);
    CHECK(h5sf_drvinfo_encode(l, name, buf) == 0, "encode");
    CHECK(memcmp(name, "Subfilin", 9) == 0, "name");
    CHECK(memcmp(buf, want, sizeof want) == 0, "bytes");
    CHECK(buf[sizeof want] == 0xAA, "wrote past the size");
    CHECK(h5sf_drvinfo_decode(name, buf, sizeof want, r, &e) == 0 && r->stripe_size == 1 << 20 &&
              r->stripe_count == 4 && r->config_dir[0] == '\0',
          "decode: %s", e.msg);

    /* with a config prefix; decode works with a generous len, as the VFD passes */
    strcpy(l->config_dir, "/shared/cfg");
    l->stripe_size  = (int64_t)1 << 40;
    l->stripe_count = 65536;
    size_t n        = h5sf_drvinfo_size(l);
    CHECK(n == sizeof want + strlen("/shared/cfg") + 1, "size with prefix %zu", n);
    CHECK(h5sf_drvinfo_encode(l, name, buf) == 0, "encode prefix");
    CHECK(h5sf_drvinfo_decode(name, buf, n, r, &e) == 0 && r->stripe_size == l->stripe_size &&
              r->stripe_count == 65536 && strcmp(r->config_dir, "/shared/cfg") == 0,
          "decode prefix: %s", e.msg);
    CHECK(h5sf_drvinfo_decode(name, buf, SIZE_MAX / 2, r, &e) == 0, "huge len: %s", e.msg);

    /* every truncation fails, in an exact-size heap copy so ASan sees overreads */
    for (size_t k = 0; k < n; k++) {
        unsigned char *t = malloc(k ? k : 1);
        memcpy(t, buf, k);
        CHECK(h5sf_drvinfo_decode(name, t, k, r, &e) < 0 && strstr(e.msg, "truncated"), "len %zu: %s", k, e.msg);
        free(t);
    }

    /* targeted corruption */
    unsigned char good[2048];
    memcpy(good, buf, n);
    size_t pl = strlen("/shared/cfg") + 1, nest = 36 + pl;
#define CORRUPT(stmt, word)                                                                                            \
    do {                                                                                                               \
        memcpy(buf, good, n);                                                                                          \
        stmt;                                                                                                          \
        memset(&e, 0, sizeof e);                                                                                       \
        CHECK(h5sf_drvinfo_decode(name, buf, n, r, &e) < 0 && strstr(e.msg, word), "%s: %s", #stmt, e.msg);            \
    } while (0)
    CORRUPT(buf[0] ^= 1, "magic");
    CORRUPT(buf[4] = 2, "version");
    CORRUPT(buf[8] = 7, "require_ioc");
    CORRUPT(memset(buf + 12, 0, 8), "stripe size");
    CORRUPT(buf[19] = 0x80, "stripe size"); /* negative */
    CORRUPT(memset(buf + 20, 0, 8), "stripe count");
    CORRUPT((buf[20] = 1, buf[22] = 1), "stripe count"); /* 65537 */
    CORRUPT(buf[27] = 0x80, "stripe count");
    CORRUPT(buf[28] = 200, "does not fit");
    CORRUPT(buf[35] = 0xff, "does not fit");
    CORRUPT(buf[36 + pl - 1] = 'x', "NUL-terminated");
    CORRUPT(buf[38] = 0, "NUL");
    CORRUPT(buf[nest] = 'X', "IOC");
    CORRUPT(buf[nest + 3] = 'X', "IOC");
    CORRUPT(buf[nest + 9] ^= 1, "IOC block has bad magic");
    CORRUPT(buf[nest + 13] = 9, "IOC block has unsupported version");
    CORRUPT(buf[nest + 21] ^= 1, "disagree");
    CORRUPT((buf[nest + 30] = 0x80, buf[nest + 31] = 0), "disagree"); /* 32768 subfiles */
    CORRUPT(memset(buf + nest + 21, 0, 8), "IOC block");
    memcpy(buf, good, n);
    CHECK(h5sf_drvinfo_decode("Subfiling", buf, n, r, &e) < 0 && strstr(e.msg, "name"), "name: %s", e.msg);
    CHECK(h5sf_drvinfo_decode("NCSAmult", buf, n, r, &e) < 0, "other driver");
    CHECK(h5sf_drvinfo_decode(NULL, buf, n, r, &e) < 0, "NULL name");
    CHECK(h5sf_drvinfo_decode(name, NULL, n, r, &e) < 0, "NULL buf");
    /* the nested name is compared like strncmp(name, "IOC", 9): trailing bytes after the NUL are ignored */
    CHECK((buf[nest + 5] = 'z', h5sf_drvinfo_decode(name, buf, n, r, &e)) == 0, "IOC padding: %s", e.msg);

    /* As the VFD decodes (HDF5 gives no length, so len is far too big): a
     * prefix length pointing past the longest possible block is refused
     * without reading past H5SF_DRVINFO_MAX bytes, which are here an
     * exact-size heap buffer, so ASan sees any read beyond. */
    {
        unsigned char *t = malloc(H5SF_DRVINFO_MAX);
        memset(t, 'p', H5SF_DRVINFO_MAX);
        memcpy(t, good, n);
        for (uint64_t claim = H5SF_DRVINFO_MAX - 36 - 9 - 28 + 1; claim <= 5000; claim++) {
            for (int i = 0; i < 8; i++)
                t[28 + i] = (unsigned char)(claim >> (8 * i));
            memset(&e, 0, sizeof e);
            CHECK(h5sf_drvinfo_decode(name, t, SIZE_MAX / 2, r, &e) < 0 && strstr(e.msg, "does not fit"),
                  "prefix length %llu, len SIZE_MAX/2: %s", (unsigned long long)claim, e.msg);
        }
        free(t);
    }

    /* the built-in refuses driver info above 1024 bytes; so do we */
    memset(l->config_dir, 'c', 1000);
    l->config_dir[1000] = '\0';
    CHECK(h5sf_drvinfo_encode(l, name, buf) < 0, "oversized prefix");
    l->config_dir[0] = '\0';
    l->stripe_size   = 0;
    CHECK(h5sf_drvinfo_encode(l, name, buf) < 0, "invalid layout");

    /* random garbage and random mutations of a valid block: never crash */
    int accepted = 0;
    for (int it = 0; it < 100000; it++) {
        size_t         len = t_rnd() % 160;
        unsigned char *t   = malloc(len ? len : 1);
        if (it & 1) {
            for (size_t i = 0; i < len; i++)
                t[i] = (unsigned char)t_rnd();
        }
        else {
            memcpy(t, good, len < n ? len : n);
            for (size_t i = n; i < len; i++)
                t[i] = (unsigned char)t_rnd();
            int flips = 1 + (int)(t_rnd() % 4);
            for (int f = 0; f < flips && len; f++)
                t[t_rnd() % len] ^= (unsigned char)(1u << (t_rnd() % 8));
        }
        h5sf_layout_t *o = new_layout();
        if (h5sf_drvinfo_decode(name, t, len, o, &e) == 0) {
            accepted++;
            CHECK(o->stripe_size > 0 && o->stripe_count >= 1 && o->stripe_count <= 65536 &&
                      memchr(o->config_dir, 0, sizeof o->config_dir),
                  "accepted a bad block");
        }
        free(o);
        free(t);
    }
    CHECK(accepted < 100000, "everything accepted?");
    free(l);
    free(r);
}

/* A stub with a version-2 superblock (8-byte offsets) at `at`, its root
 * object header address `root` (base 0, taken to be `at`); `ohdr` bytes written there or
 * nothing (a hole, as in a subfiled file's stub).  Returns the descriptor. */
static int fake_stub(const char *dir, const char *name, unsigned ver, uint64_t at, uint64_t root, const char *ohdr)
{
    char          path[4096];
    unsigned char b[48] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n', (unsigned char)ver, 8, 8, 0};
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    for (int i = 0; i < 8; i++)
        b[12 + 3 * 8 + i] = (unsigned char)(root >> (8 * i));
    /* Versions 2/3 end in a checksum (HDF5's own files check it in
     * unit_superblock). */
    uint32_t sum = h5sf_metadata_checksum(b, 44);
    for (int i = 0; i < 4; i++)
        b[44 + i] = (unsigned char)(sum >> (8 * i));
    if (fd < 0 || pwrite(fd, b, sizeof b, (off_t)at) != (ssize_t)sizeof b || ftruncate(fd, (off_t)(root + 4096)) < 0)
        return -1;
    if (ohdr && pwrite(fd, ohdr, 4, (off_t)root) != 4)
        return -1;
    return fd;
}

/* h5sf_stub_lacks_root: a subfiled file's stub (hole at the root object
 * header) against a plain file (an object header there), superblocks at 0
 * and after a 512-byte user block; versions 0/1 are left to the driver-info
 * check (0). */
static void test_stub_lacks_root(const char *tmp)
{
    char dir[4096];
    int  fd;
    snprintf(dir, sizeof dir, "%s/stubs", tmp); /* apart from the config-file tests' files */
    mkdir(dir, 0755);
    CHECK((fd = fake_stub(dir, "hole.h5", 2, 0, 2048, NULL)) >= 0 && h5sf_stub_lacks_root(fd) == 1, "v2, hole");
    close(fd);
    CHECK((fd = fake_stub(dir, "ohdr.h5", 2, 0, 2048, "OHDR")) >= 0 && h5sf_stub_lacks_root(fd) == 0, "v2, OHDR");
    close(fd);
    CHECK((fd = fake_stub(dir, "ub.h5", 3, 512, 4096, NULL)) >= 0 && h5sf_stub_lacks_root(fd) == 1, "v3 at 512, hole");
    close(fd);
    CHECK((fd = fake_stub(dir, "v0.h5", 0, 0, 2048, NULL)) >= 0 && h5sf_stub_lacks_root(fd) == 0,
          "v0: not decided here");
    close(fd);
    CHECK((fd = fake_stub(dir, "short.h5", 2, 0, 1 << 20, NULL)) >= 0 && ftruncate(fd, 4096) == 0 &&
              h5sf_stub_lacks_root(fd) == 1,
          "v2, root past the stub's end");
    close(fd);
    const char *names[] = {"hole.h5", "ohdr.h5", "ub.h5", "v0.h5", "short.h5"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char p[4200];
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        unlink(p);
    }
    rmdir(dir);
}

int main(void)
{
    char  tmpl[] = "/tmp/h5sf-unit-layout-XXXXXX";
    char *tmp    = mkdtemp(tmpl);
    t_start("unit_layout");
    t_rnd_seed(88172645463325252ull);
    if (!tmp)
        t_die_io("create", tmpl);
    test_names();
    test_set_stub(tmp);
    test_config_file(tmp);
    test_config_parse();
    test_drvinfo();
    test_stub_lacks_root(tmp);
    rmdir(tmp);
    return t_verdict();
}
