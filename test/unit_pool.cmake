# The pool that runs a call's subfile transfers together (vfd/threadpool.c, no
# HDF5 or MPI): data, EOF zeros, errors, shutdown, fork; "overlap" proves
# all jobs of a call in flight at once through the H5SF_FAULT hook; the
# fault modes check short transfers, EINTR and a failing pwrite.
add_executable(unit_pool ${CMAKE_CURRENT_SOURCE_DIR}/unit_pool.c ${CMAKE_SOURCE_DIR}/vfd/threadpool.c)
target_link_libraries(unit_pool PRIVATE h5sf_ioc)
file(MAKE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/work/pool)
set(_pool_tests)
foreach(m plain overlap limit short eintr enospc)
  add_test(NAME unit_pool_${m} COMMAND unit_pool ${CMAKE_CURRENT_BINARY_DIR}/work/pool ${m})
  set_tests_properties(unit_pool_${m} PROPERTIES LABELS "unit;asan;tsan" TIMEOUT 60)
  list(APPEND _pool_tests unit_pool_${m})
endforeach()
h5sf_tsan(unit_pool ${_pool_tests})

# unit_pool_batch: the pool's side of a caller's COBEGIN/COEND bracket alone
# (vfd/threadpool.c h5sf_pool_open/post/close; no HDF5 or MPI): jobs of two
# posts in flight together, reads landed by close, no workers: each job at
# its post; a bad job fails alone.
# Labelled tsan: the heap batch is shared with the workers.
add_executable(unit_pool_batch ${CMAKE_CURRENT_SOURCE_DIR}/unit_pool_batch.c ${CMAKE_SOURCE_DIR}/vfd/threadpool.c)
target_link_libraries(unit_pool_batch PRIVATE h5sf_ioc)
foreach(m overlap error)
  add_test(NAME unit_pool_batch_${m}
           COMMAND unit_pool_batch ${CMAKE_CURRENT_BINARY_DIR}/work/pool_batch_${m} ${m})
  file(MAKE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/work/pool_batch_${m})
  set_tests_properties(unit_pool_batch_${m} PROPERTIES LABELS "unit;asan;tsan" TIMEOUT 60)
endforeach()
set_property(TEST unit_pool_batch_overlap APPEND PROPERTY ENVIRONMENT "H5SF_FAULT=op=overlap,ms=5000")
h5sf_tsan(unit_pool_batch unit_pool_batch_overlap unit_pool_batch_error)

# Where running together starts to pay (H5SF_POOL_MIN_BYTES); not a test.
add_executable(bench_pool ${CMAKE_CURRENT_SOURCE_DIR}/bench_pool.c ${CMAKE_SOURCE_DIR}/vfd/threadpool.c)
target_link_libraries(bench_pool PRIVATE h5sf_ioc)
