/*
 * fake_libversion.c -- LD_PRELOAD'ed by t_hdf5version: an H5get_libversion
 * that reports the version in $H5SF_FAKE_HDF5_VERSION ("maj.min.rel"), so the
 * plugin's version check sees an HDF5 outside its tested range.  Touches
 * nothing else; HDF5 itself checks versions with its own macros.
 */
#include <stdio.h>
#include <stdlib.h>

int H5get_libversion(unsigned *maj, unsigned *min, unsigned *rel);
int H5get_libversion(unsigned *maj, unsigned *min, unsigned *rel)
{
    const char *v = getenv("H5SF_FAKE_HDF5_VERSION");
    unsigned    a = 0, b = 0, c = 0;
    if (!v || sscanf(v, "%u.%u.%u", &a, &b, &c) != 3)
        return -1;
    if (maj)
        *maj = a;
    if (min)
        *min = b;
    if (rel)
        *rel = c;
    return 0;
}
