#!/usr/bin/env bash
# t_install.sh -- cmake --install into a fresh prefix, then use the installed
# tree from outside: a CMake project with find_package(h5sf CONFIG) and
# h5sf::h5sf, and a plain compile with pkg-config.
#
#   t_install.sh install  BUILD_DIR PREFIX SOURCE_DIR VERSION
#   t_install.sh cmake    PREFIX WORK SOURCE_DIR C_COMPILER GENERATOR MPIEXEC
#   t_install.sh pkgconfig PREFIX WORK SOURCE_DIR C_COMPILER MPIEXEC VERSION
#
# The consumers are docs/examples/write_read_fapl.c; they run on 2 ranks
# with HDF5_PLUGIN_PATH unset (they link libh5sf), verify their own data and
# must leave 4 subfiles.  ldd must resolve libh5sf to the installed copy.
set -uo pipefail
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
finish() { if ((fails)); then echo "t_install.sh $1: $fails failure(s)"; exit 1; fi; echo "t_install.sh $1: OK"; exit 0; }

# run the consumer EXE in WORK/run and check its subfiles
run_consumer() {
    local exe=$1 work=$2 mpiexec=$3 prefix=$4
    local lib
    lib=$(ldd "$exe" | awk '/libh5sf\.so/ {print $3}')
    [[ $lib == "$prefix"/lib*/hdf5/plugin/libh5sf.so* ]] || fail "$exe uses libh5sf from '$lib', not from $prefix"
    rm -rf "$work/run" && mkdir -p "$work/run"
    (cd "$work/run" && env -u HDF5_PLUGIN_PATH timeout 240 "$mpiexec" -n 2 --oversubscribe "$exe" "$work/run/c.h5") \
        || fail "$exe exited with an error"
    [[ $(compgen -G "$work/run/c.h5.subfile_*_of_4" | wc -l) == 4 ]] || fail "no 4 subfiles: $(ls "$work/run")"
}

case $1 in
install)
    build=$2 prefix=$3 src=$4 version=$5
    rm -rf "$prefix" && mkdir -p "$(dirname "$prefix")"
    cmake --install "$build" --prefix "$prefix" >"$prefix.log" 2>&1 || { cat "$prefix.log"; fail "cmake --install"; finish install; }
    for f in include/h5sf.h lib/hdf5/plugin/libh5sf.so lib/libh5sf_preload.so lib/cmake/h5sf/h5sfConfig.cmake \
             lib/cmake/h5sf/h5sfConfigVersion.cmake lib/cmake/h5sf/h5sfTargets.cmake lib/pkgconfig/h5sf.pc \
             bin/h5sf-fuse bin/h5sf-options share/doc/h5sf/user-guide.md share/doc/h5sf/configuration.md \
             share/doc/h5sf/examples/write_read_fapl.c share/doc/h5sf/examples/nodelocal.sh; do
        [[ -e $prefix/$f ]] || fail "not installed: $f"
    done
    # Man pages, if the source tree has them.
    for page in "$src"/docs/man/*.[1-9]; do
        [[ -e $page ]] || continue
        sec=${page##*.}
        [[ -e $prefix/share/man/man$sec/$(basename "$page") ]] || fail "man page not installed: $page"
    done
    # Installed binaries find HDF5 and MPI on their own (install RPATH).
    env -u LD_LIBRARY_PATH "$prefix/bin/h5sf-options" --markdown >/dev/null || fail "installed h5sf-options does not run"
    env -u LD_LIBRARY_PATH "$prefix/bin/h5sf-fuse" --help >/dev/null || fail "installed h5sf-fuse does not run"
    grep -q "PACKAGE_VERSION \"$version\"" "$prefix/lib/cmake/h5sf/h5sfConfigVersion.cmake" || fail "version file is not $version"
    finish install ;;
cmake)
    prefix=$2 work=$3 src=$4 cc=$5 gen=$6 mpiexec=$7
    rm -rf "$work" && mkdir -p "$work"
    # Only the h5sf prefix: HDF5 must be found through h5sfConfig.cmake.
    cmake -S "$src/test/ecosystem/consumer" -B "$work/build" -G "$gen" -DCMAKE_C_COMPILER="$cc" \
          -DCMAKE_PREFIX_PATH="$prefix" -DEXAMPLES_DIR="$src/docs/examples" >"$work/configure.log" 2>&1 \
        || { cat "$work/configure.log"; fail "configure the consumer project"; finish cmake; }
    grep "h5sf 0" "$work/configure.log"
    cmake --build "$work/build" >"$work/build.log" 2>&1 || { cat "$work/build.log"; fail "build the consumer"; finish cmake; }
    [[ $(cat "$work/build/plugin_dir.txt") -ef $prefix/lib/hdf5/plugin ]] || fail "h5sf_PLUGIN_DIR is not the installed plugin dir"
    run_consumer "$work/build/consumer_fapl" "$work" "$mpiexec" "$prefix"
    ((fails)) || rm -rf "$work"
    finish cmake ;;
pkgconfig)
    prefix=$2 work=$3 src=$4 cc=$5 mpiexec=$6 version=$7
    rm -rf "$work" && mkdir -p "$work"
    export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
    v=$(pkg-config --modversion h5sf) || { fail "pkg-config does not find h5sf"; finish pkgconfig; }
    [[ $v == "$version" ]] || fail "pkg-config version $v, expected $version"
    [[ $(pkg-config --variable=plugindir h5sf) -ef $prefix/lib/hdf5/plugin ]] || fail "plugindir is not the installed plugin dir"
    [[ -f $(pkg-config --variable=preload h5sf) ]] || fail "preload variable does not name the installed shim"
    flags=$(pkg-config --cflags --libs h5sf)
    echo "pkg-config --cflags --libs h5sf: $flags"
    # shellcheck disable=SC2086
    "$cc" -Wall -Wextra -o "$work/consumer_fapl" "$src/docs/examples/write_read_fapl.c" $flags || fail "compile with pkg-config flags"
    [[ -x $work/consumer_fapl ]] && run_consumer "$work/consumer_fapl" "$work" "$mpiexec" "$prefix"
    ((fails)) || rm -rf "$work"
    finish pkgconfig ;;
*)
    echo "t_install.sh: unknown step '$1'"; exit 2 ;;
esac
