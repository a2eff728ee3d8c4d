# The system-call layer (common/sysio.c): batching past IOV_MAX, short
# transfers, EINTR, zeros past EOF, H5SF_FAULT entries, the sweep's
# system-call sites (common/alloc.h); no HDF5, no MPI.
add_executable(unit_sysio ${CMAKE_CURRENT_SOURCE_DIR}/unit_sysio.c)
target_link_libraries(unit_sysio PRIVATE h5sf_common)
file(MAKE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/work/sysio)
foreach(m calls fault short eintr eintr1 sites open)
  add_test(NAME unit_sysio_${m} COMMAND unit_sysio ${CMAKE_CURRENT_BINARY_DIR}/work/sysio ${m})
  set_tests_properties(unit_sysio_${m} PROPERTIES LABELS "unit;asan" TIMEOUT 60)
endforeach()
