# The request wire format (common/wire.c): encode, decode, refusals.
add_executable(unit_wire ${CMAKE_CURRENT_SOURCE_DIR}/unit_wire.c)
target_link_libraries(unit_wire PRIVATE h5sf_common)
add_test(NAME unit_wire COMMAND unit_wire)
set_tests_properties(unit_wire PROPERTIES LABELS "unit;asan")
