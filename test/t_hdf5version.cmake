# The HDF5 version check of the plugin (vfd/hdf5priv.c), label "version":
#   hdf5version_old     H5get_libversion faked (LD_PRELOAD) to 1.12.3: refused
#   hdf5version_new     faked to 2.3.0: refused
#   hdf5version_allow   faked to 1.12.3 with H5SF_ALLOW_UNTESTED_HDF5=1: loads
#   hdf5version_real    the real HDF5: loads
# Not in the sanitizer builds: their runtimes must come first in LD_PRELOAD.
add_library(fake_libversion SHARED ${CMAKE_CURRENT_SOURCE_DIR}/fake_libversion.c)
# Not in build/lib: that is HDF5_PLUGIN_PATH, which HDF5 scans.
set_target_properties(fake_libversion PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
add_executable(t_hdf5version ${CMAKE_CURRENT_SOURCE_DIR}/t_hdf5version.c)
target_link_libraries(t_hdf5version PRIVATE MPI::MPI_C hdf5::hdf5-shared)
add_dependencies(t_hdf5version h5sf)

function(h5sf_version_test name mode)
  add_test(NAME ${name} COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 1 $<TARGET_FILE:t_hdf5version> ${mode})
  set(env ${H5SF_MPI_TEST_ENV} ${ARGN})
  set_tests_properties(${name} PROPERTIES ENVIRONMENT "${env}" TIMEOUT 60 LABELS "mpi;version")
endfunction()
if(NOT H5SF_SANITIZE)
  set(_fake "LD_PRELOAD=$<TARGET_FILE:fake_libversion>")
  h5sf_version_test(hdf5version_old refuse ${_fake} H5SF_FAKE_HDF5_VERSION=1.12.3)
  h5sf_version_test(hdf5version_new refuse ${_fake} H5SF_FAKE_HDF5_VERSION=2.3.0)
  h5sf_version_test(hdf5version_allow load ${_fake} H5SF_FAKE_HDF5_VERSION=1.12.3 H5SF_ALLOW_UNTESTED_HDF5=1)
endif()
h5sf_version_test(hdf5version_real load)
