#!/usr/bin/env bash
# HDF5's own test programs through h5sf (the conformance suite).
#
#   scripts/conformance.sh PART [REGEX]
#     PART   serial            every program of HDF5's test/ that takes its
#                              fapl from the harness, with HDF5_DRIVER=h5sf
#            parallel-direct   every testpar/ program at 4 ranks, H5Pset_fapl_mpio
#            parallel-ioc      redirected to h5sf by libh5sf_preload.so, with
#                              the direct or the IOC channel; the IOC part
#                              sends every request through the IOCs
#                              (H5SF_SAMENODE_READS=0, _WRITES=0 unless set):
#                              on one node the IOC channel's defaults would
#                              take the same-node shortcut for every byte,
#                              the direct part's path
#            report            write docs/conformance.md from the last runs
#     REGEX  run only the programs whose name matches
#
# The programs come from the HDF5 build scripts/bootstrap.sh keeps in
# $H5SF_CACHE/hdf5-build (built from the same source, with the harness patch
# test/conformance/hdf5-harness.patch).  Results go to
# $H5SF_BUILD_DIR/conformance/<part>.tsv: program, result (pass, FAIL,
# TIMEOUT), seconds, and for a failure the same program's result under a
# reference driver (serial: HDF5's mpio and subfiling; parallel: HDF5's own
# MPI-IO driver, no redirect, and its subfiling driver through the same
# redirect, H5SF_REDIRECT_MPIO=subfiling) -- run for unexpected failures, or for all
# with H5SF_CONFORMANCE_REFERENCE=1.  test/conformance/expected.tsv lists the
# failures that are expected, with their reason and evidence; any other
# failure or any timeout makes the part fail (exit 1).
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
part="${1:?usage: conformance.sh serial|parallel-direct|parallel-ioc|report [REGEX]}"
filter="${2:-.}"

if [ "$part" = report ]; then
    source "$root/scripts/env.sh"
    exec python3 "$root/scripts/conformance-report.py" "$H5SF_BUILD_DIR/conformance" \
        "$root/test/conformance/expected.tsv" "$root/docs/conformance.md"
fi

"$root/scripts/bootstrap.sh" || exit 1
source "$root/scripts/env.sh"
CACHE="${H5SF_CACHE:-$HOME/.cache/h5sf}"
HB="$CACHE/hdf5-build"; [ "$H5SF_MPI" = openmpi ] || HB="$CACHE/hdf5-build-$H5SF_MPI"
SRC="$CACHE/src/hdf5-src"
OUT="$H5SF_BUILD_DIR/conformance"
PRELOAD="$H5SF_BUILD_DIR/preload/libh5sf_preload.so"
EXPECTED="$root/test/conformance/expected.tsv"
SERIAL_TIMEOUT="${H5SF_CONFORMANCE_SERIAL_TIMEOUT:-600}"
PAR_TIMEOUT="${H5SF_CONFORMANCE_PAR_TIMEOUT:-900}"
NP="${H5SF_CONFORMANCE_NP:-4}"
[ -f "$H5SF_BUILD_DIR/lib/libh5sf.so" ] && [ -f "$PRELOAD" ] || {
    echo "conformance: build h5sf first (scripts/build.sh): no plugin or shim in $H5SF_BUILD_DIR" >&2; exit 1; }
mkdir -p "$OUT"
# More ranks than cores: let HDF5's own tests yield instead of spinning.
export OMPI_MCA_mpi_yield_when_idle=1
export HDF5_ALARM_SECONDS=$((PAR_TIMEOUT + 60))

# Under MPICH every rank also preloads the tests' yield shim where the build
# has it (test/mpich_yield.c): MPICH spins while it waits, and with more
# ranks than cores its ranks take each other's cores.
YIELD="$H5SF_BUILD_DIR/lib/test/libh5sf_test_mpich_yield.so"
[ "$H5SF_MPI" = mpich ] && [ -f "$YIELD" ] || YIELD=""
SHIMS="$PRELOAD${YIELD:+:$YIELD}"

# mpx VAR[=VALUE]... -- PROGRAM ARGS: sets MPX to the command line that runs
# NP ranks with these variables set in every rank but not in mpiexec itself
# (LD_PRELOAD), in each MPI's syntax: Open MPI's -x, Hydra's -genv.  A bare
# VAR passes its current value.  (An array, not a function: run_one hands
# it to timeout.)
mpx() {
    local kv
    MPX=(mpiexec -n "$NP" $H5SF_MPIEXEC_FLAGS)
    while [ "$1" != -- ]; do
        kv="$1"; shift
        [[ "$kv" == *=* ]] || kv="$kv=${!kv-}"
        if [ "$H5SF_MPI" = openmpi ]; then MPX+=(-x "$kv"); else MPX+=(-genv "${kv%%=*}" "${kv#*=}"); fi
    done
    shift
    MPX+=("$@")
}

# Names from a `set (VAR ...)` block of one of HDF5's CMakeLists files.
cmake_list() { # file var
    awk -v v="$2" '
        $0 ~ "set \\(" v "$" || $0 ~ "set \\(" v " " { on = 1; next }
        on && /\)/ { exit }
        on { sub(/#.*/, ""); for (i = 1; i <= NF; i++) print $i }' "$1"
}

# A fresh working directory holding HDF5's test files, as HDF5's ctest has.
workdir() { # name
    local d="$OUT/work/$1"
    rm -rf "$d" && mkdir -p "$d"
    case "$1" in
        serial*) cp -r "$HB/test/H5TEST/testfiles" "$d/" 2>/dev/null
                 cp "$HB/test/H5TEST/"*.h5 "$d/" 2>/dev/null ;;
        *)       cp "$HB/testpar/"*.h5 "$d/" 2>/dev/null ;;
    esac
    echo "$d"
}

# Run one program; prints "pass|FAIL|TIMEOUT seconds".
run_one() { # timeout dir log cmd...
    local t="$1" dir="$2" log="$3"; shift 3
    local start end rc
    start=$(date +%s)
    # A program that fails everything can print gigabytes of error stacks.
    (cd "$dir" && srcdir="$dir" timeout -k 15 "$t" "$@" 2>&1 | head -c 20000000 >"$log"; exit "${PIPESTATUS[0]}")
    rc=$?
    end=$(date +%s)
    if [ "$rc" -eq 0 ]; then echo "pass $((end - start))"
    elif [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then echo "TIMEOUT $((end - start))"
    else echo "FAIL $((end - start))"; fi
    # leftover processes of a killed mpiexec would disturb the next program;
    # after an MPI_Abort, Open MPI's daemons linger a moment: a job started
    # then fails at once
    pkill -f "$dir" >/dev/null 2>&1 || true
    for _ in $(seq 30); do pgrep -x orted >/dev/null || pgrep -f "mpiexec.*$dir" >/dev/null || break; sleep 0.5; done
}

# "FAILED" lines of a log: a rough fingerprint to compare with a reference.
nfail() { grep -a -c -E 'FAILED|UNEXPECTED' "$1" 2>/dev/null; }

expected_reason() { # program mode
    awk -F'\t' -v p="$1" -v m="$2" '$1 == p && ($2 == m || ($2 == "*" && m !~ /^skip/)) { print $3; exit }' "$EXPECTED" 2>/dev/null
}

tsv="$OUT/$part.tsv"
: >"$tsv"
bad=0

case "$part" in
serial)
    # HDF5's VFD test set (test/CMakeVFDTests.cmake): its programs minus
    # those that pick their own driver or test one (the skip list, less
    # big and cache, which HDF5 removes from it on Linux too).
    skip=" $(cmake_list "$SRC/test/CMakeVFDTests.cmake" H5_VFD_SKIP_TESTS | tr '\n' ' ') "
    skip="${skip/ big / }"; skip="${skip/ cache / }"
    progs=$( (cmake_list "$SRC/test/CMakeLists.txt" H5_EXPRESS_TESTS; cmake_list "$SRC/test/CMakeLists.txt" H5_TESTS) )
    # testhdf5 is a suite of suites: one entry per subtest (testhdf5 -o NAME).
    sub=$(grep -o 'AddTest("[^"]*"' "$SRC/test/testhdf5.c" | cut -d'"' -f2 | sed 's/^/testhdf5-/')
    progs=$(for p in $progs; do if [ "$p" = testhdf5 ]; then echo "$sub"; else echo "$p"; fi; done)
    # Two programs at a time (one process each, two cores), each in its own
    # directory; rows are written in list order at the end.
    serial_one() { # program -> $OUT/serial-<p>.row, .bad on an unexpected result
        local p=$1 exe="${1%%-*}" args=() wd rd res secs r1 r2 ref
        [ "$exe" != "$p" ] && args=(-o "${p#*-}")
        wd=$(workdir "serial-$p")
        read -r res secs < <(HDF5_DRIVER=h5sf run_one "$SERIAL_TIMEOUT" "$wd" "$OUT/serial-$p.log" "$HB/bin/$exe" "${args[@]}")
        ref="-"
        if [ "$res" != pass ] && { [ "${H5SF_CONFORMANCE_REFERENCE:-0}" = 1 ] || [ -z "$(expected_reason "$p" h5sf)" ]; }; then
            # mpio through HDF5_TEST_DRIVER (the harness's fapls only): with
            # HDF5_DRIVER the library's default fapl would start MPI inside
            # the MPI-IO driver, which finalizes it at the first H5close.
            # subfiling, like h5sf, through HDF5_DRIVER (every fapl).
            rd=$(workdir "serial-ref-$p")
            read -r r1 _ < <(HDF5_TEST_DRIVER=mpio run_one "$SERIAL_TIMEOUT" "$rd" "$OUT/serial-$p.mpio.log" "$HB/bin/$exe" "${args[@]}")
            rd=$(workdir "serial-ref-$p")
            read -r r2 _ < <(HDF5_DRIVER=subfiling run_one "$SERIAL_TIMEOUT" "$rd" "$OUT/serial-$p.subfiling.log" "$HB/bin/$exe" "${args[@]}")
            ref="h5sf:$(nfail "$OUT/serial-$p.log") mpio:$r1($(nfail "$OUT/serial-$p.mpio.log")) subfiling:$r2($(nfail "$OUT/serial-$p.subfiling.log"))"
            rm -rf "$rd"
        fi
        rm -rf "$wd"
        printf '%s\t%s\t%s\t%s\n' "$p" "$res" "$secs" "$ref" | tee "$OUT/serial-$p.row"
        if [ "$res" != pass ] && { [ "$res" = TIMEOUT ] || [ -z "$(expected_reason "$p" h5sf)" ]; }; then
            touch "$OUT/serial-$p.bad"
            { echo "conformance: $p under h5sf: $res (log: $OUT/serial-$p.log)"
              grep -a -m5 -iE 'FAILED|error|Assertion|signal' "$OUT/serial-$p.log"; } >&2
        fi
    }
    rm -f "$OUT"/serial-*.row "$OUT"/serial-*.bad
    order=()
    for p in $progs; do
        exe="${p%%-*}"
        [[ "$skip" == *" $exe "* ]] && continue
        [[ "$p" =~ $filter ]] || continue
        [ -x "$HB/bin/$exe" ] || continue
        order+=("$p")
        if [ -n "$(expected_reason "$p" skip)" ] || [ -n "$(expected_reason "$p" "skip-$H5SF_MPI")" ]; then
            printf '%s\t%s\t%s\t%s\n' "$p" "not run" 0 "-" | tee "$OUT/serial-$p.row"
            continue
        fi
        serial_one "$p" &
        while [ "$(jobs -rp | wc -l)" -ge "${H5SF_CONFORMANCE_JOBS:-2}" ]; do wait -n; done
    done
    wait
    for p in "${order[@]}"; do
        cat "$OUT/serial-$p.row" >>"$tsv" 2>/dev/null || printf '%s\tFAIL\t0\t-\n' "$p" >>"$tsv"
        [ -f "$OUT/serial-$p.bad" ] && bad=1
    done
    ;;
parallel-direct|parallel-ioc)
    ch="${part#parallel-}"
    if [ "$ch" = ioc ]; then
        export H5SF_SAMENODE_READS="${H5SF_SAMENODE_READS-0}" H5SF_SAMENODE_WRITES="${H5SF_SAMENODE_WRITES-0}"
    fi
    # testphdf5 runs whole, less the subtests expected.tsv lists as
    # testphdf5-NAME, which run alone (-o NAME) so one expected failure
    # does not stop the rest.
    xsubs=$(awk -F'\t' -v m="$ch" '$1 ~ /^testphdf5-/ && ($2 == m || $2 == "*") { sub(/^testphdf5-/, "", $1); print $1 }' "$EXPECTED")
    progs="testphdf5 $(for x in $xsubs; do printf 'testphdf5-%s ' "$x"; done)"
    progs="$progs $(cmake_list "$SRC/testpar/CMakeLists.txt" H5P_TESTS | tr '\n' ' ')"
    # One directory for all, as HDF5's ctest has: t_pflush2 and t_prestart
    # read what t_pflush1 and t_pshutdown left.
    wd=$(workdir "par-$ch") rd=$(workdir "par-ref-$ch")
    for p in $progs; do
        exe="${p%%-*}" args=()
        if [ "$p" = testphdf5 ]; then
            for x in $xsubs; do args+=(-x "$x"); done
        elif [ "$exe" != "$p" ]; then
            args=(-o "${p#*-}")
        fi
        [[ "$p" =~ $filter ]] || continue
        [ -x "$HB/bin/$exe" ] || continue
        if [ -n "$(expected_reason "$p" skip)" ] || [ -n "$(expected_reason "$p" "skip-$ch")" ] ||
           [ -n "$(expected_reason "$p" "skip-$H5SF_MPI")" ]; then
            printf '%s\t%s\t%s\t%s\n' "$p" "not run" 0 "-" | tee -a "$tsv"
            continue
        fi
        mpx LD_PRELOAD="$SHIMS" H5SF_REDIRECT_MPIO=1 H5SF_PRELOAD_THREAD_MULTIPLE=1 \
            H5SF_CHANNEL="$ch" H5SF_SAMENODE_READS H5SF_SAMENODE_WRITES HDF5_PLUGIN_PATH OMPI_MCA_mpi_yield_when_idle HDF5_ALARM_SECONDS \
            srcdir="$wd" -- "$HB/bin/$exe" "${args[@]}"
        read -r res secs < <(run_one "$PAR_TIMEOUT" "$wd" "$OUT/$part-$p.log" "${MPX[@]}")
        # Ranks of a failed job can outlive its mpiexec (they carry no
        # mark of the directory): none may spin on into the next program.
        pkill -f "$HB/bin/$exe" >/dev/null 2>&1 || true
        # t_pflush1 exits on purpose without closing its file (HDF5's
        # ctest: WILL_FAIL); t_pflush2 then checks what it flushed.
        if [ "$p" = t_pflush1 ]; then
            case "$res" in FAIL) res=pass ;; pass) res=FAIL ;; esac
        fi
        ref="-"
        if [ "$res" != pass ] && { [ "${H5SF_CONFORMANCE_REFERENCE:-0}" = 1 ] || [ -z "$(expected_reason "$p" "$ch")" ]; }; then
            mpx LD_PRELOAD="$YIELD" OMPI_MCA_mpi_yield_when_idle HDF5_ALARM_SECONDS srcdir="$rd" -- "$HB/bin/$exe" "${args[@]}"
            read -r r1 _ < <(run_one "$PAR_TIMEOUT" "$rd" "$OUT/$part-$p.mpio.log" "${MPX[@]}")
            # HDF5's built-in subfiling driver through the same redirect.
            mpx LD_PRELOAD="$SHIMS" H5SF_REDIRECT_MPIO=subfiling H5SF_PRELOAD_THREAD_MULTIPLE=1 \
                HDF5_PLUGIN_PATH OMPI_MCA_mpi_yield_when_idle HDF5_ALARM_SECONDS srcdir="$rd" \
                -- "$HB/bin/$exe" "${args[@]}"
            read -r r2 _ < <(run_one "$PAR_TIMEOUT" "$rd" "$OUT/$part-$p.subfiling.log" "${MPX[@]}")
            pkill -f "$HB/bin/$exe" >/dev/null 2>&1 || true
            ref="h5sf:$(nfail "$OUT/$part-$p.log") mpio:$r1($(nfail "$OUT/$part-$p.mpio.log")) subfiling:$r2($(nfail "$OUT/$part-$p.subfiling.log"))"
        fi
        printf '%s\t%s\t%s\t%s\n' "$p" "$res" "$secs" "$ref" | tee -a "$tsv"
        if [ "$res" != pass ] && { [ "$res" = TIMEOUT ] || [ -z "$(expected_reason "$p" "$ch")" ]; }; then
            bad=1
            echo "conformance: $p at $NP ranks, $ch channel: $res (log: $OUT/$part-$p.log)" >&2
            grep -m5 -iE 'FAILED|error|Assertion|signal' "$OUT/$part-$p.log" >&2
        fi
    done
    rm -rf "$wd" "$rd"
    ;;
*)
    echo "conformance.sh: unknown part $part" >&2; exit 2 ;;
esac

{ date -u +%Y-%m-%d; basename "$(readlink -f "$H5SF_HDF5_PREFIX")"; mpirun --version 2>/dev/null | head -1; } \
    >"$OUT/$part.meta"
echo "conformance $part: $(grep -c $'\tpass\t' "$tsv") of $(wc -l <"$tsv") programs pass"
exit "$bad"
