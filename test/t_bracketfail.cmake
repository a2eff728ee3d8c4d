# t_bracketfail: a COBEGIN bracket whose posted transfer failed on one rank
# only (t_bracketfail.c): truncate and flush (fsync=1) inside it fail on
# every rank and none of them truncates or syncs; which of two failures
# COEND names (the IOC's first).  fsync and pwritev64 are the test's own
# (ENABLE_EXPORTS), counted or failed there.
add_executable(t_bracketfail ${CMAKE_CURRENT_SOURCE_DIR}/t_bracketfail.c)
target_link_libraries(t_bracketfail PRIVATE h5sf hdf5::hdf5-shared ${CMAKE_DL_LIBS})
set_target_properties(t_bracketfail PROPERTIES ENABLE_EXPORTS ON)
foreach(mode truncate flush)
  h5sf_mpi_test(t_bracketfail_${mode}_np2 t_bracketfail 2 ${mode} ${CMAKE_CURRENT_BINARY_DIR}/work/bracketfail_${mode}
                ENV "H5SF_FAULT=op=pwrite,errno=EIO,rank=1")
  set_tests_properties(t_bracketfail_${mode}_np2 PROPERTIES TIMEOUT 120)
endforeach()
h5sf_mpi_test(t_bracketfail_order_np2 t_bracketfail 2 order ${CMAKE_CURRENT_BINARY_DIR}/work/bracketfail_order
              ENV "H5SF_FAULT=op=pwrite,errno=EIO,rank=0" "H5SF_SAMENODE_READS=0" "H5SF_SAMENODE_WRITES=dense")
set_tests_properties(t_bracketfail_order_np2 PROPERTIES TIMEOUT 120)
