# t_interop: h5sf <-> HDF5's built-in subfiling driver, both directions;
# t_interop_builtin_np2 runs the built-in driver alone (checks the test).
add_executable(t_interop ${CMAKE_CURRENT_SOURCE_DIR}/t_interop.c)
target_link_libraries(t_interop PRIVATE h5sf hdf5::hdf5-shared)
foreach(np 1 2 4)
  h5sf_mpi_test(t_interop_np${np} t_interop ${np})
endforeach()
# The built-in driver alone: checks the test itself, needs no h5sf.
h5sf_mpi_test(t_interop_builtin_np2 t_interop 2 --builtin-only)
# Under MPICH 4.0 (ch4, one global lock) HDF5's built-in subfiling driver
# does not reliably get through a job: on one rank it never does (its IOC
# thread polls MPI_Iprobe without pause and the rank's own MPI_Send and
# MPI_Recv to it wait for the lock for good; stacks: docs/reliability.md),
# on two it hung in 5 of 7 runs of t_preload's built-in read.  Under MPICH
# the tests that use it are disabled like those of an HDF5 without it
# (test/CMakeLists.txt, builtin_subfiling_mpich says so), and
# mpich_builtin_np1_stalls shows the cause with the built-in driver alone:
# it passes while a one-rank job stalls past 20 s (Open MPI: about 2 s) and
# fails once it does not, so the skip cannot outlive the cause.
if(H5SF_MPI_FLAVOUR STREQUAL "mpich" AND H5SF_HAVE_SUBFILING_VFD)
  add_test(NAME mpich_builtin_np1_stalls
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi_repro/mpich_checks.sh builtin-np1 ${MPIEXEC_EXECUTABLE} $<TARGET_FILE:t_interop>)
  set_tests_properties(mpich_builtin_np1_stalls PROPERTIES ENVIRONMENT "${H5SF_MPI_TEST_ENV}" TIMEOUT 60 LABELS "mpi")
endif()
