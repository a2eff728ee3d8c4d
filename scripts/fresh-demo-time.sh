#!/usr/bin/env bash
# Time scripts/demo.sh as a newcomer meets it: in a fresh Debian 12 root
# holding only what a new machine of this kind has (below), from a clean
# clone of a commit of this repository, as root in a chroot.  The roots live
# outside the repository and are removed at the end (after unmounting).
#   scripts/fresh-demo-time.sh [REF ...]   one timing per REF (default HEAD),
#                                          each in its own copy of one base root
#   H5SF_FRESH_DIR   where the roots go (default /var/tmp/h5sf-fresh)
#   H5SF_FRESH_KEEP=1  keep the base root for the next call (it takes minutes
#                    to make); without it everything under the folder goes
#   H5SF_FRESH_AFTER=CMD  then run CMD in the same root, timed the same way
#                    (e.g. scripts/bootstrap.sh: what the tests add)
#   H5SF_FRESH_NICE=N  run the timed commands at this niceness (default 0); on
#                    a machine that others load, -20 comes closer to the time
#                    on a machine of one's own (the load is printed either way).
#                    With the kernel's autogroups on, niceness only ranks
#                    processes of one process session, so the commands get a
#                    process session of their own (setsid) whose autogroup
#                    takes the niceness.
# Prints every line the demo prints with the seconds since it started, then
# per REF: wall seconds, CPU seconds (user + sys of the demo and its
# children) and the load averages before and after; exits non-zero when a
# timed command failed.  Needs root
# (mmdebstrap, chroot, bind mounts) and the Debian mirror of the machine's
# apt sources; owns only $H5SF_FRESH_DIR.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
DIR="${H5SF_FRESH_DIR:-/var/tmp/h5sf-fresh}"
[ "$(id -u)" -eq 0 ] || { echo "fresh-demo-time: needs root (chroot, bind mounts)" >&2; exit 2; }
[ $# -gt 0 ] || set -- HEAD
# What a new machine of this kind has before the project runs: compilers,
# build and debugging tools, git.
BASE_PKGS=(gcc g++ gfortran make cmake git ca-certificates procps python3 clang-format clang-tidy cppcheck
           clangd bear gdb valgrind strace linux-perf)

log() { printf '[fresh] %s\n' "$*" >&2; }
if ! command -v mmdebstrap >/dev/null; then
    log "installing mmdebstrap"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends mmdebstrap >/dev/null
fi
source "$root/scripts/lib/apt-private.sh"
MIRROR=$(mirror_uri) || { log "no Debian mirror found in apt sources"; exit 1; }

# ---- mounts: never remove a root while anything is mounted below it -------
mounts=()
umount_all() {
    local i
    for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
        umount "${mounts[i]}" 2>/dev/null || umount -l "${mounts[i]}"
    done
    mounts=()
}
bind() { mkdir -p "$R$1"; mount --bind "$1" "$R$1" && mounts+=("$R$1"); }
remove_root() { # path: removed only when nothing is mounted below it
    if awk -v r="$1/" 'index($2 "/", r) == 1 { found = 1 } END { exit !found }' /proc/mounts; then
        log "$1 still has mounts: left in place"
        return 1
    fi
    rm -rf "$1"
}
R=""
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
    umount_all
    [ -z "$R" ] || remove_root "$R" || true
    [ "${H5SF_FRESH_KEEP:-0}" = 1 ] || [ ! -d "$DIR/base" ] || remove_root "$DIR/base" || true
    [ "${H5SF_FRESH_KEEP:-0}" = 1 ] || { rm -f "$DIR/mmdebstrap.log"; rmdir "$DIR" 2>/dev/null; } || true
}
trap cleanup EXIT

mkdir -p "$DIR"
BASE="$DIR/base"
if [ ! -f "$BASE/.complete" ]; then
    log "building the base root $BASE (Debian 12 and: ${BASE_PKGS[*]})"
    rm -rf "$BASE"
    mmdebstrap --mode=root --variant=apt --include="$(IFS=,; echo "${BASE_PKGS[*]}")" \
        bookworm "$BASE" "deb $MIRROR bookworm main" >"$DIR/mmdebstrap.log" 2>&1 \
        || { tail -30 "$DIR/mmdebstrap.log" >&2; exit 1; }
    # The machine's own apt sources, as a new machine has them.
    rm -f "$BASE/etc/apt/sources.list" "$BASE"/etc/apt/sources.list.d/*
    cp /etc/apt/sources.list.d/*.sources "$BASE/etc/apt/sources.list.d/" 2>/dev/null || true
    [ ! -f /etc/apt/sources.list ] || cp /etc/apt/sources.list "$BASE/etc/apt/"
    touch "$BASE/.complete"
fi

in_root() { # label, command string: run as root in $R, each line timed; sets rc, wall, cpu
    local label="$1" cmd="$2" out="$DIR/out.$$" t0 now load0 load1
    load0=$(cut -d' ' -f1-3 /proc/loadavg)
    log "$label in $R, load before: $load0"
    t0=${EPOCHREALTIME/./}
    set +e
    # shellcheck disable=SC2016 # $0 (the niceness) and $@ expand in the inner shell
    setsid -w bash -c '[ ! -w /proc/self/autogroup ] || echo "$0" >/proc/self/autogroup; exec nice -n "$0" "$@"' \
        "${H5SF_FRESH_NICE:-0}" chroot "$R" /usr/bin/env -i PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin \
        HOME=/root LANG=C.UTF-8 bash -c "cd /root/h5sf && TIMEFORMAT='[fresh] cpu %U user %S sys'; time { $cmd; }" 2>&1 |
        while IFS= read -r line; do
            now=${EPOCHREALTIME/./}
            printf '%5d.%d %s\n' $(((now - t0) / 1000000)) $(((now - t0) / 100000 % 10)) "$line"
        done | tee "$out"
    rc=${PIPESTATUS[0]}
    set -e
    [ "$rc" -eq 0 ] || status=1
    now=${EPOCHREALTIME/./}
    wall=$(((now - t0) / 1000000))
    load1=$(cut -d' ' -f1-3 /proc/loadavg)
    cpu=$(sed -n 's/.*\[fresh\] cpu \(.*\)/\1/p' "$out" | tail -1)
    rm -f "$out"
    summary+=("$(printf '%s: exit %d, wall %d s, cpu %s, nice %s, load before %s, after %s' "$label" "$rc" "$wall" \
        "$cpu" "${H5SF_FRESH_NICE:-0}" "$load0" "$load1")")
}

summary=()
status=0
for ref in "$@"; do
    sha=$(git -C "$root" rev-parse --verify "$ref^{commit}")
    R="$DIR/run-${sha:0:12}"
    log "copying the base root to $R"
    remove_root "$R"
    cp -a "$BASE" "$R"
    git clone -q "$root" "$R/root/h5sf"
    git -C "$R/root/h5sf" checkout -q --detach "$sha"
    # A machine resolves its own name: without /etc/hosts, Open MPI's
    # lookups of it wait on DNS (10 s of mpiexec here).
    cp /etc/resolv.conf /etc/hosts "$R/etc/"
    chmod 1777 "$R/tmp"
    bind /proc; bind /sys; bind /dev; bind /dev/pts; bind /dev/shm
    in_root "$ref ${sha:0:12} scripts/demo.sh" scripts/demo.sh
    if [ -n "${H5SF_FRESH_AFTER:-}" ] && [ "$rc" -eq 0 ]; then
        in_root "$ref ${sha:0:12} then $H5SF_FRESH_AFTER" "$H5SF_FRESH_AFTER"
    fi
    umount_all
    remove_root "$R"
    R=""
done
printf '[fresh] %s\n' "${summary[@]}"
exit "$status"
