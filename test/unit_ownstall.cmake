# An IOC rank's requests to itself return within the timeout when the
# file system stalls, with no fault injection (unit_ownstall.c): pwritev,
# preadv, fsync and fstat wrapped (their 64-bit-offset symbols) so that, once armed, the call on the
# subfile blocks until released; each request must fail with a timeout
# error while it blocks.  No MPI, so ThreadSanitizer runs it too.  A
# request given up on stays allocated on purpose (a worker may still report
# into it), as after any timeout: not a leak to report.
add_executable(unit_ownstall ${CMAKE_CURRENT_SOURCE_DIR}/unit_ownstall.c)
target_link_libraries(unit_ownstall PRIVATE h5sf_ioc)
target_link_options(unit_ownstall PRIVATE -Wl,--wrap=pwritev64 -Wl,--wrap=preadv64 -Wl,--wrap=fsync -Wl,--wrap=fstat64)
file(MAKE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/work/ownstall)
add_test(NAME unit_ownstall COMMAND unit_ownstall ${CMAKE_CURRENT_BINARY_DIR}/work/ownstall)
set_tests_properties(unit_ownstall PROPERTIES LABELS "unit;asan;tsan" TIMEOUT 150 ENVIRONMENT
                     "ASAN_OPTIONS=detect_leaks=0;TSAN_OPTIONS=halt_on_error=1 second_deadlock_stack=1 suppressions=${CMAKE_CURRENT_SOURCE_DIR}/tsan.supp")
h5sf_tsan(unit_ownstall)
