# An IOC rank's own requests that time out: the caller's buffers are left
# alone afterwards (a stalled worker neither reads into them nor writes
# their reused bytes).  ~6 s: two 2.5 s injected stalls.
add_executable(unit_own_timeout ${CMAKE_CURRENT_SOURCE_DIR}/unit_own_timeout.c)
target_link_libraries(unit_own_timeout PRIVATE h5sf_ioc)
file(MAKE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/work/own_timeout)
add_test(NAME unit_own_timeout COMMAND unit_own_timeout ${CMAKE_CURRENT_BINARY_DIR}/work/own_timeout)
set_tests_properties(unit_own_timeout PROPERTIES LABELS "unit;asan;tsan" TIMEOUT 60)
# A request given up on stays allocated on purpose (a worker may still
# report into it), as after any timeout: not a leak to report.
set_property(TEST unit_own_timeout APPEND PROPERTY ENVIRONMENT "ASAN_OPTIONS=detect_leaks=0")
h5sf_tsan(unit_own_timeout unit_own_timeout)
