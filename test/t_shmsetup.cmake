# Setting up the node's shared-memory area at its edges (t_shmsetup.c): a
# segment size that is not a multiple of the page size, a size whose total
# overflows, a failed broadcast of the object's name (nothing left in
# /dev/shm); a good setup works after each.
add_executable(t_shmsetup ${CMAKE_CURRENT_SOURCE_DIR}/t_shmsetup.c)
target_link_libraries(t_shmsetup PRIVATE h5sf_ioc MPI::MPI_C)
foreach(np 2 3)
  h5sf_mpi_test(t_shmsetup_np${np} t_shmsetup ${np})
  set_tests_properties(t_shmsetup_np${np} PROPERTIES TIMEOUT 60)
endforeach()
# End to end: with H5SF_IOC_SHM=1048577 (not whole pages) every rank's
# payloads still go through shared memory, none over MPI (t_shm.c's check).
file(MAKE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/rel/shm_unaligned_np3)
h5sf_mpi_test(t_shm_unaligned_np3 t_shm 3 ${CMAKE_CURRENT_BINARY_DIR}/rel/shm_unaligned_np3 shm ENV "H5SF_IOC_SHM=1048577")
