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
 * h5sf_register() gives the driver's id to the public API (fapl.c), the
 * same id whether the plugin loader or the program registered it first.
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

hid_t h5sf_register(void)
{
    if (h5sf_id >= 0 && H5Iis_valid(h5sf_id) > 0)
        return h5sf_id;
    if (h5sf_check_hdf5_version() < 0)
        return H5I_INVALID_HID;
    if (H5FDis_driver_registered_by_value(H5FD_H5SF_VALUE) > 0) {
        /* Already registered by HDF5's plugin loader: fetch its id. */
        hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
        if (fapl >= 0 && H5Pset_driver_by_value(fapl, H5FD_H5SF_VALUE, NULL) >= 0)
            h5sf_id = H5Pget_driver(fapl);
        H5Pclose(fapl);
        /* The fapl held a reference; the id stays valid while registered. */
    }
    else
        h5sf_id = H5FDregister(&h5sf_class);
    return h5sf_id;
}
