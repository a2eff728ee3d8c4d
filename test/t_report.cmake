# t_report: H5FD_h5sf_get_last_transfer checked field by field against the
# test's own stripe arithmetic, and HDF5's H5Pget_mpio_actual_io_mode /
# no-collective causes against the table in docs/user-guide.md.  1-3 ranks,
# direct channel, IOC channel, IOC channel with sparse writes through the IOC
# (H5SF_SAMENODE_WRITES=dense), IOC channel with every request through an IOC.
add_executable(t_report ${CMAKE_CURRENT_SOURCE_DIR}/t_report.c)
target_link_libraries(t_report PRIVATE h5sf hdf5::hdf5-shared)
foreach(np 1 2 3)
  foreach(mode direct ioc iocdense iocpath)
    set(dir ${CMAKE_CURRENT_BINARY_DIR}/work/t_report_${mode}_np${np})
    file(MAKE_DIRECTORY ${dir})
    if(mode STREQUAL "direct")
      set(env "H5SF_CHANNEL=direct")
    elseif(mode STREQUAL "ioc")
      set(env "H5SF_CHANNEL=ioc")
    elseif(mode STREQUAL "iocdense")
      set(env "H5SF_CHANNEL=ioc" "H5SF_SAMENODE_WRITES=dense")
    else()
      set(env "H5SF_CHANNEL=ioc" "H5SF_SAMENODE_READS=0" "H5SF_SAMENODE_WRITES=0")
    endif()
    h5sf_mpi_test(t_report_${mode}_np${np} t_report ${np} ${dir} ENV ${env})
    set_tests_properties(t_report_${mode}_np${np} PROPERTIES TIMEOUT 120)
  endforeach()
endforeach()
# H5SF_STATS=transfers: both ranks print their per-transfer lines, and the
# close summary's channel totals add up to its subfile requests and bytes.
# Each rank's stderr goes to its own file (T_STDERR_DIR): mpiexec's merged
# stream may cut a rank's line in two.
set(dir ${CMAKE_CURRENT_BINARY_DIR}/work/t_report_stats_np2)
file(MAKE_DIRECTORY ${dir})
add_test(NAME t_report_stats_np2
         COMMAND sh -c "rm -f $2/stderr.*; $0 -n 2 $H5SF_MPIEXEC_FLAGS $1 $2 >$2/log 2>&1 || { cat $2/log $2/stderr.*; exit 1; }; \
for r in 0 1; do grep -q \"^h5sf transfer: rank $r .* call 1: write collective, 10240 bytes\" $2/stderr.$r || { echo \"no transfer lines of rank $r\"; cat $2/stderr.$r; exit 1; }; done; \
awk '/^h5sf stats/ {s=1} s && /subfile requests/ {req=$2} s && /^  bytes/ {b=$2+$4} \
s && /^  channels/ {r=$9+$16; y=$11+$18} s && /same-node shortcut/ {r+=$3+$7; y+=$5+$9; n++; \
if (r != req || y != b) {print \"channel totals \" r \" / \" y \" != \" req \" / \" b; bad=1} s=0} \
END {if (!n) print \"no channel totals\"; exit (bad || !n)}' $2/stderr.0 || { cat $2/stderr.0; exit 1; }"
                 ${MPIEXEC_EXECUTABLE} $<TARGET_FILE:t_report> ${dir})
set_tests_properties(t_report_stats_np2 PROPERTIES
                     ENVIRONMENT "${H5SF_MPI_TEST_ENV};H5SF_CHANNEL=ioc;H5SF_STATS=transfers;T_STDERR_DIR=${dir}"
                     TIMEOUT 120 LABELS "mpi")
