# libh5sf_preload.so: the LD_PRELOAD shim that redirects H5Pset_fapl_mpio to
# h5sf when H5SF_REDIRECT_MPIO=1 (included by cmake/package.cmake).
# Built into <build>/preload, not <build>/lib: HDF5 would otherwise try it as
# a plugin.  Installed to <libdir>; it finds the plugin in <libdir>/hdf5/plugin.
add_library(h5sf_preload SHARED ${CMAKE_SOURCE_DIR}/preload/h5sf_preload.c)
# No link to libh5sf: the driver is loaded by name, as a plugin.
target_link_libraries(h5sf_preload PRIVATE MPI::MPI_C hdf5::hdf5-shared ${CMAKE_DL_LIBS})
set_target_properties(h5sf_preload PROPERTIES
                      LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/preload
                      INSTALL_RPATH_USE_LINK_PATH ON)
install(TARGETS h5sf_preload LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
