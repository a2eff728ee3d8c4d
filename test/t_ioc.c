/*
 * t_ioc.c -- the I/O concentrators seen from a program.
 *
 *   order     ranks write and rewrite overlapping ranges in phases separated
 *             by barriers; within a phase each rank's calls overlap each
 *             other; the file must equal a serial model of the same writes.
 *   cobegin   one H5Dwrite touching 8 subfiles has 8 requests in flight
 *             (the channel's counter, not timing).
 *   messages  a strided write of K pieces per rank sends at most one request
 *             per touched subfile per rank, whatever K is.
 *
 * usage: t_ioc DIR CONFIG   (CONFIG: an h5sf config string)
 */
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "h5sf.h"
#include "h5sf_test.h"

static hid_t fapl_for(const char *cfg)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    VRFY(H5Pset_mpi_params(fapl, MPI_COMM_WORLD, MPI_INFO_NULL) >= 0 && H5Pset_driver_by_name(fapl, "h5sf", cfg) >= 0,
         "cannot select h5sf with \"%s\"", cfg);
    return fapl;
}

static void write_range(hid_t d, size_t off, size_t len, const unsigned char *src)
{
    hsize_t start = off, count = len;
    hid_t   fs = H5Dget_space(d), ms = H5Screate_simple(1, &count, NULL);
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &count, NULL);
    CHECK(H5Dwrite(d, H5T_NATIVE_UCHAR, ms, fs, H5P_DEFAULT, src) >= 0, "H5Dwrite(%zu, %zu) failed", off, len);
    H5Sclose(ms);
    H5Sclose(fs);
}

static void test_order(const char *dir, const char *cfg)
{
    enum { SIZE = 1 << 20, PHASES = 12, PER_RANK = 6 };
    char           path[4096];
    unsigned char *model = calloc(SIZE, 1), *got = malloc(SIZE), *src = malloc(SIZE);
    hsize_t        dims = SIZE;
    snprintf(path, sizeof path, "%s/order.h5", dir);
    hid_t fapl = fapl_for(cfg);
    hid_t f    = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    hid_t sp   = H5Screate_simple(1, &dims, NULL);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER);
    hid_t d = H5Dcreate2(f, "d", H5T_NATIVE_UCHAR, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    CHECK(f >= 0 && d >= 0, "create %s failed", path);

    t_rnd_seed(0x9E3779B97F4A7C15ull); /* same sequence on every rank */
    for (int p = 0; p < PHASES; p++) {
        /* Cut [0, SIZE) into nranks random regions; region r belongs to rank
         * (r + p) % nranks, so regions move between ranks across phases. */
        size_t cut[65];
        cut[0]      = 0;
        cut[t_size] = SIZE;
        for (int r = 1; r < t_size; r++)
            cut[r] = cut[r - 1] + (t_rnd() % (SIZE / (size_t)t_size)) + 1;
        for (int r = 0; r < t_size; r++) {
            int    owner = (r + p) % t_size;
            size_t lo = cut[r], hi = cut[r + 1];
            for (int k = 0; k < PER_RANK && hi > lo; k++) {
                /* Overlapping writes by the same rank, in order. */
                size_t        off = lo + t_rnd() % (hi - lo), len = 1 + t_rnd() % (hi - off);
                unsigned char v = (unsigned char)(1 + (p * 31 + r * 7 + k) % 251);
                memset(model + off, v, len);
                if (owner == t_rank) {
                    memset(src, v, len);
                    write_range(d, off, len, src);
                }
            }
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    H5Dclose(d);
    CHECK(H5Fclose(f) >= 0, "close failed");

    /* Every rank reads the whole file back, after reopening. */
    f = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    d = H5Dopen2(f, "d", H5P_DEFAULT);
    CHECK(H5Dread(d, H5T_NATIVE_UCHAR, H5S_ALL, H5S_ALL, H5P_DEFAULT, got) >= 0, "read back failed");
    size_t bad = 0, first = SIZE;
    for (size_t i = 0; i < SIZE; i++)
        if (got[i] != model[i] && bad++ == 0)
            first = i;
    CHECK(bad == 0, "order: %zu bytes differ from the serial model, first at %zu (got %u want %u)", bad, first,
          first < SIZE ? got[first] : 0, first < SIZE ? model[first] : 0);
    H5Dclose(d);
    H5Fclose(f);
    H5Sclose(sp);
    H5Pclose(dcpl);
    H5Pclose(fapl);
    free(model);
    free(got);
    free(src);
}

/* One write touching 8 subfiles, and a strided write of many pieces. */
static void test_counts(const char *dir, const char *cfg)
{
    char path[4096], full[1024];
    snprintf(path, sizeof path, "%s/counts.h5", dir);
    snprintf(full, sizeof full, "%s,stripe_size=4096,stripe_count=8", cfg);
    hid_t              fapl = fapl_for(full);
    hid_t              f    = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    hsize_t            n    = (hsize_t)64 * 1024 * t_size;
    hid_t              sp   = H5Screate_simple(1, &n, NULL);
    hid_t              d    = H5Dcreate2(f, "d", H5T_NATIVE_UCHAR, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    unsigned char     *buf  = malloc(64 * 1024);
    H5FD_h5sf_layout_t lay;
    h5sf_stats_t       s0, s1, s2;

    CHECK(H5FD_h5sf_get_layout(f, &lay) >= 0, "H5FD_h5sf_get_layout failed");
    CHECK(lay.stripe_count == 8 && lay.stripe_size == 4096, "layout %d x %lld, want 8 x 4096", lay.stripe_count,
          (long long)lay.stripe_size);

    /* A 64 KiB slab per rank: 16 stripes, all 8 subfiles. */
    for (int i = 0; i < 64 * 1024; i++)
        buf[i] = (unsigned char)(i * 7 + t_rank);
    H5FD_h5sf_get_stats(f, &s0);
    write_range(d, (size_t)t_rank * 64 * 1024, 64 * 1024, buf);
    H5FD_h5sf_get_stats(f, &s1);
    uint64_t msgs = s1.messages - s0.messages;
    CHECK(msgs == 8, "a 64 KiB write over 8 subfiles sent %llu requests, want 8", (unsigned long long)msgs);
    if (lay.channel == H5FD_H5SF_CHANNEL_IOC)
        CHECK(s1.cobegin_max_inflight >= 8, "only %llu requests were in flight at once, want >= 8",
              (unsigned long long)s1.cobegin_max_inflight);

    /* Strided: K = 2048 single bytes, every 32nd byte of this rank's slab. */
    hsize_t start = (hsize_t)t_rank * 64 * 1024, stride = 32, count = 2048, one = 1;
    hid_t   fs = H5Dget_space(d), ms = H5Screate_simple(1, &count, NULL);
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, &stride, &count, &one);
    CHECK(H5Dwrite(d, H5T_NATIVE_UCHAR, ms, fs, H5P_DEFAULT, buf) >= 0, "strided write failed");
    H5FD_h5sf_get_stats(f, &s2);
    msgs = s2.messages - s1.messages;
    CHECK(s2.pieces_in - s1.pieces_in >= 2048, "strided write arrived as %llu pieces, want >= 2048",
          (unsigned long long)(s2.pieces_in - s1.pieces_in));
    CHECK(msgs <= 8, "a strided write of 2048 pieces sent %llu requests, want <= 8 (one per subfile)",
          (unsigned long long)msgs);
    H5Sclose(fs);
    H5Sclose(ms);

    /* Read back what this rank wrote: the slab, with every 32nd byte from
     * the strided write (buf[0..2047]). */
    unsigned char *got = malloc(64 * 1024);
    hsize_t        off = (hsize_t)t_rank * 64 * 1024, len = 64 * 1024;
    fs = H5Dget_space(d);
    ms = H5Screate_simple(1, &len, NULL);
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, &off, NULL, &len, NULL);
    CHECK(H5Dread(d, H5T_NATIVE_UCHAR, ms, fs, H5P_DEFAULT, got) >= 0, "read failed");
    for (int i = 0; i < 64 * 1024; i++) {
        unsigned char want = (i % 32 == 0) ? buf[i / 32] : buf[i];
        if (got[i] != want) {
            CHECK(0, "byte %d: got %u want %u", i, got[i], want);
            break;
        }
    }
    H5Sclose(fs);
    H5Sclose(ms);
    H5Dclose(d);
    H5Sclose(sp);
    CHECK(H5Fclose(f) >= 0, "close failed");
    H5Pclose(fapl);
    free(buf);
    free(got);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv, "t_ioc");
    if (argc < 3 || t_size > 64) {
        if (t_rank == 0)
            fprintf(stderr, "usage: t_ioc DIR CONFIG (at most 64 ranks)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (t_rank == 0)
        mkdir(argv[1], 0755); /* may exist */
    MPI_Barrier(MPI_COMM_WORLD);
    test_order(argv[1], argv[2]);
    test_counts(argv[1], argv[2]);
    if (t_rank == 0)
        printf("t_ioc: %s\n", argv[2]);
    return t_finish();
}
