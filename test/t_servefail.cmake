# t_servefail: an IOC thread of the last rank fails to start while h5sf
# opens a file (the program's own uv_thread_create fails start N: 2, the
# second worker; 3, the progress thread).  Every rank's open fails naming
# the thread start, the failing rank keeps no IOC thread, and the next open
# or MPI_Finalize works; an alarm turns a hang into a failure.
add_executable(t_servefail ${CMAKE_CURRENT_SOURCE_DIR}/t_servefail.c)
target_link_libraries(t_servefail PRIVATE h5sf hdf5::hdf5-shared PkgConfig::UV ${CMAKE_DL_LIBS})
# libh5sf's calls to uv_thread_create must find the program's.
set_target_properties(t_servefail PROPERTIES ENABLE_EXPORTS ON)
foreach(c "worker;2;reopen;2" "progress;3;finalize;2" "progress;3;reopen;1")
  list(GET c 0 what)
  list(GET c 1 start)
  list(GET c 2 mode)
  list(GET c 3 np)
  set(name t_servefail_${what}_${mode}_np${np})
  h5sf_mpi_test(${name} t_servefail ${np} ${CMAKE_CURRENT_BINARY_DIR}/work/${name} ${start} ${mode})
  set_tests_properties(${name} PROPERTIES TIMEOUT 120)
endforeach()
