#!/usr/bin/env bash
# t_ownstall_fuse.sh -- mount fuse_stall over a scratch directory and run
# t_ownstall_fuse on it (2 ranks); exit 77 (skipped) when FUSE cannot be
# mounted here, saying why.
#
#   t_ownstall_fuse.sh FUSE_STALL WORKDIR MPIEXEC [mpiexec args...] PROG
set -u
fuse=$1 work=$2
shift 2
rm -rf "$work"
mkdir -p "$work/stub" "$work/backing" "$work/mnt"
trigger=$work/stall
skip() { echo "t_ownstall_fuse: skipped: $*"; exit 77; }
[ -c /dev/fuse ] || skip "no /dev/fuse"
[ -r /dev/fuse ] && [ -w /dev/fuse ] || skip "/dev/fuse is not usable by $(id -un)"
command -v fusermount3 >/dev/null || skip "fusermount3 missing (Debian package fuse3)"
"$fuse" "$work/backing" "$trigger" "$work/mnt" 2>"$work/fuse.log" || skip "mount failed: $(cat "$work/fuse.log")"
cleanup() { rm -f "$trigger"; fusermount3 -u "$work/mnt" 2>/dev/null || fusermount3 -uz "$work/mnt"; }
trap cleanup EXIT
"$@" "$work/stub" "$work/mnt" "$trigger"
