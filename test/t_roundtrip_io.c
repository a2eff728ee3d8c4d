/*
 * t_roundtrip_io.c -- t_roundtrip's passes over one file: write every
 * dataset and the attributes, read back the own selection and the whole
 * dataset and compare with the pattern and the MPI-IO reference; and the
 * on-disk check of subfile names, count and config file.
 * Chooses no configuration (t_roundtrip.c does).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "t_roundtrip.h"

/* ---- write / read ---------------------------------------------------- */

hid_t make_dxpl(int collective)
{
    hid_t dxpl = H5VRFY(H5Pcreate(H5P_DATASET_XFER));
    H5VRFY(H5Pset_dxpl_mpio(dxpl, collective ? H5FD_MPIO_COLLECTIVE : H5FD_MPIO_INDEPENDENT));
    return dxpl;
}

void write_file(hid_t file, int collective, const char *ctx)
{
    hid_t dxpl = make_dxpl(collective);
    for (int k = 0; k < DS_COUNT; k++) {
        const dsinfo_t *d      = &g_ds[k];
        hid_t           fspace = H5VRFY(H5Screate_simple(d->ndims, d->dims, NULL));
        hid_t           dcpl   = H5VRFY(H5Pcreate(H5P_DATASET_CREATE));
        if (d->kind == DS_CHUNKED) {
            hsize_t chunk[2] = {16, 50};
            H5VRFY(H5Pset_chunk(dcpl, 2, chunk));
        }
        else if (d->kind == DS_COMPACT)
            H5VRFY(H5Pset_layout(dcpl, H5D_COMPACT));
        if (d->is_double) {
            double fv = FILL_VALUE;
            H5VRFY(H5Pset_fill_value(dcpl, H5T_NATIVE_DOUBLE, &fv));
        }
        else {
            int fv = (int)FILL_VALUE;
            H5VRFY(H5Pset_fill_value(dcpl, H5T_NATIVE_INT, &fv));
        }
        hid_t dset = H5VRFY(H5Dcreate2(file, d->name, filetype(d), fspace, H5P_DEFAULT, dcpl, H5P_DEFAULT));

        sel_t s;
        sel_make(d, t_rank, &s);
        void *buf = buf_alloc(d, s.memn);
        for (size_t i = 0; i < s.memn; i++)
            buf_set(d, buf, i, POISON);
        for (size_t i = 0; i < s.n; i++)
            buf_set(d, buf, s.memoff[i], pattern(d->kind, s.gidx[i], d->is_double));
        char what[1024];
        snprintf(what, sizeof what, "%s write %s", ctx, d->name);
        CHECK((H5Dwrite(dset, memtype(d), s.mspace, s.fspace, dxpl, buf)) >= 0,
              "%s: H5Dwrite(dset, memtype(d), s.mspace, s.fspace, dxpl, buf) failed", what);

        if (d->kind == DS_CONTIG) {
            /* An int attribute on a dataset. */
            hsize_t n = 7;
            int     v[7];
            for (int i = 0; i < 7; i++)
                v[i] = (int)pattern(101, (uint64_t)i, 0);
            hid_t as = H5VRFY(H5Screate_simple(1, &n, NULL));
            hid_t a  = H5VRFY(H5Acreate2(dset, "attr_i", H5T_STD_I32LE, as, H5P_DEFAULT, H5P_DEFAULT));
            CHECK((H5Awrite(a, H5T_NATIVE_INT, v)) >= 0, "%s: H5Awrite(a, H5T_NATIVE_INT, v) failed", "write attr_i");
            H5Aclose(a);
            H5Sclose(as);
        }
        free(buf);
        sel_free(&s);
        H5Dclose(dset);
        H5Pclose(dcpl);
        H5Sclose(fspace);
    }
    /* A double attribute on the root group. */
    {
        hsize_t n = 50;
        double  v[50];
        for (int i = 0; i < 50; i++)
            v[i] = pattern(100, (uint64_t)i, 1);
        hid_t as = H5VRFY(H5Screate_simple(1, &n, NULL));
        hid_t a  = H5VRFY(H5Acreate2(file, "attr_d", H5T_IEEE_F64LE, as, H5P_DEFAULT, H5P_DEFAULT));
        CHECK((H5Awrite(a, H5T_NATIVE_DOUBLE, v)) >= 0, "%s: H5Awrite(a, H5T_NATIVE_DOUBLE, v) failed", "write attr_d");
        H5Aclose(a);
        H5Sclose(as);
    }
    H5Pclose(dxpl);
}

void check_attrs(hid_t file, const char *ctx)
{
    char   what[1024];
    double vd[50];
    int    vi[7];
    long   nbad = 0;
    for (int i = 0; i < 50; i++)
        vd[i] = POISON;
    for (int i = 0; i < 7; i++)
        vi[i] = (int)POISON;

    hid_t a = H5Aopen(file, "attr_d", H5P_DEFAULT);
    snprintf(what, sizeof what, "%s read attr_d", ctx);
    CHECK(a >= 0, "%s: cannot open attribute", what);
    if (a >= 0) {
        CHECK((H5Aread(a, H5T_NATIVE_DOUBLE, vd)) >= 0, "%s: H5Aread(a, H5T_NATIVE_DOUBLE, vd) failed", what);
        H5Aclose(a);
        for (int i = 0; i < 50; i++)
            if (vd[i] != pattern(100, (uint64_t)i, 1) && ++nbad <= MAX_REPORT)
                fprintf(stderr, "[rank %d] MISMATCH %s: attribute /attr_d element %d: got %.17g expected %.17g\n",
                        t_rank, ctx, i, vd[i], pattern(100, (uint64_t)i, 1));
    }
    hid_t d = H5Dopen2(file, "contig", H5P_DEFAULT);
    a       = d < 0 ? -1 : H5Aopen(d, "attr_i", H5P_DEFAULT);
    snprintf(what, sizeof what, "%s read contig/attr_i", ctx);
    CHECK(a >= 0, "%s: cannot open attribute", what);
    if (a >= 0) {
        CHECK((H5Aread(a, H5T_NATIVE_INT, vi)) >= 0, "%s: H5Aread(a, H5T_NATIVE_INT, vi) failed", what);
        H5Aclose(a);
        for (int i = 0; i < 7; i++)
            if (vi[i] != (int)pattern(101, (uint64_t)i, 0) && ++nbad <= MAX_REPORT)
                fprintf(stderr, "[rank %d] MISMATCH %s: attribute /contig/attr_i element %d: got %d expected %d\n",
                        t_rank, ctx, i, vi[i], (int)pattern(101, (uint64_t)i, 0));
    }
    if (d >= 0)
        H5Dclose(d);
    CHECK(nbad == 0, "%s: %ld attribute elements wrong", ctx, nbad);
}

/* Read every dataset (own selection, then whole) and check it against the
 * pattern and, if ref is given, element-wise against the reference data.
 * If keep is given, the whole-dataset contents are returned in it. */
void read_check(hid_t file, int collective, const char *ctx, double *const ref[DS_COUNT], double *keep[DS_COUNT])
{
    hid_t dxpl = make_dxpl(collective);
    char  what[1024];

    for (int k = 0; k < DS_COUNT; k++) {
        const dsinfo_t *d    = &g_ds[k];
        hid_t           dset = H5Dopen2(file, d->name, H5P_DEFAULT);
        CHECK(dset >= 0, "%s: cannot open dataset %s", ctx, d->name);
        if (dset < 0)
            continue;

        /* Own selection, into a poisoned buffer. */
        sel_t s;
        sel_make(d, t_rank, &s);
        void *buf = buf_alloc(d, s.memn);
        for (size_t i = 0; i < s.memn; i++)
            buf_set(d, buf, i, POISON);
        snprintf(what, sizeof what, "%s (own selection)", ctx);
        CHECK((H5Dread(dset, memtype(d), s.mspace, s.fspace, dxpl, buf)) >= 0,
              "%s: H5Dread(dset, memtype(d), s.mspace, s.fspace, dxpl, buf) failed", what);
        long   nbad = 0;
        size_t k2   = 0;
        for (size_t i = 0; i < s.memn; i++) {
            /* memoff is increasing, so walk the two in step */
            double   want, got = buf_get(d, buf, i);
            uint64_t g;
            if (k2 < s.n && s.memoff[k2] == i) {
                g    = s.gidx[k2++];
                want = pattern(d->kind, g, d->is_double);
            }
            else {
                g    = i; /* memory offset of a padding element */
                want = POISON;
            }
            if (got != want)
                report(want == POISON ? "memory padding overwritten" : what, d, g, got, want, &nbad);
        }
        report_done(what, d, nbad);
        free(buf);
        sel_free(&s);

        /* Whole dataset. */
        const uint64_t tot = ds_nelem(d);
        buf                = buf_alloc(d, tot);
        for (size_t i = 0; i < tot; i++)
            buf_set(d, buf, i, POISON);
        snprintf(what, sizeof what, "%s (whole dataset)", ctx);
        CHECK((H5Dread(dset, memtype(d), H5S_ALL, H5S_ALL, dxpl, buf)) >= 0,
              "%s: H5Dread(dset, memtype(d), H5S_ALL, H5S_ALL, dxpl, buf) failed", what);
        nbad = 0;
        for (uint64_t g = 0; g < tot; g++) {
            double got = buf_get(d, buf, g), want = expected(d, g);
            if (got != want)
                report(what, d, g, got, want, &nbad);
        }
        report_done(what, d, nbad);
        if (ref && ref[k]) {
            snprintf(what, sizeof what, "%s vs MPI-IO reference", ctx);
            nbad = 0;
            for (uint64_t g = 0; g < tot; g++) {
                double got = buf_get(d, buf, g);
                if (got != ref[k][g])
                    report(what, d, g, got, ref[k][g], &nbad);
            }
            report_done(what, d, nbad);
        }
        if (keep) {
            keep[k] = malloc(sizeof(double) * (tot ? tot : 1));
            if (!keep[k])
                VRFY(0, "out of memory");
            for (uint64_t g = 0; g < tot; g++)
                keep[k][g] = buf_get(d, buf, g);
        }
        free(buf);
        H5Dclose(dset);
    }
    check_attrs(file, ctx);
    H5Pclose(dxpl);
}

/* ---- on-disk layout (built-in subfiling templates) -------------------- */

/* Rank 0 only.  want_size > 0 and want_count > 0 are checked; 0 = any.
 * Returns the number of problems (each printed). */
int check_disk(const char *dir, const char *base, int64_t want_size, int want_count)
{
    char        path[8192], line[8192];
    struct stat st;
    int         bad = 0;

    snprintf(path, sizeof path, "%s/%s", dir, base);
    if (stat(path, &st) < 0) {
        fprintf(stderr, "[rank 0] FAIL layout: stub %s: %s\n", path, strerror(errno));
        return 1;
    }
    const uint64_t ino = (uint64_t)st.st_ino;
    snprintf(path, sizeof path, "%s/%s.subfile_%" PRIu64 ".config", dir, base, ino);
    FILE *fp = fopen(path, "r");
    if (!fp) {
        fprintf(stderr, "[rank 0] FAIL layout: config file %s: %s\n", path, strerror(errno));
        return 1;
    }
    int64_t stripe_size = -1;
    long    count       = -1;
    while (fgets(line, sizeof line, fp)) {
        if (!strncmp(line, "stripe_size=", 12))
            stripe_size = strtoll(line + 12, NULL, 10);
        else if (!strncmp(line, "subfile_count=", 14))
            count = strtol(line + 14, NULL, 10);
    }
    fclose(fp);
    if (stripe_size <= 0 || count <= 0 || count > 65536) {
        fprintf(stderr, "[rank 0] FAIL layout: %s has no valid stripe_size= or subfile_count= line\n", path);
        return 1;
    }
    if (want_size > 0 && stripe_size != want_size) {
        fprintf(stderr, "[rank 0] FAIL layout: %s: stripe_size=%" PRId64 ", expected %" PRId64 "\n", path, stripe_size,
                want_size);
        bad++;
    }
    if (want_count > 0 && count != want_count) {
        fprintf(stderr, "[rank 0] FAIL layout: %s: subfile_count=%ld, expected %d\n", path, count, want_count);
        bad++;
    }
    for (int i = 1; i <= count; i++) {
        if (snprintf(path, sizeof path, "%s/%s.subfile_%" PRIu64 "_%0*d_of_%d", dir, base, ino, t_ndigits(count), i,
                     (int)count) >= (int)sizeof path ||
            stat(path, &st) < 0) {
            fprintf(stderr, "[rank 0] FAIL layout: subfile %s: %s\n", path, strerror(errno));
            bad++;
        }
    }
    /* No stray subfiles of another count. */
    char prefix[4200];
    snprintf(prefix, sizeof prefix, "%s.subfile_%" PRIu64 "_", base, ino);
    DIR *dp = opendir(dir);
    if (dp) {
        struct dirent *e;
        long           n = 0;
        while ((e = readdir(dp)))
            if (!strncmp(e->d_name, prefix, strlen(prefix)))
                n++;
        closedir(dp);
        if (n != count) {
            fprintf(stderr, "[rank 0] FAIL layout: %ld files named %s*, expected %ld\n", n, prefix, count);
            bad++;
        }
    }
    return bad;
}
