# A thread of h5sf_ioc_serve that fails to start (uv_thread_create wrapped:
# each worker in turn, then the progress thread): serve fails with the
# reason and stops the threads it started, so the context is freed with no
# thread left on it (no MPI).
add_executable(unit_serve_fail ${CMAKE_CURRENT_SOURCE_DIR}/unit_serve_fail.c)
target_link_libraries(unit_serve_fail PRIVATE h5sf_ioc)
target_link_options(unit_serve_fail PRIVATE -Wl,--wrap=uv_thread_create)
add_test(NAME unit_serve_fail COMMAND unit_serve_fail)
set_tests_properties(unit_serve_fail PROPERTIES LABELS "unit;asan;tsan" TIMEOUT 90)
h5sf_tsan(unit_serve_fail unit_serve_fail)
