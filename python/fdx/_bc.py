"""Boundary conditions per face (include/fdx/boundary.h): Dirichlet, Neumann
and periodic ghosts filled by one generated pass before a stencil reads them.

A condition is given as
  - the CLI's text, "all=dirichlet:0,x=periodic,z+=neumann:1.5" (x is the
    fastest axis: NumPy's last; y the one before; z NumPy's axis 0 in 3-D);
  - a dict whose keys are NumPy axes (0, 1, 2: both faces), (axis, "low" |
    "high") for one face, the CLI's face names ("x", "x-", "y+", "all"), and
    whose values are "periodic", "dirichlet", "neumann", "none",
    ("dirichlet", g) with g a number or an array of boundary values (the
    solution's shape with extent 1 on the face's axis), or ("neumann", q);
  - an fdx.Boundary (already converted).
Later entries override earlier ones (a dict keeps its order)."""
import ctypes

import numpy as np

from ._array import DTYPES, view, plain, asarray
from ._core import context, stream_pointer
from ._lib import lib, check, Handle, _release, _fn, _P, _S

KINDS = {"none": 0, "dirichlet": 1, "neumann": 2, "periodic": 3}
KIND_NAMES = {v: k for k, v in KINDS.items()}
SIDES = {"low": 0, "-": 0, 0: 0, "high": 1, "+": 1, 1: 1}


class BcFace(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_int), ("value", ctypes.c_double), ("values", ctypes.c_void_p)]


class BcDesc(ctypes.Structure):
    _fields_ = [("face", (BcFace * 2) * 3)]


_fn("fdx_bc_create", _S, _P, ctypes.POINTER(BcDesc), ctypes.c_int, ctypes.c_int, ctypes.POINTER(ctypes.c_double),
    ctypes.c_int, ctypes.POINTER(_P))
_fn("fdx_bc_destroy", None, ctypes.POINTER(_P))
_fn("fdx_bc_apply", _S, _P, _P, _P)
_fn("fdx_stencil_set_boundary", _S, _P, ctypes.POINTER(BcDesc))
_fn("fdx_bc_parse", _S, ctypes.c_char_p, ctypes.c_int, ctypes.POINTER(BcDesc))
_fn("fdx_bc_text", None, ctypes.POINTER(BcDesc), ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t)


def _faces(key, rank):
    """[(C axis, side)] that a dict key names."""
    if isinstance(key, str):
        if key == "all":
            return [(a, s) for a in range(rank) for s in (0, 1)]
        name, side = key[0], key[1:]
        if name not in "xyz"[:rank] or side not in ("", "-", "+"):
            raise ValueError(f"boundary face {key!r}: x, y, z (NumPy's last axis first), x-, x+, ..., all, "
                             f"or a NumPy axis for a rank-{rank} array")
        a = "xyz".index(name)
        return [(a, s) for s in ((0, 1) if side == "" else (SIDES[side],))]
    if isinstance(key, tuple):
        if len(key) != 2 or key[1] not in SIDES:
            raise ValueError(f"boundary face {key!r}: (axis, 'low' | 'high')")
        axis, side = key[0], SIDES[key[1]]
    else:
        axis, side = key, None
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)) or not -rank <= axis < rank:
        raise ValueError(f"boundary face {key!r}: NumPy axis out of range for rank {rank}")
    c = rank - 1 - int(axis) % rank  # NumPy axis -> fdx axis (x fastest)
    return [(c, s) for s in ((0, 1) if side is None else (side,))]


class Boundary:
    """Conditions on every face of a rank-`rank` array (see the module
    text for the forms `spec` takes).  .text is the CLI's syntax; .desc the
    C description (fdx_bc_desc); value arrays are kept alive here."""

    def __init__(self, spec, rank, dtype=None, ctx=None):
        if isinstance(spec, Boundary):
            spec = spec.spec
        self.spec, self.rank = spec, int(rank)
        self.desc = BcDesc()
        self._keep = []  # value arrays: the C side keeps their pointers
        if not 1 <= self.rank <= 3:
            raise ValueError(f"boundary conditions are for rank 1 to 3, not {rank}")
        if spec is None:
            return
        if isinstance(spec, str):
            check(lib.fdx_bc_parse(spec.encode(), self.rank, ctypes.byref(self.desc)))
            return
        if not isinstance(spec, dict):
            raise TypeError(f"boundary must be a string, a dict or an fdx.Boundary, not {type(spec).__name__}")
        for key, val in spec.items():
            if isinstance(val, str):
                kind, value = val, 0.0
            elif isinstance(val, tuple) and len(val) == 2 and isinstance(val[0], str):
                kind, value = val
            else:
                raise ValueError(f"boundary {key!r}: {val!r} is not 'kind' or ('kind', value)")
            if kind not in KINDS:
                raise ValueError(f"boundary {key!r}: kind {kind!r} is not one of {', '.join(KINDS)}")
            faces = _faces(key, self.rank)
            values = None
            if not np.isscalar(value):
                if kind != "dirichlet":
                    raise ValueError(f"boundary {key!r}: only Dirichlet faces take an array of values")
                values = value
                value = 0.0
            for a, s in faces:
                f = self.desc.face[a][s]
                f.kind, f.value = KINDS[kind], float(value)
                f.values = None
                if values is not None:
                    f.values = self._values_handle(values, a, dtype, ctx)
        # periodic on one face only: refused here with the C parser's rule
        for a in range(self.rank):
            k = [self.desc.face[a][s].kind for s in (0, 1)]
            if (k[0] == KINDS["periodic"]) != (k[1] == KINDS["periodic"]):
                raise ValueError(f"boundary: periodic needs both faces of axis {'xyz'[a]} "
                                 f"(NumPy axis {self.rank - 1 - a})")

    def _values_handle(self, values, axis, dtype, ctx):
        ctx = ctx or context()
        a = asarray(values, ctx)  # holds `values` alive (a cached view would not)
        if dtype is not None and a.dtype != np.dtype(dtype):
            raise TypeError(f"boundary values of type {a.dtype} for a {np.dtype(dtype)} stencil")
        if a.ndim != self.rank or a.shape[self.rank - 1 - axis] != 1:
            raise ValueError(f"boundary values of shape {a.shape}: a rank-{self.rank} array with extent 1 on "
                             f"NumPy axis {self.rank - 1 - axis}")
        self._keep.append(a)
        return a.handle("plain")

    @property
    def periodic(self):
        """NumPy axes that are periodic."""
        return tuple(self.rank - 1 - a for a in range(self.rank) if self.desc.face[a][0].kind == KINDS["periodic"])[::-1]

    @property
    def text(self):
        buf = ctypes.create_string_buffer(512)
        lib.fdx_bc_text(ctypes.byref(self.desc), self.rank, buf, len(buf))
        return buf.value.decode()

    def faces(self):
        """{(NumPy axis, 'low'|'high'): (kind, value)} for every face."""
        out = {}
        for a in range(self.rank):
            for s, side in ((0, "low"), (1, "high")):
                f = self.desc.face[a][s]
                out[(self.rank - 1 - a, side)] = (KIND_NAMES[f.kind], f.value)
        return dict(sorted(out.items()))

    def __str__(self):
        return self.text

    def __repr__(self):
        return f"fdx.Boundary({self.text!r})"

    def __bool__(self):
        return any(self.desc.face[a][s].kind for a in range(self.rank) for s in (0, 1))


def as_boundary(spec, rank, dtype=None, ctx=None):
    return spec if isinstance(spec, Boundary) and spec.rank == rank else Boundary(spec, rank, dtype, ctx)


class BoundaryPass:
    """The ghost-filling pass on its own (fdx_bc_create / fdx_bc_apply): for
    arrays of `rank`, a frame `radius` wide (a stencil's radius), spacing h
    per NumPy axis (Neumann uses it).  pass_(u) fills u's frame in place."""

    def __init__(self, boundary, rank, radius, h=None, dtype="float64", ctx=None):
        from ._ops import _per_axis
        self.ctx = ctx or context()
        self.dtype = np.dtype(dtype)
        self.boundary = as_boundary(boundary, rank, self.dtype, self.ctx)
        hv = (ctypes.c_double * 3)(*_per_axis(h, rank, 1.0, "h"))
        self._h = ctypes.c_void_p()
        check(lib.fdx_bc_create(self.ctx.handle, ctypes.byref(self.boundary.desc), int(rank), int(radius), hv,
                                DTYPES.get(self.dtype, -1), ctypes.byref(self._h)))
        self._handle = Handle(self._h, lib.fdx_bc_destroy, [self.ctx._handle])

    def __del__(self):
        _release(self)

    def __call__(self, u, stream=None):
        check(lib.fdx_bc_apply(self._h, plain(u, self.ctx), None if stream is None else stream_pointer(stream)))
        return u


def fill_boundary(u, boundary, radius, h=None, stream=None, ctx=None):
    """Fills the ghost frame (radius points at each face) of u in place
    with the conditions; returns u.  For repeated use make a BoundaryPass."""
    ctx = ctx or context()
    a = view(u, ctx)
    return BoundaryPass(boundary, a.ndim, radius, h, a.dtype, ctx)(u, stream)


__all__ = ["Boundary", "BoundaryPass", "fill_boundary"]
