# t_envdriver: HDF5_DRIVER=h5sf / HDF5_DRIVER_CONFIG, no driver call (the
# communicator named with H5Pset_mpi_params).
# No link to libh5sf: the driver must come in through the plugin loader.
add_executable(t_envdriver ${CMAKE_CURRENT_SOURCE_DIR}/t_envdriver.c)
target_link_libraries(t_envdriver PRIVATE MPI::MPI_C hdf5::hdf5-shared)
foreach(np 1 3)
  h5sf_mpi_test(t_envdriver_np${np} t_envdriver ${np}
                ENV "HDF5_DRIVER=h5sf" "HDF5_DRIVER_CONFIG=stripe_size=65536,stripe_count=3")
endforeach()
