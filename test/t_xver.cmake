# Cross-version interop halves (scripts/test-versions.sh), and a same-version
# round trip through them here.
add_executable(t_xver ${CMAKE_CURRENT_SOURCE_DIR}/t_xver.c)
target_link_libraries(t_xver PRIVATE MPI::MPI_C hdf5::hdf5-shared)
add_test(NAME t_xver_np2
         COMMAND sh -c "set -e; d=$(mktemp -d); $0 -n 2 $H5SF_MPIEXEC_FLAGS $1 write h5sf $d/x.h5; $0 -n 2 $H5SF_MPIEXEC_FLAGS $1 verify h5sf $d/x.h5; rm -rf $d"
                 ${MPIEXEC_EXECUTABLE} $<TARGET_FILE:t_xver>)
set_tests_properties(t_xver_np2 PROPERTIES ENVIRONMENT "${H5SF_MPI_TEST_ENV}" TIMEOUT 120 LABELS "mpi")
# As if HDF5 did not export its private API context (vfd/hdf5priv.c):
# independent transfers (metadata included) work; a collective write, then a
# collective read, either work (right data: HDF5 described them without
# derived datatypes) or fail naming the missing function -- never wrong data.
add_test(NAME t_noprivate_np2
         COMMAND sh -c "d=$(mktemp -d); m=$0; x=$1; run() { $m -n 2 $H5SF_MPIEXEC_FLAGS $x \"$@\" >>$d/log 2>&1; }; run write h5sf $d/i.h5 indep && run verify h5sf $d/i.h5 indep || { cat $d/log; exit 1; }; for step in write verify; do if run $step h5sf $d/c.h5; then echo \"collective $step: ok\"; elif grep -q 'does not export H5CX_get_mpi_coll_datatypes' $d/log; then echo \"collective $step: refused with the expected error\"; rm -rf $d; exit 0; else cat $d/log; exit 1; fi; done; rm -rf $d"
                 ${MPIEXEC_EXECUTABLE} $<TARGET_FILE:t_xver>)
set_tests_properties(t_noprivate_np2 PROPERTIES ENVIRONMENT "${H5SF_MPI_TEST_ENV};H5SF_TEST_NO_PRIVATE_HDF5=1"
                     TIMEOUT 120 LABELS "mpi")
