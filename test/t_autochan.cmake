# t_autochan: the channel channel=auto takes on one node (direct; ioc for a
# file of over 256 subfiles; channel=ioc honoured), on MPI_COMM_WORLD and a
# split communicator, each case's bytes read back; 1-4 ranks.
add_executable(t_autochan ${CMAKE_CURRENT_SOURCE_DIR}/t_autochan.c)
target_link_libraries(t_autochan PRIVATE h5sf hdf5::hdf5-shared)
foreach(np 1 2 3 4)
  set(dir ${CMAKE_CURRENT_BINARY_DIR}/work/t_autochan_np${np})
  file(MAKE_DIRECTORY ${dir})
  h5sf_mpi_test(t_autochan_np${np} t_autochan ${np} ${dir})
  set_tests_properties(t_autochan_np${np} PROPERTIES TIMEOUT 120)
endforeach()
