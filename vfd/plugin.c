/*
 * plugin.c -- what HDF5's plugin loader looks for.
 *
 * HDF5 dlopen()s libh5sf.so from HDF5_PLUGIN_PATH when a program names the
 * "h5sf" driver (H5Pset_driver_by_name, HDF5_DRIVER=h5sf, --vfd-name=h5sf).
 */
#include <H5PLextern.h>
#include "internal.h"

H5SF_API H5PL_type_t H5PLget_plugin_type(void) { return H5PL_TYPE_VFD; }
H5SF_API const void *H5PLget_plugin_info(void) { return &h5sf_class; }
