"""Run under mpirun -np 3 by test_fdx.py: the world is split into {0, 1} and
{2}; each part runs fdx.Dist on its own communicator (mpi4py), and every
rank checks its part's gathered wave step against one stencil on the whole
grid, bit for bit, and a heat step with boundary conditions (Dirichlet and a
periodic axis split across the ranks) against fdx.Stencil(boundary=...).
Prints "rank R of part P (N procs): ok"."""
import sys

import numpy as np
from mpi4py import MPI

import fdx

world = MPI.COMM_WORLD
part = 0 if world.rank < 2 else 1
comm = world.Split(part, world.rank)
shape = (20, 26)
rng = np.random.default_rng(7)
u, up = rng.random(shape), rng.random(shape)
d = fdx.Dist(shape, units=1, shadow=4, comm=comm, backend="cpu")
assert d.procs == comm.size and d.proc == comm.rank, (d.procs, d.proc, comm.size, comm.rank)
U, P, O = d.array(value=u), d.array(value=up), d.array(value=np.full(shape, np.nan))
kw = dict(order=8, update="wave", alpha=0.05)
d.stencil(**kw).step(O, U, P)
got = O.gather(all=True)
want = fdx.Stencil(2, **kw)(u, out=np.full(shape, np.nan), u_prev=up)
ok = np.array_equal(got, want, equal_nan=True)
# conditions: y (NumPy axis 0, the split one) periodic across the ranks, x Dirichlet
bc = {0: "periodic", 1: ("dirichlet", 0.5)}
db = fdx.Dist(shape, units=1, shadow=2, comm=comm, backend="cpu", periodic={0: 2})
BU, BO = db.array(value=u), db.array(value=np.zeros(shape))
hk = dict(order=4, update="heat", alpha=0.05)
db.stencil(boundary=bc, **hk).step(BO, BU)
gb = BO.gather(all=True)
wb = fdx.Stencil(2, boundary=bc, **hk)(u.copy(), out=np.zeros(shape))
ok = ok and np.array_equal(gb[2:-2, 2:-2], wb[2:-2, 2:-2])
del O, U, P, d, BU, BO, db
comm.Free()
print(f"rank {world.rank} of part {part} ({2 if part == 0 else 1} procs): {'ok' if ok else 'MISMATCH'}",
      flush=True)
sys.exit(0 if ok else 1)
