# t_onerun: single-block selections, which small transfers take without
# HDF5's selection iterators (vfd/io.c, one_run), against a plain C model;
# blocks on both sides of the rule, in file and memory; both channels.
add_executable(t_onerun ${CMAKE_CURRENT_SOURCE_DIR}/t_onerun.c)
target_link_libraries(t_onerun PRIVATE MPI::MPI_C hdf5::hdf5-shared)
h5sf_channel_tests(t_onerun 1 3)
