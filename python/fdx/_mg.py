"""Geometric multigrid for -lap u = f or -div(k grad u) = f (include/fdx/mg.h),
on NumPy (CPU) or CuPy / PyTorch (CUDA) float64 arrays, in NumPy's axis
order.  Boundary kinds per axis: "dirichlet" (vertex-centred: the first and
last points of the axis hold boundary values the solve keeps), "neumann"
(homogeneous, cell-centred), "periodic"."""
import ctypes

import numpy as np

from ._array import view, asarray, Array, HOST
from ._core import context
from ._lib import lib, check, Handle, Options, _release, _fn, _P, _S

COARSE_DIRECT, COARSE_SWEEPS = 0, 1

_I64P = ctypes.POINTER(ctypes.c_int64)
_fn("fdx_solver_create", _S, _P, ctypes.c_int, _I64P, ctypes.POINTER(_P))
_fn("fdx_solver_destroy", None, ctypes.POINTER(_P))
_fn("fdx_solver_set_method", _S, _P, ctypes.c_int)
_fn("fdx_solver_set_tolerance", _S, _P, ctypes.c_double)
_fn("fdx_solver_set_max_cycles", _S, _P, ctypes.c_int)
_fn("fdx_solver_set_cycle", _S, _P, ctypes.c_int)
_fn("fdx_solver_set_smoother", _S, _P, ctypes.c_int, ctypes.c_int, ctypes.c_int)
_fn("fdx_solver_set_coarse", _S, _P, ctypes.c_int, ctypes.c_int)
_fn("fdx_solver_set_bc", _S, _P, ctypes.c_int, ctypes.c_int)
_fn("fdx_solver_set_spacing", _S, _P, ctypes.POINTER(ctypes.c_double))
_fn("fdx_solver_set_order", _S, _P, ctypes.c_int)
_fn("fdx_solver_set_coefficient", _S, _P, _P)
_fn("fdx_solver_setup", _S, _P)
_fn("fdx_solver_solve", _S, _P, _P, _P)
_fn("fdx_solver_iterations", ctypes.c_int, _P)
_fn("fdx_solver_converged", ctypes.c_int, _P)
_fn("fdx_solver_residual_history", _S, _P, ctypes.POINTER(ctypes.POINTER(ctypes.c_double)),
    ctypes.POINTER(ctypes.c_int))
_fn("fdx_solver_work_units", ctypes.c_double, _P)
_fn("fdx_solver_levels", ctypes.c_int, _P)
_fn("fdx_solver_level_shape", _S, _P, ctypes.c_int, _I64P)
_fn("fdx_solver_create_dist", _S, _P, _P, ctypes.POINTER(_P))
_fn("fdx_solver_solve_dist", _S, _P, _P, _P)
_fn("fdx_solver_distributed_levels", ctypes.c_int, _P)
_IP = ctypes.POINTER(ctypes.c_int)
_NAMES = {"method": _fn("fdx_solver_method_name", ctypes.c_char_p, ctypes.c_int),
          "cycle": _fn("fdx_solver_cycle_name", ctypes.c_char_p, ctypes.c_int),
          "smoother": _fn("fdx_solver_smoother_name", ctypes.c_char_p, ctypes.c_int),
          "bc": _fn("fdx_solver_bc_name", ctypes.c_char_p, ctypes.c_int)}
_PARSERS = {"method": _fn("fdx_solver_method_parse", _S, ctypes.c_char_p, _IP),
            "cycle": _fn("fdx_solver_cycle_parse", _S, ctypes.c_char_p, _IP),
            "smoother": _fn("fdx_solver_smoother_parse", _S, ctypes.c_char_p, _IP),
            "bc": _fn("fdx_solver_bc_parse", _S, ctypes.c_char_p, _IP)}


def _choice(value, kind, what=None):
    """The C enum of a name ("v", "rbgs", "dirichlet", ...) through the C
    library's parser (its names are the CLI's); ValueError with its message."""
    out = ctypes.c_int()
    if not isinstance(value, str) or _PARSERS[kind](value.encode(), ctypes.byref(out)) != 0:
        msg = lib.fdx_last_error().decode(errors="replace") if isinstance(value, str) else ""
        raise ValueError(f"{what or kind} {value!r}: {msg}".rstrip(": "))
    return out.value


def names(kind):
    """The names the C library gives a setting ("method", "cycle", "smoother", "bc")."""
    out, i = [], 0
    get = _NAMES[kind]
    while True:
        n = get(i)
        if not n or n == b"?":
            return out
        out.append(n.decode())
        i += 1


class Solver:
    """A multigrid solver for grids of NumPy shape `shape` (rank 2 or 3,
    every extent >= 3).  Keywords (all optional; the C defaults otherwise):

      method   "mg" (cycles) | "cg" (conjugate gradients preconditioned by one cycle)
      cycle    "v" | "w" | "f" | "fmg" (full multigrid, then V-cycles)
      smoother "jacobi" | "cheby" | "rbgs";  pre, post: sweeps (0..16)
      coarse   "direct" (Cholesky of the coarsest level) | N smoothing sweeps
      bc       one kind for every axis, or one per NumPy axis
      h        spacing (a number, or one per NumPy axis); default 1/(n-1)
               (Dirichlet) or 1/n
      tol      relative residual to reach (||f - A u|| <= tol ||f - A u0||)
      max_cycles, order (2 | 4: Dirichlet, "mg")
      coef     k > 0 (float64, the grid's shape): the operator becomes -div(k grad u)
      dist     an fdx.Dist (rank 2 or 3; shape then defaults to its grid's):
               the levels split over its units as it splits the grid
               (fdx_solver_create_dist; every bc and order); solve()
               then takes float64 fdx.DistArrays of that Dist

    solve(f, u) solves in place and returns u; after it, .iterations,
    .converged, .residual_history (NumPy, [1, r1, r2, ...]), .work_units,
    and (after setup) .distributed_levels (0 on one unit).  A distributed
    solve reaches the cycles and history of one unit (the history's last
    bits aside: its norms add per unit, then across units)."""

    def __init__(self, shape=None, method=None, cycle=None, smoother=None, pre=None, post=None, coarse=None, bc=None,
                 h=None, tol=None, max_cycles=None, order=None, coef=None, ctx=None, dist=None):
        self.ctx = ctx or context()
        self.dist = dist
        if shape is None and dist is None:
            raise TypeError("Solver needs a shape or a dist")
        if dist is not None:
            from ._dist import Dist
            if not isinstance(dist, Dist):
                raise TypeError(f"dist must be an fdx.Dist, not {type(dist).__name__}")
        self.shape = tuple(int(n) for n in (dist.shape if shape is None else shape))
        r = len(self.shape)
        if r not in (2, 3):
            raise ValueError(f"multigrid grids have rank 2 or 3, not {r} (shape {self.shape})")
        self._h = ctypes.c_void_p()
        if dist is not None:
            if self.shape != dist.shape:
                raise ValueError(f"shape {self.shape}, the distribution's grid is {dist.shape}")
            with Options(dist.options) as o:                    # the options dist was made with
                check(lib.fdx_solver_create_dist(o, dist._h, ctypes.byref(self._h)))
            self._handle = Handle(self._h, lib.fdx_solver_destroy, [dist._handle])
        else:
            check(lib.fdx_solver_create(self.ctx.handle, r, (ctypes.c_int64 * 3)(*self.shape[::-1]),
                                        ctypes.byref(self._h)))
            self._handle = Handle(self._h, lib.fdx_solver_destroy, [self.ctx._handle])
        self._pre, self._post, self._smoother = 2, 2, "rbgs"
        self.set(method=method, cycle=cycle, smoother=smoother, pre=pre, post=post, coarse=coarse, bc=bc, h=h,
                 tol=tol, max_cycles=max_cycles, order=order, coef=coef)

    def __del__(self):
        _release(self)

    def set(self, method=None, cycle=None, smoother=None, pre=None, post=None, coarse=None, bc=None, h=None,
            tol=None, max_cycles=None, order=None, coef=None):
        """Changes settings (the next solve sets the solver up again).  Returns self."""
        s, r = self._h, len(self.shape)
        if method is not None:
            check(lib.fdx_solver_set_method(s, _choice(method, "method")))
        if cycle is not None:
            check(lib.fdx_solver_set_cycle(s, _choice(cycle, "cycle")))
        if smoother is not None or pre is not None or post is not None:
            sm = self._smoother if smoother is None else smoother
            pr = self._pre if pre is None else int(pre)
            po = self._post if post is None else int(post)
            check(lib.fdx_solver_set_smoother(s, _choice(sm, "smoother"), pr, po))
            self._smoother, self._pre, self._post = sm, pr, po
        if coarse is not None:
            if coarse == "direct":
                check(lib.fdx_solver_set_coarse(s, COARSE_DIRECT, 0))
            elif isinstance(coarse, (int, np.integer)) and not isinstance(coarse, bool):
                check(lib.fdx_solver_set_coarse(s, COARSE_SWEEPS, int(coarse)))
            else:
                raise ValueError(f"coarse {coarse!r} is 'direct' or a number of smoothing sweeps")
        if bc is not None:
            if isinstance(bc, str):
                check(lib.fdx_solver_set_bc(s, -1, _choice(bc, "bc")))
            else:
                bcs = list(bc)
                if len(bcs) != r:
                    raise ValueError(f"bc has {len(bcs)} entries for a rank-{r} grid")
                for ax, kind in enumerate(bcs):
                    check(lib.fdx_solver_set_bc(s, r - 1 - ax, _choice(kind, "bc", f"bc of axis {ax}")))
        if h is not None:
            hs = [float(h)] * r if np.isscalar(h) else [float(x) for x in h]
            if len(hs) != r:
                raise ValueError(f"h has {len(hs)} entries for a rank-{r} grid")
            check(lib.fdx_solver_set_spacing(s, (ctypes.c_double * 3)(*hs[::-1])))
        if tol is not None:
            check(lib.fdx_solver_set_tolerance(s, float(tol)))
        if max_cycles is not None:
            check(lib.fdx_solver_set_max_cycles(s, int(max_cycles)))
        if order is not None:
            check(lib.fdx_solver_set_order(s, int(order)))
        if coef is not None:
            self.set_coefficient(coef)
        return self

    def set_coefficient(self, k):
        """k > 0 everywhere (the grid's shape; copied now, from the host: a
        CUDA array is copied to the host first); None: back to -lap u."""
        if k is None:
            check(lib.fdx_solver_set_coefficient(self._h, None))
            return self
        kh = _host_float64(k, self.ctx)
        if kh.shape != self.shape:
            raise ValueError(f"coefficient of shape {kh.shape}, the solver's grid is {self.shape}")
        a = Array(self.ctx, kh.ctypes.data, kh.shape, kh.strides, kh.dtype, HOST, kh)
        check(lib.fdx_solver_set_coefficient(self._h, a.handle("plain")))
        return self

    def setup(self):
        check(lib.fdx_solver_setup(self._h))
        return self

    def _grid(self, x, what):
        a = view(x, self.ctx)
        if a.shape != self.shape or a.dtype != np.float64:
            raise ValueError(f"{what} must be a float64 array of shape {self.shape}, not {a.dtype} {a.shape}")
        return a

    def solve(self, f, u=None):
        """Solves A u = f; u: the initial guess and, on Dirichlet axes, the
        boundary values (in place; default zeros of f's kind).  Returns u.
        A solve that did not reach the tolerance still returns: read .converged.
        With dist=: f and u are float64 fdx.DistArrays of the solver's Dist
        (u default: zeros; u's shadows are not renewed)."""
        if self.dist is not None:
            return self._solve_dist(f, u)
        from ._ops import _zeros_like
        if u is None:
            u = _zeros_like(f)
        fa, ua = self._grid(f, "f"), self._grid(u, "u")
        check(lib.fdx_solver_solve(self._h, fa.handle("plain"), ua.handle("plain")))
        return u

    def _solve_dist(self, f, u):
        from ._dist import DistArray
        if u is None:
            u = self.dist.array("float64", value=np.zeros(self.shape))   # a new darray's memory is not cleared
        for name, a in (("f", f), ("u", u)):
            if not isinstance(a, DistArray):
                raise TypeError(f"{name} of a distributed solve must be an fdx.DistArray, not {type(a).__name__}")
        check(lib.fdx_solver_solve_dist(self._h, f._h, u._h))
        return u

    iterations = property(lambda self: lib.fdx_solver_iterations(self._h), doc="cycles or CG iterations of the last solve")
    converged = property(lambda self: bool(lib.fdx_solver_converged(self._h)), doc="the tolerance was reached")
    work_units = property(lambda self: lib.fdx_solver_work_units(self._h), doc="fine-grid operator applications")
    levels = property(lambda self: lib.fdx_solver_levels(self._h), doc="grid levels (after setup)")
    distributed_levels = property(lambda self: lib.fdx_solver_distributed_levels(self._h),
                                  doc="levels split over the units (after setup; the rest gathered onto one unit); 0 on one unit")

    @property
    def residual_history(self):
        """Relative residual after each cycle: [1, r1, ...] (iterations + 1 entries)."""
        p = ctypes.POINTER(ctypes.c_double)()
        n = ctypes.c_int()
        check(lib.fdx_solver_residual_history(self._h, ctypes.byref(p), ctypes.byref(n)))
        return np.array(p[:n.value]) if n.value else np.zeros(0)

    def level_shapes(self):
        """NumPy shape of every level, finest first."""
        out = []
        for lv in range(self.levels):
            s = (ctypes.c_int64 * 3)()
            check(lib.fdx_solver_level_shape(self._h, lv, s))
            out.append(tuple(s[:len(self.shape)])[::-1])
        return out

    def info(self):
        return {"iterations": self.iterations, "converged": self.converged,
                "residual_history": self.residual_history, "work_units": self.work_units, "levels": self.levels}


def _host_float64(x, ctx):
    if isinstance(x, np.ndarray):
        return np.ascontiguousarray(x, np.float64)
    a = asarray(x, ctx)
    return np.ascontiguousarray(a.to_numpy(), np.float64)


def poisson_solve(f, u=None, full_output=False, ctx=None, **settings):
    """Solves -lap u = f (or -div(k grad u) = f with coef=k) by multigrid
    on f's grid (Solver's keywords: bc, h, cycle, smoother, tol, ...).
    Returns u, or (u, info) with full_output: iterations, converged,
    residual_history, work_units, levels."""
    ctx = ctx or context()
    s = Solver(view(f, ctx).shape, ctx=ctx, **settings)
    u = s.solve(f, u)
    return (u, s.info()) if full_output else u


__all__ = ["Solver", "poisson_solve", "names"]
