# Tags of a client's requests to one IOC never repeat while they are
# outstanding (t_tagreuse.c): a request to the rank's own IOC between two to
# a remote one, a tag space of two requests, payloads as MPI messages, the
# first request at IOC 0 stalled so that the second overtakes it; the
# subfiles are checked against the pattern with pread.  Labelled tsan too:
# the TSan build runs it with test/tsan_mpi.supp (Open MPI is not built
# with TSan; that file says what it hides).
add_executable(t_tagreuse ${CMAKE_CURRENT_SOURCE_DIR}/t_tagreuse.c)
target_link_libraries(t_tagreuse PRIVATE h5sf_ioc MPI::MPI_C)
file(MAKE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/work/tagreuse)
h5sf_mpi_test(t_tagreuse_np3 t_tagreuse 3 ${CMAKE_CURRENT_BINARY_DIR}/work/tagreuse ENV "H5SF_TEST_TAG_UB=24"
              "H5SF_IOC_SHM=0"
              "TSAN_OPTIONS=halt_on_error=1 second_deadlock_stack=1 suppressions=${CMAKE_CURRENT_SOURCE_DIR}/tsan_mpi.supp")
set_tests_properties(t_tagreuse_np3 PROPERTIES TIMEOUT 240)
set_property(TEST t_tagreuse_np3 APPEND PROPERTY LABELS tsan)
h5sf_tsan(t_tagreuse)
