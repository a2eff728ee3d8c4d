# The IOC doorbell (ioc/shm.c): a private bell rung from another thread, no
# MPI; a lost wake-up hangs into the timeout (H5SF_TEST_BELL_WAIT_S=600).
add_executable(unit_bell ${CMAKE_CURRENT_SOURCE_DIR}/unit_bell.c)
target_link_libraries(unit_bell PRIVATE h5sf_ioc)
add_test(NAME unit_bell COMMAND unit_bell)
set_tests_properties(unit_bell PROPERTIES LABELS "unit;asan;tsan" TIMEOUT 60 ENVIRONMENT "H5SF_TEST_BELL_WAIT_S=600")
h5sf_tsan(unit_bell unit_bell)
# The bound of a sleep nobody ends doubles, to 1.6 s (the test's own bound
# off).
add_test(NAME unit_bell_naps COMMAND unit_bell naps)
set_tests_properties(unit_bell_naps PROPERTIES LABELS "unit;asan" TIMEOUT 60)
