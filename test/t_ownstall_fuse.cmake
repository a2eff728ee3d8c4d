# Every rank's H5Dwrite and H5Fclose return within the timeout when the
# IOC rank's subfiles stall, without fault injection (t_ownstall_fuse.c):
# the subfiles live on fuse_stall, a passthrough FUSE file system whose
# writes block while a trigger file exists.  Built only where libfuse3 is
# found (Debian: fuse3, libfuse3-dev); reported as skipped where /dev/fuse
# cannot be used (t_ownstall_fuse.sh).
find_package(PkgConfig QUIET)
if(PkgConfig_FOUND)
  pkg_check_modules(FUSE3 IMPORTED_TARGET QUIET fuse3)
endif()
if(FUSE3_FOUND)
  add_executable(fuse_stall ${CMAKE_CURRENT_SOURCE_DIR}/fuse_stall.c)
  target_link_libraries(fuse_stall PRIVATE PkgConfig::FUSE3)
  add_executable(t_ownstall_fuse ${CMAKE_CURRENT_SOURCE_DIR}/t_ownstall_fuse.c)
  target_link_libraries(t_ownstall_fuse PRIVATE h5sf hdf5::hdf5-shared)
  add_test(NAME t_ownstall_fuse_np2
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/t_ownstall_fuse.sh $<TARGET_FILE:fuse_stall>
                   ${CMAKE_CURRENT_BINARY_DIR}/work/ownstall_fuse ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2
                   ${H5SF_MPIEXEC_FLAGS} ${MPIEXEC_PREFLAGS} $<TARGET_FILE:t_ownstall_fuse>)
  set_tests_properties(t_ownstall_fuse_np2 PROPERTIES ENVIRONMENT
                       "${H5SF_MPI_TEST_ENV};H5SF_SAMENODE_READS=0;H5SF_SAMENODE_WRITES=0" TIMEOUT 120
                       LABELS "mpi;asan" SKIP_RETURN_CODE 77)
else()
  message(STATUS "libfuse3 not found: t_ownstall_fuse_np2 is not built (Debian: libfuse3-dev)")
endif()
