#!/usr/bin/env bash
# t_security_preload.sh -- the preload shim's clean-up at a plain create over
# a subfiled file removes only the file's own set, and only the caller's
# own files (docs/security.md; test/t_security_preload.cmake).
#
# Two real accounts (test/two_accounts.sh), in $TA/group (mode 0777, not
# sticky: either account may remove the other's names there).  The victim
# writes v.h5 and w.h5 with h5sf.  The attacker then plants
# "v.h5.subfile_<inode>_README.txt" and replaces the victim's subfile 1 of
# v.h5 by a file of its own.  The victim, under the shim with
# H5SF_REDIRECT_MPIO=1, makes both names plain HDF5 files (H5Fcreate,
# H5F_ACC_TRUNC, default driver: t_preload_coll plain FILE):
#   - both attacker files are still there, with their bytes, and the shim
#     says the set was not removed ("owned by uid <attacker>")
#   - w.h5, which nobody touched, loses its config file and subfiles.
# Environment: T_BIN, T_MPIEXEC, T_PRELOAD (libh5sf_preload.so), H5SF_MPI.
# Exit 77 without root and setpriv.
set -u -o pipefail
. "$(dirname "$0")/two_accounts.sh"
ta_setup
TA=$(readlink -f "$TA")
unset H5SF_CONFIG_DIR H5FD_SUBFILING_CONFIG_FILE_PREFIX H5SF_SUBFILE_DIR HDF5_DRIVER HDF5_DRIVER_CONFIG
G=$TA/group
fails=0
bad() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
mpi() { as_victim timeout 120 "$T_MPIEXEC" -n 1 ${H5SF_MPIEXEC_FLAGS-} "$@"; }
if [[ ${H5SF_MPI:-openmpi} == mpich ]]; then
    shim=(-genv LD_PRELOAD "$T_PRELOAD" -genv H5SF_REDIRECT_MPIO 1)
else
    shim=(-x LD_PRELOAD="$T_PRELOAD" -x H5SF_REDIRECT_MPIO=1)
fi

for n in v w; do
    mpi "$T_BIN/t_tools_writer" "$G" $n "stripe_size=4096,stripe_count=2" --mib 0.05 --no-ref >"$TA/w.log" 2>&1 ||
        { cat "$TA/w.log"; ta_fail "the victim's write of $G/$n.h5"; }
done
vi=$(stat -c %i "$G/v.h5")
wi=$(stat -c %i "$G/w.h5")
as_attacker sh -c 'echo planted > "$1" && echo replaced > "$2.tmp" && mv -f "$2.tmp" "$2"' sh \
    "$G/v.h5.subfile_${vi}_README.txt" "$G/v.h5.subfile_${vi}_1_of_2" || ta_fail "the attacker's files"
ls -l "$G"

for n in v w; do
    mpi "${shim[@]}" "$T_BIN/t_preload_coll" plain "$G/$n.h5" >"$TA/$n.log" 2>&1 ||
        { cat "$TA/$n.log"; bad "the victim's plain create of $G/$n.h5"; }
done
cat "$TA/v.log"
ls -l "$G"
[[ $(cat "$G/v.h5.subfile_${vi}_README.txt" 2>/dev/null) == planted ]] ||
    bad "the attacker's v.h5.subfile_${vi}_README.txt was removed or changed"
[[ $(cat "$G/v.h5.subfile_${vi}_1_of_2" 2>/dev/null) == replaced ]] ||
    bad "the attacker's file at v.h5.subfile_${vi}_1_of_2 was removed or changed"
grep -q "not removed: owned by uid $TA_ATTACKER" "$TA/v.log" || bad "the shim did not say why v.h5's set stayed"
left=$(ls "$G" | grep -c "^w\.h5\.subfile_${wi}")
[[ $left == 0 ]] || bad "w.h5: $left of its config file and subfiles left after the plain create"

if ((fails)); then echo "t_security_preload.sh: $fails failure(s)"; exit 1; fi
echo "t_security_preload.sh: OK"
