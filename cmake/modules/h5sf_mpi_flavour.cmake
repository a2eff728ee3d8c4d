# h5sf_mpi_flavour.cmake -- which MPI family a build uses, in one place.
#
# Open MPI and MPICH (with MPICH's derivatives: Intel MPI, MVAPICH, Cray
# MPICH, which share its ABI) are not interchangeable at run time, so a
# plugin, its package files and its tools exist once per family, each named
# by the family ("flavour"): openmpi or mpich.
#
# Finds MPI (C) if the including project has not, asking FindMPI for the
# library's version string (MPI_C_LIBRARY_VERSION_STRING).  Sets:
#   H5SF_MPI_FLAVOUR    openmpi | mpich (from the version string, else from
#                       mpi.h's macros), "" for an MPI of neither family;
#                       preset it (-DH5SF_MPI_FLAVOUR=name) to name one
#   H5SF_MPIEXEC_FLAGS  a list: what this family's mpiexec needs to start
#                       more ranks than cores ("--oversubscribe" for Open
#                       MPI; nothing for MPICH's Hydra, which rejects it)
# and defines h5sf_mpi_flavour_label(<flavour> <out>) ("Open MPI", "MPICH")
# and h5sf_mpiexec_flags(<flavour> <out>).  Used by h5sf's own build and
# installed for h5sfConfig.cmake, which picks the plugin of the consuming
# project's MPI.
# (In an install of both families, the unsuffixed names point at the files
# of the cache variable H5SF_DEFAULT_MPI_FLAVOUR's, default openmpi:
# cmake/package.cmake.)
include_guard(GLOBAL)

function(h5sf_mpiexec_flags flavour out)
  if(flavour STREQUAL "openmpi")
    set(${out} "--oversubscribe" PARENT_SCOPE)
  else()
    set(${out} "" PARENT_SCOPE)
  endif()
endfunction()

function(h5sf_mpi_flavour_label flavour out)
  if(flavour STREQUAL "openmpi")
    set(${out} "Open MPI" PARENT_SCOPE)
  elseif(flavour STREQUAL "mpich")
    set(${out} "MPICH" PARENT_SCOPE)
  else()
    set(${out} "${flavour}" PARENT_SCOPE)
  endif()
endfunction()

if(NOT TARGET MPI::MPI_C)
  set(MPI_DETERMINE_LIBRARY_VERSION TRUE)
  find_package(MPI REQUIRED COMPONENTS C)
endif()

if(NOT H5SF_MPI_FLAVOUR)
  # The version string, when FindMPI ran MPI_Get_library_version ...
  if(MPI_C_LIBRARY_VERSION_STRING MATCHES "Open MPI")
    set(H5SF_MPI_FLAVOUR openmpi)
  elseif(MPI_C_LIBRARY_VERSION_STRING MATCHES "MPICH|MVAPICH|Intel\\(R\\) MPI")
    set(H5SF_MPI_FLAVOUR mpich)
  else()
    # ... else the header (a project that found MPI without the version, a
    # cross compile): the same macros vfd/plugin.c tests.
    include(CheckSymbolExists)
    set(CMAKE_REQUIRED_LIBRARIES MPI::MPI_C)
    set(CMAKE_REQUIRED_QUIET ON)
    check_symbol_exists(OMPI_MAJOR_VERSION mpi.h H5SF_MPI_HAS_OMPI_VERSION)
    check_symbol_exists(MPICH_VERSION mpi.h H5SF_MPI_HAS_MPICH_VERSION)
    unset(CMAKE_REQUIRED_LIBRARIES)
    unset(CMAKE_REQUIRED_QUIET)
    if(H5SF_MPI_HAS_OMPI_VERSION)
      set(H5SF_MPI_FLAVOUR openmpi)
    elseif(H5SF_MPI_HAS_MPICH_VERSION)
      set(H5SF_MPI_FLAVOUR mpich)
    else()
      set(H5SF_MPI_FLAVOUR "") # h5sf's own build stops there (cmake/package.cmake)
    endif()
  endif()
endif()
h5sf_mpiexec_flags("${H5SF_MPI_FLAVOUR}" H5SF_MPIEXEC_FLAGS)
