# A plugin loaded by a program of the other MPI family (vfd/plugin.c's MPI
# check), label "crossmpi", both directions (test/ecosystem/t_crossmpi.sh):
#   crossmpi_plugin_<other>  this build's t_crossmpi loads the plugin of the
#                            other family's build (H5SF_CROSSMPI_BUILD_DIR):
#                            refused, naming both MPIs
#   crossmpi_app_<other>     t_crossmpi built with the other family's mpicc
#                            against its HDF5 (H5SF_CROSSMPI_HDF5_PREFIX)
#                            loads this build's plugin: refused likewise
# Skipped (77) when the other family's build, HDF5 or MPI is absent.  Not in
# the sanitizer builds: an instrumented plugin cannot load into the other
# family's uninstrumented program, whatever its MPI.
# For the other tests that need the other family (eco_install_both,
# t_xmpi.cmake): H5SF_CROSSMPI_FLAVOUR (also _other) and the cache
# variables H5SF_CROSSMPI_BUILD_DIR, _HDF5_PREFIX, _CC and _MPIEXEC.
add_executable(t_crossmpi ${CMAKE_CURRENT_SOURCE_DIR}/t_crossmpi.c)
target_link_libraries(t_crossmpi PRIVATE MPI::MPI_C hdf5::hdf5-shared)
add_dependencies(t_crossmpi h5sf)

if(H5SF_MPI_FLAVOUR STREQUAL "openmpi")
  set(_other mpich)
  set(_other_build ${CMAKE_SOURCE_DIR}/build-mpich)
elseif(H5SF_MPI_FLAVOUR STREQUAL "mpich")
  set(_other openmpi)
  set(_other_build ${CMAKE_SOURCE_DIR}/build)
else()
  set(_other "")
endif()

set(H5SF_CROSSMPI_FLAVOUR "${_other}")

if(_other AND NOT H5SF_SANITIZE)
  # The other family's HDF5: this one's prefix with the family swapped
  # (scripts/bootstrap.sh: <cache>/hdf5-<version>-<family>), else the
  # bootstrap's default.
  get_filename_component(_prefix "${H5SF_HDF5_LIB_DIR}" DIRECTORY)
  if(_prefix MATCHES "-${H5SF_MPI_FLAVOUR}$")
    string(REGEX REPLACE "-${H5SF_MPI_FLAVOUR}$" "-${_other}" _other_hdf5 "${_prefix}")
  else()
    set(_other_hdf5 "$ENV{HOME}/.cache/h5sf/hdf5-1.14.5+repack-3-${_other}")
  endif()
  set(H5SF_CROSSMPI_BUILD_DIR "${_other_build}" CACHE PATH
      "h5sf build of the other MPI family, whose plugin (lib/libh5sf.so) the crossmpi tests load")
  set(H5SF_CROSSMPI_HDF5_PREFIX "${_other_hdf5}" CACHE PATH
      "HDF5 built with the other MPI family, for the crossmpi tests' program")
  find_program(H5SF_CROSSMPI_CC NAMES mpicc.${_other} DOC "mpicc of the other MPI family (crossmpi tests)")
  find_program(H5SF_CROSSMPI_MPIEXEC NAMES mpiexec.${_other} DOC "mpiexec of the other MPI family (crossmpi tests)")

  add_test(NAME crossmpi_plugin_${_other}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/ecosystem/t_crossmpi.sh plugin ${CMAKE_BINARY_DIR}/crossmpi/plugin
                   $<TARGET_FILE:t_crossmpi> ${H5SF_MPI_FLAVOUR} ${MPIEXEC_EXECUTABLE} ${H5SF_HDF5_LIB_DIR}
                   ${CMAKE_BINARY_DIR}/lib ${H5SF_CROSSMPI_BUILD_DIR} ${_other})
  add_test(NAME crossmpi_app_${_other}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/ecosystem/t_crossmpi.sh app ${CMAKE_BINARY_DIR}/crossmpi/app ${CMAKE_SOURCE_DIR}
                   ${H5SF_CROSSMPI_CC} ${H5SF_CROSSMPI_MPIEXEC} ${H5SF_CROSSMPI_HDF5_PREFIX} ${_other}
                   ${CMAKE_BINARY_DIR}/lib ${H5SF_MPI_FLAVOUR})
  set_tests_properties(crossmpi_plugin_${_other} crossmpi_app_${_other} PROPERTIES
                       ENVIRONMENT "${H5SF_MPI_TEST_ENV}" TIMEOUT 600 SKIP_RETURN_CODE 77
                       LABELS "mpi;crossmpi")
endif()
