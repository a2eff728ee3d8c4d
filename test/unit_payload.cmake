# Payload messages and datatypes (ioc/payload.c, ioc/dtype.c): MPI_Pack
# needs MPI, so one rank.
add_executable(unit_payload ${CMAKE_CURRENT_SOURCE_DIR}/unit_payload.c)
target_link_libraries(unit_payload PRIVATE h5sf_ioc)
h5sf_mpi_test(unit_payload unit_payload 1)
set_property(TEST unit_payload APPEND PROPERTY LABELS unit)
