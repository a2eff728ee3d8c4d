# t_ctxtimeout: a second file raises the IOC context's timeout while the
# IOC's progress thread reads it (t_ctxtimeout.c), also under
# ThreadSanitizer (label tsan).  The timeout is atomic for that; TSan did
# not report the plain int of before here: Open MPI's own mutexes, which
# both threads take, order the two accesses for it (2026-11-28).
add_executable(t_ctxtimeout ${CMAKE_CURRENT_SOURCE_DIR}/t_ctxtimeout.c)
target_link_libraries(t_ctxtimeout PRIVATE h5sf hdf5::hdf5-shared)
h5sf_mpi_test(t_ctxtimeout_np2 t_ctxtimeout 2 ${CMAKE_CURRENT_BINARY_DIR}/work/ctxtimeout
              ENV "H5SF_FAULT=op=nomem-accept,rank=0" "H5SF_IOC_SHM=0" "H5SF_SAMENODE_READS=0" "H5SF_SAMENODE_WRITES=0"
                  "TSAN_OPTIONS=halt_on_error=1 second_deadlock_stack=1 suppressions=${CMAKE_CURRENT_SOURCE_DIR}/tsan_mpi.supp")
set_tests_properties(t_ctxtimeout_np2 PROPERTIES TIMEOUT 120)
set_property(TEST t_ctxtimeout_np2 APPEND PROPERTY LABELS tsan)
h5sf_tsan(t_ctxtimeout)
