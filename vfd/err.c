/*
 * err.c -- h5sf's HDF5 error class.
 *
 * Errors carry h5sf's own class so users see "h5sf" in the error stack next
 * to HDF5's entries; major/minor numbers are HDF5's own (H5E_VFL, ...).
 */
#include <stdarg.h>
#include <stdio.h>
#include "internal.h"

hid_t h5sf_err_class = H5I_INVALID_HID;

int h5sf_err_init(void)
{
    if (h5sf_err_class == H5I_INVALID_HID)
        h5sf_err_class = H5Eregister_class("h5sf", "h5sf subfiling VFD", "0.2");
    return h5sf_err_class == H5I_INVALID_HID ? -1 : 0;
}

void h5sf_err_term(void)
{
    if (h5sf_err_class != H5I_INVALID_HID)
        H5Eunregister_class(h5sf_err_class);
    h5sf_err_class = H5I_INVALID_HID;
}

void h5sf_err_push(const char *func, int line, hid_t maj, hid_t min, const char *fmt, ...)
{
    char    msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (h5sf_err_init() < 0)
        return;
    /* "%s" keeps user text (paths) from being read as a format. */
    H5Epush2(H5E_DEFAULT, __FILE__, func, (unsigned)line, h5sf_err_class, maj, min, "%s", msg);
}
