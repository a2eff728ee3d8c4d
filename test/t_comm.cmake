# t_comm: collective steps on the caller's communicator (fapl comm/info
# freed after set, H5Fdelete on MPI_COMM_SELF from one rank as IOR does,
# split groups each deleting their own file).  Both channels, 1-4 ranks.
add_executable(t_comm ${CMAKE_CURRENT_SOURCE_DIR}/t_comm.c)
target_link_libraries(t_comm PRIVATE h5sf hdf5::hdf5-shared)
foreach(ch direct ioc)
  foreach(np 1 2 3 4)
    set(_cd ${CMAKE_CURRENT_BINARY_DIR}/work/comm_${ch}_np${np})
    file(MAKE_DIRECTORY ${_cd})
    h5sf_mpi_test(t_comm_${ch}_np${np} t_comm ${np} ${_cd} ENV "H5SF_CHANNEL=${ch}")
    set_tests_properties(t_comm_${ch}_np${np} PROPERTIES TIMEOUT 120)
  endforeach()
endforeach()
