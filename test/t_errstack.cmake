# t_errstack: h5sf's error stack entries name the raising file, function
# and line.
add_executable(t_errstack ${CMAKE_CURRENT_SOURCE_DIR}/t_errstack.c)
target_link_libraries(t_errstack PRIVATE h5sf hdf5::hdf5-shared)
# No plugins on the path (H5SF_NO_PLUGINS_DIR, test/CMakeLists.txt), so
# HDF5 keeps h5sf's entries.
foreach(np 1 2 3)
  h5sf_mpi_test(t_errstack_np${np} t_errstack ${np}
                ENV "HDF5_PLUGIN_PATH=${H5SF_NO_PLUGINS_DIR}")
endforeach()
