# t_eof: a subfile longer than the file's end is harmless (read-only and
# read-write opens work; close restores exact sizes); one cut short fails
# the open on every rank.  Both channels, 1 and 3 ranks.
add_executable(t_eof ${CMAKE_CURRENT_SOURCE_DIR}/t_eof.c)
target_link_libraries(t_eof PRIVATE MPI::MPI_C hdf5::hdf5-shared)
foreach(ch direct ioc)
  foreach(np 1 3)
    set(_ed ${CMAKE_CURRENT_BINARY_DIR}/work/eof_${ch}_np${np})
    file(MAKE_DIRECTORY ${_ed})
    h5sf_mpi_test(t_eof_${ch}_np${np} t_eof ${np} ${_ed} ENV "H5SF_CHANNEL=${ch}")
    set_tests_properties(t_eof_${ch}_np${np} PROPERTIES TIMEOUT 120)
  endforeach()
endforeach()
