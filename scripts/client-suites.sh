#!/usr/bin/env bash
# netCDF-C and CGNS, two libraries that call H5Pset_fapl_mpio themselves,
# built from Debian's source packages against the cached parallel HDF5 of
# one MPI (scripts/lib/client-builds.sh: versions, cache paths), and their
# own tests run unchanged:
#   parallel  netCDF-C nc_test4 run_par_test, run_par_warn_test and h5_test
#             run_par_tests (25 launches at 1-16 ranks, 3 ctests); CGNS
#             src/ptests and Test_UserGuideCode/C_code_parallel (22 ctests
#             of one launch at 2 ranks).  Each way in turn
#             (scripts/lib/client-mpiexec.sh): mpiio (no redirect), direct
#             (the MPI-IO redirect), ioc (the redirect on I/O concentrators
#             with both same-node shortcuts off).
#   serial    netCDF-C's other nc_test4 and h5_test ctests (85 + 27, one
#             process each), under HDF5_DRIVER=h5sf (a test that fails
#             there runs again under HDF5's default driver, for comparison).
# Under MPICH the MPI-IO way and the slowest launches are left to the Open
# MPI run (docs/clients.md, "Time in CI").
# docs/clients.md records the results and what each check means.
#
#   scripts/client-suites.sh [build|run] [netcdf] [cgns]    (default: run both)
#   scripts/client-suites.sh bench [REPS]    CGNS's parallel tests timed, the
#                          ways interleaved, REPS rounds (default 3): seconds
#                          per test and way (median), and pcgns_ctest's own
#                          rates per transfer mode (docs/clients.md)
#
#   H5SF_MPI               openmpi (default) or mpich; h5sf must be built for
#                          it (scripts/build.sh: build/, build-mpich/)
#   H5SF_CLIENTS_WAYS      parallel ways (Open MPI: "mpiio direct ioc",
#                          MPICH: "direct ioc")
#   H5SF_CLIENTS_LEAVE_OUT launches to leave out and report, an extended
#                          regular expression over their arguments (Open
#                          MPI: none; MPICH: the launches at 8 and 16 ranks,
#                          tst_nc4perf, tst_simplerw_coll_r at 4 ranks)
#   H5SF_CLIENTS_SERIAL    1: run the serial suite (default 1)
#   H5SF_CLIENTS_SERIAL_DRIVERS  HDF5_DRIVER values for it, "default" for
#                          none (default "h5sf"; the tests that fail under
#                          h5sf run again under HDF5's default driver)
#   H5SF_CLIENTS_SERIAL_LEAVE_OUT  serial ctests to leave out and report, a
#                          regular expression (default: none)
#   H5SF_CLIENTS_SERIAL_TIMEOUT  seconds per serial ctest (default 300; the
#                          slowest, tst_strided_write, takes 25 s of CPU
#                          with HDF5's default driver and ran past 120 s on
#                          this machine under load)
#
# Logs go to $H5SF_BUILD_DIR/client-suites/, and the time of each part (wall
# and CPU) to stderr.  The last line is
#   == clients (<MPI>): netCDF-C <v> parallel P/P serial S/S, CGNS <v> C/C, <ways>
# and the exit status is 0 only if every count is complete.  A parallel
# ctest passes a way only if ctest passes it, every launch in it exited 0,
# no output says "errors detected", and, under direct and ioc, every launch
# created a subfiled file (a config file) or wrote to a subfile (unless
# listed in no_file_launches below), and under mpiio none did.  A serial
# ctest under h5sf counts only if the pass left subfiled files.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
source "$root/scripts/env.sh" || exit 2
source "$root/scripts/lib/client-builds.sh"
# The references run on HDF5's default driver; each h5sf run sets its own.
unset HDF5_DRIVER HDF5_DRIVER_CONFIG

what=run
case ${1:-} in build | run | bench) what=$1; shift ;; esac
reps=3
if [[ $what == bench ]]; then reps=${1:-3}; set -- cgns; fi
clients=("$@")
[[ ${#clients[@]} -gt 0 ]] || clients=(netcdf cgns)
# Under MPICH the MPI-IO way and the slowest launches are left to the Open
# MPI run, to keep CI's time (docs/clients.md, "Time in CI").
if [[ $H5SF_MPI == mpich ]]; then
    mpi_name=MPICH
    ways=(${H5SF_CLIENTS_WAYS:-direct ioc})
    serial=${H5SF_CLIENTS_SERIAL:-1}
    serial_drivers=(${H5SF_CLIENTS_SERIAL_DRIVERS:-h5sf})
    leave_out=${H5SF_CLIENTS_LEAVE_OUT-'^-n (16|8) |/tst_nc4perf$|^-n 4 \./tst_simplerw_coll_r$'}
else
    mpi_name="Open MPI"
    ways=(${H5SF_CLIENTS_WAYS:-mpiio direct ioc})
    serial=${H5SF_CLIENTS_SERIAL:-1}
    serial_drivers=(${H5SF_CLIENTS_SERIAL_DRIVERS:-h5sf})
    leave_out=${H5SF_CLIENTS_LEAVE_OUT-}
fi
serial_leave_out=${H5SF_CLIENTS_SERIAL_LEAVE_OUT-}
logs="$H5SF_BUILD_DIR/client-suites"
serial_timeout=${H5SF_CLIENTS_SERIAL_TIMEOUT:-300}

# Launches that under direct and ioc leave neither a new config file nor a
# written subfile, and why they still count:
#   tst_mpi_parallel: MPI-IO without netCDF or HDF5 (a .bin file).
#   tst_parallel5: its last test re-creates its file from rank 0 alone with
#           nc_create (HDF5's default driver), which removes the subfiled
#           file's config and subfiles (the redirect's rule for a plain
#           H5Fcreate over a subfiled file); the reopen then finds a plain
#           file and uses MPI-IO, as asked.  Its earlier tests are subfiled.
#   read_*: CGNS's user-guide readers read the subfiled files the write_*
#           tests made; through MPI-IO they would read only the stub.
#   Metadata_Stressing: rank 0 alone creates the file (cg_open, HDF5's core
#           driver, no MPI-IO to redirect); the redirect opens a plain
#           HDF5 file with MPI-IO, as the program asked (the parallel
#           reopen, cgp_open; docs/user-guide.md, docs/clients.md).
no_file_launches='/tst_mpi_parallel$|/tst_parallel5$|/read_[a-z_]*$|/Metadata_Stressing$'

# clean_outputs DIR...: remove the subfiles and config files the tests left,
# before each way (so a way never counts another's) and, for CGNS, its
# .cgns files (all written by the tests; pcgns_ctest alone writes 6.7 GB).
clean_outputs() {
    find "$@" -maxdepth 1 -type f \( -name '*.subfile_*' -o -name '*.cgns' \) -delete
}

# check_launches FILE WAY: print a line for each launch that failed or did
# not write the way it should; return 1 if any.
check_launches() {
    local f=$1 way=$2 bad=0 line rc n prog
    while read -r line; do
        rc=$(sed -E 's/.* rc=([0-9]+) .*/\1/' <<<"$line")
        n=$(sed -E 's/.* configs=([0-9]+) written=([0-9]+) .*/\1 \2/' <<<"$line")
        prog=$(sed -E 's/.* launch=.* ([^ ]+)$/\1/' <<<"$line")
        if [[ $line == *" skipped "* ]]; then continue; fi
        if [[ $rc != 0 ]]; then echo "    launch failed (exit $rc): ${line#*launch=}"; bad=1
        elif [[ $way == mpiio && $n != "0 0" ]]; then echo "    MPI-IO launch made or wrote subfiles: ${line#*launch=}"; bad=1
        elif [[ $way != mpiio && $n == "0 0" ]] && ! grep -qE "$no_file_launches" <<<"$prog"; then
            echo "    no subfiled file (ran through MPI-IO?): ${line#*launch=}"; bad=1
        fi
    done <"$f"
    return $bad
}

# run_parallel CLIENT TESTDIR CTEST_NAME WAY: one parallel ctest, one way.
# Prints "pass" or "fail"; details to stderr and the logs.
run_parallel() {
    local client=$1 dir=$2 name=$3 way=$4
    local log="$logs/$client-$way-$name"
    rm -f "$log".launches "$log.out"
    ctest --test-dir "$dir" -R "^$name\$" -N | grep 'Total Tests: 1$' >/dev/null || { echo "    no ctest $name in $dir" >&2; echo fail; return; }
    (
        export H5SF_CLIENT_MPIEXEC="$root/scripts/lib/client-mpiexec.sh" H5SF_CLIENT_WAY=$way
        export H5SF_CLIENT_LAUNCHES="$log.launches" H5SF_CLIENT_LEAVE_OUT=$leave_out
        ctest --test-dir "$dir" -R "^$name\$" --timeout 1200 --output-on-failure >"$log.log" 2>&1
    )
    local ok=$?
    # The programs' output (ctest keeps it for the last run only).
    cp "$dir/Testing/Temporary/LastTest.log" "$log.out" 2>/dev/null || { echo "    $name: no output log" >&2; ok=1; }
    [[ -f $log.launches ]] || { echo "    $name: no launch recorded" >&2; ok=1; }
    [[ -f $log.launches ]] && { check_launches "$log.launches" "$way" >&2 || ok=1; }
    # h5_test's script exits 0 when a program fails; netCDF's test macros
    # print "N errors detected! Sorry!".
    if grep -q 'errors detected' "$log.out" 2>/dev/null; then
        echo "    $name: 'errors detected' in its output" >&2; ok=1
    fi
    ((ok == 0)) && echo pass || { echo "    $name ($way) failed: $log.log, $log.out" >&2; echo fail; }
}

# parallel_suite CLIENT "DIR NAME" ...: every ctest, in the order given,
# one way after the other (CGNS's readers read what its writers of the same
# way left); prints "passed total launches left_out" where passed counts the
# ctests that passed every way, and the launches are those of the way that
# made the most (a failing script stops early).
parallel_suite() {
    local client=$1; shift
    local t way dir name passed=0 total=$# r n_launch=0 n_skip=0 f
    local -A wpass failed wl ws
    for way in "${ways[@]}"; do
        for t in "$@"; do read -r dir name <<<"$t"; clean_outputs "$dir"; done
        for t in "$@"; do
            read -r dir name <<<"$t"
            r=$(run_parallel "$client" "$dir" "$name" "$way")
            if [[ $r == pass ]]; then wpass[$way]=$((${wpass[$way]:-0} + 1)); else failed[$name]=1; fi
            f="$logs/$client-$way-$name.launches"
            wl[$way]=$((${wl[$way]:-0} + $(cat "$f" 2>/dev/null | grep -c .)))
            ws[$way]=$((${ws[$way]:-0} + $(cat "$f" 2>/dev/null | grep -c ' skipped ')))
        done
        ((${wl[$way]} > n_launch)) && n_launch=${wl[$way]} n_skip=${ws[$way]}
        printf '  %s %s: %d/%d\n' "$client" "$way" "${wpass[$way]:-0}" "$total" >&2
    done
    for t in "$@"; do read -r dir name <<<"$t"; [[ -n ${failed[$name]:-} ]] || passed=$((passed + 1)); done
    echo "$passed $total $n_launch $n_skip"
}

# compare_default DIR LOG: the ctests that failed in LOG, again under HDF5's
# default driver, to say on stderr whether they fail there too (the
# reference pass costs a minute, so it runs for failures only).
compare_default() {
    local d=$1 log=$2 names re k
    names=$(sed -n '/The following tests FAILED:/,$p' "$log" | sed -nE 's/^[[:space:]]+[0-9]+ - ([^ ]+).*/\1/p')
    re="^($(paste -sd'|' <<<"$names"))\$"
    ctest --test-dir "$d" -R "$re" --timeout "$serial_timeout" >"$log.default" 2>&1
    k=$(sed -n '/The following tests FAILED:/,$p' "$log.default" | grep -cE '^[[:space:]]+[0-9]+ - ')
    echo "    under HDF5's default driver $k of them fail too ($log.default)" >&2
}

# serial_suite DIR...: the non-parallel ctests of each DIR under each of
# $serial_drivers (default: HDF5's own, i.e. no HDF5_DRIVER); prints
# "total left_out DRIVER=passed ..." (total not counting those left out).
serial_suite() {
    local d drv n=0 t f log out=() left=0 out_n
    local skip="run_par${serial_leave_out:+|$serial_leave_out}"
    local -A pass
    for drv in "${serial_drivers[@]}"; do
        pass[$drv]=0
        for d in "$@"; do
            clean_outputs "$d"
            log="$logs/netcdf-serial-$drv-$(basename "$d").log"
            t=$(ctest --test-dir "$d" -N -E "$skip" | awk '/Total Tests:/ { print $3 }')
            if [[ $drv == "${serial_drivers[0]}" ]]; then
                out_n=$(($(ctest --test-dir "$d" -N -E run_par | awk '/Total Tests:/ { print $3 }') - t))
                left=$((left + out_n))
            fi
            (
                # HDF5's default driver runs two at a time (the suite's
                # files have distinct names); h5sf one at a time, as it
                # writes several GB (docs/clients.md).
                jobs=2
                [[ $drv == default ]] || { export HDF5_DRIVER=$drv; jobs=1; }
                ctest --test-dir "$d" -E "$skip" -j $jobs --timeout "$serial_timeout" --output-on-failure >"$log" 2>&1
            )
            # ctest lists failures after "The following tests FAILED:".
            f=$(sed -n '/The following tests FAILED:/,$p' "$log" | grep -cE '^[[:space:]]+[0-9]+ - ')
            [[ $drv == "${serial_drivers[0]}" ]] && n=$((n + t))
            pass[$drv]=$((${pass[$drv]} + t - f))
            if ((f)); then
                echo "  netcdf serial, HDF5_DRIVER=$drv, $(basename "$d"): $f of $t failed ($log):" >&2
                sed -n '/The following tests FAILED:/,$p' "$log" | grep -E '^[[:space:]]+[0-9]+ - ' |
                    sed 's/^[[:space:]]*/    /' >&2
                [[ $drv == default ]] || compare_default "$d" "$log"
            fi
            if [[ $drv == h5sf ]] && [[ -z $(find "$d" -maxdepth 1 -name '*.subfile_*.config' -print -quit) ]]; then
                echo "  netcdf serial: no subfiled file in $d: HDF5_DRIVER=h5sf did not take" >&2
                pass[$drv]=0
            fi
        done
    done
    # Removed now rather than by the next run (several GB under h5sf).
    clean_outputs "$@"
    out=("$n" "$left")
    for drv in "${serial_drivers[@]}"; do out+=("$drv=${pass[$drv]}"); done
    echo "${out[@]}"
}

# bench TREE: CGNS's parallel ctests, every way in each of $reps rounds (so
# the ways share the machine's state), then per test and way the median
# seconds ctest measured, and pcgns_ctest's own rates (Mb/sec, its unit) per
# transfer mode.  Checks as in a run; a failed run is marked.
bench() {
    local b=$1/build r way t dir name f secs out="$logs/bench"
    local tests=() d n
    for d in src/ptests src/Test_UserGuideCode/C_code_parallel; do
        while read -r n; do tests+=("$b/$d $n"); done < <(ctest --test-dir "$b/$d" -N | awk '/Test +#/ { print $3 }')
    done
    mkdir -p "$out" && rm -f "$out"/*.times "$out"/*.rates "$out/failed"
    echo "bench: $(date -u '+%F %T UTC'), $(nproc) cores, $mpi_name, ways ${ways[*]}, $reps rounds, load $(cut -d' ' -f1-3 /proc/loadavg)"
    for ((r = 1; r <= reps; r++)); do
        for way in "${ways[@]}"; do
            for t in "${tests[@]}"; do read -r dir name <<<"$t"; clean_outputs "$dir"; done
            for t in "${tests[@]}"; do
                read -r dir name <<<"$t"
                f="$logs/cgns-$way-$name"
                [[ $(run_parallel cgns "$dir" "$name" "$way") == pass ]] || echo "$name $way FAILED" >>"$out/failed"
                secs=$(sed -nE 's/.*(Passed|Failed|\*\*\*.*) +([0-9.]+) sec.*/\2/p' "$f.log" | head -1)
                echo "$name ${secs:-nan}" >>"$out/$way.times"
                [[ $name == test-pcgns_ctest ]] &&
                    grep -E '^(write|read) *:' "$f.out" | sed -E 's/^(write|read) *: .* ([0-9.]+) Mb\/sec \((independent|collective)\).*/\1 \3 \2/' >>"$out/$way.rates"
            done
        done
        echo "bench: round $r done [${SECONDS}s]"
    done
    for t in "${tests[@]}"; do read -r dir name <<<"$t"; clean_outputs "$dir"; done
    python3 - "$out" "${ways[@]}" <<'PY'
import statistics, sys, collections
out, ways = sys.argv[1], sys.argv[2:]
times = {w: collections.defaultdict(list) for w in ways}
for w in ways:
    for line in open(f"{out}/{w}.times"):
        n, s = line.split()
        times[w][n].append(float(s))
names = list(times[ways[0]])
med = lambda v: statistics.median(v) if v else float("nan")
print("| test | " + " | ".join(f"{w} s" for w in ways) + " |")
print("| --- |" + " --- |" * len(ways))
for n in names:
    print(f"| {n[5:]} | " + " | ".join(f"{med(times[w][n]):.1f}" for w in ways) + " |")
tot = {w: sum(med(times[w][n]) for n in names) for w in ways}
print("| all 22 (sum of medians) | " + " | ".join(f"{tot[w]:.1f}" for w in ways) + " |")
print()
print("pcgns_ctest rates (Mb/sec, median of each of its 2 writes / 1 read per mode and round):")
print("| way | write independent | write collective | read independent | read collective |")
print("| --- | --- | --- | --- | --- |")
for w in ways:
    r = collections.defaultdict(list)
    try:
        for line in open(f"{out}/{w}.rates"):
            op, mode, v = line.split()
            r[(op, mode)].append(float(v))
    except FileNotFoundError:
        pass
    print(f"| {w} | " + " | ".join(f"{med(r[(o, m)]):.0f}" for o in ("write", "read") for m in ("independent", "collective")) + " |")
PY
    [[ ! -s $out/failed ]] || { echo "bench: failed runs:"; sort "$out/failed" | uniq -c; }
}

# timed NAME CMD...: run CMD in this shell; say on stderr how long it took,
# wall clock and CPU (of every process it started), for the CI budget.
timed() {
    local name=$1 TIMEFORMAT
    shift
    TIMEFORMAT="  $name: %0R s wall, %0U s user + %0S s system CPU"
    time "$@"
}

# The whole run is one function, so bash has read all of it before it
# starts: an edit of this file during a run cannot change the run.
main() {
    local -A tree
    local c b s p pt pl ps st sl rest r d n status ways_label line tests
    for c in "${clients[@]}"; do
        case $c in netcdf | cgns) ;; *) echo "usage: scripts/client-suites.sh [build|run] [netcdf] [cgns]" >&2; exit 2 ;; esac
        tree[$c]=$(timed "build $c" client_build "$c") || exit 1
        [[ $what == build ]] && echo "${tree[$c]}"
    done
    [[ $what == build ]] && exit 0
    [[ -f $H5SF_BUILD_DIR/preload/libh5sf_preload.so ]] || { echo "no h5sf build in $H5SF_BUILD_DIR (scripts/build.sh)" >&2; exit 1; }
    mkdir -p "$logs"
    if [[ $what == bench ]]; then
        exec 8>"${tree[cgns]}/.lock"; flock 8
        bench "${tree[cgns]}"
        return
    fi

    status=0
    ways_label=$(IFS=+; echo "${ways[*]}")
    line=()
    if [[ -n ${tree[netcdf]:-} ]]; then
        b=${tree[netcdf]}/build
        exec 8>"${tree[netcdf]}/.lock"; flock 8
        timed "netcdf parallel" parallel_suite netcdf "$b/nc_test4 nc_test4_run_par_test" \
            "$b/nc_test4 nc_test4_run_par_warn_test" "$b/h5_test h5_test_run_par_tests" >"$logs/result"
        read -r p pt pl ps <"$logs/result"
        ((p == pt)) || status=1
        s="netCDF-C $NETCDF_VERSION parallel $p/$pt"
        ((ps)) && s="$s ($ps of $pl launches left out)"
        if [[ $serial != 0 ]]; then
            timed "netcdf serial" serial_suite "$b/nc_test4" "$b/h5_test" >"$logs/result"
            read -r st sl rest <"$logs/result"
            for r in $rest; do
                ((${r#*=} == st)) || status=1
                [[ ${r%%=*} == h5sf ]] && s="$s serial ${r#*=}/$st"
            done
            ((sl)) && s="$s ($sl left out)"
            for r in $rest; do [[ ${r%%=*} == h5sf ]] || s="$s (HDF5_DRIVER ${r%%=*} ${r#*=}/$st)"; done
        fi
        exec 8>&-
        line+=("$s")
    fi
    if [[ -n ${tree[cgns]:-} ]]; then
        b=${tree[cgns]}/build
        exec 8>"${tree[cgns]}/.lock"; flock 8
        tests=()
        for d in src/ptests src/Test_UserGuideCode/C_code_parallel; do
            while read -r n; do tests+=("$b/$d $n"); done < <(ctest --test-dir "$b/$d" -N | awk '/Test +#/ { print $3 }')
        done
        timed "cgns parallel" parallel_suite cgns "${tests[@]}" >"$logs/result"
        read -r p pt pl ps <"$logs/result"
        clean_outputs "$b/src/ptests" "$b/src/Test_UserGuideCode/C_code_parallel"
        ((p == pt && pt > 0)) || status=1
        s="CGNS $CGNS_VERSION $p/$pt"
        ((ps)) && s="$s ($ps of $pl launches left out)"
        exec 8>&-
        line+=("$s")
    fi
    echo "== clients ($mpi_name): $(printf '%s, ' "${line[@]}")$ways_label"
    return $status
}

main "$@"; exit $?
