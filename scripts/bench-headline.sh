#!/usr/bin/env bash
# scripts/bench-headline.sh -- the headline table of docs/performance.md on a
# machine with more cores: h5sf (both channels), HDF5's built-in subfiling
# driver and MPI-IO, under Open MPI and MPICH, at the defaults and at tuned
# settings, interleaved in rounds.
#
#   here:  scripts/bench-headline.sh pack [DEVDIR]
#            packs build/ (Open MPI) and build-mpich/ (MPICH) with their HDF5s
#            into DEVDIR (default .dev) with ../shared/device/pack.sh
#            (H5SF_DEVICE_DIR overrides where pack.sh is)
#   there: scripts/bench-headline.sh run DEVDIR OUTDIR
#            as root: unpacks DEVDIR/root.tar.xz, measures chrooted (about 7
#            minutes on 16 cores, never more than H5SF_HEADLINE_BUDGET seconds
#            of runs, default 380), writes OUTDIR/headline-raw.csv,
#            headline-machine.txt and headline-log.txt
#            (H5SF_HEADLINE_RANKS, default "4 16", and H5SF_HEADLINE_MIB,
#            default 32, change the rank counts and the MiB per rank)
#   here:  scripts/bench-headline.sh import OUTDIR [--machine TEXT]
#            adds the medians to docs/performance-headline.csv (the first run of
#            every h5sf-bench process left out) and regenerates the table and
#            chart of docs/performance.md (scripts/bench-headline.py)
#
# What runs: every (MPI, setting, ranks, part) is one h5sf-bench process; a
# round runs each once, round r starting at the r-th, so slow drift of the
# machine and the first-run cost hit every configuration alike; rounds go on
# until the budget is spent (at most 3).  Parts: h5sf-direct, h5sf-ioc and
# MPI-IO on contiguous, strided, multi and metadata, 4 repetitions; the
# built-in driver on contiguous and multi in processes of its own, 3
# repetitions, and on metadata once (1 repetition, the defaults, the first
# rank count: it can take minutes).  Its strided transfers are not run (they
# take minutes at this size), and under MPICH it can stall
# (docs/reliability.md, Known gaps): a stall costs only its own cells.  Settings: "defaults" (32 MiB stripes and each
# driver's default subfile count: what a user gets) and "tuned" (4 MiB
# stripes, 4 subfiles for both subfiling drivers: docs/user-guide.md,
# Tuning).  Ranks: 4 and 16, bound to cores; 32 MiB per rank; tmpfs.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cmd=${1:-}
shift || true

pack() {
    local dev=${1:-$root/.dev} cache=${H5SF_CACHE:-$HOME/.cache/h5sf}
    local packer=${H5SF_DEVICE_DIR:-$root/../shared/device}/pack.sh
    local ob=$root/build mb=$root/build-mpich
    local oh=$cache/hdf5-1.14.5+repack-3-openmpi mh=$cache/hdf5-1.14.5+repack-3-mpich
    for f in "$ob/bin/h5sf-bench" "$mb/bin/h5sf-bench" "$oh/lib" "$mh/lib" "$packer" /usr/bin/mpiexec.hydra; do
        [ -e "$f" ] || { echo "bench-headline: missing $f (scripts/build.sh; H5SF_MPI=mpich scripts/build.sh)" >&2; exit 1; }
    done
    # MPICH's side goes in as extra files: its build's plugin directory, its
    # HDF5, and UCX's transport modules, which MPICH loads with dlopen (each
    # module a file, so that pack.sh adds the libraries it needs).
    bash "$packer" "$ob" "$oh" "$dev" "$mb/bin/h5sf-bench" "$mb/lib" "$mh/lib" \
        /usr/lib/x86_64-linux-gnu/ucx/*.so.0
    {
        echo "OMPI_BUILD=$ob"
        echo "MPICH_BUILD=$mb"
        echo "HDF5_VERSION=$("$oh/bin/h5dump" --version 2>/dev/null | awk '{print $NF}')"
    } >"$dev/paths.env"
    echo "bench-headline: packed into $dev (add /$(basename "$dev")/ to .git/info/exclude; carry it to the device)" >&2
}

# The measurement itself, run inside the root (no python there: plain bash).
inner() {
    cat <<'EOF'
set -u
source /out/paths.env
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_plm_rsh_agent=/usr/bin/false OMPI_MCA_mca_base_component_show_load_errors=0
export OMPI_MCA_rmaps_base_oversubscribe=1
# Hydra connects to itself by host name; the packed /etc/hosts is the packing machine's.
grep -q "[[:space:]]$(hostname)\b" /etc/hosts || echo "127.0.0.1 $(hostname)" >>/etc/hosts
log=/out/headline-log.txt raw=/out/headline-raw.csv dir=/dev/shm/headline
mkdir -p "$dir"
t0=$(date +%s) budget=$BUDGET
say() { echo "$(($(date +%s) - t0))s: $*" | tee -a "$log"; }
cores=$(nproc)
kib=$(sed -n 's/^MemTotal: *\([0-9]*\).*/\1/p' /proc/meminfo)
mem=$(((kib / 1048576 + 7) / 8 * 8))  # GiB, rounded up to 8: 125.7 visible of 128 is 128
{
    echo "date=$(date -u +%F)"
    echo "machine=$cores cores (x86-64, $mem GiB), tmpfs"
    echo "cpu=$(lscpu 2>/dev/null | sed -n 's/^Model name: *//p')"
    echo "kernel=$(uname -r)"
} >/out/headline-machine.txt
ompi_v=$(mpiexec --version 2>&1 | sed -n 's/.*(Open\(RTE\|MPI\)) *//p' | head -1)
mpich_v=$(mpiexec.hydra --version 2>&1 | sed -n 's/^ *Version: *//p' | head -1)
mpich_dev=$(grep -a -o -m1 'with-device=[a-z0-9:]*' /usr/lib/x86_64-linux-gnu/libmpich.so.12 2>/dev/null |
    sed -n '1s/.*=//p')
# Open MPI's single-copy transport, as on a cluster, where it works.
export HDF5_PLUGIN_PATH=$OMPI_BUILD/lib
cma="no CMA"
if OMPI_MCA_btl_vader_single_copy_mechanism=cma timeout 60 mpiexec -n 2 "$OMPI_BUILD/bin/h5sf-bench" \
    --dir "$dir" --mib 4 --reps 1 --workloads contiguous --drivers mpio 2>>"$log" | grep ',ok$' >/dev/null; then
    cma=CMA
fi
say "Open MPI $ompi_v ($cma), MPICH $mpich_v, $cores cores, $mem GiB"
echo "mpi,setting,config,round,ranks,workload,driver,xfer,rep,write_rate,read_rate,bytes_per_rank,ok" >"$raw"
cfg_defaults="each driver's defaults: 32 MiB stripes and its default subfile count (h5sf 4 per IOC at 4 or more ranks, the built-in 1), one IOC per node; ranks bound to cores; HDF5 $HDF5_VERSION; independent transfers; the built-in driver in processes of its own, interleaved with the others"
cfg_tuned="4 MiB stripes and 4 subfiles for both subfiling drivers (user-guide.md, Tuning), otherwise as the defaults"
main_wl=contiguous,strided,multi,metadata main_dr=h5sf-direct,h5sf-ioc,mpio
entries=()
for ranks in $RANKS; do
    for setting in defaults tuned; do
        for part in main builtin; do
            for mpi in openmpi mpich; do
                entries+=("$mpi $setting $ranks $part")
            done
        done
    done
done
# The built-in driver's metadata workload can take minutes (under MPICH its
# IOC thread polls against the ranks): once, at the defaults and the first
# rank count, at the end of round 1.
meta_ranks=${RANKS%% *}
n=${#entries[@]} hard=$((budget + 40))
for round in 1 2 3; do
    todo=()
    for ((k = 0; k < n; k++)); do
        todo+=("${entries[$(((k + round - 1) % n))]}")
    done
    [ "$round" = 1 ] && todo+=("openmpi defaults $meta_ranks builtin-meta" "mpich defaults $meta_ranks builtin-meta")
    for entry in "${todo[@]}"; do
        read -r mpi setting ranks part <<<"$entry"
        now=$(($(date +%s) - t0))
        if [ "$now" -ge "$budget" ]; then
            say "budget spent: round $round stops before $mpi $setting $ranks $part"
            break 2
        fi
        case $setting in
            defaults) sargs=(--stripe-size 33554432 --stripe-count 0) config=$cfg_defaults ;;
            tuned) sargs=(--stripe-size 4194304 --stripe-count 4) config=$cfg_tuned ;;
        esac
        case $part in
            main) pargs=(--workloads "$main_wl" --drivers "$main_dr" --reps 4) limit=120 ;;
            builtin) pargs=(--workloads contiguous,multi --drivers subfiling --reps 3) limit=60 ;;
            builtin-meta) pargs=(--workloads metadata --drivers subfiling --reps 1) limit=45 ;;
        esac
        if [ "$mpi" = openmpi ]; then
            label="Open MPI $ompi_v, $cma" build=$OMPI_BUILD
            launch=(mpiexec -n "$ranks" --bind-to core:overload-allowed)
            [ "$cma" = CMA ] && export OMPI_MCA_btl_vader_single_copy_mechanism=cma
        else
            label="MPICH $mpich_v${mpich_dev:+, $mpich_dev}" build=$MPICH_BUILD
            launch=(mpiexec.hydra -launcher fork -bind-to core -n "$ranks")
        fi
        export HDF5_PLUGIN_PATH=$build/lib
        left=$((hard - now)) && [ "$left" -lt "$limit" ] && limit=$left
        say "round $round: $label, $setting, $ranks ranks, $part (limit ${limit}s)"
        rm -rf "${dir:?}"/*
        out=$(mktemp)
        rc=0
        timeout -k 5 "$limit" "${launch[@]}" "$build/bin/h5sf-bench" --dir "$dir" --mib "$MIB" --xfer independent \
            "${sargs[@]}" "${pargs[@]}" >"$out" 2>>"$log" || rc=$?
        unset OMPI_MCA_btl_vader_single_copy_mechanism
        tail -n +2 "$out" | sed "s|^|\"$label\",$setting,\"$config\",$round,|" >>"$raw"
        # What the process did not get to is said in the CSV, not left out.
        if [ "$rc" -ne 0 ]; then
            why="stopped (exit $rc)" && [ "$rc" -eq 124 ] && why="timeout ${limit}s"
            wls=${pargs[1]} drs=${pargs[3]}
            for wl in ${wls//,/ }; do
                for dr in ${drs//,/ }; do
                    grep -q "^$ranks,$wl,$dr,independent," "$out" ||
                        echo "\"$label\",$setting,\"$config\",$round,$ranks,$wl,$dr,independent,0,,,0,$why" >>"$raw"
                done
            done
            say "  exit $rc"
        fi
        rm -f "$out"
    done
done
for ranks in $RANKS; do
    for setting in defaults tuned; do
        for mpi in "Open MPI $ompi_v, $cma" "MPICH $mpich_v${mpich_dev:+, $mpich_dev}"; do
            echo "\"$mpi\",$setting,\"\",0,$ranks,strided,subfiling,independent,0,,,0,not run: the built-in driver's strided transfers take minutes at this size" >>"$raw"
            [ "$setting $ranks" = "defaults $meta_ranks" ] ||
                echo "\"$mpi\",$setting,\"\",0,$ranks,metadata,subfiling,independent,0,,,0,not run: the built-in driver's metadata workload runs once, at the defaults and $meta_ranks ranks" >>"$raw"
        done
    done
done
say "done: $(($(wc -l <"$raw") - 1)) lines in headline-raw.csv"
EOF
}

run() {
    local dev=${1:?usage: bench-headline.sh run DEVDIR OUTDIR} out=${2:?usage: bench-headline.sh run DEVDIR OUTDIR}
    dev=$(cd "$dev" && pwd)
    mkdir -p "$out" && out=$(cd "$out" && pwd)
    cp "$dev/paths.env" "$out/paths.env"
    inner >"$out/headline-inner.sh"
    local t=/tmp/h5sf-headline-root
    bash "$dev/run-in-root.sh" "$dev/root.tar.xz" "$t" "$out" \
        "BUDGET=${H5SF_HEADLINE_BUDGET:-380} RANKS='${H5SF_HEADLINE_RANKS:-4 16}' MIB=${H5SF_HEADLINE_MIB:-32} bash /out/headline-inner.sh"
    rm -f "$out/paths.env" "$out/headline-inner.sh"
}

import() {
    local from=${1:?usage: bench-headline.sh import OUTDIR [--machine TEXT]}
    shift
    local date machine
    date=$(sed -n 's/^date=//p' "$from/headline-machine.txt")
    machine=$(sed -n 's/^machine=//p' "$from/headline-machine.txt")
    [ "${1:-}" = --machine ] && machine=$2
    python3 "$root/scripts/bench-headline.py" import "$from/headline-raw.csv" --date "$date" --machine "$machine" \
        --drop-first --into "$root/docs/performance-headline.csv"
    python3 "$root/scripts/bench-headline.py" render
    echo "bench-headline: docs/performance-headline.csv, docs/performance.md and docs/img/headline.png updated" >&2
}

case $cmd in
    pack) pack "$@" ;;
    run) run "$@" ;;
    import) import "$@" ;;
    *) sed -n '2,35p' "$0"; exit 2 ;;
esac
