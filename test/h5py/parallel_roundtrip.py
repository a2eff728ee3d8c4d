"""Parallel h5py through h5sf: one program for the MPI-IO reference and the
redirect (scripts/h5py-suite.sh runs it both ways at 4 ranks).

  mpiexec -n 4 python3 parallel_roundtrip.py write FILE
  mpiexec -n 4 python3 parallel_roundtrip.py verify FILE

write: h5py.File(FILE, 'w', driver='mpio', comm=COMM_WORLD); collective
writes of a 2-D float64 dataset (64 MiB, each rank a band of rows), a
chunked int32 dataset and a gzip-filtered one (each rank a band of whole
chunks; parallel HDF5 writes filtered data collectively only), attributes
on the file and on each dataset.  verify: every rank reopens the file and
reads all of it back against the pattern computed here, never against
what it wrote.  Exit status 0 only if every rank agrees.
"""
import sys

import numpy as np
from mpi4py import MPI

import h5py

ROWS, COLS = 2048, 4096          # "big": 2048 x 4096 float64, 64 MiB
CROWS, CCOLS, CHUNK = 1024, 1024, (128, 256)
ATTRS = {"title": "h5sf parallel h5py round trip", "version": 3}


def big_pattern(r0, r1):
    i = np.arange(r0, r1, dtype=np.float64)[:, None]
    j = np.arange(COLS, dtype=np.float64)[None, :]
    return i * COLS + j + 0.25


def chunked_pattern(r0, r1):
    i = np.arange(r0, r1, dtype=np.int64)[:, None]
    j = np.arange(CCOLS, dtype=np.int64)[None, :]
    return ((i * 7919 + j * 104729) % 2147483647).astype(np.int32)


def gzip_pattern(r0, r1):
    i = np.arange(r0, r1, dtype=np.int64)[:, None]
    j = np.arange(CCOLS, dtype=np.int64)[None, :]
    return ((i // 16 + j // 64) % 251).astype(np.int32)  # compressible


def band(n, rank, size, align=1):
    """Rows [r0, r1) of rank: whole multiples of align, the last rank the rest."""
    per = (n // size) // align * align
    r0 = rank * per
    return r0, (n if rank == size - 1 else r0 + per)


def write(path, comm):
    rank, size = comm.rank, comm.size
    with h5py.File(path, "w", driver="mpio", comm=comm) as f:
        for k, v in ATTRS.items():
            f.attrs[k] = v
        big = f.create_dataset("big", (ROWS, COLS), dtype="f8")
        big.attrs["units"] = "row*COLS+col+0.25"
        ch = f.create_dataset("chunked", (CROWS, CCOLS), dtype="i4", chunks=CHUNK)
        gz = f.create_dataset("gzip", (CROWS, CCOLS), dtype="i4", chunks=CHUNK,
                              compression="gzip", compression_opts=4)
        gz.attrs["level"] = np.int32(4)
        r0, r1 = band(ROWS, rank, size)
        with big.collective:
            big[r0:r1, :] = big_pattern(r0, r1)
        r0, r1 = band(CROWS, rank, size, CHUNK[0])
        with ch.collective:
            ch[r0:r1, :] = chunked_pattern(r0, r1)
        with gz.collective:
            gz[r0:r1, :] = gzip_pattern(r0, r1)


def verify(path, comm):
    bad = []
    with h5py.File(path, "r", driver="mpio", comm=comm) as f:
        for k, v in ATTRS.items():
            if f.attrs[k] != v:
                bad.append("file attribute %s" % k)
        if f["big"].attrs["units"] != "row*COLS+col+0.25":
            bad.append("big.attrs['units']")
        if f["gzip"].compression != "gzip" or f["gzip"].chunks != CHUNK:
            bad.append("gzip: compression %r chunks %r" % (f["gzip"].compression, f["gzip"].chunks))
        if f["gzip"].attrs["level"] != 4:
            bad.append("gzip.attrs['level']")
        if f["chunked"].chunks != CHUNK:
            bad.append("chunked: chunks %r" % (f["chunked"].chunks,))
        if not np.array_equal(f["big"][...], big_pattern(0, ROWS)):
            bad.append("big: data")
        if not np.array_equal(f["chunked"][...], chunked_pattern(0, CROWS)):
            bad.append("chunked: data")
        if not np.array_equal(f["gzip"][...], gzip_pattern(0, CROWS)):
            bad.append("gzip: data")
    for b in bad:
        print("rank %d: %s: %s differs from the pattern" % (comm.rank, path, b), flush=True)
    return not bad


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("write", "verify"):
        sys.exit(__doc__)
    comm = MPI.COMM_WORLD
    ok = True
    if sys.argv[1] == "write":
        write(sys.argv[2], comm)
    else:
        ok = verify(sys.argv[2], comm)
    ok = comm.allreduce(ok, op=MPI.LAND)
    if comm.rank == 0:
        print("%s %s: %s on %d ranks" % (sys.argv[1], sys.argv[2], "ok" if ok else "FAILED", comm.size))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
