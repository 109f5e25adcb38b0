"""fdx arrays over NumPy, CuPy and PyTorch memory, without copies.

Axes are NumPy's: an array of NumPy shape (nz, ny, nx) is, in C, the fdx
array of extents (nx, ny, nz) (fdx's first index is the fastest), so h and
axis arguments are given in NumPy order and turned around here.  Every
import goes through fdx_array_wrap; the caller's object stays alive as long
as the fdx.Array that views it.
"""
import ctypes
import weakref

import numpy as np

from ._core import context, stream_pointer
from ._lib import lib, check, FdxError
from . import _dlpack

DTYPES = {np.dtype("float32"): 0, np.dtype("float64"): 1, np.dtype("int32"): 2, np.dtype("int64"): 3,
          np.dtype("uint8"): 4}
MAX_RANK = 6
HOST, DEVICE = 1, 2


def _i64(values):
    return (ctypes.c_int64 * max(1, len(values)))(*values)


def _fdx_dtype(dt):
    dt = np.dtype(dt)
    if dt not in DTYPES:
        raise TypeError(f"element type {dt} is not one fdx computes with: float32, float64, int32, int64, uint8")
    return DTYPES[dt]


class Array:
    """An n-d array fdx can compute on: a view of a NumPy (host), CuPy or
    PyTorch (CUDA) array, or memory fdx allocated (fdx.empty).  Exported to
    NumPy (np.asarray: host arrays), CuPy/PyTorch (__cuda_array_interface__,
    DLPack) without copies.  shape, strides (bytes) and dtype are NumPy's."""

    def __init__(self, ctx, ptr, shape, strides, dtype, where, owner, device_id=0):
        self.ctx = ctx
        self._ctx_handle = ctx._handle.retain()  # the context outlives this array's wraps
        self.ptr = int(ptr)
        self.shape = tuple(int(n) for n in shape)
        self.dtype = np.dtype(dtype)
        self.strides = tuple(int(s) for s in strides)
        self.where = where  # HOST or DEVICE
        self.device_id = device_id
        self._owner = owner  # what keeps the memory alive
        self._wraps = {}
        if not 1 <= len(self.shape) <= MAX_RANK:
            raise ValueError(f"fdx arrays have 1 to {MAX_RANK} axes, this one {len(self.shape)}")
        if any(n < 1 for n in self.shape):
            raise ValueError(f"fdx arrays have no empty axes, shape {self.shape}")
        for ax, s in enumerate(self.strides):
            if s % self.dtype.itemsize:
                raise ValueError(f"stride {s} bytes of axis {ax} is not a multiple of the {self.dtype.itemsize}-byte element")
        _fdx_dtype(self.dtype)

    # ---- handles for the C library -------------------------------------------
    def _wrap(self, shape, strides):
        h = ctypes.c_void_p()
        p = ctypes.c_void_p(self.ptr)
        check(lib.fdx_array_wrap(self.ctx.handle, DTYPES[self.dtype], len(shape), _i64(shape),
                                 None if strides is None else _i64(strides),
                                 p if self.where == HOST else None, p if self.where == DEVICE else None,
                                 0, ctypes.byref(h)))
        return h

    def handle(self, order="plain"):
        """The fdx_array* (cached).  order "plain": fdx's plain layout (axes
        reversed: needs a C-contiguous array; what stencils read); "numpy":
        fdx's logical axes are NumPy's, the strides become the array's layout
        (what loops and transforms use)."""
        h = self._wraps.get(order)
        if h is None:
            if order == "plain":
                if not self.c_contiguous:
                    raise ValueError(f"this operation needs a C-contiguous array; shape {self.shape} has strides "
                                     f"{self.strides} (use numpy.ascontiguousarray / .contiguous() first)")
                h = self._wrap(self.shape[::-1], None)
            else:
                h = self._wrap(self.shape, [s // self.dtype.itemsize for s in self.strides])
            self._wraps[order] = h
        return h

    def __del__(self, _destroy=lib.fdx_array_destroy, _ref=ctypes.byref):
        # (what it calls is bound at definition: module globals may be gone at exit)
        for h in getattr(self, "_wraps", {}).values():
            _destroy(_ref(h))
        own = getattr(self, "_own", None)
        if own:
            _destroy(_ref(own))
        h = getattr(self, "_ctx_handle", None)
        if h is not None:
            self._ctx_handle = None
            h.release()

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        return int(np.prod(self.shape))

    @property
    def nbytes(self):
        return self.size * self.dtype.itemsize

    @property
    def c_contiguous(self):
        want = self.dtype.itemsize
        for n, s in zip(self.shape[::-1], self.strides[::-1]):
            if n != 1 and s != want:
                return False
            want *= n
        return True

    @property
    def device(self):
        return "cpu" if self.where == HOST else f"cuda:{self.device_id}"

    def __repr__(self):
        return f"fdx.Array(shape={self.shape}, dtype={self.dtype}, device={self.device!r})"

    # ---- exports -----------------------------------------------------------------
    @property
    def __array_interface__(self):
        if self.where != HOST:
            raise TypeError("a CUDA fdx array has no NumPy view: use .to_numpy() (a copy) or "
                            "cupy.asarray / torch.as_tensor (zero copy)")
        return {"shape": self.shape, "typestr": self.dtype.str, "data": (self.ptr, False),
                "strides": self.strides, "version": 3}

    @property
    def __cuda_array_interface__(self):
        if self.where != DEVICE:
            raise AttributeError("a host fdx array has no __cuda_array_interface__")
        s = self.ctx.stream
        return {"shape": self.shape, "typestr": self.dtype.str, "data": (self.ptr, False),
                "strides": self.strides, "version": 3, "stream": s if s else 1}

    def __dlpack_device__(self):
        return (_dlpack.KDL_CPU, 0) if self.where == HOST else (_dlpack.KDL_CUDA, self.device_id)

    def __dlpack__(self, stream=None, **_):
        if self.where == DEVICE and stream is not None and stream_pointer(stream) not in (self.ctx.stream, 1, 2):
            self.ctx.synchronize()  # the consumer's stream: our work is done before it reads
        return _dlpack.export(self, self.ptr, self.shape, [s // self.dtype.itemsize for s in self.strides],
                              self.dtype, *self.__dlpack_device__())

    def to_numpy(self):
        """A NumPy copy (a view for host arrays: np.asarray(a))."""
        if self.where == HOST:
            return np.asarray(self)
        # fdx_array_get writes the logical order, fdx's first axis fastest:
        # through the "plain" handle (axes reversed) that is NumPy's C order
        out = np.empty(self.shape, self.dtype)
        h = self.handle("plain") if self.c_contiguous else self.handle("numpy")
        dst = out if self.c_contiguous else np.empty(self.shape, self.dtype, order="F")
        check(lib.fdx_array_get(h, ctypes.c_void_p(dst.ctypes.data)))
        if dst is not out:
            out[...] = dst
        return out


def _from_cai(obj, ctx):
    cai = obj.__cuda_array_interface__
    shape = tuple(cai["shape"])
    dt = np.dtype(cai["typestr"])
    ptr = cai["data"][0] or 0
    strides = cai.get("strides") or tuple(np.empty(0, dt).itemsize * int(np.prod(shape[i + 1:])) for i in range(len(shape)))
    dev = getattr(getattr(obj, "device", None), "id", None)
    if dev is None:
        dev = getattr(getattr(obj, "device", None), "index", None) or 0
    return Array(ctx, ptr, shape, strides, dt, DEVICE, obj, dev)


def _from_dlpack(obj, ctx):
    dev_type, dev_id = obj.__dlpack_device__()
    if dev_type in (_dlpack.KDL_CUDA, _dlpack.KDL_CUDA_MANAGED):
        s = ctx.stream
        cap = obj.__dlpack__(stream=s if s else 1)
        where = DEVICE
    elif dev_type in (_dlpack.KDL_CPU, _dlpack.KDL_CUDA_HOST):
        cap = obj.__dlpack__()
        where = HOST
    else:
        raise TypeError(f"DLPack device type {dev_type} is neither the CPU nor CUDA")
    t = _dlpack.Imported(cap)
    dt = np.dtype(t.dtype)
    es = dt.itemsize
    if t.strides is None:
        strides = tuple(es * int(np.prod(t.shape[i + 1:])) for i in range(len(t.shape)))
    else:
        strides = tuple(s * es for s in t.strides)
    return Array(ctx, t.ptr, t.shape, strides, dt, where, (obj, t), dev_id)


def _has_cai(obj):
    """True when obj offers __cuda_array_interface__ (a CPU torch tensor's
    raises AttributeError, one that needs grad RuntimeError: DLPack then)."""
    if isinstance(obj, np.ndarray):
        return False
    try:
        return isinstance(obj.__cuda_array_interface__, dict)
    except Exception:
        return False


def asarray(obj, ctx=None):
    """An fdx.Array viewing obj without a copy: an fdx.Array, a NumPy array
    (host), or a CUDA array with __cuda_array_interface__ or DLPack (CuPy,
    PyTorch, JAX).  The memory must be where the context computes: host
    memory on the CPU backend, device memory on CUDA."""
    ctx = ctx or context()
    if isinstance(obj, Array):
        a = obj
    elif _has_cai(obj):
        a = _from_cai(obj, ctx)
    elif hasattr(obj, "__dlpack__") and not isinstance(obj, np.ndarray):
        a = _from_dlpack(obj, ctx)
    elif isinstance(obj, np.ndarray):
        a = Array(ctx, obj.ctypes.data if obj.size else 0, obj.shape, obj.strides, obj.dtype, HOST, obj)
    else:
        raise TypeError(f"fdx takes NumPy, CuPy, PyTorch (or any DLPack / CUDA array interface) arrays, "
                        f"not {type(obj).__name__}")
    want = DEVICE if ctx.backend == "cuda" else HOST
    if a.where != want:
        raise ValueError(f"a {'host' if a.where == HOST else 'CUDA'} array given to a context on the "
                         f"{ctx.backend} backend: use {'CuPy/PyTorch CUDA arrays' if want == DEVICE else 'NumPy arrays'} "
                         f"or fdx.Context(backend={'cpu' if a.where == HOST else 'cuda'!r})")
    if a.ctx is not ctx:
        a = Array(ctx, a.ptr, a.shape, a.strides, a.dtype, a.where, a, a.device_id)
    return a


# ---- the per-call path --------------------------------------------------------
# A call on the caller's arrays (Stencil(u, out=o), fdx.laplacian, ...) needs
# their fdx_array* each time.  Wrapping is not free (parsing the array
# interface, checks, fdx_array_wrap, which asks CUDA about the pointer), so
# each context keeps, per live array object, the wrap made for it, checked
# on every use against the array's signature: data pointer, shape, strides,
# type (and device for CUDA arrays), read with the cheapest accessors of its
# kind.  An entry is found by id(obj) and holds a weak reference to obj:
# when obj dies its entry goes (the weak reference's callback), so a new
# array that reuses the address or the memory of a dead one never finds the
# dead one's wrap; an array changed in place (a new shape, torch's set_ or
# resize_, NumPy's resize) no longer matches its signature and is wrapped
# again.  Wraps hold no state besides their description (fdx never moves or
# reallocates memory it wraps), so a matching entry is exactly the wrap a
# fresh fdx_array_wrap would give.


def _sig_numpy(a):
    return (a.__array_interface__["data"][0], a.shape, a.strides, a.dtype)


def _sig_cupy(a):
    d = a.data
    return (d.ptr, a.shape, a.strides, a.dtype, d.device_id)


def _sig_torch(t):
    return (t.data_ptr(), t.shape, t.stride(), t.dtype, t.get_device())


_sig_of_type = {}


def _sig_function(tp):
    """The signature reader of arrays of type tp (None: not cached)."""
    try:
        return _sig_of_type[tp]
    except KeyError:
        pass
    if issubclass(tp, np.ndarray):
        f = _sig_numpy
    else:
        top = getattr(tp, "__module__", "").split(".")[0]
        f = _sig_cupy if top == "cupy" else _sig_torch if top == "torch" else None
    _sig_of_type[tp] = f
    return f


def _signature(obj):
    """What identifies the memory view of a NumPy / CuPy / torch array
    cheaply (pointer, shape, strides, type, device), or None for other kinds."""
    f = _sig_function(type(obj))
    return None if f is None else f(obj)


def _forget(views, key):
    def gone(ref):
        e = views.get(key)
        if e is not None and e[0] is ref:  # not a newer entry of the same id
            del views[key]
    return gone


def _entry(obj, ctx):
    """The call cache's entry of obj, [weakref, signature reader, signature,
    fdx.Array, plain fdx_array* or None], made or renewed; an uncacheable
    object (another kind, no weak references, a DLPack import owning its
    capsule) gets an entry that is not stored."""
    views = ctx._views
    key = id(obj)
    f = _sig_function(type(obj))
    try:
        sig = None if f is None else f(obj)
    except (AttributeError, TypeError):  # not the attributes of its kind: not cached
        sig = None
    e = views.get(key)
    if e is not None and e[0]() is obj and e[2] == sig:
        return e
    a = asarray(obj, ctx)
    if sig is None or isinstance(a._owner, tuple):
        return [None, None, None, a, None]
    try:
        ref = weakref.ref(obj, _forget(views, key))
    except TypeError:
        return [None, None, None, a, None]
    # the cached array does not keep obj alive (the caller's call does)
    e = [ref, f, sig, Array(ctx, a.ptr, a.shape, a.strides, a.dtype, a.where, None, a.device_id), None]
    views[key] = e
    return e


def view(obj, ctx):
    """fdx.asarray for the length of one call, through the context's call cache."""
    if isinstance(obj, Array):
        return obj if obj.ctx is ctx else asarray(obj, ctx)
    return _entry(obj, ctx)[3]


def plain(obj, ctx):
    """The plain-layout fdx_array* of obj for one call (the stencils'
    argument; obj C-contiguous), valid while the caller holds it: the call
    cache's hit costs a dictionary look-up, a weak reference and the
    signature's few attributes."""
    if type(obj) is Array and obj.ctx is ctx:
        h = obj._wraps.get("plain")
        return h if h is not None else obj.handle("plain")
    e = ctx._views.get(id(obj))
    if e is not None and e[4] is not None and e[0]() is obj and e[1](obj) == e[2]:
        return e[4]
    if isinstance(obj, Array):
        a = view(obj, ctx)
    else:
        e = _entry(obj, ctx)
        a = e[3]
        if e[0] is not None:
            e[4] = a.handle("plain")
            return e[4]
    # an array not in the cache: a handle that keeps its fdx.Array (and the
    # wrap) alive as long as the caller holds the handle
    h = _Held(a.handle("plain").value)
    h.array = a
    return h


class _Held(ctypes.c_void_p):
    """An fdx_array* (a c_void_p to ctypes) that holds the fdx.Array owning it."""


def borrowed(h, ctx, owner):
    """An fdx.Array viewing the memory of an fdx_array* the library owns
    (plain layout), kept valid by `owner` as long as the view lives."""
    rank = lib.fdx_array_rank(h)
    shape = tuple(lib.fdx_array_extent(h, a) for a in range(rank))[::-1]
    dt = np.dtype({v: k for k, v in DTYPES.items()}[lib.fdx_array_dtype(h)])
    strides = tuple(dt.itemsize * int(np.prod(shape[i + 1:])) for i in range(rank))
    where = DEVICE if ctx.backend == "cuda" else HOST
    ptr = lib.fdx_array_device(h) if where == DEVICE else lib.fdx_array_host(h)
    return Array(ctx, ptr, shape, strides, dt, where, owner)


def empty(shape, dtype="float64", ctx=None):
    """A new array in fdx's memory (device memory on CUDA), C order."""
    ctx = ctx or context()
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    h = ctypes.c_void_p()
    where = DEVICE if ctx.backend == "cuda" else HOST
    check(lib.fdx_array_create(ctx.handle, _fdx_dtype(dtype), len(shape), _i64(shape[::-1]), where, ctypes.byref(h)))
    ptr = lib.fdx_array_device(h) if where == DEVICE else lib.fdx_array_host(h)
    es = np.dtype(dtype).itemsize
    strides = tuple(es * int(np.prod(shape[i + 1:])) for i in range(len(shape)))
    a = Array(ctx, ptr, shape, strides, dtype, where, None)
    a._own = h
    return a


def like(obj):
    """A new, uninitialised C-order array of the same kind (NumPy, CuPy,
    torch, fdx), shape and type as obj."""
    if isinstance(obj, np.ndarray):
        return np.empty(obj.shape, obj.dtype)
    mod = type(obj).__module__.split(".")[0]
    if mod == "cupy":
        import cupy
        return cupy.empty(obj.shape, obj.dtype)
    if mod == "torch":
        import torch
        return torch.empty_like(obj)
    a = asarray(obj)
    return empty(a.shape, a.dtype, a.ctx)


__all__ = ["Array", "asarray", "empty", "like", "FdxError"]
