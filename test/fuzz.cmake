# libFuzzer targets for the parsers that read untrusted bytes (common/):
#   fuzz_config_string  config strings and values   corpus test/fuzz/corpus/fuzz_config_string
#   fuzz_config_file    the subfiling config file    corpus test/fuzz/corpus/fuzz_config_file
#   fuzz_drvinfo        the superblock driver info   corpus test/fuzz/corpus/fuzz_drvinfo
#   fuzz_wire           IOC requests and replies     corpus test/fuzz/corpus/wire
#   fuzz_superblock     the HDF5 superblock          corpus test/data/superblock (files HDF5 wrote)
#   fuzz_orphans        orphan classification        corpus test/fuzz/corpus/fuzz_orphans
#   fuzz_stubprobe      stub probing (lacks root)    corpus test/fuzz/corpus/fuzz_stubprobe
#   fuzz_shimname       which names are a set's      corpus test/fuzz/corpus/fuzz_shimname
#   fuzz_sblock         the superblock reader of drvlen.c and the tools (common/sblock.c)
#                                                    corpus test/data/superblock + fuzz/corpus/fuzz_sblock
#   fuzz_infoname       h5sf-info's name parsing and the tools' escaping (tools/tkname.c)
#                                                    corpus test/fuzz/corpus/fuzz_infoname
# The project compiler is mpicc (gcc), which has no libFuzzer, so the targets
# are built by calling clang directly.  Without a working clang + libFuzzer
# runtime (Debian: clang, libclang-rt-14-dev) they are left out, with a
# message, and no fuzz test is registered.
#
# ctest -L fuzz runs each target briefly (-runs) on its seed corpus; new
# inputs go to a scratch corpus in the build tree, crashes to fuzz/<name>.work/.
# Inputs that crashed a target live in test/fuzz/crashes/<name>/ and are
# replayed by <name>_crashes.
# A long run (the same command with -max_total_time=600) is described in
# docs/reliability.md.

find_program(H5SF_CLANG NAMES clang clang-14 clang-15 clang-16)
set(_fz_flags -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -Wall -Wextra)
set(_fz_dir ${CMAKE_CURRENT_BINARY_DIR}/fuzz)
file(MAKE_DIRECTORY ${_fz_dir})

# Does clang link a libFuzzer program here?  (Checked once per configure.)
set(_fz_ok FALSE)
if(H5SF_CLANG)
  file(WRITE ${_fz_dir}/probe.c
       "#include <stdint.h>\n#include <stddef.h>\n"
       "int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n")
  execute_process(COMMAND ${H5SF_CLANG} ${_fz_flags} ${_fz_dir}/probe.c -o ${_fz_dir}/probe
                  RESULT_VARIABLE _fz_rc OUTPUT_QUIET ERROR_VARIABLE _fz_err)
  if(_fz_rc EQUAL 0)
    set(_fz_ok TRUE)
  else()
    message(STATUS "h5sf: fuzz targets skipped: ${H5SF_CLANG} cannot link with -fsanitize=fuzzer "
                   "(install libclang-rt-14-dev): ${_fz_err}")
  endif()
else()
  message(STATUS "h5sf: fuzz targets skipped: no clang found")
endif()

# common/ needs neither MPI nor HDF5: the targets are built by clang with
# no include path but common/'s, which also shows that no header of
# common/ pulls in mpi.h or hdf5.h.

file(GLOB _fz_common CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/common/*.c)
file(GLOB _fz_common_h CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/common/*.h)

# common/ is compiled once for all targets (ccache in front where the build
# has it), not once per target: ten targets times twenty files took most of
# a build's time.
set(_fz_cc ${H5SF_CLANG})
if(CMAKE_C_COMPILER_LAUNCHER)
  set(_fz_cc ${CMAKE_C_COMPILER_LAUNCHER} ${H5SF_CLANG})
endif()
set(_fz_objs)
if(_fz_ok)
  file(MAKE_DIRECTORY ${_fz_dir}/common)
  foreach(c IN LISTS _fz_common)
    get_filename_component(_fz_stem ${c} NAME_WE)
    set(o ${_fz_dir}/common/${_fz_stem}.o)
    add_custom_command(OUTPUT ${o}
                       COMMAND ${_fz_cc} ${_fz_flags} -I${CMAKE_SOURCE_DIR}/common -c ${c} -o ${o}
                       DEPENDS ${c} ${_fz_common_h}
                       COMMENT "Building libFuzzer object common/${_fz_stem}.c"
                       VERBATIM)
    list(APPEND _fz_objs ${o})
  endforeach()
  # One archive, made by one target that every fuzz target waits for; the
  # targets depend on common/'s sources, not on the archive, so that the
  # Makefile generator does not copy its rule into each of them.
  set(_fz_lib ${_fz_dir}/libfuzz_common.a)
  add_custom_command(OUTPUT ${_fz_lib}
                     COMMAND ${CMAKE_COMMAND} -E rm -f ${_fz_lib}
                     COMMAND ${CMAKE_AR} qc ${_fz_lib} ${_fz_objs}
                     DEPENDS ${_fz_objs}
                     VERBATIM)
  add_custom_target(fuzz_common ALL DEPENDS ${_fz_lib})
endif()

# h5sf_fuzz_target(<name> <seed corpus dir> [EXTRA <source>...] [CORPUS <more seed dirs>...])
# EXTRA: sources outside common/ the target needs (e.g. tools/tkname.c;
# their directory's headers are found with -I tools/).
function(h5sf_fuzz_target name corpus)
  cmake_parse_arguments(F "" "" "EXTRA;CORPUS" ${ARGN})
  set(src ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/${name}.c)
  set(exe ${_fz_dir}/${name})
  add_custom_command(OUTPUT ${exe}
                     COMMAND ${H5SF_CLANG} ${_fz_flags} -I${CMAKE_SOURCE_DIR}/common -I${CMAKE_SOURCE_DIR}/tools ${src}
                             ${F_EXTRA} ${_fz_lib} -o ${exe}
                     DEPENDS ${src} ${F_EXTRA} ${_fz_common} ${_fz_common_h} ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/memread.h
                     COMMENT "Building libFuzzer target ${name}"
                     VERBATIM)
  add_custom_target(${name} ALL DEPENDS ${exe})
  add_dependencies(${name} fuzz_common)
  set(work ${_fz_dir}/${name}.work)
  file(MAKE_DIRECTORY ${work}/corpus)
  # Short run: bounded by runs and by time, whichever comes first.
  add_test(NAME ${name}
           COMMAND ${exe} -runs=200000 -max_total_time=10 -timeout=10 -print_final_stats=1
                   -artifact_prefix=${work}/ ${work}/corpus ${corpus} ${F_CORPUS})
  set_tests_properties(${name} PROPERTIES LABELS "fuzz" TIMEOUT 120)
  # Inputs that once crashed the target are replayed (libFuzzer runs files
  # given by name once each): the test fails until the finding is fixed.
  file(GLOB crashes ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/crashes/${name}/*)
  if(crashes)
    add_test(NAME ${name}_crashes COMMAND ${exe} ${crashes})
    set_tests_properties(${name}_crashes PROPERTIES LABELS "fuzz" TIMEOUT 60)
  endif()
endfunction()

if(_fz_ok)
  h5sf_fuzz_target(fuzz_config_string ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/corpus/fuzz_config_string)
  h5sf_fuzz_target(fuzz_config_file ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/corpus/fuzz_config_file)
  h5sf_fuzz_target(fuzz_drvinfo ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/corpus/fuzz_drvinfo)
  h5sf_fuzz_target(fuzz_wire ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/corpus/wire)
  h5sf_fuzz_target(fuzz_superblock ${CMAKE_CURRENT_SOURCE_DIR}/data/superblock)
  h5sf_fuzz_target(fuzz_orphans ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/corpus/fuzz_orphans)
  h5sf_fuzz_target(fuzz_stubprobe ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/corpus/fuzz_stubprobe)
  h5sf_fuzz_target(fuzz_shimname ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/corpus/fuzz_shimname)
  h5sf_fuzz_target(fuzz_sblock ${CMAKE_CURRENT_SOURCE_DIR}/data/superblock CORPUS ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/corpus/fuzz_sblock)
  h5sf_fuzz_target(fuzz_infoname ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/corpus/fuzz_infoname EXTRA
                   ${CMAKE_SOURCE_DIR}/tools/tkname.c)
endif()
