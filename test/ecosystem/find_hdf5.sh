#!/usr/bin/env bash
# find_hdf5.sh -- h5sf builds against an HDF5 found without CMake package
# files, the way an autotools install offers it, and the plugin it makes
# loads and writes a file.
#
#   find_hdf5.sh WAY SRC WORK HDF5_BIN_DIR MPIEXEC EXAMPLE_EXE [C_COMPILER]
#
# WAY is pkgconfig (hdf5.pc only) or wrapper (h5pcc -showconfig only).
# WORK gets a view of the HDF5 prefix without its cmake/ directory (so the
# package files cannot be what is found), a build of the h5sf plugin from
# SRC with H5SF_HDF5_FIND=WAY, and a run of the by-name example (it loads
# the plugin from HDF5_PLUGIN_PATH) through run_example.sh.  C_COMPILER
# (default mpicc) must be of the MPI that HDF5 was built with: a plugin of
# the other MPI refuses to load.
set -uo pipefail
way=$1 src=$2 work=$3 bindir=$4 mpiexec=$5 exe=$6 cc=${7:-mpicc}
prefix=$(cd "$bindir/.." && pwd)
rm -rf "$work" && mkdir -p "$work/view" || exit 1
for d in bin include lib; do ln -s "$prefix/$d" "$work/view/$d"; done
env=(CMAKE_PREFIX_PATH= HDF5_DIR= PKG_CONFIG_PATH= "PATH=$PATH")
case "$way" in
    pkgconfig) env+=("PKG_CONFIG_PATH=$work/view/lib/pkgconfig") ;;
    wrapper) env+=("PATH=$work/view/bin:$PATH") ;;
    *) echo "unknown way $way"; exit 2 ;;
esac
env "${env[@]}" cmake -S "$src" -B "$work/build" -DCMAKE_C_COMPILER="$cc" -DH5SF_HDF5_FIND="$way" \
    >"$work/configure.log" 2>&1 || { tail -30 "$work/configure.log"; echo "FAIL: configure"; exit 1; }
grep -q "found by $way" "$work/configure.log" || { grep -i hdf5 "$work/configure.log"; echo "FAIL: not found by $way"; exit 1; }
cmake --build "$work/build" -j2 --target h5sf >"$work/build.log" 2>&1 || { tail -30 "$work/build.log"; echo "FAIL: build"; exit 1; }
# The plugin links the HDF5 of that prefix, not another one.
# (ldd's output is kept first: under pipefail, grep -q quitting at the first
# match could fail the pipeline with ldd's SIGPIPE.)
libs=$(ldd "$work/build/lib/libh5sf.so")
grep -Fe "$prefix/lib/libhdf5.so" -e "$work/view/lib/libhdf5.so" -q <<<"$libs" ||
    { echo "$libs"; echo "FAIL: plugin does not link $prefix/lib/libhdf5"; exit 1; }
HDF5_PLUGIN_PATH="$work/build/lib" bash "$(dirname "$0")/run_example.sh" "$mpiexec" 2 "$work/run" by_name.h5 3 "$exe" ||
    { echo "FAIL: the plugin built by $way did not write the example file"; exit 1; }
grep -m1 "found by" "$work/configure.log"
rm -rf "$work"
echo "find_hdf5.sh: $way OK"
