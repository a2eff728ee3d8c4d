# t_plaindelete: H5Fdelete and H5FD_h5sf_get_files of plain HDF5 files
# (sec2, superblock versions 0 and 3): removed, listed alone; and of
# subfiled stubs whose config file is missing (driver info in the stub,
# version 0; objects in the subfiles, version 3): refused on every rank
# naming the config file, nothing removed (t_plaindelete.c).  No plugins on
# the path, so HDF5 keeps h5sf's messages on H5Fdelete's error stack
# (test/mpi_tests.cmake, t_errstack).
add_executable(t_plaindelete ${CMAKE_CURRENT_SOURCE_DIR}/t_plaindelete.c)
target_link_libraries(t_plaindelete PRIVATE h5sf hdf5::hdf5-shared)
foreach(np 1 2 3)
  h5sf_mpi_test(t_plaindelete_np${np} t_plaindelete ${np} ${CMAKE_CURRENT_BINARY_DIR}/work/plaindelete_np${np}
                ENV "HDF5_PLUGIN_PATH=${CMAKE_CURRENT_BINARY_DIR}/no-plugins-errstack")
  set_tests_properties(t_plaindelete_np${np} PROPERTIES TIMEOUT 120)
endforeach()
