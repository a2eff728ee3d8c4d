#!/usr/bin/env bash
# h5py, the Python interface most HDF5 users meet first, through h5sf: its
# own test suite and a 4-rank program, in the HDF5 2.x root filesystem of
# scripts/rootfs.sh (Debian unstable's python3-h5py-mpi, built against the
# same parallel HDF5 as h5sf's build-hdf5-2/ there).  Runs, as root in the
# chroot (bind mounts as scripts/test-versions.sh's 2.x stage):
#   sec2      h5py's tests as shipped, HDF5's default driver, h5sf's plugin
#             directory on HDF5_PLUGIN_PATH (a plugin must not disturb opens
#             that do not use it)
#   h5sf      the same tests under HDF5_DRIVER=h5sf (every file h5py opens
#             without a driver of its own is a subfiled file)
#   mpi-direct, mpi-ioc
#             h5py's suite at 2 ranks (pytest --with-mpi), its MPI tests
#             (driver='mpio') through the preload redirect (H5SF_REDIRECT_MPIO=1, the shim on the
#             ranks only, H5SF_PRELOAD_THREAD_MULTIPLE=1), H5SF_CHANNEL=direct
#             and ioc
#   program   test/h5py/parallel_roundtrip.py at 4 ranks through MPI-IO (the
#             reference) and through the redirect: every rank verifies
#             either file against the pattern; the h5sf file has a config
#             file and subfiles and a small stub; h5sf-fuse of it and the
#             MPI-IO file are identical to h5diff (Debian's h5diff is linked
#             with the serial HDF5, into which the parallel plugin cannot
#             load: hence the fused copy).
# A test that fails is expected only if test/h5py/expected-failures.txt
# names it for that run, with its reason (docs/clients.md, "h5py"); any
# other failure fails the stage, and an expected failure that passes is
# reported.  The last line is
#   == clients (h5py): h5py <v>, HDF5 <v>: sec2 P/T, h5sf P/T (E expected), ...
# and the exit status is 0 only if nothing unexpected happened.
#
#   scripts/h5py-suite.sh          (needs root; builds build-hdf5-2/ in the
#                                   chroot if it is not built)
#   H5SF_H5PY_RUNS   the runs to do (default "sec2 h5sf mpi-direct mpi-ioc program")
# Logs and JUnit files go to build-hdf5-2/h5py-suite/.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
runs=(${H5SF_H5PY_RUNS:-sec2 h5sf mpi-direct mpi-ioc program})
b2="$root/build-hdf5-2"
out="$b2/h5py-suite"
expected="$root/test/h5py/expected-failures.txt"
preload="$b2/preload/libh5sf_preload.so"
took() { echo "  [$1: $((SECONDS - $2)) s]" >&2; }

[ "$(id -u)" -eq 0 ] || { echo "scripts/h5py-suite.sh needs root (chroot, bind mounts)" >&2; exit 2; }
R=$("$root/scripts/rootfs.sh") || { echo "== clients (h5py): no root filesystem"; exit 1; }

# ---- the chroot, as scripts/test-versions.sh's stage_2 ---------------------
mounts=()
umount_all() { local i; for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do umount -l "${mounts[i]}" 2>/dev/null; done; mounts=(); }
bind() { mkdir -p "$R$2"; mount --bind "$1" "$R$2" && mounts+=("$R$2"); }
# in_root COMMAND [VAR=VALUE...]: as root in the chroot, with a clean
# environment plus the variables given.  Open MPI 6.0.0rc2 over btl self,tcp
# as in the 2.x stage (its sm BTL stalls: scripts/test-versions.sh, sm_check).
in_root() {
    local c=$1; shift
    chroot "$R" /usr/bin/env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/root LANG=C.UTF-8 \
        OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 \
        OMPI_MCA_btl=self,tcp HDF5_PLUGIN_PATH="$b2/lib" "$@" bash -c "$c"
}
trap umount_all EXIT
bind /proc /proc; bind /sys /sys; bind /dev /dev; bind /dev/shm /dev/shm; bind "$root" "$root"
mkdir -p "$R/tmp" && chmod 1777 "$R/tmp"

# build-hdf5-2/ as the 2.x stage builds it (nothing to do when it is built).
t0=$SECONDS
in_root "cmake -S '$root' -B '$b2' -DCMAKE_C_COMPILER=mpicc >/dev/null &&
         cmake --build '$b2' -j2 >'$b2.log' 2>&1 || { tail -40 '$b2.log'; exit 1; }" ||
    { echo "== clients (h5py): build of h5sf against HDF5 2.x failed ($b2.log)"; exit 1; }
took build $t0

py() { in_root "python3 -c '$1'"; }
# Debian's h5py dispatches to its MPI build, whose tests are h5py's own.
tests=$(py 'import importlib.util as u, os; print(os.path.dirname(u.find_spec("h5py._debian_h5py_mpi").origin) + "/tests")')
h5py_v=$(py 'import h5py; print(h5py.__version__)')
hdf5_v=$(py 'import h5py; print(h5py.version.hdf5_version)')
[[ -n $tests && -f $preload ]] || { echo "== clients (h5py): no h5py tests in the root or no $preload"; exit 1; }
rm -rf "$out"; mkdir -p "$out"
status=0 line=()
count() { # RUN LABEL JUNIT...: one part of the result line
    local run=$1 label=$2 r; shift 2
    r=$(python3 "$root/scripts/lib/h5py-results.py" "$run" "$expected" "$@") || status=1
    line+=("$label ${r:-no result}")
}

# h5py's tests run as an ordinary user ("nobody"): as root, a read-only
# file opens for writing and test_append_permissions cannot pass.
user="setpriv --reuid=65534 --regid=65534 --clear-groups"
workdir() { mkdir -p "$1/tmp" && chmod 1777 "$1" "$1/tmp"; }

# pytest_serial RUN [VAR=VALUE...]: h5py's whole suite, one process.
pytest_serial() {
    local run=$1 d="$out/$1" t0=$SECONDS; shift
    workdir "$d"
    in_root "cd '$d' && timeout 900 $user python3 -m pytest -q -p no:cacheprovider --junitxml='$d/junit.xml' '$tests' >'$d/log' 2>&1" \
        TMPDIR="$d/tmp" HOME="$d/tmp" "$@"
    echo "  $run: $(grep -E '[0-9]+ (passed|failed)' "$d/log" | tail -1)" >&2
    if [[ " $* " == *" HDF5_DRIVER=h5sf "* && -z $(find "$d/tmp" -name '*.subfile_*.config' -print -quit) ]]; then
        echo "    $run: no subfiled file in $d/tmp: HDF5_DRIVER=h5sf did not take" >&2; status=1
    fi
    count "$run" "$run" "$d/junit.xml"
    took "$run" $t0
}

# pytest_mpi CHANNEL: h5py's whole suite at 2 ranks under the redirect, as
# h5py documents its MPI run (pytest --with-mpi): the tests marked mpi open
# one file on both ranks with driver='mpio' (redirected to h5sf); the others
# run on each rank alone with HDF5's default driver, under the shim.
pytest_mpi() {
    local run=mpi-$1 d="$out/mpi-$1" t0=$SECONDS x=()
    workdir "$d"
    x=(-x LD_PRELOAD="$preload" -x H5SF_REDIRECT_MPIO=1 -x H5SF_PRELOAD_THREAD_MULTIPLE=1 -x H5SF_CHANNEL="$1" -x TMPDIR="$d/tmp")
    [[ $1 == ioc ]] && x+=(-x H5SF_SAMENODE_READS=0 -x H5SF_SAMENODE_WRITES=0)
    in_root "cd '$d' && timeout 300 $user mpiexec -n 2 --oversubscribe ${x[*]} bash -c 'exec python3 -m pytest -q -p no:cacheprovider --with-mpi --junitxml=$d/junit.\$OMPI_COMM_WORLD_RANK.xml $tests' >'$d/log' 2>&1" HOME="$d/tmp"
    echo "  $run: $(grep -E '[0-9]+ (passed|failed)' "$d/log" | tail -1)" >&2
    # Subfiled files prove that the redirect took.
    if [[ -z $(find "$d/tmp" -name '*.subfile_*.config' -print -quit) ]]; then
        echo "    $run: no subfiled file in $d/tmp: the redirect did not take" >&2; status=1
    fi
    count "$run" "MPI $1" "$d"/junit.*.xml
    took "$run" $t0
}

# program: test/h5py/parallel_roundtrip.py at 4 ranks, MPI-IO and h5sf.
program() {
    local d="$out/program" t0=$SECONDS ok=1 p="$root/test/h5py/parallel_roundtrip.py" x stub sub
    workdir "$d"
    x="-x LD_PRELOAD=$preload -x H5SF_REDIRECT_MPIO=1 -x H5SF_PRELOAD_THREAD_MULTIPLE=1"
    in_root "cd '$d' && timeout 120 mpiexec -n 4 --oversubscribe python3 '$p' write mpiio.h5 && timeout 120 mpiexec -n 4 --oversubscribe python3 '$p' verify mpiio.h5 &&
             timeout 120 mpiexec -n 4 --oversubscribe $x python3 '$p' write h5sf.h5 && timeout 120 mpiexec -n 4 --oversubscribe $x python3 '$p' verify h5sf.h5" >"$d/log" 2>&1 || ok=0
    # The stub is sized to the logical end of file, sparse: count its blocks.
    stub=$(( $(stat -c '%b * %B' "$d/h5sf.h5" 2>/dev/null || echo 0) ))
    sub=$(find "$d" -maxdepth 1 -name 'h5sf.h5.subfile_*' ! -name '*.config' | wc -l)
    if ((ok)) && [[ -n $(find "$d" -maxdepth 1 -name 'h5sf.h5.subfile_*.config' -print -quit) ]] &&
       ((sub > 0 && stub > 0 && stub < 65536)); then
        echo "  program: h5sf.h5: a config file, $sub subfiles, a stub of $stub bytes on disk (MPI-IO's file: $(du -k "$d/mpiio.h5" | cut -f1) KiB)" >&2
    else
        echo "    program: failed or no subfiled file (stub $stub bytes, $sub subfiles): $d/log" >&2; ok=0
    fi
    if ((ok)) && in_root "'$b2/bin/h5sf-fuse' '$d/h5sf.h5' '$d/fused.h5' && h5diff -r '$d/fused.h5' '$d/mpiio.h5'" >>"$d/log" 2>&1; then
        echo "  program: h5diff -r h5sf-fuse(h5sf.h5) mpiio.h5: $(tail -1 "$d/log")" >&2
    else
        echo "    program: h5diff of the fused h5sf file and the MPI-IO file failed: $d/log" >&2; ok=0
    fi
    ((ok)) || status=1
    line+=("4-rank program $( ((ok)) && echo ok || echo FAILED)")
    took program $t0
}

for r in "${runs[@]}"; do
    case $r in
        sec2) pytest_serial sec2 ;;
        h5sf) pytest_serial h5sf HDF5_DRIVER=h5sf ;;
        mpi-direct) pytest_mpi direct ;;
        mpi-ioc) pytest_mpi ioc ;;
        program) program ;;
        *) echo "unknown run $r" >&2; status=1 ;;
    esac
done
umount_all; trap - EXIT
sum=$(printf '%s; ' "${line[@]}"); sum=${sum%; }
echo "== clients (h5py): h5py $h5py_v, HDF5 $hdf5_v: $sum$( ((status)) && echo ': FAILURES')"
exit $status
