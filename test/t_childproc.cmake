# t_childproc: rank 0 of an MPI job starts a serial child process that opens
# files through h5sf (HDF5_DRIVER=h5sf): it reads the ranks' subfiled file
# and writes and reads its own, without initializing MPI.
# No link to libh5sf: the driver comes in through the plugin loader.
add_executable(t_childproc ${CMAKE_CURRENT_SOURCE_DIR}/t_childproc.c)
target_link_libraries(t_childproc PRIVATE MPI::MPI_C hdf5::hdf5-shared)
set(_d ${CMAKE_CURRENT_BINARY_DIR}/work)
file(MAKE_DIRECTORY ${_d})
foreach(np 1 2)
  h5sf_mpi_test(t_childproc_np${np} t_childproc ${np} ${_d}/childproc_np${np}.h5
                ENV "HDF5_DRIVER=h5sf" "HDF5_DRIVER_CONFIG=stripe_size=4096,stripe_count=3")
endforeach()
