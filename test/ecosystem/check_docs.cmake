cmake_minimum_required(VERSION 3.25)
# check_docs.cmake -- docs and code cannot drift.
#
#   cmake -DOPTIONS_EXE=<h5sf-options> -DSRC=<source dir> [-DUPDATE=1] [-DEXTRA=<files>] -P check_docs.cmake
#
# 1. The text between <!-- BEGIN OPTIONS --> and <!-- END OPTIONS --> in
#    docs/configuration.md equals `h5sf-options --markdown` (the code's own
#    option table).  -DUPDATE=1 rewrites it instead.
# 2. Every "H5SF_..." string literal in the library and tool sources names a
#    variable of that table (an undocumented variable fails).
# 3. Every H5SF_... name the user docs mention exists in that table (or is a
#    variable of the build scripts in scripts/); every H5FD_H5SF_... name
#    they mention is defined in include/h5sf.h.
# 4. getenv is called for H5SF_* names in common/options.c only (below).
set(doc ${SRC}/docs/configuration.md)
execute_process(COMMAND ${OPTIONS_EXE} --markdown OUTPUT_VARIABLE table RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${OPTIONS_EXE} --markdown failed (${rc})")
endif()
file(READ ${doc} text)
set(begin "<!-- BEGIN OPTIONS -->\n")
set(end "<!-- END OPTIONS -->")
string(FIND "${text}" "${begin}" b)
string(FIND "${text}" "${end}" e)
if(b LESS 0 OR e LESS b)
  message(FATAL_ERROR "${doc}: markers '${begin}' ... '${end}' not found")
endif()
string(LENGTH "${begin}" blen)
math(EXPR start "${b} + ${blen}")
math(EXPR len "${e} - ${start}")
string(SUBSTRING "${text}" ${start} ${len} current)
if(UPDATE)
  string(SUBSTRING "${text}" 0 ${start} head)
  string(SUBSTRING "${text}" ${e} -1 tail)
  file(WRITE ${doc} "${head}${table}${tail}")
  message(STATUS "rewrote the options table of ${doc}")
  return()
endif()
set(failed FALSE)
if(NOT current STREQUAL table)
  file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/options-expected.md "${table}")
  file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/options-in-doc.md "${current}")
  message(SEND_ERROR "${doc}: the options table differs from `h5sf-options --markdown`.\n"
          "  diff ${CMAKE_CURRENT_BINARY_DIR}/options-in-doc.md ${CMAKE_CURRENT_BINARY_DIR}/options-expected.md\n"
          "  regenerate: cmake -DOPTIONS_EXE=${OPTIONS_EXE} -DSRC=${SRC} -DUPDATE=1 -P ${CMAKE_CURRENT_LIST_FILE}")
  set(failed TRUE)
endif()

# The variables the table knows (backticked names in its first columns).
string(REGEX MATCHALL "`H5SF_[A-Z0-9_]+`" known "${table}")
list(TRANSFORM known REPLACE "`" "")
list(REMOVE_DUPLICATES known)

# Installed code only (tests and the benchmark have their own H5SF_TEST_*).
file(GLOB sources ${SRC}/vfd/*.[ch] ${SRC}/ioc/*.[ch] ${SRC}/common/*.[ch] ${SRC}/tools/*.c ${SRC}/preload/*.c)
foreach(f IN LISTS sources)
  file(STRINGS ${f} lines REGEX "\"H5SF_[A-Z0-9_]+\"")
  foreach(line IN LISTS lines)
    string(REGEX MATCHALL "\"H5SF_[A-Z0-9_]+\"" names "${line}")
    foreach(n IN LISTS names)
      string(REPLACE "\"" "" n "${n}")
      if(NOT n IN_LIST known AND NOT n MATCHES "^H5SF_TEST_")
        message(SEND_ERROR "${f}: uses ${n}, which the option table (common/options.c) does not list")
        set(failed TRUE)
      endif()
    endforeach()
  endforeach()
endforeach()

# 4. No file but common/options.c calls getenv for an H5SF_* name, nor with a
#    name that is not a literal (which could be one): every H5SF_* variable is
#    read through the table (h5sf_var, h5sf_option_env; common/settings.h),
#    so the list above is complete.  EXTRA: more files to check (the _fail
#    variant's example of a violation).
foreach(f IN LISTS sources EXTRA)
  if(f MATCHES "/common/options\\.c$")
    continue()
  endif()
  file(STRINGS ${f} lines REGEX "getenv[ \t]*\\(")
  foreach(line IN LISTS lines)
    string(REGEX MATCHALL "getenv[ \t]*\\([ \t]*[^ \t)]*" calls "${line}")
    foreach(c IN LISTS calls)
      if(c MATCHES "\\([ \t]*\"H5SF_")
        message(SEND_ERROR "${f}: ${c}...: reads an H5SF_* variable with getenv; read it through the table "
                           "(h5sf_var or h5sf_option_env, common/settings.h)")
        set(failed TRUE)
      elseif(NOT c MATCHES "\\([ \t]*\"")
        message(SEND_ERROR "${f}: ${c}...: calls getenv with a name that is not a literal; read H5SF_* "
                           "variables through the table (common/settings.h)")
        set(failed TRUE)
      endif()
    endforeach()
  endforeach()
endforeach()

# Variables of the build and test scripts (scripts/*.sh: H5SF_BUILD_DIR, ...;
# test/*.sh: H5SF_SLURM_STEP_LIMIT, ...)
# and CMake cache variables of the build (cmake/modules/: H5SF_HDF5_FIND)
# configure those, not the library; docs may name them.
file(GLOB scripts ${SRC}/scripts/*.sh ${SRC}/test/*.sh ${SRC}/cmake/modules/*.cmake)
set(script_vars)
foreach(f IN LISTS scripts)
  file(READ ${f} t)
  string(REGEX MATCHALL "H5SF_[A-Z0-9_]+" names "${t}")
  list(APPEND script_vars ${names})
endforeach()

# Constants of the public header (H5FD_H5SF_CTL_GET_STATS, ...) are not
# settings; docs may name those that include/h5sf.h defines.
file(READ ${SRC}/include/h5sf.h t)
string(REGEX MATCHALL "H5FD_H5SF_[A-Z0-9_]+" api_names "${t}")

foreach(d ${SRC}/docs/user-guide.md ${doc} ${SRC}/README.md)
  if(NOT EXISTS ${d})
    message(SEND_ERROR "missing ${d}")
    set(failed TRUE)
    continue()
  endif()
  file(READ ${d} t)
  string(REGEX MATCHALL "H5FD_H5SF_[A-Z0-9_]+" names "${t}")
  list(REMOVE_DUPLICATES names)
  foreach(n IN LISTS names)
    if(NOT n IN_LIST api_names)
      message(SEND_ERROR "${d} mentions ${n}, which include/h5sf.h does not define")
      set(failed TRUE)
    endif()
  endforeach()
  string(REGEX REPLACE "H5FD_H5SF_[A-Z0-9_]+" "" t "${t}")
  string(REGEX MATCHALL "H5SF_[A-Z0-9_]+" names "${t}")
  list(REMOVE_DUPLICATES names)
  foreach(n IN LISTS names)
    if(NOT n IN_LIST known AND NOT n IN_LIST script_vars)
      message(SEND_ERROR "${d} mentions ${n}, which neither the option table nor scripts/ know")
      set(failed TRUE)
    endif()
  endforeach()
endforeach()
if(NOT failed)
  list(LENGTH known nknown)
  message(STATUS "docs match the option table (${nknown} H5SF_* variables)")
endif()
