# The I/O concentrator list (common/iocmap.c): hand-worked placements and a
# transcription of the built-in driver's selection.
add_executable(unit_topology ${CMAKE_CURRENT_SOURCE_DIR}/unit_topology.c)
target_link_libraries(unit_topology PRIVATE h5sf_common)
add_test(NAME unit_topology COMMAND unit_topology)
set_tests_properties(unit_topology PROPERTIES LABELS "unit;asan")
