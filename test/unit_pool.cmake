# The pool that runs a call's subfile transfers together (vfd/pool.c, no
# HDF5 or MPI): data, EOF zeros, errors, shutdown, fork; "overlap" proves
# all jobs of a call in flight at once through the H5SF_FAULT hook; the
# fault modes check short transfers, EINTR and a failing pwrite.
add_executable(unit_pool ${CMAKE_CURRENT_SOURCE_DIR}/unit_pool.c ${CMAKE_SOURCE_DIR}/vfd/pool.c)
target_link_libraries(unit_pool PRIVATE h5sf_ioc)
file(MAKE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/work/pool)
set(_pool_tests)
foreach(m plain overlap limit short eintr enospc)
  add_test(NAME unit_pool_${m} COMMAND unit_pool ${CMAKE_CURRENT_BINARY_DIR}/work/pool ${m})
  set_tests_properties(unit_pool_${m} PROPERTIES LABELS "unit;asan;tsan" TIMEOUT 60)
  list(APPEND _pool_tests unit_pool_${m})
endforeach()
h5sf_tsan(unit_pool ${_pool_tests})
# Where running together starts to pay (H5SF_POOL_MIN_BYTES); not a test.
add_executable(bench_pool ${CMAKE_CURRENT_SOURCE_DIR}/bench_pool.c ${CMAKE_SOURCE_DIR}/vfd/pool.c)
target_link_libraries(bench_pool PRIVATE h5sf_ioc)
