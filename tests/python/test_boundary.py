"""Boundary conditions and temporal blocking from Python (fdx.Boundary,
fdx.BoundaryPass / fill_boundary, Stencil(boundary=), Stencil.steps,
Simulation(boundary=, temporal=), DistStencil(boundary=)) against NumPy
references on random inputs, the errors, and heat runs with boundaries and
temporal blocking that match the CLI bit for bit."""
import json
import os
import subprocess

import numpy as np
import pytest

import fdx
from bc_ref import fill_ref
from test_fdx import star_ref, check_against


# ---- the description ----------------------------------------------------------------
def test_boundary_forms_agree():
    """Text (the CLI's syntax, x = NumPy's last axis), dicts keyed by NumPy
    axes, faces and CLI face names all give the same description."""
    text = fdx.Boundary("all=dirichlet:1.5,x=periodic,y+=neumann:-2", 2)
    d1 = fdx.Boundary({0: ("dirichlet", 1.5), (0, "high"): ("neumann", -2), 1: "periodic"}, 2)
    d2 = fdx.Boundary({"all": ("dirichlet", 1.5), "x": "periodic", "y+": ("neumann", -2.0)}, 2)
    assert text.text == d1.text == d2.text == fdx.Boundary(text.text, 2).text
    assert text.faces() == {(0, "low"): ("dirichlet", 1.5), (0, "high"): ("neumann", -2.0),
                            (1, "low"): ("periodic", 0.0), (1, "high"): ("periodic", 0.0)}
    assert text.periodic == (1,) and bool(text) and not fdx.Boundary(None, 3)
    b3 = fdx.Boundary({-1: "periodic", (0, "low"): ("neumann", 0.25)}, 3)   # -1: NumPy's last axis, x
    assert b3.text.startswith("x-=periodic,x+=periodic") and "z-=neumann:0.25" in b3.text


@pytest.mark.parametrize("spec,exc,match", [
    ("x=sticky", fdx.FdxError, "sticky"),
    ("w=periodic", fdx.FdxError, "w"),
    ("x-=periodic", fdx.FdxError, "periodic"),
    ({0: "sticky"}, ValueError, "sticky"),
    ({2: "periodic"}, ValueError, "axis"),
    ({(0, "low"): "periodic"}, ValueError, "both faces"),
    ({(0, "middle"): "none"}, ValueError, "low"),
    ({0: ("neumann", np.zeros((1, 8)))}, ValueError, "Dirichlet"),
    ({0: 1.0}, ValueError, "kind"),
    (["x=periodic"], TypeError, "dict"),
])
def test_boundary_errors(spec, exc, match):
    with pytest.raises(exc, match=match) as e:
        fdx.Boundary(spec, 2)
    if exc is fdx.FdxError:
        assert e.value.status == "FDX_ERR_INVALID" and e.value.message


# ---- the ghost pass ---------------------------------------------------------------------
CASES = [
    ((14, 17), 1, {0: ("dirichlet", 0.5), 1: ("neumann", -1.25)}),
    ((14, 17), 2, {0: "periodic", (1, "low"): ("dirichlet", -2.0), (1, "high"): ("neumann", 0.75)}),
    ((9, 11, 13), 1, {0: ("neumann", 0.3), 1: "periodic", 2: ("dirichlet", 1.0)}),
    ((13, 12, 14), 3, {0: "periodic", 1: ("dirichlet", 0.0), (2, "low"): "none", (2, "high"): ("neumann", 2.0)}),
    ((40,), 4, {0: ("dirichlet", 3.0)}),
]


def _ref_faces(b):
    return {(ax, 0 if side == "low" else 1): kv for (ax, side), kv in b.faces().items()}


@pytest.mark.parametrize("shape,r,spec", CASES)
@pytest.mark.parametrize("dtype,tol", [("float64", 1e-14), ("float32", 1e-6)])
def test_fill_boundary_matches_numpy(rng, shape, r, spec, dtype, tol):
    h = [0.5 + 0.25 * a for a in range(len(shape))]
    u = rng.random(shape).astype(dtype)
    b = fdx.Boundary(spec, len(shape))
    want = fill_ref(u, _ref_faces(b), r, h)
    got = fdx.fill_boundary(u.copy(), spec, r, h=h)
    assert np.max(np.abs(got - want)) <= tol * max(1, np.abs(want).max())
    p = fdx.BoundaryPass(spec, len(shape), r, h=h, dtype=dtype)   # reused: the same
    v = u.copy()
    p(v)
    assert np.array_equal(v, got)


def test_dirichlet_values_array(rng):
    shape, r = (12, 15), 2
    u = rng.random(shape)
    g_lo = rng.random((12, 1))            # the x- face: extent 1 on NumPy axis 1
    g_hi = rng.random((1, 15))            # the y+ face
    spec = {(1, "low"): ("dirichlet", g_lo), (0, "high"): ("dirichlet", g_hi), (1, "high"): ("neumann", 0.5)}
    got = fdx.fill_boundary(u.copy(), spec, r)
    want = fill_ref(u, {(1, 0): ("dirichlet", g_lo), (0, 1): ("dirichlet", g_hi), (1, 1): ("neumann", 0.5)}, r,
                    (1, 1))
    assert np.max(np.abs(got - want)) < 1e-14
    # the description keeps the values alive: the caller may drop them
    import gc
    import weakref
    g = rng.random((12, 1)) + 5.0
    alive = weakref.ref(g)
    s = fdx.Stencil(2, order=4, update="heat", alpha=0.0, boundary={(1, "low"): ("dirichlet", g)})
    del g
    gc.collect()
    assert alive() is not None
    v = u.copy()
    s(v, out=np.zeros(shape))
    assert (v[2:-2, :2] > 5).all()
    del s
    gc.collect()
    assert alive() is None                                # and let go with the stencil
    with pytest.raises(ValueError, match="extent 1"):
        fdx.Boundary({0: ("dirichlet", rng.random((12, 15)))}, 2)
    with pytest.raises(TypeError, match="float32"):
        fdx.Boundary({(1, "low"): ("dirichlet", g_lo)}, 2, dtype="float32")


def test_fill_boundary_errors(rng):
    with pytest.raises(fdx.FdxError) as e:     # an axis shorter than 3 radius points
        fdx.fill_boundary(rng.random((5, 20)), "all=periodic", 2)
    assert e.value.status == "FDX_ERR_INVALID" and e.value.message
    with pytest.raises(fdx.FdxError):
        fdx.BoundaryPass("x=periodic", 2, 0)
    with pytest.raises(fdx.FdxError):          # an int array: the pass is for float and double
        fdx.fill_boundary(np.zeros((10, 10), np.int32), "x=periodic", 1)


# ---- stencils with conditions ---------------------------------------------------------------
@pytest.mark.parametrize("shape,order,spec", [
    ((20, 24), 4, {0: ("dirichlet", 1.0), 1: "periodic"}),
    ((12, 14, 16), 2, "all=neumann:0.5,z=periodic"),
    ((14, 13, 15), 6, {0: "periodic", 1: ("neumann", -0.5), 2: ("dirichlet", 0.25)}),
])
def test_stencil_with_boundary(rng, shape, order, spec):
    r = order // 2
    h = tuple(0.1 * (a + 1) for a in range(len(shape)))
    u = rng.random(shape)
    s = fdx.Stencil(len(shape), order=order, h=h, update="heat", alpha=1e-3, boundary=spec)
    assert s.boundary is not None and s.radius == r
    filled = fill_ref(u, _ref_faces(fdx.Boundary(spec, len(shape))), r, h)
    L, inner = star_ref(filled, order, h, (1,) * len(shape), (0,) * len(shape), 0.0)
    want = np.full(shape, np.nan)
    want[inner] = filled[inner] + 1e-3 * L[inner]
    v = u.copy()
    out = s(v, out=np.full(shape, np.nan))
    check_against(out, want, 1e-12)
    assert np.max(np.abs(v - filled)) < 1e-14          # u's frame holds the ghosts now
    s.set_boundary(None)                                # back to the interior only
    out2 = s(u.copy(), out=np.full(shape, np.nan))
    L2, _ = star_ref(u, order, h, (1,) * len(shape), (0,) * len(shape), 0.0)
    want2 = np.full(shape, np.nan)
    want2[inner] = u[inner] + 1e-3 * L2[inner]
    check_against(out2, want2, 1e-12)


# ---- temporal blocking ----------------------------------------------------------------------
def _applies(s, u, n):
    a, b = u.copy(), u.copy()
    for _ in range(n):
        s(a, out=b)
        a, b = b, a
    return a


@pytest.mark.parametrize("shape,order,dtype", [((40, 52), 2, "float64"), ((40, 52), 4, "float32"),
                                               ((18, 20, 22), 2, "float64")])
@pytest.mark.parametrize("temporal", ["off", 2, 4, "auto"])
def test_steps_bit_identical_to_applies(rng, shape, order, dtype, temporal):
    u = rng.random(shape).astype(dtype)
    s = fdx.Stencil(len(shape), order=order, update="heat", alpha=0.05, dtype=dtype)
    want = _applies(s, u, 9)
    got = u.copy()
    assert s.steps(got, 9, temporal=temporal) is got
    assert np.array_equal(got, want)
    k, cfg = s.steps_depth(shape)
    assert k >= 1 and (temporal not in (2, 4) or k == temporal) and (k == 1 or "temporal" in cfg)
    tmp = u.copy()                                     # an explicit scratch array: the same
    got2 = u.copy()
    s.steps(got2, 9, tmp=tmp, temporal=temporal)
    assert np.array_equal(got2, want)


def test_steps_with_boundary(rng):
    shape = (30, 34)
    u = rng.random(shape)
    s = fdx.Stencil(2, order=2, update="heat", alpha=0.1, boundary={0: ("dirichlet", 1.0), 1: "periodic"})
    got = s.steps(u.copy(), 7, temporal="auto")
    b = fdx.Boundary({0: ("dirichlet", 1.0), 1: "periodic"}, 2)
    a = u.copy()
    for _ in range(7):                                # the reference: fill, apply, in NumPy
        a = fill_ref(a, _ref_faces(b), 1, (1, 1))
        L, inner = star_ref(a, 2, (1, 1), (1, 1), (0, 0), 0.0)
        a[inner] = a[inner] + 0.1 * L[inner]
    inner = (slice(1, -1), slice(1, -1))
    assert np.max(np.abs(got[inner] - a[inner])) < 1e-12
    with pytest.raises(fdx.FdxError) as e:
        s.steps(u.copy(), 7, temporal=2)
    assert e.value.status == "FDX_ERR_UNSUPPORTED"


def test_steps_errors(rng):
    u = rng.random((20, 20))
    with pytest.raises(fdx.FdxError):                                   # not a heat stencil
        fdx.Stencil(2, order=2).steps(u, 3)
    s = fdx.Stencil(2, order=2, update="heat", alpha=0.1)
    for bad in ("sometimes", 2.5, True):
        with pytest.raises(ValueError, match="temporal"):
            s.steps(u, 3, temporal=bad)
    with pytest.raises(fdx.FdxError):
        s.steps(u, 3, temporal=9)
    with pytest.raises(fdx.FdxError):
        s.steps(u, 3, tmp=np.zeros((20, 21)))


# ---- simulations: Python against the CLI, bit for bit ------------------------------------------
def _summary(cli, tmp_path, name, args):
    subprocess.run([cli, *args, "--backend", "cpu", "--output", str(tmp_path / name)], check=True,
                   stdout=subprocess.DEVNULL)
    with open(tmp_path / name / "summary.json") as fh:
        return json.load(fh)["checksum"]


@pytest.mark.parametrize("kind,args,kw", [
    ("heat", ["--size", "40x30", "--steps", "24", "--boundary", "all=dirichlet:1,x=periodic", "--temporal", "auto"],
     dict(size="40x30", steps=24, boundary={0: ("dirichlet", 1.0), 1: "periodic"}, temporal="auto")),
    ("heat", ["--size", "40x36", "--steps", "24", "--boundary", "fixed", "--temporal", "4"],
     dict(size="40x36", steps=24, boundary="fixed", temporal=4)),
    ("heat", ["--size", "24x20x12", "--steps", "10", "--boundary", "z=neumann:0.5,x=periodic,y=dirichlet:0"],
     dict(size="24x20x12", steps=10, boundary="z=neumann:0.5,x=periodic,y=dirichlet:0", temporal="off")),
    ("heat", ["--size", "30x28x26", "--steps", "12", "--temporal", "2", "--boundary", "fixed"],
     dict(size="30x28x26", steps=12, temporal=2, boundary="fixed")),
    ("wave", ["--size", "48x40", "--steps", "30", "--boundary", "all=periodic", "--order", "4"],
     dict(size="48x40", steps=30, order=4, boundary={"all": "periodic"})),
])
def test_simulation_boundary_temporal_match_cli(tmp_path, kind, args, kw):
    cli = os.environ.get("FDX_CLI")
    if not cli:
        pytest.skip("FDX_CLI (the fdx binary) not given")
    cs = _summary(cli, tmp_path, "run", [kind, *args])
    s = fdx.Simulation(kind, **kw)
    s.run()
    d = s.diagnose()
    assert (d["sum"], d["l2"]) == (cs["sum"], cs["l2"]), (d, cs)


def test_simulation_boundary_errors():
    with pytest.raises(ValueError, match="size"):
        fdx.Simulation("heat", boundary={0: "periodic"})
    with pytest.raises(fdx.FdxError, match="sticky"):
        fdx.Simulation("heat", size="16x16", boundary="x=sticky")
    with pytest.raises(ValueError, match="one value a face"):
        fdx.Simulation("heat", size="16x16", boundary={0: ("dirichlet", np.zeros((1, 16)))})
    with pytest.raises(fdx.FdxError, match="temporal") as e:
        fdx.Simulation("heat", size="16x16", boundary={0: "periodic"}, temporal=4)
    assert e.value.status == "FDX_ERR_INVALID"


# ---- distributed stencils with conditions -------------------------------------------------------
@pytest.mark.parametrize("units,grid", [(2, None), (4, (2, 2))])
def test_distributed_stencil_with_boundary(rng, units, grid):
    shape = (30, 26)
    spec = {0: ("dirichlet", 0.5), 1: "periodic"}
    u0 = rng.random(shape)
    one = fdx.Stencil(2, order=4, update="heat", alpha=0.01, boundary=spec)
    a, b = u0.copy(), np.zeros(shape)
    for _ in range(3):
        one(a, out=b)
        a, b = b, a
    d = fdx.Dist(shape, units=units, grid=grid, shadow=2, backend="cpu", periodic={1: 2})
    U, O = d.array(value=u0), d.array(value=np.zeros(shape))
    st = d.stencil(order=4, update="heat", alpha=0.01, boundary=spec)
    for _ in range(3):
        st.step(O, U)
        U, O = O, U
    g = U.gather()
    inner = (slice(2, -2), slice(2, -2))
    assert np.array_equal(g[inner], a[inner])
    with pytest.raises(ValueError, match="one value a face"):
        st.set_boundary({0: ("dirichlet", np.zeros((1, 26)))})
    with pytest.raises(ValueError, match="periodic axis"):
        fdx.Dist(shape, units=1, backend="cpu", periodic={2: 1})
