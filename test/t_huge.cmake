# t_huge: a regular hyperslab of 2^K one-byte pieces (stride 2), written and
# read through h5sf's selection callback in bounded memory (t_huge.c).
# Every channel: direct; IOC with the same-node shortcuts off; IOC with them
# on (reads and writes, strided ones included, go straight to the subfiles:
# samenode.c), at 1 and 2 ranks.  The peak-RSS part is not for the
# sanitizer builds (shadow memory); their variant runs 2^20 pieces in rounds
# of 1000 (H5SF_TEST_MAX_PIECES) and checks the data only.
add_executable(t_huge ${CMAKE_CURRENT_SOURCE_DIR}/t_huge.c)
target_link_libraries(t_huge PRIVATE h5sf hdf5::hdf5-shared)
# One directory per test: the file names say the channel but not the
# shortcuts, and ctest -j runs the variants side by side.
set(_hd ${CMAKE_CURRENT_BINARY_DIR}/huge)
set(_huge_direct "H5SF_CHANNEL=direct")
set(_huge_ioc "H5SF_CHANNEL=ioc" "H5SF_SAMENODE_READS=0" "H5SF_SAMENODE_WRITES=0")
set(_huge_samenode "H5SF_CHANNEL=ioc" "H5SF_SAMENODE_READS=1" "H5SF_SAMENODE_WRITES=1")
# 2^23 pieces: a few minutes on 2 cores (one pwrite/preadv per 1-byte piece);
# 2^27 (1200 s) only with -DH5SF_HUGE_TESTS=ON.
option(H5SF_HUGE_TESTS "also run t_huge with 2^27 pieces (slow: ~10 min per channel)" OFF)
foreach(ch direct ioc samenode)
  foreach(np 1 2)
    foreach(v big big27 rounds)
      file(MAKE_DIRECTORY ${_hd}/${v}_${ch}_np${np})
    endforeach()
    h5sf_mpi_test(t_huge_${ch}_np${np} t_huge ${np} ${_hd}/big_${ch}_np${np} 23 ENV ${_huge_${ch}})
    # "once": run in the HDF5 1.14.5 pass only (scripts/test-versions.sh): the
    # bounds are h5sf's planner and wire; t_huge_rounds_* below keeps the
    # same path through HDF5's selection callbacks on every version.
    set_tests_properties(t_huge_${ch}_np${np} PROPERTIES TIMEOUT 900 LABELS "mpi;once")
    if(H5SF_HUGE_TESTS)
      h5sf_mpi_test(t_huge27_${ch}_np${np} t_huge ${np} ${_hd}/big27_${ch}_np${np} 27 ENV ${_huge_${ch}})
      set_tests_properties(t_huge27_${ch}_np${np} PROPERTIES TIMEOUT 3600 LABELS "mpi;huge")
    endif()
    h5sf_mpi_test(t_huge_rounds_${ch}_np${np} t_huge ${np} ${_hd}/rounds_${ch}_np${np} 20 data ENV ${_huge_${ch}}
                  "H5SF_TEST_MAX_PIECES=1000")
  endforeach()
endforeach()
# Every transfer kind t_roundtrip makes (independent and collective, vectors,
# selections, MPI datatypes; both channels) in rounds of 7 pieces, checked
# against its pattern and MPI-IO reference.
foreach(np 2 3)
  h5sf_mpi_test(t_roundtrip_rounds_np${np} t_roundtrip ${np} ENV "H5SF_TEST_MAX_PIECES=7")
endforeach()
