"""Parallel loops with C bodies (include/fdx/loop.h), over NumPy/CuPy/torch arrays.

In a body, A(k, j, i) is the element A[k, j, i] of the array named A: the
indices are NumPy's, whatever the array's strides (they become its layout).
"""
import ctypes

import numpy as np

from ._array import asarray, _i64
from ._core import context, stream_pointer
from ._lib import lib, check, Handle, _release, _fn, _P, _S


class LoopMoves(ctypes.Structure):
    """Mirror of fdx_loop_moves."""
    _fields_ = [("transforms", ctypes.c_int64), ("relabels", ctypes.c_int64), ("bytes", ctypes.c_int64)]


BACKEND_KINDS = {"auto": 0, "cpu": 1, "cuda": 2}
_fn("fdx_loop_move_stats", _S, _P, ctypes.POINTER(LoopMoves))
_fn("fdx_loop_plan_for", _S, _P, ctypes.c_int)
_fn("fdx_loop_array_origin", _S, _P, ctypes.c_char_p, ctypes.POINTER(ctypes.c_int64))

ACCESS = {"r": 1, "read": 1, "w": 2, "write": 2, "rw": 3, "read_write": 3}
REDUCE = {"sum": 0, "max": 1, "min": 2, "maxloc": 3, "minloc": 4, "prod": 5, "and": 6, "or": 7}
RESULT_TYPES = {"float32": 0, "float64": 1, "int32": 2, "int64": 3}
MAX_INDICES = 4
AUTOTFM = {"off": 0, "on": 1, "force": 2}


# ---- what loops on one unit (Loop) and distributed loops (DistLoop) share ----
def per_index(values, rank, what, lo=None):
    """A list of `rank` ints from one int (for every index) or a sequence."""
    if np.isscalar(values):
        values = [values] * rank
    values = [int(v) for v in values]
    if len(values) != rank:
        raise ValueError(f"{what} has {len(values)} entries for {rank} loop indices")
    if lo is not None and any(v < lo for v in values):
        raise ValueError(f"{what} {tuple(values)} has an entry below {lo}")
    return values


def reduction_specs(reductions):
    """{name: op} or {name: (op, type)} as {name: (op, type name)}, checked."""
    out = {}
    for nm, spec in (reductions or {}).items():
        op, typ = spec if isinstance(spec, tuple) else (spec, "float64")
        if op not in REDUCE:
            raise ValueError(f"reduction {op!r} of {nm} is not one of {', '.join(REDUCE)}")
        try:
            typ = np.dtype(typ).name
        except TypeError:
            pass
        if typ not in RESULT_TYPES:
            raise TypeError(f"reduction type {typ!r} of {nm} is not one of {', '.join(RESULT_TYPES)}")
        out[nm] = (op, typ)
    return out


def across_widths(across, rank):
    """ACROSS widths (low, high) per index from an int (every index, both
    sides), one int per index (both sides), or (low, high), two sequences."""
    if isinstance(across, tuple) and len(across) == 2 and all(not np.isscalar(x) for x in across):
        low, high = across
    else:
        low = high = across
    return per_index(low, rank, "ACROSS low widths", 0), per_index(high, rank, "ACROSS high widths", 0)


def directions(order, rank):
    dirs = per_index(order, rank, "order")
    if any(d not in (1, -1) for d in dirs):
        raise ValueError(f"order {tuple(dirs)}: each entry is +1 (ascending) or -1 (descending)")
    return dirs


def move_stats(fn, h):
    m = LoopMoves()
    check(fn(h, ctypes.byref(m)))
    return {"transforms": m.transforms, "relabels": m.relabels, "bytes": m.bytes}


def c_ints(values):
    return (ctypes.c_int * MAX_INDICES)(*values)


def read_results(reductions, rank, result_float, result_int, turn=list):
    """{name: value} (float, or int for integer reductions), {name: (value,
    (indices...))} for maxloc / minloc; result_float / result_int are the C
    getters bound to the loop (name, value*, loc*); turn orders the indices."""
    out = {}
    for nm, (op, typ) in reductions.items():
        loc = (ctypes.c_int64 * MAX_INDICES)()
        want_loc = op.endswith("loc")
        v = ctypes.c_int64() if typ.startswith("int") else ctypes.c_double()
        get = result_int if typ.startswith("int") else result_float
        check(get(nm.encode(), ctypes.byref(v), loc if want_loc else None))
        out[nm] = (v.value, tuple(turn(loc[:rank]))) if want_loc else v.value
    return out


class Loop:
    """A loop over `indices` ("k,j,i": index 0 first, the innermost of the
    sequential nest) running `body` (C statements) for every point of the
    range: lo <= idx < hi, or, when range is None, the whole extent of the
    first array (loop index d over its axis d).

    arrays: {name: (array, "r"|"w"|"rw")} or {name: (array, access,
    origin)}: ALIGN with a shift, element 0 of the array sits at loop index
    `origin` (the body's name(x) is element x - origin); scalars: {name: value} (doubles,
    changed later with loop.set(name, value) without recompiling);
    reductions: {name: op} or {name: (op, type)}: op sum, prod, max, min,
    maxloc, minloc, and, or; type float64 (default), float32, int32, int64
    (integer results are exact Python ints); across: the ACROSS widths (an
    int, one per index, or (low, high), two sequences: a sweep that reads its
    neighbours' new values, run as hyperplanes with the sequential result);
    order: +1 / -1 per index (-1: that index runs descending)."""

    def __init__(self, indices, body, arrays, scalars=None, reductions=None, range=None, across=None, name=None,
                 autotfm=None, ctx=None, order=None):
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
            spec = spec if isinstance(spec, tuple) else (spec, "rw")
            if len(spec) not in (2, 3):
                raise ValueError(f"array {nm}: give (array, access) or (array, access, origin)")
            obj, access = spec[:2]
            if access not in ACCESS:
                raise ValueError(f"access {access!r} of array {nm} is not one of r, w, rw")
            a = asarray(obj, self.ctx)
            self._arrays[nm] = a
            check(lib.fdx_loop_array(self._h, nm.encode(), a.handle("numpy"), ACCESS[access]))
            if len(spec) == 3:
                org = per_index(spec[2], a.ndim, f"origin of {nm}")
                check(lib.fdx_loop_array_origin(self._h, nm.encode(), _i64(org)))
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
        self.reductions = reduction_specs(reductions)
        for nm, (op, typ) in self.reductions.items():
            check(lib.fdx_loop_reduction_typed(self._h, nm.encode(), REDUCE[op], RESULT_TYPES[typ]))
        if across is not None:
            low, high = across_widths(across, self.rank)
            check(lib.fdx_loop_across_widths(self._h, c_ints(low), c_ints(high)))
        if order is not None:
            check(lib.fdx_loop_order(self._h, c_ints(directions(order, self.rank))))
        if autotfm is not None:
            check(lib.fdx_loop_set_autotfm(self._h, AUTOTFM.get(autotfm, autotfm)))
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

    def move_stats(self):
        """What autotfm moved so far: {transforms, relabels, bytes}."""
        return move_stats(lib.fdx_loop_move_stats, self._h)

    def plan_for(self, target):
        """Plan (and reorganize) as for `target` ("cpu", "cuda", "auto") on every later run."""
        check(lib.fdx_loop_plan_for(self._h, BACKEND_KINDS[target]))

    def results(self):
        h = self._h
        return read_results(self.reductions, self.rank, lambda *a: lib.fdx_loop_result(h, *a),
                            lambda *a: lib.fdx_loop_result_int(h, *a))
