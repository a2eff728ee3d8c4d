# source scripts/env.sh -- HDF5 tools, h5sf tools and plugin on the paths.
# Works from bash and zsh.
#   H5SF_MPI        openmpi (default) or mpich: which MPI, and with it which
#                   HDF5 build and which h5sf build directory
#   H5SF_BUILD_DIR  default <repo>/build (Open MPI), <repo>/build-mpich (MPICH)
# Both MPIs are installed side by side (Debian's alternatives keep `mpicc`
# and `mpiexec` on Open MPI), so the chosen one's mpicc, mpiexec and mpirun
# come first on PATH, from a directory of links under the cache.
# H5SF_MPIEXEC_FLAGS holds what its mpiexec needs on this small shared
# machine (Open MPI: --oversubscribe; MPICH's Hydra allows it anyway and
# rejects the flag).
_h5sf_root="$(cd "$(dirname "${BASH_SOURCE[0]:-$0}")/.." && pwd)"
H5SF_CACHE="${H5SF_CACHE:-$HOME/.cache/h5sf}"
H5SF_MPI="${H5SF_MPI:-openmpi}"
case "$H5SF_MPI" in
    openmpi) _h5sf_build="$_h5sf_root/build"; H5SF_MPIEXEC_FLAGS="--oversubscribe" ;;
    mpich)   _h5sf_build="$_h5sf_root/build-mpich"; H5SF_MPIEXEC_FLAGS="" ;;
    *) echo "env.sh: H5SF_MPI must be openmpi or mpich, not '$H5SF_MPI'" >&2; return 2 2>/dev/null || exit 2 ;;
esac
H5SF_HDF5_PREFIX="${H5SF_HDF5_PREFIX:-$H5SF_CACHE/hdf5-1.14.5+repack-3-$H5SF_MPI}"
H5SF_BUILD_DIR="${H5SF_BUILD_DIR:-$_h5sf_build}"
H5SF_MPI_BIN="$H5SF_CACHE/mpi-bin-$H5SF_MPI"
# Hydra starts hydra_pmi_proxy from the directory it was called from.
if [ -x "/usr/bin/mpiexec.$H5SF_MPI" ]; then
    mkdir -p "$H5SF_MPI_BIN"
    for _h5sf_t in mpicc mpiexec mpirun; do
        [ -e "$H5SF_MPI_BIN/$_h5sf_t" ] || ln -sf "/usr/bin/$_h5sf_t.$H5SF_MPI" "$H5SF_MPI_BIN/$_h5sf_t"
    done
    [ "$H5SF_MPI" != mpich ] || [ -e "$H5SF_MPI_BIN/hydra_pmi_proxy" ] ||
        ln -sf /usr/bin/hydra_pmi_proxy "$H5SF_MPI_BIN/hydra_pmi_proxy"
fi
export H5SF_MPI H5SF_HDF5_PREFIX H5SF_BUILD_DIR H5SF_MPI_BIN H5SF_MPIEXEC_FLAGS
export PATH="$H5SF_BUILD_DIR/bin:$H5SF_HDF5_PREFIX/bin:$H5SF_MPI_BIN:$PATH"
export LD_LIBRARY_PATH="$H5SF_HDF5_PREFIX/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export HDF5_PLUGIN_PATH="$H5SF_BUILD_DIR/lib${HDF5_PLUGIN_PATH:+:$HDF5_PLUGIN_PATH}"
# Open MPI on a small shared machine, possibly as root, possibly in a container.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_rmaps_base_oversubscribe=1
unset _h5sf_root _h5sf_build _h5sf_t
