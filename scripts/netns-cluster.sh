#!/usr/bin/env bash
# netns-cluster.sh -- a small "cluster" of hosts on this machine, made of
# Linux network namespaces, and MPI jobs across it (Open MPI or MPICH).
#
#   netns-cluster.sh up [-n HOSTS] [-s SLOTS]   create hosts <name>-h1..hN
#   netns-cluster.sh down [--keep-storage]      remove everything 'up' made
#   netns-cluster.sh status                     hosts, addresses, reachability
#   netns-cluster.sh run [-n H -s S] [-t SEC] -- <mpiexec args>
#                                               mpiexec from host 1 over TCP;
#                                               with -n, a cluster made for
#                                               this run and removed after it
#   netns-cluster.sh exec HOST -- CMD...        run CMD "on" HOST
#   netns-cluster.sh unplug|plug HOST           take HOST's link down / up
#   netns-cluster.sh crash HOST                 kill every process on HOST
#   netns-cluster.sh remove HOST                crash HOST and delete its namespace
#   netns-cluster.sh hostfile | mpiargs         print the hostfile path / the
#                                               mpiexec options run uses
#   netns-cluster.sh check                      exit 0 if this machine can
#                                               run a cluster (root, ip netns),
#                                               77 if it cannot
#
# Each host is a network namespace with one veth "eth0" on a private /24;
# the other ends sit on a bridge inside a separate "switch" namespace, so the
# root namespace's network is never touched and MPI traffic only uses the
# script's addresses.  Names resolve through /etc/netns/<host>/hosts, which
# "ip netns exec" mounts over /etc/hosts (the real /etc/hosts is untouched).
# Every process started on a host (scripts/netns-agent.sh) also gets its own
# UTS namespace with hostname <host>, because Open MPI and
# MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) tell nodes apart by hostname,
# and its own mount of <state>/hosts/<host> on <state>/local: one path,
# different storage on every host, like node-local NVMe on a real cluster.
#
# Settings (environment):
#   H5SF_NETNS_NAME   cluster name, prefix of all namespaces   (h5sf)
#   H5SF_NETNS_NET    first three octets of the /24 subnet     (10.213.0)
#   H5SF_NETNS_STATE  state dir: hostfile, per-host storage    (/tmp/<name>-netns)
# Needs root, iproute2 (ip netns), unshare and mount from util-linux.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
agent="$here/netns-agent.sh"
name="${H5SF_NETNS_NAME:-h5sf}"
net="${H5SF_NETNS_NET:-10.213.0}"
state="${H5SF_NETNS_STATE:-/tmp/${name}-netns}"
switch="${name}-sw"
etc_marker=/tmp/h5sf-netns-made-etc-netns
export H5SF_NETNS_NAME="$name" H5SF_NETNS_NET="$net" H5SF_NETNS_STATE="$state"

die() { echo "netns-cluster: $*" >&2; exit 1; }
host_name() { echo "${name}-h$1"; }
host_ip() { echo "${net}.$1"; }

usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed -e '$d' -e 's/^# \{0,1\}//'; }

# 0 if this machine can run the cluster; else prints why and returns 1.
can_run() {
    [ "$(id -u)" -eq 0 ] || { echo "netns-cluster: needs root (uid is $(id -u))" >&2; return 1; }
    command -v ip >/dev/null || { echo "netns-cluster: 'ip' (iproute2) not found" >&2; return 1; }
    command -v unshare >/dev/null || { echo "netns-cluster: 'unshare' (util-linux) not found" >&2; return 1; }
    local probe="${name}-probe$$"
    if ! ip netns add "$probe" 2>/dev/null; then
        echo "netns-cluster: 'ip netns add' does not work here (no network namespaces)" >&2
        return 1
    fi
    local ok=0
    ip -n "$probe" link add p0 type veth peer name p1 2>/dev/null &&
        ip -n "$probe" link add b0 type bridge 2>/dev/null || ok=1
    ip netns del "$probe" 2>/dev/null || true
    [ "$ok" -eq 0 ] || echo "netns-cluster: veth pairs or bridges are not available here" >&2
    return "$ok"
}

is_up() { [ -f "$state/cluster" ]; }
load() {
    is_up || die "no cluster '$name' is up (run: $0 up)"
    # shellcheck disable=SC1091,SC2154
    . "$state/cluster" # sets hosts, slots
}

# Serializes up/down of one cluster name between concurrent callers.
lock() { exec 9>"/tmp/${name}-netns.lock"; flock 9; }

cmd_up() {
    local n=2 s=2
    while [ $# -gt 0 ]; do
        case "$1" in
            -n) n="$2"; shift 2 ;;
            -s) s="$2"; shift 2 ;;
            *) die "up: unknown argument '$1'" ;;
        esac
    done
    [[ "$n" =~ ^[0-9]+$ ]] && [ "$n" -ge 1 ] && [ "$n" -le 64 ] || die "up: -n wants 1..64 hosts, got '$n'"
    [[ "$s" =~ ^[0-9]+$ ]] && [ "$s" -ge 1 ] || die "up: -s wants a positive slot count, got '$s'"
    can_run || exit 1
    is_up && die "cluster '$name' is already up ($state/cluster); run '$0 down' first"
    for i in $(seq 1 "$n") sw; do
        local ns="${name}-h$i"; [ "$i" = sw ] && ns="$switch"
        [ -e "/run/netns/$ns" ] && die "namespace $ns exists but is not ours (no $state/cluster); remove it with 'ip netns del $ns'"
    done
    # A half-built cluster is taken apart again.
    trap 'echo "netns-cluster: up failed, cleaning up" >&2; hosts=$n; teardown 0' ERR
    mkdir -p "$state/local"
    # /etc/netns may be shared with other clusters: whoever finds it empty
    # at the end removes it, if one of ours made it.
    [ -d /etc/netns ] || { mkdir /etc/netns; touch "$etc_marker"; }
    printf 'hosts=%d\nslots=%d\n' "$n" "$s" >"$state/cluster"
    ip netns add "$switch"
    ip -n "$switch" link set lo up
    ip -n "$switch" link add br0 type bridge
    ip -n "$switch" link set br0 up
    local hostsfile="127.0.0.1 localhost"$'\n'
    : >"$state/hostfile"; : >"$state/hostfile.hydra"
    for i in $(seq 1 "$n"); do
        hostsfile+="$(host_ip "$i") $(host_name "$i")"$'\n'
        echo "$(host_name "$i") slots=$s" >>"$state/hostfile"
        echo "$(host_name "$i"):$s" >>"$state/hostfile.hydra"  # MPICH's Hydra
    done
    for i in $(seq 1 "$n"); do
        local h; h="$(host_name "$i")"
        ip netns add "$h"
        ip -n "$h" link set lo up
        # Created inside the host, peer moved straight into the switch.
        ip -n "$h" link add eth0 type veth peer name "p$i" netns "$switch"
        ip -n "$h" addr add "$(host_ip "$i")/24" dev eth0
        ip -n "$h" link set eth0 up
        ip -n "$switch" link set "p$i" master br0
        ip -n "$switch" link set "p$i" up
        mkdir -p "/etc/netns/$h" "$state/hosts/$h"
        printf '%s' "$hostsfile" >"/etc/netns/$h/hosts"
    done
    trap - ERR
    echo "netns-cluster: $n hosts up ($(host_name 1)..$(host_name "$n"), ${net}.0/24, $s slots each)"
    echo "  hostfile      $state/hostfile"
    echo "  node-local    $state/local  (host storage: $state/hosts/<host>)"
}

# Kill what runs in the namespaces, delete them and the files up made.
# $1 = 1: keep the per-host storage.
teardown() {
    local keep="${1:-0}" i h
    for i in $(seq 1 "${hosts:-64}"); do
        h="$(host_name "$i")"
        if [ -e "/run/netns/$h" ]; then
            kill_host "$h"
            ip netns del "$h" 2>/dev/null || true
        fi
        rm -rf "/etc/netns/$h"
        [ "$keep" -eq 1 ] || rm -rf "${state:?}/hosts/$h"
    done
    [ -e "/run/netns/$switch" ] && ip netns del "$switch" 2>/dev/null || true
    if [ -f "$etc_marker" ] && rmdir /etc/netns 2>/dev/null; then
        rm -f "$etc_marker"
    fi
    rm -f "$state/cluster" "$state/hostfile" "$state/hostfile.hydra"
    rmdir "$state/local" "$state/hosts" "$state" 2>/dev/null || true
}

# SIGKILL every process in network namespace $1 (all of them were started
# through this script, the namespace is ours).
kill_host() {
    local pids
    pids="$(ip netns pids "$1" 2>/dev/null || true)"
    # shellcheck disable=SC2086
    [ -z "$pids" ] || kill -KILL $pids 2>/dev/null || true
}

cmd_down() {
    local keep=0
    [ "${1:-}" = --keep-storage ] && keep=1
    if ! is_up; then
        echo "netns-cluster: no cluster '$name' is up"
        return 0
    fi
    load
    teardown "$keep"
    echo "netns-cluster: cluster '$name' removed"
}

cmd_status() {
    load
    # shellcheck disable=SC2154 # slots: set by load
    echo "cluster '$name': $hosts hosts, $slots slots each, subnet ${net}.0/24, state $state"
    for i in $(seq 1 "$hosts"); do
        local h; h="$(host_name "$i")"
        if [ ! -e "/run/netns/$h" ]; then
            echo "  $h  $(host_ip "$i")  namespace missing"
            continue
        fi
        local link; link="$(ip -n "$h" -o link show eth0 2>/dev/null | grep -o 'state [A-Z]*' || echo 'no link')"
        local reach
        reach="reachable from $(host_name 1)"
        "$agent" --probe "$(host_name 1)" "$(host_ip "$i")" || reach="NOT reachable from $(host_name 1)"
        echo "  $h  $(host_ip "$i")  $link  $(ip netns pids "$h" | wc -l) processes  $reach"
    done
}

# mpiexec with the cluster's hostfile, the launch agent and TCP only, in the
# syntax of the mpiexec on PATH: MPICH's Hydra (UCX over TCP on the
# cluster's interface) or Open MPI.
mpi_args() {
    if mpiexec --version 2>/dev/null | grep HYDRA >/dev/null; then
        echo -f "$state/hostfile.hydra" -launcher rsh -launcher-exec "$agent" -iface eth0 \
            -genv UCX_TLS tcp,self -genv UCX_NET_DEVICES eth0
        return
    fi
    # Yield while waiting: every emulated host is this machine, whose cores
    # Open MPI cannot count from the hostfile, so it would spin; spinning
    # ranks starve the kernel's TCP processing and the ranks they wait for,
    # and each message then waits for a scheduler tick (4 ranks on 2 cores,
    # 2026-12-02: an MPI_Barrier took 8.1 ms spinning, 21 us yielding).
    echo --hostfile "$state/hostfile" \
        --mca plm_rsh_agent "$agent" --mca plm_rsh_no_tree_spawn 1 \
        --mca pml ob1 --mca btl tcp,self --mca mpi_yield_when_idle 1 \
        --mca btl_tcp_if_include "${net}.0/24" --mca oob_tcp_if_include "${net}.0/24"
}

cmd_run() {
    local n="" s=2 t=0 own=0
    while [ $# -gt 0 ]; do
        case "$1" in
            -n) n="$2"; shift 2 ;;
            -s) s="$2"; shift 2 ;;
            -t) t="$2"; shift 2 ;;
            --) shift; break ;;
            *) die "run: unknown argument '$1' (mpiexec arguments go after --)" ;;
        esac
    done
    [ $# -gt 0 ] || die "run: no mpiexec arguments after --"
    command -v mpiexec >/dev/null || die "run: mpiexec not found (source scripts/env.sh)"
    if [ -n "$n" ]; then
        cmd_up -n "$n" -s "$s" >/dev/null
        own=1
    fi
    load
    # Leftover daemons of a job that died are killed after every run; the
    # cluster made for this run is removed.  Also on SIGTERM / Ctrl-C: the
    # job runs in the background so the trap fires at once and passes the
    # signal on (mpiexec then stops its daemons).
    child=""
    trap 'cleanup_run '"$own" EXIT
    trap 'stop_child; exit 143' TERM
    trap 'stop_child; exit 130' INT
    local -a wrap=()
    [ "$t" -gt 0 ] && wrap=(timeout -k 10 "$t")
    local h1; h1="$(host_name 1)"
    set +e
    # shellcheck disable=SC2046
    "${wrap[@]}" ip netns exec "$h1" unshare --uts -- "$agent" --inside-exec "$h1" \
        mpiexec $(mpi_args) "$@" &
    child=$!
    wait "$child"
    local rc=$?
    child=""
    set -e
    [ "$rc" -ne 124 ] || echo "netns-cluster: mpiexec did not finish within $t s; killed" >&2
    return "$rc"
}

stop_child() {
    [ -z "$child" ] && return 0
    kill -TERM "$child" 2>/dev/null || true
    wait "$child" 2>/dev/null || true
}

cleanup_run() {
    local own="$1" i
    for i in $(seq 1 "$hosts"); do
        [ -e "/run/netns/$(host_name "$i")" ] && kill_host "$(host_name "$i")"
    done
    [ "$own" -eq 0 ] || teardown 0
}

need_host() {
    load
    [ $# -ge 1 ] || die "$cmd: which host?"
    local i
    for i in $(seq 1 "$hosts"); do [ "$1" = "$(host_name "$i")" ] && return 0; done
    die "$cmd: '$1' is not a host of cluster '$name' ($(host_name 1)..$(host_name "$hosts"))"
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case "$cmd" in
    up) lock; cmd_up "$@" ;;
    down) lock; cmd_down "$@" ;;
    status) cmd_status ;;
    run) cmd_run "$@" ;;
    exec)
        need_host "${1:-}"; h="$1"; shift
        [ "${1:-}" = -- ] && shift
        [ $# -gt 0 ] || die "exec: no command"
        exec ip netns exec "$h" unshare --uts -- "$agent" --inside-exec "$h" "$@" ;;
    unplug) need_host "${1:-}"; ip -n "$1" link set eth0 down ;;
    plug) need_host "${1:-}"; ip -n "$1" link set eth0 up ;;
    crash) need_host "${1:-}"; kill_host "$1" ;;
    remove) need_host "${1:-}"; kill_host "$1"; ip netns del "$1" ;;
    hostfile) load; echo "$state/hostfile" ;;
    mpiargs) load; mpi_args ;;
    check) can_run || exit 77 ;;
    -h | --help | help) usage ;;
    *) usage >&2; exit 2 ;;
esac
