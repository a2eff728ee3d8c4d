# Settings (common/options.c, values.c, config.c, cfgstring.c) and the on-disk layout record (common/layout.c).
add_executable(unit_config ${CMAKE_CURRENT_SOURCE_DIR}/unit_config.c)
target_link_libraries(unit_config PRIVATE h5sf_common)
add_test(NAME unit_config COMMAND unit_config)
set_tests_properties(unit_config PROPERTIES LABELS "unit;asan")

add_executable(unit_layout ${CMAKE_CURRENT_SOURCE_DIR}/unit_layout.c)
target_link_libraries(unit_layout PRIVATE h5sf_common)
add_test(NAME unit_layout COMMAND unit_layout)
set_tests_properties(unit_layout PROPERTIES LABELS "unit;asan")
