#!/usr/bin/env bash
# run_example.sh -- run a docs/examples program and check its file on disk.
#
#   run_example.sh MPIEXEC NPROCS WORKDIR FILE NSUBFILES EXE [ARGS...]
#
# Runs "EXE WORKDIR/FILE ARGS..." on NPROCS ranks in a fresh WORKDIR (the
# example verifies its own data against its formula and exits 1 on a
# mismatch), then checks that FILE was written subfiled: one config file
# and NSUBFILES subfiles named <FILE>.subfile_<inode>_<NN>_of_<NSUBFILES>.
set -uo pipefail
mpiexec=$1 np=$2 work=$3 file=$4 nsub=$5 exe=$6
shift 6
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
timeout 240 "$mpiexec" -n "$np" ${H5SF_MPIEXEC_FLAGS-} "$exe" "$work/$file" "$@" || { echo "FAIL: example exited $?"; exit 1; }
nconf=$(compgen -G "$work/$file.subfile_*.config" | wc -l)
nfound=$(compgen -G "$work/$file.subfile_*_of_$nsub" | wc -l)
if [[ $nconf != 1 || $nfound != "$nsub" ]]; then
    echo "FAIL: expected 1 config file and $nsub subfiles of $file, found:"; ls -l "$work"; exit 1
fi
rm -rf "$work"
echo "run_example.sh: $(basename "$exe") OK ($nsub subfiles)"
