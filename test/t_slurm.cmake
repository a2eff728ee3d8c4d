# Slurm tests (label "slurm"): h5sf jobs through sbatch, salloc and srun on
# a single-machine cluster of 3 nodes made by scripts/slurm-cluster.sh,
# driven by test/slurm.sh, program test/t_slurm.c (docs/user-guide.md,
# "Running under Slurm").  Registered only where Slurm's commands exist; a
# fixture starts the cluster before the first and stops it after the last.
# Without root (or munge, or namespaces) the driver exits 77 and ctest
# reports them as skipped, never as passed.  RUN_SERIAL for the reason the
# multinode tests give (t_multinode.cmake): ranks of different "nodes" talk
# over TCP, and on a 2-core machine a neighbouring MPI job starves them.
# The build's own MPI launches inside allocations (Open MPI's mpirun, MPICH's
# Hydra mpiexec); srun uses --mpi=pmix for Open MPI, --mpi=pmi2 for MPICH.
#   slurm_demo_sbatch   the demo in a batch script, IOC channel, 2 nodes x 2
#   slurm_demo_srun     the demo launched by srun alone, 2 nodes x 2
#   slurm_place_sbatch  3 nodes x 2, block, then the launcher's round robin:
#                       per_node, per_node:2, ranks:
#   slurm_place_srun    3 nodes x 2, --distribution=cyclic: per_node,
#                       per_node:2, every:2, ranks:, direct (total:4); IOC
#                       channel from H5SF_CHANNEL and from the config string
#   slurm_odd_salloc    5 ranks on 2 nodes (3 + 2) from salloc: per_node:2,
#                       direct every:2
#   slurm_odd_srun      the same, cyclic (0,2,4 and 1,3)
# Each placement step checks where the ranks landed against the layout the
# distribution gives, h5sf's IOC ranks at every open against the ones that
# layout gives, and node-local subfiles against the node of their IOC.
find_program(H5SF_SRUN srun)
find_program(H5SF_SBATCH sbatch)
find_program(H5SF_SALLOC salloc)
if(NOT H5SF_SRUN OR NOT H5SF_SBATCH OR NOT H5SF_SALLOC)
  message(STATUS "Slurm's srun, sbatch or salloc not found: no slurm tests")
  return()
endif()

if(DEFINED H5SF_MPI_FLAVOUR)
  set(_slurm_mpi ${H5SF_MPI_FLAVOUR})
elseif(MPI_C_LIBRARY_VERSION_STRING MATCHES "Open MPI")
  set(_slurm_mpi openmpi)
else()
  set(_slurm_mpi mpich)
endif()

add_executable(t_slurm ${CMAKE_CURRENT_SOURCE_DIR}/t_slurm.c)
target_link_libraries(t_slurm PRIVATE h5sf hdf5::hdf5-shared)

set(_slurm_env ${H5SF_MPI_TEST_ENV}
    "H5SF_SLURM_BIN=${CMAKE_BINARY_DIR}/bin"
    "H5SF_SLURM_MPI=${_slurm_mpi}"
    "H5SF_SLURM_WORK=${CMAKE_CURRENT_BINARY_DIR}/slurm"
    "MPIEXEC=${MPIEXEC_EXECUTABLE}")

add_test(NAME slurm_cluster_start COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/slurm.sh setup)
add_test(NAME slurm_cluster_stop COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/slurm.sh cleanup)
set_tests_properties(slurm_cluster_start PROPERTIES FIXTURES_SETUP slurm_cluster)
set_tests_properties(slurm_cluster_stop PROPERTIES FIXTURES_CLEANUP slurm_cluster)
set_tests_properties(slurm_cluster_start slurm_cluster_stop PROPERTIES
                     ENVIRONMENT "${_slurm_env}" LABELS "slurm" SKIP_RETURN_CODE 77 RUN_SERIAL TRUE TIMEOUT 120)

# A step is killed after 120 s and a batch job after 6 minutes, so a
# stuck job fails its test well before TIMEOUT.
foreach(c demo-sbatch demo-srun place-sbatch place-srun odd-salloc odd-srun)
  string(REPLACE "-" "_" n ${c})
  add_test(NAME slurm_${n} COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/slurm.sh ${c})
  set_tests_properties(slurm_${n} PROPERTIES
                       ENVIRONMENT "${_slurm_env}"
                       LABELS "slurm"
                       FIXTURES_REQUIRED slurm_cluster
                       SKIP_RETURN_CODE 77
                       RUN_SERIAL TRUE
                       TIMEOUT 480)
endforeach()
