# Command-line tools: HDF5-free ones link only common/ (+ libuv).
file(GLOB H5SF_TOOL_SRC CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tools/h5sf-*.c)
foreach(src IN LISTS H5SF_TOOL_SRC)
  get_filename_component(t ${src} NAME_WE)
  add_executable(${t} ${src})
  target_link_libraries(${t} PRIVATE h5sf_common PkgConfig::UV Threads::Threads)
  install(TARGETS ${t} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endforeach()
