# Tools tests, label "tools"; test/t_tools.sh does the work:
#   tools_fuse_*    write with h5sf at 1, 2, 4 ranks and several stripe
#                   settings (+ the same data through MPI-IO); h5sf-fuse;
#                   h5diff against the MPI-IO file; cmp against HDF5's own
#                   h5fuse output; --in-place --remove-subfiles; under mpiexec;
#                   a file written by the built-in driver
#   tools_split     plain files (v0, v3, user block, paged) -> h5sf-split ->
#                   read with h5sf (h5diff) and the built-in driver; --force
#                   (tk_remove_file: an old subfile it cannot remove is a warning)
#   tools_mv        copy/move/rename, other subfile dir; reopen with h5sf
#                   and the built-in driver; refusals leave the source alone;
#                   --force as for tools_split
#   tools_info      healthy layout, then one damage at a time: each must be
#                   the only problem reported, with exit status 1
#   tools_hdf5      h5dump, h5ls, h5diff, h5repack on h5sf files, no mpiexec,
#                   with --vfd-info config strings; h5dump without MPI
#                   (MPI_Init preloaded away: test/noinit.c)
#   tools_usage     --help, bad options
add_executable(t_tools_writer ${CMAKE_CURRENT_SOURCE_DIR}/t_tools_writer.c)
target_link_libraries(t_tools_writer PRIVATE MPI::MPI_C hdf5::hdf5-shared)
add_executable(t_tools_builtin ${CMAKE_CURRENT_SOURCE_DIR}/t_tools_builtin.c)
target_link_libraries(t_tools_builtin PRIVATE MPI::MPI_C hdf5::hdf5-shared)

# Preloaded where a serial program must not start MPI (tools_hdf5).
add_library(h5sf_test_noinit SHARED ${CMAKE_CURRENT_SOURCE_DIR}/noinit.c)
set_target_properties(h5sf_test_noinit PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lib/test)

set(H5SF_TOOLS_HDF5_BIN "${H5SF_HDF5_BIN_DIR}")
set(H5SF_TOOLS_WORK ${CMAKE_CURRENT_BINARY_DIR}/t_tools)

function(h5sf_tools_test name)
  add_test(NAME ${name} COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/t_tools.sh ${ARGN})
  set(env ${H5SF_MPI_TEST_ENV} "T_BIN=${CMAKE_BINARY_DIR}/bin" "T_HDF5_BIN=${H5SF_TOOLS_HDF5_BIN}"
          "T_MPIEXEC=${MPIEXEC_EXECUTABLE}" "T_WORK=${H5SF_TOOLS_WORK}/${name}"
          "T_NOINIT=$<TARGET_FILE:h5sf_test_noinit>")
  set_tests_properties(${name} PROPERTIES ENVIRONMENT "${env}" TIMEOUT 300 LABELS "tools;mpi")
endfunction()

h5sf_tools_test(tools_fuse_np1_4k3 fuse 1 "stripe_size=4096,stripe_count=3" --bad --damage)
h5sf_tools_test(tools_fuse_np2_64k2 fuse 2 "stripe_size=64KiB,stripe_count=2,channel=direct" --mpi)
h5sf_tools_test(tools_fuse_np4_1m5 fuse 4 "stripe_size=1MiB,stripe_count=5,ioc=total:2")
# A file written by HDF5's built-in subfiling driver (odd stripe size).
h5sf_tools_test(tools_fuse_builtin_np2 fuse 2 "builtin:10000:3")
h5sf_tools_test(tools_split split)
h5sf_tools_test(tools_mv mv)
h5sf_tools_test(tools_info info)
h5sf_tools_test(tools_hdf5 hdf5)
h5sf_tools_test(tools_usage usage)
