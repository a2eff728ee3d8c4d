# h5sf's allocator and the fault-site counters (common/alloc.c): counted
# blocks, the nth site failing once, threads; no HDF5, no MPI.
add_executable(unit_alloc ${CMAKE_CURRENT_SOURCE_DIR}/unit_alloc.c)
target_link_libraries(unit_alloc PRIVATE h5sf_common Threads::Threads)
add_test(NAME unit_alloc COMMAND unit_alloc)
set_tests_properties(unit_alloc PROPERTIES LABELS "unit;asan;tsan" TIMEOUT 60)
h5sf_tsan(unit_alloc unit_alloc)
