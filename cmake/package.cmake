# Packaging: what `cmake --install` adds beyond the plugin and header
# (CMakeLists.txt installs those) and the tools (tools/tools.cmake):
#   <libdir>/cmake/h5sf/   h5sfConfig.cmake, version file, h5sfTargets.cmake
#                          (imported target h5sf::h5sf, with HDF5 and MPI)
#   <libdir>/pkgconfig/    h5sf.pc
#   <libdir>/              libh5sf_preload.so (preload/preload.cmake)
#   <mandir>/man<N>/       docs/man/*.<N> for N = 2..9 (tools.cmake: section 1)
#   <docdir>/              docs/*.md and docs/examples/
# The library itself lives in <libdir>/hdf5/plugin, where HDF5 looks for
# plugins (HDF5_PLUGIN_PATH); the package files point there.
include(CMakePackageConfigHelpers)

set(H5SF_CMAKE_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/h5sf)

# HDF5 and MPI usually sit outside the system paths (a module, a private
# prefix): installed binaries keep the directories they were linked with,
# so they run without LD_LIBRARY_PATH.  Tools are created after this file.
if(NOT DEFINED CMAKE_INSTALL_RPATH_USE_LINK_PATH)
  set(CMAKE_INSTALL_RPATH_USE_LINK_PATH ON)
endif()
set_target_properties(h5sf PROPERTIES INSTALL_RPATH_USE_LINK_PATH ${CMAKE_INSTALL_RPATH_USE_LINK_PATH})

include(${CMAKE_SOURCE_DIR}/preload/preload.cmake)

# ---- CMake package ------------------------------------------------------
install(EXPORT h5sfTargets NAMESPACE h5sf:: FILE h5sfTargets.cmake DESTINATION ${H5SF_CMAKE_INSTALL_DIR})
# The same targets for a build tree (CMAKE_PREFIX_PATH=<build>).
export(EXPORT h5sfTargets NAMESPACE h5sf:: FILE ${CMAKE_BINARY_DIR}/h5sfTargets.cmake)

# Where find_dependency(HDF5) should look first: the HDF5 we built against.
set(H5SF_HDF5_DIR_HINT "${HDF5_DIR}")
set(H5SF_PLUGIN_SUBDIR hdf5/plugin)
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/h5sfConfig.cmake.in
                              ${CMAKE_BINARY_DIR}/package/h5sfConfig.cmake
                              INSTALL_DESTINATION ${H5SF_CMAKE_INSTALL_DIR}
                              PATH_VARS H5SF_PLUGIN_INSTALL_DIR CMAKE_INSTALL_LIBDIR CMAKE_INSTALL_BINDIR)
# 0.x: minor versions may break the API.
write_basic_package_version_file(${CMAKE_BINARY_DIR}/package/h5sfConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/package/h5sfConfig.cmake ${CMAKE_BINARY_DIR}/package/h5sfConfigVersion.cmake
              ${CMAKE_SOURCE_DIR}/cmake/modules/h5sf_find_hdf5.cmake
        DESTINATION ${H5SF_CMAKE_INSTALL_DIR})

# ---- pkg-config ---------------------------------------------------------
# Paths relative to the .pc file, so `cmake --install --prefix X` and moved
# trees work.  HDF5's flags are those of the HDF5 we built against (its own
# .pc has different names across distributions), with rpaths to it and to
# the plugin directory, which are rarely on the loader's path; MPI comes
# from mpicc.
file(RELATIVE_PATH H5SF_PC_TO_PREFIX ${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig ${CMAKE_INSTALL_PREFIX})
string(REGEX REPLACE "/$" "" H5SF_PC_TO_PREFIX "${H5SF_PC_TO_PREFIX}")
configure_file(${CMAKE_SOURCE_DIR}/cmake/h5sf.pc.in ${CMAKE_BINARY_DIR}/package/h5sf.pc.gen @ONLY)
file(GENERATE OUTPUT ${CMAKE_BINARY_DIR}/package/h5sf.pc INPUT ${CMAKE_BINARY_DIR}/package/h5sf.pc.gen)
install(FILES ${CMAKE_BINARY_DIR}/package/h5sf.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

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
