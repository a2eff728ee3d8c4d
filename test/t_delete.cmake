# H5FDdelete with bad settings on one rank, on rank 0, on every rank
# (t_delete.c): fails on every rank without a hang and removes nothing;
# with good settings it removes stub, config file and subfiles.
add_executable(t_delete ${CMAKE_CURRENT_SOURCE_DIR}/t_delete.c)
target_link_libraries(t_delete PRIVATE h5sf hdf5::hdf5-shared)
foreach(np 1 2 3)
  h5sf_mpi_test(t_delete_np${np} t_delete ${np} ${CMAKE_CURRENT_BINARY_DIR}/rel/delete_np${np} "stripe_count=3")
  set_tests_properties(t_delete_np${np} PROPERTIES TIMEOUT 120)
endforeach()
