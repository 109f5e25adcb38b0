"""Distributed loops (include/fdx/dist.h, fdx_dloop_*): a loop with a C body
run on every unit's block of an fdx.Dist, with DVMH's meaning (docs/LOOPS.md):
the range is global, each unit runs the part it owns, the body sees global
indices, shadows are renewed before a loop reads an array a distributed loop
wrote, reductions are global and the same on every unit and rank, ACROSS
sweeps give the sequential nest's result on any grid of units.

Indices are NumPy's, as everywhere in this package: a loop "k,j,i" over an
fdx.Dist of shape (nz, ny, nx) is the nest `for k: for j: for i:` (the last
index innermost), `A(k, j, i)` in the body is the element A[k, j, i] of the
global array, and ranges, widths, orders, shifts, boxes and locations are
given and returned in that order.  The C library orders everything the
other way (first index fastest); this module turns the arguments around and
rewrites the accessors of the loop's arrays in the body (`A(k, j, i)` becomes
the C body's `A(i, j, k)`; a component array of NumPy shape (nz, ny, nx, nc)
is read `A(k, j, i, c)`).  With index_order="grid" the body, the indices and
every tuple are passed as the C API takes them (first index fastest)."""
import ctypes
import re

import numpy as np

from ._array import _i64
from ._dist import Dist, DistArray
from ._lib import lib, check, Handle, _release
from ._loop import (ACCESS, AUTOTFM, REDUCE, RESULT_TYPES, per_index, reduction_specs, across_widths, directions, c_ints,
                    read_results)


def _declare():
    from ._lib import _fn, _P, _S
    i64p = ctypes.POINTER(ctypes.c_int64)
    intp = ctypes.POINTER(ctypes.c_int)
    _fn("fdx_dloop_create", _S, _P, ctypes.c_char_p, ctypes.POINTER(_P))
    _fn("fdx_dloop_destroy", None, ctypes.POINTER(_P))
    _fn("fdx_dloop_range", _S, _P, i64p, i64p)
    _fn("fdx_dloop_array", _S, _P, ctypes.c_char_p, _P, ctypes.c_int)
    _fn("fdx_dloop_array_aligned", _S, _P, ctypes.c_char_p, _P, ctypes.c_int, i64p)
    _fn("fdx_dloop_scalar", _S, _P, ctypes.c_char_p, ctypes.c_double)
    _fn("fdx_dloop_reduction_typed", _S, _P, ctypes.c_char_p, ctypes.c_int, ctypes.c_int)
    _fn("fdx_dloop_across", _S, _P, intp, intp)
    _fn("fdx_dloop_order", _S, _P, intp)
    _fn("fdx_dloop_set_portions", _S, _P, ctypes.c_int)
    _fn("fdx_dloop_body", _S, _P, ctypes.c_char_p)
    _fn("fdx_dloop_remote_box", _S, _P, ctypes.c_char_p, _P, i64p, i64p)
    _fn("fdx_dloop_remote_points", _S, _P, ctypes.c_char_p, _P, ctypes.c_int, i64p)
    _fn("fdx_dloop_run_repeated", _S, _P, ctypes.c_int)
    _fn("fdx_dloop_result_loc", _S, _P, ctypes.c_char_p, ctypes.POINTER(ctypes.c_double), i64p)
    _fn("fdx_dloop_result_int", _S, _P, ctypes.c_char_p, i64p, i64p)
    _fn("fdx_dloop_exchanges", ctypes.c_int, _P)
    _fn("fdx_dloop_portions", ctypes.c_int, _P)
    _fn("fdx_dloop_set_autotfm", _S, _P, ctypes.c_int)
    from ._loop import LoopMoves
    _fn("fdx_dloop_move_stats", _S, _P, ctypes.POINTER(LoopMoves))
    _fn("fdx_dloop_plan_for", _S, _P, ctypes.c_int)


_declare()

_IDENT = re.compile(r"[A-Za-z_]\w*")


def reverse_accessors(body, names):
    """The body with the arguments of every call `name(a, b, c)` of the given
    names turned around (`name(c, b, a)`), nested calls included; comments,
    string and character literals and member names (`.name`, `->name`) are
    left alone.  Each argument keeps the whitespace around its slot, so line
    numbers in compiler messages stay the body's."""
    names = set(names)
    out, i, n = [], 0, len(body)
    while i < n:
        c = body[i]
        if body.startswith("//", i) or body.startswith("/*", i):
            end = body.find("\n" if c == "/" and body[i + 1] == "/" else "*/", i + 2)
            end = n if end < 0 else end + (0 if body[i + 1] == "/" else 2)
            out.append(body[i:end])
            i = end
        elif c in "\"'":
            j = i + 1
            while j < n and body[j] != c:
                j += 2 if body[j] == "\\" else 1
            out.append(body[i:j + 1])
            i = j + 1
        elif c.isalpha() or c == "_":
            m = _IDENT.match(body, i)
            word, j = m.group(), m.end()
            k = j
            while k < n and body[k] in " \t":
                k += 1
            member = body[max(0, i - 1)] == "." or body[max(0, i - 2):i] == "->"
            if word in names and not member and k < n and body[k] == "(":
                args, close = _split_args(body, k + 1)
                slots = [(a[:len(a) - len(a.lstrip())], a.strip(), a[len(a.rstrip()):]) for a in args]
                texts = [reverse_accessors(t, names) for _, t, _ in slots][::-1]
                out.append(body[i:k + 1] + ",".join(lead + t + trail for (lead, _, trail), t in zip(slots, texts))
                           + ")")
                i = close + 1
            else:
                out.append(word)
                i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _split_args(body, start):
    """The top-level comma-separated arguments from `start` (just after a
    '(') to the matching ')', and that parenthesis's position."""
    depth, args, cur = 0, [], start
    i = start
    while i < len(body):
        c = body[i]
        if c in "\"'":
            j = i + 1
            while j < len(body) and body[j] != c:
                j += 2 if body[j] == "\\" else 1
            i = j
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                args.append(body[cur:i])
                return args, i
            depth -= 1
        elif c == "," and depth == 0:
            args.append(body[cur:i])
            cur = i + 1
        i += 1
    raise ValueError(f"unbalanced parentheses in the loop body after {body[max(0, start - 20):start]!r}")


class DistLoop:
    """A distributed loop over `indices` ("k,j,i": one name per axis of the
    grid, NumPy's order, the last innermost) running `body` (C statements) on
    every unit's part of the global range: lo <= idx < hi (range=(lo, hi)),
    or the whole grid.

    arrays: {name: (DistArray, "r"|"w"|"rw")} or {name: (DistArray, access,
    shift)}: ALIGN with a shift, `name(x)` is the element stored at global
    index x + shift.  scalars: {name: value} (doubles; loop.set(name, v)
    changes one without recompiling).  reductions: {name: op} or {name: (op,
    type)}: op sum, prod, max, min, maxloc, minloc, and, or; type float64
    (default), float32, int32, int64 (integer results are exact Python ints).
    across: ACROSS widths (an int for every index, one int per index, or
    (low, high), two sequences of per-index widths): a sweep that reads its
    neighbours' new values; its result is the sequential nest's on any grid
    of units.  order: +1 / -1 per index (or one int for all): -1 runs that
    index descending.  portions: portions a block of an ACROSS loop (0: the
    model).  remote: {name: (DistArray, box)} with box a tuple of ints and
    slices (numpy.s_[:, 5]: the body reads name(j, 5) at global indices), or
    {name: (DistArray, points)} with points an (n, rank) integer array (the
    body reads name(q), or name(q, c) for a component array): elements that
    other units own, fetched before every run.  autotfm: "off", "on" or
    "force": each unit's block takes the layout its loops want (default: the
    context option autotfm)."""

    def __init__(self, dist, indices, body, arrays, scalars=None, reductions=None, range=None, across=None,
                 order=None, portions=None, remote=None, index_order="numpy", autotfm=None):
        if not isinstance(dist, Dist):
            raise TypeError(f"dist must be an fdx.Dist, not {type(dist).__name__}")
        if index_order not in ("numpy", "grid"):
            raise ValueError(f"index_order {index_order!r} is not 'numpy' or 'grid'")
        self.dist, self._flip = dist, index_order == "numpy"
        names = [s.strip() for s in indices.split(",")]
        self.rank = len(names)
        if self.rank != len(dist.shape):
            raise ValueError(f"a distributed loop needs one index per grid axis: {len(dist.shape)}, "
                             f"not {self.rank} ('{indices}')")
        self._h = ctypes.c_void_p()
        check(lib.fdx_dloop_create(dist._h, ",".join(self._c(names)).encode(), ctypes.byref(self._h)))
        self._handle = Handle(self._h, lib.fdx_dloop_destroy, [dist._handle])
        self._keep = []  # darrays the loop points to stay alive with it
        for nm, spec in arrays.items():
            a, access, shift = (tuple(spec) + (None, None))[:3] if isinstance(spec, tuple) else (spec, "rw", None)
            self._darray(nm, a)
            if access not in ACCESS:
                raise ValueError(f"access {access!r} of array {nm} is not one of r, w, rw")
            if shift is None:
                check(lib.fdx_dloop_array(self._h, nm.encode(), a._h, ACCESS[access]))
            else:
                sh = self._c(per_index(shift, self.rank, f"shift of {nm}"))
                check(lib.fdx_dloop_array_aligned(self._h, nm.encode(), a._h, ACCESS[access], _i64(sh)))
        if range is not None:
            lo, hi = range
            lo, hi = per_index(lo, self.rank, "range's lower bound"), per_index(hi, self.rank, "range's upper bound")
            check(lib.fdx_dloop_range(self._h, _i64(self._c(lo)), _i64(self._c(hi))))
        for nm, v in (scalars or {}).items():
            self.set(nm, v)
        self.reductions = reduction_specs(reductions)
        for nm, (op, typ) in self.reductions.items():
            check(lib.fdx_dloop_reduction_typed(self._h, nm.encode(), REDUCE[op], RESULT_TYPES[typ]))
        if across is not None:
            low, high = across_widths(across, self.rank)
            check(lib.fdx_dloop_across(self._h, c_ints(self._c(low)), c_ints(self._c(high))))
        if order is not None:
            check(lib.fdx_dloop_order(self._h, c_ints(self._c(directions(order, self.rank)))))
        if portions is not None:
            check(lib.fdx_dloop_set_portions(self._h, int(portions)))
        if autotfm is not None:
            if autotfm not in AUTOTFM:
                raise ValueError(f"autotfm {autotfm!r} is not one of {', '.join(AUTOTFM)}")
            check(lib.fdx_dloop_set_autotfm(self._h, AUTOTFM[autotfm]))
        for nm, (a, where) in (remote or {}).items():
            self._darray(nm, a)
            self._remote(nm, a, where)
        accessors = list(arrays) + list(remote or {})
        self.body = reverse_accessors(body, accessors) if self._flip else body
        check(lib.fdx_dloop_body(self._h, self.body.encode()))

    def _c(self, per_index):
        """Per-index values in the C library's order."""
        return list(per_index)[::-1] if self._flip else list(per_index)

    def _darray(self, nm, a):
        if not isinstance(a, DistArray):
            raise TypeError(f"array {nm} must be an fdx.DistArray (dist.array()), not {type(a).__name__}")
        if a.dist is not self.dist:
            raise ValueError(f"array {nm} belongs to another fdx.Dist")
        self._keep.append(a)
        self._handle.deps.append(a._handle.retain())  # their C arrays too, whatever order the collector takes

    def _remote(self, nm, a, where):
        shape = self.dist.shape if self._flip else self.dist.shape[::-1]
        if isinstance(where, tuple) and len(where) == self.rank and all(
                isinstance(s, slice) or np.isscalar(s) for s in where):
            lo, hi = [], []
            for ax, s in enumerate(where):
                if isinstance(s, slice):
                    if s.step not in (None, 1):
                        raise ValueError(f"remote box of {nm}: slices with steps are not boxes")
                    # (not clipped as NumPy would: a box beyond the grid is refused)
                    b, e = [d if v is None else int(v) + shape[ax] if int(v) < 0 else int(v)
                            for v, d in ((s.start, 0), (s.stop, shape[ax]))]
                else:
                    b = int(s) + shape[ax] if int(s) < 0 else int(s)
                    e = b + 1
                lo.append(b)
                hi.append(e)
            check(lib.fdx_dloop_remote_box(self._h, nm.encode(), a._h, _i64(self._c(lo)), _i64(self._c(hi))))
            return
        pts = np.asarray(where)
        if pts.ndim != 2 or pts.shape[1] != self.rank or pts.dtype.kind not in "iu":
            raise ValueError(f"remote {nm}: give a box (a tuple of {self.rank} ints or slices) or an (n, {self.rank}) "
                             f"integer array of points, not {type(where).__name__} of shape {pts.shape}")
        c = np.ascontiguousarray((pts[:, ::-1] if self._flip else pts).astype(np.int64))
        check(lib.fdx_dloop_remote_points(self._h, nm.encode(), a._h, len(c),
                                          c.ctypes.data_as(ctypes.POINTER(ctypes.c_int64))))

    def __del__(self):
        _release(self)

    def set(self, name, value):
        """A scalar's value for the next runs (no recompilation)."""
        check(lib.fdx_dloop_scalar(self._h, name.encode(), float(value)))

    def run(self, times=1):
        """Runs the loop `times` times in a row (sweeps) on every unit;
        returns the reductions of the last run (results())."""
        check(lib.fdx_dloop_run_repeated(self._h, int(times)))
        return self.results()

    def results(self):
        """{name: value} (a float, or an int for integer reductions), and
        {name: (value, (global indices))} for maxloc / minloc."""
        h = self._h
        return read_results(self.reductions, self.rank, lambda *a: lib.fdx_dloop_result_loc(h, *a),
                            lambda *a: lib.fdx_dloop_result_int(h, *a), self._c)

    def move_stats(self):
        """What autotfm moved on this process's units so far: {transforms, relabels, bytes}."""
        from ._loop import move_stats
        return move_stats(lib.fdx_dloop_move_stats, self._h)

    def plan_for(self, target):
        """Plan every unit's block as for `target` ("cpu", "cuda", "auto")."""
        from ._loop import BACKEND_KINDS
        check(lib.fdx_dloop_plan_for(self._h, BACKEND_KINDS[target]))

    @property
    def exchanges(self):
        """Shadow renewals this loop has made."""
        return lib.fdx_dloop_exchanges(self._h)

    @property
    def portions(self):
        """Portions a block of the last ACROSS run."""
        return lib.fdx_dloop_portions(self._h)
