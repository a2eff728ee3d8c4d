#!/usr/bin/env bash
# netCDF-C and CGNS, two libraries that call H5Pset_fapl_mpio themselves,
# built from Debian's source packages against the cached parallel HDF5 of
# one MPI (scripts/lib/client-builds.sh: versions, cache paths), and their
# own tests run unchanged:
#   parallel  netCDF-C nc_test4 run_par_test, run_par_warn_test and h5_test
#             run_par_tests (25 launches at 1-16 ranks); CGNS src/ptests and
#             Test_UserGuideCode/C_code_parallel (22 launches at 2 ranks).
#             Three ways each (scripts/lib/client-mpiexec.sh): mpiio, direct
#             (the MPI-IO redirect), ioc (the redirect on I/O concentrators
#             with both same-node shortcuts off).
#   serial    netCDF-C's other nc_test4 and h5_test ctests (one process
#             each), under HDF5's default driver and under HDF5_DRIVER=h5sf.
# docs/clients.md records the results and what each check means.
#
#   scripts/client-suites.sh [build|run] [netcdf] [cgns]    (default: run both)
#
#   H5SF_MPI               openmpi (default) or mpich; h5sf must be built for
#                          it (scripts/build.sh: build/, build-mpich/)
#   H5SF_CLIENTS_WAYS      parallel ways to run (default "mpiio direct ioc")
#   H5SF_CLIENTS_MAX_NP    launches with more ranks are left out and reported
#                          (default: none left out under Open MPI; 8 under
#                          MPICH, whose busy-polling ranks cannot share 2
#                          cores 16 at a time, see docs/clients.md)
#   H5SF_CLIENTS_SERIAL=0  leave the serial suite out
#   H5SF_CLIENTS_SERIAL_TIMEOUT  seconds per serial ctest (default 120; the
#                          slowest passing one, tst_strided_write, takes
#                          about 25 s of CPU with any driver)
#
# Logs go to $H5SF_BUILD_DIR/client-suites/.  The last line is
#   == clients (<MPI>): netCDF-C <v> parallel P/P serial S/S, CGNS <v> C/C, direct+ioc
# and the exit status is 0 only if every count is complete.  A parallel
# ctest passes a way only if ctest passes it, every launch in it exited 0,
# no output says "errors detected", and, under direct and ioc, every launch
# created a subfiled file (a config file) or wrote to a subfile (unless
# listed in no_file_launches below), and under mpiio none did.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
source "$root/scripts/env.sh" || exit 2
source "$root/scripts/lib/client-builds.sh"
# The references run on HDF5's default driver; each h5sf run sets its own.
unset HDF5_DRIVER HDF5_DRIVER_CONFIG

what=run
case ${1:-} in build | run) what=$1; shift ;; esac
clients=("$@")
[[ ${#clients[@]} -gt 0 ]] || clients=(netcdf cgns)
ways=(${H5SF_CLIENTS_WAYS:-mpiio direct ioc})
if [[ $H5SF_MPI == mpich ]]; then max_np=${H5SF_CLIENTS_MAX_NP:-8}; mpi_name=MPICH
else max_np=${H5SF_CLIENTS_MAX_NP:-0}; mpi_name="Open MPI"; fi
logs="$H5SF_BUILD_DIR/client-suites"
serial_drivers=(default h5sf)
serial_timeout=${H5SF_CLIENTS_SERIAL_TIMEOUT:-120}

declare -A tree
for c in "${clients[@]}"; do
    case $c in netcdf | cgns) ;; *) echo "usage: scripts/client-suites.sh [build|run] [netcdf] [cgns]" >&2; exit 2 ;; esac
    tree[$c]=$(client_build "$c") || exit 1
    [[ $what == build ]] && echo "${tree[$c]}"
done
[[ $what == build ]] && exit 0
[[ -f $H5SF_BUILD_DIR/preload/libh5sf_preload.so ]] || { echo "no h5sf build in $H5SF_BUILD_DIR (scripts/build.sh)" >&2; exit 1; }
mkdir -p "$logs"

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
# Not listed, so it fails under direct and ioc: CGNS's Metadata_Stressing,
# whose rank 0 alone creates the file (cg_open, HDF5's core driver): the
# parallel reopen finds a plain file and runs on MPI-IO (docs/clients.md).
no_file_launches='/tst_mpi_parallel$|/tst_parallel5$|/read_[a-z_]*$'

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
    local client=$1 dir=$2 name=$3 way=$4 log="$logs/$client-$way-$3"
    rm -f "$log".launches
    (
        export H5SF_CLIENT_MPIEXEC="$root/scripts/lib/client-mpiexec.sh" H5SF_CLIENT_WAY=$way
        export H5SF_CLIENT_LAUNCHES="$log.launches" H5SF_CLIENT_MAX_NP=$max_np
        ctest --test-dir "$dir" -R "^$name\$" --timeout 1200 --output-on-failure >"$log.log" 2>&1 &&
            ctest --test-dir "$dir" -R "^$name\$" -N | grep -q 'Total Tests: 1$'
    )
    local ok=$?
    [[ -f $log.launches ]] || { echo "    $name: no launch recorded" >&2; ok=1; }
    [[ -f $log.launches ]] && { check_launches "$log.launches" "$way" >&2 || ok=1; }
    # h5_test's script exits 0 when a program fails; HDF5's test macros say so.
    if grep -q 'errors detected' "$dir/Testing/Temporary/LastTest.log" 2>/dev/null; then
        echo "    $name: 'errors detected' in its output" >&2; ok=1
    fi
    cp "$dir/Testing/Temporary/LastTest.log" "$log.out" 2>/dev/null
    ((ok == 0)) && echo pass || { echo "    $name ($way) failed: $log.log, $log.out" >&2; echo fail; }
}

# parallel_suite CLIENT "DIR NAME" ...: every ctest, in the order given,
# one way after the other (CGNS's readers read what its writers of the same
# way left); prints "passed total launches left_out" where passed counts the
# ctests that passed every way.
parallel_suite() {
    local client=$1; shift
    local t way dir name passed=0 total=$# r n_launch=0 n_skip=0 f
    local -A wpass failed
    for way in "${ways[@]}"; do
        for t in "$@"; do read -r dir name <<<"$t"; clean_outputs "$dir"; done
        for t in "$@"; do
            read -r dir name <<<"$t"
            r=$(run_parallel "$client" "$dir" "$name" "$way")
            if [[ $r == pass ]]; then wpass[$way]=$((${wpass[$way]:-0} + 1)); else failed[$name]=1; fi
            f="$logs/$client-$way-$name.launches"
            n_launch=$((n_launch + $(cat "$f" 2>/dev/null | grep -c .)))
            n_skip=$((n_skip + $(cat "$f" 2>/dev/null | grep -c ' skipped ')))
        done
        printf '  %s %s: %d/%d\n' "$client" "$way" "${wpass[$way]:-0}" "$total" >&2
    done
    for t in "$@"; do read -r dir name <<<"$t"; [[ -n ${failed[$name]:-} ]] || passed=$((passed + 1)); done
    echo "$passed $total $((n_launch / ${#ways[@]})) $((n_skip / ${#ways[@]}))"
}

# serial_suite DIR...: the non-parallel ctests of each DIR under each of
# $serial_drivers (default: HDF5's own, i.e. no HDF5_DRIVER); prints
# "total passed_1 passed_2 ..." in that order.
serial_suite() {
    local d drv n=0 t f log out=()
    local -A pass
    for drv in "${serial_drivers[@]}"; do
        pass[$drv]=0
        for d in "$@"; do
            clean_outputs "$d"
            log="$logs/netcdf-serial-$drv-$(basename "$d").log"
            t=$(ctest --test-dir "$d" -N -E 'run_par' | awk '/Total Tests:/ { print $3 }')
            (
                [[ $drv == default ]] || export HDF5_DRIVER=$drv
                ctest --test-dir "$d" -E 'run_par' --timeout "$serial_timeout" --output-on-failure >"$log" 2>&1
            )
            # ctest lists failures after "The following tests FAILED:".
            f=$(sed -n '/The following tests FAILED:/,$p' "$log" | grep -cE '^[[:space:]]+[0-9]+ - ')
            [[ $drv == "${serial_drivers[0]}" ]] && n=$((n + t))
            pass[$drv]=$((${pass[$drv]} + t - f))
            if ((f)); then
                echo "  netcdf serial, HDF5_DRIVER=$drv, $(basename "$d"): $f of $t failed ($log):" >&2
                sed -n '/The following tests FAILED:/,$p' "$log" | grep -E '^[[:space:]]+[0-9]+ - ' |
                    sed 's/^[[:space:]]*/    /' >&2
            fi
            if [[ $drv == h5sf ]] && [[ -z $(find "$d" -maxdepth 1 -name '*.subfile_*.config' -print -quit) ]]; then
                echo "  netcdf serial: no subfiled file in $d: HDF5_DRIVER=h5sf did not take" >&2
                pass[$drv]=0
            fi
        done
    done
    out=("$n")
    for drv in "${serial_drivers[@]}"; do out+=("${pass[$drv]}"); done
    echo "${out[@]}"
}

status=0
ways_label=$(printf '%s\n' "${ways[@]}" | grep -v '^mpiio$' | paste -sd+)
line=()
if [[ -n ${tree[netcdf]:-} ]]; then
    b=${tree[netcdf]}/build
    exec 8>"${tree[netcdf]}/.lock"; flock 8
    read -r p pt pl ps < <(parallel_suite netcdf "$b/nc_test4 nc_test4_run_par_test" \
        "$b/nc_test4 nc_test4_run_par_warn_test" "$b/h5_test h5_test_run_par_tests")
    ((p == pt)) || status=1
    s="netCDF-C $NETCDF_VERSION parallel $p/$pt"
    ((ps)) && s="$s ($ps of $pl launches left out)"
    if [[ ${H5SF_CLIENTS_SERIAL:-1} != 0 ]]; then
        read -r st sd sh < <(serial_suite "$b/nc_test4" "$b/h5_test")
        ((sh == st && sd == st)) || status=1
        s="$s serial $sh/$st"
        ((sd == st)) || s="$s (default driver $sd/$st)"
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
    read -r p pt pl ps < <(parallel_suite cgns "${tests[@]}")
    clean_outputs "$b/src/ptests" "$b/src/Test_UserGuideCode/C_code_parallel"
    ((p == pt && pt > 0)) || status=1
    s="CGNS $CGNS_VERSION $p/$pt"
    ((ps)) && s="$s ($ps of $pl launches left out)"
    exec 8>&-
    line+=("$s")
fi
echo "== clients ($mpi_name): $(printf '%s, ' "${line[@]}")$ways_label"
exit $status
