# A write the IOC refuses before running it (t_reject.c): an allocation
# fails while the IOC accepts a 1 MiB write sent as MPI messages
# (H5SF_FAULT op=nomem-accept); the write fails within the 3 s timeout, and
# the later request on its tag (a tag space of two requests) gets none of
# its bytes: the subfile is checked against a pattern with pread.
add_executable(t_reject ${CMAKE_CURRENT_SOURCE_DIR}/t_reject.c)
target_link_libraries(t_reject PRIVATE h5sf_ioc MPI::MPI_C)
file(MAKE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/work/reject)
h5sf_mpi_test(t_reject_np2 t_reject 2 ${CMAKE_CURRENT_BINARY_DIR}/work/reject ENV "H5SF_TEST_TAG_UB=24"
              "H5SF_IOC_SHM=0")
set_tests_properties(t_reject_np2 PROPERTIES TIMEOUT 90)
