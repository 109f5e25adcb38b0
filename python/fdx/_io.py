"""Field files (include/fdx/io.h): HDF5 datasets as the simulations write
them, in NumPy's order (the dataset's dimensions are the NumPy shape)."""
import ctypes

import numpy as np

from ._array import DTYPES, _i64
from ._lib import lib, check, _fn, _S

_fn("fdx_h5_write_field", _S, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_int,
    ctypes.POINTER(ctypes.c_int64), ctypes.c_double, ctypes.c_int64)
_fn("fdx_h5_read_field_shaped", _S, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int, ctypes.POINTER(ctypes.c_int64),
    ctypes.POINTER(ctypes.POINTER(ctypes.c_double)))
_fn("fdx_h5_read_field", _S, ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(ctypes.POINTER(ctypes.c_double)),
    ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_int64))
_libc = ctypes.CDLL(None)
_libc.free.argtypes = [ctypes.c_void_p]
_libc.free.restype = None
MAX_RANK = 6


def write_field(path, name, array, time=0.0, step=0):
    """Writes a NumPy array (float32/float64/int32/int64/uint8, any rank
    1..6) as dataset `name` of an HDF5 file (atomic: the file appears whole;
    FdxError FDX_ERR_UNSUPPORTED in a build without HDF5), with its time and
    step as attributes, as the simulations' field files."""
    a = np.ascontiguousarray(array)
    if a.dtype not in DTYPES:
        raise TypeError(f"element type {a.dtype} is not one fdx writes: {', '.join(str(d) for d in DTYPES)}")
    check(lib.fdx_h5_write_field(str(path).encode(), name.encode(), a.ctypes.data, DTYPES[a.dtype], a.ndim,
                                 _i64(a.shape[::-1]), float(time), int(step)))


def read_field(path, name=None, shape=None):
    """Dataset `name` (None: the only or first one) of an HDF5 file (rank 1
    to 3) as a float64 NumPy array of the dataset's shape; with shape= any
    other shape is refused before the data is read.  The file is untrusted:
    it is read in a child process, its extents checked before any data is read."""
    p = ctypes.POINTER(ctypes.c_double)()
    rank = ctypes.c_int()
    dims = (ctypes.c_int64 * MAX_RANK)()
    nm = None if name is None else name.encode()
    if shape is not None:
        want = tuple(int(n) for n in shape)
        rank.value = len(want)
        dims[:len(want)] = want[::-1]
        check(lib.fdx_h5_read_field_shaped(str(path).encode(), nm, len(want), dims, ctypes.byref(p)))
    else:
        check(lib.fdx_h5_read_field(str(path).encode(), nm, ctypes.byref(p), ctypes.byref(rank), dims))
    shape = dims
    try:
        dims = tuple(shape[:rank.value])[::-1]
        n = int(np.prod(dims))
        return np.ctypeslib.as_array(p, shape=(n,)).reshape(dims).copy()
    finally:
        _libc.free(p)


__all__ = ["write_field", "read_field"]
