# h5sf_find_hdf5.cmake -- find a parallel HDF5 however it was installed, and
# leave exactly one imported target for it: hdf5::hdf5-shared.
#
# Tried in order (H5SF_HDF5_FIND forces one: config, pkgconfig or wrapper):
#   config     HDF5's CMake package files: CMake-built installs, Spack, and
#              Debian's libhdf5-*-dev (<libdir>/cmake/hdf5[_openmpi]);
#   pkgconfig  hdf5-openmpi, hdf5-mpich or hdf5 (.pc of autotools installs
#              and distributions);
#   wrapper    CMake's FindHDF5 module, which asks h5pcc -showconfig/-show
#              (autotools installs without a .pc file; not for Debian's
#              packages, whose library name hdf5_openmpi FindHDF5 rejects).
# Sets: H5SF_HDF5_FOUND_BY (which way), H5SF_HDF5_VERSION,
#       H5SF_HDF5_INCLUDE_DIRS, H5SF_HDF5_LIB_DIR and H5SF_HDF5_LIB_NAME (for
#       -L/-l in h5sf.pc), H5SF_HDF5_BIN_DIR (h5ls etc., may be empty),
#       H5SF_HAVE_SUBFILING_VFD (HDF5's own subfiling driver is built in).
# Used by h5sf's own build and installed for h5sfConfig.cmake; touches no
# other variables of the including project beyond what find_package sets.
include_guard(GLOBAL)
include(CheckSymbolExists)

set(H5SF_HDF5_FIND "" CACHE STRING "Force how HDF5 is found: config, pkgconfig or wrapper (default: try in that order)")

# HDF5's CMake export also hands its users these definitions, which h5sf's
# sources rely on (pthread_setname_np, CPU_SET, 64-bit off_t): keep the
# build the same whichever way HDF5 was found.
macro(_h5sf_hdf5_target_from lib incdirs)
  add_library(hdf5::hdf5-shared INTERFACE IMPORTED)
  set_target_properties(hdf5::hdf5-shared PROPERTIES INTERFACE_LINK_LIBRARIES "${lib}"
                        INTERFACE_INCLUDE_DIRECTORIES "${incdirs}"
                        INTERFACE_COMPILE_DEFINITIONS "_GNU_SOURCE;_LARGEFILE_SOURCE;_FILE_OFFSET_BITS=64")
endmacro()

set(H5SF_HDF5_FOUND_BY "")
# ---- 1. CMake package files ---------------------------------------------
if(H5SF_HDF5_FIND STREQUAL "" OR H5SF_HDF5_FIND STREQUAL "config")
  if(NOT TARGET hdf5::hdf5-shared AND NOT TARGET hdf5-shared)
    # Debian names the parallel flavour's package directory hdf5_openmpi.
    find_package(HDF5 QUIET NAMES hdf5 hdf5_openmpi hdf5_mpich COMPONENTS C shared CONFIG
                 HINTS ${H5SF_HDF5_DIR_HINT}
                 PATH_SUFFIXES hdf5/openmpi/cmake hdf5/mpich/cmake)
  endif()
  if(TARGET hdf5-shared AND NOT TARGET hdf5::hdf5-shared)
    # HDF5 built without a namespace exports plain "hdf5-shared".
    add_library(hdf5::hdf5-shared INTERFACE IMPORTED)
    set_target_properties(hdf5::hdf5-shared PROPERTIES INTERFACE_LINK_LIBRARIES hdf5-shared)
  endif()
  if(TARGET hdf5::hdf5-shared)
    set(H5SF_HDF5_FOUND_BY config)
    set(H5SF_HDF5_VERSION "${HDF5_VERSION}")
    set(_h5sf_real hdf5::hdf5-shared)
    if(TARGET hdf5-shared)
      set(_h5sf_real hdf5-shared)
    endif()
    get_target_property(H5SF_HDF5_INCLUDE_DIRS ${_h5sf_real} INTERFACE_INCLUDE_DIRECTORIES)
    # Debian's export carries an empty generator expression among the paths.
    list(FILTER H5SF_HDF5_INCLUDE_DIRS EXCLUDE REGEX "^\\$<")
    get_target_property(_h5sf_cfgs ${_h5sf_real} IMPORTED_CONFIGURATIONS)
    foreach(_c IN LISTS _h5sf_cfgs ITEMS NOCONFIG)
      get_target_property(_h5sf_loc ${_h5sf_real} IMPORTED_LOCATION_${_c})
      if(_h5sf_loc)
        set(H5SF_HDF5_LIBRARY "${_h5sf_loc}")
        break()
      endif()
    endforeach()
  endif()
endif()
# ---- 2. pkg-config --------------------------------------------------------
if(NOT H5SF_HDF5_FOUND_BY AND (H5SF_HDF5_FIND STREQUAL "" OR H5SF_HDF5_FIND STREQUAL "pkgconfig"))
  find_package(PkgConfig QUIET)
  if(PKG_CONFIG_FOUND)
    pkg_search_module(H5SF_PC QUIET IMPORTED_TARGET GLOBAL hdf5-openmpi hdf5_openmpi hdf5-mpich hdf5_mpich hdf5)
    if(H5SF_PC_FOUND)
      _h5sf_hdf5_target_from(PkgConfig::H5SF_PC "${H5SF_PC_INCLUDE_DIRS}")
      set(H5SF_HDF5_FOUND_BY "pkgconfig (${H5SF_PC_MODULE_NAME})")
      set(H5SF_HDF5_VERSION "${H5SF_PC_VERSION}")
      set(H5SF_HDF5_INCLUDE_DIRS "${H5SF_PC_INCLUDE_DIRS}")
      list(GET H5SF_PC_LINK_LIBRARIES 0 H5SF_HDF5_LIBRARY)
    endif()
  endif()
endif()
# ---- 3. the compiler wrapper (h5pcc) --------------------------------------
if(NOT H5SF_HDF5_FOUND_BY AND (H5SF_HDF5_FIND STREQUAL "" OR H5SF_HDF5_FIND STREQUAL "wrapper"))
  set(HDF5_PREFER_PARALLEL TRUE)
  set(HDF5_NO_FIND_PACKAGE_CONFIG_FILE TRUE)
  find_package(HDF5 MODULE QUIET COMPONENTS C)
  if(HDF5_FOUND)
    _h5sf_hdf5_target_from("${HDF5_C_LIBRARIES}" "${HDF5_C_INCLUDE_DIRS}")
    set(H5SF_HDF5_FOUND_BY wrapper)
    set(H5SF_HDF5_VERSION "${HDF5_VERSION}")
    set(H5SF_HDF5_INCLUDE_DIRS "${HDF5_C_INCLUDE_DIRS}")
    foreach(_l IN LISTS HDF5_C_LIBRARIES)
      if(_l MATCHES "/lib(hdf5[^/]*)\\.(so|a)")
        set(H5SF_HDF5_LIBRARY "${_l}")
        break()
      endif()
    endforeach()
  endif()
endif()
if(NOT H5SF_HDF5_FOUND_BY)
  message(FATAL_ERROR "h5sf: no parallel HDF5 found (tried ${H5SF_HDF5_FIND}: CMake package files, pkg-config, "
                      "h5pcc).  Set CMAKE_PREFIX_PATH to its prefix, HDF5_DIR to its CMake directory, "
                      "PKG_CONFIG_PATH to its .pc directory, or put h5pcc on PATH (docs/user-guide.md).")
endif()

# The library file, for h5sf.pc: -L<dir> -l<name>.
get_filename_component(H5SF_HDF5_LIB_DIR "${H5SF_HDF5_LIBRARY}" DIRECTORY)
get_filename_component(H5SF_HDF5_LIB_NAME "${H5SF_HDF5_LIBRARY}" NAME)
string(REGEX REPLACE "^lib([^.]+)\\..*$" "\\1" H5SF_HDF5_LIB_NAME "${H5SF_HDF5_LIB_NAME}")

# ---- what this HDF5 offers --------------------------------------------------
set(_h5sf_save ${CMAKE_REQUIRED_INCLUDES})
set(CMAKE_REQUIRED_INCLUDES ${H5SF_HDF5_INCLUDE_DIRS})
unset(H5SF_HDF5_PARALLEL CACHE)
unset(H5SF_HAVE_SUBFILING_VFD CACHE)
check_symbol_exists(H5_HAVE_PARALLEL "H5pubconf.h" H5SF_HDF5_PARALLEL)
# The header is installed even when the driver is not built (Debian 2.x).
check_symbol_exists(H5_HAVE_SUBFILING_VFD "H5pubconf.h" H5SF_HAVE_SUBFILING_VFD)
set(CMAKE_REQUIRED_INCLUDES ${_h5sf_save})
if(NOT H5SF_HDF5_PARALLEL)
  message(FATAL_ERROR "h5sf: the HDF5 found (${H5SF_HDF5_FOUND_BY}, include ${H5SF_HDF5_INCLUDE_DIRS}) "
                      "is not built with parallel support (H5_HAVE_PARALLEL)")
endif()

# HDF5's command-line tools: next to a CMake install's package directory, or
# wherever h5ls is found (distribution packages put them in /usr/bin).
set(H5SF_HDF5_BIN_DIR "")
foreach(_d "${HDF5_DIR}/../bin" "${HDF5_DIR}/../../bin" "${HDF5_DIR}/../../../bin" "${HDF5_DIR}/../../../../bin")
  if(HDF5_DIR AND EXISTS "${_d}/h5ls")
    get_filename_component(H5SF_HDF5_BIN_DIR "${_d}" ABSOLUTE)
    break()
  endif()
endforeach()
if(NOT H5SF_HDF5_BIN_DIR)
  find_program(H5SF_H5LS h5ls)
  if(H5SF_H5LS)
    get_filename_component(H5SF_HDF5_BIN_DIR "${H5SF_H5LS}" DIRECTORY)
  endif()
endif()
