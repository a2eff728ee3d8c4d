# The IOC's scheduler (ioc/sched.c): unit_sched orders overlapping requests
# and merges interleaved ones on one thread; unit_sched_mt runs the
# scheduler, ready queue and workers under several threads, with an overlap
# guard wrapped around the workers' pwritev/preadv (label tsan: the
# ThreadSanitizer build runs ctest -L tsan).
add_executable(unit_sched ${CMAKE_CURRENT_SOURCE_DIR}/unit_sched.c)
target_link_libraries(unit_sched PRIVATE h5sf_ioc)
add_test(NAME unit_sched COMMAND unit_sched)
set_tests_properties(unit_sched PROPERTIES LABELS "unit;asan;tsan")
add_executable(unit_sched_mt ${CMAKE_CURRENT_SOURCE_DIR}/unit_sched_mt.c)
target_link_libraries(unit_sched_mt PRIVATE h5sf_ioc)
target_link_options(unit_sched_mt PRIVATE -Wl,--wrap=pwritev -Wl,--wrap=preadv -Wl,--wrap=pwritev64
                    -Wl,--wrap=preadv64)
file(MAKE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/work/sched_mt)
add_test(NAME unit_sched_mt COMMAND unit_sched_mt ${CMAKE_CURRENT_BINARY_DIR}/work/sched_mt)
set_tests_properties(unit_sched_mt PROPERTIES LABELS "unit;asan;tsan" TIMEOUT 120)
h5sf_tsan(unit_sched unit_sched)
h5sf_tsan(unit_sched_mt unit_sched_mt)
