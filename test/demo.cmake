# The demo (scripts/demo.sh runs it with 4 ranks).
add_executable(h5sf_demo ${CMAKE_CURRENT_SOURCE_DIR}/demo.c)
target_link_libraries(h5sf_demo PRIVATE h5sf hdf5::hdf5-shared)
