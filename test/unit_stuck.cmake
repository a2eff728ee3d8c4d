# A worker stuck in pwrite: the stop gives up after the timeout, and the
# worker that comes back later leaves quietly (no MPI).
add_executable(unit_stuck ${CMAKE_CURRENT_SOURCE_DIR}/unit_stuck.c)
target_link_libraries(unit_stuck PRIVATE h5sf_ioc)
file(MAKE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/work/stuck)
add_test(NAME unit_stuck COMMAND unit_stuck ${CMAKE_CURRENT_BINARY_DIR}/work/stuck)
set_tests_properties(unit_stuck PROPERTIES LABELS "unit;asan;tsan" TIMEOUT 150)
h5sf_tsan(unit_stuck unit_stuck)
