#!/usr/bin/env bash
# Build h5sf against further HDF5 versions and run its tests there
# (scripts/test.sh calls this after the HDF5 1.14.5 builds):
#   1.14.6  Debian unstable's source package, built by bootstrap.sh into the
#           cache; normal build in build-hdf5-1.14.6/, ctest less the
#           labels skip_labels names below, and "unit"
#   2.x     Debian unstable's binary packages in a cached root filesystem
#           (rootfs.sh); the repository is bind-mounted at its own path,
#           built in build-hdf5-2/ and tested there with ctest less skip_labels (as root in a
#           chroot; multinode tests need network namespaces and are left out,
#           saying so; under Open MPI 5.0-6.0.0rc2 over btl self,tcp, after
#           test/mpi_repro/sm_progress.c shows that MPI's sm BTL stalling
#           without h5sf), then the cross-version interop check: files written
#           by h5sf under 2.x read by h5sf and the built-in subfiling driver
#           under 1.14.5 (build/), and the reverse.
# No sanitizer builds here.  Prints one line per version:
#   == HDF5 <version> (<MPI> <version>): all tests passed | : FAILURES
# Usage: scripts/test-versions.sh [1.14.6] [2]   (default: both)
# H5SF_CTEST_R=REGEX runs only the tests it matches (ctest -R), in both stages.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
CACHE="${H5SF_CACHE:-$HOME/.cache/h5sf}"
# Stage headers carry the seconds since the script started, so a log shows
# where CI time goes.
stage() { echo "== $* [${SECONDS}s]"; }
status=0
stages=("$@"); [ ${#stages[@]} -gt 0 ] || stages=(1.14.6 2)

verdict() { # version mpi rc
    if [ "$3" -eq 0 ]; then echo "== HDF5 $1 ($2): all tests passed"
    else echo "== HDF5 $1 ($2): FAILURES"; status=1; fi
}
mpi_name() { # "Open MPI 4.1.4" from mpirun --version
    "$@" --version 2>/dev/null | head -1 | sed -E 's/^[^(]*\(([^)]*)\) *(.*)$/\1 \2/'
}
# Not run again under another HDF5: multinode, slurm and conformance (all
# run under 1.14.5; the conformance programs are 1.14.5's own), fuzz (no HDF5 in
# them), "once" (t_huge: h5sf's own bounds; its small variant stays), sweep
# (h5sf's error paths, about 5 minutes a run on 2 cores; under 1.14.5 with
# both MPIs; its fast subset t_sweep_fast_* stays, except under 2.x: below).  The
# 1.14.6 stage also leaves out "unit" (no HDF5 in them, and the same MPI and
# compiler as the 1.14.5 pass); the 2.x stage keeps them for its other MPI.
skip_labels='multinode|conformance|fuzz|once|slurm|sweep'
jobs="${H5SF_CTEST_JOBS:-$(nproc)}" # tests at a time, as in test.sh
only=""; [ -z "${H5SF_CTEST_R:-}" ] || only="-R '$H5SF_CTEST_R'"

hdf5_version() { awk '/define H5_VERSION /{gsub(/"/,"",$3); print $3}' "$1"; }

stage_1146() {
    local prefix="$CACHE/hdf5-1.14.6+repack-2-openmpi" dir="$root/build-hdf5-1.14.6" rc=0
    stage "build against HDF5 1.14.6 ($dir)"
    H5SF_HDF5_VERSION=1.14.6 "$root/scripts/bootstrap.sh" || rc=1
    if [ $rc -eq 0 ] && H5SF_HDF5_VERSION=1.14.6 H5SF_HDF5_PREFIX="$prefix" H5SF_SANITIZE=0 \
         H5SF_BUILD_DIR="$dir" "$root/scripts/build.sh"; then
        ( export H5SF_HDF5_PREFIX="$prefix" H5SF_BUILD_DIR="$dir"
          source "$root/scripts/env.sh"; cd "$dir" && eval ctest --output-on-failure -j "$jobs" -LE "'$skip_labels|unit'" "$only" ) || rc=1
    else
        echo "build against HDF5 1.14.6 failed" >&2; rc=1
    fi
    verdict "$(hdf5_version "$prefix/include/H5pubconf.h")" "$(mpi_name mpirun)" $rc
}

# ---- 2.x in the chroot --------------------------------------------------------
R=""
mounts=()
umount_all() { local m; for ((i=${#mounts[@]}-1; i>=0; i--)); do umount -l "${mounts[i]}" 2>/dev/null; done; mounts=(); }
bind() { mkdir -p "$R$2"; mount --bind "$1" "$R$2" && mounts+=("$R$2"); }
BTL=()  # extra environment for the chroot's MPI (sm_check)
in_root() { # command string, run as root in the chroot with the test environment
    chroot "$R" /usr/bin/env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/root LANG=C.UTF-8 \
        OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 \
        HDF5_PLUGIN_PATH="$root/build-hdf5-2/lib" "${BTL[@]}" bash -c "$1"
}
# Open MPI 5.0-6.0.0rc2's sm BTL stalls under the IOC's traffic pattern:
# test/mpi_repro/sm_progress.c shows it with MPI alone (no h5sf, no HDF5),
# upstream open-mpi/ompi#12816 and #12979.  Run it for the record, then
# test h5sf over btl self,tcp, which that program never stalls on.
sm_check() { # $1: MPI name and version
    case "$1" in "Open MPI 5."*|"Open MPI 6.0.0"*rc*) ;; *) return ;; esac
    local exe="$root/build-hdf5-2/sm_progress" n=0 k out
    BTL=(OMPI_MCA_btl=self,tcp)
    echo "the h5sf tests below run over btl self,tcp (OMPI_MCA_btl=self,tcp): the sm BTL of $1 stalls (open-mpi/ompi#12816, #12979)"
    in_root "mpicc -O2 -o '$exe' '$root/test/mpi_repro/sm_progress.c'" || return 0
    for k in 1 2 3 4 5; do
        out=$(BTL=(); in_root "timeout 60 mpiexec -n 8 --oversubscribe '$exe' 300" 2>&1) # the sm BTL: the default
        if grep -q 'phases done' <<<"$out"; then :
        elif grep -q 'signal 14\|Alarm' <<<"$out"; then n=$((n+1))
        else echo "sm_progress did not run:"; tail -5 <<<"$out"; return 0; fi
    done
    echo "$1, sm BTL, MPI alone (test/mpi_repro/sm_progress.c): stalled in $n of 5 runs"
}
host_114() { # command string, on the host with the HDF5 1.14.5 build (build/)
    ( export H5SF_BUILD_DIR="$root/build"; source "$root/scripts/env.sh"; bash -c "$1" )
}

stage_2() {
    local rc=0 ver mpi xd="$root/build-hdf5-2/xver"
    stage "build against HDF5 2.x (Debian unstable packages, chroot)"
    R=$("$root/scripts/rootfs.sh") || { verdict "2.x" "?" 1; return; }
    [ "$(id -u)" -eq 0 ] || { echo "the HDF5 2.x stage needs root (chroot, bind mounts)" >&2; verdict "2.x" "?" 1; return; }
    trap umount_all EXIT
    bind /proc /proc; bind /sys /sys; bind /dev /dev; bind /dev/shm /dev/shm; bind "$root" "$root"
    mkdir -p "$R/tmp" && chmod 1777 "$R/tmp"
    ver=$(hdf5_version "$R/usr/include/hdf5/openmpi/H5pubconf.h")
    mpi=$(in_root "mpirun --version" 2>/dev/null | head -1 | sed -E 's/^[^(]*\(([^)]*)\) *(.*)$/\1 \2/')
    if in_root "cmake -S '$root' -B '$root/build-hdf5-2' -DCMAKE_C_COMPILER=mpicc >/dev/null &&
                cmake --build '$root/build-hdf5-2' -j2 >'$root/build-hdf5-2.log' 2>&1 || { tail -40 '$root/build-hdf5-2.log'; exit 1; }"; then
        sm_check "$mpi"
        echo "skipped in the chroot: multinode_* (they need network namespaces: scripts/netns-cluster.sh)"
        echo "skipped in the chroot: eco_example_nodelocal_h5repack, t_plain_h5dump (Debian's h5repack and h5dump are linked with the serial HDF5; the parallel plugin cannot load into them)"
        echo "skipped in the chroot: t_fault_pwrite_meta_coll*, t_sweep_fast_* (after any failed collective metadata flush this HDF5, built with assertions, aborts in H5SL_term_package at MPI_Finalize or H5close; 1.14.x prints 'infinite loop closing library' there: docs/reliability.md)"
        in_root "cd '$root/build-hdf5-2' && ctest --output-on-failure -j $jobs $only -LE '$skip_labels' -E '^(eco_example_nodelocal_h5repack|t_plain_h5dump|t_fault_pwrite_meta_coll.*|t_sweep_fast_.*)\$'" || rc=1
    else
        echo "build against HDF5 $ver failed" >&2; rc=1
    fi

    stage "interop: h5sf under HDF5 $ver <-> h5sf and the built-in subfiling driver under HDF5 1.14.5"
    local x2="$root/build-hdf5-2/bin/t_xver" x1="$root/build/bin/t_xver" run="mpiexec -n 2 --oversubscribe"
    if [ ! -x "$x1" ]; then echo "no $x1 (HDF5 1.14.5 build)" >&2; rc=1
    elif [ $rc -eq 0 ] || [ -x "$x2" ]; then
        rm -rf "$xd"; mkdir -p "$xd"
        { in_root "$run $x2 write h5sf $xd/from2.h5" &&
          host_114 "$run $x1 verify h5sf $xd/from2.h5" &&
          host_114 "$run $x1 verify subfiling $xd/from2.h5" &&
          host_114 "$run $x1 write h5sf $xd/from114.h5" &&
          host_114 "$run $x1 write subfiling $xd/from114-builtin.h5" &&
          in_root "$run $x2 verify h5sf $xd/from114.h5" &&
          in_root "$run $x2 verify h5sf $xd/from114-builtin.h5"; } || rc=1
        grep -q "define H5_HAVE_SUBFILING_VFD" "$R/usr/include/hdf5/openmpi/H5pubconf.h" ||
            echo "HDF5 $ver (Debian) is built without its subfiling driver: its side of the interop is h5sf only"
    fi
    umount_all; trap - EXIT
    verdict "$ver" "$mpi" $rc
}

for s in "${stages[@]}"; do
    case "$s" in
        1.14.6) stage_1146 ;;
        2|2.x) stage_2 ;;
        *) echo "unknown stage $s" >&2; status=1 ;;
    esac
done
exit "$status"
