# t_security_orphans: a config file another account planted in a shared
# directory (1777) or a group-writable one (0777) makes neither the
# victim's H5Fcreate (orphan reclaim) nor h5sf-orphans --remove delete the
# victim's live subfiles elsewhere; h5sf-orphans lists the set as "not
# removed: owned by uid N" and prints no control character from a config
# file; the victim's own orphans are still removed.  Two real accounts
# (test/two_accounts.sh, setpriv): skipped (77) when not root.  About 20 s.
add_test(NAME t_security_orphans COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/t_security_orphans.sh)
set_tests_properties(t_security_orphans PROPERTIES
                     ENVIRONMENT "${H5SF_MPI_TEST_ENV};T_BIN=${CMAKE_BINARY_DIR}/bin;T_HDF5_BIN=${H5SF_HDF5_BIN_DIR};T_MPIEXEC=${MPIEXEC_EXECUTABLE}"
                     TIMEOUT 300 LABELS "mpi;asan;security" SKIP_RETURN_CODE 77)
