/*
 * plugin.c -- what HDF5's plugin loader looks for.
 *
 * HDF5 dlopen()s libh5sf.so from HDF5_PLUGIN_PATH when a program names the
 * "h5sf" driver (H5Pset_driver_by_name, HDF5_DRIVER=h5sf, --vfd-name=h5sf).
 *
 * HDF5 dlclose()s plugins when the library shuts down, which may happen
 * before MPI_Finalize runs our MPI_COMM_SELF hook or our atexit handler.
 * Code they point to must stay mapped, so the library pins itself
 * (RTLD_NODELETE) the first time HDF5 asks for it.
 *
 * An HDF5 outside the tested range gets no class: HDF5 then reports
 * "can't get plugin info" under h5sf's error naming the range (hdf5priv.c).
 */

#include <dlfcn.h>
#include <H5PLextern.h>
#include "internal.h"

static void pin_self(void)
{
    static bool pinned;
    Dl_info     info;
    if (pinned)
        return;
    pinned = true;
    if (dladdr((void *)pin_self, &info) && info.dli_fname)
        dlopen(info.dli_fname, RTLD_NOW | RTLD_NODELETE | RTLD_NOLOAD);
}

H5SF_API H5PL_type_t H5PLget_plugin_type(void) { return H5PL_TYPE_VFD; }
H5SF_API const void *H5PLget_plugin_info(void)
{
    if (h5sf_check_hdf5_version() < 0)
        return NULL;
    pin_self();
    return &h5sf_class;
}
