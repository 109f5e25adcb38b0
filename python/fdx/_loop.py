"""Parallel loops with C bodies (include/fdx/loop.h), over NumPy/CuPy/torch arrays.

In a body, A(k, j, i) is the element A[k, j, i] of the array named A: the
indices are NumPy's, whatever the array's strides (they become its layout).
"""
import ctypes

from ._array import asarray, _i64
from ._core import context, stream_pointer
from ._lib import lib, check, Handle, _release

ACCESS = {"r": 1, "read": 1, "w": 2, "write": 2, "rw": 3, "read_write": 3}
REDUCE = {"sum": 0, "max": 1, "min": 2, "maxloc": 3, "minloc": 4}


class Loop:
    """A loop over `indices` ("k,j,i": index 0 first, the innermost of the
    sequential nest) running `body` (C statements) for every point of the
    range: lo <= idx < hi, or, when range is None, the whole extent of the
    first array (loop index d over its axis d).

    arrays: {name: (array, "r"|"w"|"rw")}; scalars: {name: value} (doubles,
    changed later with loop.set(name, value) without recompiling);
    reductions: {name: "sum"|"max"|"min"|"maxloc"|"minloc"}; across: the
    ACROSS widths per index (a sweep that reads its neighbours' new values,
    run as hyperplanes with the sequential result)."""

    def __init__(self, indices, body, arrays, scalars=None, reductions=None, range=None, across=None, name=None,
                 autotfm=None, ctx=None):
        self.ctx = ctx or context()
        self._h = ctypes.c_void_p()
        check(lib.fdx_loop_create(self.ctx.handle, indices.encode(), ctypes.byref(self._h)))
        self._handle = Handle(self._h, lib.fdx_loop_destroy, [self.ctx._handle])
        self.rank = len(indices.split(","))
        if name:
            check(lib.fdx_loop_name(self._h, name.encode()))
        self._arrays = {}
        first = None
        for nm, spec in arrays.items():
            obj, access = spec if isinstance(spec, tuple) else (spec, "rw")
            if access not in ACCESS:
                raise ValueError(f"access {access!r} of array {nm} is not one of r, w, rw")
            a = asarray(obj, self.ctx)
            self._arrays[nm] = a
            check(lib.fdx_loop_array(self._h, nm.encode(), a.handle("numpy"), ACCESS[access]))
            first = first or a
        if range is not None:
            lo, hi = range
            if len(lo) != self.rank or len(hi) != self.rank:
                raise ValueError(f"range needs {self.rank} lower and upper bounds")
            check(lib.fdx_loop_range(self._h, _i64(lo), _i64(hi)))
        elif first is not None:
            check(lib.fdx_loop_on(self._h, first.handle("numpy"), None))
        for nm, v in (scalars or {}).items():
            self.set(nm, v)
        self.reductions = dict(reductions or {})
        for nm, op in self.reductions.items():
            if op not in REDUCE:
                raise ValueError(f"reduction {op!r} of {nm} is not one of {sorted(REDUCE)}")
            check(lib.fdx_loop_reduction(self._h, nm.encode(), REDUCE[op]))
        if across is not None:
            check(lib.fdx_loop_across(self._h, (ctypes.c_int * self.rank)(*across)))
        if autotfm is not None:
            check(lib.fdx_loop_set_autotfm(self._h, {"off": 0, "on": 1, "force": 2}.get(autotfm, autotfm)))
        check(lib.fdx_loop_body(self._h, body.encode()))

    def __del__(self):
        _release(self)

    def set(self, name, value):
        check(lib.fdx_loop_scalar(self._h, name.encode(), float(value)))

    def run(self, times=1, stream=None):
        """Runs the loop `times` times (sweeps); returns the reductions of the
        last: {name: value}, or {name: (value, (indices...))} for *loc."""
        check(lib.fdx_loop_run_repeated(self._h, int(times), ctypes.c_void_p(stream_pointer(stream))))
        return self.results()

    def results(self):
        out = {}
        for nm, op in self.reductions.items():
            v = ctypes.c_double()
            if op.endswith("loc"):
                loc = (ctypes.c_int64 * self.rank)()
                check(lib.fdx_loop_result(self._h, nm.encode(), ctypes.byref(v), loc))
                out[nm] = (v.value, tuple(loc[:]))
            else:
                check(lib.fdx_loop_result(self._h, nm.encode(), ctypes.byref(v), None))
                out[nm] = v.value
        return out
