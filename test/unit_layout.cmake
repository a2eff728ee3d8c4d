# The on-disk layout record (common/layout.c): config file, names, driver info.
add_executable(unit_layout ${CMAKE_CURRENT_SOURCE_DIR}/unit_layout.c)
target_link_libraries(unit_layout PRIVATE h5sf_common)
add_test(NAME unit_layout COMMAND unit_layout)
set_tests_properties(unit_layout PROPERTIES LABELS "unit;asan")
