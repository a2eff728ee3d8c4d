# The run-cutter (common/runs.c) against a byte-stream model; no HDF5, no MPI.
add_executable(unit_runs ${CMAKE_CURRENT_SOURCE_DIR}/unit_runs.c)
target_link_libraries(unit_runs PRIVATE h5sf_common)
add_test(NAME unit_runs COMMAND unit_runs)
set_tests_properties(unit_runs PROPERTIES LABELS "unit;asan")
