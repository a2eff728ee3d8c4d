# The stage account of the IOC channel (t_account.c): off by default; on,
# one write and one read of rank 1 to rank 0's IOC, payloads as MPI
# messages, add up to the stages, round trips and messages of the protocol.
add_executable(t_account ${CMAKE_CURRENT_SOURCE_DIR}/t_account.c)
target_link_libraries(t_account PRIVATE h5sf_ioc MPI::MPI_C)
file(MAKE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/work/account)
h5sf_mpi_test(t_account_np2 t_account 2 ${CMAKE_CURRENT_BINARY_DIR}/work/account ENV "H5SF_IOC_SHM=0")
set_tests_properties(t_account_np2 PROPERTIES TIMEOUT 90)
