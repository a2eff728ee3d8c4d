/*
 * t_errstack -- h5sf's entries in the HDF5 error stack name the place that
 * raised them: the source file, function and line of the H5SF_GOTO, not the
 * error module.
 *
 *  A  H5Fcreate with a bad config string (stripe_size=1.5MiB) fails; the
 *     h5sf entry names vfd/open.c and h5sf_open, and says stripe_size.
 *  B  H5Pset_fapl_h5sf with a bad struct (magic 0) fails; the h5sf entry
 *     names vfd/fapl.c and H5Pset_fapl_h5sf.
 *  C  H5Fopen of a file that does not exist fails; there is an h5sf entry.
 * For every h5sf entry of A-C: the file is not vfd/err.c, the line it
 * gives holds an H5SF_GOTO or H5SF_PUSH in that file (read from disk: the
 * build passes absolute source paths), and the function is defined there.
 * The expected names are written here, not taken from the library.
 *  E  The innermost entry of a failed open carries the system call's errno
 *     in HDF5's own form, as sec2's does (", errno = N, error message =
 *     '...'"), which h5py turns into FileNotFoundError, FileExistsError
 *     and so on: H5Fopen of a missing file (ENOENT), H5Fcreate with
 *     H5F_ACC_EXCL of an existing one (EEXIST).
 *  D  A successful H5Dwrite and H5Dread, through each channel (the direct
 *     one and the IOC one's same-node shortcut), leave the error stack
 *     empty, and the bytes read back are the ones written.
 *
 * Usage: mpiexec -n N t_errstack.  Exit status 1 on any failed check
 * (agreed over all ranks).  D writes under a fresh /tmp/h5sf-es-XXXXXX,
 * removed at the end.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>
#include <hdf5.h>
#include "h5sf.h"
#include "h5sf_test.h"

/* One entry of the stack, copied out (HDF5 frees the stack). */
typedef struct {
    char     file[1024], func[256], desc[1024];
    unsigned line;
    hid_t    cls;
} entry_t;

typedef struct {
    entry_t e[64];
    int     n;
} entries_t;

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), t = strlen(tail);
    return n >= t && strcmp(s + n - t, tail) == 0;
}

/* Copy every entry, innermost last (no HDF5 calls in here: they would
 * touch the stack being walked). */
static herr_t walk_cb(unsigned n, const H5E_error2_t *err, void *p)
{
    entries_t *es = p;
    (void)n;
    if (es->n == (int)(sizeof es->e / sizeof *es->e))
        return 0;
    entry_t *e = &es->e[es->n++];
    snprintf(e->file, sizeof e->file, "%s", err->file_name ? err->file_name : "");
    snprintf(e->func, sizeof e->func, "%s", err->func_name ? err->func_name : "");
    snprintf(e->desc, sizeof e->desc, "%s", err->desc ? err->desc : "");
    e->line = err->line;
    e->cls  = err->cls_id;
    return 0;
}

/* The entries of h5sf's error class ("h5sf") in the current stack, which
 * is cleared. */
static void collect(entries_t *es)
{
    entries_t all = {.n = 0};
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, walk_cb, &all);
    H5Eclear2(H5E_DEFAULT);
    es->n = 0;
    for (int i = 0; i < all.n; i++) {
        char cls[64] = "";
        if (H5Eget_class_name(all.e[i].cls, cls, sizeof cls) > 0 && strcmp(cls, "h5sf") == 0)
            es->e[es->n++] = all.e[i];
    }
}

/* Line `line` (1-based) of `path` into buf; 0 on success. */
static int source_line(const char *path, unsigned line, char *buf, size_t size)
{
    FILE    *fp  = fopen(path, "r");
    unsigned at  = 0;
    int      ret = -1;
    if (!fp)
        return -1;
    while (fgets(buf, (int)size, fp))
        if (++at == line) {
            ret = 0;
            break;
        }
    fclose(fp);
    return ret;
}

/* True if `path` holds a definition-like occurrence "func(". */
static int file_defines(const char *path, const char *func)
{
    char  want[300], buf[4096];
    FILE *fp    = fopen(path, "r");
    int   found = 0;
    if (!fp)
        return 0;
    snprintf(want, sizeof want, "%s(", func);
    while (!found && fgets(buf, sizeof buf, fp))
        found = strstr(buf, want) != NULL;
    fclose(fp);
    return found;
}

/* The checks every h5sf entry must pass. */
static void check_entry(const char *part, const entry_t *e)
{
    char src[4096];
    CHECK(!ends_with(e->file, "/err.c"), "%s: entry names %s line %u (the error module)", part, e->file, e->line);
    CHECK(e->line > 0, "%s: entry without a line", part);
    if (source_line(e->file, e->line, src, sizeof src) < 0)
        CHECK(0, "%s: cannot read line %u of %s", part, e->line, e->file);
    else
        CHECK(strstr(src, "H5SF_GOTO") || strstr(src, "H5SF_PUSH"), "%s: %s line %u is not an error push: %s", part,
              e->file, e->line, src);
    CHECK(file_defines(e->file, e->func), "%s: %s does not define %s()", part, e->file, e->func);
}

/* Check all entries; return the first one naming file `tail` and `func`, or NULL. */
static const entry_t *check_all(const char *part, const entries_t *es, const char *tail, const char *func)
{
    const entry_t *hit = NULL;
    CHECK(es->n > 0, "%s: no h5sf entry in the error stack", part);
    for (int i = 0; i < es->n; i++) {
        check_entry(part, &es->e[i]);
        if (!hit && tail && ends_with(es->e[i].file, tail) && strcmp(es->e[i].func, func) == 0)
            hit = &es->e[i];
    }
    if (tail) {
        CHECK(hit != NULL, "%s: no h5sf entry from %s in %s", part, func, tail);
        for (int i = 0; !hit && i < es->n; i++)
            fprintf(stderr, "  entry %d: %s line %u in %s(): %s\n", i, es->e[i].file, es->e[i].line, es->e[i].func,
                    es->e[i].desc);
    }
    return hit;
}

static void test_config_string(void)
{
    entries_t es;
    hid_t     fapl = H5Pcreate(H5P_FILE_ACCESS), fid;
    H5Pset_mpi_params(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    /* The linked driver, registered first: the test runs without a plugin
     * path (see t_errstack.cmake), and by name then finds this one. */
    H5FD_h5sf_init();
    CHECK(H5Pset_driver_by_name(fapl, H5FD_H5SF_NAME, "stripe_size=1.5MiB") >= 0, "A: H5Pset_driver_by_name failed");
    H5E_BEGIN_TRY { fid = H5Fcreate("/tmp/h5sf-t_errstack-never.h5", H5F_ACC_TRUNC, H5P_DEFAULT, fapl); }
    H5E_END_TRY
    CHECK(fid < 0, "A: H5Fcreate accepted stripe_size=1.5MiB");
    if (fid >= 0)
        H5Fclose(fid);
    collect(&es);
    const entry_t *e = check_all("A", &es, "/vfd/open.c", "h5sf_open");
    if (e)
        CHECK(strstr(e->desc, "stripe_size") != NULL, "A: the entry does not name the key: %s", e->desc);
    H5Pclose(fapl);
}

static void test_bad_struct(void)
{
    entries_t          es;
    H5FD_h5sf_config_t c;
    hid_t              fapl = H5Pcreate(H5P_FILE_ACCESS);
    herr_t             r;
    H5FD_h5sf_config_init(&c);
    c.magic = 0;
    H5E_BEGIN_TRY { r = H5Pset_fapl_h5sf(fapl, &c); }
    H5E_END_TRY
    CHECK(r < 0, "B: H5Pset_fapl_h5sf accepted magic 0");
    collect(&es);
    check_all("B", &es, "/vfd/fapl.c", "H5Pset_fapl_h5sf");
    H5Pclose(fapl);
}

static void test_missing_file(void)
{
    entries_t es;
    hid_t     fapl = H5Pcreate(H5P_FILE_ACCESS), fid;
    H5Pset_mpi_params(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    H5Pset_fapl_h5sf(fapl, NULL);
    H5E_BEGIN_TRY { fid = H5Fopen("/nonexistent-h5sf-dir/missing.h5", H5F_ACC_RDONLY, fapl); }
    H5E_END_TRY
    CHECK(fid < 0, "C: H5Fopen of a missing file succeeded");
    if (fid >= 0)
        H5Fclose(fid);
    collect(&es);
    check_all("C", &es, NULL, NULL);
    H5Pclose(fapl);
}

/* E: the innermost entry (the one h5py reads for errno) of the failed
 * operation has ", errno = <want>, error message = '". */
static void check_errno(const char *part, int want)
{
    entries_t es;
    char      form[64];
    collect(&es);
    CHECK(es.n > 0, "%s: no h5sf entry in the error stack", part);
    if (es.n <= 0)
        return;
    snprintf(form, sizeof form, ", errno = %d, error message = '", want);
    CHECK(strstr(es.e[es.n - 1].desc, form) != NULL, "%s: the innermost entry lacks \"%s\": %s", part, form,
          es.e[es.n - 1].desc);
}

static void test_errno_form(const char *dir)
{
    char  path[4200];
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS), fid;
    H5Pset_mpi_params(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    H5Pset_fapl_h5sf(fapl, NULL);
    snprintf(path, sizeof path, "%s/missing.h5", dir);
    H5E_BEGIN_TRY { fid = H5Fopen(path, H5F_ACC_RDONLY, fapl); }
    H5E_END_TRY
    CHECK(fid < 0, "E: H5Fopen of a missing file succeeded");
    if (fid >= 0)
        H5Fclose(fid);
    check_errno("E missing", ENOENT);
    snprintf(path, sizeof path, "%s/exists.h5", dir);
    fid = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    CHECK(fid >= 0 && H5Fclose(fid) >= 0, "E: H5Fcreate of %s failed", path);
    H5E_BEGIN_TRY { fid = H5Fcreate(path, H5F_ACC_EXCL, H5P_DEFAULT, fapl); }
    H5E_END_TRY
    CHECK(fid < 0, "E: H5Fcreate(H5F_ACC_EXCL) of an existing file succeeded");
    if (fid >= 0)
        H5Fclose(fid);
    check_errno("E exists", EEXIST);
    H5Pclose(fapl);
}

/* D: one channel.  Each rank writes and reads back its block of a 1 MiB
 * dataset striped over 3 subfiles of 64 KiB stripes. */
static void test_clean_stack(const char *dir, const char *channel)
{
    enum { N = 1 << 18 };
    static int wbuf[N], rbuf[N];
    char       path[4200], conf[128];
    hsize_t    total = N, per = N / (hsize_t)t_size, start = per * (hsize_t)t_rank;
    for (hsize_t i = 0; i < per; i++)
        wbuf[i] = t_pat_int(1, start + i);
    snprintf(path, sizeof path, "%s/d-%s.h5", dir, channel);
    snprintf(conf, sizeof conf, "stripe_size=65536,stripe_count=3,channel=%s", channel);
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_mpi_params(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    H5FD_h5sf_init();
    CHECK(H5Pset_driver_by_name(fapl, H5FD_H5SF_NAME, conf) >= 0, "D %s: H5Pset_driver_by_name failed", channel);
    hid_t fid = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    CHECK(fid >= 0, "D %s: H5Fcreate failed", channel);
    if (fid < 0) {
        H5Pclose(fapl);
        return;
    }
    hid_t fs = H5Screate_simple(1, &total, NULL), ms = H5Screate_simple(1, &per, NULL);
    hid_t ds = H5Dcreate2(fid, "d", H5T_NATIVE_INT, fs, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &per, NULL);
    herr_t r = H5Dwrite(ds, H5T_NATIVE_INT, ms, fs, H5P_DEFAULT, wbuf);
    CHECK(r >= 0, "D %s: H5Dwrite failed", channel);
    ssize_t n = H5Eget_num(H5E_DEFAULT);
    CHECK(n == 0, "D %s: a successful H5Dwrite left %zd entries on the error stack", channel, n);
    r = H5Dread(ds, H5T_NATIVE_INT, ms, fs, H5P_DEFAULT, rbuf);
    CHECK(r >= 0, "D %s: H5Dread failed", channel);
    n = H5Eget_num(H5E_DEFAULT);
    CHECK(n == 0, "D %s: a successful H5Dread left %zd entries on the error stack", channel, n);
    CHECK(memcmp(wbuf, rbuf, (size_t)per * sizeof *wbuf) == 0, "D %s: the bytes read differ from those written",
          channel);
    H5Dclose(ds);
    H5Sclose(fs);
    H5Sclose(ms);
    CHECK(H5Fclose(fid) >= 0, "D %s: H5Fclose failed", channel);
    H5Pclose(fapl);
}

/* Rank 0: every file of dir (the stubs, subfiles, config files), then dir. */
static void remove_dir(const char *dir)
{
    DIR           *d = opendir(dir);
    struct dirent *de;
    char           p[4400];
    while (d && (de = readdir(d)))
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
            snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
            unlink(p);
        }
    if (d)
        closedir(d);
    rmdir(dir);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv, "t_errstack");
    unsetenv("H5SF_STRIPE_SIZE");
    unsetenv("H5FD_SUBFILING_STRIPE_SIZE");

    test_config_string();
    test_bad_struct();
    test_missing_file();

    char dir[64] = "/tmp/h5sf-es-XXXXXX";
    if (t_rank == 0 && !mkdtemp(dir))
        dir[0] = 0;
    MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
    CHECK(dir[0], "D: cannot make a directory under /tmp");
    if (dir[0]) {
        test_errno_form(dir);
        test_clean_stack(dir, "direct");
        test_clean_stack(dir, "ioc");
        MPI_Barrier(MPI_COMM_WORLD);
        if (t_rank == 0)
            remove_dir(dir);
    }

    H5close();
    return t_finish();
}
