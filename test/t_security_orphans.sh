#!/usr/bin/env bash
# t_security_orphans.sh -- a config file planted in a shared directory makes
# neither the victim's create nor `h5sf-orphans --remove` delete another
# live file's subfiles (docs/security.md; test/t_security_orphans.cmake).
#
# Two real accounts (test/two_accounts.sh).  The victim has live subfiled
# files in its home, each with its subfiles in a directory of their own
# (home/cN/sub).  The attacker, who cannot write there, learns a file's
# inode (ls -i) and plants, in $TA/shared (1777) and $TA/group (0777, not
# sticky), "live.h5.subfile_<inode>.config" whose hdf5_file= is the name the
# victim uses there and whose subfile_dir= is the victim's directory: the
# subfile names it describes are exactly the victim's.  Then the victim
#   1, 2  creates live.h5 with h5sf in shared/ and group/ (H5Fcreate reclaims
#         the orphans of the name it creates)
#   3, 4  runs h5sf-orphans --remove on shared/ and group/; the listing names
#         the planted sets "not removed: owned by uid <attacker>"
#   5     (its stub beside its subfiles) the same against a file whose
#         directory holds the stub itself
# and every victim file must still have its bytes (sha256 taken before) and
# read back, through h5sf-fuse, as the MPI-IO reference written with it
# (h5diff).  Then
#   6     a subfile_dir= and hdf5_file= holding ESC and BEL: h5sf-orphans
#         prints neither byte
#   7     the victim's own orphan in shared/ (its stub removed with rm) is
#         still removed by h5sf-orphans --remove.
# Environment as test/t_tools.sh's (T_BIN, T_HDF5_BIN, T_MPIEXEC).  Exit 77
# without root and setpriv.
set -u -o pipefail
. "$(dirname "$0")/two_accounts.sh"
ta_setup
TA=$(readlink -f "$TA") # hdf5_file= holds resolved paths
export PATH="$T_BIN:$T_HDF5_BIN:$PATH"
unset H5SF_CONFIG_DIR H5FD_SUBFILING_CONFIG_FILE_PREFIX H5SF_SUBFILE_DIR HDF5_DRIVER HDF5_DRIVER_CONFIG
CFG="stripe_size=4096,stripe_count=2"
fails=0
bad() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
writer() { as_victim timeout 120 "$T_MPIEXEC" -n 1 ${H5SF_MPIEXEC_FLAGS-} "$T_BIN/t_tools_writer" "$@"; }
sums() { (cd "$1" && find . -type f ! -name '*.mpio.h5' | sort | xargs sha256sum); }

# A live victim file home/$1/live.h5 (subfiles in home/$1/sub, or beside
# the stub with "same"), with its MPI-IO reference; its sums saved.
victim_file() {
    local d=$TA/home/$1 sub=$TA/home/$1/sub
    [[ ${2:-} == same ]] && sub=$d
    as_victim mkdir -p "$sub" || ta_fail "mkdir $sub"
    writer "$d" live "$CFG,subfile_dir=$sub" --mib 0.05 >"$TA/w.log" 2>&1 || { cat "$TA/w.log"; ta_fail "victim's write in $d"; }
    [[ $(ls "$sub"/live.h5.subfile_*_of_2 | wc -l) == 2 ]] || ta_fail "$d: no subfiles in $sub"
    sums "$d" >"$TA/$1.sums"
}

# The attacker's config file in dir $1 for the victim's file $2 (home/$2),
# naming stub $1/live.h5.
plant() {
    local dir=$1 c=$2 ino sub=$TA/home/$2/sub
    [[ ${3:-} == same ]] && sub=$TA/home/$2
    ino=$(stat -c %i "$TA/home/$c/live.h5")
    as_attacker sh -c 'printf "%s\n" "$@" > "$0"' "$dir/live.h5.subfile_$ino.config" \
        "stripe_size=4096" "aggregator_count=1" "subfile_count=2" "hdf5_file=$dir/live.h5" "subfile_dir=$sub" \
        "live.h5.subfile_${ino}_1_of_2" "live.h5.subfile_${ino}_2_of_2" || ta_fail "planting in $dir"
}

# The victim's file home/$1 is whole: same bytes, same data.
intact() {
    local d=$TA/home/$1
    sums "$d" | cmp -s - "$TA/$1.sums" || { bad "$2: the victim's files in $d changed or went:"; ls -lR "$d" >&2; return; }
    as_victim timeout 120 h5sf-fuse -q "$d/live.h5" "$TA/home/tmp/$1.fused.h5" >"$TA/f.log" 2>&1 &&
        timeout 120 h5diff -q "$TA/home/tmp/$1.fused.h5" "$d/live.mpio.h5" ||
        { cat "$TA/f.log" >&2; bad "$2: the victim's $d/live.h5 does not read back as written"; }
}

for c in c1 c2 c3 c4; do victim_file $c; done
victim_file c5 same

echo "== 1, 2. the victim creates live.h5 in shared/ and group/"
plant "$TA/shared" c1
plant "$TA/group" c2
for d in shared group; do
    writer "$TA/$d" live "$CFG" --mib 0.05 --no-ref >"$TA/w.log" 2>&1 || { cat "$TA/w.log"; bad "the victim's create in $d"; }
done
intact c1 "create in shared/"
intact c2 "create in group/"

echo "== 3, 4, 5. the victim runs h5sf-orphans --remove on shared/ and group/"
plant "$TA/shared" c3
plant "$TA/group" c4
plant "$TA/group" c5 same
for d in shared group; do
    as_victim timeout 120 h5sf-orphans --remove "$TA/$d" >"$TA/o.log" 2>&1
    cat "$TA/o.log"
    grep -q "not removed: owned by uid $TA_ATTACKER" "$TA/o.log" ||
        bad "h5sf-orphans --remove $d: the planted set is not listed as not removed"
done
intact c3 "h5sf-orphans --remove shared/"
intact c4 "h5sf-orphans --remove group/"
intact c5 "h5sf-orphans --remove group/, the stub beside its subfiles"

echo "== 6. control characters in a planted config file"
as_attacker mkdir -p "$TA/shared/e"
as_attacker sh -c 'printf "%s\n" "$@" > "$0"' "$TA/shared/e/x.h5.subfile_77.config" "stripe_size=4096" \
    "subfile_count=1" "hdf5_file=$TA/shared/e/"$'\e]0;owned\a'"/x.h5" "subfile_dir=$TA/"$'\e[2J\e[31m'"red"
as_victim timeout 60 h5sf-orphans "$TA/shared/e" >"$TA/e.log" 2>&1
grep -q "x.h5.subfile_77.config" "$TA/e.log" || { cat "$TA/e.log"; bad "the planted set with escapes is not listed"; }
if LC_ALL=C grep -q $'[\e\a]' "$TA/e.log"; then
    bad "h5sf-orphans printed a raw ESC or BEL:"
    od -c "$TA/e.log" | head -20 >&2
fi

echo "== 7. the victim's own orphan in shared/ is still removed"
writer "$TA/shared" mine "$CFG" --mib 0.05 --no-ref >"$TA/w.log" 2>&1 || { cat "$TA/w.log"; bad "the victim's write of mine.h5"; }
as_victim rm "$TA/shared/mine.h5"
as_victim timeout 120 h5sf-orphans --remove "$TA/shared" >"$TA/o.log" 2>&1
cat "$TA/o.log"
left=$(ls "$TA/shared" | grep -c '^mine\.h5\.subfile_')
[[ $left == 0 ]] || bad "the victim's own orphan mine.h5: $left file(s) left: $(ls "$TA/shared")"

if ((fails)); then echo "t_security_orphans.sh: $fails failure(s)"; exit 1; fi
echo "t_security_orphans.sh: OK"
