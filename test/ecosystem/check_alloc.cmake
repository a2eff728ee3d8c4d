cmake_minimum_required(VERSION 3.25)
# check_alloc.cmake -- every block h5sf allocates for itself comes from its
# allocator (common/alloc.h): no object of vfd/, ioc/ or common/ but
# common/alloc.c calls libc's allocation functions (nm -u over the objects,
# so a call hidden in a macro counts too).
#
#   cmake -DNM=<nm> -DOBJS=<objects, comma-separated> [-DALLOW=<list>] -P check_alloc.cmake
#
# ALLOW: "file:symbol" exceptions, ';'-separated; the default is
# common/alloc:* (the allocator itself) and vfd/stats:free (open_memstream's
# buffer is libc's, alloc.h).  The _fail variant passes an empty list.
if(NOT DEFINED ALLOW)
  set(ALLOW "common/alloc:*;vfd/stats:free")
endif()
set(forbid "^(malloc|calloc|realloc|reallocarray|strdup|strndup|free|posix_memalign|aligned_alloc|memalign|valloc)$")
set(failed 0)
set(nobj 0)
string(REPLACE "," ";" OBJS "${OBJS}")
list(REMOVE_ITEM OBJS "")
foreach(o IN LISTS OBJS)
  if(NOT o MATCHES "/(vfd|ioc|common)/([A-Za-z0-9_]+)\\.c\\.o$")
    continue()
  endif()
  set(file ${CMAKE_MATCH_1}/${CMAKE_MATCH_2})
  math(EXPR nobj "${nobj} + 1")
  execute_process(COMMAND ${NM} -u ${o} OUTPUT_VARIABLE out RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${NM} failed on ${o}")
  endif()
  string(REGEX MATCHALL "[^\n]+" rows "${out}")
  foreach(r IN LISTS rows)
    if(NOT r MATCHES " ([A-Za-z_][A-Za-z0-9_]*)(@.*)?$")
      continue()
    endif()
    set(sym ${CMAKE_MATCH_1})
    if(NOT sym MATCHES "${forbid}" OR "${file}:*" IN_LIST ALLOW OR "${file}:${sym}" IN_LIST ALLOW)
      continue()
    endif()
    message(SEND_ERROR "${file}.c calls ${sym}: allocate with h5sf_malloc ... h5sf_free (common/alloc.h)")
    math(EXPR failed "${failed} + 1")
  endforeach()
endforeach()
if(nobj EQUAL 0)
  message(FATAL_ERROR "no object of vfd/, ioc/ or common/ among OBJS")
endif()
if(failed)
  message(FATAL_ERROR "${failed} calls of libc's allocator in ${nobj} objects")
endif()
message(STATUS "${nobj} objects of vfd/, ioc/ and common/ allocate through common/alloc.h only")
