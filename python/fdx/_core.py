"""Contexts, options, devices and the library's version."""
import ctypes

from ._lib import lib, check, Handle, Options, _release, _fn, _S

_fn("fdx_log_set_level", None, ctypes.c_int)
_fn("fdx_log_get_level", ctypes.c_int)
_fn("fdx_log_level_parse", _S, ctypes.c_char_p, ctypes.POINTER(ctypes.c_int))
_fn("fdx_knob_count", ctypes.c_int)
_fn("fdx_knob_describe", None, ctypes.c_int, *[ctypes.POINTER(ctypes.c_char_p)] * 3)
_fn("fdx_host_memory_available", ctypes.c_double, ctypes.POINTER(ctypes.c_char_p))
LOG_LEVELS = ["debug", "info", "warn", "error", "off"]

BACKENDS = ["auto", "cpu", "cuda"]


def version():
    """The loaded libfdx's version as (major, minor, patch)."""
    v = lib.fdx_version()
    return (v // 10000, v // 100 % 100, v % 100)


def version_string():
    return lib.fdx_version_string().decode()


def options():
    """Every option (the CLI's flags, FDX_* variables): {name: (env, default, help)}."""
    out = {}
    for i in range(lib.fdx_options_count()):
        f = [ctypes.c_char_p() for _ in range(4)]
        lib.fdx_options_describe(i, *[ctypes.byref(x) for x in f])
        name, env, default, help_ = [(x.value or b"").decode() for x in f]
        out[name] = (env, default, help_)
    return out


def log_level(level=None):
    """The library's log level ("debug", "info", "warn", "error", "off");
    with an argument, sets it first (the C parser's names)."""
    if level is not None:
        v = ctypes.c_int()
        if lib.fdx_log_level_parse(str(level).encode(), ctypes.byref(v)) != 0:
            raise ValueError(lib.fdx_last_error().decode(errors="replace"))
        lib.fdx_log_set_level(v.value)
    return LOG_LEVELS[lib.fdx_log_get_level()]


def knobs():
    """The expert environment variables (speed switches that never change
    results): {variable: (help, value now or None)}."""
    out = {}
    for i in range(lib.fdx_knob_count()):
        f = [ctypes.c_char_p() for _ in range(3)]
        lib.fdx_knob_describe(i, *[ctypes.byref(x) for x in f])
        env, help_, value = [None if x.value is None else x.value.decode() for x in f]
        out[env] = (help_ or "", value)
    return out


def host_memory_available():
    """(bytes of host memory this process can still take, where the figure comes from)."""
    what = ctypes.c_char_p()
    n = lib.fdx_host_memory_available(ctypes.byref(what))
    return n, (what.value or b"").decode()


def cuda_device_count():
    return lib.fdx_cuda_device_count()


def built_with_cuda():
    return bool(lib.fdx_built_with_cuda())


class Context:
    """A backend and device with their options (backend, device, cache-dir,
    tune, threads, log, autotfm, ...: see fdx.options()); keyword names use
    underscores or dashes.  Unset options come from FDX_* variables, then
    defaults."""

    def __init__(self, backend=None, **opts):
        self._h = ctypes.c_void_p()
        if backend is not None:
            opts["backend"] = backend
        with Options(opts) as o:
            check(lib.fdx_ctx_create(o, ctypes.byref(self._h)))
        self._handle = Handle(self._h, lib.fdx_ctx_destroy)  # arrays, loops, stencils retain it
        self._stream_owner = None
        self._views = {}  # the call cache (fdx._array._entry): id(array) -> [weakref, reader, signature, Array, wrap]

    def __del__(self):
        _release(self)

    @property
    def handle(self):
        return self._h

    @property
    def backend(self):
        return BACKENDS[lib.fdx_ctx_backend(self._h)]

    @property
    def device_name(self):
        return lib.fdx_ctx_device_name(self._h).decode()

    @property
    def memory(self):
        """Bytes of device memory (host RAM on the CPU backend)."""
        return lib.fdx_ctx_memory(self._h)

    def option(self, name):
        v = lib.fdx_options_get(lib.fdx_ctx_options(self._h), name.replace("_", "-").encode())
        return None if v is None else v.decode()

    @property
    def stream(self):
        """The CUDA stream (an integer cudaStream_t, 0 for the default) every
        call given no stream runs on: set it to torch.cuda.current_stream().cuda_stream
        or a cupy stream's .ptr (or assign the stream object itself)."""
        return lib.fdx_ctx_get_stream(self._h) or 0

    @stream.setter
    def stream(self, s):
        ptr = stream_pointer(s)
        check(lib.fdx_ctx_set_stream(self._h, ctypes.c_void_p(ptr)))
        self._stream_owner = s  # kept alive while the context uses it

    def synchronize(self):
        """Waits for the work queued on the context's stream."""
        check(lib.fdx_ctx_sync(self._h))

    def copy_bandwidth(self, nbytes=64 << 20, reps=10):
        """Copy bandwidth of the device in GB/s (bytes read plus written)."""
        gbps = ctypes.c_double()
        check(lib.fdx_copy_bandwidth(self._h, nbytes, reps, None, ctypes.byref(gbps)))
        return gbps.value

    def info(self):
        return {"backend": self.backend, "device": self.device_name, "memory": self.memory,
                "cache_dir": self.option("cache-dir"), "tune": self.option("tune")}

    def __repr__(self):
        return f"fdx.Context(backend={self.backend!r}, device={self.device_name!r})"


def stream_pointer(s):
    """An integer cudaStream_t from None, an int, or a CuPy/PyTorch stream."""
    if s is None:
        return 0
    if isinstance(s, int):
        return s
    for attr in ("cuda_stream", "ptr", "handle"):
        v = getattr(s, attr, None)
        if isinstance(v, int):
            return v
    raise TypeError(f"cannot take a CUDA stream from {type(s).__name__}: give an int, "
                    "a torch.cuda.Stream or a cupy.cuda.Stream")


_default = None


def context():
    """The default context (backend from FDX_BACKEND, else auto), created on
    first use."""
    global _default
    if _default is None:
        _default = Context()
    return _default


def set_context(ctx):
    """Makes ctx the default context (None: a fresh one on next use)."""
    global _default
    _default = ctx


def info():
    """Backends and devices: what `fdx info` prints, as a dict."""
    return {"version": version_string(), "built_with_cuda": built_with_cuda(),
            "cuda_devices": cuda_device_count(), "host_memory_available": host_memory_available()[0], "library": __import__("fdx._lib").
            _lib.path, "context": context().info()}
