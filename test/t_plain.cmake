# t_plain: plain HDF5 files (MPI-IO's, sec2's) read and written through
# h5sf; t_plain_h5dump: h5dump through h5sf.
# h5sf by name (registered by the program), or as a plugin through
# HDF5_DRIVER=h5sf.
add_executable(t_plain ${CMAKE_CURRENT_SOURCE_DIR}/t_plain.c)
target_link_libraries(t_plain PRIVATE h5sf hdf5::hdf5-shared)
foreach(np 1 3)
  foreach(mode auto ioc)
    h5sf_mpi_test(t_plain_${mode}_np${np} t_plain ${np} ${CMAKE_CURRENT_BINARY_DIR}/work/t_plain_${mode}_np${np} ${mode})
  endforeach()
  h5sf_mpi_test(t_plain_env_np${np} t_plain ${np} ${CMAKE_CURRENT_BINARY_DIR}/work/t_plain_env_np${np} env
                ENV "HDF5_DRIVER=h5sf")
endforeach()
# HDF5's h5dump through h5sf (--vfd-name=h5sf) prints what h5dump prints
# on its own for a plain file t_plain made with sec2 and then wrote to.
add_test(NAME t_plain_h5dump
         COMMAND sh -c "set -e; d=$2; $0 -n 1 $H5SF_MPIEXEC_FLAGS $1 $d auto >/dev/null; $3/h5dump $d/sec2.h5 >$d/sec2.txt; $3/h5dump --vfd-name=h5sf $d/sec2.h5 >$d/h5sf.txt; cmp $d/sec2.txt $d/h5sf.txt; echo h5dump through h5sf: $(wc -l <$d/h5sf.txt) lines, the same"
                 ${MPIEXEC_EXECUTABLE} $<TARGET_FILE:t_plain> ${CMAKE_CURRENT_BINARY_DIR}/work/t_plain_h5dump
                 ${H5SF_HDF5_BIN_DIR})
set_tests_properties(t_plain_h5dump PROPERTIES ENVIRONMENT "${H5SF_MPI_TEST_ENV}" TIMEOUT 120 LABELS "mpi")
