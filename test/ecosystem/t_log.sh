#!/usr/bin/env bash
# t_log.sh -- the H5SF_LOG layout trace printed at open, on rank 0 only.
#
#   t_log.sh MPIEXEC EXE WORKDIR          (EXE: docs/examples write_read_by_name)
#
# json: 4 ranks, ioc=every:2, 3 subfiles -> exactly one JSON object per open
#   (create, then read-only), parsed with Python's json module and checked
#   against what the settings imply (check_log.py).
# debug: ioc=ranks:1;3, channel=direct, 4 subfiles -> the text names the
#   channel, why, the thread level, the IOC choice and each IOC's subfiles.
set -uo pipefail
mpiexec=$1 exe=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
rm -rf "$work" && mkdir -p "$work" || exit 1

H5SF_LOG=json timeout 240 "$mpiexec" -n 4 ${H5SF_MPIEXEC_FLAGS-} "$exe" "$work/j.h5" "stripe_size=64KiB,stripe_count=3,ioc=every:2" \
    2>"$work/json.err" || fail "json run failed: $(cat "$work/json.err")"
python3 "$here/check_log.py" "$work/json.err" "$work/j.h5" || fail "JSON trace"

H5SF_LOG=debug timeout 240 "$mpiexec" -n 4 ${H5SF_MPIEXEC_FLAGS-} "$exe" "$work/d.h5" "stripe_size=64KiB,stripe_count=4,ioc=ranks:1;3,channel=direct" \
    2>"$work/debug.err" || fail "debug run failed: $(cat "$work/debug.err")"
cat "$work/debug.err"
expect() { grep -qF -- "$1" "$work/debug.err" || fail "debug trace lacks: $1"; }
expect "h5sf: open $work/d.h5 (create): 4 ranks on 1 node(s)"
expect "h5sf: open $work/d.h5 (rdonly): 4 ranks on 1 node(s)"
expect "channel direct (requested; thread level MPI_THREAD_MULTIPLE"
expect "2 IOC(s), chosen by ioc=ranks:1;3: explicit list"
expect "IOC rank 1 owns subfile(s) 0 2"
expect "IOC rank 3 owns subfile(s) 1 3"
expect "stripe_size 65536, 4 subfile(s)"
n=$(grep -c '^h5sf: open ' "$work/debug.err")
[[ $n == 2 ]] || fail "expected the trace twice (rank 0, two opens), got $n"

if ((fails)); then echo "t_log.sh: $fails failure(s)"; exit 1; fi
rm -rf "$work"
echo "t_log.sh: OK"
