# t_security_preload: the preload shim's clean-up at a plain H5Fcreate over
# a subfiled file, as two accounts in a group-writable directory: names the
# attacker planted beside the set (a "_README.txt" that starts like it, a
# file of its own at a subfile's name) stay, and the shim says why; an
# untouched file's config file and subfiles go.  Two real accounts
# (test/two_accounts.sh, setpriv): skipped (77) when not root.  About 5 s.
add_test(NAME t_security_preload COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/t_security_preload.sh)
set_tests_properties(t_security_preload PROPERTIES
                     ENVIRONMENT "${H5SF_MPI_TEST_ENV};ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0;T_BIN=${CMAKE_BINARY_DIR}/bin;T_MPIEXEC=${MPIEXEC_EXECUTABLE};T_PRELOAD=$<TARGET_FILE:h5sf_preload>"
                     TIMEOUT 300 LABELS "mpi;asan;security" SKIP_RETURN_CODE 77)
