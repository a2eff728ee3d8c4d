# t_pluginstack: with h5sf on HDF5_PLUGIN_PATH, a failed open with another
# driver keeps its errors (h5py's errno mapping needs them); no MPI.
add_executable(t_pluginstack ${CMAKE_CURRENT_SOURCE_DIR}/t_pluginstack.c)
target_link_libraries(t_pluginstack PRIVATE hdf5::hdf5-shared)
file(MAKE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/work/pluginstack)
add_test(NAME t_pluginstack COMMAND t_pluginstack ${CMAKE_CURRENT_BINARY_DIR}/work/pluginstack)
set_tests_properties(t_pluginstack PROPERTIES ENVIRONMENT "${H5SF_MPI_TEST_ENV}" LABELS "asan" TIMEOUT 60)
