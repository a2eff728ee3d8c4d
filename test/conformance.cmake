# HDF5's own test programs through h5sf (scripts/conformance.sh; label
# conformance): serial programs with HDF5_DRIVER=h5sf, parallel programs at
# 4 ranks through the preload redirect on each channel.  Each fails on a
# failure that test/conformance/expected.tsv does not list, or on a timeout.
foreach(part serial parallel-direct parallel-ioc)
  add_test(NAME conformance_${part}
           COMMAND ${CMAKE_COMMAND} -E env H5SF_BUILD_DIR=${CMAKE_BINARY_DIR} H5SF_MPI=${H5SF_MPI_FLAVOUR}
                   bash ${CMAKE_SOURCE_DIR}/scripts/conformance.sh ${part})
  set_tests_properties(conformance_${part} PROPERTIES LABELS "conformance" TIMEOUT 3600 RUN_SERIAL TRUE)
endforeach()
