#!/usr/bin/env bash
# Idempotent setup: Debian packages, then parallel HDF5 1.14.5 built from
# Debian's trixie source package into a versioned cache prefix.  HDF5's own
# test/ and testpar/ programs are built in the same tree (kept in
# $CACHE/hdf5-build) for the conformance suite (scripts/conformance.sh), with
# the harness patch from test/conformance/ applied to test/h5test.c.
#
# The deb-src line is derived at run time from the mirror URI already in the
# machine's apt sources, so no registry host name lives in this repository.
set -euo pipefail

HDF5_DEB_VERSION="1.14.5+repack-3"
CACHE="${H5SF_CACHE:-$HOME/.cache/h5sf}"
PREFIX="$CACHE/hdf5-${HDF5_DEB_VERSION}-openmpi"
PKGS=(build-essential cmake pkg-config libopenmpi-dev openmpi-bin libuv1-dev
      zlib1g-dev dpkg-dev clang libclang-rt-14-dev iproute2 gnuplot-nox xz-utils python3)

log() { printf '[bootstrap] %s\n' "$*" >&2; }
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"

missing=()
for p in "${PKGS[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
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
if [ -f "$PREFIX/.complete" ] && [ -f "$CACHE/hdf5-build/.tests-complete" ]; then
    if [ "$(cat "$CACHE/hdf5-build/.tests-complete")" = "$patch_sum" ]; then
        log "HDF5 ${HDF5_DEB_VERSION} already in $PREFIX"
        exit 0
    fi
    # Only test/h5test.c changed: restore it, patch it, rebuild libhdf5_test.
    log "harness patch changed: rebuilding HDF5's test library"
    orig=$(mktemp -d)
    tar -xf "$CACHE"/src/hdf5_${HDF5_DEB_VERSION%%+*}*.orig.tar.* -C "$orig" --wildcards '*/test/h5test.c'
    cp "$orig"/*/test/h5test.c "$CACHE/src/hdf5-src/test/h5test.c" && rm -rf "$orig"
    patch -d "$CACHE/src/hdf5-src" -p1 -s -f <"$HARNESS_PATCH" || { log "harness patch does not apply"; exit 1; }
    cmake --build "$CACHE/hdf5-build" -j"$(nproc)" --target hdf5_test-shared >>"$CACHE/hdf5-build.log" 2>&1 \
        || { tail -40 "$CACHE/hdf5-build.log"; exit 1; }
    echo "$patch_sum" >"$CACHE/hdf5-build/.tests-complete"
    exit 0
fi

# --- mirror URI from the machine's own apt configuration ------------------
mirror_uri() {
    local f uri
    for f in /etc/apt/sources.list.d/*.sources; do
        [ -f "$f" ] || continue
        uri=$(awk '/^URIs:/{print $2; exit}' "$f")
        case "$uri" in *debian-security*|"") continue ;; esac
        case "$uri" in *debian*) echo "$uri"; return ;; esac
    done
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        [ -f "$f" ] || continue
        uri=$(awk '$1=="deb" && $0 !~ /security/ && $0 ~ /debian/ {for(i=2;i<=NF;i++) if ($i ~ /^[a-z]+:\/\//){print $i; exit}}' "$f")
        [ -n "$uri" ] && { echo "$uri"; return; }
    done
    return 1
}
MIRROR=$(mirror_uri) || { log "no Debian mirror found in apt sources"; exit 1; }
log "mirror: $MIRROR"

APTDIR="$CACHE/apt"
mkdir -p "$APTDIR"/{lists/partial,archives/partial,etc/sources.list.d,etc/preferences.d} "$CACHE/src"
printf 'deb-src [trusted=yes] %s trixie main\n' "$MIRROR" > "$APTDIR/etc/sources.list"
cat > "$APTDIR/apt.conf" <<CONF
Dir::State "$APTDIR";
Dir::State::Lists "$APTDIR/lists";
Dir::State::status "/var/lib/dpkg/status";
Dir::Cache "$APTDIR";
Dir::Etc::SourceList "$APTDIR/etc/sources.list";
Dir::Etc::SourceParts "$APTDIR/etc/sources.list.d";
Dir::Etc::Preferences "$APTDIR/etc/preferences";
Dir::Etc::PreferencesParts "$APTDIR/etc/preferences.d";
Acquire::Check-Valid-Until "false";
Acquire::AllowInsecureRepositories "true";
APT::Sandbox::User "root";
CONF
export APT_CONFIG="$APTDIR/apt.conf"

cd "$CACHE/src"
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
if [ -f "$HARNESS_PATCH" ] && ! patch -d hdf5-src -p1 -R --dry-run -s -f <"$HARNESS_PATCH" >/dev/null 2>&1; then
    patch -d hdf5-src -p1 -s -f <"$HARNESS_PATCH" || { log "harness patch does not apply"; exit 1; }
fi

if [ -f "$PREFIX/.complete" ] && [ -f "$CACHE/hdf5-build/CMakeCache.txt" ]; then
    # Installed by an older bootstrap without the test programs: add them.
    log "building HDF5's test programs in $CACHE/hdf5-build"
    cmake -S hdf5-src -B "$CACHE/hdf5-build" -DBUILD_TESTING=ON >>"$CACHE/hdf5-configure.log" 2>&1
    cmake --build "$CACHE/hdf5-build" -j"$(nproc)" >"$CACHE/hdf5-build.log" 2>&1 \
        || { tail -40 "$CACHE/hdf5-build.log"; exit 1; }
    echo "$patch_sum" >"$CACHE/hdf5-build/.tests-complete"
    exit 0
fi

log "building parallel HDF5 and its test programs into $PREFIX"
rm -rf "$CACHE/hdf5-build"
CC=mpicc cmake -S hdf5-src -B "$CACHE/hdf5-build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_INSTALL_PREFIX="$PREFIX" -DBUILD_SHARED_LIBS=ON -DBUILD_STATIC_LIBS=OFF \
    -DHDF5_ENABLE_PARALLEL=ON -DHDF5_ENABLE_SUBFILING_VFD=ON -DHDF5_BUILD_TOOLS=ON \
    -DBUILD_TESTING=ON -DHDF5_TEST_PARALLEL=ON -DHDF5_TEST_SERIAL=ON -DHDF5_BUILD_EXAMPLES=OFF -DHDF5_BUILD_FORTRAN=OFF -DHDF5_BUILD_CPP_LIB=OFF \
    -DHDF5_BUILD_HL_LIB=ON -DHDF5_ENABLE_Z_LIB_SUPPORT=ON -DHDF5_ENABLE_SZIP_SUPPORT=OFF \
    -DHDF5_BUILD_UTILS=ON >"$CACHE/hdf5-configure.log" 2>&1 \
    || { tail -40 "$CACHE/hdf5-configure.log"; exit 1; }
cmake --build "$CACHE/hdf5-build" -j"$(nproc)" >"$CACHE/hdf5-build.log" 2>&1 \
    || { tail -40 "$CACHE/hdf5-build.log"; exit 1; }
cmake --install "$CACHE/hdf5-build" >/dev/null
touch "$PREFIX/.complete"
echo "$patch_sum" >"$CACHE/hdf5-build/.tests-complete"
log "HDF5 installed in $PREFIX"
