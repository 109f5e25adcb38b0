"""Multigrid from Python (fdx.Solver, fdx.poisson_solve): solutions of random
right-hand sides checked by a NumPy residual of the same discrete operator
(Dirichlet, Neumann, periodic, mixed axes, a variable coefficient with
harmonic face means, every cycle, smoother and method), the residual
history, the errors, and the CLI's `fdx mg` run reproduced bit for bit."""
import json
import math
import os
import subprocess

import numpy as np
import pytest

import fdx
from bc_ref import rel_residual


def default_h(shape, bcs):
    return [1.0 / (n - 1) if b == "dirichlet" else 1.0 / n for n, b in zip(shape, bcs)]


@pytest.mark.parametrize("shape,bcs", [
    ((33, 33), ("dirichlet", "dirichlet")),
    ((20, 28), ("neumann", "neumann")),
    ((16, 24), ("periodic", "periodic")),
    ((17, 24), ("dirichlet", "periodic")),
    ((17, 16, 15), ("dirichlet", "neumann", "dirichlet")),
])
def test_solve_random_rhs(rng, shape, bcs):
    f = rng.normal(size=shape)
    singular = "dirichlet" not in bcs
    if singular:
        f -= f.mean()
    u0 = np.zeros(shape)
    u0[...] = rng.random(shape) if not singular else 0.0     # Dirichlet: random boundary values
    s = fdx.Solver(shape, bc=list(bcs), tol=1e-9, max_cycles=60)
    u = s.solve(f, u0.copy())
    assert s.converged and 1 <= s.iterations < 60
    hist = s.residual_history
    assert len(hist) == s.iterations + 1 and hist[0] == 1 and hist[-1] <= 1e-9
    assert np.all(np.diff(np.log(hist)) < 0)                 # every cycle reduces it
    got = rel_residual(f, u, u0, bcs, default_h(shape, bcs))
    assert got <= 2e-9 and abs(got - hist[-1]) <= 0.05 * hist[-1] + 1e-13, (got, hist[-1])
    for ax, b in enumerate(bcs):                             # Dirichlet values kept
        if b == "dirichlet":
            assert np.array_equal(np.take(u, [0, -1], axis=ax), np.take(u0, [0, -1], axis=ax))
    if singular:
        assert abs(u.mean()) < 1e-10
    assert s.levels >= 2 and s.level_shapes()[0] == shape and s.work_units > 0


@pytest.mark.parametrize("settings", [
    dict(cycle="w"), dict(cycle="f", smoother="jacobi", pre=3, post=3), dict(cycle="fmg", smoother="cheby"),
    dict(method="cg"), dict(coarse=50), dict(order=4), dict(h=(0.5, 0.25)),
])
def test_settings(rng, settings):
    shape = (33, 25)
    f = rng.normal(size=shape)
    u, info = fdx.poisson_solve(f, full_output=True, tol=1e-8, max_cycles=80, **settings)
    assert info["converged"] and info["residual_history"][-1] <= 1e-8
    if settings.get("order") != 4:
        h = settings.get("h", default_h(shape, ("dirichlet",) * 2))
        assert rel_residual(f, u, np.zeros(shape), ("dirichlet",) * 2, h) <= 2e-8


def test_variable_coefficient(rng):
    shape = (33, 29)
    k = 1 + 5 * rng.random(shape)
    f = rng.normal(size=shape)
    s = fdx.Solver(shape, coef=k, tol=1e-10, cycle="v", smoother="rbgs")
    u = s.solve(f)
    assert s.converged
    h = default_h(shape, ("dirichlet",) * 2)
    assert rel_residual(f, u, np.zeros(shape), ("dirichlet",) * 2, h, k) <= 2e-10
    s.set_coefficient(None)                                  # back to -lap u
    u2 = s.solve(f)
    assert rel_residual(f, u2, np.zeros(shape), ("dirichlet",) * 2, h) <= 2e-10


def test_not_converged_still_returns(rng):
    s = fdx.Solver((33, 33), tol=1e-14, max_cycles=2)
    s.solve(rng.normal(size=(33, 33)))
    assert not s.converged and s.iterations == 2 and len(s.residual_history) == 3


def test_errors(rng):
    assert fdx.solver_names("cycle") == ["v", "w", "f", "fmg"] and fdx.solver_names("bc")[-1] == "periodic"
    with pytest.raises(ValueError, match="unknown") as e:      # the C library's names and message
        fdx.Solver((9, 9), cycle="vv")
    assert "v|w|f|fmg" in str(e.value)
    with pytest.raises(ValueError, match="rank 2 or 3"):
        fdx.Solver((10,))
    with pytest.raises(fdx.FdxError) as e:
        fdx.Solver((2, 10))
    assert e.value.status == "FDX_ERR_INVALID" and e.value.message
    for kw, exc in ((dict(cycle="x"), ValueError), (dict(smoother="sor"), ValueError), (dict(method="gmres"), ValueError),
                    (dict(bc="robin"), ValueError), (dict(bc=["dirichlet"]), ValueError), (dict(coarse="lu"), ValueError),
                    (dict(h=(1, 2, 3)), ValueError), (dict(tol=-1.0), fdx.FdxError), (dict(pre=17), fdx.FdxError),
                    (dict(order=3), fdx.FdxError), (dict(h=(0.0, 1.0)), fdx.FdxError),
                    (dict(max_cycles=0), fdx.FdxError)):
        with pytest.raises(exc):
            fdx.Solver((9, 9), **kw)
    k = np.ones((9, 9))
    k[4, 5] = -1.0
    with pytest.raises(fdx.FdxError) as e:
        fdx.Solver((9, 9), coef=k)
    assert e.value.message
    with pytest.raises(ValueError, match="coefficient of shape"):
        fdx.Solver((9, 9), coef=np.ones((9, 8)))
    s = fdx.Solver((9, 9))
    with pytest.raises(ValueError, match="float64"):
        s.solve(np.zeros((9, 9), np.float32))
    with pytest.raises(ValueError, match="shape"):
        s.solve(np.zeros((9, 10)))
    with pytest.raises(fdx.FdxError) as e:                      # periodic/Neumann: f must have mean zero
        fdx.poisson_solve(np.ones((16, 16)), bc="periodic")
    assert e.value.message


# ---- the CLI's run, bit for bit -----------------------------------------------------------------
def manufactured(shape_xyz, bc):
    """tools/fdx/cmd_mg.c's manufactured problem (math.sin / math.cos are the
    C library's, products in the C code's order): f and the initial u in
    NumPy's order."""
    rank = len(shape_xyz)
    span = max(n - 1 if bc == "dirichlet" else n for n in shape_xyz)
    h = 1.0 / span
    ln = [(n - 1 if bc == "dirichlet" else n) * h for n in shape_xyz]
    pos = [[((i + 0.5) * h if bc == "neumann" else i * h) for i in range(n)] for n in shape_xyz]

    def phi(s):
        return (math.sin(math.pi * s) if bc == "dirichlet" else math.cos(math.pi * s) if bc == "neumann"
                else math.sin(2 * math.pi * s) + math.cos(2 * math.pi * s))
    lam = 0.0
    for a in range(3):
        kk = ((2 * math.pi if bc == "periodic" else math.pi) / ln[a]) if a < rank else 0.0
        lam += kk * kk
    ph = [np.array([phi(x / ln[a]) for x in pos[a]]) for a in range(rank)]
    X = [np.array(pos[a]) for a in range(rank)]
    if rank == 2:
        p = ph[0][None, :] * ph[1][:, None]
        xy = X[0][None, :] * X[1][:, None]
    else:
        p = (ph[0][None, None, :] * ph[1][None, :, None]) * ph[2][:, None, None]
        xy = (X[0][None, None, :] * X[1][None, :, None]) * X[2][:, None, None]
    f = lam * p
    u = np.zeros(p.shape)
    if bc == "dirichlet":
        e = p + xy
        for ax in range(rank):
            sl = [slice(None)] * rank
            for end in (0, -1):
                sl[ax] = end
                u[tuple(sl)] = e[tuple(sl)]
    return f, u, h


@pytest.mark.parametrize("size,bc,extra", [("33x29", "dirichlet", []), ("24x20", "periodic", ["--cycle", "w"]),
                                           ("17x15x13", "dirichlet", ["--smoother", "cheby", "--solver", "cg"]),
                                           ("16x12x10", "neumann", ["--cycle", "fmg"])])
def test_matches_cli_mg_bit_for_bit(size, bc, extra):
    cli = os.environ.get("FDX_CLI")
    if not cli:
        pytest.skip("FDX_CLI (the fdx binary) not given")
    r = subprocess.run([cli, "mg", "--size", size, "--bc", bc, "--tol", "1e-9", "--json", "--backend", "cpu", *extra],
                       check=True, capture_output=True, text=True)
    rec = json.loads(r.stdout)
    f, u, h = manufactured([int(n) for n in size.split("x")], bc)
    opts = dict(zip(extra[::2], extra[1::2]))
    s = fdx.Solver(f.shape, bc=bc, h=h, tol=1e-9, cycle=opts.get("--cycle"),
                   smoother=opts.get("--smoother", "rbgs"), method=opts.get("--solver", "mg"))
    s.solve(f, u)
    assert s.iterations == rec["cycles"] and s.converged == rec["converged"]
    assert [float(x) for x in s.residual_history] == rec["residual_history"]
