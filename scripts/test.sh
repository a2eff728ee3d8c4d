#!/usr/bin/env bash
# Build and run every test:
#   1. normal build in build/, all tests:                  ctest
#   2. ASan + UBSan build in build-asan/, tests labelled asan: ctest -L asan
#   3. ThreadSanitizer build in build-tsan/ (only the targets its tests need,
#      tsan_tests), tests labelled tsan: ctest -L tsan; well under a minute
#   4. MPICH: HDF5 1.14.5 built with MPICH, normal build in build-mpich/
#      (made before stage 1, whose cross-MPI tests use it), all tests less
#      the labels fuzz and once (H5SF_MPI=mpich; every MPI
#      test preloads test/mpich_yield.c, as MPICH spins while it waits);
#      H5SF_SKIP_MPICH=1 leaves the stage out
#   5. clients: netCDF-C's and CGNS's own tests through the MPI-IO redirect,
#      once per MPI (scripts/client-suites.sh, builds cached; not with extra
#      arguments, nor with H5SF_SKIP_CLIENTS=1); one line each,
#      "== clients (<MPI>): ..."
#   6. scripts/test-versions.sh: HDF5 1.14.6 and 2.x, normal builds, full
#      ctest (not with extra arguments, nor with H5SF_SKIP_OTHER_HDF5=1)
#   7. scripts/h5py-suite.sh: h5py's own test suite and a 4-rank h5py
#      program in the HDF5 2.x root, "== clients (h5py): ..." (not with
#      extra arguments, nor with H5SF_SKIP_CLIENTS=1 or H5SF_SKIP_OTHER_HDF5=1)
# One line per HDF5 version: "== HDF5 <version> (<MPI>): all tests passed"
# or ": FAILURES".
# Tests run H5SF_CTEST_JOBS at a time (default: the number of cores);
# HDF5's own programs (label conformance) run alone, RUN_SERIAL.
# Exits non-zero if any build or any test fails.  Extra arguments go to every
# ctest run (e.g. scripts/test.sh -R t_config).
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
status=0
# Stage headers carry the seconds since the script started, so a log shows
# where CI time goes.
stage() { echo "== $* [${SECONDS}s]"; }

run_ctest() { # build_dir, ctest args...  (H5SF_MPI picks the MPI)
    local dir="$1"; shift
    (
        export H5SF_BUILD_DIR="$dir"
        source "$root/scripts/env.sh"
        # Open MPI leaks at exit; UBSan should say where.
        export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}"
        export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}"
        cd "$dir" && ctest --output-on-failure -j "${H5SF_CTEST_JOBS:-$(nproc)}" "$@"
    )
}

# The three builds, the HDF5 cache and the largest test file (512 MiB) take
# about 2 GiB.  Say so up front: a full disk otherwise shows up as ENOSPC in
# whichever test runs out first.
free_mib=$(df -Pm "$root" | awk 'NR == 2 { print $4 }')
if [ -n "$free_mib" ] && [ "$free_mib" -lt 2048 ]; then
    echo "warning: only $free_mib MiB free under $root; the suite needs about 2 GiB" >&2
fi

# The MPICH build first: the Open MPI suite's cross-MPI tests (label
# crossmpi) load its plugin and run its programs.
mpich_built=0
if [ "${H5SF_SKIP_MPICH:-0}" != 1 ]; then
    stage "MPICH build (build-mpich/)"
    if H5SF_MPI=mpich H5SF_SANITIZE=0 H5SF_BUILD_DIR="$root/build-mpich" "$root/scripts/build.sh"; then
        mpich_built=1
    else
        echo "MPICH build failed" >&2
        status=1
    fi
fi

stage "build (build/)"
built=0
if H5SF_SANITIZE=0 H5SF_BUILD_DIR="$root/build" "$root/scripts/build.sh"; then
    built=1
    stage "ctest (build/)"
    run_ctest "$root/build" "$@" || status=1
else
    echo "build failed" >&2
    status=1
fi

stage "ASan/UBSan build (build-asan/)"
if H5SF_SANITIZE=1 H5SF_BUILD_DIR="$root/build-asan" "$root/scripts/build.sh"; then
    stage "ctest -L asan (build-asan/)"
    run_ctest "$root/build-asan" -L asan "$@" || status=1
else
    echo "ASan build failed" >&2
    status=1
fi

stage "TSan build (build-tsan/)"
if H5SF_SANITIZE=thread H5SF_BUILD_TARGET=tsan_tests H5SF_BUILD_DIR="$root/build-tsan" "$root/scripts/build.sh"; then
    stage "ctest -L tsan (build-tsan/)"
    run_ctest "$root/build-tsan" -L tsan "$@" || status=1
else
    echo "TSan build failed" >&2
    status=1
fi

cache="${H5SF_CACHE:-$HOME/.cache/h5sf}"
hdf5_ver() { awk '/define H5_VERSION /{gsub(/"/,"",$3); print $3}' "$cache/hdf5-1.14.5+repack-3-$1/include/H5pubconf.h"; }
mpi_ver=$(mpirun.openmpi --version 2>/dev/null | head -1 | sed -E 's/^[^(]*\(([^)]*)\) *(.*)$/\1 \2/')
if [ "$status" -eq 0 ]; then echo "== HDF5 $(hdf5_ver openmpi) ($mpi_ver): all tests passed"
else echo "== HDF5 $(hdf5_ver openmpi) ($mpi_ver): FAILURES"; fi

if [ "$mpich_built" = 1 ]; then
    # Less fuzz (common/ only: no MPI in it) and "once" (t_huge: h5sf's own
    # bounds), as under the other HDF5 versions.
    mpich_skip='fuzz|once'
    stage "ctest -LE '$mpich_skip' (build-mpich/)"
    mpich_status=0
    H5SF_MPI=mpich run_ctest "$root/build-mpich" -LE "$mpich_skip" "$@" || mpich_status=1
    mpi_ver=$(mpichversion 2>/dev/null | awk '/^MPICH Version:/ { print "MPICH " $3 }')
    if [ "$mpich_status" -eq 0 ]; then
        echo "== HDF5 $(hdf5_ver mpich) ($mpi_ver): all tests passed"
    else
        echo "== HDF5 $(hdf5_ver mpich) ($mpi_ver): FAILURES"
        status=1
    fi
fi

if [ $# -eq 0 ] && [ "${H5SF_SKIP_CLIENTS:-0}" != 1 ]; then
    # A failed build fails the run already; its clients line would only repeat it.
    if [ "$built" = 1 ]; then
        stage "clients (Open MPI)"
        H5SF_MPI=openmpi H5SF_BUILD_DIR="$root/build" "$root/scripts/client-suites.sh" || status=1
    fi
    if [ "$mpich_built" = 1 ]; then
        stage "clients (MPICH)"
        H5SF_MPI=mpich H5SF_BUILD_DIR="$root/build-mpich" "$root/scripts/client-suites.sh" || status=1
    fi
fi

if [ $# -eq 0 ] && [ "${H5SF_SKIP_OTHER_HDF5:-0}" != 1 ]; then
    "$root/scripts/test-versions.sh" || status=1
    if [ "${H5SF_SKIP_CLIENTS:-0}" != 1 ]; then
        stage "clients (h5py, HDF5 2.x root)"
        "$root/scripts/h5py-suite.sh" || status=1
    fi
fi

if [ "$status" -eq 0 ]; then echo "== all tests passed"; else echo "== FAILURES (see above)" >&2; fi
exit "$status"
