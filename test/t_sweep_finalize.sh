#!/usr/bin/env bash
# t_sweep_finalize.sh -- the sweep's scenario "a file left open at
# MPI_Finalize" (test/t_sweep.c, mode finalize): one launch per N, since
# MPI_Finalize ends the job.  For each kind of site and for the first and
# the last rank, N = 1, 2, ... until a launch reaches no Nth site counted
# from the start of MPI_Finalize.  Each launch must end by itself within
# its bound, exit 0 on every rank (the program checks that no h5sf thread
# is left); the last file then reads back (mode finalize_verify).
#
# usage: t_sweep_finalize.sh MPIEXEC "FLAGS" EXE DIR NP CHANNEL [KINDS [RANKS]]
set -uo pipefail
mpiexec=$1 flags=$2 exe=$3 dir=$4 np=$5 chan=$6
kinds=${7:-alloc,syscall,mpi}
ranks=${8:-first,last}
bound=${T_SWEEP_BOUND:-60}
mkdir -p "$dir"
status=0
# shellcheck disable=SC2086  # FLAGS are words
launch() { timeout "$bound" "$mpiexec" -n "$np" $flags "$exe" "$dir" "$@"; }

for kind in ${kinds//,/ }; do
    for which in ${ranks//,/ }; do
        rank=0
        [ "$which" = last ] && rank=$((np - 1))
        [ "$which" = last ] && [ "$np" -eq 1 ] && continue
        n=1 t0=$SECONDS fails=0
        while :; do
            out=$(launch finalize "$chan" "$kind" "$rank" "$n" 2>&1)
            rc=$?
            if [ $rc -ne 0 ]; then
                echo "t_sweep_finalize: FAIL finalize $chan np$np $kind rank $rank N=$n: exit status $rc" \
                    "$([ $rc -eq 124 ] && echo "(no end within ${bound} s)")"
                echo "$out" | tail -40
                status=1
                # Go on with the next site, a few times: one defect should
                # not hide the others, nor cost a watchdog per site.
                fails=$((fails + 1))
                [ $fails -ge "${T_SWEEP_MAX_FAILS:-3}" ] && break
                n=$((n + 1))
                continue
            fi
            reached=$(echo "$out" | sed -n 's/^t_sweep finalize: reached=\([01]\).*/\1/p' | head -1)
            if [ -z "$reached" ]; then
                echo "t_sweep_finalize: FAIL finalize $chan np$np $kind rank $rank N=$n: no verdict"
                echo "$out" | tail -40
                status=1
                break
            fi
            [ "$reached" = 0 ] && break
            n=$((n + 1))
        done
        echo "t_sweep: finalize     $chan np$np $kind rank $rank: $((n - 1)) sites from MPI_Finalize on;" \
            "$n launches; $((SECONDS - t0)) s"
    done
done
out=$(launch finalize_verify "$chan" 2>&1) || {
    echo "t_sweep_finalize: FAIL the file left open at MPI_Finalize does not read back"
    echo "$out" | tail -40
    status=1
}
[ $status -eq 0 ] && echo "t_sweep_finalize: ok" || echo "t_sweep_finalize: FAIL"
exit $status
