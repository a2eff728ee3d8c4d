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
cmake -S "$root" -B "$H5SF_BUILD_DIR" -DCMAKE_PREFIX_PATH="$H5SF_HDF5_PREFIX" \
      -DCMAKE_C_COMPILER="$H5SF_MPI_BIN/mpicc" -DMPIEXEC_EXECUTABLE="$(readlink -f "$H5SF_MPI_BIN/mpiexec")" -DH5SF_SANITIZE="${H5SF_SANITIZE:-0}" >/dev/null
# shellcheck disable=SC2086 # H5SF_BUILD_TARGET is a list
cmake --build "$H5SF_BUILD_DIR" -j"$(nproc)" ${H5SF_BUILD_TARGET:+--target $H5SF_BUILD_TARGET}
