# Command-line tools: every tools/h5sf-*.c is one program.  They share
# tools/toolkit.c (layout on disk, logical I/O, copies), tools/tkname.c
# (untrusted names: classifying, printing escaped) and common/sblock.c
# (driver info on top of common/superblock.c), and make no HDF5 calls: they read the bytes
# themselves, so they also describe files HDF5 cannot open.  h5sf-fuse uses
# MPI when started by mpiexec.
add_library(h5sf_tools STATIC ${CMAKE_SOURCE_DIR}/tools/toolkit.c ${CMAKE_SOURCE_DIR}/tools/tkname.c)
target_include_directories(h5sf_tools PUBLIC ${CMAKE_SOURCE_DIR}/tools)
target_link_libraries(h5sf_tools PUBLIC h5sf_common)

file(GLOB H5SF_TOOL_SRC CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tools/h5sf-*.c)
foreach(src IN LISTS H5SF_TOOL_SRC)
  get_filename_component(t ${src} NAME_WE)
  add_executable(${t} ${src})
  target_link_libraries(${t} PRIVATE h5sf_tools h5sf_common MPI::MPI_C PkgConfig::UV Threads::Threads)
  # Under the MPI family's directory (cmake/package.cmake); bin/ links to
  # the default family's.
  install(TARGETS ${t} RUNTIME DESTINATION ${H5SF_TOOLS_INSTALL_DIR})
  h5sf_install_default_link(${CMAKE_INSTALL_BINDIR}/${t} ${H5SF_TOOLS_INSTALL_DIR}/${t})
endforeach()

# Man pages (groff sources in docs/man).
file(GLOB H5SF_TOOL_MAN CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/docs/man/*.1)
install(FILES ${H5SF_TOOL_MAN} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
