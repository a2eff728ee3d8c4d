#!/usr/bin/env bash
# nodelocal.sh -- node-local subfiles, then one ordinary file for later use.
#
#   nodelocal.sh [NODELOCAL_EXE] [SHARED_DIR] [LOCAL_DIR] [NPROCS] [FUSER]
#
# 1. write with NPROCS ranks: stub + config in SHARED_DIR, subfiles in LOCAL_DIR
# 2. read the subfiled file back with fewer ranks, through h5sf
# 3. gather the subfiles and fuse them into one ordinary HDF5 file
#    (h5sf-fuse; without it, h5repack --src-vfd-name=h5sf does the same job)
# 4. read the fused file with the MPI-IO driver and with h5ls: no h5sf needed
# FUSER: path of h5sf-fuse, or "h5repack", or "auto" (default: h5sf-fuse if
# it is on PATH, else h5repack).
# Needs HDF5_PLUGIN_PATH (the h5sf plugin), mpiexec (or the launcher of the
# MPI the programs were built with in MPIEXEC), h5sf-fuse or h5repack.
set -euo pipefail

exe=${1:-./nodelocal}
shared=${2:-$PWD/nodelocal-shared}
local=${3:-${TMPDIR:-/tmp}/nodelocal-local}
np=${4:-4}
fuser=${5:-auto}
if [[ $fuser == auto ]]; then fuser=$(command -v h5sf-fuse || echo h5repack); fi
run() { timeout 300 "${MPIEXEC:-mpiexec}" -n "$1" ${H5SF_MPIEXEC_FLAGS-} "${@:2}"; }

mkdir -p "$shared" "$local"
rm -f "$shared"/run.h5* "$shared"/run-fused.h5 "$local"/run.h5.subfile_*

run "$np" "$exe" write "$shared/run.h5" "$local"
echo "shared: $(cd "$shared" && ls run.h5*)"
echo "local:  $(cd "$local" && ls run.h5.subfile_*)"

run $(( np > 1 ? np / 2 : 1 )) "$exe" read "$shared/run.h5" h5sf

# On a cluster each node holds its own subfiles under the same LOCAL_DIR:
# copy them to one place first, e.g. (Slurm) one task per node:
#   srun --ntasks-per-node=1 sh -c 'cp $LOCAL/run.h5.subfile_* $SHARED/gathered/'
# and pass that directory to h5sf-fuse -s.  On one machine LOCAL_DIR is it.
if [[ $fuser != h5repack ]]; then
    "$fuser" --quiet --verify --subfile-dir "$local" "$shared/run.h5" "$shared/run-fused.h5"
else
    # Reads through the plugin (subfiles where the config file says) and
    # rewrites every object: slower, but needs only HDF5's tools.
    h5repack --src-vfd-name=h5sf "$shared/run.h5" "$shared/run-fused.h5"
fi

run "$np" "$exe" read "$shared/run-fused.h5" mpio
h5ls "$shared/run-fused.h5"
echo "nodelocal.sh: OK"
