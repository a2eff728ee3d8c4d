# Reliability tests: injected faults, bad input, damaged files,
# stress.  The harness is test/h5sf_test.h.
#   t_fault     one fixture chain per scenario: prepare -> run (H5SF_FAULT
#               set by the program) -> verify; 4 ranks, 2 IOCs
#   t_badinput  every setting with invalid values (config string, H5SF_*,
#               the built-in's variables): H5Fcreate fails on every rank
#   t_damaged   damaged files: clear error, nothing modified read-only
#   t_stress    8 ranks, random I/O vs a serial model; many files at once
#   t_subfiledir  subfile_dir relative to the creator's cwd or (in the config
#               file) to the stub's directory; edited subfile names refused
foreach(t t_fault t_badinput t_damaged t_stress t_subfiledir)
  add_executable(${t} ${CMAKE_CURRENT_SOURCE_DIR}/${t}.c)
  target_link_libraries(${t} PRIVATE h5sf hdf5::hdf5-shared)
endforeach()

set(_rel ${CMAKE_CURRENT_BINARY_DIR}/rel)
file(MAKE_DIRECTORY ${_rel})

# Faults: the job must end well inside TIMEOUT (the hang scenario uses a
# 3-second client timeout).
set(_fault_scenarios pwrite_eio pwrite_enospc pwrite_eio_coll pwrite_meta_coll pwrite_short pwrite_eintr pread_eio
    pread_short pread_eintr open_create open_reopen fsync fsync_ioc0 fsync_second fsync_direct stall hang hang_write
    stuck_write pwrite_direct pwrite_short_direct pread_short_direct pread_eintr_direct)
foreach(s IN LISTS _fault_scenarios)
  set(d ${_rel}/fault)
  # Faults are injected at the IOCs: reads must go through them.
  h5sf_mpi_test(t_fault_${s} t_fault 4 run ${s} ${d} ENV "H5SF_SAMENODE_READS=0" "H5SF_SAMENODE_WRITES=0")
  set_tests_properties(t_fault_${s} PROPERTIES TIMEOUT 90)
  if(NOT s STREQUAL "open_create")
    h5sf_mpi_test(t_fault_${s}_prepare t_fault 4 prepare ${s} ${d})
    h5sf_mpi_test(t_fault_${s}_verify t_fault 4 verify ${s} ${d})
    set_tests_properties(t_fault_${s}_prepare PROPERTIES FIXTURES_SETUP fault_${s} TIMEOUT 90)
    set_tests_properties(t_fault_${s}_verify PROPERTIES FIXTURES_CLEANUP fault_${s} TIMEOUT 90)
    set_tests_properties(t_fault_${s} PROPERTIES FIXTURES_REQUIRED fault_${s})
  endif()
endforeach()

# Bad settings: every case must fail on every rank, naming the key/variable.
foreach(ch ioc direct)
  h5sf_mpi_test(t_badinput_${ch} t_badinput 4 ${_rel}/badinput_${ch} ${ch})
  set_tests_properties(t_badinput_${ch} PROPERTIES TIMEOUT 120)
endforeach()

# Damaged files, through both channels.
h5sf_mpi_test(t_damaged_ioc t_damaged 4 ${_rel}/damaged_ioc "channel=ioc,ioc=total:2")
h5sf_mpi_test(t_damaged_direct t_damaged 4 ${_rel}/damaged_direct "channel=direct")
set_tests_properties(t_damaged_ioc t_damaged_direct PROPERTIES TIMEOUT 150)

# Where the subfiles are, read from other working directories; both channels.
h5sf_mpi_test(t_subfiledir_ioc t_subfiledir 3 ${_rel}/subfiledir_ioc "channel=ioc,ioc=total:2")
h5sf_mpi_test(t_subfiledir_direct t_subfiledir 3 ${_rel}/subfiledir_direct "channel=direct")
set_tests_properties(t_subfiledir_ioc t_subfiledir_direct PROPERTIES TIMEOUT 120)

# Stress: 8 ranks against a serial model, 1/2/4 IOCs, several stripe sizes,
# both channels; then 64 files at once and one file opened twice.
set(_stress8)
set(_stress_cfgs
    "ioc1:channel=ioc,ioc=total:1,stripe_size=4096,stripe_count=3"
    "ioc2:channel=ioc,ioc=total:2,stripe_size=65536,stripe_count=4"
    "ioc4:channel=ioc,ioc=total:4,stripe_size=1000,stripe_count=8"
    "direct:channel=direct,stripe_size=4096,stripe_count=5")
foreach(c IN LISTS _stress_cfgs)
  string(FIND "${c}" ":" colon)
  string(SUBSTRING "${c}" 0 ${colon} tag)
  math(EXPR colon "${colon} + 1")
  string(SUBSTRING "${c}" ${colon} -1 cfg)
  h5sf_mpi_test(t_stress_${tag} t_stress 8 ${_rel}/stress_${tag} "${cfg}" random 12345
                ENV "H5SF_SAMENODE_READS=0" "H5SF_SAMENODE_WRITES=0")
  set_tests_properties(t_stress_${tag} PROPERTIES TIMEOUT 300)
  list(APPEND _stress8 t_stress_${tag})
endforeach()
# Reads straight from same-node subfiles while other ranks write through the
# IOCs.  Set by the variables' old names, which h5sf still reads: were they
# ignored, writes would skip the IOC too and t_stress's path check fail.
h5sf_mpi_test(t_stress_ioc2_samenode_reads t_stress 8 ${_rel}/stress_ioc2_lr "channel=ioc,ioc=total:2,stripe_size=4096"
              random 4242 ENV "H5SF_IOC_LOCAL_READS=1" "H5SF_IOC_LOCAL_WRITES=0")
set_tests_properties(t_stress_ioc2_samenode_reads PROPERTIES TIMEOUT 300)
# Eight ranks on this suite's 2-core machine are 4 per core already: beside
# another MPI test (ctest -j) a phase took up to 21 s instead of 0.3 s,
# mostly every rank replaying the model.  They run alone.
set_tests_properties(${_stress8} t_stress_ioc2_samenode_reads PROPERTIES RUN_SERIAL TRUE)
# Dense writes straight to the subfiles, strided ones through the IOCs,
# overlapping each other, checked against the serial model.
h5sf_mpi_test(t_stress_ioc2_samenode_writes t_stress 3 ${_rel}/stress_ioc2_lw "channel=ioc,ioc=total:2,stripe_size=65536"
              random 777 ENV "H5SF_SAMENODE_READS=1" "H5SF_SAMENODE_WRITES=dense")
set_tests_properties(t_stress_ioc2_samenode_writes PROPERTIES TIMEOUT 120)
h5sf_mpi_test(t_stress_many t_stress 4 ${_rel}/stress_many "channel=ioc,ioc=total:2,stripe_size=4096,stripe_count=2" many)
set_tests_properties(t_stress_many PROPERTIES TIMEOUT 120)
# The same with at most 3 subfiles open per IOC: reads reopen on demand.
h5sf_mpi_test(t_stress_many_fdcap t_stress 4 ${_rel}/stress_many_fdcap
              "channel=ioc,ioc=total:2,stripe_size=4096,stripe_count=4" many ENV "H5SF_IOC_MAX_FDS=3")
set_tests_properties(t_stress_many_fdcap PROPERTIES TIMEOUT 120)

# These tests read HDF5's error stack after failed opens.  HDF5 2.x searches
# HDF5_PLUGIN_PATH for a VOL connector when H5Fopen fails and thereby empties
# the stack below "H5VL_file_open(): open failed" (with any driver, MPI-IO
# included); the programs link h5sf (t_fapl) and run with an empty plugin
# directory, so they check h5sf's messages under every HDF5.
file(MAKE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/no-plugins)
get_property(_rel_tests DIRECTORY PROPERTY TESTS)
foreach(t IN LISTS _rel_tests)
  if(t MATCHES "^t_(fault|badinput|damaged|stress|subfiledir)_")
    set_property(TEST ${t} APPEND PROPERTY ENVIRONMENT "HDF5_PLUGIN_PATH=${CMAKE_CURRENT_BINARY_DIR}/no-plugins")
  endif()
endforeach()

# The IOC under many requests (t_iocmem.c): merging of interleaved requests
# from several ranks into runs, and the IOC memory cap.
add_executable(t_iocmem ${CMAKE_CURRENT_SOURCE_DIR}/t_iocmem.c)
target_link_libraries(t_iocmem PRIVATE h5sf hdf5::hdf5-shared)
foreach(np 1 2 3 4)
  # Wait for companions until the gaps are filled (bounded at 2 s).
  h5sf_mpi_test(t_iocmem_merge_np${np} t_iocmem ${np} ${_rel}/iocmem_merge_np${np} merge
                ENV "H5SF_IOC_MERGE_WAIT=2000000" "H5SF_SAMENODE_READS=0" "H5SF_SAMENODE_WRITES=0")
endforeach()
# IOC threads may run on every CPU of the process, not only the rank's bound
# core (and keep that core with H5SF_IOC_AFFINITY=inherit).
h5sf_mpi_test(t_iocmem_affinity_np2 t_iocmem 2 ${_rel}/iocmem_aff affinity)
h5sf_mpi_test(t_iocmem_affinity_inherit t_iocmem 1 ${_rel}/iocmem_aff_inh affinity ENV "H5SF_IOC_AFFINITY=inherit")
# The IOC context outlives its files, asleep; a settings change or H5close()
# ends it.
foreach(np 1 3)
  h5sf_mpi_test(t_iocmem_park_np${np} t_iocmem ${np} ${_rel}/iocmem_park_np${np} park
                ENV "H5SF_SAMENODE_READS=0" "H5SF_SAMENODE_WRITES=0")
endforeach()
# A client's payload copies are kept for its next writes.  Not in the ASan
# build: its allocator, not ours, decides which pages are fresh.
h5sf_mpi_test(t_iocmem_copies t_iocmem 2 ${_rel}/iocmem_copies copies ENV "H5SF_IOC_SHM=0" "H5SF_SAMENODE_READS=0"
              "H5SF_SAMENODE_WRITES=0")
set_tests_properties(t_iocmem_copies PROPERTIES LABELS "mpi")
# A request of less than one chunk still moves in double-buffered rounds.
h5sf_mpi_test(t_iocmem_rounds t_iocmem 2 ${_rel}/iocmem_rounds rounds ENV "H5SF_IOC_SHM=0" "H5SF_SAMENODE_READS=0"
              "H5SF_SAMENODE_WRITES=0")
# 8 ranks x 512 MiB through one IOC capped at 64 MiB (each rank rewrites a
# 64 MiB window: 512 MiB of disk in all): peak RSS of the IOC
# rank under cap + 128 MiB.  Not in the ASan build: its shadow memory would
# be measured, not ours.
h5sf_mpi_test(t_iocmem_rss t_iocmem 8 ${_rel}/iocmem_rss rss 512 ENV "H5SF_IOC_MEMORY=67108864"
              "H5SF_SAMENODE_WRITES=0")
set_tests_properties(t_iocmem_rss PROPERTIES TIMEOUT 900 LABELS "mpi")

# A request to a remote IOC that times out (an injected 2.5 s stall, a 1 s
# timeout) leaves the caller's buffer alone: no late read data lands in it,
# no bytes put in it after the timeout reach the subfile (t_timeout.c).
add_executable(t_timeout ${CMAKE_CURRENT_SOURCE_DIR}/t_timeout.c)
target_link_libraries(t_timeout PRIVATE h5sf_ioc MPI::MPI_C)
# Both ways a payload can go: the node's shared memory (default, the ranks
# share a node) and MPI messages (H5SF_IOC_SHM=0, as between nodes).
foreach(op read write)
  file(MAKE_DIRECTORY ${_rel}/timeout_msg)
  h5sf_mpi_test(t_timeout_${op} t_timeout 2 ${_rel} ${op})
  h5sf_mpi_test(t_timeout_${op}_msg t_timeout 2 ${_rel}/timeout_msg ${op} ENV "H5SF_IOC_SHM=0")
  set_tests_properties(t_timeout_${op} t_timeout_${op}_msg PROPERTIES TIMEOUT 60)
endforeach()

# H5SF_IOC_MEMORY holds for a request of 4 Mi one-byte pieces (16 MiB cap):
# the IOC rank's RSS growth stays under cap + 16 MiB, data checked
# (t_iocpieces.c).  The RSS part is not for the ASan build (shadow memory).
add_executable(t_iocpieces ${CMAKE_CURRENT_SOURCE_DIR}/t_iocpieces.c)
target_link_libraries(t_iocpieces PRIVATE h5sf_ioc MPI::MPI_C)
# Each in its own directory: ctest -j runs them side by side.
file(MAKE_DIRECTORY ${_rel}/iocpieces ${_rel}/iocpieces_data)
h5sf_mpi_test(t_iocpieces t_iocpieces 2 ${_rel}/iocpieces ENV "H5SF_IOC_MEMORY=16777216" "H5SF_IOC_MERGE_WAIT=0")
set_tests_properties(t_iocpieces PROPERTIES TIMEOUT 300 LABELS "mpi")
h5sf_mpi_test(t_iocpieces_data t_iocpieces 2 ${_rel}/iocpieces_data data ENV "H5SF_IOC_MEMORY=16777216" "H5SF_IOC_MERGE_WAIT=0")

# Same-node requests move their payload through shared memory, not MPI
# messages (t_shm.c): none over MPI by default, all of it with
# H5SF_IOC_SHM=0 (which shows the count sees payloads); data checked by
# pread of the subfile and by reading back.
add_executable(t_shm ${CMAKE_CURRENT_SOURCE_DIR}/t_shm.c)
target_link_libraries(t_shm PRIVATE h5sf_ioc MPI::MPI_C)
foreach(np 1 2 3 4)
  file(MAKE_DIRECTORY ${_rel}/shm_np${np} ${_rel}/shm_mpi_np${np})
  h5sf_mpi_test(t_shm_np${np} t_shm ${np} ${_rel}/shm_np${np} shm)
  h5sf_mpi_test(t_shm_mpi_np${np} t_shm ${np} ${_rel}/shm_mpi_np${np} mpi ENV "H5SF_IOC_SHM=0")
endforeach()

# An idle IOC whose clients are all on its node sleeps on its doorbell
# (ioc/shm.c) instead of polling, and every request rings it awake
# (t_bell.c): at rest, at most 20 wake-ups in an idle second (polling:
# ~1000, and never at rest), no
# request lost after pauses of 0-30 ms (a lost wake-up waits for the 20 s
# timeout: the bell's own wake-ups are stretched for the test), data
# checked by pread.
add_executable(t_bell ${CMAKE_CURRENT_SOURCE_DIR}/t_bell.c)
target_link_libraries(t_bell PRIVATE h5sf_ioc MPI::MPI_C)
# Without payload segments (H5SF_IOC_SHM=0) the bells stay: t_bell_mpi_*.
foreach(np 1 2 3 4)
  file(MAKE_DIRECTORY ${_rel}/bell_np${np})
  h5sf_mpi_test(t_bell_np${np} t_bell ${np} ${_rel}/bell_np${np} ENV "H5SF_TEST_BELL_WAIT_S=600")
endforeach()
foreach(np 2 3)
  file(MAKE_DIRECTORY ${_rel}/bell_mpi_np${np})
  h5sf_mpi_test(t_bell_mpi_np${np} t_bell ${np} ${_rel}/bell_mpi_np${np} ENV "H5SF_TEST_BELL_WAIT_S=600" "H5SF_IOC_SHM=0")
endforeach()
