/*
 * t_pluginstack.c -- h5sf on HDF5_PLUGIN_PATH leaves other opens' errors
 * alone.
 *
 * When an open fails, HDF5 looks through the plugin path for a VOL
 * connector and calls each plugin's H5PLget_plugin_info while the failed
 * open's errors are still on the stack.  h5sf's once cleared that stack
 * (its HDF5 version check calls H5get_libversion), so a sec2 open of a
 * missing file lost "errno = 2": h5py then raised OSError instead of
 * FileNotFoundError, and h5py.File(new, 'a'), which creates only after
 * an open that failed for ENOENT, failed.  This program does what h5py
 * does, with the default driver and h5sf on the plugin path (the ctest
 * environment), and needs no MPI.
 *
 * usage: t_pluginstack DIR
 */
#include <errno.h>
#include <hdf5.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "h5sf_test.h"

static herr_t collect(unsigned n, const H5E_error2_t *err, void *data)
{
    (void)n;
    char *all = data;
    if (err->desc)
        strncat(all, err->desc, 8191 - strlen(all));
    strncat(all, "\n", 8191 - strlen(all));
    return 0;
}

/* Every description on the default stack, newline-separated. */
static void stack_text(char *all)
{
    all[0] = '\0';
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, collect, all);
}

int main(int argc, char **argv)
{
    char path[4200], all[8192];
    t_start("t_pluginstack");
    if (argc != 2) {
        fprintf(stderr, "usage: t_pluginstack DIR\n");
        return 2;
    }
    const char *pp = getenv("HDF5_PLUGIN_PATH");
    CHECK(pp && *pp, "HDF5_PLUGIN_PATH must name h5sf's directory");
    snprintf(path, sizeof path, "%s/pluginstack.h5", argv[1]);
    unlink(path);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);

    /* h5py's 'a': open read-write, and create only if that failed for ENOENT. */
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    CHECK(f < 0, "opening a missing file succeeded");
    stack_text(all);
    CHECK(strstr(all, "errno = 2") != NULL, "the failed open's stack lost sec2's \"errno = 2\":\n%s", all);
    f = H5Fcreate(path, H5F_ACC_EXCL, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(f >= 0 && H5Fclose(f) >= 0, "creating it after the failed open");

    /* h5py's 'x' on a file that exists: errno = 17 must get through too. */
    f = H5Fcreate(path, H5F_ACC_EXCL, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(f < 0, "an exclusive create of an existing file succeeded");
    stack_text(all);
    CHECK(strstr(all, "errno = 17") != NULL, "the failed create's stack lost sec2's \"errno = 17\":\n%s", all);
    unlink(path);
    return t_verdict();
}
