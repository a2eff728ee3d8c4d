#!/usr/bin/env bash
# fuse-bench.sh -- reassembly throughput: h5sf-fuse vs HDF5's h5fuse vs cat.
#
#   scripts/fuse-bench.sh [-m MiB] [-S stripe_size] [-n stripe_count] [-p ranks]
#                         [-t threads] [-d dir] [-r repeats] [-k]
#
# Writes one subfiled file of about MiB (default 256) with t_tools_writer
# (needs a build with tests), then times, on the same file set and with a
# warm page cache:
#   cat        cat of the subfiles into one file (the same bytes, no layout)
#   h5sf-fuse  h5sf-fuse INPUT OUTPUT (threads: -t, default 4)
#   h5fuse     HDF5's h5fuse -q -f CONFIG, on a copy of the set made with
#              h5sf-mv --copy (h5fuse writes into the stub)
# and prints MiB/s, the best of -r runs (default 3), plus the target ratios
# (h5sf-fuse >= 5x h5fuse, >= 0.7x cat).  The outputs of
# h5sf-fuse and h5fuse are compared with cmp.  Nothing is asserted: timings
# on a shared machine are noise for a test suite.  -k keeps the files.
set -u -o pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=/dev/null
source "$here/env.sh"

mib=256 stripe=1MiB count=4 np=2 threads=4 dir="${TMPDIR:-/tmp}/h5sf-fuse-bench" repeats=3 keep=0
while getopts "m:S:n:p:t:d:r:kh" o; do
    case $o in
        m) mib=$OPTARG ;; S) stripe=$OPTARG ;; n) count=$OPTARG ;; p) np=$OPTARG ;;
        t) threads=$OPTARG ;; d) dir=$OPTARG ;; r) repeats=$OPTARG ;; k) keep=1 ;;
        *) sed -n '2,18p' "$0"; exit 2 ;;
    esac
done
bin="$H5SF_BUILD_DIR/bin"
for x in "$bin/t_tools_writer" "$bin/h5sf-fuse" "$bin/h5sf-mv" "$H5SF_HDF5_PREFIX/bin/h5fuse"; do
    [[ -x $x ]] || { echo "fuse-bench: $x not found (build with tests: scripts/build.sh)" >&2; exit 1; }
done
export PATH="$bin:$PATH"

rm -rf "$dir"
mkdir -p "$dir"
echo "fuse-bench: writing ~$mib MiB with h5sf (stripe_size=$stripe, stripe_count=$count) on $np ranks in $dir"
timeout 1200 mpiexec -n "$np" $H5SF_MPIEXEC_FLAGS "$bin/t_tools_writer" "$dir" in \
    "stripe_size=$stripe,stripe_count=$count" --mib "$mib" --no-ref || { echo "fuse-bench: writer failed" >&2; exit 1; }
mapfile -t subs < <(ls "$dir"/in.h5.subfile_*_of_* | sort -V)
config=$(ls "$dir"/in.h5.subfile_*.config)
bytes=$(stat -c %s "$dir/in.h5")
echo "fuse-bench: logical size $bytes bytes in ${#subs[@]} subfiles"
cat "${subs[@]}" >/dev/null # warm the page cache

now() { date +%s.%N; }
best=() # per method: best seconds
# time_it NAME SETUP_CMD RUN_CMD: best of $repeats (setup not timed)
time_it() {
    local name=$1 setup=$2 run=$3 b="" i t0 t1 s
    for ((i = 0; i < repeats; i++)); do
        eval "$setup" || { echo "fuse-bench: $name setup failed" >&2; exit 1; }
        sync
        t0=$(now)
        eval "$run" || { echo "fuse-bench: $name failed" >&2; exit 1; }
        t1=$(now)
        s=$(echo "$t1 - $t0" | bc -l)
        if [[ -z $b ]] || (($(echo "$s < $b" | bc -l))); then b=$s; fi
    done
    best+=("$name=$b")
    printf "  %-10s %8.3f s  %9.1f MiB/s\n" "$name" "$b" "$(echo "$bytes / 1048576 / $b" | bc -l)"
}

echo "fuse-bench: best of $repeats runs"
time_it cat "rm -f '$dir/out.cat'" "cat ${subs[*]} > '$dir/out.cat'"
time_it h5sf-fuse "rm -f '$dir/out.fuse'" "h5sf-fuse -q -t $threads '$dir/in.h5' '$dir/out.fuse'"
time_it h5fuse "rm -rf '$dir/copy' && mkdir '$dir/copy' && h5sf-mv -q -C '$dir/in.h5' '$dir/copy/in.h5'" \
    "(cd '$dir/copy' && h5fuse -q -f \$(ls '$dir'/copy/in.h5.subfile_*.config))"

cmp "$dir/out.fuse" "$dir/copy/in.h5" && echo "fuse-bench: h5sf-fuse and h5fuse outputs are identical" ||
    echo "fuse-bench: WARNING: h5sf-fuse and h5fuse outputs differ"
get() { local kv; for kv in "${best[@]}"; do [[ ${kv%%=*} == "$1" ]] && echo "${kv#*=}"; done; }
printf "fuse-bench: h5sf-fuse is %.1fx h5fuse (target >= 5x) and %.2fx cat (target >= 0.7x)\n" \
    "$(echo "$(get h5fuse) / $(get h5sf-fuse)" | bc -l)" "$(echo "$(get cat) / $(get h5sf-fuse)" | bc -l)"
((keep)) || rm -rf "$dir"
: "$config"
