/*
 * err.c -- h5sf's HDF5 error class.
 *
 * Errors carry h5sf's own class so users see "h5sf" in the error stack next
 * to HDF5's entries; major/minor numbers are HDF5's own (H5E_VFL, ...).
 * Pushing is the H5SF_PUSH macro (internal.h), so every entry names the
 * file, function and line that raised it; nothing here pushes.
 */
#include "internal.h"

#ifndef H5SF_VERSION_STRING /* set by CMakeLists.txt from the project version */
#define H5SF_VERSION_STRING "unknown"
#endif

hid_t h5sf_err_class = H5I_INVALID_HID;

int h5sf_err_init(void)
{
    if (h5sf_err_class == H5I_INVALID_HID)
        h5sf_err_class = H5Eregister_class("h5sf", "h5sf subfiling VFD", H5SF_VERSION_STRING);
    return h5sf_err_class == H5I_INVALID_HID ? -1 : 0;
}

/* At driver terminate: the class goes with the driver (a plugin may be
 * unloaded next); entries already on a stack keep their own references. */
void h5sf_err_term(void)
{
    if (h5sf_err_class != H5I_INVALID_HID)
        H5Eunregister_class(h5sf_err_class);
    h5sf_err_class = H5I_INVALID_HID;
}
