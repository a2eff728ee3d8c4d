/*
 * t_rankmeta.c -- collective transfers during which one rank alone reads
 * metadata: rank 0's chunk lookups miss the metadata cache of a reopened
 * file and read B-tree nodes through h5sf while the collective transfer
 * mode is in force, and the other ranks, whose selections are empty, read
 * none (HDF5's t_pmulti_dset met this by chance, and hung: h5sf agreed
 * on those reads as on a collective transfer, and the other ranks were
 * never there).  Every step runs under the watchdog: a hang fails.
 *
 * A chunked 1-D dataset of NCH chunks (a B-tree of several levels), all
 * written and closed; reopened, rank 0 writes, then reads back, one chunk
 * near the end with H5FD_MPIO_COLLECTIVE while the others select nothing;
 * then every rank reads the whole dataset independently and compares it
 * with the pattern (the rewritten chunk has pattern 2, the rest 1).
 *
 * usage: t_rankmeta DIR
 */
#include <hdf5.h>
#include <mpi.h>
#include <stdlib.h>
#include "h5sf.h"
#include "h5sf_test.h"

#define CH  64u   /* bytes a chunk */
#define NCH 4096u /* chunks */

static hid_t one_chunk(hid_t d, hsize_t *off, hsize_t *len)
{
    hid_t fs = H5Dget_space(d);
    if (t_rank == 0)
        H5Sselect_hyperslab(fs, H5S_SELECT_SET, off, NULL, len, NULL);
    else
        H5Sselect_none(fs);
    return fs;
}

int main(int argc, char **argv)
{
    char           path[4096];
    hsize_t        n = (hsize_t)CH * NCH, ch = CH, off = (hsize_t)CH * (NCH - 7), len = CH;
    unsigned char *all = malloc(n), buf[CH];
    t_init(&argc, &argv, "t_rankmeta");
    VRFY(argc == 2 && all, "usage: t_rankmeta DIR");
    t_mkdir_world(argv[1]);
    snprintf(path, sizeof path, "%s/rankmeta.h5", argv[1]);
    hid_t fapl = t_fapl("stripe_size=4KiB,stripe_count=2");
    hid_t coll = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(coll, H5FD_MPIO_COLLECTIVE);

    t_step(60, "create and fill %llu chunks", (unsigned long long)NCH);
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    VRFY(f >= 0, "H5Fcreate");
    hid_t sp = H5Screate_simple(1, &n, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 1, &ch);
    hid_t d = H5Dcreate2(f, "d", H5T_NATIVE_UCHAR, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    VRFY(d >= 0, "H5Dcreate2");
    t_fill(all, n, 1, 0);
    hid_t fs = H5Dget_space(d);
    if (t_rank != 0)
        H5Sselect_none(fs);
    hid_t ms = H5Screate_simple(1, &n, NULL);
    if (t_rank != 0)
        H5Sselect_none(ms);
    CHECK(H5Dwrite(d, H5T_NATIVE_UCHAR, ms, fs, coll, all) >= 0, "filling the dataset");
    H5Sclose(ms);
    H5Sclose(fs);
    H5Dclose(d);
    H5Pclose(dcpl);
    H5Sclose(sp);
    CHECK(H5Fclose(f) >= 0, "close after filling");

    t_step(60, "reopen; rank 0 alone rewrites and reads one chunk, collectively");
    f = H5Fopen(path, H5F_ACC_RDWR, fapl);
    VRFY(f >= 0, "H5Fopen");
    d = H5Dopen2(f, "d", H5P_DEFAULT);
    VRFY(d >= 0, "H5Dopen2");
    hsize_t one = CH;
    ms          = H5Screate_simple(1, &one, NULL);
    if (t_rank != 0)
        H5Sselect_none(ms);
    fs = one_chunk(d, &off, &len);
    t_fill(buf, CH, 2, off);
    CHECK(H5Dwrite(d, H5T_NATIVE_UCHAR, ms, fs, coll, buf) >= 0, "the collective write of one chunk");
    H5Sclose(fs);
    CHECK(H5Dclose(d) >= 0 && H5Fclose(f) >= 0, "close after the write");
    f = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    VRFY(f >= 0, "H5Fopen read-only");
    d  = H5Dopen2(f, "d", H5P_DEFAULT);
    fs = one_chunk(d, &off, &len);
    CHECK(H5Dread(d, H5T_NATIVE_UCHAR, ms, fs, coll, buf) >= 0, "the collective read of one chunk");
    if (t_rank == 0)
        CHECK(t_mismatch(buf, CH, 2, off) == CH, "the chunk read back differs");
    H5Sclose(fs);
    H5Sclose(ms);

    t_step(60, "every rank reads it all");
    CHECK(H5Dread(d, H5T_NATIVE_UCHAR, H5S_ALL, H5S_ALL, H5P_DEFAULT, all) >= 0, "reading it all");
    CHECK(t_mismatch(all, off, 1, 0) == off && t_mismatch(all + off, CH, 2, off) == CH &&
              t_mismatch(all + off + CH, n - off - CH, 1, off + CH) == n - off - CH,
          "the dataset differs from the pattern");
    H5Dclose(d);
    H5Fclose(f);
    H5Pclose(coll);
    H5Pclose(fapl);
    free(all);
    return t_finish();
}
