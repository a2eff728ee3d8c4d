#!/usr/bin/env bash
# t_xmpi_data.sh -- files cross between the two MPI families: a file written
# through one family's plugin (3 ranks, h5sf, 64 KiB x 3 subfiles) is read
# by the other family's build, byte for byte:
#   - t_xver verify (every rank reads all of it, element i = t_mix(1, i) of
#     test/h5sf_test.h, computed here again in Python) with
#     h5sf and, where that HDF5 has it, with HDF5's built-in subfiling driver
#     (Open MPI only: it stalls under MPICH);
#   - the other family's h5dump --vfd-name=h5sf dumps the dataset in binary,
#     compared with the bytes of the formula written here by Python.
# Then the same the other way round.
#
#   t_xmpi_data.sh WORK  OWN_BUILD OWN_MPIEXEC OWN_FAMILY OWN_HDF5_PREFIX
#                        OTHER_BUILD OTHER_MPIEXEC OTHER_FAMILY OTHER_HDF5_PREFIX
# Exits 77 (skipped) when the other family's build or HDF5 is absent.
set -uo pipefail
work=$1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
flags() { [[ $1 == openmpi ]] && echo "--oversubscribe"; }

declare -A build mpiexec hdf5
build[a]=$2 mpiexec[a]=$3 fam_a=$4 hdf5[a]=$5
build[b]=$6 mpiexec[b]=$7 fam_b=$8 hdf5[b]=$9
[ -x "${build[b]}/bin/t_xver" ] && [ -f "${build[b]}/lib/libh5sf.so" ] ||
    { echo "skipped: no $fam_b build of h5sf in ${build[b]}"; exit 77; }
[ -x "${hdf5[b]}/bin/h5dump" ] && [ -x "${mpiexec[b]}" ] ||
    { echo "skipped: no $fam_b HDF5 in ${hdf5[b]} or no ${mpiexec[b]}"; exit 77; }
family() { [[ $1 == a ]] && echo "$fam_a" || echo "$fam_b"; }

# in SIDE CMD...: CMD with SIDE's HDF5, plugin and MPI, whatever the caller's
# environment holds.
in_side() {
    local s=$1; shift
    env LD_LIBRARY_PATH="${hdf5[$s]}/lib" HDF5_PLUGIN_PATH="${build[$s]}/lib" \
        PATH="${hdf5[$s]}/bin:$PATH" "$@"
}
mpi() { # SIDE ARGS...: 3 ranks of t_xver
    local s=$1; shift
    # shellcheck disable=SC2046
    in_side "$s" timeout -k 10 120 "${mpiexec[$s]}" -n 3 $(flags "$(family "$s")") "${build[$s]}/bin/t_xver" "$@"
}

rm -rf "$work" && mkdir -p "$work" || exit 1
# t_mix(1, i) of test/h5sf_test.h, written independently of the C code.
python3 -c '
import struct, sys
M = (1 << 64) - 1
def mix(seed, off):
    x = ((off + 1) * 0x9E3779B97F4A7C15 + seed * 0xBF58476D1CE4E5B9) & M
    x ^= x >> 31
    x = (x * 0x94D049BB133111EB) & M
    return x ^ (x >> 29)
sys.stdout.buffer.write(b"".join(struct.pack("<Q", mix(1, i)) for i in range(3 * 4096)))' >"$work/expected.bin"

cross() { # WRITER READER
    local w=$1 r=$2 f="$work/from-$(family "$1").h5"
    echo "== $(family "$w") writes $f; $(family "$r") reads it"
    mpi "$w" write h5sf "$f" || { fail "$(family "$w") could not write $f"; return; }
    mpi "$r" verify h5sf "$f" || fail "$(family "$r") h5sf did not read back what $(family "$w") wrote"
    # HDF5's built-in driver stalls under MPICH (test mpich_builtin_np1_stalls).
    if grep -q "define H5_HAVE_SUBFILING_VFD" "${hdf5[$r]}/include/H5pubconf.h" && [[ $(family "$r") != mpich ]]; then
        mpi "$r" verify subfiling "$f" || fail "$(family "$r")'s built-in subfiling driver did not read it"
    fi
    rm -f "$f.bin"
    in_side "$r" timeout -k 10 120 h5dump --vfd-name=h5sf -d v -b LE -o "$f.bin" "$f" >"$f.dump.log" 2>&1 ||
        { fail "$(family "$r")'s h5dump --vfd-name=h5sf failed: $(tail -3 "$f.dump.log")"; return; }
    if cmp "$f.bin" "$work/expected.bin"; then
        echo "ok: $(family "$r")'s h5dump read $(stat -c %s "$f.bin") bytes, all as written"
    else
        fail "$(family "$r")'s h5dump output differs from the data $(family "$w") wrote"
    fi
}
cross b a
cross a b
if ((fails)); then echo "t_xmpi_data.sh: $fails failure(s)"; exit 1; fi
echo "t_xmpi_data.sh: OK"
