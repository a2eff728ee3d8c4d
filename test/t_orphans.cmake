# t_orphans: the config files and subfiles of a removed stub (netCDF's
# abort path remove()s only the stub).  H5Fcreate (TRUNC or EXCL) of the
# name reclaims them, and TRUNC over a live file leaves no subfile of the
# old count; h5sf-orphans lists and (--remove) deletes orphaned sets and
# nothing else (a shared config_dir, a stub renamed in its directory, live
# files).  1 and 2 ranks (files created on MPI_COMM_WORLD); about 5 s.
# Harness: test/h5sf_test.h.
add_executable(t_orphans ${CMAKE_CURRENT_SOURCE_DIR}/t_orphans.c)
target_link_libraries(t_orphans PRIVATE h5sf hdf5::hdf5-shared)
add_dependencies(t_orphans h5sf-orphans)
foreach(np 1 2)
  h5sf_mpi_test(t_orphans_np${np} t_orphans ${np} ${CMAKE_CURRENT_BINARY_DIR}/work/t_orphans_np${np}
                $<TARGET_FILE:h5sf-orphans>)
  set_tests_properties(t_orphans_np${np} PROPERTIES TIMEOUT 180)
endforeach()
