# A subfile close that blocks holds up no other request (unit_fdstall.c):
# H5SF_IOC_MAX_FDS=1, two files, close(2) wrapped so that the close of one
# file's descriptor blocks until released; a write to that file must
# complete while the close blocks.  No MPI, so ThreadSanitizer runs it too.
add_executable(unit_fdstall ${CMAKE_CURRENT_SOURCE_DIR}/unit_fdstall.c)
target_link_libraries(unit_fdstall PRIVATE h5sf_ioc)
target_link_options(unit_fdstall PRIVATE -Wl,--wrap=close)
file(MAKE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/work/fdstall)
add_test(NAME unit_fdstall COMMAND unit_fdstall ${CMAKE_CURRENT_BINARY_DIR}/work/fdstall)
set_tests_properties(unit_fdstall PROPERTIES LABELS "unit;asan;tsan" TIMEOUT 90 ENVIRONMENT
                     "H5SF_IOC_MAX_FDS=1;TSAN_OPTIONS=halt_on_error=1 second_deadlock_stack=1 suppressions=${CMAKE_CURRENT_SOURCE_DIR}/tsan.supp")
h5sf_tsan(unit_fdstall)
