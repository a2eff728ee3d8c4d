# Multi-host tests (label "multinode"): hosts made of network namespaces by
# scripts/netns-cluster.sh, Open MPI over TCP between them; driven by
# test/multinode.sh.  They need root and "ip netns": otherwise the driver
# exits 77 and ctest reports them as skipped (SKIP_RETURN_CODE), never as
# passed.  One cluster at a time: RUN_SERIAL within a ctest run, a lock
# file in the driver between concurrent ctest runs.  Serial, not only one
# cluster at a time: Open MPI's TCP transport polls in the kernel while it
# waits, and on a 2-core machine a neighbouring MPI test and a multinode job
# starved each other (t_stress_many 1.2 s alone, 15-68 s beside multinode_order_2x2, and
# both past their timeouts in a CI run of 2026-11-26).  TIMEOUT leaves room
# for multinode.sh's one rerun of a job whose TCP wire-up hung (120 s).
#   multinode_HxP       H hosts x P ranks each: topology, one IOC per host
#                       (per_node) and two (per_node:2), node-local subfiles
#                       on the host of their IOC, round trip vs MPI-IO,
#                       second job reads back, built-in driver reads it
#                       and writes a file h5sf reads, gather + h5sf-fuse +
#                       h5diff against the MPI-IO reference
#   multinode_order_2x2 2 hosts x 2 ranks, --map-by node: the IOC list in the
#                       built-in's order (node by node, not by rank) for
#                       per_node:2, every:2, total:3; h5sf writes -> built-in
#                       reads and built-in writes -> h5sf reads, node-local
# Not registered, too slow for this budget on a small machine (minutes):
#   test/multinode.sh core   t_roundtrip and t_interop across 2 hosts x 2
#   ranks (H5SF_MN_BIN=<build>/bin; see docs/multinode.md).
#   multinode_unreachable  a host whose namespace is gone / link is down:
#                       a clear error, no hang
#   multinode_crash     a host dies mid-job: the job ends, non-zero

# The per-message / per-byte benchmark behind docs/multinode.md (not a test).
add_executable(bench_msgcost ${CMAKE_CURRENT_SOURCE_DIR}/bench_msgcost.c)
target_link_libraries(bench_msgcost PRIVATE h5sf hdf5::hdf5-shared)
# Placement is checked against HDF5's own subfiling driver.
if(NOT H5SF_HAVE_SUBFILING_VFD)
  message(STATUS "HDF5 without its subfiling driver: no multinode tests")
  return()
endif()
add_executable(t_multinode ${CMAKE_CURRENT_SOURCE_DIR}/t_multinode.c ${CMAKE_CURRENT_SOURCE_DIR}/t_multinode_data.c)
target_link_libraries(t_multinode PRIVATE h5sf hdf5::hdf5-shared)

function(h5sf_multinode_test name)
  add_test(NAME multinode_${name}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/multinode.sh ${ARGN})
  set_tests_properties(multinode_${name} PROPERTIES
                       ENVIRONMENT "${H5SF_MPI_TEST_ENV};H5SF_MN_BIN=${CMAKE_BINARY_DIR}/bin;H5SF_MN_WORK=${CMAKE_CURRENT_BINARY_DIR}/multinode;MPIEXEC=${MPIEXEC_EXECUTABLE}"
                       LABELS "multinode"
                       SKIP_RETURN_CODE 77
                       RUN_SERIAL TRUE
                       TIMEOUT 360)
endfunction()

h5sf_multinode_test(2x2 place 2 2)
h5sf_multinode_test(3x2 place 3 2 --map-by node)
h5sf_multinode_test(4x2 place 4 2)
h5sf_multinode_test(order_2x2 order 2 2 --map-by node)
h5sf_multinode_test(unreachable unreachable)
h5sf_multinode_test(crash crash)

# Under MPICH 4.0.2 the jobs write, read back and place their IOCs right,
# then MPI_Finalize does not return: across these hosts, UCX's TCP transport
# hangs there without h5sf too (test/mpi_repro/tcp_finalize.c).  The tests
# are disabled, multinode_mpich says so (skipped), and
# mpich_tcp_finalize_hangs keeps the evidence: it passes while a plain MPI
# job still hangs in MPI_Finalize and fails once none does.
if(H5SF_MPI_FLAVOUR STREQUAL "mpich")
  set(_off "")
  foreach(t 2x2 3x2 4x2 order_2x2 unreachable crash)
    set_tests_properties(multinode_${t} PROPERTIES DISABLED TRUE)
    list(APPEND _off multinode_${t})
  endforeach()
  string(REPLACE ";" " " _off "${_off}")
  add_test(NAME multinode_mpich
           COMMAND sh -c "echo 'skipped: under MPICH 4.0.2 MPI_Finalize over UCX TCP hangs across these hosts without h5sf (mpich_tcp_finalize_hangs); disabled: ${_off}'; exit 77")
  set_tests_properties(multinode_mpich PROPERTIES SKIP_RETURN_CODE 77 LABELS "multinode")
  add_executable(tcp_finalize ${CMAKE_CURRENT_SOURCE_DIR}/mpi_repro/tcp_finalize.c)
  target_link_libraries(tcp_finalize PRIVATE MPI::MPI_C)
  add_test(NAME mpich_tcp_finalize_hangs
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi_repro/mpich_checks.sh tcp-finalize
                   ${CMAKE_SOURCE_DIR}/scripts/netns-cluster.sh $<TARGET_FILE:tcp_finalize>)
  set_tests_properties(mpich_tcp_finalize_hangs PROPERTIES ENVIRONMENT "${H5SF_MPI_TEST_ENV};MPIEXEC=${MPIEXEC_EXECUTABLE}"
                       LABELS "multinode" SKIP_RETURN_CODE 77 RUN_SERIAL TRUE TIMEOUT 300)
endif()
