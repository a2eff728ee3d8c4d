# The benchmark (scripts/bench.sh drives it).  Not installed: a developer tool.
add_executable(h5sf-bench ${CMAKE_SOURCE_DIR}/tools/bench/h5sf-bench.c)
target_link_libraries(h5sf-bench PRIVATE MPI::MPI_C hdf5::hdf5-shared)
target_compile_definitions(h5sf-bench PRIVATE H5SF_HAVE_SUBFILING_VFD=$<BOOL:${H5SF_HAVE_SUBFILING_VFD}>)
