#!/usr/bin/env bash
# netns-agent.sh -- the MPI launchers' "ssh" for scripts/netns-cluster.sh.
#
# Open MPI's rsh launcher (--mca plm_rsh_agent) and MPICH's Hydra
# (-launcher rsh -launcher-exec) run   <agent> <host> <shell command...>   to
# start their daemon (orted, hydra_pmi_proxy) on a remote host.  Like ssh, this
# agent first checks that <host> can be reached from here, then runs the
# command through /bin/sh on <host>: inside the host's network namespace
# (ip netns exec), with a UTS namespace of its own carrying the hostname
# <host> (Open MPI and MPI_COMM_TYPE_SHARED tell nodes apart by hostname) and
# with the host's storage mounted on the cluster's node-local path.
#
# Internal modes (used by netns-cluster.sh; already inside the namespaces):
#   netns-agent.sh --inside-exec HOST ARGV...   set up HOST, exec ARGV
#   netns-agent.sh --inside-sh HOST COMMAND     set up HOST, sh -c COMMAND
#   netns-agent.sh --probe FROM_HOST IP         0 if IP answers from FROM_HOST
set -euo pipefail

self="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")"
name="${H5SF_NETNS_NAME:-h5sf}"
state="${H5SF_NETNS_STATE:-/tmp/${name}-netns}"

die() { echo "netns-agent: $*" >&2; exit 255; } # 255: what ssh returns when it cannot connect

# Hostname and node-local storage; the mount stays inside this process's
# mount namespace (ip netns exec made it a private copy).
setup_host() {
    local host="$1"
    hostname "$host" || die "cannot set hostname $host (no UTS namespace?)"
    if [ -d "$state/hosts/$host" ] && [ -d "$state/local" ]; then
        mount --bind "$state/hosts/$host" "$state/local" ||
            die "cannot mount $state/hosts/$host on $state/local"
    fi
    export H5SF_NETNS_HOST="$host"
}

# TCP to a closed port: "refused" proves the host is up and reachable, a
# timeout or "no route" means it is not -- what ssh's connect would see.
probe() {
    local out
    out="$(timeout 3 bash -c "exec 3<>/dev/tcp/$1/9" 2>&1)" && return 0
    case "$out" in *"refused"*) return 0 ;; esac
    return 1
}

case "${1:-}" in
    --inside-exec)
        setup_host "$2"; shift 2
        exec "$@" ;;
    --inside-sh)
        setup_host "$2"
        exec /bin/sh -c "$3" ;;
    --probe)
        exec ip netns exec "$2" "$self" --probe-here "$3" ;;
    --probe-here)
        probe "$2"; exit ;;
    "" | -*)
        die "usage: netns-agent.sh HOST COMMAND... (used as Open MPI's plm_rsh_agent)" ;;
esac

host="$1"
shift
[ $# -gt 0 ] || die "no command for host $host"
ns_file="/run/netns/$host"
[ -e "$ns_file" ] ||
    die "host $host is down: no network namespace $host (run 'netns-cluster.sh up', or drop it from the hostfile)"
ip="$(awk -v h="$host" '$2 == h { print $1 }' /etc/hosts)"
[ -n "$ip" ] || die "host $host has no address in /etc/hosts (not a host of cluster '$name'?)"
probe "$ip" || die "host $host ($ip) cannot be reached from $(hostname): its link is down or it is not answering"
# ssh joins its arguments with spaces and hands them to the remote shell.
exec ip netns exec "$host" unshare --uts -- "$self" --inside-sh "$host" "$*"
