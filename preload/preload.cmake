# libh5sf_preload.so: the LD_PRELOAD shim that redirects H5Pset_fapl_mpio to
# h5sf when H5SF_REDIRECT_MPIO=1 (included by cmake/package.cmake).
# Built into <build>/preload, not <build>/lib: HDF5 would otherwise try it as
# a plugin.  For the same reason it is installed into a subdirectory of its
# MPI family's plugin directory, <libdir>/h5sf/<family>/preload (HDF5 skips
# subdirectories), and finds the plugin in the parent directory by itself
# (H5SF_PRELOAD_PLUGIN_DIR, relative to the shim's own directory).  The
# default family's shim is also <libdir>/libh5sf_preload.so, a link.
add_library(h5sf_preload SHARED ${CMAKE_SOURCE_DIR}/preload/h5sf_preload.c)
# No link to libh5sf: the driver is loaded by name, as a plugin.  common/'s
# option table (the variables the shim reads) is linked in, and kept
# private so that it never stands in for the plugin's own copy.
target_link_libraries(h5sf_preload PRIVATE h5sf_common MPI::MPI_C hdf5::hdf5-shared ${CMAKE_DL_LIBS})
target_link_options(h5sf_preload PRIVATE -Wl,--exclude-libs,ALL)
file(RELATIVE_PATH _h5sf_rel /p/${H5SF_PRELOAD_INSTALL_DIR} /p/${H5SF_PLUGIN_INSTALL_DIR})
target_compile_definitions(h5sf_preload PRIVATE H5SF_PRELOAD_PLUGIN_DIR="${_h5sf_rel}")
set_target_properties(h5sf_preload PROPERTIES
                      LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/preload
                      INSTALL_RPATH_USE_LINK_PATH ON)
install(TARGETS h5sf_preload LIBRARY DESTINATION ${H5SF_PRELOAD_INSTALL_DIR})
h5sf_install_default_link(${CMAKE_INSTALL_LIBDIR}/libh5sf_preload.so ${H5SF_PRELOAD_INSTALL_DIR}/libh5sf_preload.so)
