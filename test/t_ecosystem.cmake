# Ecosystem tests, scripts in test/ecosystem/:
#   eco_install            cmake --install into <build>/eco/prefix (fixture)
#   eco_find_package       outside CMake project: find_package(h5sf CONFIG), h5sf::h5sf
#   eco_pkgconfig          outside compile with pkg-config --cflags --libs h5sf
#   eco_install_both       this build and the other MPI family's (H5SF_CROSSMPI_BUILD_DIR,
#                          t_crossmpi.cmake) into one prefix: both plugins, packages and
#                          .pc files, a consumer of each built and run with its MPI
#   eco_find_hdf5_*        h5sf built against HDF5 found by hdf5.pc or h5pcc alone (no
#                          CMake package files, as an autotools install offers it)
#   eco_preload            LD_PRELOAD shim on a program hard-coding H5Pset_fapl_mpio
#   eco_preload_installed  the installed shim, finding the installed plugin by itself
#   eco_example_*          docs/examples built and run, their files checked on disk
#   eco_docs_options       docs/configuration.md table == h5sf-options --markdown, and
#                          no getenv of an H5SF_* name outside common/options.c
#                          (eco_docs_options_fail_getenv: such a call is found)
#   eco_docs_paths         every file README.md and docs/*.md name in `backquotes` exists
#                          (eco_docs_paths_fail: a document naming missing files fails)
#   eco_test_index         every .c of common/, ioc/, vfd/ is covered by a fragment of the
#                          index of tests, every covered path exists (_fail: one left off)
#   eco_vfd_layers         calls between vfd/ files go one way (nm over libh5sf's objects),
#                          every vfd/*.c is in vfd/internal.h's file map
#   eco_ioc_layers         the same for ioc/, which uses no HDF5 symbol and never calls vfd/
#   eco_common_layers      the same for common/, which uses no MPI or HDF5 symbol and calls
#                          neither ioc/ nor vfd/ (each with must-fail variants, *_fail*)
#   eco_alloc              no object of vfd/, ioc/, common/ but common/alloc.c calls libc's
#                          allocator (eco_alloc_fail: alloc.c's own calls are found)
#   eco_log                H5SF_LOG=json / debug trace of the layout decision
set(H5SF_ECO_DIR ${CMAKE_BINARY_DIR}/eco)
set(H5SF_ECO_PREFIX ${H5SF_ECO_DIR}/prefix)
set(H5SF_ECO_SCRIPTS ${CMAKE_CURRENT_SOURCE_DIR}/ecosystem)
set(H5SF_EXAMPLES_DIR ${CMAKE_SOURCE_DIR}/docs/examples)

# ---- the examples and the hard-coded MPI-IO program ---------------------
add_executable(ex_write_read_fapl ${H5SF_EXAMPLES_DIR}/write_read_fapl.c)
target_link_libraries(ex_write_read_fapl PRIVATE h5sf hdf5::hdf5-shared)
# The others must not link h5sf: the driver comes in as a plugin.
foreach(ex write_read_by_name write_read_env nodelocal)
  add_executable(ex_${ex} ${H5SF_EXAMPLES_DIR}/${ex}.c)
  target_link_libraries(ex_${ex} PRIVATE MPI::MPI_C hdf5::hdf5-shared)
endforeach()
add_executable(t_preload ${CMAKE_CURRENT_SOURCE_DIR}/t_preload.c)
target_link_libraries(t_preload PRIVATE MPI::MPI_C hdf5::hdf5-shared)

# HDF5's tools (h5ls, h5repack) live next to its cmake directory.
# H5SF_HDF5_BIN_DIR: set by cmake/modules/h5sf_find_hdf5.cmake.

# Scripts run mpiexec themselves; same environment as the MPI tests, plus
# the build's tools on PATH (nodelocal.sh calls h5sf-fuse and h5ls).
function(h5sf_eco_test name)
  cmake_parse_arguments(PARSE_ARGV 1 T "" "" "COMMAND;ENV;FIXTURES_SETUP;FIXTURES_REQUIRED")
  add_test(NAME ${name} COMMAND ${T_COMMAND})
  set(env ${H5SF_MPI_TEST_ENV} ${T_ENV})
  set_tests_properties(${name} PROPERTIES ENVIRONMENT "${env}" TIMEOUT 600 LABELS "mpi;ecosystem"
                       ENVIRONMENT_MODIFICATION
                       "PATH=path_list_prepend:${H5SF_HDF5_BIN_DIR};PATH=path_list_prepend:${CMAKE_BINARY_DIR}/bin")
  if(T_FIXTURES_SETUP)
    set_tests_properties(${name} PROPERTIES FIXTURES_SETUP ${T_FIXTURES_SETUP})
  endif()
  if(T_FIXTURES_REQUIRED)
    set_tests_properties(${name} PROPERTIES FIXTURES_REQUIRED ${T_FIXTURES_REQUIRED})
  endif()
endfunction()

# ---- install tree ---------------------------------------------------------
h5sf_eco_test(eco_install
  COMMAND bash ${H5SF_ECO_SCRIPTS}/t_install.sh install ${CMAKE_BINARY_DIR} ${H5SF_ECO_PREFIX}
          ${CMAKE_SOURCE_DIR} ${PROJECT_VERSION}
  FIXTURES_SETUP h5sf_eco_prefix)
h5sf_eco_test(eco_find_package
  COMMAND bash ${H5SF_ECO_SCRIPTS}/t_install.sh cmake ${H5SF_ECO_PREFIX} ${H5SF_ECO_DIR}/find_package
          ${CMAKE_SOURCE_DIR} ${CMAKE_C_COMPILER} ${CMAKE_GENERATOR} ${MPIEXEC_EXECUTABLE} ${H5SF_MPI_FLAVOUR}
  FIXTURES_REQUIRED h5sf_eco_prefix)
h5sf_eco_test(eco_pkgconfig
  COMMAND bash ${H5SF_ECO_SCRIPTS}/t_install.sh pkgconfig ${H5SF_ECO_PREFIX} ${H5SF_ECO_DIR}/pkgconfig
          ${CMAKE_SOURCE_DIR} ${CMAKE_C_COMPILER} ${MPIEXEC_EXECUTABLE} ${PROJECT_VERSION} ${H5SF_MPI_FLAVOUR}
  FIXTURES_REQUIRED h5sf_eco_prefix)
# Not in the sanitizer builds: the other family's build is a plain one.
if(DEFINED H5SF_CROSSMPI_BUILD_DIR AND NOT H5SF_SANITIZE)
  h5sf_eco_test(eco_install_both
    COMMAND bash ${H5SF_ECO_SCRIPTS}/t_install.sh both ${CMAKE_BINARY_DIR} ${H5SF_CROSSMPI_BUILD_DIR}
            ${H5SF_ECO_DIR}/prefix-both ${H5SF_ECO_DIR}/both ${CMAKE_SOURCE_DIR} ${PROJECT_VERSION} ${CMAKE_GENERATOR})
  set_tests_properties(eco_install_both PROPERTIES SKIP_RETURN_CODE 77)
endif()

# HDF5 found the ways an autotools install allows; needs an HDF5 prefix with
# both (the bootstrap's has; Debian's packages name theirs differently and
# are found by their package files).
if(EXISTS "${H5SF_HDF5_BIN_DIR}/h5pcc" AND EXISTS "${H5SF_HDF5_BIN_DIR}/../lib/pkgconfig/hdf5.pc")
  foreach(way pkgconfig wrapper)
    h5sf_eco_test(eco_find_hdf5_${way}
      COMMAND bash ${H5SF_ECO_SCRIPTS}/find_hdf5.sh ${way} ${CMAKE_SOURCE_DIR} ${H5SF_ECO_DIR}/find_hdf5_${way}
              ${H5SF_HDF5_BIN_DIR} ${MPIEXEC_EXECUTABLE} $<TARGET_FILE:ex_write_read_by_name> ${CMAKE_C_COMPILER})
  endforeach()
else()
  message(STATUS "eco_find_hdf5_*: not registered, no h5pcc and hdf5.pc under ${H5SF_HDF5_BIN_DIR}/..")
endif()

# ---- LD_PRELOAD shim ------------------------------------------------------
h5sf_eco_test(eco_preload
  COMMAND bash ${H5SF_ECO_SCRIPTS}/t_preload.sh ${MPIEXEC_EXECUTABLE} $<TARGET_FILE:t_preload>
          $<TARGET_FILE:h5sf_preload> ${H5SF_ECO_DIR}/preload 4)
# Installed shim, HDF5_PLUGIN_PATH unset for the redirected run: through the
# unsuffixed link, so it must find its family's plugin from its real path.
h5sf_eco_test(eco_preload_installed
  COMMAND bash ${H5SF_ECO_SCRIPTS}/t_preload.sh ${MPIEXEC_EXECUTABLE} $<TARGET_FILE:t_preload>
          ${H5SF_ECO_PREFIX}/${CMAKE_INSTALL_LIBDIR}/libh5sf_preload.so ${H5SF_ECO_DIR}/preload-installed 2
  ENV T_PRELOAD_NO_PLUGIN_PATH=1
  FIXTURES_REQUIRED h5sf_eco_prefix)

# ---- examples ---------------------------------------------------------------
h5sf_eco_test(eco_example_fapl
  COMMAND bash ${H5SF_ECO_SCRIPTS}/run_example.sh ${MPIEXEC_EXECUTABLE} 4 ${H5SF_ECO_DIR}/ex_fapl fapl.h5 4
          $<TARGET_FILE:ex_write_read_fapl>)
h5sf_eco_test(eco_example_by_name
  COMMAND bash ${H5SF_ECO_SCRIPTS}/run_example.sh ${MPIEXEC_EXECUTABLE} 4 ${H5SF_ECO_DIR}/ex_by_name by_name.h5 3
          $<TARGET_FILE:ex_write_read_by_name>)
h5sf_eco_test(eco_example_env
  COMMAND bash ${H5SF_ECO_SCRIPTS}/run_example.sh ${MPIEXEC_EXECUTABLE} 3 ${H5SF_ECO_DIR}/ex_env env.h5 2
          $<TARGET_FILE:ex_write_read_env>
  ENV HDF5_DRIVER=h5sf HDF5_DRIVER_CONFIG=stripe_size=64KiB H5SF_STRIPE_COUNT=2)
# Fused once with h5sf-fuse and once with the h5repack fallback.  MPIEXEC:
# the build's own launcher (under MPICH the mpiexec on PATH is Open MPI's,
# which started the programs as unrelated singletons writing one file).
h5sf_eco_test(eco_example_nodelocal
  COMMAND bash ${H5SF_EXAMPLES_DIR}/nodelocal.sh $<TARGET_FILE:ex_nodelocal> ${H5SF_ECO_DIR}/nodelocal/shared
          ${H5SF_ECO_DIR}/nodelocal/local 4 $<TARGET_FILE:h5sf-fuse>
  ENV MPIEXEC=${MPIEXEC_EXECUTABLE})
h5sf_eco_test(eco_example_nodelocal_h5repack
  COMMAND bash ${H5SF_EXAMPLES_DIR}/nodelocal.sh $<TARGET_FILE:ex_nodelocal> ${H5SF_ECO_DIR}/nodelocal-r/shared
          ${H5SF_ECO_DIR}/nodelocal-r/local 3 h5repack
  ENV MPIEXEC=${MPIEXEC_EXECUTABLE})

# ---- docs and the layout trace ----------------------------------------------
add_test(NAME eco_docs_options
         COMMAND ${CMAKE_COMMAND} -DOPTIONS_EXE=$<TARGET_FILE:h5sf-options> -DSRC=${CMAKE_SOURCE_DIR}
                 -P ${H5SF_ECO_SCRIPTS}/check_docs.cmake)
set_tests_properties(eco_docs_options PROPERTIES LABELS "ecosystem")
# Its check 4 (getenv of an H5SF_* name outside common/options.c) must find
# the call in getenv_bad.c.txt.
add_test(NAME eco_docs_options_fail_getenv
         COMMAND ${CMAKE_COMMAND} -DOPTIONS_EXE=$<TARGET_FILE:h5sf-options> -DSRC=${CMAKE_SOURCE_DIR}
                 -DEXTRA=${H5SF_ECO_SCRIPTS}/getenv_bad.c.txt -P ${H5SF_ECO_SCRIPTS}/check_docs.cmake)
set_tests_properties(eco_docs_options_fail_getenv PROPERTIES LABELS "ecosystem" PASS_REGULAR_EXPRESSION
                     "getenv_bad\\.c\\.txt:[ \n]+getenv\\(\"H5SF_FAULT\"\\.\\.\\.:[ \n]+reads[ \n]+an[ \n]+H5SF_\\*")
add_test(NAME eco_docs_paths COMMAND ${CMAKE_COMMAND} -DSRC=${CMAKE_SOURCE_DIR} -P ${H5SF_ECO_SCRIPTS}/check_paths.cmake)
add_test(NAME eco_docs_paths_fail
         COMMAND ${CMAKE_COMMAND} -DSRC=${CMAKE_SOURCE_DIR} -DDOCS=${H5SF_ECO_SCRIPTS}/check_paths_missing.md
                 -P ${H5SF_ECO_SCRIPTS}/check_paths.cmake)
set_tests_properties(eco_docs_paths eco_docs_paths_fail PROPERTIES LABELS "ecosystem")
set_tests_properties(eco_docs_paths_fail PROPERTIES WILL_FAIL TRUE)
# The index of tests names the tests of every module (test/CMakeLists.txt,
# "covers"); the _fail variant leaves ioc/run.c off and must name it.
add_test(NAME eco_test_index COMMAND ${CMAKE_COMMAND} -DSRC=${CMAKE_SOURCE_DIR} -P ${H5SF_ECO_SCRIPTS}/check_index.cmake)
add_test(NAME eco_test_index_fail
         COMMAND ${CMAKE_COMMAND} -DSRC=${CMAKE_SOURCE_DIR} -DDROP=ioc/run.c -P ${H5SF_ECO_SCRIPTS}/check_index.cmake)
set_tests_properties(eco_test_index eco_test_index_fail PROPERTIES LABELS "ecosystem")
set_tests_properties(eco_test_index_fail PROPERTIES PASS_REGULAR_EXPRESSION "ioc/run.c is covered by no fragment")
# The C style of .clang-format (clang-format 14): the tree follows it
# (scripts/check-format.sh); the _fail variant checks a misformatted file
# and must find it (exit 1, not 2: clang-format missing fails both).  Label
# once: the tree is the same under every MPI and HDF5.
add_test(NAME eco_format COMMAND bash ${CMAKE_SOURCE_DIR}/scripts/check-format.sh)
add_test(NAME eco_format_fail
         COMMAND sh -c "cp \"$1\" \"$2\" && bash \"$3\" \"$2\"; test $? -eq 1" sh
                 ${H5SF_ECO_SCRIPTS}/format_bad.c.txt ${CMAKE_CURRENT_BINARY_DIR}/format_bad.c
                 ${CMAKE_SOURCE_DIR}/scripts/check-format.sh)
set_tests_properties(eco_format eco_format_fail PROPERTIES LABELS "ecosystem;once")
# Calls inside vfd/ go down the layers of docs/architecture.md, and every
# .c of vfd/ is in the file map of vfd/internal.h; the _fail variant checks
# the same objects against a wrong order (must fail).
set(_objs "$<JOIN:$<TARGET_OBJECTS:h5sf>,,>")
add_test(NAME eco_vfd_layers COMMAND ${CMAKE_COMMAND} -DNM=${CMAKE_NM} -DOBJS=${_objs} -DSRC=${CMAKE_SOURCE_DIR}
                                     -P ${H5SF_ECO_SCRIPTS}/check_layers.cmake)
add_test(NAME eco_vfd_layers_fail
         COMMAND ${CMAKE_COMMAND} -DNM=${CMAKE_NM} -DOBJS=${_objs} -DSRC=${CMAKE_SOURCE_DIR} "-DLAYERS=err mpi|fapl|plugin|h5sf|stats physical|io|mpitype topology|channel|samenode ioc_channel threadpool|fapl_settings registry|hdf5priv"
                 -P ${H5SF_ECO_SCRIPTS}/check_layers.cmake)
set_tests_properties(eco_vfd_layers eco_vfd_layers_fail PROPERTIES LABELS "ecosystem")
set_tests_properties(eco_vfd_layers_fail PROPERTIES WILL_FAIL TRUE)
# ioc/ and common/: their own layers, the symbols they must not use, no
# call up into a folder above, and (ioc/) the file map.  The _fail variants
# run the same objects against a wrong order, a forbidden symbol they do
# use, a folder they do call, or a file map with one entry left out, and
# pass only on the message of that check.
set(_all_objs "${_objs},$<JOIN:$<TARGET_OBJECTS:h5sf_ioc>,,>,$<JOIN:$<TARGET_OBJECTS:h5sf_common>,,>")
# h5sf_layers_test(<name> <DIR> [<expected message> <-Dvar=value>...])
function(h5sf_layers_test name dir)
  add_test(NAME ${name} COMMAND ${CMAKE_COMMAND} -DNM=${CMAKE_NM} -DOBJS=${_all_objs} -DDIR=${dir}
                                -DSRC=${CMAKE_SOURCE_DIR} ${ARGN} -P ${H5SF_ECO_SCRIPTS}/check_layers.cmake)
  set_tests_properties(${name} PROPERTIES LABELS "ecosystem")
endfunction()
h5sf_layers_test(eco_ioc_layers ioc)
h5sf_layers_test(eco_common_layers common)
h5sf_layers_test(eco_ioc_layers_fail ioc
  "-DLAYERS=affinity dtype clock gate fault|sched payload subfile slots shm|merge run|worker|progress|client ctx")
h5sf_layers_test(eco_ioc_layers_fail_symbols ioc "-DFORBID=^(H5|MPI_Isend$)")
h5sf_layers_test(eco_ioc_layers_fail_up ioc "-DABOVE=common vfd")
h5sf_layers_test(eco_common_layers_fail common
  "-DLAYERS=options|stripe sysio superblock|values layout wire|settings iocmap|cfgstring")
h5sf_layers_test(eco_common_layers_fail_symbols common "-DFORBID=^(P?MPIX?_|ompi_|MPIR_|H5|h5sf_parse_int$)")
set_tests_properties(eco_ioc_layers_fail eco_common_layers_fail PROPERTIES
                     PASS_REGULAR_EXPRESSION " [1-9][0-9]* uses against the layers")
set_tests_properties(eco_ioc_layers_fail_symbols eco_common_layers_fail_symbols PROPERTIES
                     PASS_REGULAR_EXPRESSION " [1-9][0-9]* forbidden symbols")
set_tests_properties(eco_ioc_layers_fail_up PROPERTIES
                     PASS_REGULAR_EXPRESSION " [1-9][0-9]* calls up into another")
h5sf_layers_test(eco_vfd_layers_fail_map vfd -DMAP_DROP=samenode.c)
h5sf_layers_test(eco_ioc_layers_fail_map ioc -DMAP_DROP=payload.c)
set_tests_properties(eco_vfd_layers_fail_map eco_ioc_layers_fail_map PROPERTIES
                     PASS_REGULAR_EXPRESSION " 1 missing from the file map")
# Every allocation of vfd/, ioc/ and common/ goes through common/alloc.h
# (the sweep's allocation sites, the count of live blocks); the _fail
# variant, without the allocator's own exceptions, finds alloc.c's calls.
add_test(NAME eco_alloc COMMAND ${CMAKE_COMMAND} -DNM=${CMAKE_NM} -DOBJS=${_all_objs}
                                -P ${H5SF_ECO_SCRIPTS}/check_alloc.cmake)
add_test(NAME eco_alloc_fail COMMAND ${CMAKE_COMMAND} -DNM=${CMAKE_NM} -DOBJS=${_all_objs} -DALLOW=none
                                     -P ${H5SF_ECO_SCRIPTS}/check_alloc.cmake)
set_tests_properties(eco_alloc eco_alloc_fail PROPERTIES LABELS "ecosystem")
set_tests_properties(eco_alloc_fail PROPERTIES PASS_REGULAR_EXPRESSION "common/alloc\\.c calls malloc")
h5sf_eco_test(eco_log
  COMMAND bash ${H5SF_ECO_SCRIPTS}/t_log.sh ${MPIEXEC_EXECUTABLE} $<TARGET_FILE:ex_write_read_by_name>
          ${H5SF_ECO_DIR}/log)
