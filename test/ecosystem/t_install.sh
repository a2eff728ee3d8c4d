#!/usr/bin/env bash
# t_install.sh -- cmake --install into a fresh prefix, then use the installed
# tree from outside: a CMake project with find_package(h5sf CONFIG) and
# h5sf::h5sf, and a plain compile with pkg-config.  The layout is one
# directory per MPI family (cmake/package.cmake); `both` installs the
# builds of both families into one prefix.
#
#   t_install.sh install   BUILD_DIR PREFIX SOURCE_DIR VERSION
#   t_install.sh cmake     PREFIX WORK SOURCE_DIR C_COMPILER GENERATOR MPIEXEC FAMILY
#   t_install.sh pkgconfig PREFIX WORK SOURCE_DIR C_COMPILER MPIEXEC VERSION FAMILY
#   t_install.sh both      BUILD_DIR OTHER_BUILD_DIR PREFIX WORK SOURCE_DIR VERSION GENERATOR
#
# A build's family, compiler and mpiexec come from its own tree (package/
# h5sf-<family>.pc, CMakeCache.txt).  The consumers are
# docs/examples/write_read_fapl.c; they run on 2 ranks with HDF5_PLUGIN_PATH
# and LD_LIBRARY_PATH unset (they link libh5sf, and the rpaths find HDF5),
# verify their own data and must leave 4 subfiles.  ldd must resolve
# libh5sf to the installed copy of their family, and MPI to their own.
# `both` exits 77 (skipped) when the other build is absent.
set -uo pipefail
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
finish() { if ((fails)); then echo "t_install.sh $1: $fails failure(s)"; exit 1; fi; echo "t_install.sh $1: OK"; exit 0; }
flags() { [[ $1 == openmpi ]] && echo "--oversubscribe"; }
mpilib() { case $1 in openmpi) echo "libmpi.so.*" ;; mpich) echo "libmpich.so.*" ;; *) echo "*" ;; esac; }
# only_mpi FILE FAMILY: every MPI library FILE loads is FAMILY's
only_mpi() {
    local m mpi
    mpi=$(env -u LD_LIBRARY_PATH ldd "$1" | awk '/libmpi/ {printf "%s ", $1}')
    [[ -n $mpi ]] || fail "$1 loads no MPI library"
    for m in $mpi; do
        # shellcheck disable=SC2053
        [[ $m == $(mpilib "$2") ]] || fail "$1 loads $m, not only $2's MPI: $mpi"
    done
}
# family of a build tree, from the .pc file package.cmake generated
family_of() { local pc; pc=$(compgen -G "$1/package/h5sf-*.pc" | head -1); pc=${pc##*/h5sf-}; echo "${pc%.pc}"; }
cache_of() { sed -n "s/^$2:[A-Z]*=//p" "$1/CMakeCache.txt" | head -1; }

# run_consumer EXE WORK MPIEXEC PREFIX FAMILY: run in WORK/run, check subfiles
run_consumer() {
    local exe=$1 work=$2 mpiexec=$3 prefix=$4 family=$5
    local lib
    # MPICH's mpiexec starts hydra_pmi_proxy from its own directory: the real one.
    mpiexec=$(readlink -f "$(command -v "$mpiexec")")
    lib=$(env -u LD_LIBRARY_PATH ldd "$exe" | awk '/libh5sf\.so/ {print $3}')
    [[ $lib == "$prefix"/lib*/h5sf/"$family"/libh5sf.so* ]] \
        || fail "$exe uses libh5sf from '$lib', not from $prefix/lib/h5sf/$family"
    only_mpi "$exe" "$family"
    rm -rf "$work/run" && mkdir -p "$work/run"
    # shellcheck disable=SC2046
    (cd "$work/run" && env -u HDF5_PLUGIN_PATH -u LD_LIBRARY_PATH timeout 240 "$mpiexec" -n 2 $(flags "$family") \
        "$exe" "$work/run/c.h5") || fail "$exe exited with an error"
    [[ $(compgen -G "$work/run/c.h5.subfile_*_of_4" | wc -l) == 4 ]] || fail "no 4 subfiles: $(ls "$work/run")"
}

# check_installed PREFIX FAMILY: the files of FAMILY's build
check_installed() {
    local prefix=$1 f=$2 p
    for p in lib/h5sf/$f/libh5sf.so lib/h5sf/$f/preload/libh5sf_preload.so lib/h5sf/$f/bin/h5sf-fuse \
             lib/h5sf/$f/bin/h5sf-options lib/cmake/h5sf-$f/h5sf-${f}Config.cmake \
             lib/cmake/h5sf-$f/h5sf-${f}ConfigVersion.cmake lib/cmake/h5sf-$f/h5sfTargets.cmake \
             lib/pkgconfig/h5sf-$f.pc; do
        [[ -e $prefix/$p ]] || fail "not installed: $p"
    done
    # Installed binaries find HDF5 and MPI on their own (install RPATH).
    env -u LD_LIBRARY_PATH "$prefix/lib/h5sf/$f/bin/h5sf-options" --markdown >/dev/null \
        || fail "installed $f h5sf-options does not run"
    env -u LD_LIBRARY_PATH "$prefix/lib/h5sf/$f/bin/h5sf-fuse" --help >/dev/null || fail "installed $f h5sf-fuse does not run"
    only_mpi "$prefix/lib/h5sf/$f/bin/h5sf-fuse" "$f"
    only_mpi "$prefix/lib/h5sf/$f/libh5sf.so" "$f"
}

# check_common PREFIX SOURCE_DIR VERSION DEFAULT_FAMILY: what every build
# installs the same, and the unsuffixed links to DEFAULT_FAMILY's files
check_common() {
    local prefix=$1 src=$2 version=$3 d=$4 p page sec
    for p in include/h5sf.h lib/cmake/h5sf/h5sfConfig.cmake lib/cmake/h5sf/h5sfConfigVersion.cmake \
             lib/cmake/h5sf/h5sf_mpi_flavour.cmake share/doc/h5sf/user-guide.md share/doc/h5sf/configuration.md \
             share/doc/h5sf/examples/write_read_fapl.c share/doc/h5sf/examples/nodelocal.sh; do
        [[ -e $prefix/$p ]] || fail "not installed: $p"
    done
    # Man pages, if the source tree has them.
    for page in "$src"/docs/man/*.[1-9]; do
        [[ -e $page ]] || continue
        sec=${page##*.}
        [[ -e $prefix/share/man/man$sec/$(basename "$page") ]] || fail "man page not installed: $page"
    done
    grep -q "PACKAGE_VERSION \"$version\"" "$prefix/lib/cmake/h5sf/h5sfConfigVersion.cmake" || fail "version file is not $version"
    grep -q "PACKAGE_VERSION \"$version\"" "$prefix/lib/cmake/h5sf-$d/h5sf-${d}ConfigVersion.cmake" \
        || fail "h5sf-$d's version file is not $version"
    # The unsuffixed names: relative links to the default family's files.
    for p in "lib/pkgconfig/h5sf.pc=h5sf-$d.pc" "bin/h5sf-fuse=../lib/h5sf/$d/bin/h5sf-fuse" \
             "bin/h5sf-options=../lib/h5sf/$d/bin/h5sf-options" \
             "lib/libh5sf_preload.so=h5sf/$d/preload/libh5sf_preload.so"; do
        [[ -L $prefix/${p%%=*} && $(readlink "$prefix/${p%%=*}") == "${p#*=}" && -e $prefix/${p%%=*} ]] \
            || fail "${p%%=*} is not a link to ${p#*=}: $(ls -l "$prefix/${p%%=*}" 2>&1)"
    done
    env -u LD_LIBRARY_PATH "$prefix/bin/h5sf-options" --markdown >/dev/null || fail "bin/h5sf-options does not run"
}

# consumer_cmake PREFIX WORK SOURCE_DIR C_COMPILER GENERATOR MPIEXEC FAMILY [COMPONENT]
consumer_cmake() {
    local prefix=$1 work=$2 src=$3 cc=$4 gen=$5 mpiexec=$6 family=$7 comp=${8:-}
    rm -rf "$work" && mkdir -p "$work"
    # Only the h5sf prefix: HDF5 must be found through h5sfConfig.cmake, and
    # the family through the project's MPI (or COMPONENT).
    cmake -S "$src/test/ecosystem/consumer" -B "$work/build" -G "$gen" -DCMAKE_C_COMPILER="$cc" \
          -DCMAKE_PREFIX_PATH="$prefix" -DEXAMPLES_DIR="$src/docs/examples" -DH5SF_COMPONENT="$comp" \
          >"$work/configure.log" 2>&1 \
        || { cat "$work/configure.log"; fail "configure the consumer project ($family)"; return; }
    grep "h5sf 0" "$work/configure.log"
    cmake --build "$work/build" >"$work/build.log" 2>&1 || { cat "$work/build.log"; fail "build the consumer ($family)"; return; }
    [[ $(cat "$work/build/plugin_dir.txt") -ef $prefix/lib/h5sf/$family ]] \
        || fail "h5sf_PLUGIN_DIR is $(cat "$work/build/plugin_dir.txt"), not the installed $family plugin dir"
    [[ $(cat "$work/build/mpi_flavour.txt") == "$family" ]] || fail "h5sf_MPI_FLAVOUR is not $family"
    run_consumer "$work/build/consumer_fapl" "$work" "$mpiexec" "$prefix" "$family"
}

# consumer_pkgconfig PREFIX WORK SOURCE_DIR C_COMPILER MPIEXEC VERSION FAMILY PACKAGE
consumer_pkgconfig() {
    local prefix=$1 work=$2 src=$3 cc=$4 mpiexec=$5 version=$6 family=$7 pkg=$8 v flags
    rm -rf "$work" && mkdir -p "$work"
    export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
    v=$(pkg-config --modversion "$pkg") || { fail "pkg-config does not find $pkg"; return; }
    [[ $v == "$version" ]] || fail "pkg-config $pkg version $v, expected $version"
    [[ $(pkg-config --variable=mpi "$pkg") == "$family" ]] || fail "$pkg: mpi is not $family"
    [[ $(pkg-config --variable=plugindir "$pkg") -ef $prefix/lib/h5sf/$family ]] || fail "$pkg: plugindir is not the installed $family plugin dir"
    [[ -f $(pkg-config --variable=preload "$pkg") ]] || fail "$pkg: preload variable does not name the installed shim"
    [[ -x $(pkg-config --variable=bindir "$pkg")/h5sf-fuse ]] || fail "$pkg: bindir does not hold h5sf-fuse"
    flags=$(pkg-config --cflags --libs "$pkg")
    echo "pkg-config --cflags --libs $pkg: $flags"
    # shellcheck disable=SC2086
    "$cc" -Wall -Wextra -o "$work/consumer_fapl" "$src/docs/examples/write_read_fapl.c" $flags || fail "compile with $pkg's flags"
    [[ -x $work/consumer_fapl ]] && run_consumer "$work/consumer_fapl" "$work" "$mpiexec" "$prefix" "$family"
}

# install_build BUILD PREFIX: cmake --install, log in PREFIX.<family>.log
install_build() {
    local log
    log="$2.$(family_of "$1").log"
    cmake --install "$1" --prefix "$2" >"$log" 2>&1 || { cat "$log"; fail "cmake --install $1"; return 1; }
}

case $1 in
install)
    build=$2 prefix=$3 src=$4 version=$5
    family=$(family_of "$build")
    rm -rf "$prefix" && mkdir -p "$(dirname "$prefix")"
    install_build "$build" "$prefix" || finish install
    check_installed "$prefix" "$family"
    # Alone in the prefix: the unsuffixed names are this family's.
    check_common "$prefix" "$src" "$version" "$family"
    finish install ;;
cmake)
    prefix=$2 work=$3
    consumer_cmake "$2" "$3" "$4" "$5" "$6" "$7" "$8"
    ((fails)) || rm -rf "$work"
    finish cmake ;;
pkgconfig)
    work=$3
    # h5sf.pc: the link to this family's (alone in the prefix).
    consumer_pkgconfig "$2" "$3" "$4" "$5" "$6" "$7" "$8" h5sf
    ((fails)) || rm -rf "$work"
    finish pkgconfig ;;
both)
    build=$2 other=$3 prefix=$4 work=$5 src=$6 version=$7 gen=$8
    [[ -f $other/cmake_install.cmake && -e $other/lib/libh5sf.so ]] \
        || { echo "skipped: no other h5sf build in $other (H5SF_MPI=mpich|openmpi scripts/build.sh makes one)"; exit 77; }
    # A build from another system (a chroot sees the host's tree) may name
    # a compiler, MPI or HDF5 that is not here.
    occ=$(cache_of "$other" CMAKE_C_COMPILER)
    [[ -x $occ ]] || { echo "skipped: the compiler of $other ($occ) is not here"; exit 77; }
    missing=$(ldd "$other/lib/libh5sf.so" 2>&1 | awk '/not found/ {print $1}')
    [[ -z $missing ]] || { echo "skipped: $other/lib/libh5sf.so cannot be loaded here: no ${missing//$'\n'/ }"; exit 77; }
    f1=$(family_of "$build") f2=$(family_of "$other")
    [[ -n $f1 && -n $f2 && $f1 != "$f2" ]] || { fail "$build ($f1) and $other ($f2) are not of two MPI families"; finish both; }
    rm -rf "$prefix" "$work" && mkdir -p "$(dirname "$prefix")" "$work"
    # This build first, then the other: Open MPI's takes the unsuffixed
    # names whether it comes first (build/) or last (build-mpich/).
    install_build "$build" "$prefix" || finish both
    install_build "$other" "$prefix" || finish both
    check_installed "$prefix" "$f1"
    check_installed "$prefix" "$f2"
    check_common "$prefix" "$src" "$version" openmpi
    if [[ $f1 == openmpi ]]; then
        grep -q "Keeping: .*/h5sf.pc" "$prefix.$f2.log" || fail "the $f2 install did not keep Open MPI's h5sf.pc"
    fi
    for b in "$build" "$other"; do
        f=$(family_of "$b") cc=$(cache_of "$b" CMAKE_C_COMPILER) mpiexec=$(cache_of "$b" MPIEXEC_EXECUTABLE)
        echo "== $f: $cc, $mpiexec"
        # find_package(h5sf) picks the family by the project's MPI; h5sf-<f>.pc by name.
        consumer_cmake "$prefix" "$work/cmake-$f" "$src" "$cc" "$gen" "$mpiexec" "$f"
        consumer_pkgconfig "$prefix" "$work/pkgconfig-$f" "$src" "$cc" "$mpiexec" "$version" "$f" "h5sf-$f"
    done
    # A component naming the other family than the project's MPI: not found.
    cc=$(cache_of "$build" CMAKE_C_COMPILER)
    if cmake -S "$src/test/ecosystem/consumer" -B "$work/wrong" -G "$gen" -DCMAKE_C_COMPILER="$cc" \
             -DCMAKE_PREFIX_PATH="$prefix" -DEXAMPLES_DIR="$src/docs/examples" -DH5SF_COMPONENT="$f2" \
             >"$work/wrong.log" 2>&1; then
        fail "find_package(h5sf COMPONENTS $f2) succeeded in a $f1 project"
    else
        grep -q "built with .*but the project's MPI is" "$work/wrong.log" \
            || { cat "$work/wrong.log"; fail "find_package(h5sf COMPONENTS $f2) in a $f1 project: no message naming both MPIs"; }
    fi
    ((fails)) || rm -rf "$work"
    finish both ;;
*)
    echo "t_install.sh: unknown step '$1'"; exit 2 ;;
esac
