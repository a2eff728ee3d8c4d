# Stripe arithmetic (common/stripe.c) against a byte-by-byte model.
add_executable(unit_stripe ${CMAKE_CURRENT_SOURCE_DIR}/unit_stripe.c)
target_link_libraries(unit_stripe PRIVATE h5sf_common)
add_test(NAME unit_stripe COMMAND unit_stripe)
set_tests_properties(unit_stripe PROPERTIES LABELS "unit;asan")
