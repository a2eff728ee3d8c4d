# Files crossing between the MPI families (label "crossmpi"): what one
# family's plugin writes, the other's h5sf, built-in driver and h5dump read
# byte for byte, both ways (test/ecosystem/t_xmpi_data.sh).  Uses the other
# family's build and HDF5 that t_crossmpi.cmake found; skipped (77) when
# they are absent.
if(DEFINED H5SF_CROSSMPI_BUILD_DIR AND H5SF_CROSSMPI_MPIEXEC)
  get_filename_component(_own_hdf5 "${H5SF_HDF5_LIB_DIR}" DIRECTORY)
  add_test(NAME crossmpi_data
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/ecosystem/t_xmpi_data.sh ${CMAKE_BINARY_DIR}/crossmpi/data
                   ${CMAKE_BINARY_DIR} ${MPIEXEC_EXECUTABLE} ${H5SF_MPI_FLAVOUR} ${_own_hdf5}
                   ${H5SF_CROSSMPI_BUILD_DIR} ${H5SF_CROSSMPI_MPIEXEC} ${_other} ${H5SF_CROSSMPI_HDF5_PREFIX})
  set_tests_properties(crossmpi_data PROPERTIES ENVIRONMENT "${H5SF_MPI_TEST_ENV}" TIMEOUT 400
                       SKIP_RETURN_CODE 77 LABELS "mpi;crossmpi")
endif()
