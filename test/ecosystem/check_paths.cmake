cmake_minimum_required(VERSION 3.25)
# check_paths.cmake -- every repository file a document names exists.
#
#   cmake -DSRC=<source dir> [-DDOCS="a.md;b.md"] -P check_paths.cmake
#
# Scans README.md and docs/*.md (or DOCS) for `backquoted` words outside
# fenced code blocks.  A word with a slash must exist relative to the
# repository root or to the document's directory; a bare name with a
# source or document extension (h5sf.c, performance-data.csv) must exist
# somewhere in the repository (or as its template, name.in).  Not checked:
# anything with a space, = or quotes (settings), URLs, placeholders and
# globs (< > * ? { } $), absolute and home paths (/tmp, ~), addresses
# (10.0.0.0/24), build trees (build/, build-asan/), the install tree (lib/,
# share/, bin/) and HDF5's source tree (src/).  Reads files only.
if(NOT DEFINED DOCS)
  file(GLOB DOCS ${SRC}/docs/*.md)
  list(PREPEND DOCS ${SRC}/README.md)
endif()
set(exts c h md sh py cmake csv txt in png patch supp 1)
list(JOIN exts "|" ext_re)

# Every basename in the repository, for bare names.  Build trees and .git
# are left out before they are walked: tests leave names there (control
# bytes, brackets) that a CMake list cannot hold.
file(GLOB tops RELATIVE ${SRC} ${SRC}/*)
set(all)
foreach(t IN LISTS tops)
  if(t MATCHES "^(build|\\.git)")
    continue()
  endif()
  if(IS_DIRECTORY ${SRC}/${t})
    file(GLOB_RECURSE sub RELATIVE ${SRC} ${SRC}/${t}/*)
    list(APPEND all ${sub})
  else()
    list(APPEND all ${t})
  endif()
endforeach()
set(basenames)
foreach(f IN LISTS all)
  get_filename_component(b ${f} NAME)
  list(APPEND basenames ${b})
endforeach()

set(failed 0)
set(checked 0)
foreach(doc IN LISTS DOCS)
  get_filename_component(docdir ${doc} DIRECTORY)
  file(READ ${doc} text)
  # CMake lists: keep ; [ ] \ out of the way, then one item per line.
  string(REGEX REPLACE "[][;\\\\]" " " text "${text}")
  string(REPLACE "\n" ";" lines "${text}")
  set(fenced FALSE)
  set(lineno 0)
  foreach(line IN LISTS lines)
    math(EXPR lineno "${lineno} + 1")
    if(line MATCHES "^[ \t]*```")
      if(fenced)
        set(fenced FALSE)
      else()
        set(fenced TRUE)
      endif()
      continue()
    endif()
    if(fenced)
      continue()
    endif()
    string(REGEX MATCHALL "`[^`]+`" spans "${line}")
    foreach(span IN LISTS spans)
      string(REGEX REPLACE "^`(.*)`$" "\\1" p "${span}")
      if(p MATCHES "[ \t<>*?{}$~=\"']" OR p MATCHES "://" OR p MATCHES "^/" OR p MATCHES "^[0-9.]+/"
         OR p MATCHES "^(build[^/]*|lib|share|bin|src)/" OR p MATCHES "^\\.\\.?/?$")
        continue()
      endif()
      if(p MATCHES "/")
        string(REGEX REPLACE "^\\./" "" p "${p}")
        math(EXPR checked "${checked} + 1")
        if(NOT EXISTS ${SRC}/${p} AND NOT EXISTS ${docdir}/${p})
          message(SEND_ERROR "${doc}:${lineno}: `${p}` does not exist in the repository")
          math(EXPR failed "${failed} + 1")
        endif()
      elseif(p MATCHES "^[A-Za-z0-9_.+-]+\\.(${ext_re})$")
        math(EXPR checked "${checked} + 1")
        if(NOT p IN_LIST basenames AND NOT "${p}.in" IN_LIST basenames)
          message(SEND_ERROR "${doc}:${lineno}: no file named `${p}` in the repository")
          math(EXPR failed "${failed} + 1")
        endif()
      endif()
    endforeach()
  endforeach()
endforeach()
if(failed EQUAL 0)
  message(STATUS "${checked} file names in the docs, all present")
endif()
