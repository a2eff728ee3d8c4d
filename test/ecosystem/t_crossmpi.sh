#!/usr/bin/env bash
# t_crossmpi.sh -- a plugin built for one MPI loaded by a program of the
# other MPI fails at load with h5sf's error naming both MPI libraries
# (vfd/plugin.c): the program exits non-zero, by itself (no signal), in
# time (no hang), and HDF5 reports "can't get VFD info from plugin".
#
#   t_crossmpi.sh plugin WORK APP APP_FAMILY MPIEXEC APP_HDF5_LIBDIR OWN_PLUGIN_DIR OTHER_BUILD OTHER_FAMILY
#       this build's program (APP, built by ctest) with this build's plugin
#       (the control: it loads and writes), then with the other family's
#       plugin from OTHER_BUILD/lib: refused
#   t_crossmpi.sh app WORK SRC OTHER_CC OTHER_MPIEXEC OTHER_HDF5 OTHER_FAMILY PLUGIN_DIR FAMILY
#       test/t_crossmpi.c compiled here with the other family's mpicc
#       against its HDF5 prefix; it writes with the default driver (the
#       control), then loads this build's plugin (PLUGIN_DIR): refused
# Each load runs on 2 ranks, with MPI_Init before and after the plugin is
# loaded (a serial tool loads it before).  Exits 77 (skipped) when the other
# family's build, HDF5 or MPI is absent.
set -uo pipefail
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
skip() { echo "skipped: $*"; exit 77; }
label() { case $1 in openmpi) echo "Open MPI" ;; mpich) echo "MPICH" ;; *) echo "$1" ;; esac; }
libname() { case $1 in openmpi) echo "(libmpi.so" ;; mpich) echo "(libmpich.so" ;; *) echo "($1" ;; esac; }
flags() { [[ $1 == openmpi ]] && echo "--oversubscribe"; }

# run LOG MPIEXEC FAMILY HDF5_LIBDIR PLUGIN_PATH EXE ARGS...: 2 ranks, 120 s;
# sets rc.  The program's HDF5 comes first on the loader's path, whatever
# the caller's environment says.
run() {
    local log=$1 mpiexec=$2 family=$3 libdir=$4 plugins=$5
    shift 5
    # MPICH's mpiexec starts hydra_pmi_proxy from its own directory: the real one.
    mpiexec=$(readlink -f "$(command -v "$mpiexec")")
    # shellcheck disable=SC2046
    env LD_LIBRARY_PATH="$libdir" HDF5_PLUGIN_PATH="$plugins" \
        timeout -k 10 120 "$mpiexec" -n 2 $(flags "$family") "$@" >"$log" 2>&1
    rc=$?
}

# refused LOG APP_FAMILY PLUGIN_FAMILY: the run that wrote LOG (rc) failed
# cleanly with the cross-MPI error.
refused() {
    local log=$1 app=$2 plugin=$3 what
    what="$(label "$app") program with the $(label "$plugin") plugin ($(basename "$log" .log))"
    if ((rc == 124 || rc == 137)); then
        fail "$what: hung (killed after 120 s)"
    elif ((rc == 0)); then
        fail "$what: loaded and ran"
    elif ((rc >= 126)) || grep -qiE "signal|segmentation|BAD TERMINATION|core dumped" "$log"; then
        fail "$what: crashed (exit $rc)"
    else
        for want in "h5sf plugin built for $(label "$plugin")" "$(libname "$plugin")" \
                    "process using $(label "$app")" "$(libname "$app")" "can't get VFD info from plugin"; do
            grep -qF -- "$want" "$log" || fail "$what: the error stack lacks '$want'"
        done
    fi
    echo "== $what: exit $rc"
    sed -n '1,12p' "$log"
}

case ${1:-} in
plugin)
    work=$2 app=$3 app_family=$4 mpiexec=$5 libdir=$6 own=$7 other_build=$8 other=$9
    [[ -e $other_build/lib/libh5sf.so ]] \
        || skip "no h5sf build for $(label "$other") in $other_build (H5SF_MPI=$other scripts/build.sh makes one)"
    # A build from another system (a chroot sees the host's tree): its MPI
    # or HDF5 may not be here at all, and HDF5 skips what it cannot dlopen.
    missing=$(env LD_LIBRARY_PATH="$libdir" ldd "$other_build/lib/libh5sf.so" 2>&1 | awk '/not found/ {print $1}')
    [[ -z $missing ]] || skip "the $(label "$other") plugin in $other_build cannot be loaded here: no ${missing//$'\n'/ }"
    rm -rf "$work" && mkdir -p "$work" || exit 1
    run "$work/control.log" "$mpiexec" "$app_family" "$libdir" "$own" "$app" h5sf "$work/control.h5"
    ((rc == 0)) || { cat "$work/control.log"; fail "control: this build's program with its own plugin exited $rc"; }
    for when in init preinit; do
        run "$work/$when.log" "$mpiexec" "$app_family" "$libdir" "$other_build/lib" "$app" h5sf "$work/$when.h5" $when
        refused "$work/$when.log" "$app_family" "$other"
    done ;;
app)
    work=$2 src=$3 cc=$4 mpiexec=$5 hdf5=$6 other=$7 plugins=$8 family=$9
    [[ -x $cc ]] || skip "no $(label "$other") compiler ('$cc')"
    [[ -x $mpiexec ]] || skip "no $(label "$other") mpiexec ('$mpiexec')"
    [[ -e $hdf5/lib/libhdf5.so ]] \
        || skip "no HDF5 built with $(label "$other") in $hdf5 (H5SF_MPI=$other scripts/bootstrap.sh builds it)"
    rm -rf "$work" && mkdir -p "$work" || exit 1
    app="$work/t_crossmpi_$other"
    "$cc" -o "$app" "$src/test/t_crossmpi.c" -I"$hdf5/include" -L"$hdf5/lib" -Wl,-rpath,"$hdf5/lib" -lhdf5 \
        >"$work/cc.log" 2>&1 || { cat "$work/cc.log"; fail "compile test/t_crossmpi.c with $cc"; }
    if [[ -x $app ]]; then
        run "$work/control.log" "$mpiexec" "$other" "$hdf5/lib" "" "$app" sec2 "$work/control.h5"
        ((rc == 0)) || { cat "$work/control.log"; fail "control: the $(label "$other") program exited $rc"; }
        for when in init preinit; do
            run "$work/$when.log" "$mpiexec" "$other" "$hdf5/lib" "$plugins" "$app" h5sf "$work/$when.h5" $when
            refused "$work/$when.log" "$other" "$family"
        done
    fi ;;
*)
    echo "usage: t_crossmpi.sh plugin|app ..."; exit 2 ;;
esac
if ((fails)); then echo "t_crossmpi.sh $1: $fails failure(s)"; exit 1; fi
rm -rf "$work"
echo "t_crossmpi.sh $1: OK"
