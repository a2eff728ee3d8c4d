# Settings (common/options.c, values.c, settings.c, cfgstring.c).
add_executable(unit_config ${CMAKE_CURRENT_SOURCE_DIR}/unit_config.c)
target_link_libraries(unit_config PRIVATE h5sf_common)
add_test(NAME unit_config COMMAND unit_config)
set_tests_properties(unit_config PROPERTIES LABELS "unit;asan")
