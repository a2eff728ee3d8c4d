# Sourced by scripts/client-suites.sh: fetch netCDF-C and CGNS from Debian's
# source packages and build them, with their tests, against the cached
# parallel HDF5 of one MPI.  None of their source is in this repository.
#
# Stable cache paths (H5SF_CACHE, default ~/.cache/h5sf; <hdf5> is the name
# of the HDF5 prefix, e.g. hdf5-1.14.5+repack-3-openmpi):
#   clients-src/netcdf-parallel_4.10.1.orig.tar.gz   upstream tarballs, checked
#   clients-src/libcgns_4.5.0.orig.tar.gz            against the sha256 below
#   netcdf-c-4.10.1-2+<hdf5>/src      netCDF-C sources
#   netcdf-c-4.10.1-2+<hdf5>/build    its CMake tree: tests in build/nc_test4
#                                     and build/h5_test (ctest --test-dir ...)
#   cgns-4.5.0-2+<hdf5>/{src,build}   CGNS; parallel tests in build/src/ptests
#                                     and build/src/Test_UserGuideCode/C_code_parallel
#   <dir>/.complete                   the recipe the tree was built with
#   <dir>/mpiexec                     the tests' MPIEXEC (see client_mpiexec_stub)
# A prefix outside the cache gets a hash of its path after its name.  A tree
# whose .complete matches the recipe is reused as it is; anything else is
# rebuilt from scratch.  Builds and test runs in one tree hold <dir>/.lock.
#
# Defines client_build NAME (netcdf or cgns), printing the tree's directory
# on stdout; needs scripts/env.sh sourced (H5SF_MPI, H5SF_HDF5_PREFIX,
# H5SF_MPI_BIN, H5SF_MPIEXEC_FLAGS, H5SF_CACHE).

# Debian versions (both served by unstable) and their upstream tarballs.
# The tarballs are what is built (Debian's patches concern packaging).
CLIENT_SUITE=unstable
NETCDF_DEB=1:4.10.1-2 NETCDF_VERSION=4.10.1
NETCDF_ORIG=netcdf-parallel_4.10.1.orig.tar.gz
NETCDF_SHA256=33c27231c478c3b35da7c7758fbdd02da1fe407abcb16ddfe195f69d164f930d
CGNS_DEB=4.5.0-2 CGNS_VERSION=4.5.0
CGNS_ORIG=libcgns_4.5.0.orig.tar.gz
CGNS_SHA256=c72355219318755ba0a8646a8e56ee1c138cf909c1d738d258d2774fa4b529e9

_cb_log() { printf '[clients] %s\n' "$*" >&2; }

# client_dir NAME: the tree of NAME built against $H5SF_HDF5_PREFIX.
client_dir() {
    local key base
    base=$(basename "$H5SF_HDF5_PREFIX")
    key=$base
    [[ $(dirname "$H5SF_HDF5_PREFIX") -ef $H5SF_CACHE ]] ||
        key="$base-$(printf '%s' "$H5SF_HDF5_PREFIX" | sha256sum | cut -c1-8)"
    case $1 in
    netcdf) echo "$H5SF_CACHE/netcdf-c-${NETCDF_DEB#*:}+$key" ;;
    cgns) echo "$H5SF_CACHE/cgns-${CGNS_DEB#*:}+$key" ;;
    esac
}

# _cb_fetch PACKAGE=VERSION ORIG SHA256: put the upstream tarball into
# $H5SF_CACHE/clients-src through a private apt configuration whose deb-src
# line reuses this machine's mirror (scripts/lib/apt-private.sh).  apt checks
# what it fetches against the suite's index; the pinned sha256 checks that it
# is the tarball these results were taken with.  apt-get may fail on the
# .dsc alone (the mirror has been seen without libcgns 4.5.0-2's .dsc while
# serving its tarball): the tarball's hash decides.
_cb_fetch() {
    local pkgver=$1 orig=$2 sum=$3 src="$H5SF_CACHE/clients-src" mirror
    [[ -f $src/$orig ]] && [[ $(sha256sum <"$src/$orig" | cut -d' ' -f1) == "$sum" ]] && return 0
    mkdir -p "$src"
    (
        source "$root/scripts/lib/apt-private.sh"
        mirror=$(mirror_uri) || { _cb_log "no Debian mirror in this machine's apt sources"; exit 1; }
        private_apt "$H5SF_CACHE/apt-clients" "deb-src [trusted=yes] $mirror $CLIENT_SUITE main"
        _cb_log "fetching $pkgver source from $CLIENT_SUITE ($mirror)"
        apt-get update -qq || exit 1
        cd "$src" && apt-get source --download-only "$pkgver" >"$src/${pkgver%%=*}.fetch.log" 2>&1
        true
    ) || return 1
    if [[ ! -f $src/$orig ]]; then
        _cb_log "$pkgver: no $orig fetched (the suite may have moved on: see $src/${pkgver%%=*}.fetch.log)"
        return 1
    fi
    if [[ $(sha256sum <"$src/$orig" | cut -d' ' -f1) != "$sum" ]]; then
        _cb_log "$src/$orig: sha256 differs from the pinned $sum"
        return 1
    fi
}

# client_mpiexec_stub DIR: DIR/mpiexec, the launcher the tests were
# configured with.  It runs $H5SF_CLIENT_MPIEXEC when set (the launcher of
# the checkout running the tests: scripts/lib/client-mpiexec.sh), else this
# MPI's own mpiexec, so the tree holds no path into any checkout and a
# plain `ctest` in it runs the tests on MPI-IO.
client_mpiexec_stub() {
    local mpiexec
    mpiexec=$(readlink -f "$H5SF_MPI_BIN/mpiexec")
    cat >"$1/mpiexec" <<EOF
#!/bin/sh
# MPIEXEC of these tests ($H5SF_MPI).
[ -n "\${H5SF_CLIENT_MPIEXEC:-}" ] && exec "\$H5SF_CLIENT_MPIEXEC" "\$@"
exec $mpiexec $H5SF_MPIEXEC_FLAGS "\$@"
EOF
    chmod +x "$1/mpiexec"
}

# The CMake options of each client: only what the tests need.  A change here
# changes the recipe and so rebuilds the cached tree.
_cb_netcdf_opts() {
    echo -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBUILD_SHARED_LIBS=ON \
        -DNETCDF_ENABLE_DAP=OFF -DNETCDF_ENABLE_BYTERANGE=OFF -DNETCDF_ENABLE_REMOTE_FUNCTIONALITY=OFF \
        -DNETCDF_ENABLE_NCZARR=OFF -DNETCDF_ENABLE_PLUGINS=OFF -DNETCDF_ENABLE_FILTER_TESTING=OFF \
        -DNETCDF_ENABLE_S3=OFF -DNETCDF_ENABLE_HDF4=OFF -DNETCDF_ENABLE_LIBXML2=OFF \
        -DNETCDF_ENABLE_FILTER_SZIP=OFF -DNETCDF_ENABLE_FILTER_BZ2=OFF -DNETCDF_ENABLE_FILTER_BLOSC=OFF \
        -DNETCDF_ENABLE_FILTER_ZSTD=OFF -DNETCDF_ENABLE_EXAMPLES=OFF -DNETCDF_ENABLE_DOXYGEN=OFF \
        -DNETCDF_ENABLE_PARALLEL4=ON -DNETCDF_ENABLE_PARALLEL_TESTS=ON -DNETCDF_ENABLE_TESTS=ON
}
_cb_cgns_opts() {
    echo -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCGNS_BUILD_SHARED=ON -DCGNS_ENABLE_HDF5=ON \
        -DHDF5_NEED_MPI=ON -DCGNS_ENABLE_PARALLEL=ON -DCGNS_ENABLE_TESTS=ON -DCGNS_ENABLE_FORTRAN=OFF \
        -DCGNS_BUILD_CGNSTOOLS=OFF -DCGNS_ENABLE_64BIT=ON
}
# What each build makes: the library and the test directories run.
_cb_netcdf_dirs=(liblib ncdump ncgen nc_test4 h5_test)
_cb_cgns_dirs=(src/ptests src/Test_UserGuideCode/C_code_parallel)

# client_build NAME: build NAME if its tree is absent or stale; print the
# tree's directory.
client_build() {
    local name=$1 dir deb orig sum opts recipe d
    dir=$(client_dir "$name")
    case $name in
    netcdf) deb="netcdf-parallel=$NETCDF_DEB" orig=$NETCDF_ORIG sum=$NETCDF_SHA256 opts=$(_cb_netcdf_opts) ;;
    cgns) deb="libcgns=$CGNS_DEB" orig=$CGNS_ORIG sum=$CGNS_SHA256 opts=$(_cb_cgns_opts) ;;
    *) _cb_log "unknown client $name"; return 1 ;;
    esac
    recipe="$deb $sum $H5SF_HDF5_PREFIX $H5SF_MPI $opts mpiexec-stub-1"
    mkdir -p "$dir"
    exec 8>"$dir/.lock"
    flock 8
    if [[ -f $dir/.complete && $(cat "$dir/.complete") == "$recipe" ]]; then
        exec 8>&-
        echo "$dir"
        return 0
    fi
    [[ -f $H5SF_HDF5_PREFIX/.complete ]] || { _cb_log "no HDF5 in $H5SF_HDF5_PREFIX (scripts/bootstrap.sh)"; return 1; }
    _cb_fetch "$deb" "$orig" "$sum" || return 1
    command -v m4 >/dev/null || { _cb_log "netCDF-C needs m4 (scripts/bootstrap.sh installs it)"; return 1; }
    _cb_log "building $deb against $H5SF_HDF5_PREFIX into $dir (log: $dir/build.log)"
    rm -rf "$dir/src" "$dir/build" "$dir/.complete"
    mkdir -p "$dir/src"
    tar -xzf "$H5SF_CACHE/clients-src/$orig" -C "$dir/src" --strip-components=1 || return 1
    client_mpiexec_stub "$dir"
    # CGNS's tests launch ${MPIEXEC}, which CMake's FindMPI sets from
    # MPIEXEC_EXECUTABLE; netCDF's scripts are configured with NETCDF_MPIEXEC.
    local mpiexec_opt=-DMPIEXEC_EXECUTABLE="$dir/mpiexec"
    [[ $name == netcdf ]] && mpiexec_opt=-DNETCDF_MPIEXEC="$dir/mpiexec"
    local dirs=("${_cb_netcdf_dirs[@]}")
    [[ $name == cgns ]] && dirs=("${_cb_cgns_dirs[@]}")
    # shellcheck disable=SC2086
    if ! (CC="$H5SF_MPI_BIN/mpicc" cmake -S "$dir/src" -B "$dir/build" \
              -DCMAKE_PREFIX_PATH="$H5SF_HDF5_PREFIX" -DHDF5_ROOT="$H5SF_HDF5_PREFIX" \
              -DCMAKE_BUILD_RPATH="$H5SF_HDF5_PREFIX/lib" $opts "$mpiexec_opt" || exit 1
          for d in "${dirs[@]}"; do make -C "$dir/build/$d" -j"$(nproc)" || exit 1; done) >"$dir/build.log" 2>&1; then
        tail -30 "$dir/build.log" >&2
        _cb_log "$deb build failed, see $dir/build.log"
        return 1
    fi
    echo "$recipe" >"$dir/.complete"
    exec 8>&-
    _cb_log "$deb built in $dir"
    echo "$dir"
}
