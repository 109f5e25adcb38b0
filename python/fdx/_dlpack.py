"""DLPack (the tensor exchange of CuPy, PyTorch, JAX, NumPy >= 1.22) in ctypes:
reading a producer's capsule, and making capsules of fdx arrays."""
import ctypes

KDL_CPU, KDL_CUDA, KDL_CUDA_HOST, KDL_CUDA_MANAGED = 1, 2, 3, 13
KDL_INT, KDL_UINT, KDL_FLOAT = 0, 1, 2


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class DLManagedTensor(ctypes.Structure):
    pass


_Deleter = ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensor))
DLManagedTensor._fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", _Deleter)]

_api = ctypes.pythonapi
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_SetName.restype = ctypes.c_int
_api.PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_IsValid.restype = ctypes.c_int
_api.PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]
_Destructor = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_api.PyCapsule_New.restype = ctypes.py_object
_api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, _Destructor]

_NUMPY_OF = {(KDL_FLOAT, 32): "float32", (KDL_FLOAT, 64): "float64", (KDL_INT, 32): "int32",
             (KDL_INT, 64): "int64", (KDL_UINT, 8): "uint8"}


class Imported:
    """A consumed capsule: its tensor's fields, and the producer's memory
    kept alive until this object goes (then the producer's deleter runs)."""

    def __init__(self, capsule):
        p = _api.PyCapsule_GetPointer(capsule, b"dltensor")
        self._m = ctypes.cast(p, ctypes.POINTER(DLManagedTensor))
        _api.PyCapsule_SetName(capsule, b"used_dltensor")
        t = self._m.contents.dl_tensor
        self.device_type, self.device_id = t.device.device_type, t.device.device_id
        key = (t.dtype.code, t.dtype.bits)
        if t.dtype.lanes != 1 or key not in _NUMPY_OF:
            self.close()
            raise TypeError(f"DLPack element type code {t.dtype.code} bits {t.dtype.bits} lanes {t.dtype.lanes}: "
                            "fdx takes float32, float64, int32, int64 and uint8")
        self.dtype = _NUMPY_OF[key]
        self.shape = tuple(t.shape[i] for i in range(t.ndim))
        self.strides = None if not t.strides else tuple(t.strides[i] for i in range(t.ndim))  # elements
        self.ptr = (t.data or 0) + t.byte_offset

    def close(self):
        m, self._m = getattr(self, "_m", None), None
        if m and m.contents.deleter:
            m.contents.deleter(m)

    def __del__(self):
        self.close()


_live = {}  # address of an exported DLManagedTensor -> what it keeps alive


@_Deleter
def _delete(m):
    _live.pop(ctypes.addressof(m.contents), None)


@_Destructor
def _capsule_gone(cap):
    obj = ctypes.cast(cap, ctypes.py_object)
    if _api.PyCapsule_IsValid(obj, b"dltensor"):  # never consumed: we free it
        p = _api.PyCapsule_GetPointer(obj, b"dltensor")
        _live.pop(p, None)


def export(owner, ptr, shape, strides, dtype, device_type, device_id):
    """A "dltensor" capsule over ptr; owner stays alive until the consumer
    calls the deleter (or the capsule dies unconsumed)."""
    import numpy as np
    dt = np.dtype(dtype)
    code = {"f": KDL_FLOAT, "i": KDL_INT, "u": KDL_UINT}[dt.kind]
    n = len(shape)
    m = DLManagedTensor()
    sh = (ctypes.c_int64 * n)(*shape)
    st = (ctypes.c_int64 * n)(*strides)
    m.dl_tensor.data = ptr
    m.dl_tensor.device = DLDevice(device_type, device_id)
    m.dl_tensor.ndim = n
    m.dl_tensor.dtype = DLDataType(code, dt.itemsize * 8, 1)
    m.dl_tensor.shape = sh
    m.dl_tensor.strides = st
    m.dl_tensor.byte_offset = 0
    m.deleter = _delete
    _live[ctypes.addressof(m)] = (m, sh, st, owner)
    return _api.PyCapsule_New(ctypes.addressof(m), b"dltensor", _capsule_gone)
