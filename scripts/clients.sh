#!/usr/bin/env bash
# Real HDF5 clients that hard-code MPI-IO (IOR's HDF5 backend, h5bench's
# write/read patterns) run unchanged through libh5sf_preload.so with
# H5SF_REDIRECT_MPIO=1, on both channels.  Not part of the tests and needed
# by none: it builds third-party code into the cache and only reports.
# docs/clients.md records what it showed.
#
#   scripts/clients.sh [build|ior|h5bench|all]     (default: all)
#
#   H5SF_CLIENTS_DIR   sources and builds (default ~/.cache/h5sf/clients):
#                      ior-src/ and h5bench-src/ must hold the sources
#                      (git archive of github.com/hpc/ior and
#                      github.com/hpc-io/h5bench); they are cloned from
#                      GitHub if missing, which needs the network.
#   H5SF_CLIENTS_WORK  where the files are written (default /dev/shm/h5sf-clients,
#                      else /tmp/h5sf-clients); emptied first
#   H5SF_CLIENTS_NP    ranks (default 4, oversubscribed)
#
# Every variable reaches the ranks through mpiexec -x, so mpiexec itself is
# never preloaded.  Exit status: the number of failed checks (0: all passed).
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
what="${1:-all}"
source "$root/scripts/env.sh"
cdir="${H5SF_CLIENTS_DIR:-$H5SF_CACHE/clients}"
if [[ -n ${H5SF_CLIENTS_WORK:-} ]]; then work=$H5SF_CLIENTS_WORK
elif [[ -d /dev/shm && -w /dev/shm ]]; then work=/dev/shm/h5sf-clients
else work=/tmp/h5sf-clients; fi
np="${H5SF_CLIENTS_NP:-4}"
shim="$H5SF_BUILD_DIR/preload/libh5sf_preload.so"
ior="$cdir/ior/bin/ior"
h5bw="$cdir/h5bench-build/h5bench_write"
h5br="$cdir/h5bench-build/h5bench_read"
fixtime="$cdir/fixtime/libfixtime.so"
# h5sf layout for every redirected run: 4 subfiles of 64 KiB stripes, so a
# 4 KiB transfer lands in one subfile and a 1 MiB transfer spans all four;
# on the IOC channel, 2 IOC ranks own 2 subfiles each.
layout=(H5SF_STRIPE_SIZE=64KiB H5SF_STRIPE_COUNT=4 H5SF_IOC=total:2 H5SF_LOG=debug)
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
pass() { echo "PASS: $*"; }
die() { echo "clients.sh: $*" >&2; exit 100; }

# ---- build ---------------------------------------------------------------

# The commits docs/clients.md reports on.
ior_commit=5fcf0ba995fd92164d50e344597e2d8203298c08
h5bench_commit=675c86d11832c625f1d71e63d7626308170ba8c5

# get_src NAME GITHUB_REPO COMMIT: make sure $cdir/NAME-src holds the sources.
get_src() {
    local d="$cdir/$1-src"
    [[ -d $d && -n $(ls -A "$d" 2>/dev/null) ]] && return 0
    echo "== $1: no sources in $d; cloning https://github.com/$2 at $3"
    mkdir -p "$cdir"
    { git clone -q "https://github.com/$2" "$d" && git -C "$d" checkout -q "$3"; } ||
        die "$1 sources are absent from $d and cannot be cloned; put a copy of github.com/$2 (commit $3) there (git archive $3 | tar -x -C $d)"
}

build_ior() {
    [[ -x $ior ]] && return 0
    get_src ior hpc/ior $ior_commit
    local p="$H5SF_HDF5_PREFIX"
    echo "== building IOR with its HDF5 backend into $cdir/ior"
    (cd "$cdir/ior-src" &&
        { [[ -x configure ]] || ./bootstrap; } &&
        ./configure CC=mpicc --with-hdf5 --without-gpfs --without-lustre --prefix="$cdir/ior" \
            CPPFLAGS="-I$p/include" LDFLAGS="-L$p/lib -Wl,-rpath,$p/lib" &&
        make -j2 && make install) >"$cdir/ior-build.log" 2>&1 ||
        die "IOR build failed, see $cdir/ior-build.log (needs autoconf, automake, pkg-config)"
    grep -q '^#define USE_HDF5_AIORI' "$cdir/ior-src/src/config.h" || die "IOR was built without its HDF5 backend"
}

build_h5bench() {
    [[ -x $h5bw && -x $h5br ]] && return 0
    get_src h5bench hpc-io/h5bench $h5bench_commit
    echo "== building h5bench_write and h5bench_read into $cdir/h5bench-build"
    { HDF5_HOME="$H5SF_HDF5_PREFIX" cmake -S "$cdir/h5bench-src" -B "$cdir/h5bench-build" \
          -DCMAKE_C_COMPILER=mpicc -DCMAKE_BUILD_TYPE=Release -DCMAKE_BUILD_RPATH="$H5SF_HDF5_PREFIX/lib" &&
      cmake --build "$cdir/h5bench-build" -j2 --target h5bench_write h5bench_read; } \
        >"$cdir/h5bench-build.log" 2>&1 || die "h5bench build failed, see $cdir/h5bench-build.log"
}

# h5bench_write seeds rand() with time(NULL); a fixed time() makes its data
# the same in the redirected run and in the MPI-IO reference run, so h5diff
# can compare every value.  FIXTIME_T picks the time.
build_fixtime() {
    [[ -f $fixtime ]] && return 0
    mkdir -p "$(dirname "$fixtime")"
    cat >"$cdir/fixtime/fixtime.c" <<'EOF'
#include <stdlib.h>
#include <time.h>
time_t time(time_t *t)
{
    const char *v = getenv("FIXTIME_T");
    time_t      r = v ? (time_t)atoll(v) : 1700000000;
    if (t)
        *t = r;
    return r;
}
EOF
    cc -shared -fPIC -O2 -o "$fixtime" "$cdir/fixtime/fixtime.c" || die "cannot build $fixtime"
}

build_all() {
    "$root/scripts/build.sh" >/dev/null || die "h5sf build failed"
    [[ -f $shim ]] || die "no $shim after the build"
    build_ior
    build_h5bench
    build_fixtime
}

# ---- running -------------------------------------------------------------

# run NP [VAR=value ...] -- program args: every VAR goes to the ranks (Open
# MPI's -x, MPICH Hydra's -genv).
run() {
    local n=$1; shift
    local xs=()
    while [[ $# -gt 0 && $1 != -- ]]; do
        if [[ $H5SF_MPI == mpich ]]; then xs+=(-genv "${1%%=*}" "${1#*=}"); else xs+=(-x "$1"); fi
        shift
    done
    shift
    timeout 600 mpiexec -n "$n" $H5SF_MPIEXEC_FLAGS "${xs[@]}" "$@"
}

# Variables that select a channel through the redirect.  The IOC channel
# needs MPI_THREAD_MULTIPLE: IOR calls plain MPI_Init, so the shim upgrades
# it; h5bench asks for it itself (the upgrade is then left alone).
redirect_env() {
    local ch=$1
    echo LD_PRELOAD="$shim" H5SF_REDIRECT_MPIO=1 H5SF_CHANNEL="$ch" "${layout[@]}"
    [[ $ch == ioc ]] && echo H5SF_PRELOAD_THREAD_MULTIPLE=1
}

count() { compgen -G "$1" | wc -l; }

# check_subfiled FILE LOG CHANNEL: FILE is a stub with its config and 4
# subfiles, and the run's log shows the channel h5sf used.
check_subfiled() {
    local f=$1 log=$2 ch=$3 ok=1
    [[ -f $f ]] || { fail "$f missing"; return; }
    [[ $(count "$f.subfile_*.config") == 1 ]] || { fail "$f: no config file (not subfiled)"; ok=0; }
    [[ $(count "$f.subfile_*_of_4") == 4 ]] || { fail "$f: expected 4 subfiles: $(ls "$(dirname "$f")")"; ok=0; }
    grep -q "^h5sf:   channel $ch " "$log" || { fail "$log: h5sf did not report channel $ch"; ok=0; }
    ((ok)) && pass "$(basename "$f") subfiled: stub, config, 4 subfiles; channel $ch"
    ls -ls "$(dirname "$f")"
    grep -m1 "^h5sf:   channel" "$log"
    grep -m1 "IOC(s)" "$log" || true
}

# same_as_reference SUBFILED REFERENCE WHAT: every dataset of the subfiled
# file equals the MPI-IO reference file, read through h5sf and read through
# HDF5's built-in subfiling driver (which shares no code with h5sf); the
# stub holds almost nothing (the data really is in the subfiles).
same_as_reference() {
    local f=$1 ref=$2 what=$3 drv n
    n=$(h5ls -r "$ref" | grep -c ' Dataset ')
    for drv in h5sf subfiling; do
        # -r lists each dataset compared: all n of them, no differences.
        if h5diff -r --vfd-name-1=$drv "$f" "$ref" >"$f.h5diff-$drv" 2>&1 &&
            [[ $(grep -c '^0 differences found' "$f.h5diff-$drv") == "$n" && $n -gt 0 ]]; then
            pass "$what: h5diff --vfd-name-1=$drv vs the MPI-IO reference: $n of $n datasets identical"
        else
            fail "$what: h5diff --vfd-name-1=$drv vs the MPI-IO reference: $(tail -3 "$f.h5diff-$drv")"
        fi
    done
    local alloc=$(( $(stat -c '%b * %B' "$f") )) size=$(stat -c %s "$f") sub=0 s
    for s in "$f".subfile_*_of_*; do sub=$((sub + $(stat -c %s "$s"))); done
    if ((alloc <= 65536 && sub >= size)); then
        pass "$what: stub $size bytes long but $alloc allocated; the 4 subfiles hold $sub bytes"
    else
        fail "$what: stub $size bytes long, $alloc allocated; subfiles $sub bytes: not subfiled"
    fi
}

# ---- IOR -----------------------------------------------------------------

# IOR options: write, read, read back after writing (-W) and reading (-R)
# with every 8-byte word checked against a pattern of seed, rank and offset
# (-l random, fixed seed -G), one shared file.  -Z -Z -X 9 shuffles the
# reading ranks: with 4 ranks and glibc's rand() rank r reads the block of
# rank 3 0 1 2 (r = 0 1 2 3), none its own.  (-C shifts the -W read-back by
# a node: a no-op on one node, kept for multi-node runs.)
ior_opts() { echo -a HDF5 -w -r -W -R -C -l random -G 271828 -Z -Z -X 9 -t "$1" -b "$2"; }

ior_case() {
    local ch=$1 t=$2 b=$3 d="$work/ior-$ch-$t" log
    local env=($(redirect_env "$ch"))
    mkdir -p "$d"
    echo
    echo "== IOR, channel $ch, -t $t -b $b, kept (-k)"
    log="$d/keep.log"
    if run "$np" "${env[@]}" -- "$ior" $(ior_opts "$t" "$b") -k -o "$d/ior.h5" >"$log" 2>&1; then
        pass "IOR $ch $t: write, read and both verifications (exit 0)"
    else
        fail "IOR $ch $t kept run: exit status $?"; tail -30 "$log"
    fi
    grep -E '^(write|read) ' "$log" | sed 's/^/  /'
    grep -E 'WARNING|ERROR|errors found' "$log" | grep -v '^h5sf' | head -5
    check_subfiled "$d/ior.h5" "$log" "$ch"
    h5ls -r --vfd-name=h5sf "$d/ior.h5" || fail "h5ls through h5sf"
    same_as_reference "$d/ior.h5" "$work/ior-ref-$t/ior.h5" "IOR $ch $t"
    rm -f "$d"/ior.h5*

    echo "== IOR, channel $ch, -t $t -b $b, deleted by IOR"
    log="$d/delete.log"
    mkdir -p "$d/del"
    if run "$np" "${env[@]}" -- "$ior" $(ior_opts "$t" "$b") -o "$d/del/ior.h5" >"$log" 2>&1; then
        pass "IOR $ch $t: second run with delete, verified (exit 0)"
    else
        fail "IOR $ch $t delete run: exit status $?"; tail -30 "$log"
    fi
    grep -q "^h5sf:   channel $ch " "$log" || fail "IOR $ch $t delete run: channel $ch not reported"
    if [[ -z $(ls -A "$d/del") ]]; then
        pass "IOR $ch $t: IOR's H5Fdelete removed stub, config and every subfile"
    else
        fail "IOR $ch $t: left behind after IOR's delete: $(ls "$d/del")"
    fi
}

run_ior() {
    [[ -x $ior ]] || die "no IOR at $ior: run scripts/clients.sh build"
    local sizes=("4k 1m" "1m 16m") s t b
    for s in "${sizes[@]}"; do
        read -r t b <<<"$s"
        # The reference: the same IOR run on plain MPI-IO, file kept.
        mkdir -p "$work/ior-ref-$t"
        run "$np" -- "$ior" $(ior_opts "$t" "$b") -k -o "$work/ior-ref-$t/ior.h5" >"$work/ior-ref-$t/log" 2>&1 ||
            fail "IOR MPI-IO reference -t $t: $(tail -5 "$work/ior-ref-$t/log")"
        [[ $(count "$work/ior-ref-$t/*.subfile_*") == 0 ]] || fail "the reference run was subfiled"
    done
    # Can the comparison fail?  A different seed gives a different file.
    mkdir -p "$work/ior-neg"
    run "$np" -- "$ior" $(ior_opts 4k 1m | sed 's/-G 271828/-G 4/') -k -o "$work/ior-neg/ior.h5" >"$work/ior-neg/log" 2>&1
    if h5diff -q "$work/ior-neg/ior.h5" "$work/ior-ref-4k/ior.h5" >/dev/null 2>&1; then
        fail "IOR files written with different seeds compare equal: h5diff cannot tell"
    else
        pass "control: IOR files with different seeds differ under h5diff"
    fi
    for ch in direct ioc; do
        for s in "${sizes[@]}"; do
            read -r t b <<<"$s"
            ior_case "$ch" "$t" "$b"
        done
    done
}

# ---- h5bench -------------------------------------------------------------

# The sample sync-write-1d-contig-contig-read-full, smaller: 1-D contiguous
# memory and file ("CC"), 8 datasets per time step, collective data and
# metadata, 256 Ki particles per rank, 3 time steps (96 MiB at 4 ranks).
h5bench_cfg() {
    local op=$1
    cat <<EOF
MEM_PATTERN=CONTIG
FILE_PATTERN=CONTIG
READ_OPTION=FULL
TIMESTEPS=3
DELAYED_CLOSE_TIMESTEPS=2
COLLECTIVE_DATA=YES
COLLECTIVE_METADATA=YES
EMULATED_COMPUTE_TIME_PER_TIMESTEP=100 ms
NUM_DIMS=1
DIM_1=262144
DIM_2=1
DIM_3=1
IO_OPERATION=$op
EOF
}

run_h5bench() {
    [[ -x $h5bw && -x $h5br && -f $fixtime ]] || die "no h5bench build in $cdir: run scripts/clients.sh build"
    local d="$work/h5bench" ch log
    mkdir -p "$d/ref" "$d/neg"
    h5bench_cfg WRITE >"$d/write.cfg"
    h5bench_cfg READ >"$d/read.cfg"
    echo
    echo "== h5bench: MPI-IO reference (fixed seed)"
    run "$np" LD_PRELOAD="$fixtime" -- "$h5bw" "$d/write.cfg" "$d/ref/test.h5" >"$d/ref/log" 2>&1 ||
        fail "h5bench_write MPI-IO reference: $(tail -5 "$d/ref/log")"
    run "$np" LD_PRELOAD="$fixtime" FIXTIME_T=1600000000 -- "$h5bw" "$d/write.cfg" "$d/neg/test.h5" >"$d/neg/log" 2>&1 ||
        fail "h5bench_write control run: $(tail -5 "$d/neg/log")"
    if h5diff -q "$d/neg/test.h5" "$d/ref/test.h5" >/dev/null 2>&1; then
        fail "h5bench files written with different seeds compare equal: h5diff cannot tell"
    else
        pass "control: h5bench files with different seeds differ under h5diff"
    fi
    for ch in direct ioc; do
        local env=($(redirect_env "$ch"))
        mkdir -p "$d/$ch"
        echo
        echo "== h5bench_write, channel $ch"
        log="$d/$ch/write.log"
        if run "$np" "${env[@]/#LD_PRELOAD=*/LD_PRELOAD=$shim:$fixtime}" -- "$h5bw" "$d/write.cfg" "$d/$ch/test.h5" >"$log" 2>&1 &&
            grep -q "Total emulated compute time" "$log"; then
            pass "h5bench_write $ch (exit 0)"
        else
            fail "h5bench_write $ch"; tail -30 "$log"
        fi
        grep -iE 'rate|throughput|Raw write' "$log" | grep -v '^h5sf' | sed 's/^/  /' | head -6
        check_subfiled "$d/$ch/test.h5" "$log" "$ch"
        same_as_reference "$d/$ch/test.h5" "$d/ref/test.h5" "h5bench $ch"
        echo "== h5bench_read, channel $ch"
        log="$d/$ch/read.log"
        if run "$np" "${env[@]}" -- "$h5br" "$d/read.cfg" "$d/$ch/test.h5" >"$log" 2>&1 &&
            grep -q "^h5sf:   channel $ch " "$log"; then
            pass "h5bench_read $ch: full read of every time step (exit 0; h5bench_read does not check values)"
        else
            fail "h5bench_read $ch"; tail -30 "$log"
        fi
        grep -iE 'rate|throughput|Raw read' "$log" | grep -v '^h5sf' | sed 's/^/  /' | head -6
    done
}

# ---- main ----------------------------------------------------------------

case "$what" in
build) build_all && echo "clients.sh: IOR, h5bench and the time() override are built in $cdir" && exit 0 ;;
ior | h5bench | all)
    build_all
    rm -rf "$work" && mkdir -p "$work" || die "cannot create $work"
    echo "clients.sh: $(date -u '+%F %T UTC'), $(nproc) cores, $np ranks, files in $work ($(stat -f -c %T "$work"))"
    [[ $what == h5bench ]] || run_ior
    [[ $what == ior ]] || run_h5bench
    ;;
*) die "usage: scripts/clients.sh [build|ior|h5bench|all]" ;;
esac
echo
if ((fails)); then echo "clients.sh: $fails check(s) failed"; else echo "clients.sh: all checks passed"; fi
exit "$fails"
