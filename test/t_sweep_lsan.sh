#!/usr/bin/env bash
# t_sweep_lsan.sh -- run a command (an MPI job) with LeakSanitizer's leak
# check on where the build has it (the ASan build), and fail if a leaked
# block was allocated by h5sf or the test: a frame of h5sf (a source file
# of vfd/, ioc/ or common/) or of t_sweep in its allocation stack; the
# ASan build has debug information, so frames of ours always name their
# file.  The MPI libraries' own leaks at exit are not counted: their
# stacks name no source file of ours (the MPI components are unloaded by
# then, so LeakSanitizer cannot name them, and may even take a frame of
# theirs for one of libh5sf, at an address past its end; suppressions by
# library cannot match); test/lsan.supp drops the ones it can name.
# Without ASan the command runs as it is.
#
# usage: t_sweep_lsan.sh LOGDIR SUPPRESSIONS command...
set -uo pipefail
logdir=$1 supp=$2
shift 2
rm -rf "$logdir" && mkdir -p "$logdir"
export ASAN_OPTIONS="detect_leaks=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export ASAN_OPTIONS="${ASAN_OPTIONS//detect_leaks=0/detect_leaks=1}"
export LSAN_OPTIONS="exitcode=0:log_path=$logdir/lsan:suppressions=$supp"
"$@"
rc=$?
ours=0
for f in "$logdir"/lsan.*; do
    [ -e "$f" ] || continue
    # One block per leak: from its "leak of" line to the next empty line.
    n=$(awk -v ours='(vfd|ioc|common)/[A-Za-z0-9_]+[.]c:|t_sweep[.]c:' '
             /leak of/ { blk = $0; next }
             blk != "" && NF == 0 { if (blk ~ ours) print blk; blk = ""; next }
             blk != "" { blk = blk "\n" $0 }
             END { if (blk ~ ours) print blk }' "$f")
    if [ -n "$n" ]; then
        echo "t_sweep_lsan: leaks of h5sf or the test ($f):"
        echo "$n"
        ours=1
    fi
done
others=$(cat "$logdir"/lsan.* 2>/dev/null | grep -c 'leak of' || true)
echo "t_sweep_lsan: $others leak report(s) in all, of h5sf or the test: $([ $ours = 1 ] && echo some || echo none)"
[ $rc -ne 0 ] && exit $rc
exit $ours
