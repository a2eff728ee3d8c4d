#!/usr/bin/env bash
# Configure and build h5sf (bootstraps first if needed).
#   H5SF_MPI        openmpi (default) or mpich (scripts/env.sh)
#   H5SF_BUILD_DIR  build directory (default build/, MPICH build-mpich/)
#   H5SF_SANITIZE=1 AddressSanitizer + UBSan build; =thread ThreadSanitizer
#   H5SF_BUILD_TARGET  build only these targets, separated by spaces (default: all)
#   H5SF_BOOTSTRAP  full (default) or minimal (scripts/bootstrap.sh)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/bootstrap.sh"
source "$root/scripts/env.sh"
# ccache, where installed (the full bootstrap installs it), in the project's
# cache: scripts/test.sh builds h5sf five times on every run, and a fresh
# clone in the same place compiles nothing again.  No CCACHE_BASEDIR: h5sf's
# error entries carry absolute source paths (__FILE__), which tests read.
launcher=()
if command -v ccache >/dev/null; then
    export CCACHE_DIR="${CCACHE_DIR:-${H5SF_CACHE:-$HOME/.cache/h5sf}/ccache}"
    launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi
cmake -S "$root" -B "$H5SF_BUILD_DIR" "${launcher[@]}" -DCMAKE_PREFIX_PATH="$H5SF_HDF5_PREFIX" \
      -DCMAKE_C_COMPILER="$H5SF_MPI_BIN/mpicc" -DMPIEXEC_EXECUTABLE="$(readlink -f "$H5SF_MPI_BIN/mpiexec")" -DH5SF_SANITIZE="${H5SF_SANITIZE:-0}" >/dev/null
# shellcheck disable=SC2086 # H5SF_BUILD_TARGET is a list
cmake --build "$H5SF_BUILD_DIR" -j"$(nproc)" ${H5SF_BUILD_TARGET:+--target $H5SF_BUILD_TARGET}
