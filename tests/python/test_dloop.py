"""fdx.DistLoop: distributed loops from Python on grids of CPU units, compared
bit for bit with one unit and against NumPy references; the accessor
rewriting; errors; an mpi4py run under mpirun (mpi_dloop.py)."""
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

import fdx
import dloop_cases as C

GRIDS_2D = [(1, 2), (2, 1), (2, 2)]


def dist(shape, grid, shadow=2, **kw):
    return fdx.Dist(shape, units=int(np.prod(grid)), grid=grid, shadow=shadow, backend="cpu", **kw)


@pytest.fixture(scope="module")
def one_unit():
    """Every case on one unit (2-D) and on a 3-D grid: the references the
    split runs must equal bit for bit."""
    return {"2d": C.all_cases(dist((11, 14), (1, 1))), "3d": C.coords(dist((6, 7, 9), (1, 1, 1)))}


def assert_same(got, want, what):
    assert got.shape == want.shape, what
    assert np.array_equal(got, want, equal_nan=True), f"{what}: max difference {np.nanmax(np.abs(got - want))}"


def test_one_unit_matches_numpy(one_unit):
    """The one-unit run itself against NumPy: indices in NumPy's order,
    shadows, reductions of every kind with ties."""
    o = one_unit["2d"]
    shape = o["coords_A"].shape
    A, I, B = C.coords_reference(shape)
    assert np.array_equal(o["coords_A"], A)  # integer-valued + the same libm sin: exact
    assert np.array_equal(o["coords_I"], I)
    assert np.array_equal(np.isnan(o["coords_B"]), np.isnan(B))
    assert np.nanmax(np.abs(o["coords_B"] - B)) < 1e-12 * np.nanmax(np.abs(B))
    res = o["results"]
    inner = tuple(slice(1, n - 1) for n in shape)
    Bi, Ii = o["coords_B"][inner], I[inner].astype(np.int64)
    jj, ii = [g[inner] for g in np.indices(shape)]
    assert abs(res["sum"] - Bi.sum()) < 1e-12 * np.abs(Bi).sum()
    assert res["mx"] == Bi.max() and res["mn"] == Bi.min()
    for key, fn in (("mxl", np.argmax), ("mnl", np.argmin)):
        q = np.unravel_index(fn(Bi), Bi.shape)
        assert res[key] == (Bi[q], (q[0] + 1, q[1] + 1)), key
    for key, fn in (("iml", np.argmax), ("inl", np.argmin)):  # ties: the first in the nest's order
        q = np.unravel_index(fn(Ii), Ii.shape)
        assert res[key] == (int(Ii[q]), (q[0] + 1, q[1] + 1)), key
        assert isinstance(res[key][0], int)
    assert res["f32"] == 0.25 * Bi.size
    assert res["isum"] == int(Ii.sum()) and res["lsum"] == int(Ii.sum()) * 3000000000
    assert res["imax"] == Ii.max() and res["imin"] == int((Ii - ii).min())
    assert res["pr"] == 1.5 ** int((ii == 2).sum())
    assert res["ia"] == int(np.bitwise_and.reduce(~(np.int64(1) << (jj.ravel() % 40))))
    assert res["io"] == int(np.bitwise_or.reduce(np.int64(1) << (ii.ravel() % 20)))
    u0 = np.random.default_rng(5).random(shape)
    for key, order in (("sor_fwd", 1), ("sor_bwd", -1)):
        ref = C.sor_reference(u0, order)
        assert np.abs(o[key] - ref).max() < 1e-12, key  # (C may contract into FMAs)
        assert not np.array_equal(o[key], C.sor_reference(u0, -order)), "the order matters"
    assert np.abs(o["remote"] - C.remote_reference(shape)).max() < 1e-9
    j, i = np.indices(shape)
    X = 1000.0 * i + j
    assert_same(o["aligned_X"], X, "aligned with a shift")
    Y = np.full(shape, np.nan)
    Y[:, 1:] = X[:, 1:] - 0.5 * X[:, :-1]
    assert_same(o["aligned_Y"], Y, "aligned with a shift, read back")
    U, V = C.components_reference(shape)
    assert_same(o["comp_U"], U, "components")
    assert_same(o["comp_V"], V, "components read through own shadows")


@pytest.mark.parametrize("grid", GRIDS_2D)
def test_split_grids_match_one_unit(one_unit, grid):
    """Every case on 1x2, 2x1 and 2x2 units equals the one-unit run bit for
    bit (floating sums up to their last bits: they depend on the split)."""
    got = C.all_cases(dist((11, 14), grid))
    want = one_unit["2d"]
    for key in want:
        if key == "results":
            for nm, v in want[key].items():
                if nm in ("sum",):
                    assert abs(got[key][nm] - v) <= 1e-12 * abs(v), nm
                else:
                    assert got[key][nm] == v, (nm, got[key][nm], v)
        else:
            assert_same(got[key], want[key], f"{key} on {grid}")


def test_3d_2x2x2_matches_one_unit(one_unit):
    d = dist((6, 7, 9), (2, 2, 2))
    assert d.units == 8 and d.local_units == 8
    f, res, exchanges = C.coords(d)
    wf, wres, _ = one_unit["3d"]
    for key in wf:
        assert_same(f[key], wf[key], key)
    A, I, B = C.coords_reference(d.shape)
    assert np.array_equal(f["A"], A) and np.array_equal(f["I"], I)
    assert exchanges >= 1, "B's loop renewed the shadows A's loop left stale"
    for nm, v in wres.items():
        assert (abs(res[nm] - v) <= 1e-12 * abs(v)) if nm == "sum" else res[nm] == v, nm


@pytest.mark.parametrize("order", [1, -1])
@pytest.mark.parametrize("grid", [(2, 2, 2), (1, 1, 2)])
def test_3d_across_sweeps_match_one_unit(order, grid):
    """A 3-D SOR sweep (ACROSS, pipelined in portions across units) forward
    and backward: the one-unit result bit for bit, the Python nest up to
    rounding."""
    u0 = np.random.default_rng(3).random((5, 6, 7))
    one = C.sor(dist(u0.shape, (1, 1, 1), shadow=1), u0, order, sweeps=2)
    got = C.sor(dist(u0.shape, grid, shadow=1), u0, order, sweeps=2, portions=2)
    assert_same(got, one, f"SOR order {order} on {grid}")
    assert np.abs(one - C.sor_reference(u0, order, sweeps=2)).max() < 1e-12


def test_reverse_accessors():
    from fdx._dloop import reverse_accessors
    body = ('A(k, j,i) = B(A(k,j,i+1), f(a, b)) + obj.A(1,2) + p->B(3,4) + C(x,y);\n'
            '/* A(1,2) */ // B(3,4)\nputs("A(1,2)"); A (k,\n j) = 0;')
    got = reverse_accessors(body, ["A", "B"])
    assert got == ('A(i, j,k) = B(f(a, b), A(i+1,j,k)) + obj.A(1,2) + p->B(3,4) + C(x,y);\n'
                   '/* A(1,2) */ // B(3,4)\nputs("A(1,2)"); A (j,\n k) = 0;')
    assert got.count("\n") == body.count("\n")
    with pytest.raises(ValueError, match="unbalanced"):
        reverse_accessors("A(k, j", ["A"])


def test_index_order_grid_passes_the_c_convention():
    """index_order="grid": indices, ranges and accessors as the C API takes
    them (first index fastest): the same field as the NumPy-order loop."""
    d = dist((5, 8), (2, 1))
    A, B = d.array(value=np.zeros((5, 8))), d.array(value=np.zeros((5, 8)))
    d.loop("j,i", "A(j,i) = i + 100.0 * j;", {"A": (A, "w")}, range=((1, 2), (5, 8))).run()
    d.loop("i,j", "B(i,j) = i + 100.0 * j;", {"B": (B, "w")}, range=((2, 1), (8, 5)), index_order="grid").run()
    assert_same(A.gather(), B.gather(), "grid order")
    j, i = np.indices((5, 8))
    assert np.array_equal(A.gather()[1:, 2:], (i + 100.0 * j)[1:, 2:])


def test_results_are_the_same_on_every_unit_and_rerun():
    """Scalars change without a new loop; reductions are global."""
    d = dist((6, 10), (2, 2))
    A = d.array(value=np.zeros((6, 10)))
    lp = d.loop("j,i", "A(j,i) = s * (i - j); m = A(j,i); t = A(j,i);", {"A": (A, "w")}, scalars={"s": 1.0},
                reductions={"m": "maxloc", "t": ("sum", "int64")})
    assert lp.run() == {"m": (9.0, (0, 9)), "t": sum(i - j for j in range(6) for i in range(10))}
    lp.set("s", -2.0)
    assert lp.run()["m"] == (10.0, (5, 0))


def test_errors():
    d = dist((6, 8), (2, 1))
    other = dist((6, 8), (1, 1))
    A = d.array()
    with pytest.raises(ValueError, match="one index per grid axis"):
        d.loop("i", "A(i) = 0;", {"A": (A, "w")})
    with pytest.raises(TypeError, match="fdx.DistArray"):
        d.loop("j,i", "A(j,i) = 0;", {"A": (np.zeros((6, 8)), "w")})
    with pytest.raises(ValueError, match="another fdx.Dist"):
        d.loop("j,i", "A(j,i) = 0;", {"A": (other.array(), "w")})
    with pytest.raises(ValueError, match="access 'x'"):
        d.loop("j,i", "A(j,i) = 0;", {"A": (A, "x")})
    with pytest.raises(ValueError, match="reduction 'avg'"):
        d.loop("j,i", "s = A(j,i);", {"A": (A, "r")}, reductions={"s": "avg"})
    with pytest.raises(TypeError, match="reduction type"):
        d.loop("j,i", "s = A(j,i);", {"A": (A, "r")}, reductions={"s": ("sum", "complex128")})
    with pytest.raises(ValueError, match="order"):
        d.loop("j,i", "A(j,i) = 0;", {"A": (A, "w")}, order=(1, 2))
    with pytest.raises(ValueError, match="range's upper bound has 3 entries"):
        d.loop("j,i", "A(j,i) = 0;", {"A": (A, "w")}, range=((0, 0), (1, 1, 1)))
    with pytest.raises(ValueError, match="remote L"):
        d.loop("j,i", "A(j,i) = L(0);", {"A": (A, "w")}, remote={"L": (A, [1, 2, 3])})
    with pytest.raises(TypeError, match="fdx.Dist"):
        fdx.DistLoop(object(), "j,i", "", {})
    with pytest.raises(fdx.FdxError) as e:  # the C library's check, its message and status
        d.loop("j,i", "A(j,i) = 0;", {"A": (A, "w")}, range=((0, 0), (7, 8)))
    assert e.value.status == "FDX_ERR_INVALID" and "outside the grid" in e.value.message
    with pytest.raises(fdx.FdxError) as e:  # a compile error names the body's line
        d.loop("j,i", "A(j,i) = 0;\nA(j,i) = undefined_name;", {"A": (A, "w")}).run()
    assert e.value.status == "FDX_ERR_COMPILE" and ":2:" in e.value.message
    with pytest.raises(fdx.FdxError) as e:  # an ACROSS access in two indices at once
        d.loop("j,i", "A(j,i) = A(j-1,i-1);", {"A": (A, "rw")}, range=((1, 1), (6, 8)), across=1).run()
    assert e.value.status == "FDX_ERR_INVALID"
    with pytest.raises(fdx.FdxError) as e:  # a remote box outside the grid
        d.loop("j,i", "A(j,i) = R(0,0);", {"A": (A, "w")}, remote={"R": (A, (slice(0, 1), slice(0, 9)))})
    assert e.value.status == "FDX_ERR_INVALID"
    with pytest.raises(fdx.FdxError, match="float or double"):
        d.array("int32")


def test_mpi4py_distributed_loops(tmp_path):
    """mpirun -np 2 (mpi_dloop.py): the world split by mpi4py, both ranks on
    one communicator with 2 CPU units each; every case equals one process's
    run bit for bit and the reductions are the same on both ranks."""
    pytest.importorskip("mpi4py")
    if not shutil.which("mpirun"):
        pytest.skip("no mpirun")
    here = os.path.dirname(os.path.abspath(__file__))
    pkg = os.path.dirname(os.path.dirname(os.path.abspath(fdx.__file__)))
    env = dict(os.environ, FDX_LIBRARY_DIR=os.path.dirname(os.path.abspath(fdx.library_path)),
               PYTHONPATH=os.pathsep.join([pkg, here, os.environ.get("PYTHONPATH", "")]), OMP_NUM_THREADS="1")
    r = subprocess.run(["mpirun", "--allow-run-as-root", "--oversubscribe", "-np", "2", sys.executable,
                        os.path.join(here, "mpi_dloop.py")], capture_output=True, text=True, timeout=600,
                       cwd=tmp_path, env=env)
    if "without MPI" in r.stdout + r.stderr:
        pytest.skip("libfdx built without MPI")
    assert r.returncode == 0, r.stdout + r.stderr
    # the ranks share mpirun's stdout: their lines may arrive glued together
    oks = re.findall(r"rank (\d) of 2: ok", r.stdout)
    assert sorted(oks) == ["0", "1"], r.stdout + r.stderr


def across_low_high(grid, u0, sweeps=2):
    d = dist(u0.shape, grid, shadow=2)
    U = d.array(value=u0)
    lp = d.loop("j,i", "U(j,i) = 0.25 * (U(j-1,i) + U(j,i-2) + U(j,i-1) + U(j,i+1)) + 0.125 * U(j,i);",
                {"U": (U, "rw")}, range=((1, 2), (9, 11)), across=((1, 2), (0, 1)))
    lp.run(times=sweeps)
    with pytest.raises(fdx.FdxError) as e:  # a read beyond the declared width is refused
        d.loop("j,i", "U(j,i) = U(j,i+2);", {"U": (U, "rw")}, range=((1, 2), (9, 10)), across=((1, 2), (0, 1))).run()
    assert e.value.status == "FDX_ERR_INVALID"
    return U.gather()


@pytest.mark.parametrize("grid", [(2, 2), (1, 2)])
def test_across_low_high_widths(grid):
    """ACROSS with widths low:high per index (across=(low, high)): iteration
    (j, i) reads the new U(j-1, i), U(j, i-2) and U(j, i-1) and the old
    U(j, i+1); the one-unit result bit for bit, the sequential nest's up to
    rounding."""
    u0 = np.random.default_rng(11).random((9, 12))
    one = across_low_high((1, 1), u0)
    assert_same(across_low_high(grid, u0), one, f"ACROSS low:high on {grid}")
    ref = u0.copy()
    for _ in range(2):
        for j in range(1, 9):
            for i in range(2, 11):
                ref[j, i] = 0.25 * (ref[j - 1, i] + ref[j, i - 2] + ref[j, i - 1] + ref[j, i + 1]) + 0.125 * ref[j, i]
    assert np.abs(one - ref).max() < 1e-13


def test_collector_frees_in_any_order():
    """A grid, its array, a loop and a stencil caught in a reference cycle
    (as a traceback holds them): the collector finalizes them in any order,
    and the grid's C object outlives everything built on it."""
    import gc
    for _ in range(3):
        d = dist((6, 8), (2, 1))
        A = d.array(value=np.zeros((6, 8)))
        lp = d.loop("j,i", "A(j,i) = A(j,i-1) + 1.0;", {"A": (A, "rw")}, range=((0, 1), (6, 8)), across=1)
        lp.run()
        st = d.stencil(order=2)
        cycle = [d, A, lp, st]
        cycle.append(cycle)
        del d, A, lp, st, cycle
        gc.collect()


def test_collector_frees_contexts_last(rng):
    """The same on one unit: a context, a loop, a stencil and the arrays of
    the context's call cache in a cycle (it segfaulted before the handles
    were counted)."""
    import gc
    for _ in range(3):
        c = fdx.Context(backend="cpu")
        a, b = rng.random((8, 9)), np.zeros((8, 9))
        lp = fdx.Loop("j,i", "B(j,i) = A(j,i) + 1;", {"A": (a, "r"), "B": (b, "w")}, ctx=c)
        lp.run()
        s = fdx.Stencil(2, order=4, ctx=c)  # (not the 2nd-order Laplacian: test_context_options compiles that)
        s(a, out=b)
        cycle = [c, lp, s]
        cycle.append(cycle)
        del c, lp, s, cycle
        gc.collect()


def test_docs_walkthrough_runs():
    """docs/PYTHON.md's distributed-loop block runs as printed (its asserts
    included) and its commented results are the ones it gets."""
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    text = open(os.path.join(root, "docs", "PYTHON.md")).read()
    start = text.index("```python\n", text.index("### Distributed loops")) + len("```python\n")
    block = text[start:text.index("```", start)]
    scope = {}
    exec(compile(block, "docs/PYTHON.md (distributed loops)", "exec"), scope)
    res = scope["res"]
    assert res["n"] == 3407 and res["top"][1] == (62, 16) and abs(res["eps"] - 0.0025) < 1e-5


def test_sor_matches_the_cli_bit_for_bit():
    """fdx sor --gpus 2 (the CLI's distributed ACROSS SOR, C) and the same
    sweeps written with fdx.DistLoop from Python: the same digest (a hash of
    every point's bits), sum and last change."""
    import json
    cli = os.environ.get("FDX_CLI")
    if not cli:
        pytest.skip("FDX_CLI (the fdx binary) not given")
    n, sweeps = 10, 4
    out = subprocess.run([cli, "sor", "--size", f"{n}x{n}x{n}", "--steps", str(sweeps), "--reps", "1", "--gpus", "2",
                          "--backend", "cpu", "--json"], check=True, capture_output=True, text=True).stdout
    rec = json.loads(out.strip().splitlines()[-1])
    assert rec["verified"] is True
    h = 1.0 / (n - 1)
    k, j, i = np.indices((n, n, n)).astype(float)
    x, y, z = i * h, j * h, k * h
    u0 = np.where((np.minimum.reduce([i, j, k]) == 0) | (np.maximum.reduce([i, j, k]) == n - 1),
                  x * x + 2 * y * y + 3 * z * z + x * y, 0.0)
    d = fdx.Dist((n, n, n), units=2, shadow=1, backend="cpu")
    U = d.array(value=u0)
    lp = d.loop("k,j,i", """double gs = (U(k,j,i-1) + U(k,j,i+1) + U(k,j-1,i) + U(k,j+1,i)
           + U(k-1,j,i) + U(k+1,j,i) - h2lap) / 6.0;
double d = w * (gs - U(k,j,i));
U(k,j,i) += d;
ch = fabs(d);""", {"U": (U, "rw")}, scalars={"w": rec["omega"], "h2lap": 12.0 * h * h},
                reductions={"ch": "max"}, range=((1, 1, 1), (n - 1, n - 1, n - 1)), across=1)
    res = lp.run(times=sweeps)
    cs = U.checksum()
    assert format(cs["digest"], "016x") == rec["checksum"]["digest"]
    assert cs["sum"] == rec["checksum"]["sum"] and res["ch"] == rec["last_change"]


def test_one_unit_loop_typed_reductions_order_and_widths(rng):
    """fdx.Loop takes what DistLoop takes (one mechanism): typed reductions
    (exact ints, prod, and, or, int maxloc with ties), ACROSS low:high widths
    and descending order, on NumPy arrays."""
    u0 = rng.random((9, 12))
    u = u0.copy()
    lp = fdx.Loop("j,i", "U(j,i) = 0.25 * (U(j+1,i) + U(j,i+2) + U(j,i+1) + U(j,i-1)) + 0.125 * U(j,i);\n"
                  "q = (int)(8 * U(j,i)); ql = (long long)q * 3000000000LL; m = q; p = (i == 3) ? 1.5 : 1.0;\n"
                  "a = ~(1LL << (j % 40)); o = 1 << (i % 20);",
                  {"U": (u, "rw")}, range=((0, 1), (8, 10)), across=((0, 1), (1, 2)), order=(-1, -1),
                  reductions={"q": ("sum", "int32"), "ql": ("sum", np.int64), "m": ("maxloc", "int32"), "p": "prod",
                              "a": ("and", "int64"), "o": ("or", "int32")})
    res = lp.run()
    ref = u0.copy()
    qs = np.zeros((8, 9), np.int64)
    for j in range(7, -1, -1):
        for i in range(9, 0, -1):
            ref[j, i] = 0.25 * (ref[j + 1, i] + ref[j, i + 2] + ref[j, i + 1] + ref[j, i - 1]) + 0.125 * ref[j, i]
            qs[j, i - 1] = int(8 * ref[j, i])
    assert np.abs(u - ref).max() < 1e-13
    assert res["q"] == int(qs.sum()) and res["ql"] == int(qs.sum()) * 3000000000
    assert isinstance(res["q"], int) and isinstance(res["ql"], int)
    # int maxloc: the first in the nest's order (Loop's first index, j, is its
    # innermost; both descending), and there are ties
    flat = [(qs[j, i - 1], (j, i)) for i in range(9, 0, -1) for j in range(7, -1, -1)]
    best = max(v for v, _ in flat)
    assert sum(v == best for v, _ in flat) > 1
    assert res["m"] == (best, next(p for v, p in flat if v == best))
    assert res["p"] == 1.5 ** 8
    assert res["a"] == int(np.bitwise_and.reduce([~(1 << (j % 40)) for j in range(8)]))
    assert res["o"] == int(np.bitwise_or.reduce([1 << (i % 20) for i in range(1, 10)]))
    with pytest.raises(ValueError, match="order"):
        fdx.Loop("j,i", "U(j,i) = 0;", {"U": (u, "w")}, order=(0, 1))
    with pytest.raises(TypeError, match="reduction type"):
        fdx.Loop("j,i", "s = U(j,i);", {"U": (u, "r")}, reductions={"s": ("sum", "uint8")})


def test_autotfm_keeps_the_results():
    """autotfm="force" (each unit's block reorganized for its loops) gives
    the plain blocks' fields and reductions bit for bit."""
    u0 = np.random.default_rng(9).random((6, 7, 9))
    got = {}
    for mode in ("off", "force"):
        d = dist(u0.shape, (1, 2, 2), shadow=1)
        U, V = d.array(value=u0), d.array(value=np.full(u0.shape, np.nan))
        lp = d.loop("k,j,i", "V(k,j,i) = U(k,j,i-1) + 2 * U(k+1,j,i) - U(k,j-1,i); m = V(k,j,i);",
                    {"U": (U, "r"), "V": (V, "w")}, range=((0, 1, 1), (5, 7, 9)), reductions={"m": "maxloc"},
                    autotfm=mode)
        got[mode] = (lp.run(times=2), V.gather())
    assert got["off"][0] == got["force"][0]
    assert_same(got["force"][1], got["off"][1], "autotfm")
    with pytest.raises(ValueError, match="autotfm"):
        d.loop("k,j,i", "V(k,j,i) = 0;", {"V": (V, "w")}, autotfm="always")
