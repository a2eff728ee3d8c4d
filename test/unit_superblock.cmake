# The HDF5 superblock (common/superblock.c) and the tools' driver info after
# it (common/sblock.c), against files HDF5 wrote (test/data/superblock).
add_executable(unit_superblock ${CMAKE_CURRENT_SOURCE_DIR}/unit_superblock.c)
target_link_libraries(unit_superblock PRIVATE h5sf_tools h5sf_common)
add_test(NAME unit_superblock COMMAND unit_superblock ${CMAKE_CURRENT_SOURCE_DIR}/data/superblock)
set_tests_properties(unit_superblock PROPERTIES LABELS "unit;asan")
