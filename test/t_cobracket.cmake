# t_cobracket: the caller's own COBEGIN/COEND around several transfer calls
# on an h5sf file (t_cobracket.c): transfers of different calls in flight
# together (the overlap hook of t_cobegin, across calls), bytes checked in
# the subfiles; nesting, a collective call, flush and close inside a
# bracket; sec2 and h5sf with an unknown opcode under IGNORE/FAIL_IF_UNKNOWN;
# HDF5's splitter routing the bracket to h5sf.  Channels: direct, IOC with
# same-node shortcuts, IOC with every transfer through the IOCs; 1-3 ranks
# and two groups of a split communicator.  Error path: an injected EIO
# (pool and IOC) or a hung IOC past a 2 s timeout fails the COEND with the
# cause, on the caller's rank.
add_executable(t_cobracket ${CMAKE_CURRENT_SOURCE_DIR}/t_cobracket.c)
target_link_libraries(t_cobracket PRIVATE h5sf hdf5::hdf5-shared)

function(t_cobracket_test name np)
  set(dir ${CMAKE_CURRENT_BINARY_DIR}/work/${name})
  file(MAKE_DIRECTORY ${dir})
  h5sf_mpi_test(${name} t_cobracket ${np} ${dir} ${ARGN})
  set_tests_properties(${name} PROPERTIES TIMEOUT 120)
endfunction()

set(_cob_ioc "H5SF_CHANNEL=ioc" "H5SF_SAMENODE_READS=1" "H5SF_SAMENODE_WRITES=1")
set(_cob_iocpath "H5SF_CHANNEL=ioc" "H5SF_SAMENODE_READS=0" "H5SF_SAMENODE_WRITES=0")
foreach(np 1 2 3)
  t_cobracket_test(t_cobracket_direct_np${np} ${np} main world
                   ENV "H5SF_CHANNEL=direct" "H5SF_FAULT=op=overlap,ms=5000")
  t_cobracket_test(t_cobracket_ioc_np${np} ${np} main world ENV ${_cob_ioc} "H5SF_FAULT=op=overlap,ms=5000")
  t_cobracket_test(t_cobracket_iocpath_np${np} ${np} main world ENV ${_cob_iocpath})
endforeach()
t_cobracket_test(t_cobracket_direct_split_np3 3 main split
                 ENV "H5SF_CHANNEL=direct" "H5SF_FAULT=op=overlap,ms=5000")
t_cobracket_test(t_cobracket_iocpath_split_np3 3 main split ENV ${_cob_iocpath})
# H5SF_POOL_THREADS bounds the pool's part: 1 worker (and the caller at
# COEND: 2 at once), 0 (each transfer at its call: 1).  The hook waits
# less: not every transfer of a bracket can start.
t_cobracket_test(t_cobracket_direct_np2_pool0 2 main world
                 ENV "H5SF_CHANNEL=direct" "H5SF_FAULT=op=overlap,ms=1000" "H5SF_POOL_THREADS=0")
t_cobracket_test(t_cobracket_ioc_np2_pool1 2 main world
                 ENV ${_cob_ioc} "H5SF_FAULT=op=overlap,ms=1000" "H5SF_POOL_THREADS=1")
# Under TSan (label tsan): the pool's workers beside HDF5's thread, posts
# and drains across calls.  The IOC-path variants stay out: Open MPI's own
# lock order (ompi_sync_wait_mt) is reported there, as for t_roundtrip_iocpath.
foreach(t t_cobracket_direct_np2 t_cobracket_ioc_np2)
  set_property(TEST ${t} APPEND PROPERTY LABELS tsan)
  set_property(TEST ${t} APPEND PROPERTY ENVIRONMENT
    "TSAN_OPTIONS=halt_on_error=1 second_deadlock_stack=1 suppressions=${CMAKE_CURRENT_SOURCE_DIR}/tsan_mpi.supp")
endforeach()
# Error path: every pwritev fails with EIO (the pool's on the direct
# channel, the IOC's through it).
t_cobracket_test(t_cobracket_fault_direct_np2 2 fault world
                 ENV "H5SF_CHANNEL=direct" "H5SF_FAULT=op=pwrite,errno=EIO")
t_cobracket_test(t_cobracket_fault_ioc_np2 2 fault world ENV ${_cob_iocpath} "H5SF_FAULT=op=pwrite,errno=EIO")
# A hung IOC (after the open's requests): the COEND fails within the 2 s
# timeout instead of waiting for good.
# after=4: the open's four size queries pass.
t_cobracket_test(t_cobracket_hang_np2 2 fault world ",timeout=2"
                 ENV ${_cob_iocpath} "H5SF_FAULT=op=hang,rank=0,after=4")

h5sf_tsan(t_cobracket)
