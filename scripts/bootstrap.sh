#!/usr/bin/env bash
# Idempotent setup: Debian packages, then parallel HDF5 built from a Debian
# source package into a versioned cache prefix.
#
#   scripts/bootstrap.sh [VERSION]   VERSION (or H5SF_HDF5_VERSION):
#     1.14.5  (default) hdf5=1.14.5+repack-3 of trixie, into
#             $CACHE/hdf5-1.14.5+repack-3-<MPI>.  HDF5's own test/ and
#             testpar/ programs are built in the same tree (kept in
#             $CACHE/hdf5-build, $CACHE/hdf5-build-mpich) for the conformance suite
#             (scripts/conformance.sh), with the harness patch from
#             test/conformance/ applied to test/h5test.c.
#     1.14.6  hdf5=1.14.6+repack-2 of unstable, into
#             $CACHE/hdf5-1.14.6+repack-2-openmpi; library and tools only
#             (build tree $CACHE/hdf5-1.14.6+repack-2-build).
#   H5SF_MPI=openmpi (default) or mpich: the MPI HDF5 is built with (1.14.5
#             only); a full bootstrap installs both MPIs' Debian packages.
#   H5SF_BOOTSTRAP=full (default) or minimal: minimal (scripts/demo.sh) installs
#             only what building the plugin and running it with that MPI
#             needs, and builds HDF5 without its test programs; a later full
#             bootstrap installs the rest and builds the test programs in the
#             same HDF5 build tree (the library is not rebuilt).
# Prints nothing on stdout; the prefix is $CACHE/hdf5-<Debian version>-<MPI>.
#
# The deb-src line is derived at run time from the mirror URI already in the
# machine's apt sources, so no registry host name lives in this repository.
set -euo pipefail

CACHE="${H5SF_CACHE:-$HOME/.cache/h5sf}"
# One bootstrap at a time per cache: two builds (a test run and a build in
# another checkout) in one HDF5 build tree corrupt each other, and apt
# refuses a second install.  The next one waits, then finds the work done.
mkdir -p "$CACHE"
exec 9>"$CACHE/.bootstrap.lock"
if ! flock -n 9; then
    printf '[bootstrap] waiting for another bootstrap of %s to finish\n' "$CACHE" >&2
    flock 9
fi
MPI="${H5SF_MPI:-openmpi}"
MODE="${H5SF_BOOTSTRAP:-full}"
case "$MODE" in
    full|minimal) ;;
    *) echo "bootstrap: H5SF_BOOTSTRAP must be full or minimal, not '$MODE'" >&2; exit 2 ;;
esac
case "$MPI" in
    openmpi) MPICC=mpicc.openmpi; MPISFX="" ;;
    mpich)   MPICC=mpicc.mpich; MPISFX="-mpich" ;;
    *) echo "bootstrap: H5SF_MPI must be openmpi or mpich, not '$MPI'" >&2; exit 2 ;;
esac
case "${1:-${H5SF_HDF5_VERSION:-1.14.5}}" in
    1.14.5) HDF5_DEB_VERSION="1.14.5+repack-3"; SUITE=trixie; WITH_TESTS=1
            APTDIR="$CACHE/apt"; SRCDIR="$CACHE/src"; BUILD="$CACHE/hdf5-build$MPISFX"; LOGS="$CACHE/hdf5$MPISFX" ;;
    1.14.6) [ "$MPI" = openmpi ] || { echo "bootstrap: HDF5 1.14.6 is built with Open MPI only" >&2; exit 2; }
            HDF5_DEB_VERSION="1.14.6+repack-2"; SUITE=unstable; WITH_TESTS=0
            APTDIR="$CACHE/apt-unstable-src"; SRCDIR="$CACHE/src-$HDF5_DEB_VERSION"
            BUILD="$CACHE/hdf5-$HDF5_DEB_VERSION-build"; LOGS="$BUILD" ;;
    *) echo "bootstrap: unknown HDF5 version ${1:-$H5SF_HDF5_VERSION} (1.14.5 or 1.14.6)" >&2; exit 2 ;;
esac
PREFIX="$CACHE/hdf5-${HDF5_DEB_VERSION}-$MPI"
# Debian's alternatives keep mpicc and mpiexec on Open MPI (its priority is
# the higher); MPICH is reached by its own names (mpicc.mpich,
# mpiexec.mpich) or through scripts/env.sh.  Slurm and munge are for the
# single-machine test cluster (scripts/slurm-cluster.sh); no daemon is
# started here.  m4 is for netCDF-C's build (scripts/client-suites.sh);
# ccache keeps the test suite's five builds of h5sf (scripts/build.sh).
# MIN_PKGS: the compiler, CMake, libuv and zlib, and what fetching and
# unpacking HDF5's source takes (apt-get source --download-only, tar); with
# the packages of one MPI, that is all a minimal bootstrap installs.
MIN_PKGS=(gcc libc6-dev make cmake pkg-config libuv1-dev zlib1g-dev xz-utils)
OPENMPI_PKGS=(libopenmpi-dev openmpi-bin)
MPICH_PKGS=(mpich libmpich-dev)
PKGS=("${MIN_PKGS[@]}" "${OPENMPI_PKGS[@]}" "${MPICH_PKGS[@]}" build-essential slurm-wlm munge dpkg-dev clang
      libclang-rt-14-dev clang-format iproute2 gnuplot-nox python3 fuse3 libfuse3-dev gdb m4 ccache)
if [ "$MODE" = minimal ]; then
    if [ "$MPI" = openmpi ]; then PKGS=("${MIN_PKGS[@]}" "${OPENMPI_PKGS[@]}")
    else PKGS=("${MIN_PKGS[@]}" "${MPICH_PKGS[@]}"); fi
    WITH_TESTS=0
fi

log() { printf '[bootstrap] %s\n' "$*" >&2; }
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"

missing=()
for p in "${PKGS[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep "install ok installed" >/dev/null || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    log "installing: ${missing[*]}"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
HARNESS_PATCH="$ROOT/test/conformance/hdf5-harness.patch"
# The test build is current when it was made with this harness patch.
patch_sum=$( [ -f "$HARNESS_PATCH" ] && sha256sum <"$HARNESS_PATCH" | cut -c1-16 || echo none)
if [ -f "$PREFIX/.complete" ] && [ "$WITH_TESTS" = 0 ]; then
    log "HDF5 ${HDF5_DEB_VERSION} already in $PREFIX"
    exit 0
fi
if [ -f "$PREFIX/.complete" ] && [ -f "$BUILD/.tests-complete" ]; then
    if [ "$(cat "$BUILD/.tests-complete")" = "$patch_sum" ]; then
        log "HDF5 ${HDF5_DEB_VERSION} already in $PREFIX"
        exit 0
    fi
    # Only test/h5test.c changed: restore it, patch it, rebuild libhdf5_test.
    log "harness patch changed: rebuilding HDF5's test library"
    orig=$(mktemp -d)
    tar -xf "$SRCDIR"/hdf5_${HDF5_DEB_VERSION%%+*}*.orig.tar.* -C "$orig" --wildcards '*/test/h5test.c'
    cp "$orig"/*/test/h5test.c "$SRCDIR/hdf5-src/test/h5test.c" && rm -rf "$orig"
    patch -d "$SRCDIR/hdf5-src" -p1 -s -f <"$HARNESS_PATCH" || { log "harness patch does not apply"; exit 1; }
    cmake --build "$BUILD" -j"$(nproc)" --target hdf5_test-shared >>"$LOGS-build.log" 2>&1 \
        || { tail -40 "$LOGS-build.log"; exit 1; }
    echo "$patch_sum" >"$BUILD/.tests-complete"
    exit 0
fi

# --- mirror URI from the machine's own apt configuration ------------------
source "$ROOT/scripts/lib/apt-private.sh"
MIRROR=$(mirror_uri) || { log "no Debian mirror found in apt sources"; exit 1; }
log "mirror: $MIRROR"

mkdir -p "$SRCDIR"
private_apt "$APTDIR" "deb-src [trusted=yes] $MIRROR $SUITE main"

cd "$SRCDIR"
if ! ls hdf5_${HDF5_DEB_VERSION%%+*}*.orig.tar.* >/dev/null 2>&1; then
    log "fetching hdf5=${HDF5_DEB_VERSION} source"
    apt-get update -qq
    apt-get source --download-only "hdf5=${HDF5_DEB_VERSION}" >/dev/null
fi
if [ ! -d hdf5-src ]; then
    rm -rf hdf5-unpack && mkdir hdf5-unpack
    tar -xf hdf5_${HDF5_DEB_VERSION%%+*}*.orig.tar.* -C hdf5-unpack
    mv "hdf5-unpack/$(ls hdf5-unpack | head -1)" hdf5-src && rm -rf hdf5-unpack
fi

# The harness patch only touches test/ (never the library), so it can be
# applied to the shared source tree; reverse-applies cleanly means done.
if [ "$WITH_TESTS" = 1 ] && [ -f "$HARNESS_PATCH" ] && ! patch -d hdf5-src -p1 -R --dry-run -s -f <"$HARNESS_PATCH" >/dev/null 2>&1; then
    patch -d hdf5-src -p1 -s -f <"$HARNESS_PATCH" || { log "harness patch does not apply"; exit 1; }
fi

if [ "$WITH_TESTS" = 1 ] && [ -f "$PREFIX/.complete" ] && [ -f "$BUILD/CMakeCache.txt" ]; then
    # Installed without the test programs (a minimal bootstrap, or an older
    # one): add them to the same build tree; the library is not rebuilt.
    log "building HDF5's test programs in $BUILD"
    cmake -S hdf5-src -B "$BUILD" -DBUILD_TESTING=ON -DHDF5_TEST_PARALLEL=ON -DHDF5_TEST_SERIAL=ON \
        >>"$LOGS-configure.log" 2>&1 || { tail -40 "$LOGS-configure.log"; exit 1; }
    cmake --build "$BUILD" -j"$(nproc)" >"$LOGS-build.log" 2>&1 \
        || { tail -40 "$LOGS-build.log"; exit 1; }
    echo "$patch_sum" >"$BUILD/.tests-complete"
    exit 0
fi

if [ "$WITH_TESTS" = 1 ]; then
    TESTING=(-DBUILD_TESTING=ON -DHDF5_TEST_PARALLEL=ON -DHDF5_TEST_SERIAL=ON)
    log "building parallel HDF5 and its test programs into $PREFIX"
else
    # HDF5_TEST_PARALLEL=ON without BUILD_TESTING stops HDF5's configuration
    # (utils/subfiling_vfd copies h5fuse to the unset testpar directory);
    # the branch above turns all three on when it adds the test programs.
    TESTING=(-DBUILD_TESTING=OFF -DHDF5_TEST_PARALLEL=OFF -DHDF5_TEST_SERIAL=OFF)
    log "building parallel HDF5 ${HDF5_DEB_VERSION} (library and tools) into $PREFIX"
fi
rm -rf "$BUILD"
CC=$MPICC cmake -S hdf5-src -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_INSTALL_PREFIX="$PREFIX" -DBUILD_SHARED_LIBS=ON -DBUILD_STATIC_LIBS=OFF \
    -DHDF5_ENABLE_PARALLEL=ON -DHDF5_ENABLE_SUBFILING_VFD=ON -DHDF5_BUILD_TOOLS=ON \
    "${TESTING[@]}" -DHDF5_BUILD_EXAMPLES=OFF -DHDF5_BUILD_FORTRAN=OFF -DHDF5_BUILD_CPP_LIB=OFF \
    -DHDF5_BUILD_HL_LIB=ON -DHDF5_ENABLE_Z_LIB_SUPPORT=ON -DHDF5_ENABLE_SZIP_SUPPORT=OFF \
    -DHDF5_BUILD_UTILS=ON >"$LOGS-configure.log" 2>&1 \
    || { tail -40 "$LOGS-configure.log"; exit 1; }
log "configured; compiling (the longest step; progress in $LOGS-build.log)"
cmake --build "$BUILD" -j"$(nproc)" >"$LOGS-build.log" 2>&1 \
    || { tail -40 "$LOGS-build.log"; exit 1; }
cmake --install "$BUILD" >/dev/null
touch "$PREFIX/.complete"
[ "$WITH_TESTS" = 0 ] || echo "$patch_sum" >"$BUILD/.tests-complete"
log "HDF5 installed in $PREFIX"
