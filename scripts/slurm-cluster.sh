#!/usr/bin/env bash
# slurm-cluster.sh -- a single-machine Slurm cluster for tests and trials,
# started by hand (no systemd, nothing under /etc).
#
#   slurm-cluster.sh start [-n NODES] [-c CPUS]   munged, slurmctld and one slurmd
#                                               per node; does nothing if the
#                                               cluster is already up
#   slurm-cluster.sh stop                       kill every daemon and job of the
#                                               cluster, remove its state
#   slurm-cluster.sh status                     daemons and nodes; exit 0 if up
#   slurm-cluster.sh env                        prints "export SLURM_CONF=...",
#                                               for eval in a shell
#   slurm-cluster.sh exec NODE -- CMD...        run CMD "on" NODE (its hostname,
#                                               its node-local storage)
#   slurm-cluster.sh check                      exit 0 if this machine can run
#                                               the cluster, 77 if it cannot
#
# Nodes <name>-n1..nN (default 3 nodes, 4 CPUs each: more than the machine
# has, SlurmdParameters=config_overrides lets Slurm hand them out anyway).
# Each node's slurmd runs in its own UTS and mount namespace: hostname =
# node name, because MPI (MPI_Comm_split_type(MPI_COMM_TYPE_SHARED), Open
# MPI's daemons, MPICH's Hydra) tells nodes apart by hostname, and with one
# hostname every rank would be on one node whatever Slurm says.  Every job
# step inherits these namespaces from slurmd.  In the mount namespace:
#   <state>/local   bind-mounted from <state>/hosts/<node>: one path,
#                   different storage on every node (node-local NVMe);
#                   from outside, node N's storage is <state>/hosts/N
#   /etc/hosts      the machine's, plus node K = 127.0.1.K (a loopback
#                   address of its own), so that node names resolve:
#                   MPICH's Hydra connects to its launcher by name.
# The network is shared: every slurmd listens on all addresses, so each has
# its port, <base>+3+K; slurmctld reaches node K at 127.0.1.K.
# Plugins that need no cgroups: proctrack/linuxproc, task/none, select/
# cons_tres; no accounting.  munged runs as root with a key of its own.
#
# Settings (environment):
#   H5SF_SLURM_NAME   cluster and node-name prefix        (h5sf)
#   H5SF_SLURM_STATE  state directory                     (/tmp/<name>-slurm)
#   H5SF_SLURM_PORT   slurmctld port; slurmd ports follow (16817)
# Needs root, slurmctld + slurmd + slurm-client (Debian slurm-wlm), munge,
# and unshare, nsenter, mount, flock (util-linux, mount) and hostname.
set -euo pipefail

name="${H5SF_SLURM_NAME:-h5sf}"
state="${H5SF_SLURM_STATE:-/tmp/${name}-slurm}"
port="${H5SF_SLURM_PORT:-16817}"
conf="$state/slurm.conf"
export SLURM_CONF="$conf"
# The daemons live in sbin, which a non-login root shell may lack.
PATH="$PATH:/usr/sbin:/sbin"

die() { echo "slurm-cluster: $*" >&2; exit 1; }
say() { echo "slurm-cluster: $*"; }
usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed -e '$d' -e 's/^# \{0,1\}//'; }
node_name() { echo "${name}-n$1"; }

# 0 if this machine can run the cluster; else prints why and returns 1.
can_run() {
    [ "$(id -u)" -eq 0 ] || { echo "slurm-cluster: needs root (uid is $(id -u))" >&2; return 1; }
    local t
    for t in slurmctld slurmd munged munge sinfo scontrol unshare flock; do
        command -v "$t" >/dev/null ||
            { echo "slurm-cluster: '$t' not found (Debian packages slurm-wlm, munge, util-linux)" >&2; return 1; }
    done
    unshare --uts --mount --propagation private true 2>/dev/null ||
        { echo "slurm-cluster: 'unshare --uts --mount' does not work here" >&2; return 1; }
}

# Serializes start/stop.  Daemons are started with fd 9 closed, or they
# would hold the lock for as long as they run.
lock() { exec 9>"/tmp/${name}-slurm.lock"; flock -w 120 9 || die "another start/stop holds /tmp/${name}-slurm.lock"; }

# pid from a pid file if that process is alive and is the daemon the file
# is named after (<state>/run/slurmd-<node>.pid: slurmd).  Zombies do not
# count: the machine's init may be slow to reap daemons whose parent exited.
live_pid() {
    local p daemon
    daemon="$(basename "$1" .pid)"
    daemon="${daemon%%-*}"
    p="$(cat "$1" 2>/dev/null)" || return 1
    [[ "$p" =~ ^[0-9]+$ ]] && [ -r "/proc/$p/stat" ] || return 1
    [ "$(cat "/proc/$p/comm" 2>/dev/null)" = "$daemon" ] || return 1
    [ "$(awk '{print $3}' "/proc/$p/stat" 2>/dev/null)" != Z ] || return 1
    echo "$p"
}

nodes_of_state() { [ -f "$state/cluster" ] && sed -n 's/^nodes=//p' "$state/cluster"; }

# Every daemon alive and every node answering.
is_up() {
    local n i
    n="$(nodes_of_state)" || return 1
    [ -n "$n" ] || return 1
    live_pid "$state/run/munged.pid" >/dev/null || return 1
    live_pid "$state/run/slurmctld.pid" >/dev/null || return 1
    for i in $(seq 1 "$n"); do
        live_pid "$state/run/slurmd-$(node_name "$i").pid" >/dev/null || return 1
    done
    scontrol ping 2>/dev/null | grep 'is UP' >/dev/null
}

write_conf() {
    local n="$1" cpus="$2" i h
    h="$(hostname -s)"
    cat >"$conf" <<EOF
# Written by scripts/slurm-cluster.sh; removed by its "stop".
ClusterName=$name
SlurmctldHost=$h(127.0.0.1)
SlurmctldPort=$port
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$state/run/munge.socket.2
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$state/ctld
SlurmdSpoolDir=$state/spool/%n
SlurmctldPidFile=$state/run/slurmctld.pid
SlurmdPidFile=$state/run/slurmd-%n.pid
SlurmctldLogFile=$state/log/slurmctld.log
SlurmdLogFile=$state/log/slurmd-%n.log
# Nothing here needs cgroups (a container may not delegate them).
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
MailProg=/bin/true
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
# CPUs= below may exceed the machine's cores.
SlurmdParameters=config_overrides
SchedulerType=sched/backfill
ReturnToService=2
KillWait=5
MinJobAge=30
InactiveLimit=0
MessageTimeout=20
SlurmctldTimeout=30
SlurmdTimeout=60
EOF
    for i in $(seq 1 "$n"); do
        echo "NodeName=$(node_name "$i") NodeAddr=127.0.1.$i Port=$((port + 3 + i)) CPUs=$cpus State=UNKNOWN" >>"$conf"
    done
    echo "PartitionName=$name Nodes=${name}-n[1-$n] Default=YES MaxTime=60 State=UP" >>"$conf"
    # Read next to slurm.conf.  Unused by the plugins above; written so
    # that nothing falls back to a machine-wide file.
    printf '%s\n' 'CgroupAutomount=no' 'ConstrainCores=no' 'ConstrainRAMSpace=no' 'ConstrainDevices=no' >"$state/cgroup.conf"
    # The PMIx plugin's per-step client directory must be per node: on one
    # shared /tmp, the second node's step fails with "File exists".
    echo "PMIxCliTmpDirBase=$state/local/tmp" >"$state/mpi.conf"
    { grep -v -E "(^|[[:space:]])${name}-n[0-9]+([[:space:]]|$)" /etc/hosts || true
      for i in $(seq 1 "$n"); do echo "127.0.1.$i $(node_name "$i")"; done; } >"$state/etc-hosts"
}

# Wait up to $1 s for command $2...; 0 when it succeeded.
wait_for() {
    local t="$1" i
    shift
    for ((i = 0; i < t * 5; i++)); do
        "$@" >/dev/null 2>&1 && return 0
        sleep 0.2
    done
    return 1
}

all_idle() {
    local n="$1"
    [ "$(sinfo -h -N -o '%N %t' 2>/dev/null | awk '$2 == "idle"' | wc -l)" -eq "$n" ]
}

munge_ok() { munge -S "$state/run/munge.socket.2" -n | unmunge -S "$state/run/munge.socket.2"; }

cmd_start() {
    local n=3 cpus=4 i h
    while [ $# -gt 0 ]; do
        case "$1" in
            -n) n="$2"; shift 2 ;;
            -c) cpus="$2"; shift 2 ;;
            *) die "start: unknown argument '$1'" ;;
        esac
    done
    [[ "$n" =~ ^[0-9]+$ ]] && [ "$n" -ge 1 ] && [ "$n" -le 200 ] || die "start: -n wants 1..200 nodes, got '$n'"
    [[ "$cpus" =~ ^[0-9]+$ ]] && [ "$cpus" -ge 1 ] || die "start: -c wants a positive CPU count, got '$cpus'"
    can_run || exit 1
    if is_up; then
        [ "$(nodes_of_state)" = "$n" ] || die "already up with $(nodes_of_state) nodes, not $n (run '$0 stop' first)"
        say "cluster '$name' is already up ($n nodes; SLURM_CONF=$conf)"
        return 0
    fi
    # Whatever a crashed or half-made cluster left behind goes first.
    teardown
    trap 'echo "slurm-cluster: start failed, cleaning up (logs: $state/log)" >&2; teardown keep-logs' ERR
    rm -rf "${state:?}/log"
    mkdir -p "$state"/{run,log,ctld,spool,local,munge}
    # munged's checks: the key private, the socket's directory open to all.
    chmod 755 "$state" "$state/run"
    chmod 700 "$state/munge"
    printf 'nodes=%d\ncpus=%d\n' "$n" "$cpus" >"$state/cluster"
    write_conf "$n" "$cpus"

    (umask 077; head -c 1024 /dev/urandom >"$state/munge/munge.key")
    munged --key-file="$state/munge/munge.key" --socket="$state/run/munge.socket.2" \
        --pid-file="$state/run/munged.pid" --log-file="$state/log/munged.log" \
        --seed-file="$state/munge/munged.seed" 9>&-
    wait_for 10 munge_ok || { tail -5 "$state/log/munged.log" >&2; false; }

    slurmctld -f "$conf" 9>&-
    wait_for 30 sh -c 'scontrol ping | grep "is UP" >/dev/null' || { tail -20 "$state/log/slurmctld.log" >&2; false; }

    for i in $(seq 1 "$n"); do
        h="$(node_name "$i")"
        mkdir -p "$state/spool/$h" "$state/hosts/$h/tmp"
        # slurmd daemonizes; its namespaces live on in it and its steps.
        unshare --uts --mount --propagation private -- sh -c '
            hostname "$1" && mount --bind "$2/hosts/$1" "$2/local" &&
            mount --bind "$2/etc-hosts" /etc/hosts && exec slurmd -f "$3"' sh "$h" "$state" "$conf" 9>&-
    done
    for i in $(seq 1 "$n"); do
        h="$(node_name "$i")"
        wait_for 10 live_pid "$state/run/slurmd-$h.pid" || { tail -20 "$state/log/slurmd-$h.log" >&2; false; }
        # Recorded for stop, which kills every process in these namespaces.
        readlink "/proc/$(live_pid "$state/run/slurmd-$h.pid")/ns/uts" >>"$state/uts"
    done
    if ! wait_for 60 all_idle "$n"; then
        sinfo -N >&2 || true
        tail -5 "$state"/log/slurm*.log >&2
        false
    fi
    trap - ERR
    say "cluster '$name' up: nodes $(node_name 1)..$(node_name "$n"), $cpus CPUs each"
    echo "  export SLURM_CONF=$conf"
    echo "  node-local storage  $state/local  (node N's: $state/hosts/N)"
}

# SIGTERM, then SIGKILL after a grace period, to the given pids.
stop_pids() {
    [ $# -gt 0 ] || return 0
    kill -TERM "$@" 2>/dev/null || true
    local i p alive
    for ((i = 0; i < 25; i++)); do
        alive=0
        for p in "$@"; do
            [ -r "/proc/$p/stat" ] && [ "$(awk '{print $3}' "/proc/$p/stat" 2>/dev/null)" != Z ] && alive=1
        done
        [ "$alive" -eq 0 ] && return 0
        sleep 0.2
    done
    kill -KILL "$@" 2>/dev/null || true
}

# Every process in one of the nodes' UTS namespaces: slurmd, slurmstepd,
# job scripts, MPI ranks.  Never the machine's own namespace.
node_pids() {
    [ -f "$state/uts" ] || return 0
    local self p ns
    self="$(readlink /proc/self/ns/uts)"
    for p in /proc/[0-9]*; do
        ns="$(readlink "$p/ns/uts" 2>/dev/null)" || continue
        [ "$ns" != "$self" ] && grep -qxF "$ns" "$state/uts" && echo "${p#/proc/}"
    done
    return 0
}

# Stop everything start made; $1 = keep-logs leaves <state>/log.
# shellcheck disable=SC2120 # keep-logs: from start's ERR trap
teardown() {
    local p
    # shellcheck disable=SC2046
    p="$(live_pid "$state/run/slurmctld.pid" || true)"
    stop_pids $p
    # shellcheck disable=SC2046
    stop_pids $(node_pids)
    p="$(live_pid "$state/run/munged.pid" || true)"
    stop_pids $p
    # slurmd's shared memory and sockets are in its spool; all goes.
    if [ -d "$state" ]; then
        find "$state" -mindepth 1 -maxdepth 1 ! -name log -exec rm -rf {} +
        [ "${1:-}" = keep-logs ] || rm -rf "${state:?}/log"
        rmdir "$state" 2>/dev/null || true
    fi
}

cmd_stop() {
    if [ ! -d "$state" ]; then
        say "no cluster '$name' ($state does not exist)"
        return 0
    fi
    teardown
    say "cluster '$name' stopped"
}

cmd_status() {
    local n i h p
    n="$(nodes_of_state || true)"
    if [ -z "$n" ]; then
        echo "cluster '$name': not started ($state/cluster missing)"
        return 1
    fi
    echo "cluster '$name': $n nodes, state $state, SLURM_CONF=$conf"
    p="$(live_pid "$state/run/munged.pid" || echo "NOT RUNNING")"; echo "  munged     $p"
    p="$(live_pid "$state/run/slurmctld.pid" || echo "NOT RUNNING")"; echo "  slurmctld  $p"
    for i in $(seq 1 "$n"); do
        h="$(node_name "$i")"
        p="$(live_pid "$state/run/slurmd-$h.pid" || echo "NOT RUNNING")"; echo "  slurmd     $p  $h"
    done
    sinfo -N -o '  %N %t %c' 2>/dev/null || true
    is_up
}

need_node() {
    local n i
    n="$(nodes_of_state || true)"
    [ -n "$n" ] || die "no cluster '$name' is up"
    for i in $(seq 1 "$n"); do
        [ "$1" = "$(node_name "$i")" ] && live_pid "$state/run/slurmd-$1.pid" && return 0
    done
    die "'$1' is not a running node of cluster '$name'"
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case "$cmd" in
    start) lock; cmd_start "$@" ;;
    stop) lock; cmd_stop ;;
    status) cmd_status ;;
    env) echo "export SLURM_CONF=$conf" ;;
    exec)
        pid="$(need_node "${1:-}")"; shift
        [ "${1:-}" = -- ] && shift
        [ $# -gt 0 ] || die "exec: no command"
        exec nsenter -t "$pid" --uts --mount -- "$@" ;;
    check) can_run || exit 77 ;;
    -h | --help | help) usage ;;
    *) usage >&2; exit 2 ;;
esac
