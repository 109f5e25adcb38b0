"""User stencils (include/fdx/ustencil.h): any linear stencil described term
by term (arbitrary offsets and weights, boxes, mixed derivatives, variable
coefficients, div(k grad u), fields with several components), generated,
compiled and cached like the star stencils.

Offsets, axes and spacings are in NumPy's order, as everywhere in the
package: the offset (dz, dy, dx) reads u[k + dz, j + dy, i + dx].  A field of
ncomp > 1 components is an array with one more NumPy axis, the last, holding
the components of a point (shape (nz, ny, nx, ncomp)); coefficient arrays are
scalar (the grid's shape)."""
import ctypes

import numpy as np

from ._array import DTYPES, view, plain, _i64
from ._bc import BoundaryPass
from ._core import context, stream_pointer
from ._lib import lib, check, Handle, _fn, _P, _S
from ._ops import UPDATES, _zeros_like, _per_axis

MAX_RADIUS, MAX_INPUTS, MAX_COEFS, MAX_COMPONENTS = 4, 4, 4, 8
NO_COEF = -1


class UTerm(ctypes.Structure):
    """Mirror of fdx_ustencil_term."""
    _fields_ = [("weight", ctypes.c_double), ("input", ctypes.c_int), ("input_comp", ctypes.c_int),
                ("output_comp", ctypes.c_int), ("offset", ctypes.c_int * 3), ("coef", ctypes.c_int),
                ("coef_offset", ctypes.c_int * 3)]


_D = ctypes.POINTER(ctypes.c_double)
_I = ctypes.POINTER(ctypes.c_int)
_fn("fdx_ustencil_desc_create", _S, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.POINTER(_P))
_fn("fdx_ustencil_desc_destroy", None, ctypes.POINTER(_P))
_fn("fdx_ustencil_desc_add_term", _S, _P, ctypes.POINTER(UTerm))
_fn("fdx_ustencil_desc_add_point", _S, _P, ctypes.c_double, ctypes.c_int, ctypes.c_int, _I)
_fn("fdx_ustencil_desc_add_box", _S, _P, ctypes.c_int, ctypes.c_int, ctypes.c_int, _D)
_fn("fdx_ustencil_desc_add_mixed", _S, _P, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_double,
    ctypes.c_double, ctypes.c_double)
_fn("fdx_ustencil_desc_add_div_k_grad", _S, _P, ctypes.c_int, ctypes.c_int, ctypes.c_int, _D, ctypes.c_double)
_fn("fdx_ustencil_desc_set_update", _S, _P, ctypes.c_int, ctypes.c_double)
_fn("fdx_ustencil_desc_nterms", ctypes.c_int, _P)
_fn("fdx_ustencil_create", _S, _P, _P, ctypes.c_int, ctypes.POINTER(_P))
_fn("fdx_ustencil_destroy", None, ctypes.POINTER(_P))
_fn("fdx_ustencil_radius", ctypes.c_int, _P)
_fn("fdx_ustencil_apply", _S, _P, _P, ctypes.POINTER(_P), ctypes.POINTER(_P), _P)
_fn("fdx_ustencil_traffic", None, _P, ctypes.POINTER(ctypes.c_int64), _D, _D)
_fn("fdx_ustencil_config", ctypes.c_char_p, _P, ctypes.POINTER(ctypes.c_int64))
_fn("fdx_ustencil_source", _S, _P, ctypes.c_int, ctypes.POINTER(ctypes.c_int64), ctypes.POINTER(ctypes.c_void_p))
_libc_free = ctypes.CDLL(None).free
_libc_free.argtypes = [ctypes.c_void_p]
_libc_free.restype = None


def _axis(a, rank, what):
    if isinstance(a, bool) or not isinstance(a, (int, np.integer)) or not -rank <= a < rank:
        raise ValueError(f"{what} {a!r} is not a NumPy axis of a rank-{rank} stencil")
    return rank - 1 - int(a) % rank  # NumPy axis -> fdx axis


class UStencil:
    """A user stencil of `rank` (1..3) on fields of `ncomp` components with
    `ninputs` input arrays and `ncoefs` coefficient arrays, built by adding
    terms:

        s = fdx.UStencil(3)                     # rank 3, one scalar input
        s.add_box(w)                            # w: a (3, 3, 3) array, w[dz+1, dy+1, dx+1]
        out = s(u)                              # interior points written

        s = fdx.UStencil(2, ncoefs=1).add_div_k_grad(h=(hy, hx))
        out = s(u, coefs=[k])                   # div(k grad u)

    update: "apply" (out = alpha L), "heat" (out = in0 + alpha L) or "wave"
    (out = 2 in0 - in1 + alpha L; needs ninputs >= 2).  The description is
    fixed once the stencil is first applied or built (build()); weights are
    run-time parameters of the kernel (a stencil with other weights shares
    the compiled code).  boundary: conditions (fdx.Boundary's forms) filled
    into the frame of input 0 before every apply (a star-shaped pass: the
    frame's edges and corners, which a box also reads, are left as they are)."""

    def __init__(self, rank, ncomp=1, ninputs=1, ncoefs=0, update="apply", alpha=1.0, dtype="float64",
                 ctx=None, boundary=None, h=None):
        self.ctx = ctx or context()
        self.rank, self.ncomp, self.ninputs, self.ncoefs = int(rank), int(ncomp), int(ninputs), int(ncoefs)
        self.dtype = np.dtype(dtype)
        if update not in UPDATES:
            raise ValueError(f"update {update!r} is not one of {sorted(UPDATES)}")
        self.update, self.alpha = update, float(alpha)
        self._d = ctypes.c_void_p()
        check(lib.fdx_ustencil_desc_create(self.rank, self.ncomp, self.ninputs, self.ncoefs, ctypes.byref(self._d)))
        self._desc_handle = Handle(self._d, lib.fdx_ustencil_desc_destroy)
        check(lib.fdx_ustencil_desc_set_update(self._d, UPDATES[update], self.alpha))
        self._s = None  # the built stencil's Handle
        self._boundary_spec, self._h_bc = boundary, h
        self._bc = None

    def __del__(self):
        for attr in ("_handle", "_desc_handle"):
            h = getattr(self, attr, None)
            if h is not None:
                setattr(self, attr, None)
                h.release()

    # ---- building the description ---------------------------------------------
    def _editable(self):
        if self._s is not None:
            raise RuntimeError("this UStencil is built (applied once): make a new one to change its terms")

    def _offset(self, offset, what="offset"):
        off = [int(o) for o in (offset if not np.isscalar(offset) else [offset])]
        if len(off) != self.rank:
            raise ValueError(f"{what} {tuple(off)} has {len(off)} entries for a rank-{self.rank} stencil")
        return (ctypes.c_int * 3)(*(off[::-1] + [0] * (3 - self.rank)))

    def add_term(self, weight, offset, input=0, input_comp=0, output_comp=None, coef=None, coef_offset=None):
        """weight * [coefs[coef](p + coef_offset)] * inputs[input][input_comp](p + offset)
        into component output_comp (default input_comp) of out.  Returns self."""
        self._editable()
        t = UTerm()
        t.weight = float(weight)
        t.input, t.input_comp = int(input), int(input_comp)
        t.output_comp = int(input_comp if output_comp is None else output_comp)
        t.offset = self._offset(offset)
        t.coef = NO_COEF if coef is None else int(coef)
        t.coef_offset = self._offset(coef_offset if coef_offset is not None else [0] * self.rank, "coef_offset")
        check(lib.fdx_ustencil_desc_add_term(self._d, ctypes.byref(t)))
        return self

    def add_point(self, weight, offset, input=0, comp=0):
        """weight * inputs[input][comp](p + offset) into component comp.  Returns self."""
        self._editable()
        off = self._offset(offset)
        check(lib.fdx_ustencil_desc_add_point(self._d, float(weight), int(input), int(comp), off))
        return self

    def add_points(self, points, input=0, comp=0):
        """{offset: weight, ...} (offsets as tuples in NumPy order).  Returns self."""
        for off, w in points.items():
            self.add_point(w, off, input, comp)
        return self

    def add_box(self, weights, input=0, comp=0):
        """A box of radius r: weights is an array of shape (2r+1,)*rank,
        weights[dz+r, dy+r, dx+r] the weight of u(p + (dz, dy, dx)).  Zero
        weights are kept (they are run-time parameters).  Returns self."""
        self._editable()
        w = np.ascontiguousarray(weights, np.float64)
        n = w.shape[0] if w.ndim else 0
        if w.ndim != self.rank or any(x != n for x in w.shape) or n % 2 == 0:
            raise ValueError(f"box weights of shape {w.shape}: a rank-{self.rank} array of (2r+1) entries an axis")
        # NumPy's C order of w[dz, dy, dx] is fdx's x-fastest order
        check(lib.fdx_ustencil_desc_add_box(self._d, int(input), int(comp), (n - 1) // 2, w.ctypes.data_as(_D)))
        return self

    def add_mixed(self, axis_a, axis_b, h_a=1.0, h_b=1.0, scale=1.0, input=0, comp=0):
        """scale * d2u/(dx_a dx_b) (NumPy axes a != b, spacings h_a, h_b) by the
        centred 4-point formula.  Returns self."""
        self._editable()
        a, b = _axis(axis_a, self.rank, "axis_a"), _axis(axis_b, self.rank, "axis_b")
        check(lib.fdx_ustencil_desc_add_mixed(self._d, int(input), int(comp), a, b, float(h_a), float(h_b),
                                              float(scale)))
        return self

    def add_div_k_grad(self, coef=0, h=None, scale=1.0, input=0, comp=0):
        """scale * div(k grad u), k = coefs[coef], in the conservative form
        with face-averaged k; h: spacing per NumPy axis (default 1).  Returns self."""
        self._editable()
        hv = (ctypes.c_double * 3)(*_per_axis(h, self.rank, 1.0, "h"))
        check(lib.fdx_ustencil_desc_add_div_k_grad(self._d, int(input), int(comp), int(coef), hv, float(scale)))
        return self

    def add_laplacian(self, order=2, h=None, scale=1.0, input=0, comp=0):
        """scale * the Laplacian of accuracy `order` (centred weights per axis) as point terms.  Returns self."""
        from ._ops import fd_weights
        hs = [1.0] * self.rank if h is None else ([float(h)] * self.rank if np.isscalar(h) else list(h))
        w = fd_weights(2, order)
        r = order // 2
        for ax in range(self.rank):
            for q in range(-r, r + 1):
                off = [0] * self.rank
                off[ax] = q
                self.add_point(scale * w[q + r] / hs[ax] ** 2, off, input, comp)
        return self

    @property
    def nterms(self):
        """Terms so far (before merging those that differ only in weight)."""
        return lib.fdx_ustencil_desc_nterms(self._d)

    # ---- the stencil ------------------------------------------------------------
    def build(self):
        """Builds the stencil (nothing is compiled until the first apply); the terms are then fixed."""
        if self._s is None:
            h = ctypes.c_void_p()
            check(lib.fdx_ustencil_create(self.ctx.handle, self._d, DTYPES.get(self.dtype, -1), ctypes.byref(h)))
            self._s = h
            self._handle = Handle(h, lib.fdx_ustencil_destroy, [self.ctx._handle])
            if self._boundary_spec is not None:
                self._bc = BoundaryPass(self._boundary_spec, self.rank, self.radius, self._h_bc, self.dtype, self.ctx)
        return self

    @property
    def radius(self):
        return lib.fdx_ustencil_radius(self.build()._s)

    def _grid_shape(self, a):
        """The grid's NumPy shape of an input or output view (without the component axis)."""
        return a.shape[:self.rank] if self.ncomp > 1 else a.shape

    def __call__(self, *inputs, out=None, coefs=(), stream=None):
        """Applies the stencil: out (made, zeroed, when None) written at every
        point at least `radius` from each face.  inputs: ninputs arrays
        (u, or u and u_prev for "wave"); coefs: ncoefs scalar arrays.  Returns out."""
        self.build()
        if len(inputs) == 1 and isinstance(inputs[0], (list, tuple)):
            inputs = tuple(inputs[0])
        if len(inputs) != self.ninputs:
            raise ValueError(f"{len(inputs)} input arrays for a stencil of {self.ninputs}")
        coefs = tuple(coefs) if coefs is not None else ()
        if len(coefs) != self.ncoefs:
            raise ValueError(f"{len(coefs)} coefficient arrays for a stencil of {self.ncoefs}")
        if out is None:
            out = _zeros_like(inputs[0])
        if self._bc is not None:
            self._bc(inputs[0], stream)
        ctx = self.ctx
        hi, hc = [plain(x, ctx) for x in inputs], [plain(x, ctx) for x in coefs]  # held through the call
        ins = (_P * MAX_INPUTS)(*hi)
        cs = (_P * MAX_COEFS)(*hc) if coefs else None
        check(lib.fdx_ustencil_apply(self._s, plain(out, ctx), ins, cs, None if stream is None else stream_pointer(stream)))
        return out

    apply = __call__

    def bind(self, *inputs, out, coefs=(), stream=None):
        """A function of no arguments that applies the stencil to these
        arrays (conversions done once; one C call a run, plus the boundary
        pass when there is one): for time loops."""
        self.build()
        if len(inputs) != self.ninputs or len(tuple(coefs or ())) != self.ncoefs:
            raise ValueError(f"{len(inputs)} inputs and {len(tuple(coefs or ()))} coefficient arrays for a stencil "
                             f"of {self.ninputs} and {self.ncoefs}")
        views = [view(x, self.ctx) for x in (out,) + tuple(inputs) + tuple(coefs or ())]
        o = views[0].handle("plain")
        ins = (_P * MAX_INPUTS)(*[v.handle("plain") for v in views[1:1 + self.ninputs]])
        cs = (_P * MAX_COEFS)(*[v.handle("plain") for v in views[1 + self.ninputs:]]) if self.ncoefs else None
        fn, sh, st = lib.fdx_ustencil_apply, self._s, ctypes.c_void_p(stream_pointer(stream))
        bc, u0 = self._bc, inputs[0]
        keep = (self, views, inputs, coefs, out)

        def run():
            if bc is not None:
                bc(u0, stream)
            r = fn(sh, o, ins, cs, st)
            if r:
                check(r)
            return keep

        return run

    def config(self, shape):
        """The kernel configuration used for the grid's NumPy shape ("" before the first apply)."""
        return lib.fdx_ustencil_config(self.build()._s, _i64(tuple(shape)[::-1])).decode()

    def traffic(self, shape):
        """(fetch, write) bytes of one apply's theoretical traffic on the grid's NumPy shape."""
        f, w = ctypes.c_double(), ctypes.c_double()
        lib.fdx_ustencil_traffic(self.build()._s, _i64(tuple(shape)[::-1]), ctypes.byref(f), ctypes.byref(w))
        return f.value, w.value

    def source(self, shape, cuda=False):
        """The generated C (or CUDA) source for the grid's NumPy shape."""
        p = ctypes.c_void_p()
        check(lib.fdx_ustencil_source(self.build()._s, int(bool(cuda)), _i64(tuple(shape)[::-1]), ctypes.byref(p)))
        try:
            return ctypes.string_at(p.value).decode()
        finally:
            _libc_free(p)


def box(weights, **kw):
    """A UStencil of one box (weights of shape (2r+1,)*rank: see UStencil.add_box)."""
    w = np.asarray(weights, np.float64)
    return UStencil(w.ndim, **kw).add_box(w)


def div_k_grad(rank, h=None, scale=1.0, **kw):
    """A UStencil computing scale * div(k grad u); apply as s(u, coefs=[k])."""
    kw.setdefault("ncoefs", 1)
    return UStencil(rank, **kw).add_div_k_grad(0, h, scale)


__all__ = ["UStencil", "box", "div_k_grad"]
