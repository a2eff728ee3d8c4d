# t_sweep: reliability by sweep, SQLite's way (test/t_sweep.c): every
# allocation, system call and local MPI call a scenario makes is failed in
# turn, on the first rank and then on the last, and every outcome checked
# (no hang, collective steps alike on every rank, the cause named, no leak
# of h5sf's blocks or threads, a fresh file works afterwards).
#   t_sweep_<scenario>_<channel>_np<2|3>  label sweep: every site, in one
#       job (create, read, plain, delete, delete_plain, cobracket; direct,
#       and ioc with the same-node shortcuts off)
#   t_sweep_finalize_<channel>_np<2|3>  label sweep: a file left open at
#       MPI_Finalize, one launch per site (t_sweep_finalize.sh)
#   t_sweep_fast_*  labels mpi and asan: every 7th site of create and
#       cobracket at 2 ranks, so the ASan build runs the error paths too,
#       with LeakSanitizer on (t_sweep_lsan.sh)
# The IOC's shared-memory segments are kept small (1 MiB): populating the
# default 16 MiB per rank took most of each iteration.
add_executable(t_sweep ${CMAKE_CURRENT_SOURCE_DIR}/t_sweep.c)
target_link_libraries(t_sweep PRIVATE h5sf hdf5::hdf5-shared)

file(MAKE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/no-plugins-sweep)
set(_sweep_env "HDF5_PLUGIN_PATH=${CMAKE_CURRENT_BINARY_DIR}/no-plugins-sweep" "H5SF_IOC_SHM=1048576")
set(_sweep_ioc_env "H5SF_SAMENODE_READS=0" "H5SF_SAMENODE_WRITES=0")
set(_sweep_work ${CMAKE_CURRENT_BINARY_DIR}/work/sweep)

# t_sweep_sweeps(<prefix> <np> <stride> <labels> <finalize 0|1>): every
# scenario on both channels at np ranks, trying every stride-th site, and
# (finalize 1) the finalize scenario, labelled labels.
function(t_sweep_sweeps prefix np stride labels finalize)
  foreach(ch direct ioc)
    set(env ${_sweep_env})
    if(ch STREQUAL "ioc")
      list(APPEND env ${_sweep_ioc_env})
    endif()
    foreach(scn create read plain delete delete_plain cobracket)
      set(name ${prefix}${scn}_${ch}_np${np})
      h5sf_mpi_test(${name} t_sweep ${np} ${_sweep_work}/${name} ${scn} ${ch} alloc,syscall,mpi first,last ${stride}
                    ENV ${env})
      set_tests_properties(${name} PROPERTIES LABELS "${labels}" TIMEOUT 900)
    endforeach()
    if(finalize)
      # A file left open at MPI_Finalize: one launch per site.
      set(name ${prefix}finalize_${ch}_np${np})
      add_test(NAME ${name}
               COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/t_sweep_finalize.sh ${MPIEXEC_EXECUTABLE} "${_h5sf_flags}"
                       $<TARGET_FILE:t_sweep> ${_sweep_work}/${name} ${np} ${ch} alloc,syscall,mpi)
      set_tests_properties(${name} PROPERTIES ENVIRONMENT "${H5SF_MPI_TEST_ENV};${env}" LABELS "${labels}"
                           TIMEOUT 900)
    endif()
  endforeach()
endfunction()

# The whole sweep under label sweep, under both MPIs (CI runs it).  Open MPI
# 2026-11-28, 2 cores, -j2: 142 to 293 s.  MPICH with the tests' yield shim
# (test/mpich_yield.c): 116 s; without it every site took 2554 s, and CI ran
# every 5th site at 2 ranks only.
t_sweep_sweeps(t_sweep_ 2 1 "mpi;sweep" 1)
t_sweep_sweeps(t_sweep_ 3 1 "mpi;sweep" 1)

# The fast subset, also under ASan with LeakSanitizer on: a leaked block
# whose allocation stack passes through h5sf or the test fails it
# (t_sweep_lsan.sh; the MPI libraries' own leaks at exit do not count).
foreach(ch direct ioc)
  set(env ${_sweep_env})
  if(ch STREQUAL "ioc")
    list(APPEND env ${_sweep_ioc_env})
  endif()
  foreach(scn create cobracket)
    set(name t_sweep_fast_${scn}_${ch}_np2)
    add_test(NAME ${name}
             COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/t_sweep_lsan.sh ${_sweep_work}/${name}.lsan
                     ${CMAKE_CURRENT_SOURCE_DIR}/lsan.supp ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2
                     ${H5SF_MPIEXEC_FLAGS} ${MPIEXEC_PREFLAGS} $<TARGET_FILE:t_sweep> ${MPIEXEC_POSTFLAGS}
                     ${_sweep_work}/${name} ${scn} ${ch} alloc,syscall,mpi first,last 7)
    set_tests_properties(${name} PROPERTIES ENVIRONMENT "${H5SF_MPI_TEST_ENV};${env}" LABELS "mpi;asan"
                         TIMEOUT 300)
  endforeach()
endforeach()
