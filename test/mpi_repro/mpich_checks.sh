#!/usr/bin/env bash
# mpich_checks.sh -- the evidence behind the tests skipped under MPICH: each
# check passes while the MPI behaviour that forced the skip is still there,
# and fails once it is gone, naming what to re-enable.  No h5sf in them.
#
#   mpich_checks.sh builtin-np1 MPIEXEC T_INTEROP
#       HDF5's built-in subfiling driver alone (t_interop --builtin-only) on
#       one rank: stalls past 20 s (Open MPI 4.1: about 2 s)
#   mpich_checks.sh finalize-threads MPIEXEC FINALIZE_THREADS
#       test/mpi_repro/finalize_threads.c on 2 ranks aborts (MPI calls from
#       two threads inside MPI_Finalize's callbacks) in one of up to 20 runs
#   mpich_checks.sh tcp-finalize NETNS_CLUSTER_SH TCP_FINALIZE
#       test/mpi_repro/tcp_finalize.c across 2 network-namespace hosts x 2
#       ranks (UCX over TCP): MPI_Finalize hangs in at least one of up to 16
#       runs (exit 77 where the hosts cannot be made)
#
# The last two are races whose odds depend on the machine's load (the same
# 16 runs hung 8 times here and never in another CI run, 2026-12-02), so a
# run that does not reproduce one is no evidence that it is gone: under the
# MPICH it was seen with (4.0.2) such a check is skipped, and it fails only
# under another MPICH version, where the race should be looked at again.
set -uo pipefail
what=$1 mpiexec=$2 exe=$3
log=$(mktemp) dir=$(mktemp -d)
trap 'rm -rf "$log" "$dir"' EXIT
seen_with=4.0.2

# not_reproduced MPIEXEC RUNS WHAT NEXT: a race check that never fired.
not_reproduced() {
    local version runs=$2 event=$3 next=$4
    version=$("$1" --version 2>/dev/null | awk '/Version:/ {print $2; exit}')
    if [[ $version == "$seen_with" ]]; then
        echo "skipped: $event did not happen in $runs runs under MPICH $version, where it was seen;"
        echo "a race on a quieter or busier machine, not evidence that it is gone"
        exit 77
    fi
    echo "$event did not happen in $runs runs under MPICH ${version:-of unknown version} (seen with $seen_with):"
    echo "it may be gone; $next"
    exit 1
}
case "$what" in
builtin-np1)
    timeout -k 5 20 "$mpiexec" -n 1 "$exe" --builtin-only "$dir" >"$log" 2>&1
    rc=$?
    if [[ $rc == 124 || $rc == 137 ]]; then
        echo "reproduced: the built-in driver alone, 1 rank, no progress in 20 s (its comparisons stay disabled)"; exit 0
    fi
    cat "$log"
    echo "the built-in driver alone, 1 rank, exited $rc within 20 s: the stall is gone;"
    echo "re-enable the built-in driver's comparisons under MPICH (test/CMakeLists.txt, builtin_subfiling_mpich)"
    exit 1 ;;
finalize-threads)
    # A race: on a loaded machine the polling thread may not run while the
    # callback's reductions do, and a run completes.  Up to 20 runs (0.2 s
    # each): 5 once all completed in CI, with the tests' yield shim
    # preloaded; without it 10 of 10 runs aborted (2026-12-02, 2 cores).
    for run in $(seq 1 20); do
        timeout -k 5 60 "$mpiexec" -n 2 "$exe" >"$log" 2>&1
        rc=$?
        [[ $rc == 0 ]] && continue
        if grep -q "Assertion\|signal\|BAD TERMINATION" "$log"; then
            echo "reproduced in run $run (exit $rc): $(grep -m1 "Assertion\|signal" "$log")"; exit 0
        fi
        cat "$log"; echo "finalize_threads failed in another way (exit $rc)"; exit 1
    done
    not_reproduced "$mpiexec" 20 "the abort of MPI calls from two threads inside MPI_Finalize's callbacks" \
        "the finalize gate (ioc/gate.c, h5sf_ioc_finalize_begin in ioc/ctx.c) and docs/reliability.md (Known gaps) may be revisited" ;;
tcp-finalize)
    cluster=$mpiexec
    "$cluster" check >/dev/null 2>&1 || { echo "skipped: no network-namespace hosts here (root and ip netns)"; exit 77; }
    # The cluster runs the mpiexec on PATH: MPICH's, as multinode.sh has it.
    export H5SF_MPI=mpich H5SF_NETNS_NAME=h5sfm H5SF_NETNS_NET=10.213.7
    # shellcheck disable=SC1091
    source "$(dirname "$cluster")/env.sh" >/dev/null
    mpiexec --version 2>/dev/null | grep HYDRA >/dev/null || { echo "mpiexec on PATH is not MPICH's Hydra"; exit 1; }
    # Up to 16 runs: 8 once all finalized on a loaded machine (2026-12-01).
    for i in $(seq 1 16); do
        "$cluster" run -n 2 -s 2 -t 20 -- -n 4 "$exe" >"$log" 2>&1
        if grep -q "tcp_finalize: exchanged" "$log" && ! grep -q "tcp_finalize: finalized" "$log"; then
            echo "reproduced in run $i: every message arrived, then MPI_Finalize did not return within 20 s"
            echo "(the multinode tests stay disabled under MPICH: test/t_multinode.cmake)"
            exit 0
        fi
        grep -q "tcp_finalize: finalized" "$log" || { cat "$log"; echo "run $i failed in another way"; exit 1; }
    done
    not_reproduced mpiexec 16 "the hang of MPI_Finalize over UCX's TCP transport" \
        "re-enable the multinode tests under MPICH (test/t_multinode.cmake, multinode_mpich)" ;;
*) echo "usage: mpich_checks.sh builtin-np1|finalize-threads|tcp-finalize ..." >&2; exit 2 ;;
esac
