# The LD_PRELOAD shim's collective behaviour (t_preload_coll.c), under the
# redirect (H5SF_REDIRECT_MPIO=1):
#   t_preload_atomicity_np*  rank 0 alone asks H5Fget_mpi_atomicity on an h5sf
#                            and on a plain MPI-IO file: local, no hang
#   t_preload_refusals_np*   what the shim refuses (atomic mode, a bad
#                            H5SF_REDIRECT_MPIO) is on the caller's error
#                            stack with its reason
#   t_preload_configdir_np*  a file whose config file is in H5SF_CONFIG_DIR is
#                            found as subfiled: read back by every rank
#                            through the redirect and by rank 0 alone
#   t_preload_neighbours_np1 a plain H5Fcreate over a subfiled file whose
#                            subfiles are in H5SF_SUBFILE_DIR removes exactly
#                            its config file and subfiles (there), and leaves
#                            names that only start like theirs
#   t_preload_decide_np*     ranks that see the file differently (rank 0 the
#                            config file, the others not) take rank 0's driver
# Only the ranks get LD_PRELOAD (Open MPI's -x, Hydra's -genv), never mpiexec.
# The built-in subfiling driver is not involved, so these run under MPICH too.
add_executable(t_preload_coll ${CMAKE_CURRENT_SOURCE_DIR}/t_preload_coll.c)
target_link_libraries(t_preload_coll PRIVATE MPI::MPI_C hdf5::hdf5-shared)

set(_pc_dir ${CMAKE_CURRENT_BINARY_DIR}/preload_coll)
if(H5SF_MPI_FLAVOUR STREQUAL "mpich")
  set(_pc_preload -genv LD_PRELOAD $<TARGET_FILE:h5sf_preload>)
else()
  set(_pc_preload -x LD_PRELOAD=$<TARGET_FILE:h5sf_preload>)
endif()
# The shim comes before the ASan runtime in the ranks' library list.
set(_pc_env "H5SF_REDIRECT_MPIO=1" "ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0")

# h5sf_preload_coll_test(<name> <np> <mode> [ENV var=value ...])
function(h5sf_preload_coll_test name np mode)
  cmake_parse_arguments(PARSE_ARGV 3 T "" "" "ENV")
  add_test(NAME ${name}
           COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np} ${H5SF_MPIEXEC_FLAGS} ${_pc_preload}
                   $<TARGET_FILE:t_preload_coll> ${mode} ${_pc_dir})
  set_tests_properties(${name} PROPERTIES ENVIRONMENT "${H5SF_MPI_TEST_ENV};${_pc_env};${T_ENV}"
                       TIMEOUT 240 LABELS "mpi;asan")
endfunction()

foreach(np 1 2 3)
  h5sf_preload_coll_test(t_preload_atomicity_np${np} ${np} atomicity)
endforeach()
foreach(np 1 2 3)
  h5sf_preload_coll_test(t_preload_refusals_np${np} ${np} refusals)
endforeach()
foreach(np 1 3)
  h5sf_preload_coll_test(t_preload_configdir_np${np} ${np} configdir
                         ENV "H5SF_CONFIG_DIR=${_pc_dir}/configdir_np${np}/cfg")
endforeach()
h5sf_preload_coll_test(t_preload_neighbours_np1 1 neighbours
                       ENV "H5SF_SUBFILE_DIR=${_pc_dir}/neighbours_np1/sub" "H5SF_STRIPE_COUNT=2")
foreach(np 2 3)
  h5sf_preload_coll_test(t_preload_decide_np${np} ${np} decide)
endforeach()
