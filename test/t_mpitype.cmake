# t_mpitype: vfd/mpitype.c's flattening of MPI datatypes against MPI_Pack,
# one rank.  The flattener is hidden inside libh5sf, so the test compiles
# vfd/mpitype.c in and links what it calls (common/), and what vfd/'s
# headers need (include/, HDF5).
add_executable(t_mpitype ${CMAKE_CURRENT_SOURCE_DIR}/t_mpitype.c ${CMAKE_SOURCE_DIR}/vfd/mpitype.c)
target_include_directories(t_mpitype PRIVATE ${CMAKE_SOURCE_DIR}/include)
target_link_libraries(t_mpitype PRIVATE h5sf_ioc h5sf_common hdf5::hdf5-shared)
h5sf_mpi_test(t_mpitype t_mpitype 1)
set_property(TEST t_mpitype APPEND PROPERTY LABELS unit)
