# 1-3-D, H5Dwrite_multi, deflate, zero-size selections, stripes 128 B..64 MiB,
# written by all ranks and read back by one.
add_executable(t_shapes ${CMAKE_CURRENT_SOURCE_DIR}/t_shapes.c)
target_link_libraries(t_shapes PRIVATE MPI::MPI_C hdf5::hdf5-shared)
foreach(np 1 2 3 4)
  h5sf_mpi_test(t_shapes_np${np} t_shapes ${np} ${CMAKE_CURRENT_BINARY_DIR}/work/shapes_np${np})
endforeach()
