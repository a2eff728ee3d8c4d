# HDF5's own test programs through h5sf (scripts/conformance.sh; label
# conformance): serial programs with HDF5_DRIVER=h5sf, parallel programs at
# 4 ranks through the preload redirect on each channel.  Each fails on a
# failure that test/conformance/expected.tsv does not list, or on a timeout.
# The parallel parts run alone (RUN_SERIAL): 4 ranks and their IOC threads
# on this 2-core machine beside other jobs would starve them.  The serial
# part runs one process at a time and shares the machine with other tests.
# Under MPICH the ranks preload the tests' yield shim (test/mpich_yield.c):
# without it 4 ranks took 10-16 times as long as under Open MPI (testphdf5
# 249 s against 15 s, t_bigio 511 s against 40 s, 2026-11-27); with it the
# IOC part took 181 s and the direct part 131 s (2026-11-28, 2 cores).
# Under MPICH only the IOC part runs: it is where MPI and h5sf's threads
# meet (HDF5's t_pshutdown found MPICH's MPI_Finalize abort there).  The
# serial part exercises no MPI library feature, and the direct part's MPI is
# HDF5's own collectives and h5sf's agreement, which the suite's MPI tests
# run under MPICH; the two took 275 s of CI's 60 minutes (2026-12-01).
set(_conf_parts serial parallel-direct parallel-ioc)
if(H5SF_MPI_FLAVOUR STREQUAL "mpich")
  set(_conf_parts parallel-ioc)
endif()
foreach(part IN LISTS _conf_parts)
  add_test(NAME conformance_${part}
           COMMAND ${CMAKE_COMMAND} -E env H5SF_BUILD_DIR=${CMAKE_BINARY_DIR} H5SF_MPI=${H5SF_MPI_FLAVOUR}
                   bash ${CMAKE_SOURCE_DIR}/scripts/conformance.sh ${part})
  set_tests_properties(conformance_${part} PROPERTIES LABELS "conformance" TIMEOUT 3600)
  if(NOT part STREQUAL "serial")
    set_tests_properties(conformance_${part} PROPERTIES RUN_SERIAL TRUE)
  endif()
endforeach()
