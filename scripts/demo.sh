#!/usr/bin/env bash
# Build the plugin and the demo program (bootstrapping HDF5 if needed), then
# write, read back and verify a small subfiled file with 4 MPI ranks and show
# what it looks like on disk.
#   scripts/demo.sh [dir]      (default dir: /tmp/h5sf-demo)
#   H5SF_DEMO_NP=N             number of ranks (default 4)
# Installs and builds only what it runs: a minimal bootstrap (the compiler,
# CMake, one MPI, libuv, zlib; HDF5 without its test programs) and the
# targets h5sf and h5sf_demo in the build directory that scripts/test.sh
# then completes.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dir="${1:-/tmp/h5sf-demo}"
np="${H5SF_DEMO_NP:-4}"

H5SF_BOOTSTRAP="${H5SF_BOOTSTRAP:-minimal}" H5SF_BUILD_TARGET="h5sf h5sf_demo" "$root/scripts/build.sh"
source "$root/scripts/env.sh"

mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"
# Subfile names carry the stub's inode, so a rerun would leave the old set
# behind: start clean.
rm -f "$dir"/demo.h5 "$dir"/demo.h5.subfile_*

echo
echo "== mpiexec -n $np h5sf_demo $dir"
mpiexec -n "$np" $H5SF_MPIEXEC_FLAGS "$H5SF_BUILD_DIR/bin/h5sf_demo" "$dir"

echo
echo "== files (allocated KiB, then apparent size; the stub is sparse)"
ls -ls "$dir"/demo.h5 "$dir"/demo.h5.subfile_*
cfg=$(ls "$dir"/demo.h5.subfile_*.config 2>/dev/null | head -1 || true)
if [ -n "$cfg" ]; then
    echo
    echo "== $(basename "$cfg")"
    cat "$cfg"
fi

echo
echo "== h5ls -r --vfd-name=h5sf $dir/demo.h5"
if ! timeout 120 h5ls -r --vfd-name=h5sf "$dir/demo.h5"; then
    echo "(h5ls could not open the file through h5sf; the file listing above shows the layout)"
fi
