# MPI tests (included by test/CMakeLists.txt) and the demo program.
#   t_roundtrip   write/read every selection kind, both channels, many stripe
#                 settings; compared with a pattern and an MPI-IO reference
#   t_interop     h5sf <-> HDF5's built-in subfiling driver, both directions
#   t_config      fapl struct, config strings, environment, bad values
#   t_envdriver   HDF5_DRIVER=h5sf / HDF5_DRIVER_CONFIG with H5P_DEFAULT only;
#                 t_envdriver_quiet: with plain MPI_Init h5sf prints nothing
#   t_errstack    h5sf's error stack entries name the raising file, function, line
#   t_plain       plain HDF5 files (MPI-IO's, sec2's) read and written through h5sf
# Executables land in ${CMAKE_BINARY_DIR}/bin (CMAKE_RUNTIME_OUTPUT_DIRECTORY).
# h5sf_mpi_test() and the MPI test environment (HDF5_PLUGIN_PATH, Open MPI as
# root, ASAN_OPTIONS; TIMEOUT 300; LABELS mpi;asan) come from
# test/CMakeLists.txt.

foreach(t t_roundtrip t_interop t_config t_errstack)
  add_executable(${t} ${CMAKE_CURRENT_SOURCE_DIR}/${t}.c)
  target_link_libraries(${t} PRIVATE h5sf hdf5::hdf5-shared)
endforeach()
# t_roundtrip's data and passes live in files of their own (t_roundtrip.h).
target_sources(t_roundtrip PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/t_roundtrip_data.c
                                   ${CMAKE_CURRENT_SOURCE_DIR}/t_roundtrip_io.c)
# No link to libh5sf: the driver must come in through the plugin loader.
add_executable(t_envdriver ${CMAKE_CURRENT_SOURCE_DIR}/t_envdriver.c)
target_link_libraries(t_envdriver PRIVATE MPI::MPI_C hdf5::hdf5-shared)

foreach(np 1 2 3 4)
  h5sf_mpi_test(t_roundtrip_np${np} t_roundtrip ${np})
endforeach()
# The same with all IOC-channel I/O through the IOCs.
foreach(np 2 3)
  h5sf_mpi_test(t_roundtrip_iocpath_np${np} t_roundtrip ${np} ENV "H5SF_IOC_LOCAL_READS=0" "H5SF_IOC_LOCAL_WRITES=0")
endforeach()
# ... and with payloads as MPI messages, as between nodes (no shared memory).
h5sf_mpi_test(t_roundtrip_iocmsg_np3 t_roundtrip 3 ENV "H5SF_IOC_LOCAL_READS=0" "H5SF_IOC_LOCAL_WRITES=0"
              "H5SF_IOC_SHM=0")
# A tag space of two requests per client (H5SF_TEST_TAG_UB): replies are
# matched by request id and the channel waits before posting more.
h5sf_mpi_test(t_roundtrip_tags_np3 t_roundtrip 3 ENV "H5SF_TEST_TAG_UB=24" "H5SF_CHANNEL=ioc"
              "H5SF_IOC_LOCAL_READS=0" "H5SF_IOC_LOCAL_WRITES=0")
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
foreach(np 1 2 3)
  h5sf_mpi_test(t_config_np${np} t_config ${np})
endforeach()
# With plugins on HDF5_PLUGIN_PATH, HDF5 searches them for a VOL connector
# when H5Fopen fails and empties the error stack below H5VL_file_open (as
# for the reliability tests): an empty plugin directory keeps h5sf's entries.
file(MAKE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/no-plugins-errstack)
foreach(np 1 2 3)
  h5sf_mpi_test(t_errstack_np${np} t_errstack ${np}
                ENV "HDF5_PLUGIN_PATH=${CMAKE_CURRENT_BINARY_DIR}/no-plugins-errstack")
endforeach()
# h5sf by name (registered by the program, no plugins on the path, so
# HDF5 keeps h5sf's messages), or as a plugin through HDF5_DRIVER=h5sf.
add_executable(t_plain ${CMAKE_CURRENT_SOURCE_DIR}/t_plain.c)
target_link_libraries(t_plain PRIVATE h5sf hdf5::hdf5-shared)
foreach(np 1 3)
  foreach(mode auto ioc)
    h5sf_mpi_test(t_plain_${mode}_np${np} t_plain ${np} ${CMAKE_CURRENT_BINARY_DIR}/work/t_plain_${mode}_np${np} ${mode}
                  ENV "HDF5_PLUGIN_PATH=${CMAKE_CURRENT_BINARY_DIR}/no-plugins-errstack")
  endforeach()
  h5sf_mpi_test(t_plain_env_np${np} t_plain ${np} ${CMAKE_CURRENT_BINARY_DIR}/work/t_plain_env_np${np} env
                ENV "HDF5_DRIVER=h5sf")
endforeach()
# HDF5's h5dump through h5sf (--vfd-name=h5sf) prints what h5dump prints
# on its own for a plain file t_plain made with sec2 and then wrote to.
add_test(NAME t_plain_h5dump
         COMMAND sh -c "set -e; d=$2; HDF5_PLUGIN_PATH=$4 $0 -n 1 $H5SF_MPIEXEC_FLAGS $1 $d auto >/dev/null; $3/h5dump $d/sec2.h5 >$d/sec2.txt; $3/h5dump --vfd-name=h5sf $d/sec2.h5 >$d/h5sf.txt; cmp $d/sec2.txt $d/h5sf.txt; echo h5dump through h5sf: $(wc -l <$d/h5sf.txt) lines, the same"
                 ${MPIEXEC_EXECUTABLE} $<TARGET_FILE:t_plain> ${CMAKE_CURRENT_BINARY_DIR}/work/t_plain_h5dump
                 ${H5SF_HDF5_BIN_DIR} ${CMAKE_CURRENT_BINARY_DIR}/no-plugins-errstack)
set_tests_properties(t_plain_h5dump PROPERTIES ENVIRONMENT "${H5SF_MPI_TEST_ENV}" TIMEOUT 120 LABELS "mpi")
foreach(np 1 3)
  h5sf_mpi_test(t_envdriver_np${np} t_envdriver ${np}
                ENV "HDF5_DRIVER=h5sf" "HDF5_DRIVER_CONFIG=stripe_size=65536,stripe_count=3")
endforeach()
# h5sf prints nothing on success: with plain MPI_Init, channel=auto takes the
# direct channel without a word (programs such as netCDF-C's tst_warn compare
# their output byte for byte); H5SF_LOG=debug says why.
foreach(np 1 3)
  h5sf_mpi_test(t_envdriver_quiet_np${np} t_envdriver ${np}
                ENV "HDF5_DRIVER=h5sf" "T_ENVDRIVER_MPI_INIT=plain")
  set_tests_properties(t_envdriver_quiet_np${np} PROPERTIES FAIL_REGULAR_EXPRESSION "h5sf: ")
endforeach()

# The demo (scripts/demo.sh runs it with 4 ranks).
add_executable(h5sf_demo ${CMAKE_CURRENT_SOURCE_DIR}/demo.c)
target_link_libraries(h5sf_demo PRIVATE h5sf hdf5::hdf5-shared)

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
