# t_sweep: reliability by sweep (test/t_sweep.c).
add_executable(t_sweep ${CMAKE_CURRENT_SOURCE_DIR}/t_sweep.c)
target_link_libraries(t_sweep PRIVATE h5sf hdf5::hdf5-shared)
