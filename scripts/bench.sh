#!/usr/bin/env bash
# scripts/bench.sh -- h5sf side by side with HDF5's built-in subfiling driver,
# MPI-IO and a POSIX file-per-process baseline; interleaved, median of reps.
#
#   scripts/bench.sh [--dir DIR] [--ranks "1 2 4 8"] [--mib 32] [--reps 5]
#                    [--stripe-size BYTES] [--stripe-count N] [--out DIR] [--no-cma]
#                    [--bind MODE] [--hdf5 PREFIX]
#                    [--workloads LIST] [--drivers LIST] [--xfer LIST] [--xfer-size LIST]
#
# Writes <out>/performance-data.csv (every run), <out>/bench-results.md
# (medians and ratios) and charts in <out>/img/; <out> defaults to bench-out/.
# scripts/bench-headline.py imports such a CSV into docs/performance.md's
# headline table (docs/performance.md, "Reproducing it").
# Data defaults to /dev/shm (tmpfs: stable numbers); --dir for a disk.
# --stripe-count: subfiles, for h5sf and the built-in driver alike (default
# 4; 0 = each driver's default: the built-in one subfile per IOC, h5sf up to
# 4 per IOC, docs/configuration.md).  A local file system
# such as tmpfs writes one file at the speed of one core (docs/performance-history.md,
# "Reading the numbers").
# --bind: Open MPI --bind-to for every run; default core:overload-allowed,
# as clusters bind ranks to cores (unbound, 4 ranks on 2 cores keep landing
# one alone on a core and three on the other: docs/performance-history.md).
# --bind default leaves it to Open MPI.  Under MPICH (H5SF_MPI=mpich) the
# run uses Hydra's -bind-to core (any --bind but default) and no CMA probe.
# --hdf5: another parallel HDF5 install (e.g. 2.x built from source with
# -DHDF5_ENABLE_SUBFILING_VFD=ON, to measure its built-in driver); h5sf is
# built against it in build-bench-<name of PREFIX>/.  The built-in column
# needs that HDF5 to have its subfiling driver (Debian's 2.x packages lack it).
# --workloads, --drivers, --xfer, --xfer-size: passed to h5sf-bench (default:
# its defaults), e.g. to leave out a driver too slow for one workload, or
# --workloads small --xfer-size 4096,1048576 for IOR's small transfers.
# --hosts H --ppn P: across emulated hosts instead (scripts/bench-hosts.sh,
# which takes the other options).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
for a in "$@"; do [ "$a" != --hosts ] || exec "$root/scripts/bench-hosts.sh" "$@"; done
pass=()
dir=/dev/shm/h5sf-bench.$$ ranks="1 2 4 8" mib=32 reps=5 stripe=$((4 << 20)) count=4 out="$root/bench-out" cma=auto bind=core:overload-allowed
while [ $# -gt 0 ]; do
    case "$1" in
        --dir) dir="$2/h5sf-bench.$$"; shift 2 ;;
        --ranks) ranks="$2"; shift 2 ;;
        --mib) mib="$2"; shift 2 ;;
        --reps) reps="$2"; shift 2 ;;
        --stripe-size) stripe="$2"; shift 2 ;;
        --stripe-count) count="$2"; shift 2 ;;
        --out) out="$2"; shift 2 ;;
        --no-cma) cma=no; shift ;;
        --bind) bind="$2"; [ "$bind" = default ] && bind=; shift 2 ;;
        --hdf5) export H5SF_HDF5_PREFIX="$(cd "$2" && pwd)"
                export H5SF_BUILD_DIR="$root/build-bench-$(basename "$H5SF_HDF5_PREFIX")"; shift 2 ;;
        --workloads|--drivers|--xfer|--xfer-size) pass+=("$1" "$2"); shift 2 ;;
        -h|--help) sed -n '2,33p' "$0"; exit 0 ;;
        *) echo "bench.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
"$root/scripts/build.sh" >/dev/null
source "$root/scripts/env.sh"
mkdir -p "$dir" "$out/img"
trap 'rm -rf "$dir"' EXIT
# Open MPI's shared-memory transport copies large messages twice unless a
# single-copy mechanism works; containers often forbid CMA (process_vm_readv),
# which is why scripts/env.sh turns it off.  Where a probe shows CMA works,
# the whole run uses it -- every driver alike, as a real cluster's MPI would
# (CMA, XPMEM or KNEM).  --no-cma keeps the copy-twice setting.
bindflags=()
if [ "$H5SF_MPI" = mpich ]; then
    cma="n/a (MPICH)"
    [ -z "$bind" ] || { bind=core; bindflags=(-bind-to core); }
elif [ -n "$bind" ]; then
    bindflags=(--bind-to "$bind")
fi
if [ "$cma" = auto ]; then
    probe=$(OMPI_MCA_btl_vader_single_copy_mechanism=cma timeout 120 mpiexec -n 2 $H5SF_MPIEXEC_FLAGS \
        "$H5SF_BUILD_DIR/bin/h5sf-bench" --dir "$dir" --mib 4 --reps 1 --workloads contiguous \
        --drivers mpio,h5sf-ioc 2>/dev/null)
    if grep -q ',ok$' <<<"$probe"; then
        cma=yes
    else
        cma=no
    fi
fi
if [ "$cma" = yes ]; then
    export OMPI_MCA_btl_vader_single_copy_mechanism=cma
fi
echo "bench.sh: $H5SF_MPI; Open MPI single-copy (CMA): $cma" >&2
csv="$out/performance-data.csv"
echo "ranks,workload,driver,xfer,rep,write_rate,read_rate,bytes_per_rank,ok" >"$csv"
for n in $ranks; do
    echo "bench.sh: $n ranks ..." >&2
    timeout 3600 mpiexec -n "$n" $H5SF_MPIEXEC_FLAGS "${bindflags[@]}" "$H5SF_BUILD_DIR/bin/h5sf-bench" --dir "$dir" --mib "$mib" \
        --reps "$reps" --stripe-size "$stripe" --stripe-count "$count" "${pass[@]}" | tail -n +2 >>"$csv"
done
python3 "$root/scripts/bench-report.py" "$csv" "$out" "$mib" "$stripe" "$reps" "$cma" "$count" "$bind"
echo "bench.sh: results in $out/bench-results.md, $out/performance-data.csv and $out/img/" >&2
