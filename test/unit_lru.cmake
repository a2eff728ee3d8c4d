# The use order behind both descriptor caps (common/lru.c) against a model;
# no HDF5, no MPI.
add_executable(unit_lru ${CMAKE_CURRENT_SOURCE_DIR}/unit_lru.c)
target_link_libraries(unit_lru PRIVATE h5sf_common)
add_test(NAME unit_lru COMMAND unit_lru)
set_tests_properties(unit_lru PROPERTIES LABELS "unit;asan")
