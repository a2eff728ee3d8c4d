# A request the IOC takes while its context stops, no buffer free: the
# answer names the stop, not memory (ioc/merge.c); no MPI, no threads.
add_executable(unit_stopslot ${CMAKE_CURRENT_SOURCE_DIR}/unit_stopslot.c)
target_link_libraries(unit_stopslot PRIVATE h5sf_ioc)
add_test(NAME unit_stopslot COMMAND unit_stopslot)
set_tests_properties(unit_stopslot PROPERTIES LABELS "unit;asan" TIMEOUT 60)
