# t_finalize: MPI_Finalize with h5sf files still open (t_finalize.c).  Each
# rank's steps run under a watchdog, MPI_Finalize's with 30-60 s, and
# ctest's TIMEOUT bounds the rest: a hang fails in bounded time.
#   hang       a group that never ends on the IOC rank while it finalizes
#              (the finalize gate held per MPI call, not per group)
#   nomem      the hook's allocations fail on one rank; the file it closed
#              reads back (fixture check)
#   bracket_*  a COBEGIN bracket left open across MPI_Finalize (H5FDopen):
#              COEND or close afterwards fails naming the file; with one
#              transfer failing (H5SF_FAULT), its cause; the bytes landed
#   closefail  the hook's close of a file fails (fsync): one line on stderr
#   directfail an H5FDopen'ed IOC-channel file the hook cannot move to the
#              direct channel (its subfiles unlinked): one line on stderr,
#              and GET_STATS and close afterwards touch no freed context
add_executable(t_finalize ${CMAKE_CURRENT_SOURCE_DIR}/t_finalize.c)
target_link_libraries(t_finalize PRIVATE h5sf hdf5::hdf5-shared)

set(_fin ${CMAKE_CURRENT_BINARY_DIR}/work/finalize)
set(_fin_iocpath "H5SF_SAMENODE_READS=0" "H5SF_SAMENODE_WRITES=0")
function(t_finalize_test name np mode)
  h5sf_mpi_test(${name} t_finalize ${np} ${mode} ${_fin}/${name} ${ARGN})
  set_tests_properties(${name} PROPERTIES TIMEOUT 120)
endfunction()

t_finalize_test(t_finalize_hang_np2 2 hang ENV ${_fin_iocpath} "H5SF_FAULT=op=hang,rank=0,after=1")
foreach(ch ioc direct)
  foreach(np 2 3)
    math(EXPR last "${np} - 1")
    t_finalize_test(t_finalize_nomem_${ch}_np${np} ${np} nomem
                    ENV "H5SF_CHANNEL=${ch}" "H5SF_FAULT=op=nomem-finalize,rank=${last}")
    h5sf_mpi_test(t_finalize_nomem_${ch}_np${np}_check t_finalize 2 check ${_fin}/t_finalize_nomem_${ch}_np${np})
    set_tests_properties(t_finalize_nomem_${ch}_np${np} PROPERTIES FIXTURES_SETUP fin_nomem_${ch}_np${np})
    set_tests_properties(t_finalize_nomem_${ch}_np${np}_check PROPERTIES FIXTURES_REQUIRED fin_nomem_${ch}_np${np}
                         TIMEOUT 120)
  endforeach()
endforeach()
# The bracket: on the IOC channel an IOC on every rank (subfile s served by
# rank s), each rank writing to the other's; on the direct channel the
# pool.  T_FAIL_RANK: the rank whose write H5SF_FAULT fails (IOC channel:
# IOC 1's pwrite fails rank 0's write; direct: rank 1's own).
foreach(end coend close)
  t_finalize_test(t_finalize_bracket_${end}_ioc_np2 2 bracket-${end} ENV "H5SF_CHANNEL=ioc" "H5SF_IOC=every:1" ${_fin_iocpath})
  t_finalize_test(t_finalize_bracket_${end}_direct_np2 2 bracket-${end} ENV "H5SF_CHANNEL=direct")
endforeach()
t_finalize_test(t_finalize_bracket_coend_ioc_fail_np2 2 bracket-coend
                ENV "H5SF_CHANNEL=ioc" "H5SF_IOC=every:1" ${_fin_iocpath} "H5SF_FAULT=op=pwrite,errno=EIO,rank=1" "T_FAIL_RANK=0")
t_finalize_test(t_finalize_bracket_close_direct_fail_np2 2 bracket-close
                ENV "H5SF_CHANNEL=direct" "H5SF_FAULT=op=pwrite,errno=EIO,rank=1" "T_FAIL_RANK=1")
t_finalize_test(t_finalize_directfail_np2 2 directfail ENV "H5SF_CHANNEL=ioc" "H5SF_IOC=every:1" ${_fin_iocpath})
foreach(ch ioc direct)
  t_finalize_test(t_finalize_closefail_${ch}_np2 2 closefail ENV "H5SF_CHANNEL=${ch}" "H5SF_FAULT=op=fsync,errno=EIO")
endforeach()
# Threads at MPI_Finalize: the hang scenario and the brackets the hook
# finishes (IOC threads and pool workers beside it) under ThreadSanitizer too.
foreach(t t_finalize_hang_np2 t_finalize_bracket_coend_ioc_np2 t_finalize_bracket_close_ioc_np2
          t_finalize_bracket_coend_direct_np2)
  set_property(TEST ${t} APPEND PROPERTY LABELS tsan)
  set_property(TEST ${t} APPEND PROPERTY ENVIRONMENT
    "TSAN_OPTIONS=halt_on_error=1 second_deadlock_stack=1 suppressions=${CMAKE_CURRENT_SOURCE_DIR}/tsan_mpi.supp")
endforeach()
h5sf_tsan(t_finalize)
