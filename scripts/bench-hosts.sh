#!/usr/bin/env bash
# scripts/bench-hosts.sh -- h5sf against MPI-IO across hosts: emulated hosts
# (scripts/netns-cluster.sh: network namespaces talking TCP), one interleaved
# run under the current MPI (H5SF_MPI=openmpi, the default, or mpich).
# Also reached as `scripts/bench.sh --hosts H --ppn P ...`.
#
#   scripts/bench-hosts.sh [--hosts 2] [--ppn 2] [--mib 8] [--reps 5]
#       [--workloads contiguous,strided,multi,metadata,small] [--ndsets 500]
#       [--xfer-size 4096] [--stripe-size BYTES] [--dir DIR] [--out DIR]
#       [--no-local] [--no-account] [--timeout SEC] [--budget SEC]
#
# Configurations (collective transfers unless named): h5sf at channel=auto,
# ioc and direct; MPI-IO independent; MPI-IO collective with OMPIO and with
# ROMIO's two-phase I/O (Open MPI: --mca io ompio / --mca io romio321;
# MPICH has ROMIO only).  MPI-IO's aggregators = h5sf's IOC count (one IOC
# per host): ROMIO's cb_nodes hint (h5sf-bench --cb-nodes) and OMPIO's MCA
# parameter io_ompio_num_aggregators.  `small` (IOR's pattern, one H5Dwrite
# per --xfer-size piece) is independent only.
#
# Interleaving: OMPIO or ROMIO is chosen per mpiexec, so a repetition is one
# mpiexec per MPI-IO component -- Open MPI: one with OMPIO running every h5sf
# and MPI-IO configuration, one with ROMIO running MPI-IO collective (and
# small's independent MPI-IO); MPICH: one running everything -- their order
# alternating from one repetition to the next.  Inside an mpiexec h5sf-bench
# rotates which configuration goes first (--rep-start carries the rotation
# across processes).  Rates are medians over the repetitions.
#
# Node-local storage (unless --no-local): in every repetition one more
# mpiexec runs h5sf (ioc and auto, collective) with subfile_dir on each
# host's own <state>/local, which only the IOC channel can serve; its peer
# is MPI-IO collective on the shared directory, from the same repetition.
#
# Per-call account (unless --no-account): after the timed repetitions, one
# run of h5sf-ioc (collective; small: independent) with h5sf-bench
# --account: the IOC channel's stages, summed over ranks, for the one
# H5Dwrite and the one H5Dread of each workload (small and metadata: all
# calls of the phase, with their count).  The account's barriers are its
# own: it is never mixed with the timed runs.
#
# --budget SEC: start no repetition that would, at the pace so far, end
# after SEC seconds (the medians are then of fewer; the report says how
# many).  --timeout: the most one mpiexec may take (default 300 s).
#
# Output in <out> (default bench-hosts-out/): performance-hosts.csv (every
# run: mpi,hosts,ppn,io,storage and h5sf-bench's columns; appended to, so
# one <out> can hold both MPIs), account.csv, and bench-hosts-results.md
# from scripts/bench-hosts-report.py.  Data in --dir (default /dev/shm:
# every emulated host sees it, as a shared file system; only <state>/local
# differs between hosts).  The cluster is named H5SF_NETNS_NAME (default
# h5sfbench, subnet H5SF_NETNS_NET, default 10.217.0) so that it does not
# meet the test suite's.  Needs root (netns-cluster.sh check); exits 77
# without.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
hosts=2 ppn=2 mib=8 reps=5 workloads=contiguous,strided,multi,metadata,small ndsets=500 xs=4096
stripe=$((4 << 20)) dir=/dev/shm out="$root/bench-hosts-out" local=1 account=1 tmo=300 budget=0
while [ $# -gt 0 ]; do
    case "$1" in
        --hosts) hosts="$2"; shift 2 ;;
        --ppn) ppn="$2"; shift 2 ;;
        --mib) mib="$2"; shift 2 ;;
        --reps) reps="$2"; shift 2 ;;
        --workloads) workloads="$2"; shift 2 ;;
        --ndsets) ndsets="$2"; shift 2 ;;
        --xfer-size) xs="$2"; shift 2 ;;
        --stripe-size) stripe="$2"; shift 2 ;;
        --dir) dir="$2"; shift 2 ;;
        --out) out="$2"; shift 2 ;;
        --no-local) local=0; shift ;;
        --no-account) account=0; shift ;;
        --timeout) tmo="$2"; shift 2 ;;
        --budget) budget="$2"; shift 2 ;;
        -h|--help) sed -n '2,55p' "$0"; exit 0 ;;
        *) echo "bench-hosts.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
"$root/scripts/build.sh" >/dev/null
source "$root/scripts/env.sh"
# Ranks yield while they wait, as on a machine with a core each: the hosts
# share this machine's cores, and a spinning rank starves the TCP traffic
# it waits for (netns-cluster.sh passes Open MPI mpi_yield_when_idle; MPICH
# takes the tests' shim, test/mpich_yield.c, which Hydra passes on).
if [ "$H5SF_MPI" = mpich ]; then
    shim="$H5SF_BUILD_DIR/lib/test/libh5sf_test_mpich_yield.so"
    [ -e "$shim" ] || { echo "bench-hosts.sh: $shim missing (build the tests)" >&2; exit 1; }
    export LD_PRELOAD="$shim${LD_PRELOAD:+:$LD_PRELOAD}"
fi
export H5SF_NETNS_NAME="${H5SF_NETNS_NAME:-h5sfbench}" H5SF_NETNS_NET="${H5SF_NETNS_NET:-10.217.0}"
state="${H5SF_NETNS_STATE:-/tmp/${H5SF_NETNS_NAME}-netns}"
cluster="$root/scripts/netns-cluster.sh"
"$cluster" check || exit 77
np=$((hosts * ppn))
data="$dir/h5sf-bench-hosts.$$"
mkdir -p "$data" "$out"
"$cluster" up -n "$hosts" -s "$ppn" >/dev/null
trap '"$cluster" down >/dev/null 2>&1 || true; rm -rf "$data"' EXIT
csv="$out/performance-hosts.csv" acsv="$out/account.csv"
[ -s "$csv" ] || echo "mpi,hosts,ppn,io,storage,ranks,workload,driver,xfer,rep,write_rate,read_rate,bytes_per_rank,ok" >"$csv"

# run IO STORAGE REP h5sf-bench-args...: one mpiexec; IO is ompio, romio
# or - (the MPI's default: ROMIO under MPICH); rows go to $csv.
bad=0
run() {
    local io="$1" st="$2" r="$3" label="$1"
    shift 3
    local -a mca=()
    if [ "$H5SF_MPI" = openmpi ]; then
        [ "$io" = ompio ] && mca=(--mca io ompio --mca io_ompio_num_aggregators "$hosts")
        [ "$io" = romio ] && mca=(--mca io romio321)
    else
        label=romio
    fi
    local rows rc=0
    rows=$("$cluster" run -t "$tmo" -- -n "$np" "${mca[@]}" "$H5SF_BUILD_DIR/bin/h5sf-bench" --dir "$data" \
        --mib "$mib" --reps 1 --rep-start "$r" --stripe-size "$stripe" --ndsets "$ndsets" --xfer-size "$xs" \
        --cb-nodes "$hosts" --workloads "$workloads" "$@") || rc=$?
    [ "$rc" -eq 0 ] || { echo "bench-hosts.sh: rep $r ($label, $st) exited $rc" >&2; bad=1; }
    echo "bench-hosts.sh:   $label, $st: done at ${SECONDS}s" >&2
    tail -n +2 <<<"$rows" | awk -F, -v p="$H5SF_MPI,$hosts,$ppn" -v io="$label" -v st="$st" \
        'NF > 5 { print p "," ($3 == "mpio" ? io : "-") "," st "," $0 }' >>"$csv"
}
h5sf=h5sf-auto:collective,h5sf-ioc:collective,h5sf-direct:collective
echo "bench-hosts.sh: $H5SF_MPI, $hosts hosts x $ppn ranks, $mib MiB per rank, $reps reps ($workloads)" >&2
start=$SECONDS
for r in $(seq 1 "$reps"); do
    if [ "$budget" -gt 0 ] && [ "$r" -gt 1 ] &&
        [ $((SECONDS + (SECONDS - start) / (r - 1))) -gt "$budget" ]; then
        echo "bench-hosts.sh: stopping after $((r - 1)) repetitions (--budget $budget s)" >&2
        break
    fi
    echo "bench-hosts.sh: repetition $r ..." >&2
    if [ "$H5SF_MPI" = openmpi ]; then
        steps=("ompio shared $h5sf,mpio:independent,mpio:collective" "romio shared mpio:collective")
    else
        steps=("- shared $h5sf,mpio:independent,mpio:collective")
    fi
    [ "$local" -eq 0 ] || steps+=("- local h5sf-ioc:collective,h5sf-auto:collective")
    # Rotate the steps' order by repetition.
    n=${#steps[@]}
    for k in $(seq 0 $((n - 1))); do
        read -r io st cfgs <<<"${steps[$(((k + r - 1) % n))]}"
        extra=()
        [ "$st" = local ] && extra=(--subfile-dir "$state/local")
        run "$io" "$st" "$r" --configs "$cfgs" "${extra[@]}"
    done
done
if [ "$account" -eq 1 ]; then
    echo "bench-hosts.sh: per-call account ..." >&2
    rm -f "$acsv.$H5SF_MPI"
    "$cluster" run -t "$tmo" -- -n "$np" "$H5SF_BUILD_DIR/bin/h5sf-bench" --dir "$data" --mib "$mib" --reps 1 \
        --stripe-size "$stripe" --ndsets "$ndsets" --xfer-size "$xs" --workloads "$workloads" \
        --configs h5sf-ioc:collective --account "$acsv.$H5SF_MPI" >/dev/null || bad=1
    if [ -s "$acsv.$H5SF_MPI" ]; then
        [ -s "$acsv" ] || head -1 "$acsv.$H5SF_MPI" | sed 's/^/mpi,hosts,ppn,/' >"$acsv"
        tail -n +2 "$acsv.$H5SF_MPI" | sed "s/^/$H5SF_MPI,$hosts,$ppn,/" >>"$acsv"
    fi
    rm -f "$acsv.$H5SF_MPI"
fi
python3 "$root/scripts/bench-hosts-report.py" "$csv" "$acsv" "$out/bench-hosts-results.md" "$mib" "$reps" || bad=1
echo "bench-hosts.sh: results in $out/bench-hosts-results.md, $csv, $acsv" >&2
exit "$bad"
