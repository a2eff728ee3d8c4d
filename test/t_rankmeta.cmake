# t_rankmeta: collective transfers in which one rank alone reads metadata
# (a reopened file's chunk B-tree), so h5sf must not agree on those reads
# (vfd/io.c, finish); both channels, 2 and 3 ranks.
add_executable(t_rankmeta ${CMAKE_CURRENT_SOURCE_DIR}/t_rankmeta.c)
target_link_libraries(t_rankmeta PRIVATE h5sf hdf5::hdf5-shared)
foreach(ch direct ioc)
  foreach(np 2 3)
    h5sf_mpi_test(t_rankmeta_${ch}_np${np} t_rankmeta ${np} ${CMAKE_CURRENT_BINARY_DIR}/work/rankmeta_${ch}_np${np}
                  ENV "H5SF_CHANNEL=${ch}")
    set_tests_properties(t_rankmeta_${ch}_np${np} PROPERTIES TIMEOUT 200)
  endforeach()
endforeach()
