#!/usr/bin/env bash
# MPIEXEC of the client suites (scripts/client-suites.sh): the tests' own
# launch lines, unchanged, started the way H5SF_CLIENT_WAY names.
#
#   mpiio   plain mpiexec: the programs' own MPI-IO driver
#   direct  the MPI-IO redirect (libh5sf_preload.so, H5SF_REDIRECT_MPIO=1)
#           on the direct channel
#   ioc     the redirect on the IOC channel with both same-node shortcuts
#           off, so every byte goes through an I/O concentrator; the
#           programs call plain MPI_Init, so the shim asks for
#           MPI_THREAD_MULTIPLE (H5SF_PRELOAD_THREAD_MULTIPLE=1)
#
# The variables reach the ranks only (Open MPI's -x, MPICH Hydra's -genv),
# never mpiexec itself.  With H5SF_CLIENT_LAUNCHES set, every launch appends
# one line to that file (way, exit status, config files it created, subfiles
# it wrote, seconds, the arguments), so the caller can tell a subfiled run
# from one through MPI-IO.
# A launch is killed after H5SF_CLIENT_LAUNCH_TIMEOUT seconds (default 300).
# Needs scripts/env.sh sourced (H5SF_MPI, H5SF_BUILD_DIR, H5SF_MPIEXEC_FLAGS).
set -uo pipefail
way=${H5SF_CLIENT_WAY:-mpiio}
shim="$H5SF_BUILD_DIR/preload/libh5sf_preload.so"
vars=()
case $way in
mpiio) ;;
direct) vars=(LD_PRELOAD="$shim" H5SF_REDIRECT_MPIO=1 H5SF_CHANNEL=direct) ;;
ioc)
    vars=(LD_PRELOAD="$shim" H5SF_REDIRECT_MPIO=1 H5SF_CHANNEL=ioc H5SF_SAMENODE_READS=0
          H5SF_SAMENODE_WRITES=0 H5SF_PRELOAD_THREAD_MULTIPLE=1)
    ;;
*) echo "client-mpiexec.sh: H5SF_CLIENT_WAY must be mpiio, direct or ioc, not '$way'" >&2; exit 2 ;;
esac
[[ $way == mpiio || -f $shim ]] || { echo "client-mpiexec.sh: no $shim (scripts/build.sh)" >&2; exit 2; }
# Extra variables for the ranks (e.g. H5SF_LOG=debug), space separated.
for v in ${H5SF_CLIENT_RANK_ENV:-}; do vars+=("$v"); done
args=()
for v in "${vars[@]}"; do
    if [[ $H5SF_MPI == mpich ]]; then args+=(-genv "${v%%=*}" "${v#*=}"); else args+=(-x "$v"); fi
done
# H5SF_CLIENT_LEAVE_OUT: a launch whose arguments ("-n 16 ./tst_parallel3")
# match this extended regular expression is left out, said on stderr and in
# H5SF_CLIENT_LAUNCHES as "skipped", and exits 0 so that the test script goes
# on; the caller reports it.
if [[ -n ${H5SF_CLIENT_LEAVE_OUT:-} ]] && [[ "$*" =~ $H5SF_CLIENT_LEAVE_OUT ]]; then
    echo "client-mpiexec.sh: left out (H5SF_CLIENT_LEAVE_OUT='$H5SF_CLIENT_LEAVE_OUT'): $*" >&2
    [[ -z ${H5SF_CLIENT_LAUNCHES:-} ]] ||
        echo "way=$way rc=0 configs=0 written=0 secs=0 skipped dir=$PWD launch=$*" >>"$H5SF_CLIENT_LAUNCHES"
    exit 0
fi
if [[ -z ${H5SF_CLIENT_LAUNCHES:-} ]]; then
    # shellcheck disable=SC2086
    exec timeout "${H5SF_CLIENT_LAUNCH_TIMEOUT:-300}" "$H5SF_MPI_BIN/mpiexec" $H5SF_MPIEXEC_FLAGS "${args[@]}" "$@"
fi
# Counted: the exit status, the config files (one per subfiled file
# created) and the subfiles written in the working directory during the
# launch (those still there at its end).
stamp=$(mktemp) || exit 2
start=$SECONDS
# shellcheck disable=SC2086
timeout "${H5SF_CLIENT_LAUNCH_TIMEOUT:-300}" "$H5SF_MPI_BIN/mpiexec" $H5SF_MPIEXEC_FLAGS "${args[@]}" "$@"
rc=$?
configs=$(find . -maxdepth 1 -name '*.subfile_*.config' -newer "$stamp" | wc -l)
written=$(find . -maxdepth 1 -name '*.subfile_*_of_*' -newer "$stamp" | wc -l)
rm -f "$stamp"
echo "way=$way rc=$rc configs=$configs written=$written secs=$((SECONDS - start)) dir=$PWD launch=$*" >>"$H5SF_CLIENT_LAUNCHES"
exit "$rc"
