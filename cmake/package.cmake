# Packaging: what `cmake --install` adds beyond the plugin and header
# (CMakeLists.txt installs those) and the tools (tools/tools.cmake).
#
# An h5sf build is bound to one MPI family (H5SF_MPI_FLAVOUR, openmpi or
# mpich: cmake/modules/h5sf_mpi_flavour.cmake), and a plugin of one family
# cannot run in a program of the other.  So everything built with MPI goes
# under a directory of its family, and the builds of both families install
# into one prefix side by side (F = the family):
#   <libdir>/h5sf/F/            libh5sf.so: the plugin (HDF5_PLUGIN_PATH) and
#                               the library programs link
#   <libdir>/h5sf/F/bin/        h5sf-fuse, h5sf-options, ... (tools.cmake)
#   <libdir>/h5sf/F/preload/    libh5sf_preload.so (preload/preload.cmake);
#                               a subdirectory, as HDF5 tries every file of
#                               a plugin directory as a plugin
#   <libdir>/cmake/h5sf-F/      package h5sf-F: h5sf-FConfig.cmake, version
#                               file, h5sfTargets.cmake (h5sf::h5sf, with
#                               HDF5 and MPI)
#   <libdir>/pkgconfig/         h5sf-F.pc
# The same from every family (each install writes identical files):
#   <libdir>/cmake/h5sf/        find_package(h5sf [COMPONENTS F]): picks
#                               h5sf-F by the component, else by the MPI
#                               of the project (cmake/h5sfConfig.cmake.in)
#   <includedir>/h5sf.h, <mandir>/man<N>/ (docs/man/*.<N>), <docdir>/
#                               (docs/*.md, docs/examples/)
# The unsuffixed names are links to one family's files: h5sf.pc,
# bin/h5sf-*, <libdir>/libh5sf_preload.so.  H5SF_DEFAULT_MPI_FLAVOUR's
# install (Open MPI, as in Debian) always takes them; another family's takes
# them only when they are free or already its own, so an install of MPICH
# alone has them too.
include(CMakePackageConfigHelpers)

if(NOT H5SF_MPI_FLAVOUR)
  message(FATAL_ERROR "h5sf: cannot tell which MPI this is (neither Open MPI nor MPICH: "
                      "'${MPI_C_LIBRARY_VERSION_STRING}'); name its family with -DH5SF_MPI_FLAVOUR=<name>")
endif()
h5sf_mpi_flavour_label(${H5SF_MPI_FLAVOUR} H5SF_MPI_LABEL)
message(STATUS "MPI: ${H5SF_MPI_LABEL} (${H5SF_MPI_FLAVOUR}); installs into ${CMAKE_INSTALL_LIBDIR}/h5sf/${H5SF_MPI_FLAVOUR}")
set(H5SF_DEFAULT_MPI_FLAVOUR openmpi CACHE STRING
    "MPI family that the unsuffixed h5sf.pc, bin/h5sf-* and libh5sf_preload.so point at in an install of several")

set(H5SF_PACKAGE h5sf-${H5SF_MPI_FLAVOUR})
set(H5SF_CMAKE_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/${H5SF_PACKAGE})
set(H5SF_CMAKE_COMMON_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/h5sf)
set(H5SF_TOOLS_INSTALL_DIR ${H5SF_PLUGIN_INSTALL_DIR}/bin)
set(H5SF_PRELOAD_INSTALL_DIR ${H5SF_PLUGIN_INSTALL_DIR}/preload)

# h5sf_install_default_link(<link> <file>), both relative to the prefix:
# at install time <link> becomes a relative symbolic link to <file>, unless
# it links to another family's file and this is not the default family.
function(h5sf_install_default_link link file)
  get_filename_component(ldir "/p/${link}" DIRECTORY)
  file(RELATIVE_PATH rel "${ldir}" "/p/${file}")
  if(H5SF_MPI_FLAVOUR STREQUAL H5SF_DEFAULT_MPI_FLAVOUR)
    set(take TRUE)
  else()
    set(take FALSE)
  endif()
  string(CONFIGURE [=[
    set(_h5sf_l "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/@link@")
    set(_h5sf_old "")
    set(_h5sf_take @take@) # a variable: install scripts run without CMP0012
    if(IS_SYMLINK "${_h5sf_l}")
      file(READ_SYMLINK "${_h5sf_l}" _h5sf_old)
    endif()
    if(_h5sf_take OR _h5sf_old STREQUAL "" OR _h5sf_old STREQUAL "@rel@")
      message(STATUS "Installing: ${_h5sf_l} -> @rel@")
      get_filename_component(_h5sf_d "${_h5sf_l}" DIRECTORY)
      file(MAKE_DIRECTORY "${_h5sf_d}")
      file(REMOVE "${_h5sf_l}")
      file(CREATE_LINK "@rel@" "${_h5sf_l}" SYMBOLIC)
    else()
      message(STATUS "Keeping: ${_h5sf_l} -> ${_h5sf_old} (H5SF_DEFAULT_MPI_FLAVOUR=@H5SF_DEFAULT_MPI_FLAVOUR@)")
    endif()
    list(APPEND CMAKE_INSTALL_MANIFEST_FILES "${_h5sf_l}")
  ]=] code @ONLY)
  install(CODE "${code}")
endfunction()

# HDF5 and MPI usually sit outside the system paths (a module, a private
# prefix): installed binaries keep the directories they were linked with,
# so they run without LD_LIBRARY_PATH.  Tools are created after this file.
if(NOT DEFINED CMAKE_INSTALL_RPATH_USE_LINK_PATH)
  set(CMAKE_INSTALL_RPATH_USE_LINK_PATH ON)
endif()
set_target_properties(h5sf PROPERTIES INSTALL_RPATH_USE_LINK_PATH ${CMAKE_INSTALL_RPATH_USE_LINK_PATH})

include(${CMAKE_SOURCE_DIR}/preload/preload.cmake)

# ---- CMake packages -----------------------------------------------------
install(EXPORT h5sfTargets NAMESPACE h5sf:: FILE h5sfTargets.cmake DESTINATION ${H5SF_CMAKE_INSTALL_DIR})
# The same targets for a build tree (CMAKE_PREFIX_PATH=<build>).
export(EXPORT h5sfTargets NAMESPACE h5sf:: FILE ${CMAKE_BINARY_DIR}/h5sfTargets.cmake)

# This family's package, h5sf-<family>.  Where find_dependency(HDF5) should
# look first: the HDF5 we built against.
set(H5SF_HDF5_DIR_HINT "${HDF5_DIR}")
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/h5sf-flavourConfig.cmake.in
                              ${CMAKE_BINARY_DIR}/package/${H5SF_PACKAGE}Config.cmake
                              INSTALL_DESTINATION ${H5SF_CMAKE_INSTALL_DIR}
                              PATH_VARS H5SF_PLUGIN_INSTALL_DIR H5SF_PRELOAD_INSTALL_DIR H5SF_TOOLS_INSTALL_DIR)
# 0.x: minor versions may break the API.
write_basic_package_version_file(${CMAKE_BINARY_DIR}/package/${H5SF_PACKAGE}ConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/package/${H5SF_PACKAGE}Config.cmake
              ${CMAKE_BINARY_DIR}/package/${H5SF_PACKAGE}ConfigVersion.cmake
              ${CMAKE_SOURCE_DIR}/cmake/modules/h5sf_find_hdf5.cmake
              ${CMAKE_SOURCE_DIR}/cmake/modules/h5sf_mpi_flavour.cmake
        DESTINATION ${H5SF_CMAKE_INSTALL_DIR})
# The package h5sf, which picks a family's: nothing of this build in it.
configure_file(${CMAKE_SOURCE_DIR}/cmake/h5sfConfig.cmake.in ${CMAKE_BINARY_DIR}/package/h5sfConfig.cmake @ONLY)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/package/h5sfConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/package/h5sfConfig.cmake ${CMAKE_BINARY_DIR}/package/h5sfConfigVersion.cmake
              ${CMAKE_SOURCE_DIR}/cmake/modules/h5sf_mpi_flavour.cmake
        DESTINATION ${H5SF_CMAKE_COMMON_DIR})

# ---- pkg-config ---------------------------------------------------------
# Paths relative to the .pc file, so `cmake --install --prefix X` and moved
# trees work.  HDF5's flags are those of the HDF5 we built against (its own
# .pc has different names across distributions), with rpaths to it and to
# the plugin directory, which are rarely on the loader's path; MPI comes
# from mpicc.
file(RELATIVE_PATH H5SF_PC_TO_PREFIX ${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig ${CMAKE_INSTALL_PREFIX})
string(REGEX REPLACE "/$" "" H5SF_PC_TO_PREFIX "${H5SF_PC_TO_PREFIX}")
configure_file(${CMAKE_SOURCE_DIR}/cmake/h5sf.pc.in ${CMAKE_BINARY_DIR}/package/${H5SF_PACKAGE}.pc.gen @ONLY)
file(GENERATE OUTPUT ${CMAKE_BINARY_DIR}/package/${H5SF_PACKAGE}.pc INPUT ${CMAKE_BINARY_DIR}/package/${H5SF_PACKAGE}.pc.gen)
install(FILES ${CMAKE_BINARY_DIR}/package/${H5SF_PACKAGE}.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
h5sf_install_default_link(${CMAKE_INSTALL_LIBDIR}/pkgconfig/h5sf.pc ${CMAKE_INSTALL_LIBDIR}/pkgconfig/${H5SF_PACKAGE}.pc)

# ---- man pages and documentation ----------------------------------------
# Section 1 (the tools) is installed by tools/tools.cmake; this covers the
# other sections (e.g. the API in section 3).
file(GLOB H5SF_MAN_PAGES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/docs/man/*.[2-9])
foreach(page IN LISTS H5SF_MAN_PAGES)
  string(REGEX MATCH "[2-9]$" sec "${page}")
  install(FILES ${page} DESTINATION ${CMAKE_INSTALL_MANDIR}/man${sec})
endforeach()
install(DIRECTORY ${CMAKE_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}
        FILES_MATCHING PATTERN "*.md" REGEX "/examples/[^/]+\\.(c|sh)$"
        PATTERN "man" EXCLUDE)
