#!/usr/bin/env bash
# Idempotent: a Debian unstable root filesystem with parallel HDF5 2.x from
# Debian's binary packages (libhdf5-openmpi-dev) and everything h5sf needs to
# build and test, for the HDF5 2.x stage of scripts/test-versions.sh.
#
# The root also holds parallel h5py with its own tests, mpi4py and pytest
# with pytest-mpi, for scripts/h5py-suite.sh.
#
# Built once with mmdebstrap into a directory under the cache, keyed by the
# suite, the versions of HDF5 and Open MPI it holds and a short hash of the
# package list: a new upload or a changed list makes a new root beside the
# old ones, an unchanged archive reuses it.  Prints the root's path on
# stdout.  Owns only $CACHE/rootfs-* and $CACHE/apt-unstable.
set -euo pipefail

SUITE=unstable
CACHE="${H5SF_CACHE:-$HOME/.cache/h5sf}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PKGS=(cmake make gcc libc6-dev pkg-config libopenmpi-dev openmpi-bin libhdf5-openmpi-dev
      libuv1-dev zlib1g-dev hdf5-tools python3 procps
      python3-h5py python3-h5py-mpi python3-mpi4py python3-pytest python3-pytest-mpi)
source "$ROOT/scripts/lib/apt-private.sh"

log() { printf '[rootfs] %s\n' "$*" >&2; }
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
if ! command -v mmdebstrap >/dev/null; then
    log "installing mmdebstrap"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends mmdebstrap >/dev/null
fi

MIRROR=$(mirror_uri) || { log "no Debian mirror found in apt sources"; exit 1; }
LINE="deb [trusted=yes] $MIRROR $SUITE main"

# The key: candidate versions in the suite right now (one index download).
private_apt "$CACHE/apt-$SUITE" "$LINE"
apt-get -o APT::Architecture="$(dpkg --print-architecture)" update -qq
cand() { apt-cache policy "$1" | awk '/Candidate:/{print $2}'; }
hdf5_v=$(cand libhdf5-openmpi-dev); ompi_v=$(cand libopenmpi-dev)
unset APT_CONFIG
[ -n "$hdf5_v" ] && [ "$hdf5_v" != "(none)" ] || { log "libhdf5-openmpi-dev not in $SUITE"; exit 1; }
pkgs_key=$(printf '%s\n' "${PKGS[@]}" | sha256sum | cut -c1-8)
DIR="$CACHE/rootfs-$SUITE-hdf5_${hdf5_v}-openmpi_${ompi_v}-pkgs_$pkgs_key"

if [ ! -f "$DIR/.complete" ]; then
    log "building $DIR (HDF5 $hdf5_v, Open MPI $ompi_v)"
    # A half-built root goes, but never one with something mounted in it.
    if grep -qF " $DIR/" /proc/mounts; then log "$DIR has mounts in it: not removing it"; exit 1; fi
    rm -rf "$DIR"
    $SUDO mmdebstrap --mode=root --variant=apt --include="$(IFS=,; echo "${PKGS[*]}")" \
        --aptopt='Acquire::Check-Valid-Until "false"' --skip=check/signed-by \
        "$SUITE" "$DIR" "$LINE" >"$DIR.log" 2>&1 \
        || { tail -30 "$DIR.log" >&2; rm -rf "$DIR"; exit 1; }
    $SUDO touch "$DIR/.complete"
fi
echo "$DIR"
