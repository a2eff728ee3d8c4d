#!/usr/bin/env bash
# t_preload.sh -- libh5sf_preload.so on a program that hard-codes MPI-IO.
#
#   t_preload.sh MPIEXEC T_PRELOAD_EXE PRELOAD_LIB WORKDIR NPROCS
#
# 1. H5SF_REDIRECT_MPIO=1: the file comes out subfiled (stub, config, the
#    H5SF_STRIPE_COUNT subfiles), and its data verifies with h5sf and with
#    HDF5's built-in subfiling driver (an independent reader).  Reading the
#    stub alone with MPI-IO must fail: the data is really in the subfiles.
#    Each group's rank 0 alone reads it back with the default driver (the
#    shim opens it with h5sf on MPI_COMM_SELF).
# 2. Unset and =0: a plain MPI-IO file, no subfiles, verified with MPI-IO,
#    also by the program under the redirect (plain files stay with MPI-IO).
# 3. A bad value fails with a message naming the variable.
# T_PRELOAD_NO_PLUGIN_PATH=1: the redirected write runs without
# HDF5_PLUGIN_PATH (an installed shim finds the installed plugin itself).
set -uo pipefail
mpiexec=$1 exe=$2 preload=$3 work=$4 np=$5
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# run NP [VAR=value ...] -- program args: VARs go to the ranks only (Open
# MPI's -x, MPICH Hydra's -genv), so mpiexec itself is never preloaded.
run() {
    local n=$1; shift
    local xs=()
    while [[ $# -gt 0 && $1 != -- ]]; do
        if [[ ${H5SF_MPI:-openmpi} == mpich ]]; then xs+=(-genv "${1%%=*}" "${1#*=}"); else xs+=(-x "$1"); fi
        shift
    done
    shift
    "${pre[@]}" timeout 240 "$mpiexec" -n "$n" ${H5SF_MPIEXEC_FLAGS-} "${xs[@]}" "$@"
}
pre=()
count() { compgen -G "$1" | wc -l; }

rm -rf "$work" && mkdir -p "$work/redirect" "$work/plain" "$work/plain0" "$work/bad" || exit 1

echo "== 1. redirected"
[[ ${T_PRELOAD_NO_PLUGIN_PATH:-0} == 1 ]] && pre=(env -u HDF5_PLUGIN_PATH)
run "$np" LD_PRELOAD="$preload" H5SF_REDIRECT_MPIO=1 H5SF_STRIPE_SIZE=64KiB H5SF_STRIPE_COUNT=3 \
    -- "$exe" write "$work/redirect" || fail "write under the redirect"
pre=()
groups=$(( np > 1 ? 2 : 1 ))
for ((g = 0; g < groups; g++)); do
    f="$work/redirect/group$g.h5"
    [[ -f $f ]] || fail "$f missing"
    [[ $(count "$f.subfile_*.config") == 1 ]] || fail "$f: no config file (not subfiled)"
    [[ $(count "$f.subfile_*_of_3") == 3 ]] || fail "$f: expected 3 subfiles, found: $(ls "$work/redirect")"
done
ls -l "$work/redirect"
run "$np" -- "$exe" verify-h5sf "$work/redirect" || fail "verify the redirected file with h5sf"
run "$np" -- "$exe" verify-subfiling "$work/redirect" || fail "verify the redirected file with the built-in subfiling driver"
run "$np" LD_PRELOAD="$preload" H5SF_REDIRECT_MPIO=1 -- "$exe" verify-serial "$work/redirect" \
    || fail "rank 0 alone reading the redirected file with the default driver"
echo "(expected to fail: the stub alone holds no data)"
if run "$np" -- "$exe" verify-mpio "$work/redirect" >"$work/neg.log" 2>&1; then
    fail "the stub of a subfiled file verified with MPI-IO: the verify cannot tell"
fi

echo "== 2. not redirected"
run "$np" LD_PRELOAD="$preload" -- "$exe" write "$work/plain" || fail "write with the shim, no redirect"
run "$np" LD_PRELOAD="$preload" H5SF_REDIRECT_MPIO=0 -- "$exe" write "$work/plain0" || fail "write with H5SF_REDIRECT_MPIO=0"
for d in plain plain0; do
    [[ $(count "$work/$d/*.subfile_*") == 0 ]] || fail "$d: subfiles exist: $(ls "$work/$d")"
    [[ $(count "$work/$d/group*.h5") == "$groups" ]] || fail "$d: files missing: $(ls "$work/$d")"
    run "$np" -- "$exe" verify-mpio "$work/$d" || fail "verify the $d file with MPI-IO"
done
# A plain file read by a redirected program stays with MPI-IO (HDF5's
# testphdf5 calloc: written serially, then opened in parallel).
run "$np" LD_PRELOAD="$preload" H5SF_REDIRECT_MPIO=1 -- "$exe" verify-mpio "$work/plain" \
    || fail "a plain MPI-IO file read under the redirect"

echo "== 3. bad value"
if run "$np" LD_PRELOAD="$preload" H5SF_REDIRECT_MPIO=maybe -- "$exe" write "$work/bad" >"$work/bad.log" 2>&1; then
    fail "H5SF_REDIRECT_MPIO=maybe was accepted"
fi
grep -q 'H5SF_REDIRECT_MPIO="maybe"' "$work/bad.log" || { cat "$work/bad.log"; fail "no message naming H5SF_REDIRECT_MPIO"; }

if ((fails)); then echo "t_preload.sh: $fails failure(s)"; exit 1; fi
rm -rf "$work"
echo "t_preload.sh: OK"
