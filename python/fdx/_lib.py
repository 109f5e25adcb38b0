"""Loading libfdx and declaring its functions for ctypes.

The shared library is looked for, in order: the directory named by the
environment variable FDX_LIBRARY_DIR; next to this package (fdx/libfdx.so);
the build tree of the repository the package sits in (../build/lib); then the
dynamic loader's path (LD_LIBRARY_PATH, ldconfig: "libfdx.so.0").
"""
import ctypes
import os

c_int64_p = ctypes.POINTER(ctypes.c_int64)
_here = os.path.dirname(os.path.abspath(__file__))


class FdxError(RuntimeError):
    """An fdx call failed: `status` is the fdx_status name ("FDX_ERR_INVALID",
    ...), `code` its number, and the message is fdx_last_error()'s sentence."""

    def __init__(self, code, name, message):
        super().__init__(f"{message} [{name}]" if message else name)
        self.code = code
        self.status = name
        self.message = message


STATUS_NAMES = ["FDX_OK", "FDX_ERR_INVALID", "FDX_ERR_NOMEM", "FDX_ERR_NO_DEVICE", "FDX_ERR_CUDA",
                "FDX_ERR_COMPILE", "FDX_ERR_IO", "FDX_ERR_UNSUPPORTED", "FDX_ERR_MPI", "FDX_ERR_VERIFY",
                "FDX_ERR_INTERNAL"]


def _candidates():
    d = os.environ.get("FDX_LIBRARY_DIR")
    if d:
        yield os.path.join(d, "libfdx.so")
    yield os.path.join(_here, "libfdx.so")
    yield os.path.join(_here, "..", "..", "build", "lib", "libfdx.so")
    yield "libfdx.so.0"
    yield "libfdx.so"


def _load():
    tried = []
    explicit = os.environ.get("FDX_LIBRARY_DIR")
    for path in _candidates():
        if os.sep in path and not os.path.exists(path):
            tried.append(f"{path} (missing)")
            if explicit and path.startswith(explicit):
                raise ImportError(f"FDX_LIBRARY_DIR={explicit} holds no libfdx.so")
            continue
        try:
            return ctypes.CDLL(path), path
        except OSError as e:
            tried.append(f"{path} ({e})")
    raise ImportError("libfdx.so not found; set FDX_LIBRARY_DIR to the directory that holds it "
                      "(a build's lib/ or an install's lib/). Tried: " + "; ".join(tried))


lib, path = _load()
_P = ctypes.c_void_p
_S = ctypes.c_int  # fdx_status
_I64P = c_int64_p


def _fn(name, res, *args):
    f = getattr(lib, name)
    f.restype = res
    f.argtypes = list(args)
    return f


# core
_fn("fdx_strerror", ctypes.c_char_p, _S)
_fn("fdx_last_error", ctypes.c_char_p)
_fn("fdx_clear_error", None)
_fn("fdx_version", ctypes.c_int)
_fn("fdx_version_string", ctypes.c_char_p)
_fn("fdx_dtype_size", ctypes.c_size_t, ctypes.c_int)
_fn("fdx_options_create", _S, ctypes.POINTER(_P))
_fn("fdx_options_destroy", None, ctypes.POINTER(_P))
_fn("fdx_options_set", _S, _P, ctypes.c_char_p, ctypes.c_char_p)
_fn("fdx_options_get", ctypes.c_char_p, _P, ctypes.c_char_p)
_fn("fdx_options_count", ctypes.c_int)
_fn("fdx_options_describe", None, ctypes.c_int, *[ctypes.POINTER(ctypes.c_char_p)] * 4)
_fn("fdx_ctx_create", _S, _P, ctypes.POINTER(_P))
_fn("fdx_ctx_destroy", None, ctypes.POINTER(_P))
_fn("fdx_ctx_backend", ctypes.c_int, _P)
_fn("fdx_ctx_device_name", ctypes.c_char_p, _P)
_fn("fdx_ctx_options", _P, _P)
_fn("fdx_ctx_memory", ctypes.c_size_t, _P)
_fn("fdx_ctx_set_stream", _S, _P, _P)
_fn("fdx_ctx_get_stream", _P, _P)
_fn("fdx_ctx_sync", _S, _P)
_fn("fdx_cuda_device_count", ctypes.c_int)
_fn("fdx_built_with_cuda", ctypes.c_int)
_fn("fdx_copy_bandwidth", _S, _P, ctypes.c_size_t, ctypes.c_int, _P, ctypes.POINTER(ctypes.c_double))
# arrays
_fn("fdx_array_create", _S, _P, ctypes.c_int, ctypes.c_int, _I64P, ctypes.c_uint, ctypes.POINTER(_P))
_fn("fdx_array_wrap", _S, _P, ctypes.c_int, ctypes.c_int, _I64P, _I64P, _P, _P, ctypes.c_uint, ctypes.POINTER(_P))
_fn("fdx_array_destroy", None, ctypes.POINTER(_P))
_fn("fdx_array_host", _P, _P)
_fn("fdx_array_device", _P, _P)
_fn("fdx_array_strides", _S, _P, _I64P)
_fn("fdx_array_wrapped", ctypes.c_uint, _P)
_fn("fdx_array_get", _S, _P, _P)
_fn("fdx_array_put", _S, _P, _P)
_fn("fdx_array_rank", ctypes.c_int, _P)
_fn("fdx_array_extent", ctypes.c_int64, _P, ctypes.c_int)
_fn("fdx_array_dtype", ctypes.c_int, _P)
# stencils
_fn("fdx_stencil_desc_laplacian", None, _P, ctypes.c_int, ctypes.c_int, ctypes.POINTER(ctypes.c_double))
_fn("fdx_stencil_create", _S, _P, _P, ctypes.c_int, ctypes.POINTER(_P))
_fn("fdx_stencil_destroy", None, ctypes.POINTER(_P))
_fn("fdx_stencil_radius", ctypes.c_int, _P)
_fn("fdx_stencil_apply", _S, _P, _P, _P, _P, _P, _P)
_fn("fdx_stencil_config", ctypes.c_char_p, _P, _I64P)
_fn("fdx_fd_weights", _S, ctypes.c_int, ctypes.c_int, ctypes.POINTER(ctypes.c_double))
_fn("fdx_laplacian_apply", _S, _P, _P, ctypes.POINTER(ctypes.c_double), _P)
# transforms
_fn("fdx_permute", _S, _P, _P, _P, ctypes.c_size_t, ctypes.c_int, _I64P, ctypes.POINTER(ctypes.c_int), _P)
_fn("fdx_layout_convert", _S, _P, _P, _P, _P, _P, ctypes.c_size_t, ctypes.c_int, _I64P, _P)
_fn("fdx_layout_make", _S, ctypes.c_int, ctypes.POINTER(ctypes.c_int), ctypes.c_int, _P)
# loops
_fn("fdx_loop_create", _S, _P, ctypes.c_char_p, ctypes.POINTER(_P))
_fn("fdx_loop_destroy", None, ctypes.POINTER(_P))
_fn("fdx_loop_range", _S, _P, _I64P, _I64P)
_fn("fdx_loop_on", _S, _P, _P, ctypes.POINTER(ctypes.c_int))
_fn("fdx_loop_array", _S, _P, ctypes.c_char_p, _P, ctypes.c_int)
_fn("fdx_loop_scalar", _S, _P, ctypes.c_char_p, ctypes.c_double)
_fn("fdx_loop_reduction", _S, _P, ctypes.c_char_p, ctypes.c_int)
_fn("fdx_loop_across", _S, _P, ctypes.POINTER(ctypes.c_int))
_fn("fdx_loop_across_widths", _S, _P, ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_int))
_fn("fdx_loop_order", _S, _P, ctypes.POINTER(ctypes.c_int))
_fn("fdx_loop_reduction_typed", _S, _P, ctypes.c_char_p, ctypes.c_int, ctypes.c_int)
_fn("fdx_loop_result_int", _S, _P, ctypes.c_char_p, _I64P, _I64P)
_fn("fdx_loop_body", _S, _P, ctypes.c_char_p)
_fn("fdx_loop_name", _S, _P, ctypes.c_char_p)
_fn("fdx_loop_set_autotfm", _S, _P, ctypes.c_int)
_fn("fdx_loop_run_repeated", _S, _P, ctypes.c_int, _P)
_fn("fdx_loop_result", _S, _P, ctypes.c_char_p, ctypes.POINTER(ctypes.c_double), _I64P)
# simulations
_fn("fdx_sim_config_create", _S, ctypes.c_int, ctypes.POINTER(_P))
_fn("fdx_sim_config_destroy", None, ctypes.POINTER(_P))
_fn("fdx_sim_config_set", _S, _P, ctypes.c_char_p, ctypes.c_char_p)
_fn("fdx_sim_config_get", ctypes.c_char_p, _P, ctypes.c_char_p)
_fn("fdx_sim_config_key", ctypes.c_int, ctypes.c_int, ctypes.c_int, *[ctypes.POINTER(ctypes.c_char_p)] * 4)
_fn("fdx_sim_create", _S, _P, _P, ctypes.POINTER(_P))
_fn("fdx_sim_destroy", None, ctypes.POINTER(_P))
_fn("fdx_sim_step", _S, _P)
_fn("fdx_sim_steps_done", ctypes.c_int64, _P)
_fn("fdx_sim_time", ctypes.c_double, _P)
_fn("fdx_sim_dt", ctypes.c_double, _P)
_fn("fdx_sim_rank", ctypes.c_int, _P)
_fn("fdx_sim_shape", _I64P, _P)
_fn("fdx_sim_get_field", _S, _P, _P)
_fn("fdx_sim_set_field", _S, _P, _P, _P)
_fn("fdx_sim_receivers", _S, _P, ctypes.POINTER(ctypes.c_int), _I64P, ctypes.POINTER(ctypes.POINTER(ctypes.c_double)))


class SimDiag(ctypes.Structure):
    _fields_ = [(n, ctypes.c_double) for n in ("integral", "max_abs", "energy", "change", "sum", "l2")]


_fn("fdx_sim_diagnose", _S, _P, ctypes.POINTER(SimDiag))


class Handle:
    """A C object freed once its Python owner and every object that depends on
    it have let go: the garbage collector finalizes the objects of a cycle
    (a traceback holding a loop, its arrays and their context or grid; a
    context and the arrays its call cache holds) in any order, so a context
    or a grid must not be destroyed before the arrays, loops and stencils
    built on it.  deps: the Handles this one keeps alive (retained here, released after
    this one's destroy)."""

    def __init__(self, h, destroy, deps=()):
        self.h, self.destroy, self.count = h, destroy, 1
        self.deps = [d.retain() for d in deps]

    def retain(self):
        self.count += 1
        return self

    def release(self, _ref=ctypes.byref):
        self.count -= 1
        if self.count == 0:
            if self.h:
                self.destroy(_ref(self.h))
            for d in self.deps:
                d.release()
            self.deps = []


def _release(obj):
    """An object's __del__: lets go of its Handle (if it got one)."""
    h = getattr(obj, "_handle", None)
    if h is not None:
        obj._handle = None
        h.release()


class Options:
    """An fdx_options* made from keyword options (names with underscores or
    dashes, values as text) for the length of a with block."""

    def __init__(self, options):
        self.options = options

    def __enter__(self):
        self.o = ctypes.c_void_p()
        check(lib.fdx_options_create(ctypes.byref(self.o)))
        try:
            for k, v in self.options.items():
                check(lib.fdx_options_set(self.o, k.replace("_", "-").encode(), str(v).encode()))
        except BaseException:
            lib.fdx_options_destroy(ctypes.byref(self.o))
            raise
        return self.o

    def __exit__(self, *exc):
        lib.fdx_options_destroy(ctypes.byref(self.o))


def check(status):
    """Raises FdxError for a failed fdx_status, with fdx_last_error()'s message."""
    if status != 0:
        name = STATUS_NAMES[status] if 0 <= status < len(STATUS_NAMES) else f"status {status}"
        raise FdxError(status, name, lib.fdx_last_error().decode(errors="replace"))
    return status
