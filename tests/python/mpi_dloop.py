"""Run under mpirun -np 2 by test_dloop.py: the world split by mpi4py (one
part holding both ranks), an fdx.Dist of 2 CPU units a rank (a 2x2 grid) on
that communicator running every case of dloop_cases.py, compared bit for
bit with the same cases on one process (MPI.COMM_SELF, one unit); the
reductions must be the same on both ranks.  Prints "rank R of N: ok"."""
import sys

import numpy as np
from mpi4py import MPI

import fdx
import dloop_cases as C

world = MPI.COMM_WORLD
comm = world.Split(0, world.rank)
shape = (11, 14)
d = fdx.Dist(shape, units=2, grid=(2, 2), shadow=2, comm=comm, backend="cpu")
assert d.procs == comm.size == 2 and d.proc == comm.rank and d.units == 4, (d.procs, d.proc, d.units)
got = C.all_cases(d)
one = C.all_cases(fdx.Dist(shape, units=1, shadow=2, comm=MPI.COMM_SELF, backend="cpu"))
bad = []
for key, want in one.items():
    if key == "results":
        for nm, v in want.items():
            g = got[key][nm]
            if (abs(g - v) > 1e-12 * abs(v)) if nm == "sum" else g != v:
                bad.append(f"{nm}: {g} != {v}")
    elif not np.array_equal(got[key], want, equal_nan=True):
        bad.append(f"{key} differs by {np.nanmax(np.abs(got[key] - want))}")
others = comm.allgather(got["results"])
if any(r != others[0] for r in others):
    bad.append(f"reductions differ between ranks: {others}")
del d, got, one
comm.Free()
print(f"rank {world.rank} of {world.size}: {'ok' if not bad else 'MISMATCH ' + '; '.join(bad)}", flush=True)
sys.exit(1 if bad else 0)
