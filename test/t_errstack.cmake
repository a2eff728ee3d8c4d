# t_errstack: h5sf's error stack entries name the raising file, function
# and line.
add_executable(t_errstack ${CMAKE_CURRENT_SOURCE_DIR}/t_errstack.c)
target_link_libraries(t_errstack PRIVATE h5sf hdf5::hdf5-shared)
# h5sf's plugin directory is on HDF5_PLUGIN_PATH (H5SF_MPI_TEST_ENV): when
# an open fails HDF5 searches it for a VOL connector, which loads and asks
# every plugin there; h5sf's entries must survive that on every HDF5
# version (h5py's users saw only "H5VL_file_open(): open failed" while
# h5sf's H5PLget_plugin_info emptied the stack).
foreach(np 1 2 3)
  h5sf_mpi_test(t_errstack_np${np} t_errstack ${np})
endforeach()
