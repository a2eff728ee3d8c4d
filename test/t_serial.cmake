# Serial opens (docs/user-guide.md, "Serial opens"): a fapl that names no
# communicator opens on MPI_COMM_SELF, and HDF5 sees a serial driver.
#   t_serial_<mode>_np<N>   rank0: rank 0 alone creates, writes, reads and
#                           deletes with H5P_DEFAULT while the others wait
#                           (a hang fails the watchdog); own: every rank its
#                           own file; named: a named communicator (split
#                           WORLD) is kept, three ways
#   t_serialvl_np<N>        variable-length data in serial files, read back
#                           as sec2's; a named MPI_COMM_SELF refuses it as
#                           MPI-IO does
#   t_serialnc_<step>_np<N> what netCDF's serial tests do, client-free: a
#                           16 TiB chunked dataset (tst_chunks2, tst_vars2)
#                           takes no space until written, a virtual dataset
#                           reads (tst_virtual_datasets), metadata pages
#                           HDF5's page buffer evicted read back; sec2
#                           alongside
#   t_quiet_np<N>           a successful run (plain MPI_Init) prints
#                           nothing; H5SF_LOG=debug says why the channel
# HDF5_DRIVER=h5sf: H5P_DEFAULT and new fapls select the plugin.  Harness:
# test/h5sf_test.h (t_quiet prints nothing of its own and uses none).
# About 20 s in all at 1 and 3 ranks (2026-11-28, 2 cores).
foreach(t t_serial t_serialvl t_serialnc)
  add_executable(${t} ${CMAKE_CURRENT_SOURCE_DIR}/${t}.c)
  target_link_libraries(${t} PRIVATE h5sf hdf5::hdf5-shared)
endforeach()
# No link to libh5sf: the driver comes in through the plugin loader.
add_executable(t_quiet ${CMAKE_CURRENT_SOURCE_DIR}/t_quiet.c)
target_link_libraries(t_quiet PRIVATE MPI::MPI_C hdf5::hdf5-shared)
foreach(np 1 3)
  foreach(mode rank0 own named)
    h5sf_mpi_test(t_serial_${mode}_np${np} t_serial ${np} ${CMAKE_CURRENT_BINARY_DIR}/work/t_serial_np${np} ${mode}
                  ENV "HDF5_DRIVER=h5sf")
    set_tests_properties(t_serial_${mode}_np${np} PROPERTIES TIMEOUT 180)
  endforeach()
  h5sf_mpi_test(t_serialvl_np${np} t_serialvl ${np} ${CMAKE_CURRENT_BINARY_DIR}/work/t_serialvl_np${np}
                ENV "HDF5_DRIVER=h5sf")
  set_tests_properties(t_serialvl_np${np} PROPERTIES TIMEOUT 180)
  foreach(step huge3d huge2d virtual pagebuf)
    h5sf_mpi_test(t_serialnc_${step}_np${np} t_serialnc ${np} ${CMAKE_CURRENT_BINARY_DIR}/work/t_serialnc_np${np} ${step}
                  ENV "HDF5_DRIVER=h5sf")
    set_tests_properties(t_serialnc_${step}_np${np} PROPERTIES TIMEOUT 180)
  endforeach()
  # Output of a successful run, stdout and stderr together: none; with
  # H5SF_LOG=debug, the channel's reason.
  set(dir ${CMAKE_CURRENT_BINARY_DIR}/work/t_quiet_np${np})
  file(MAKE_DIRECTORY ${dir})
  add_test(NAME t_quiet_np${np}
           COMMAND sh -c "out=$(\"$@\" 2>&1) || { printf '%s\\n' \"$out\"; echo 't_quiet: the run failed'; exit 1; }; \
if [ -n \"$out\" ]; then printf '%s\\n' \"$out\"; echo 't_quiet: a successful run printed the lines above'; exit 1; fi; \
out=$(H5SF_LOG=debug \"$@\" 2>&1) || { printf '%s\\n' \"$out\"; exit 1; }; \
printf '%s\\n' \"$out\" | grep -q 'channel direct (MPI_THREAD_MULTIPLE not available' || \
{ printf '%s\\n' \"$out\"; echo 't_quiet: H5SF_LOG=debug does not say why the direct channel'; exit 1; }; \
echo 't_quiet: silent on success; H5SF_LOG=debug gives the reason'" t_quiet
                   ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np} ${H5SF_MPIEXEC_FLAGS} ${MPIEXEC_PREFLAGS}
                   $<TARGET_FILE:t_quiet> ${MPIEXEC_POSTFLAGS} ${dir})
  set_tests_properties(t_quiet_np${np} PROPERTIES ENVIRONMENT "${H5SF_MPI_TEST_ENV}" TIMEOUT 120 LABELS "mpi;asan")
endforeach()
