#!/usr/bin/env bash
# scripts/bench.sh -- h5sf side by side with HDF5's built-in subfiling driver,
# MPI-IO and a POSIX file-per-process baseline; interleaved, median of reps.
#
#   scripts/bench.sh [--dir DIR] [--ranks "1 2 4 8"] [--mib 32] [--reps 5]
#                    [--stripe-size BYTES] [--out docs]
#
# Writes <out>/performance-data.csv, the tables in <out>/performance.md
# (between the BEGIN/END RESULTS markers) and charts in <out>/img/.
# Defaults to /dev/shm (tmpfs: stable numbers); --dir for a disk.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dir=/dev/shm/h5sf-bench.$$ ranks="1 2 4 8" mib=32 reps=5 stripe=$((4 << 20)) out="$root/docs"
while [ $# -gt 0 ]; do
    case "$1" in
        --dir) dir="$2/h5sf-bench.$$"; shift 2 ;;
        --ranks) ranks="$2"; shift 2 ;;
        --mib) mib="$2"; shift 2 ;;
        --reps) reps="$2"; shift 2 ;;
        --stripe-size) stripe="$2"; shift 2 ;;
        --out) out="$2"; shift 2 ;;
        -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
        *) echo "bench.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
"$root/scripts/build.sh" >/dev/null
source "$root/scripts/env.sh"
mkdir -p "$dir" "$out/img"
trap 'rm -rf "$dir"' EXIT
csv="$out/performance-data.csv"
echo "ranks,workload,driver,xfer,rep,write_rate,read_rate,bytes_per_rank,ok" >"$csv"
for n in $ranks; do
    echo "bench.sh: $n ranks ..." >&2
    timeout 3600 mpiexec -n "$n" --oversubscribe "$H5SF_BUILD_DIR/bin/h5sf-bench" --dir "$dir" --mib "$mib" \
        --reps "$reps" --stripe-size "$stripe" | tail -n +2 >>"$csv"
done
python3 "$root/scripts/bench-report.py" "$csv" "$out" "$mib" "$stripe" "$reps"
echo "bench.sh: results in $out/performance.md and $out/img/" >&2
