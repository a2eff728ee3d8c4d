# t_openfail: an allocation that fails on one rank only while h5sf opens a
# file (H5SF_FAULT op nomem-topo: choosing the IOCs; nomem-plan: the stripe
# plan; nomem-ctx: a new IOC context, IOC channel only; nomem-chan: both
# channel tables, so that the failed open's cleanup has neither) fails the open on
# every rank with the reason, and the next open works; an alarm turns a
# hang into a failure.
add_executable(t_openfail ${CMAKE_CURRENT_SOURCE_DIR}/t_openfail.c)
target_link_libraries(t_openfail PRIVATE h5sf hdf5::hdf5-shared)
foreach(site topo plan ctx chan)
  set(chans direct ioc)
  if(site STREQUAL "ctx")
    set(chans ioc)
  endif()
  foreach(ch IN LISTS chans)
    foreach(np 2 3)
      math(EXPR last "${np} - 1")
      set(name t_openfail_${site}_${ch}_np${np})
      h5sf_mpi_test(${name} t_openfail ${np} ${CMAKE_CURRENT_BINARY_DIR}/work/${name}
                    ENV "H5SF_FAULT=op=nomem-${site},rank=${last},count=1" "H5SF_CHANNEL=${ch}")
      set_tests_properties(${name} PROPERTIES TIMEOUT 120)
    endforeach()
  endforeach()
endforeach()
