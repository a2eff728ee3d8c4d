# t_nodeskept: the nodes of a group are found once per group and kept; a
# rank that forgot them makes every rank find them again (no hang).
add_executable(t_nodeskept ${CMAKE_CURRENT_SOURCE_DIR}/t_nodeskept.c)
target_link_libraries(t_nodeskept PRIVATE h5sf hdf5::hdf5-shared)
foreach(np 1 2 3 4)
  h5sf_mpi_test(t_nodeskept_np${np} t_nodeskept ${np} ${CMAKE_CURRENT_BINARY_DIR}/work/t_nodeskept_np${np} kept)
endforeach()
foreach(np 2 3)
  math(EXPR last "${np} - 1")
  h5sf_mpi_test(t_nodeskept_forget_np${np} t_nodeskept ${np} ${CMAKE_CURRENT_BINARY_DIR}/work/t_nodeskept_forget_np${np}
                forget ENV "H5SF_FAULT=op=topo-forget,rank=${last},after=1,count=1")
endforeach()
