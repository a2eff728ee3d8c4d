# t_config: the fapl struct, config strings, the environment, bad values.
add_executable(t_config ${CMAKE_CURRENT_SOURCE_DIR}/t_config.c)
target_link_libraries(t_config PRIVATE h5sf hdf5::hdf5-shared)
foreach(np 1 2 3)
  h5sf_mpi_test(t_config_np${np} t_config ${np})
endforeach()
