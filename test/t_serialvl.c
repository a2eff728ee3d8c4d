/*
 * t_serialvl.c -- variable-length data in a serial h5sf file.
 *
 * A file opened without a communicator is serial (MPI_COMM_SELF), and h5sf
 * tells HDF5 so (no H5FD_FEAT_HAS_MPI): HDF5 then writes variable-length
 * data as it does under sec2, where parallel HDF5 refuses it ("Parallel IO
 * does not support writing VL or region reference datatypes yet").
 *
 * Every rank, at once, writes the same program's data twice: once to an
 * h5sf file through H5P_DEFAULT (ctest sets HDF5_DRIVER=h5sf) and once to a
 * sec2 file (H5Pset_fapl_sec2): variable-length strings (empty, short,
 * 3000 bytes, UTF-8; contiguous and chunked), vlen sequences of int
 * (lengths 0 to 1000), a compound holding a string and a vlen of double,
 * and a string attribute.  Both files are read back and rendered as text;
 * each rendering must equal the one made from the generating functions,
 * so the h5sf file reads exactly as sec2's.  The h5sf file is read once
 * more through a named MPI_COMM_SELF (parallel HDF5 reads VL data).
 *
 * A named communicator keeps parallel HDF5's rules, even of one rank: on
 * MPI_COMM_SELF named with H5Pset_mpi_params, h5sf refuses the VL write
 * exactly as HDF5's MPI-IO driver does on the same communicator.
 *
 * usage: mpiexec -n N t_serialvl DIR
 */
#include <mpi.h>
#include <hdf5.h>
#include "h5sf.h"
#include "h5sf_test.h"

#define NSTR  6
#define NCHK  9
#define NVLEN 5
#define NREC  4

typedef struct rec {
    int   id;
    char *name;
    hvl_t vals; /* double */
} rec_t;

static const char *g_dir;

/* ---- the data, from generating functions ------------------------------ */

static char *str_of(int i)
{
    char *s = malloc(3200);
    switch (i % NSTR) {
        case 0: s[0] = '\0'; break;
        case 1: snprintf(s, 3200, "x"); break;
        case 2: snprintf(s, 3200, "rank %d, string %d", t_rank, i); break;
        case 3:
            for (int k = 0; k < 3000; k++)
                s[k] = (char)('a' + (k * 7 + i + t_rank) % 26);
            s[3000] = '\0';
            break;
        case 4: snprintf(s, 3200, "pi \xcf\x80 \xe2\x89\x88 3.14159 (rank %d)", t_rank); break;
        default: snprintf(s, 3200, "last %d", i); break;
    }
    return s;
}

static size_t vlen_len(int i) { return i == 0 ? 0 : (size_t)((i * i * 37 + t_rank) % 1000) + 1; }
static int    vlen_val(int i, size_t k) { return (int)((uint64_t)(i * 100003 + (int)k) * 2654435761u) ^ t_rank; }
static double rec_val(int i, size_t k) { return (double)i * 1.5 + (double)k / 8.0 + t_rank; }

/* ---- text renderings --------------------------------------------------- */

typedef struct text {
    char  *buf;
    size_t len, cap;
} text_t;

static void tput(text_t *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void tput(text_t *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (t->len + (size_t)n + 1 > t->cap) {
        t->cap = 2 * (t->len + (size_t)n + 1);
        t->buf = realloc(t->buf, t->cap);
    }
    va_start(ap, fmt);
    vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
    va_end(ap);
    t->len += (size_t)n;
}

static void render_str(text_t *t, const char *what, int i, const char *s)
{
    tput(t, "%s[%d] = \"%s\"\n", what, i, s ? s : "(null)");
}

static void render_vlen(text_t *t, int i, const hvl_t *v)
{
    tput(t, "vlen[%d] len %zu:", i, v->len);
    for (size_t k = 0; k < v->len; k++)
        tput(t, " %d", ((const int *)v->p)[k]);
    tput(t, "\n");
}

static void render_rec(text_t *t, int i, const rec_t *r)
{
    tput(t, "rec[%d] id %d name \"%s\" len %zu:", i, r->id, r->name ? r->name : "(null)", r->vals.len);
    for (size_t k = 0; k < r->vals.len; k++)
        tput(t, " %.17g", ((const double *)r->vals.p)[k]);
    tput(t, "\n");
}

/* What every file must read as. */
static char *expected_text(void)
{
    text_t t = {0};
    for (int i = 0; i < NSTR; i++) {
        char *s = str_of(i);
        render_str(&t, "str", i, s);
        free(s);
    }
    for (int i = 0; i < NCHK; i++) {
        char *s = str_of(i + 2);
        render_str(&t, "str_chunked", i, s);
        free(s);
    }
    for (int i = 0; i < NVLEN; i++) {
        hvl_t v = {vlen_len(i), malloc(vlen_len(i) * sizeof(int) + 1)};
        for (size_t k = 0; k < v.len; k++)
            ((int *)v.p)[k] = vlen_val(i, k);
        render_vlen(&t, i, &v);
        free(v.p);
    }
    for (int i = 0; i < NREC; i++) {
        rec_t r = {100 * t_rank + i, str_of(i + 1), {(size_t)i * 3, malloc((size_t)i * 3 * sizeof(double) + 1)}};
        for (size_t k = 0; k < r.vals.len; k++)
            ((double *)r.vals.p)[k] = rec_val(i, k);
        render_rec(&t, i, &r);
        free(r.name);
        free(r.vals.p);
    }
    char *note = str_of(2);
    render_str(&t, "attr", 0, note);
    free(note);
    return t.buf;
}

/* ---- types ------------------------------------------------------------- */

static hid_t vstr_type(void)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    H5Tset_cset(t, H5T_CSET_UTF8);
    return t;
}

static hid_t rec_type(void)
{
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(rec_t)), s = vstr_type(), v = H5Tvlen_create(H5T_NATIVE_DOUBLE);
    H5Tinsert(t, "id", HOFFSET(rec_t, id), H5T_NATIVE_INT);
    H5Tinsert(t, "name", HOFFSET(rec_t, name), s);
    H5Tinsert(t, "vals", HOFFSET(rec_t, vals), v);
    H5Tclose(s);
    H5Tclose(v);
    return t;
}

/* ---- write and read ---------------------------------------------------- */

static herr_t write_dset(hid_t f, const char *name, hid_t type, hsize_t n, hid_t dcpl, const void *buf,
                         t_errtext_t *err)
{
    hid_t  sp = H5Screate_simple(1, &n, NULL);
    hid_t  d  = H5Dcreate2(f, name, type, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    herr_t r  = d < 0 ? -1 : H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
    if (r < 0 && err && !err->len)
        t_errors(err);
    if (d >= 0)
        H5Dclose(d);
    H5Sclose(sp);
    return r;
}

/* Write everything; 0, or -1 with the first error stack in *err. */
static int write_all(hid_t fapl, const char *path, t_errtext_t *err)
{
    int   bad = 0;
    hid_t f   = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    err->len  = 0;
    if (f < 0) {
        t_errors(err);
        return -1;
    }
    hid_t st = vstr_type(), vt = H5Tvlen_create(H5T_NATIVE_INT), rt = rec_type();
    char *strs[NSTR], *chk[NCHK];
    hvl_t vl[NVLEN];
    rec_t rec[NREC];
    for (int i = 0; i < NSTR; i++)
        strs[i] = str_of(i);
    for (int i = 0; i < NCHK; i++)
        chk[i] = str_of(i + 2);
    for (int i = 0; i < NVLEN; i++) {
        vl[i].len = vlen_len(i);
        vl[i].p   = malloc(vl[i].len * sizeof(int) + 1);
        for (size_t k = 0; k < vl[i].len; k++)
            ((int *)vl[i].p)[k] = vlen_val(i, k);
    }
    for (int i = 0; i < NREC; i++) {
        rec[i].id       = 100 * t_rank + i;
        rec[i].name     = str_of(i + 1);
        rec[i].vals.len = (size_t)i * 3;
        rec[i].vals.p   = malloc(rec[i].vals.len * sizeof(double) + 1);
        for (size_t k = 0; k < rec[i].vals.len; k++)
            ((double *)rec[i].vals.p)[k] = rec_val(i, k);
    }
    hid_t   dcpl  = H5Pcreate(H5P_DATASET_CREATE);
    hsize_t chunk = 2;
    H5Pset_chunk(dcpl, 1, &chunk);
    bad += write_dset(f, "str", st, NSTR, H5P_DEFAULT, strs, err) < 0;
    bad += write_dset(f, "str_chunked", st, NCHK, dcpl, chk, err) < 0;
    bad += write_dset(f, "vlen", vt, NVLEN, H5P_DEFAULT, vl, err) < 0;
    bad += write_dset(f, "rec", rt, NREC, H5P_DEFAULT, rec, err) < 0;
    hid_t sp = H5Screate(H5S_SCALAR), a = H5Acreate2(f, "note", st, sp, H5P_DEFAULT, H5P_DEFAULT);
    char *note = str_of(2);
    if (a < 0 || H5Awrite(a, st, &note) < 0) {
        if (!err->len)
            t_errors(err);
        bad++;
    }
    free(note);
    if (a >= 0)
        H5Aclose(a);
    H5Sclose(sp);
    H5Pclose(dcpl);
    if (H5Fclose(f) < 0) {
        if (!err->len)
            t_errors(err);
        bad++;
    }
    for (int i = 0; i < NSTR; i++)
        free(strs[i]);
    for (int i = 0; i < NCHK; i++)
        free(chk[i]);
    for (int i = 0; i < NVLEN; i++)
        free(vl[i].p);
    for (int i = 0; i < NREC; i++) {
        free(rec[i].name);
        free(rec[i].vals.p);
    }
    H5Tclose(st);
    H5Tclose(vt);
    H5Tclose(rt);
    return bad ? -1 : 0;
}

static void read_strs(hid_t f, const char *name, int n, hid_t st, text_t *t)
{
    char **s = calloc((size_t)n, sizeof *s);
    hid_t  d = H5Dopen2(f, name, H5P_DEFAULT);
    if (d >= 0 && H5Dread(d, st, H5S_ALL, H5S_ALL, H5P_DEFAULT, s) >= 0) {
        for (int i = 0; i < n; i++)
            render_str(t, name, i, s[i]);
        hid_t sp = H5Dget_space(d);
        H5Treclaim(st, sp, H5P_DEFAULT, s);
        H5Sclose(sp);
    }
    else
        tput(t, "%s: cannot read\n", name);
    if (d >= 0)
        H5Dclose(d);
    free(s);
}

/* Everything in the file, rendered; NULL if the file does not open. */
static char *read_all(hid_t fapl, const char *path)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    if (f < 0)
        return NULL;
    text_t t  = {0};
    hid_t  st = vstr_type(), vt = H5Tvlen_create(H5T_NATIVE_INT), rt = rec_type();
    read_strs(f, "str", NSTR, st, &t);
    read_strs(f, "str_chunked", NCHK, st, &t);
    hvl_t vl[NVLEN];
    hid_t d = H5Dopen2(f, "vlen", H5P_DEFAULT);
    if (d >= 0 && H5Dread(d, vt, H5S_ALL, H5S_ALL, H5P_DEFAULT, vl) >= 0) {
        for (int i = 0; i < NVLEN; i++)
            render_vlen(&t, i, &vl[i]);
        hid_t sp = H5Dget_space(d);
        H5Treclaim(vt, sp, H5P_DEFAULT, vl);
        H5Sclose(sp);
    }
    else
        tput(&t, "vlen: cannot read\n");
    if (d >= 0)
        H5Dclose(d);
    rec_t rec[NREC];
    d = H5Dopen2(f, "rec", H5P_DEFAULT);
    if (d >= 0 && H5Dread(d, rt, H5S_ALL, H5S_ALL, H5P_DEFAULT, rec) >= 0) {
        for (int i = 0; i < NREC; i++)
            render_rec(&t, i, &rec[i]);
        hid_t sp = H5Dget_space(d);
        H5Treclaim(rt, sp, H5P_DEFAULT, rec);
        H5Sclose(sp);
    }
    else
        tput(&t, "rec: cannot read\n");
    if (d >= 0)
        H5Dclose(d);
    char *note = NULL;
    hid_t a    = H5Aopen(f, "note", H5P_DEFAULT);
    if (a >= 0 && H5Aread(a, st, &note) >= 0) {
        render_str(&t, "attr", 0, note);
        H5free_memory(note);
    }
    else
        tput(&t, "attr: cannot read\n");
    if (a >= 0)
        H5Aclose(a);
    H5Tclose(st);
    H5Tclose(vt);
    H5Tclose(rt);
    if (H5Fclose(f) < 0)
        tput(&t, "close failed\n");
    return t.buf;
}

/* First differing line of a and b, for the message. */
static void first_diff(const char *a, const char *b, char *out, size_t n)
{
    int line = 1;
    while (*a && *a == *b) {
        line += *a == '\n';
        a++, b++;
    }
    snprintf(out, n, "line %d: \"%.60s\" vs \"%.60s\"", line, a, b);
}

static void compare(const char *what, const char *got, const char *want)
{
    char why[256];
    CHECK(got != NULL, "%s: the file does not open", what);
    if (!got)
        return;
    if (strcmp(got, want))
        first_diff(got, want, why, sizeof why);
    CHECK(!strcmp(got, want), "%s does not read as written: %s", what, why);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv, "t_serialvl");
    if (argc != 2 || !getenv("HDF5_DRIVER") || strcmp(getenv("HDF5_DRIVER"), "h5sf")) {
        if (t_rank == 0)
            fprintf(stderr, "usage: HDF5_DRIVER=h5sf mpiexec -n N t_serialvl DIR\n");
        MPI_Finalize();
        return 2;
    }
    g_dir = argv[1];
    t_mkdir_world(g_dir);
    char p_h5sf[4096], p_sec2[4096], p_self[4096], p_mpio[4096];
    snprintf(p_h5sf, sizeof p_h5sf, "%s/vl_h5sf_%d.h5", g_dir, t_rank);
    snprintf(p_sec2, sizeof p_sec2, "%s/vl_sec2_%d.h5", g_dir, t_rank);
    snprintf(p_self, sizeof p_self, "%s/vl_self_%d.h5", g_dir, t_rank);
    snprintf(p_mpio, sizeof p_mpio, "%s/vl_mpio_%d.h5", g_dir, t_rank);
    char       *want = expected_text();
    t_errtext_t err;

    hid_t sec2 = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_sec2(sec2);
    t_step(60, "VL data through a serial h5sf file (H5P_DEFAULT)");
    CHECK(write_all(H5P_DEFAULT, p_h5sf, &err) == 0, "writing VL data to a serial h5sf file failed:\n%s", err.buf);
    t_step(60, "VL data through sec2");
    CHECK(write_all(sec2, p_sec2, &err) == 0, "writing VL data with sec2 failed:\n%s", err.buf);

    t_step(60, "read back");
    char *got_h5sf = read_all(H5P_DEFAULT, p_h5sf), *got_sec2 = read_all(sec2, p_sec2);
    compare("the sec2 file", got_sec2, want);
    compare("the h5sf file", got_h5sf, want);
    hid_t self = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_mpi_params(self, MPI_COMM_SELF, MPI_INFO_NULL);
    char *got_self = read_all(self, p_h5sf);
    compare("the h5sf file read through a named MPI_COMM_SELF", got_self, want);
    struct stat st;
    char        cfg[4200];
    CHECK(stat(p_h5sf, &st) == 0, "no stub %s", p_h5sf);
    snprintf(cfg, sizeof cfg, "%s.subfile_%llu.config", p_h5sf, (unsigned long long)st.st_ino);
    CHECK(stat(cfg, &st) == 0, "no config file %s: the file did not go through h5sf", cfg);

    /* A named one-rank communicator: parallel HDF5's rules, as MPI-IO's. */
    t_step(60, "VL data on a named MPI_COMM_SELF: h5sf and MPI-IO");
    hid_t mpio = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(mpio, MPI_COMM_SELF, MPI_INFO_NULL);
    t_errtext_t err_mpio;
    int         r_self = write_all(self, p_self, &err), r_mpio = write_all(mpio, p_mpio, &err_mpio);
    const char *refusal = "Parallel IO does not support writing VL";
    CHECK(r_mpio < 0 && strstr(err_mpio.buf, refusal), "MPI-IO on MPI_COMM_SELF: expected HDF5's refusal, got %s",
          r_mpio < 0 ? err_mpio.buf : "success");
    CHECK(r_self < 0 && strstr(err.buf, refusal),
          "h5sf on a named MPI_COMM_SELF: expected HDF5's refusal (as MPI-IO), got %s",
          r_self < 0 ? err.buf : "success");

    MPI_Barrier(MPI_COMM_WORLD);
    if (t_fails == 0) {
        H5Fdelete(p_h5sf, H5P_DEFAULT);
        H5Fdelete(p_self, self);
        unlink(p_sec2);
        unlink(p_mpio);
    }
    free(want);
    free(got_h5sf);
    free(got_sec2);
    free(got_self);
    H5Pclose(sec2);
    H5Pclose(self);
    H5Pclose(mpio);
    return t_finish();
}
