# t_security: a subfiled file's own set, and nothing else, with names planted
# in shared directories by another account, links to stubs, and creates that
# fail (test/t_security.sh says what each case checks).  The cases of two
# accounts exit 77 (skipped) without root; two_stubs needs root for its
# tmpfs mounts.  Each case at 1 and 2 ranks, and on both channels where the
# subfiles are opened or created (the IOC opens its own); a few seconds each.
add_executable(t_security_prog ${CMAKE_CURRENT_SOURCE_DIR}/t_security_prog.c)
target_link_libraries(t_security_prog PRIVATE h5sf MPI::MPI_C hdf5::hdf5-shared)

function(h5sf_security_test case np ch)
  set(name t_security_${case}_np${np}_${ch})
  add_test(NAME ${name} COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/t_security.sh ${case} ${np} ${ch})
  set(env ${H5SF_MPI_TEST_ENV} "T_BIN=${CMAKE_BINARY_DIR}/bin" "T_MPIEXEC=${MPIEXEC_EXECUTABLE}")
  set_tests_properties(${name} PROPERTIES ENVIRONMENT "${env}" TIMEOUT 300 LABELS "mpi;asan;security"
                                          SKIP_RETURN_CODE 77)
endfunction()

foreach(np 1 2)
  foreach(case symlink_recreate precreated rdwr_symlink subfile_fifo failed_create two_stubs)
    foreach(ch direct ioc)
      h5sf_security_test(${case} ${np} ${ch})
    endforeach()
  endforeach()
  foreach(case config_fifo symlink_stub)
    h5sf_security_test(${case} ${np} direct)
  endforeach()
endforeach()
# An odd count, where a create's owners and undo are spread unevenly.
foreach(case precreated failed_create)
  foreach(ch direct ioc)
    h5sf_security_test(${case} 3 ${ch})
  endforeach()
endforeach()
