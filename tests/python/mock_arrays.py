"""Stand-ins for CuPy and PyTorch CUDA arrays over NumPy memory, for the
call cache's tests and the per-call profile on a machine without a GPU
(python/bench/overhead.py): they carry __cuda_array_interface__ and the
attributes fdx reads on CuPy arrays (data.ptr, data.device_id, shape,
strides, dtype) or torch tensors (data_ptr(), shape, stride(), dtype,
get_device()), and their classes claim the modules "cupy" and "torch" as
the real ones do.  DeviceViewContext is a CPU context that takes them as
device arrays: the CPU backend keeps one storage for both names, so the
wraps and the stencils run on the NumPy memory behind them."""
import numpy as np

import fdx


class DeviceViewContext(fdx.Context):
    """The CPU backend, reporting "cuda" to the Python side only."""

    @property
    def backend(self):
        return "cuda"


class _MemoryPointer:
    __slots__ = ("ptr", "device_id")

    def __init__(self, ptr, device_id):
        self.ptr, self.device_id = ptr, device_id


class CupyLike:
    """A cupy.ndarray look-alike over NumPy array `a` (shape may be set in
    place, as CuPy's setter does)."""

    def __init__(self, a, device_id=0):
        self._a = a
        self.data = _MemoryPointer(a.ctypes.data, device_id)
        self.dtype = a.dtype

    @property
    def shape(self):
        return self._a.shape

    @shape.setter
    def shape(self, s):
        self._a.shape = s

    @property
    def strides(self):
        return self._a.strides

    @property
    def __cuda_array_interface__(self):
        return {"shape": self.shape, "typestr": self.dtype.str, "data": (self.data.ptr, False),
                "strides": self.strides, "version": 3, "stream": 1}


CupyLike.__module__ = "cupy._core.core"


class _TorchDevice:
    __slots__ = ("index",)
    type = "cuda"

    def __init__(self, index):
        self.index = index

    def __str__(self):
        return f"cuda:{self.index}"


class TorchLike:
    """A torch.Tensor look-alike over NumPy array `a`; set_(b) points it at
    another array's memory in place, as torch's set_ does."""

    def __init__(self, a, device=0):
        self._device = device
        self.set_(a)

    def set_(self, b):
        self._a, self._ptr = b, b.ctypes.data
        self._stride = tuple(s // b.itemsize for s in b.strides)

    def data_ptr(self):
        return self._ptr

    @property
    def shape(self):
        return self._a.shape

    def stride(self):
        return self._stride

    @property
    def dtype(self):
        return self._a.dtype

    def get_device(self):
        return self._device

    @property
    def device(self):
        return _TorchDevice(self._device)

    @property
    def __cuda_array_interface__(self):
        return {"shape": self._a.shape, "typestr": self._a.dtype.str, "data": (self.data_ptr(), False),
                "strides": self._a.strides, "version": 3, "stream": 1}


TorchLike.__module__ = "torch"


class NoWeakref:
    """A CupyLike that takes no weak references (a __slots__ class): fdx
    cannot cache its wrap and wraps it every call."""
    __slots__ = ("_a", "data")

    def __init__(self, a):
        self._a = a
        self.data = _MemoryPointer(a.ctypes.data, 0)

    shape = property(lambda self: self._a.shape)
    strides = property(lambda self: self._a.strides)
    dtype = property(lambda self: self._a.dtype)
    __cuda_array_interface__ = CupyLike.__cuda_array_interface__


NoWeakref.__module__ = "cupy._core.core"


def cupy_like(shape, dtype="float64", rng=None):
    """A CupyLike over a new NumPy array (random when rng is given) and that array."""
    a = rng.random(shape).astype(dtype) if rng is not None else np.zeros(shape, dtype)
    return CupyLike(a), a
