# source scripts/env.sh -- HDF5 tools, h5sf tools and plugin on the paths.
# Works from bash and zsh; respects H5SF_BUILD_DIR (default: <repo>/build).
_h5sf_root="$(cd "$(dirname "${BASH_SOURCE[0]:-$0}")/.." && pwd)"
H5SF_CACHE="${H5SF_CACHE:-$HOME/.cache/h5sf}"
H5SF_HDF5_PREFIX="${H5SF_HDF5_PREFIX:-$H5SF_CACHE/hdf5-1.14.5+repack-3-openmpi}"
H5SF_BUILD_DIR="${H5SF_BUILD_DIR:-$_h5sf_root/build}"
export H5SF_HDF5_PREFIX H5SF_BUILD_DIR
export PATH="$H5SF_BUILD_DIR/bin:$H5SF_HDF5_PREFIX/bin:$PATH"
export LD_LIBRARY_PATH="$H5SF_HDF5_PREFIX/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export HDF5_PLUGIN_PATH="$H5SF_BUILD_DIR/lib${HDF5_PLUGIN_PATH:+:$HDF5_PLUGIN_PATH}"
# Open MPI on a small shared machine, possibly as root, possibly in a container.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_rmaps_base_oversubscribe=1
unset _h5sf_root
