# Small MPI tests run on both channels (H5SF_CHANNEL=direct, ioc), each in a
# directory of its own under work/ (harness: test/h5sf_test.h):
#   t_comm       collective steps on the caller's communicator: fapl comm/info
#                freed after set, H5Fdelete on MPI_COMM_SELF from one rank as
#                IOR does, split groups each deleting their own file; 1-4 ranks
#   t_eof        a subfile longer than the file's end is harmless (opens work,
#                a read-write close restores exact sizes); one cut short fails
#                the open on every rank; 1 and 3 ranks
#   t_userblock  user blocks of 512 B and 64 KiB round-trip as through MPI-IO
#                (raw bytes checked by independent stripe arithmetic); 1, 3
#   t_cobegin    the subfile transfers of one call run together (direct
#                channel; IOC channel with its same-node shortcuts): a test
#                hook holds each until all have started, stats show all 4
#                in flight, bytes checked in the subfiles; 1-4 ranks; with
#                H5SF_POOL_THREADS=1 and 0, at most 2 and 1
#   t_agree      ranks set different H5SF_FSYNC, _STATS, _CHANNEL,
#                _STRIPE_SIZE/_COUNT, _IOC, _THREADS before create: rank 0's
#                win, no hang (alarm), every byte reads back; 1-4 ranks
function(h5sf_channel_tests exe)
  foreach(ch direct ioc)
    foreach(np IN LISTS ARGN)
      set(dir ${CMAKE_CURRENT_BINARY_DIR}/work/${exe}_${ch}_np${np})
      file(MAKE_DIRECTORY ${dir})
      h5sf_mpi_test(${exe}_${ch}_np${np} ${exe} ${np} ${dir} ENV "H5SF_CHANNEL=${ch}")
      set_tests_properties(${exe}_${ch}_np${np} PROPERTIES TIMEOUT 120)
    endforeach()
  endforeach()
endfunction()

add_executable(t_comm ${CMAKE_CURRENT_SOURCE_DIR}/t_comm.c)
target_link_libraries(t_comm PRIVATE h5sf hdf5::hdf5-shared)
h5sf_channel_tests(t_comm 1 2 3 4)
foreach(t t_eof t_userblock)
  add_executable(${t} ${CMAKE_CURRENT_SOURCE_DIR}/${t}.c)
  target_link_libraries(${t} PRIVATE MPI::MPI_C hdf5::hdf5-shared)
endforeach()
h5sf_channel_tests(t_eof 1 3)
h5sf_channel_tests(t_userblock 1 3)
add_executable(t_agree ${CMAKE_CURRENT_SOURCE_DIR}/t_agree.c)
target_link_libraries(t_agree PRIVATE h5sf hdf5::hdf5-shared)
h5sf_channel_tests(t_agree 1 2 3 4)
add_executable(t_cobegin ${CMAKE_CURRENT_SOURCE_DIR}/t_cobegin.c)
target_link_libraries(t_cobegin PRIVATE h5sf hdf5::hdf5-shared)
foreach(ch direct ioc)
  foreach(np 1 2 3 4)
    set(dir ${CMAKE_CURRENT_BINARY_DIR}/work/t_cobegin_${ch}_np${np})
    file(MAKE_DIRECTORY ${dir})
    h5sf_mpi_test(t_cobegin_${ch}_np${np} t_cobegin ${np} ${dir} ENV "H5SF_CHANNEL=${ch}"
                  "H5SF_FAULT=op=overlap,ms=5000" "H5SF_SAMENODE_READS=1" "H5SF_SAMENODE_WRITES=1")
    set_tests_properties(t_cobegin_${ch}_np${np} PROPERTIES TIMEOUT 120)
  endforeach()
endforeach()
# H5SF_POOL_THREADS bounds the transfers in flight: 1 thread beside the
# caller (2 at once), 0 (one after another).  The overlap hook's wait is
# shorter here: with a limit, not every job of a call can start.
foreach(v "direct;3;1" "ioc;2;0")
  list(GET v 0 ch)
  list(GET v 1 np)
  list(GET v 2 t)
  set(dir ${CMAKE_CURRENT_BINARY_DIR}/work/t_cobegin_${ch}_np${np}_pool${t})
  file(MAKE_DIRECTORY ${dir})
  h5sf_mpi_test(t_cobegin_${ch}_np${np}_pool${t} t_cobegin ${np} ${dir} ENV "H5SF_CHANNEL=${ch}"
                "H5SF_FAULT=op=overlap,ms=1000" "H5SF_SAMENODE_READS=1" "H5SF_SAMENODE_WRITES=1"
                "H5SF_POOL_THREADS=${t}")
  set_tests_properties(t_cobegin_${ch}_np${np}_pool${t} PROPERTIES TIMEOUT 120)
endforeach()
