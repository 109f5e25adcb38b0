"""Stencils, the Laplacian and layout transforms on any array fdx.asarray takes.

Per-axis arguments (h, d1, d2, axes) are in NumPy axis order.  Outputs may
be passed (out=...); when not, a zeroed array of the input's kind is made
(boundary points are never written by a stencil: they stay zero)."""
import ctypes

import numpy as np

from ._array import asarray, view, plain, DTYPES, _i64
from ._core import context, stream_pointer
from ._lib import lib, check, Handle, _release, _fn, _P, _S
from ._bc import as_boundary

_fn("fdx_stencil_steps", _S, _P, _P, _P, ctypes.c_int64, ctypes.c_int, _P)
_fn("fdx_stencil_wave_steps", _S, _P, _P, _P, _P, _P, _P, ctypes.c_int64, ctypes.c_int, _P)
_fn("fdx_stencil_steps_depth", ctypes.c_int, _P, ctypes.POINTER(ctypes.c_int64), ctypes.c_char_p, ctypes.c_size_t)
_fn("fdx_stencil_traffic", None, _P, ctypes.POINTER(ctypes.c_int64), ctypes.POINTER(ctypes.c_double),
    ctypes.POINTER(ctypes.c_double))
_fn("fdx_star_traffic", None, ctypes.c_int, ctypes.POINTER(ctypes.c_int64), ctypes.c_int, ctypes.c_size_t,
    ctypes.POINTER(ctypes.c_double), ctypes.POINTER(ctypes.c_double))
_fn("fdx_effective_gbps", ctypes.c_double, ctypes.c_double, ctypes.c_double, ctypes.c_double)
_fn("fdx_fornberg_weights", _S, ctypes.c_int, ctypes.c_double, ctypes.c_int, ctypes.POINTER(ctypes.c_double),
    ctypes.POINTER(ctypes.c_double))

UPDATES = {"apply": 0, "wave": 1, "heat": 2}
DIAGS = {"none": 0, "main": 1, "anti": 2}


class StencilDesc(ctypes.Structure):
    """Mirror of fdx_stencil_desc (include/fdx/stencil.h).  The C library
    fills defaults (fdx_stencil_desc_laplacian); the trailing reserve keeps
    fields a newer library appends at their defaults instead of overrunning."""
    _fields_ = [("rank", ctypes.c_int), ("order", ctypes.c_int), ("h", ctypes.c_double * 3),
                ("d2", ctypes.c_double * 3), ("d1", ctypes.c_double * 3), ("d0", ctypes.c_double),
                ("update", ctypes.c_int), ("alpha", ctypes.c_double), ("coef", ctypes.c_int),
                ("sponge", ctypes.c_int), ("sponge_strength", ctypes.c_double),
                ("_reserve", ctypes.c_char * 4096)]


class Layout(ctypes.Structure):
    _fields_ = [("rank", ctypes.c_int), ("perm", ctypes.c_int * 6), ("diag", ctypes.c_int)]


def _temporal(temporal):
    """steps()'s temporal argument as the C library's depth (0 off, -1 auto, K)."""
    t = temporal
    if t is None or isinstance(t, str):
        t = {"off": 0, "auto": -1, None: 0}.get(t, t)
    if isinstance(t, bool) or not isinstance(t, (int, np.integer)):
        raise ValueError(f"temporal {temporal!r} is not 'off', 'auto' or a number of steps a pass")
    return int(t)


def _per_axis(v, rank, default, what):
    if v is None:
        v = [default] * rank
    elif np.isscalar(v):
        v = [v] * rank
    v = [float(x) for x in v]
    if len(v) != rank:
        raise ValueError(f"{what} has {len(v)} entries for a rank-{rank} stencil")
    return v[::-1] + [default] * (3 - rank)  # NumPy order -> fdx order


def _copy_of(x):
    """A copy of a NumPy / CuPy / torch / fdx array, of the same kind."""
    mod = type(x).__module__.split(".")[0]
    if isinstance(x, np.ndarray):
        return np.array(x, order="C")
    if mod == "cupy":
        return x.copy(order="C")
    if mod == "torch":
        return x.clone(memory_format=__import__("torch").contiguous_format)
    a = asarray(x)
    from ._array import empty
    z = empty(a.shape, a.dtype, a.ctx)
    if a.where == 1:
        np.asarray(z)[...] = np.asarray(a)
    else:
        check(lib.fdx_permute(a.ctx.handle, ctypes.c_void_p(z.ptr), ctypes.c_void_p(a.ptr), a.dtype.itemsize, 1,
                              _i64([a.size]), (ctypes.c_int * 1)(0), None))
    return z


def _zeros_like(x):
    mod = type(x).__module__.split(".")[0]
    if isinstance(x, np.ndarray):
        return np.zeros(x.shape, x.dtype)
    if mod == "cupy":
        import cupy
        return cupy.zeros(x.shape, x.dtype)
    if mod == "torch":
        import torch
        return torch.zeros_like(x, memory_format=torch.contiguous_format)
    a = asarray(x)
    from ._array import empty
    z = empty(a.shape, a.dtype, a.ctx)
    if a.where == 1:
        np.asarray(z)[...] = 0
    return z


class Stencil:
    """A linear star stencil (include/fdx/stencil.h): L u = d0 u + sum over
    axes of d1 du/dx + d2 d2u/dx2 at accuracy `order` (2..12), and the update
    written at interior points: "apply" out = alpha [c] L u, "wave"
    out = 2u - u_prev + alpha [c] L u, "heat" out = u + alpha [c] L u.
    coef=True multiplies L u by a coefficient array.  sponge (cells) adds
    Cerjan's absorbing layer to the wave update.  boundary: conditions per
    face (fdx.Boundary's forms: "all=dirichlet:0,x=periodic", or {axis:
    kind}) filled into u's ghost frame (the `radius` outer points, which
    the update never writes) before every apply and step."""

    def __init__(self, rank, order=2, h=None, d2=None, d1=None, d0=0.0, update="apply", alpha=1.0, coef=False,
                 sponge=0, sponge_strength=None, dtype="float64", ctx=None, boundary=None):
        self.ctx = ctx or context()
        if update not in UPDATES:
            raise ValueError(f"update {update!r} is not one of {sorted(UPDATES)}")
        d = StencilDesc()
        hv = (ctypes.c_double * 3)(*_per_axis(h, rank, 1.0, "h")) if rank in (1, 2, 3) else None
        lib.fdx_stencil_desc_laplacian(ctypes.byref(d), int(rank), int(order), hv)
        d.d2[:] = _per_axis(d2, rank, 0.0, "d2") if d2 is not None else list(d.d2)
        d.d1[:] = _per_axis(d1, rank, 0.0, "d1")
        d.d0 = float(d0)
        d.update = UPDATES[update]
        d.alpha = float(alpha)
        d.coef = int(bool(coef))
        d.sponge = int(sponge)
        if sponge_strength is not None:
            d.sponge_strength = float(sponge_strength)
        self.desc = d
        self.dtype = np.dtype(dtype)
        self.rank, self.order, self.update = rank, order, update
        self._h = ctypes.c_void_p()
        check(lib.fdx_stencil_create(self.ctx.handle, ctypes.byref(d), DTYPES.get(self.dtype, -1), ctypes.byref(self._h)))
        self._handle = Handle(self._h, lib.fdx_stencil_destroy, [self.ctx._handle])
        self.boundary = None
        if boundary is not None:
            self.set_boundary(boundary)

    def __del__(self):
        _release(self)

    @property
    def radius(self):
        return lib.fdx_stencil_radius(self._h)

    def set_boundary(self, boundary):
        """Conditions filled into u's frame before every later apply (None: none)."""
        b = None if boundary is None else as_boundary(boundary, self.rank, self.dtype, self.ctx)
        check(lib.fdx_stencil_set_boundary(self._h, None if b is None else ctypes.byref(b.desc)))
        self.boundary = b  # keeps value arrays alive while the stencil uses them

    def traffic(self, shape):
        """(fetch, write) bytes of the seed's theoretical traffic of one apply on this NumPy shape."""
        f, w = ctypes.c_double(), ctypes.c_double()
        lib.fdx_stencil_traffic(self._h, _i64(tuple(shape)[::-1]), ctypes.byref(f), ctypes.byref(w))
        return f.value, w.value

    def steps(self, u, steps, tmp=None, temporal="auto", stream=None):
        """Advances a heat stencil (update "heat", no coefficient, no
        sponge) `steps` steps in place: u <- u + alpha L u, bit-identical to
        `steps` single applies alternating between two arrays.  temporal:
        "off" (one step a pass), K in 2..8 (K steps a pass through memory,
        rank 2 and 3), or "auto" (times the candidates once per device,
        shape and stencil and keeps the fastest).  tmp: scratch of u's shape
        whose frame holds u's (default: a copy of u).  With boundary
        conditions every step is one apply (K > 1 is refused).  Returns u."""
        a = view(u, self.ctx)
        if tmp is None:
            tmp = _copy_of(u)
        tm = asarray(tmp, self.ctx)
        check(lib.fdx_stencil_steps(self._h, a.handle("plain"), tm.handle("plain"), int(steps), _temporal(temporal),
                                    ctypes.c_void_p(stream_pointer(stream))))
        return u

    def wave_steps(self, u, u_prev, steps, coef=None, tmp=None, tmp2=None, temporal="auto", stream=None):
        """Advances a wave stencil's pair (update "wave", no sponge) `steps`
        steps in place: afterwards u holds the newest level and u_prev the
        one before, bit-identical to `steps` applies rotating
        u_prev <- u <- out (fdx_stencil_wave_steps).  coef: the stencil's
        coefficient array (exactly when made with coef=True).  temporal as
        for steps() (K levels a pass through memory, rank 2 and 3).  tmp,
        tmp2: scratch of u's shape whose frame holds u's (default: copies of
        u); u_prev's frame must hold u's too (a field at rest: u_prev = u).
        Returns (u, u_prev)."""
        a, p = view(u, self.ctx), view(u_prev, self.ctx)
        c = None if coef is None else view(coef, self.ctx).handle("plain")
        t1 = asarray(_copy_of(u) if tmp is None else tmp, self.ctx)
        t2 = asarray(_copy_of(u) if tmp2 is None else tmp2, self.ctx)
        check(lib.fdx_stencil_wave_steps(self._h, a.handle("plain"), p.handle("plain"), c, t1.handle("plain"),
                                         t2.handle("plain"), int(steps), _temporal(temporal),
                                         ctypes.c_void_p(stream_pointer(stream))))
        return u, u_prev

    def steps_depth(self, shape):
        """(steps a pass, configuration) of the last steps() on this NumPy shape ((0, "") before any)."""
        buf = ctypes.create_string_buffer(256)
        k = lib.fdx_stencil_steps_depth(self._h, _i64(tuple(shape)[::-1]), buf, len(buf))
        return k, buf.value.decode()

    def config(self, shape):
        """The kernel configuration chosen for this NumPy shape ("" before the first apply)."""
        return lib.fdx_stencil_config(self._h, _i64(tuple(shape)[::-1])).decode()

    def __call__(self, u, out=None, u_prev=None, coef=None, stream=None, _apply=lib.fdx_stencil_apply):
        """Applies the update: out (made when None) at interior points.  Returns out."""
        if out is None:
            out = _zeros_like(u)
        ctx = self.ctx
        st = _apply(self._h, plain(out, ctx), plain(u, ctx), None if u_prev is None else plain(u_prev, ctx),
                    None if coef is None else plain(coef, ctx), None if stream is None else stream_pointer(stream))
        if st:
            check(st)
        return out

    apply = __call__

    def bind(self, u, out, u_prev=None, coef=None, stream=None):
        """A function of no arguments that applies the stencil to these
        arrays: the conversions are done once, a call is one C call (the
        lowest overhead, for time loops)."""
        arrays = [asarray(x, self.ctx) if x is not None else None for x in (out, u, u_prev, coef)]
        h = [a.handle("plain") if a is not None else None for a in arrays]
        fn, sh, s = lib.fdx_stencil_apply, self._h, ctypes.c_void_p(stream_pointer(stream))
        keep = (self, arrays)

        def run():
            st = fn(sh, h[0], h[1], h[2], h[3], s)
            if st:
                check(st)
            return keep

        return run


def laplacian(u, h=None, out=None, stream=None, ctx=None):
    """The second-order Laplacian of u (rank 2 or 3, float32/float64) at
    interior points (fdx_laplacian_apply).  h: spacing per NumPy axis."""
    ctx = ctx or context()
    if out is None:
        out = _zeros_like(u)
    hu = plain(u, ctx)
    hv = _unit_h if h is None else (ctypes.c_double * 3)(*_per_axis(h, lib.fdx_array_rank(hu), 1.0, "h")[:3])
    st = _laplacian_apply(plain(out, ctx), hu, hv, None if stream is None else stream_pointer(stream))
    if st:
        check(st)
    return out


_laplacian_apply = lib.fdx_laplacian_apply
_unit_h = (ctypes.c_double * 3)(1.0, 1.0, 1.0)  # read only (const double *)


def _layout(rank, perm, diag):
    l = Layout()
    p = (ctypes.c_int * 6)(*perm) if perm is not None else None
    check(lib.fdx_layout_make(rank, p, DIAGS[diag] if isinstance(diag, str) else int(diag), ctypes.byref(l)))
    return l


def permute(u, axes, out=None, stream=None, ctx=None):
    """numpy.transpose(u, axes) as a new C-order array (fdx_permute: tiled
    transposes on the GPU)."""
    ctx = ctx or context()
    a = asarray(u, ctx)
    r = a.ndim
    axes = [int(x) % r for x in axes]
    if sorted(axes) != list(range(r)):
        raise ValueError(f"axes {axes} is not a permutation of 0..{r - 1}")
    if not a.c_contiguous:
        raise ValueError("permute needs a C-contiguous input (numpy.ascontiguousarray / .contiguous() first)")
    shape = [a.shape[q] for q in axes]
    if out is None:
        out = _new_like(u, shape, a)
    o = asarray(out, ctx)
    if tuple(o.shape) != tuple(shape) or o.dtype != a.dtype or not o.c_contiguous:
        raise ValueError(f"out must be a C-contiguous {a.dtype} array of shape {tuple(shape)}, not {o.dtype} {o.shape}")
    perm = [r - 1 - axes[r - 1 - p] for p in range(r)]
    check(lib.fdx_permute(ctx.handle, ctypes.c_void_p(o.ptr), ctypes.c_void_p(a.ptr), a.dtype.itemsize, r,
                          _i64(a.shape[::-1]), (ctypes.c_int * r)(*perm), ctypes.c_void_p(stream_pointer(stream))))
    return out


def _new_like(u, shape, a):
    if isinstance(u, np.ndarray):
        return np.empty(shape, a.dtype)
    mod = type(u).__module__.split(".")[0]
    if mod == "cupy":
        import cupy
        return cupy.empty(shape, a.dtype)
    if mod == "torch":
        import torch
        return torch.empty(shape, dtype=u.dtype, device=u.device)
    from ._array import empty
    return empty(shape, a.dtype, a.ctx)


def _convert(src, dst, to, frm, shape, es, ctx, stream):
    check(lib.fdx_layout_convert(ctx.handle, ctypes.c_void_p(dst.ptr), ctypes.byref(to), ctypes.c_void_p(src.ptr),
                                 ctypes.byref(frm), es, len(shape), _i64(shape),
                                 ctypes.c_void_p(stream_pointer(stream))))


def diagonalize(u, diag="anti", out=None, stream=None, ctx=None):
    """The elements of u (C order, rank >= 2) rearranged along the diagonals
    of its two last axes (x the last, y the one before): "anti" stores the
    lines x + y = d one after another, "main" the lines x - y = const; inside
    a line by x ascending; the other axes stay outside.  Returns a flat array
    of u.size elements (out, if given)."""
    ctx = ctx or context()
    a = asarray(u, ctx)
    if a.ndim < 2 or not a.c_contiguous:
        raise ValueError("diagonalize needs a C-contiguous array of rank >= 2")
    if out is None:
        out = _new_like(u, [a.size], a)
    o = asarray(out, ctx)
    if o.size != a.size or o.dtype != a.dtype:
        raise ValueError(f"out must hold {a.size} {a.dtype} elements")
    r = a.ndim
    _convert(a, o, _layout(r, None, diag), _layout(r, None, "none"), a.shape[::-1], a.dtype.itemsize, ctx, stream)
    return out


def undiagonalize(flat, shape, diag="anti", out=None, stream=None, ctx=None):
    """The inverse of diagonalize: a C-order array of `shape` from its diagonal storage."""
    ctx = ctx or context()
    a = asarray(flat, ctx)
    shape = tuple(int(n) for n in shape)
    if out is None:
        out = _new_like(flat, shape, a)
    o = asarray(out, ctx)
    if o.shape != shape or o.dtype != a.dtype or not o.c_contiguous or a.size != o.size:
        raise ValueError(f"out must be a C-contiguous {a.dtype} array of shape {shape} and flat must hold as many elements")
    r = len(shape)
    _convert(a, o, _layout(r, None, "none"), _layout(r, None, diag), shape[::-1], a.dtype.itemsize, ctx, stream)
    return out


def star_traffic(shape, radius, itemsize):
    """(fetch, write) bytes of the seed's theoretical traffic of a star
    stencil of this radius on the NumPy shape (corners and edges not read)."""
    f, w = ctypes.c_double(), ctypes.c_double()
    lib.fdx_star_traffic(len(shape), _i64(tuple(shape)[::-1]), int(radius), int(itemsize), ctypes.byref(f),
                         ctypes.byref(w))
    return f.value, w.value


def effective_gbps(fetch_bytes, write_bytes, ms):
    """(fetch + write) / time in GB/s: the figure of merit of the benchmarks."""
    return lib.fdx_effective_gbps(float(fetch_bytes), float(write_bytes), float(ms))


def fornberg_weights(m, x0, x):
    """Weights of derivative m at x0 from values at the points x (Fornberg 1988)."""
    x = np.ascontiguousarray(x, np.float64)
    w = np.zeros(x.size)
    check(lib.fdx_fornberg_weights(int(m), float(x0), x.size, x.ctypes.data_as(ctypes.POINTER(ctypes.c_double)),
                                   w.ctypes.data_as(ctypes.POINTER(ctypes.c_double))))
    return w


def fd_weights(m, order):
    """Centred weights of derivative m (1 or 2) at accuracy `order`, offsets -order/2..order/2."""
    w = (ctypes.c_double * (order + 1))()
    check(lib.fdx_fd_weights(int(m), int(order), w))
    return np.array(w[:])
