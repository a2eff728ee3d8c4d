# t_userblock: a user block of 512 B and 64 KiB round-trips through h5sf as
# through MPI-IO (raw bytes checked by independent stripe arithmetic).
add_executable(t_userblock ${CMAKE_CURRENT_SOURCE_DIR}/t_userblock.c)
target_link_libraries(t_userblock PRIVATE MPI::MPI_C hdf5::hdf5-shared)
foreach(ch direct ioc)
  foreach(np 1 3)
    set(_ud ${CMAKE_CURRENT_BINARY_DIR}/work/userblock_${ch}_np${np})
    file(MAKE_DIRECTORY ${_ud})
    h5sf_mpi_test(t_userblock_${ch}_np${np} t_userblock ${np} ${_ud} ENV "H5SF_CHANNEL=${ch}")
    set_tests_properties(t_userblock_${ch}_np${np} PROPERTIES TIMEOUT 120)
  endforeach()
endforeach()
