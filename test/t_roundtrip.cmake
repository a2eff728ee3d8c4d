# t_roundtrip: write/read every selection kind, both channels, many stripe
# settings; compared with a pattern and an MPI-IO reference.  Variants: all
# IOC-channel I/O through the IOCs (no same-node shortcut), payloads as MPI
# messages (no shared memory), a tag space of two requests.
add_executable(t_roundtrip ${CMAKE_CURRENT_SOURCE_DIR}/t_roundtrip.c)
target_link_libraries(t_roundtrip PRIVATE h5sf hdf5::hdf5-shared)
# t_roundtrip's data and passes live in files of their own (t_roundtrip.h).
target_sources(t_roundtrip PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/t_roundtrip_data.c
                                   ${CMAKE_CURRENT_SOURCE_DIR}/t_roundtrip_io.c)
foreach(np 1 2 3 4)
  h5sf_mpi_test(t_roundtrip_np${np} t_roundtrip ${np})
endforeach()
# The same with all IOC-channel I/O through the IOCs.
foreach(np 2 3)
  h5sf_mpi_test(t_roundtrip_iocpath_np${np} t_roundtrip ${np} ENV "H5SF_SAMENODE_READS=0" "H5SF_SAMENODE_WRITES=0")
endforeach()
# ... and with payloads as MPI messages, as between nodes (no shared memory).
h5sf_mpi_test(t_roundtrip_iocmsg_np3 t_roundtrip 3 ENV "H5SF_SAMENODE_READS=0" "H5SF_SAMENODE_WRITES=0"
              "H5SF_IOC_SHM=0")
# A tag space of two requests per client (H5SF_TEST_TAG_UB): replies are
# matched by request id and the channel waits before posting more.
h5sf_mpi_test(t_roundtrip_tags_np3 t_roundtrip 3 ENV "H5SF_TEST_TAG_UB=24" "H5SF_CHANNEL=ioc"
              "H5SF_SAMENODE_READS=0" "H5SF_SAMENODE_WRITES=0")
