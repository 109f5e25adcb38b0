"""Distributed grids (include/fdx/dist.h): a global grid split over units
(MPI ranks x GPUs or CPU units per rank), arrays with shadows, and stencil
steps that give the same result as one stencil on the whole grid.  The
communicator may be an mpi4py one (comm=MPI.COMM_WORLD.Split(...)); fdx
duplicates it and never initializes or finalizes MPI it did not start.

Shapes and axes are NumPy's, as everywhere in this package."""
import ctypes

import numpy as np

from ._array import DTYPES
from ._lib import lib, check, Handle, Options, _release
from ._ops import Stencil, StencilDesc

MAX_RANK = 3


class DistDesc(ctypes.Structure):
    """Mirror of fdx_dist_desc."""
    _fields_ = [("rank", ctypes.c_int), ("shape", ctypes.c_int64 * MAX_RANK), ("grid", ctypes.c_int * MAX_RANK),
                ("shadow", ctypes.c_int * MAX_RANK), ("corners", ctypes.c_int), ("units_per_proc", ctypes.c_int),
                ("mpi_comm", ctypes.c_void_p),
                ("periodic", ctypes.c_int * MAX_RANK)]


class DarrayDesc(ctypes.Structure):
    """Mirror of fdx_darray_desc."""
    _fields_ = [("type", ctypes.c_int), ("ncomp", ctypes.c_int), ("own_shadow", ctypes.c_int),
                ("shadow_lo", ctypes.c_int * MAX_RANK), ("shadow_hi", ctypes.c_int * MAX_RANK),
                ("corners", ctypes.c_int)]


class Checksum(ctypes.Structure):
    _fields_ = [("sum", ctypes.c_double), ("l2", ctypes.c_double), ("digest", ctypes.c_uint64)]


def _declare():
    from ._lib import _fn, _P, _S
    _fn("fdx_dist_create", _S, _P, ctypes.POINTER(DistDesc), ctypes.POINTER(_P))
    _fn("fdx_dist_destroy", None, ctypes.POINTER(_P))
    for name in ("fdx_dist_units", "fdx_dist_local_units", "fdx_dist_procs", "fdx_dist_proc"):
        _fn(name, ctypes.c_int, _P)
    _fn("fdx_dist_owned", None, _P, ctypes.c_int, ctypes.POINTER(ctypes.c_int64), ctypes.POINTER(ctypes.c_int64))
    _fn("fdx_dist_transport", ctypes.c_char_p, _P)
    _fn("fdx_dist_sync", _S, _P)
    _fn("fdx_darray_create", _S, _P, ctypes.c_int, ctypes.POINTER(_P))
    _fn("fdx_darray_create_desc", _S, _P, ctypes.POINTER(DarrayDesc), ctypes.POINTER(_P))
    _fn("fdx_darray_destroy", None, ctypes.POINTER(_P))
    _fn("fdx_darray_local", _P, _P, ctypes.c_int)
    _fn("fdx_darray_local_origin", None, _P, ctypes.c_int, ctypes.POINTER(ctypes.c_int64))
    _fn("fdx_darray_gather", _S, _P, _P, ctypes.c_int)
    _fn("fdx_darray_checksum", _S, _P, ctypes.POINTER(Checksum))
    _fn("fdx_darray_exchange", _S, _P)
    _fn("fdx_darray_exchange_begin", _S, _P)
    _fn("fdx_darray_exchange_end", _S, _P)
    _fn("fdx_dstencil_run", _S, _P, ctypes.POINTER(_P), ctypes.c_int, _P, ctypes.c_int64, ctypes.c_int, ctypes.c_int)
    _fn("fdx_dstencil_graph_used", ctypes.c_int, _P)
    _fn("fdx_dist_finalize", None)
    _fn("fdx_dstencil_create", _S, _P, ctypes.POINTER(StencilDesc), ctypes.c_int, ctypes.POINTER(_P))
    _fn("fdx_dstencil_destroy", None, ctypes.POINTER(_P))
    _fn("fdx_dstencil_step", _S, _P, _P, _P, _P, _P, ctypes.c_int)
    from ._bc import BcDesc
    _fn("fdx_dstencil_set_boundary", _S, _P, ctypes.POINTER(BcDesc))
    _fn("fdx_dstencil_set_temporal", _S, _P, ctypes.c_int)


_declare()


def _comm_address(comm):
    """The address of the MPI_Comm handle inside an mpi4py communicator."""
    if comm is None:
        return None, None
    try:
        from mpi4py import MPI
    except ImportError as e:
        raise TypeError("comm= needs mpi4py (python3-mpi4py)") from e
    if not isinstance(comm, MPI.Comm):
        raise TypeError(f"comm must be an mpi4py communicator, not {type(comm).__name__}")
    return MPI._addressof(comm), comm


class Dist:
    """A global grid of NumPy shape `shape` split over units.  units: GPUs
    (or CPU units with backend="cpu") of this process; grid: units per NumPy
    axis (None: split the slowest axis, NumPy's axis 0); shadow: width per
    axis (an int for all); comm: an mpi4py communicator (None: the job's
    world when started by mpirun, else this process alone).  Other keywords
    are context options (backend, cache_dir, ...)."""

    def __init__(self, shape, units=1, grid=None, shadow=1, corners=False, comm=None, periodic=None, **options):
        shape = tuple(int(n) for n in shape)
        r = len(shape)
        if not 1 <= r <= MAX_RANK:
            raise ValueError(f"distributed grids have 1 to {MAX_RANK} axes, not {r}")
        d = DistDesc()
        d.rank = r
        d.shape[:r] = shape[::-1]
        if grid is not None:
            if len(grid) != r:
                raise ValueError(f"grid has {len(grid)} entries for {r} axes")
            d.grid[:r] = [int(g) for g in grid][::-1]
        sh = [shadow] * r if np.isscalar(shadow) else list(shadow)
        d.shadow[:r] = [int(s) for s in sh][::-1]
        d.corners = int(bool(corners))
        if periodic is not None:
            per = [0] * r
            for ax, f in (periodic.items() if isinstance(periodic, dict) else enumerate(periodic)):
                if not -r <= int(ax) < r:
                    raise ValueError(f"periodic axis {ax} of a rank-{r} grid")
                per[int(ax) % r] = int(f)
            if len(per) != r:
                raise ValueError(f"periodic has {len(per)} entries for {r} axes")
            d.periodic[:r] = per[::-1]
        d.units_per_proc = int(units)
        addr, self._comm = _comm_address(comm)
        d.mpi_comm = addr
        self.desc, self.shape, self.options = d, shape, dict(options)
        self._h = ctypes.c_void_p()
        with Options(options) as o:
            check(lib.fdx_dist_create(o, ctypes.byref(d), ctypes.byref(self._h)))
        self._handle = Handle(self._h, lib.fdx_dist_destroy)

    def __del__(self):
        _release(self)

    units = property(lambda self: lib.fdx_dist_units(self._h), doc="units of the whole job")
    local_units = property(lambda self: lib.fdx_dist_local_units(self._h), doc="units of this process")
    procs = property(lambda self: lib.fdx_dist_procs(self._h), doc="MPI ranks")
    proc = property(lambda self: lib.fdx_dist_proc(self._h), doc="this process's rank")
    transport = property(lambda self: lib.fdx_dist_transport(self._h).decode())

    def owned(self, unit):
        """The global slice (NumPy order) that unit `unit` owns."""
        lo, hi = (ctypes.c_int64 * MAX_RANK)(), (ctypes.c_int64 * MAX_RANK)()
        lib.fdx_dist_owned(self._h, int(unit), lo, hi)
        r = len(self.shape)
        return tuple(slice(lo[a], hi[a]) for a in range(r))[::-1]

    def synchronize(self):
        check(lib.fdx_dist_sync(self._h))

    def array(self, dtype="float64", value=None, ncomp=1, shadow=None, corners=None):
        """A distributed array; value: a global NumPy array to scatter (each
        unit takes its block and shadows).  ncomp > 1: ncomp values a grid
        point, a last NumPy axis that is not split (global shape
        dist.shape + (ncomp,), DVMH's [block]...[*]).  shadow: this array's
        own shadow widths (an int, one per axis, or (low, high), two
        sequences per axis; NumPy's axis order) and corners its own corner
        flag, instead of the distribution's."""
        a = DistArray(self, dtype, ncomp=ncomp, shadow=shadow, corners=corners)
        if value is not None:
            a.scatter(value)
        return a

    def loop(self, indices, body, arrays, **kw):
        """A distributed loop on this grid: fdx.DistLoop(self, indices, body, arrays, **kw)."""
        from ._dloop import DistLoop
        return DistLoop(self, indices, body, arrays, **kw)

    def solver(self, **kw):
        """A multigrid solver distributed as this grid: fdx.Solver(dist=self, **kw)."""
        from ._mg import Solver
        return Solver(dist=self, **kw)

    def stencil(self, order=2, **kw):
        """A distributed fdx.Stencil (same arguments, rank from the grid)."""
        return DistStencil(self, order=order, **kw)


class DistArray:
    def __init__(self, dist, dtype, ncomp=1, shadow=None, corners=None):
        self.dist, self.dtype, self.ncomp = dist, np.dtype(dtype), int(ncomp)
        if self.dtype not in DTYPES:
            raise TypeError(f"element type {self.dtype} is not one fdx computes with")
        self._h = ctypes.c_void_p()
        if self.ncomp == 1 and shadow is None and corners is None:
            check(lib.fdx_darray_create(dist._h, DTYPES[self.dtype], ctypes.byref(self._h)))
            self._handle = Handle(self._h, lib.fdx_darray_destroy, [dist._handle])
            return
        r = len(dist.shape)
        d = DarrayDesc()
        d.type, d.ncomp = DTYPES[self.dtype], self.ncomp
        if shadow is not None:
            lo, hi = shadow if isinstance(shadow, tuple) and len(shadow) == 2 and not np.isscalar(shadow[0]) \
                else (shadow, shadow)
            lo, hi = ([int(w)] * r if np.isscalar(w) else [int(x) for x in w] for w in (lo, hi))
            if len(lo) != r or len(hi) != r:
                raise ValueError(f"shadow widths {shadow} for a grid of {r} axes")
            d.own_shadow = 1
            d.shadow_lo[:r], d.shadow_hi[:r] = lo[::-1], hi[::-1]
            d.corners = int(bool(dist.desc.corners if corners is None else corners))
        elif corners is not None:
            d.own_shadow = 1
            d.shadow_lo[:r] = d.shadow_hi[:r] = dist.desc.shadow[:r]
            d.corners = int(bool(corners))
        check(lib.fdx_darray_create_desc(dist._h, ctypes.byref(d), ctypes.byref(self._h)))
        self._handle = Handle(self._h, lib.fdx_darray_destroy, [dist._handle])

    @property
    def shape(self):
        """The global NumPy shape (grid, then the component axis if any)."""
        return self.dist.shape + ((self.ncomp,) if self.ncomp > 1 else ())

    def __del__(self):
        _release(self)

    def _local(self, u):
        """(fdx_array*, NumPy slices of the global grid it covers) of local unit u."""
        h = lib.fdx_darray_local(self._h, u)
        r, c = len(self.dist.shape), int(self.ncomp > 1)  # a component array's axis 0 is the component
        ext = [lib.fdx_array_extent(h, c + a) for a in range(r)]
        org = (ctypes.c_int64 * MAX_RANK)()
        lib.fdx_darray_local_origin(self._h, u, org)
        return h, tuple(slice(org[a], org[a] + ext[a]) for a in range(r))[::-1] + ((slice(None),) if c else ())

    def scatter(self, value):
        """Every local block (shadows included) from the global NumPy array;
        on a grid with periodic axes their ghost frames are then renewed
        from the points they mirror (an exchange)."""
        value = np.asarray(value, self.dtype)
        if value.shape != self.shape:
            raise ValueError(f"global array of shape {value.shape}, the distributed array's is {self.shape}")
        for u in range(self.dist.local_units):
            h, sl = self._local(u)
            block = np.ascontiguousarray(value[sl])
            check(lib.fdx_array_put(h, ctypes.c_void_p(block.ctypes.data)))
        if any(self.dist.desc.periodic):
            self.exchange()

    def gather(self, all=False):
        """The global field as a NumPy array: this process's owned points (all
        points with all=True, every process receiving them)."""
        out = np.zeros(self.shape, self.dtype)
        check(lib.fdx_darray_gather(self._h, ctypes.c_void_p(out.ctypes.data), int(bool(all))))
        return out

    def exchange(self):
        """Renews the shadows (and periodic ghosts) from the neighbours' owned points."""
        check(lib.fdx_darray_exchange(self._h))

    def exchange_begin(self):
        """Starts the shadow renewal after the work queued on each unit
        (split phase: nothing may write the array until exchange_end)."""
        check(lib.fdx_darray_exchange_begin(self._h))

    def exchange_end(self):
        """Completes the renewal begun by exchange_begin."""
        check(lib.fdx_darray_exchange_end(self._h))

    def checksum(self):
        """Global sum, L2 norm and a decomposition-independent digest of the owned points."""
        c = Checksum()
        check(lib.fdx_darray_checksum(self._h, ctypes.byref(c)))
        return {"sum": c.sum, "l2": c.l2, "digest": c.digest}


class DistStencil:
    """An fdx.Stencil run on every unit's block; step() is one global apply
    followed by the output's shadow renewal.  boundary: conditions on the
    global faces (one value a face; periodic axes must be the grid's
    periodic axes with a frame of the stencil's radius): the same result
    as fdx.Stencil(boundary=...) on the whole grid, bit for bit.
    temporal: deep halos for run() (set_temporal)."""

    def __init__(self, dist, order=2, dtype="float64", boundary=None, temporal=0, **kw):
        self.dist = dist
        # the description is built exactly as fdx.Stencil builds it
        proto = Stencil(len(dist.shape), order=order, dtype=dtype, ctx=_cpu_ctx(), **kw)
        self.desc, self.dtype = proto.desc, proto.dtype
        self._h = ctypes.c_void_p()
        check(lib.fdx_dstencil_create(dist._h, ctypes.byref(self.desc), DTYPES[self.dtype], ctypes.byref(self._h)))
        self._handle = Handle(self._h, lib.fdx_dstencil_destroy, [dist._handle])
        self.boundary = None
        self.temporal = 0
        if boundary is not None:
            self.set_boundary(boundary)
        if temporal:
            self.set_temporal(temporal)

    def set_temporal(self, k):
        """Deep halos (fdx_dstencil_set_temporal): run() advances k steps a
        pass on each unit's block (temporally blocked kernels) and renews
        the shadows once a pass, bit-identical to single steps.  Needs
        shadows of at least k x radius on split axes, corners when two axes
        are split, no periodic axes and no boundary conditions; the ring's
        fields must share the global frame (a wave's third field ends as
        scratch).  0 or 1: one step a pass (the default)."""
        k = int(k)
        check(lib.fdx_dstencil_set_temporal(self._h, k))
        self.temporal = k

    def set_boundary(self, boundary):
        """Conditions on the global faces for every later step (None: none)."""
        from ._bc import as_boundary
        b = None if boundary is None else as_boundary(boundary, len(self.dist.shape))
        if b is not None and any(b.desc.face[a][s].values for a in range(b.rank) for s in (0, 1)):
            raise ValueError("a distributed stencil's boundary takes one value a face, not arrays of values")
        check(lib.fdx_dstencil_set_boundary(self._h, None if b is None else ctypes.byref(b.desc)))
        self.boundary = b

    def __del__(self):
        _release(self)

    def run(self, fields, steps, coef=None, overlap=True, graph=False):
        """`steps` steps on a ring of fields: [u_prev, u, out] for wave,
        [u, out] for heat.  After each step the ring turns left by one, so
        on return fields[-2] (the list is turned in place) holds the newest
        field.  graph=True (CUDA, one process): batches of steps replayed
        as CUDA graphs (.graph_used says whether one ran).  Returns fields."""
        if len(fields) not in (2, 3):
            raise ValueError(f"a ring of 2 (heat) or 3 (wave) fields, not {len(fields)}")
        ring = (_P_ * len(fields))(*[f._h for f in fields])
        check(lib.fdx_dstencil_run(self._h, ring, len(fields), coef._h if coef else None, int(steps),
                                   int(bool(overlap)), int(bool(graph))))
        by_handle = {f._h.value: f for f in fields}
        fields[:] = [by_handle[p] for p in ring]
        return fields

    @property
    def graph_used(self):
        """True when the last run() replayed a CUDA graph."""
        return bool(lib.fdx_dstencil_graph_used(self._h))

    def step(self, out, u, u_prev=None, coef=None, overlap=True):
        check(lib.fdx_dstencil_step(self._h, out._h, u._h, u_prev._h if u_prev else None, coef._h if coef else None,
                                    int(bool(overlap))))
        return out


_P_ = ctypes.c_void_p
_cpu = None


def finalize():
    """Finalizes MPI if fdx started it (fdx_dist_finalize; MPI that mpi4py or
    the caller started is left alone).  Call once, at exit."""
    lib.fdx_dist_finalize()


def _cpu_ctx():
    """A CPU context only to validate stencil descriptions (nothing runs on it)."""
    global _cpu
    if _cpu is None:
        from ._core import Context
        _cpu = Context(backend="cpu")
    return _cpu
