/*
 * t_h5check.h -- what the small HDF5 tests that inject a failure into an
 * open (t_openfail, t_servefail, t_plain) share, on top of t_check.h:
 * the text of the default error stack, and a pattern round trip through
 * an open file.  Header-only.
 */
#ifndef T_H5CHECK_H
#define T_H5CHECK_H

#include <hdf5.h>
#include <stdlib.h>
#include "t_check.h"

static inline herr_t t_err_collect(unsigned n, const H5E_error2_t *err, void *data)
{
    (void)n;
    strncat((char *)data, err->desc ? err->desc : "", 4095 - strlen((char *)data));
    return 0;
}

/* The descriptions on the default error stack, outermost first, joined
 * into msg (4096 bytes). */
static inline void t_err_text(char msg[4096])
{
    msg[0] = '\0';
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, t_err_collect, msg);
}

/* A dataset "d" of n bytes in file f: each rank writes its share of a
 * pattern and reads it back. */
static inline void t_small_roundtrip(hid_t f, hsize_t n)
{
    hsize_t        per = n / (hsize_t)size, off = per * (hsize_t)rank;
    hid_t          fs = H5Screate_simple(1, &n, NULL), ms = H5Screate_simple(1, &per, NULL);
    hid_t          d = H5Dcreate2(f, "d", H5T_NATIVE_UCHAR, fs, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    unsigned char *b = malloc(per), *g = malloc(per);
    for (hsize_t i = 0; i < per; i++)
        b[i] = (unsigned char)(off + i);
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, &off, NULL, &per, NULL);
    CHECK(H5Dwrite(d, H5T_NATIVE_UCHAR, ms, fs, H5P_DEFAULT, b) >= 0, "write");
    CHECK(H5Dread(d, H5T_NATIVE_UCHAR, ms, fs, H5P_DEFAULT, g) >= 0 && !memcmp(b, g, per), "read back");
    free(b);
    free(g);
    H5Dclose(d);
    H5Sclose(ms);
    H5Sclose(fs);
}

#endif
