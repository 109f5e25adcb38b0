"""The fdx Python package on the CPU backend: every wrapped function against
NumPy references on random inputs with poisoned (NaN) outputs, zero-copy
round trips, the exceptions, and a bit-for-bit check against the CLI."""
import json
import os
import subprocess

import numpy as np
import pytest

import fdx


def lap_ref(u, h):
    out = np.full(u.shape, np.nan)
    inner = tuple(slice(1, -1) for _ in u.shape)
    acc = np.zeros(tuple(n - 2 for n in u.shape))
    for ax in range(u.ndim):
        lo = list(inner)
        hi = list(inner)
        lo[ax] = slice(0, -2)
        hi[ax] = slice(2, None)
        acc += (u[tuple(lo)] - 2 * u[inner] + u[tuple(hi)]) / h[ax] ** 2
    out[inner] = acc
    return out


def check_against(got, want, tol):
    """Interior (want is a number) within tol; boundary (want NaN) untouched (NaN)."""
    got = np.asarray(got, np.float64)
    inner = ~np.isnan(want)
    assert np.isnan(got[~inner]).all(), "boundary points were written"
    err = np.max(np.abs(got[inner] - want[inner]) / np.maximum(1, np.abs(want[inner])))
    assert err < tol, f"error {err}"


# ---- library, context, options, info -------------------------------------------
def test_version_and_library():
    assert fdx.version_string() == "%d.%d.%d" % fdx.version()
    assert fdx.__version__ == fdx.version_string()
    assert os.path.exists(fdx.library_path)
    i = fdx.info()
    assert i["version"] == fdx.version_string() and i["context"]["backend"] == "cpu"
    assert isinstance(fdx.built_with_cuda(), bool) and fdx.cuda_device_count() >= 0


def test_context_options(tmp_path):
    opts = fdx.options()
    assert "backend" in opts and opts["backend"][0] == "FDX_BACKEND"
    c = fdx.Context(backend="cpu", cache_dir=str(tmp_path / "cache"), tune="off", threads=2)
    assert c.backend == "cpu" and c.device_name and c.memory > 0
    assert c.option("cache_dir") == str(tmp_path / "cache") and c.option("tune") == "off"
    assert c.copy_bandwidth(1 << 20, 2) > 0
    # a stencil on this context compiles into its cache directory (in a fresh
    # process: the library keeps what it compiled for the process, and an
    # earlier test may have compiled this kernel already)
    import sys
    code = (f"import fdx, numpy as np; c = fdx.Context(backend='cpu', cache_dir={str(tmp_path / 'cache')!r}, "
            "tune='off'); fdx.laplacian(np.random.default_rng(1).random((8, 9)), ctx=c)")
    subprocess.run([sys.executable, "-c", code], check=True)
    assert any(f.endswith(".so") for f in os.listdir(tmp_path / "cache"))
    fdx.laplacian(np.random.default_rng(1).random((8, 9)), ctx=c)
    c.stream = 0
    assert c.stream == 0
    c.synchronize()
    with pytest.raises(TypeError):
        c.stream = "not a stream"


def test_errors_carry_status_and_message():
    with pytest.raises(fdx.FdxError) as e:
        fdx.Context(backend="quantum")
    assert e.value.status == "FDX_ERR_INVALID" and e.value.code == 1 and "quantum" in e.value.message
    with pytest.raises(fdx.FdxError) as e:
        fdx.Stencil(rank=3, order=5)
    assert e.value.status == "FDX_ERR_INVALID" and "5" in str(e.value)
    with pytest.raises(fdx.FdxError) as e:
        fdx.Simulation("heat", size="8x8", colour="purple")
    assert "colour" in e.value.message
    if fdx.cuda_device_count() == 0:
        with pytest.raises(fdx.FdxError) as e:
            fdx.Context(backend="cuda")
        assert e.value.status == "FDX_ERR_NO_DEVICE" and "cuda" in e.value.message
    u = np.zeros((4, 5))
    with pytest.raises(fdx.FdxError) as e:
        fdx.Loop("j,i", "B(j,i) = undefined_thing;", {"B": (u, "w")}).run()
    assert e.value.status == "FDX_ERR_COMPILE"


def test_array_checks(ctx):
    with pytest.raises(TypeError, match="complex128"):
        fdx.asarray(np.zeros(4, np.complex128))
    with pytest.raises(ValueError, match="1 to 6 axes"):
        fdx.asarray(np.zeros(()))
    with pytest.raises(TypeError, match="list"):
        fdx.asarray([1.0, 2.0])
    with pytest.raises(ValueError, match="C-contiguous"):
        fdx.laplacian(np.zeros((8, 8))[:, ::2].copy(order="F"))
    # a view with gaps: the wrap itself refuses, naming the stride
    v = np.zeros((6, 8))[:, :5]
    with pytest.raises(fdx.FdxError) as e:
        fdx.Loop("j,i", "A(j,i) = 1;", {"A": (v, "w")})
    assert e.value.status == "FDX_ERR_UNSUPPORTED" and "stride 8 of axis 0" in e.value.message

    class FakeCuda:  # device memory handed to a CPU context
        __cuda_array_interface__ = {"shape": (4,), "typestr": "<f8", "data": (1 << 40, False), "version": 3}
    with pytest.raises(ValueError, match="CUDA array given to a context on the cpu backend"):
        fdx.asarray(FakeCuda())
    with pytest.raises(ValueError, match="shape"):
        fdx.permute(np.zeros((3, 4)), (1, 0), out=np.zeros((3, 4)))
    with pytest.raises(ValueError, match="permutation"):
        fdx.permute(np.zeros((3, 4)), (0, 0))


# ---- zero-copy round trips ------------------------------------------------------
def test_numpy_round_trip(rng):
    x = rng.random((5, 6, 7))
    a = fdx.asarray(x)
    assert a.shape == x.shape and a.strides == x.strides and a.dtype == x.dtype and a.device == "cpu"
    y = np.asarray(a)
    assert np.shares_memory(x, y) and np.array_equal(x, y)
    assert np.array_equal(a.to_numpy(), x)
    # fdx's own memory seen from NumPy
    e = fdx.empty((3, 4), "float32")
    v = np.asarray(e)
    v[...] = np.arange(12).reshape(3, 4)
    assert np.array_equal(e.to_numpy(), np.arange(12, dtype=np.float32).reshape(3, 4))
    # Fortran order: the strides become a layout, the values stay NumPy's
    f = np.asfortranarray(x)
    assert np.array_equal(fdx.asarray(f).to_numpy(), x)


def test_dlpack_round_trip(rng):
    x = rng.random((4, 5))
    a = fdx.asarray(x)
    assert a.__dlpack_device__() == (1, 0)
    y = np.from_dlpack(a)
    assert np.shares_memory(x, y) and np.array_equal(x, y)

    class OnlyDlpack:  # a producer known only through DLPack
        def __init__(self, arr):
            self.arr = arr

        def __dlpack__(self, stream=None):
            return self.arr.__dlpack__()

        def __dlpack_device__(self):
            return self.arr.__dlpack_device__()

    z = rng.random((6, 7))
    b = fdx.asarray(OnlyDlpack(z))
    assert b.ptr == z.ctypes.data and b.shape == z.shape
    out = fdx.laplacian(OnlyDlpack(z), out=np.full(z.shape, np.nan))
    check_against(out, lap_ref(z, (1, 1)), 1e-13)
    t = z[:, ::2]  # strided DLPack view: strides come through
    c = fdx.asarray(OnlyDlpack(np.ascontiguousarray(t)))
    assert c.c_contiguous


# ---- stencils -------------------------------------------------------------------
@pytest.mark.parametrize("shape,h", [((13, 17), (0.5, 0.25)), ((7, 9, 11), (1.0, 0.5, 2.0))])
@pytest.mark.parametrize("dtype,tol", [("float64", 1e-12), ("float32", 2e-5)])
def test_laplacian(rng, shape, h, dtype, tol):
    u = rng.random(shape).astype(dtype)
    out = np.full(shape, np.nan, dtype)
    r = fdx.laplacian(u, h=h, out=out)
    assert r is out
    check_against(out, lap_ref(u.astype(np.float64), h), tol)


def star_ref(u, order, h, d2, d1, d0):
    w2, w1 = fdx.fd_weights(2, order), fdx.fd_weights(1, order)
    r = order // 2
    inner = tuple(slice(r, n - r) for n in u.shape)
    acc = d0 * u[inner]
    for ax in range(u.ndim):
        for o in range(-r, r + 1):
            sl = list(inner)
            sl[ax] = slice(r + o, u.shape[ax] - r + o)
            acc = acc + (d2[ax] * w2[o + r] / h[ax] ** 2 + d1[ax] * w1[o + r] / h[ax]) * u[tuple(sl)]
    out = np.full(u.shape, np.nan)
    out[inner] = acc
    return out, inner


def test_stencil_apply_with_first_derivatives(rng):
    u = rng.random((9, 12, 15))
    h, d2, d1 = (0.5, 1.0, 0.25), (1.0, 2.0, 0.5), (0.3, -0.2, 0.1)
    s = fdx.Stencil(3, order=4, h=h, d2=d2, d1=d1, d0=0.7)
    assert s.radius == 2
    want, _ = star_ref(u, 4, h, d2, d1, 0.7)
    out = s(u, out=np.full(u.shape, np.nan))
    check_against(out, want, 1e-11)
    assert s.config(u.shape) != ""
    # bind: one C call per apply, the same result
    out2 = np.full(u.shape, np.nan)
    run = s.bind(u, out2)
    run()
    assert np.array_equal(out, out2, equal_nan=True)


def test_stencil_wave_with_coefficient(rng):
    shape = (10, 11, 12)
    u, up = rng.random(shape).astype(np.float32), rng.random(shape).astype(np.float32)
    c = (1 + 0.5 * rng.random(shape)).astype(np.float32)
    s = fdx.Stencil(3, order=8, update="wave", alpha=0.01, coef=True, dtype="float32")
    L, inner = star_ref(u.astype(np.float64), 8, (1, 1, 1), (1, 1, 1), (0, 0, 0), 0.0)
    want = np.full(shape, np.nan)
    want[inner] = 2.0 * u[inner] - up[inner] + 0.01 * c[inner] * L[inner]
    out = s(u, out=np.full(shape, np.nan, np.float32), u_prev=up, coef=c)
    check_against(out, want, 2e-5)
    with pytest.raises(fdx.FdxError, match="u_prev"):
        s(u, out=np.zeros(shape, np.float32), coef=c)
    with pytest.raises(fdx.FdxError, match="float"):
        s(u.astype(np.float64), out=np.zeros(shape), u_prev=up, coef=c)


def test_heat_update_2d(rng):
    u = rng.random((20, 30))
    s = fdx.Stencil(2, order=2, update="heat", alpha=0.1)
    out = s(u, out=np.full(u.shape, np.nan))
    want = u + 0.1 * lap_ref(u, (1, 1))
    check_against(out, want, 1e-13)


# ---- transforms -----------------------------------------------------------------
@pytest.mark.parametrize("shape,axes", [((5, 7), (1, 0)), ((3, 4, 5), (2, 0, 1)), ((2, 3, 4, 5), (3, 1, 0, 2)),
                                        ((6, 6), (1, 0))])
@pytest.mark.parametrize("dtype", ["float64", "float32", "uint8", "int64"])
def test_permute(rng, shape, axes, dtype):
    x = (rng.random(shape) * 200).astype(dtype)
    out = np.empty([shape[a] for a in axes], dtype)
    out[...] = 0 if dtype == "uint8" or dtype == "int64" else np.nan
    got = fdx.permute(x, axes, out=out)
    assert got is out and np.array_equal(got, np.transpose(x, axes))


def diag_order(ny, nx, anti):
    """Flat positions of the points of a ny x nx plane along diagonals (the
    definition in include/fdx/layout.h), x = last axis."""
    y, x = np.meshgrid(np.arange(ny), np.arange(nx), indexing="ij")
    d = x + y if anti else x + (ny - 1 - y)
    return np.lexsort((x.ravel(), d.ravel()))


@pytest.mark.parametrize("diag", ["anti", "main"])
@pytest.mark.parametrize("shape", [(5, 8), (3, 6, 4)])
def test_diagonalize(rng, diag, shape):
    x = rng.random(shape)
    flat = fdx.diagonalize(x, diag)
    ny, nx = shape[-2:]
    order = diag_order(ny, nx, diag == "anti")
    planes = x.reshape(-1, ny * nx)
    want = np.concatenate([p[order] for p in planes])
    assert np.array_equal(flat, want)
    back = fdx.undiagonalize(flat, shape, diag, out=np.full(shape, np.nan))
    assert np.array_equal(back, x)


# ---- loops -----------------------------------------------------------------------
@pytest.mark.parametrize("order", ["C", "F"])
def test_loop_numpy_indices_and_reductions(rng, order):
    a = np.asarray(rng.random((6, 7, 8)), order=order)
    b = np.full(a.shape, np.nan, order=order)
    lp = fdx.Loop("k,j,i", "B(k,j,i) = A(k,j,i+1) - A(k,j,i-1) + s * A(k+1,j,i);\nt = B(k,j,i);\nm = A(k,j,i);",
                  {"A": (a, "r"), "B": (b, "w")}, scalars={"s": 0.5}, reductions={"t": "sum", "m": "maxloc"},
                  range=((0, 0, 1), (5, 7, 7)))
    res = lp.run()
    want = np.full(a.shape, np.nan)
    want[0:5, 0:7, 1:7] = a[0:5, 0:7, 2:8] - a[0:5, 0:7, 0:6] + 0.5 * a[1:6, 0:7, 1:7]
    check_against(b, want, 1e-13)
    assert abs(res["t"] - np.nansum(want)) < 1e-9
    sub = a[0:5, 0:7, 1:7]
    k, j, i = np.unravel_index(np.argmax(sub), sub.shape)
    assert res["m"] == (sub.max(), (k, j, i + 1))
    lp.set("s", 0.0)
    lp.run()
    want[0:5, 0:7, 1:7] = a[0:5, 0:7, 2:8] - a[0:5, 0:7, 0:6]
    check_against(b, want, 1e-13)


def test_loop_across_sor(rng):
    """Gauss-Seidel sweeps (ACROSS) equal the sequential nest."""
    u = rng.random((10, 10))
    ref = u.copy()
    for _ in range(3):
        for j in range(1, 9):
            for i in range(1, 9):
                ref[j, i] = 0.25 * (ref[j - 1, i] + ref[j + 1, i] + ref[j, i - 1] + ref[j, i + 1])
    lp = fdx.Loop("i,j", "U(j,i) = 0.25 * (U(j-1,i) + U(j+1,i) + U(j,i-1) + U(j,i+1));", {"U": (u, "rw")},
                  range=((1, 1), (9, 9)), across=(1, 1))
    lp.run(times=3)
    assert np.allclose(u, ref, rtol=0, atol=1e-14)


# ---- simulations -----------------------------------------------------------------
def test_simulation_callback_every_n():
    keys = fdx.config_keys("wave")
    assert "size" in keys and "steps" in keys
    seen = []
    s = fdx.Simulation("heat", size="40x30", steps=12)
    assert s.shape == (30, 40) and s.dt > 0
    s.run(every=5, callback=lambda sim, step, f: seen.append((step, f.shape, float(f.sum()))))
    assert [x[0] for x in seen] == [5, 10, 12] and all(x[1] == (30, 40) for x in seen)
    assert s.steps_done == 12 and abs(s.time - 12 * s.dt) < 1e-12
    assert abs(seen[-1][2] - s.diagnose()["sum"]) < 1e-9 * abs(seen[-1][2])
    stop = fdx.Simulation("heat", size="40x30", steps=100)
    stop.run(every=3, callback=lambda sim, step, f: step < 6)
    assert stop.steps_done == 6


def test_simulation_fields_and_receivers():
    s = fdx.Simulation("wave", size="48x40", steps=30, order=4, sponge=4, receivers="24,20;12,20")
    f = np.zeros(s.shape)
    f[20, 24] = 1.0
    s.set_field(f, f)
    assert np.array_equal(s.field(), f)
    s.step(30)
    d = s.diagnose()
    assert np.isfinite(d["energy"]) and d["max_abs"] > 0
    tr = s.receivers()
    assert tr.shape == (2, 30) and np.abs(tr).max() > 0
    with pytest.raises(ValueError):
        s.set_field(np.zeros((3, 3)))
    p = fdx.Simulation("poisson", size="17x17", steps=50)
    p.run()
    assert p.diagnose()["change"] >= 0


def _json_raw(path):
    with open(path) as fh:
        return json.load(fh, parse_float=str)


def test_python_matches_cli_bit_for_bit(tmp_path):
    """The same heat run from Python and from the fdx CLI: the checksums
    (sums in index order) agree to every digit the summary prints."""
    cli = os.environ.get("FDX_CLI")
    if not cli:
        pytest.skip("FDX_CLI (the fdx binary) not given")
    subprocess.run([cli, "heat", "--size", "36x28", "--steps", "25", "--backend", "cpu", "--output",
                    str(tmp_path / "run")], check=True, stdout=subprocess.DEVNULL)
    cs = _json_raw(tmp_path / "run" / "summary.json")["checksum"]
    s = fdx.Simulation("heat", size="36x28", steps=25)
    s.run()
    d = s.diagnose()
    for key in ("sum", "l2"):
        text = cs[key]
        digits = len(text.lower().split("e")[0].replace("-", "").replace(".", "").lstrip("0"))
        if digits >= 17:
            assert float(text) == d[key], key
        else:  # the summary rounds: the Python value printed the same way
            assert format(d[key], ".%dg" % digits) == format(float(text), ".%dg" % digits), key


def test_ctypes_declarations_match_the_headers():
    """Every C function the package declares has the headers' argument count
    (a mirror that drifted would pass garbage)."""
    import re
    root = os.path.join(os.path.dirname(__file__), "..", "..")
    protos = {}
    for name in os.listdir(os.path.join(root, "include", "fdx")):
        if not name.endswith(".h"):
            continue  # include/fdx/internal: the friends' API, hidden from users
        text = open(os.path.join(root, "include", "fdx", name)).read()
        for m in re.finditer(r"FDX_API\s+[^;{]*?\b(fdx_\w+)\s*\(([^)]*)\)\s*;", text, re.S):
            args = m.group(2).strip()
            protos[m.group(1)] = 0 if args in ("", "void") else args.count(",") + 1
    pkg = os.path.join(root, "python", "fdx")
    src = "".join(open(os.path.join(pkg, f)).read() for f in sorted(os.listdir(pkg)) if f.endswith(".py"))
    declared = re.findall(r'_fn\("(fdx_\w+)"', src)
    assert len(declared) > 120
    from fdx._lib import lib
    for name in declared:
        assert name in protos, f"{name} is not in include/fdx"
        assert len(getattr(lib, name).argtypes) == protos[name], name


def test_pip_install_offline(tmp_path):
    """pip install ./python works with no package index (Debian's setuptools
    builds it), into a venv that sees the system's numpy."""
    import shutil
    import sys
    if subprocess.run([sys.executable, "-c", "import venv, ensurepip"], capture_output=True).returncode:
        pytest.skip("python3-venv is not installed")
    root = os.path.join(os.path.dirname(__file__), "..", "..")
    src = tmp_path / "src"
    shutil.copytree(os.path.join(root, "python"), src, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    env = dict(os.environ, PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    subprocess.run([str(venv / "bin" / "pip"), "install", "-q", str(src)], check=True, env=env, cwd=tmp_path)
    env.pop("PYTHONPATH", None)
    out = subprocess.run([str(venv / "bin" / "python"), "-c", "import fdx; print(fdx.__file__, fdx.version_string())"],
                         check=True, env=env, cwd=tmp_path, capture_output=True, text=True).stdout
    assert str(venv) in out and fdx.version_string() in out


def test_wave2d_example_headless(tmp_path):
    """examples/python/wave2d.py runs without a display and writes its plots."""
    pytest.importorskip("matplotlib")
    import sys
    root = os.path.join(os.path.dirname(__file__), "..", "..")
    env = dict(os.environ, MPLBACKEND="Agg", WAVE2D_SIZE="96", WAVE2D_STEPS="120")
    env.pop("DISPLAY", None)
    r = subprocess.run([sys.executable, os.path.join(root, "examples", "python", "wave2d.py"), str(tmp_path)],
                       env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    for name in ("wave2d_snapshots.png", "wave2d_seismogram.png"):
        with open(tmp_path / name, "rb") as fh:
            assert fh.read(8) == b"\x89PNG\r\n\x1a\n"
    assert "4 snapshots" in r.stdout


def test_call_cache_follows_the_arrays(rng):
    """Repeated calls reuse one wrap per live array; an array whose shape
    changes in place is wrapped again; a dead array's entry goes."""
    c = fdx.Context(backend="cpu")
    x = rng.random((6, 8))
    o = np.full(x.shape, np.nan)
    fdx.laplacian(x, out=o, ctx=c)
    n = len(c._views)
    fdx.laplacian(x, out=o, ctx=c)
    assert len(c._views) == n == 2
    check_against(o, lap_ref(x, (1, 1)), 1e-13)
    x.shape = (8, 6)  # the same memory seen as another shape
    o2 = np.full(x.shape, np.nan)
    fdx.laplacian(x, out=o2, ctx=c)
    check_against(o2, lap_ref(x, (1, 1)), 1e-13)
    del x, o, o2
    import gc
    gc.collect()
    assert len(c._views) == 0


@pytest.mark.parametrize("units,grid", [(2, None), (3, None), (4, (2, 2))])
def test_distributed_stencil_matches_one_grid(rng, units, grid):
    """A wave step split over CPU units gives, bit for bit, one stencil's
    result on the whole grid; scatter/gather round trip; checksums."""
    shape = (24, 30)
    u, up = rng.random(shape), rng.random(shape)
    d = fdx.Dist(shape, units=units, grid=grid, shadow=4, backend="cpu")
    assert d.units == units and d.local_units == units and d.procs == 1 and d.proc == 0
    owned = [d.owned(k) for k in range(units)]
    cover = np.zeros(shape, int)
    for sl in owned:
        cover[sl] += 1
    assert (cover == 1).all(), "owned blocks tile the grid"
    U, P, O = d.array(value=u), d.array(value=up), d.array(value=np.full(shape, np.nan))
    assert np.array_equal(U.gather(), u)
    kw = dict(order=8, update="wave", alpha=0.05)
    ds = d.stencil(**kw)
    ds.step(O, U, P)
    want = fdx.Stencil(2, **kw)(u, out=np.full(shape, np.nan), u_prev=up)
    got = O.gather()
    assert np.array_equal(got, want, equal_nan=True), np.nanmax(np.abs(got - want))
    cs = U.checksum()
    assert abs(cs["sum"] - u.sum()) < 1e-9 and cs["digest"] == d.array(value=u).checksum()["digest"]
    with pytest.raises(TypeError, match="mpi4py"):
        fdx.Dist(shape, comm=object())


def test_mpi4py_split_communicator(tmp_path):
    """fdx inside a program's own MPI code: the world split in two parts,
    each running a distributed step on its mpi4py communicator."""
    import shutil
    import sys
    pytest.importorskip("mpi4py")
    if not shutil.which("mpirun"):
        pytest.skip("no mpirun")
    script = os.path.join(os.path.dirname(__file__), "mpi_split.py")
    pkg = os.path.dirname(os.path.dirname(os.path.abspath(fdx.__file__)))
    env = dict(os.environ, FDX_LIBRARY_DIR=os.path.dirname(os.path.abspath(fdx.library_path)),
               PYTHONPATH=pkg + os.pathsep + os.environ.get("PYTHONPATH", ""))
    r = subprocess.run(["mpirun", "--allow-run-as-root", "--oversubscribe", "-np", "3", sys.executable, script],
                       capture_output=True, text=True, timeout=300, cwd=tmp_path, env=env)
    if "built without MPI" in r.stderr or "without MPI" in r.stdout + r.stderr:
        pytest.skip("libfdx built without MPI")
    assert r.returncode == 0, r.stdout + r.stderr
    assert sorted(line for line in r.stdout.splitlines() if line.startswith("rank")) == [
        "rank 0 of part 0 (2 procs): ok", "rank 1 of part 0 (2 procs): ok", "rank 2 of part 1 (1 procs): ok"]


@pytest.mark.parametrize("kind,config", [("wave", dict(size="40x32", steps=20, order=4)),
                                         ("poisson", dict(size="17x17", steps=20)),
                                         ("heat", dict(size="24x20x8", steps=20))])
def test_simulation_callback_fields_match_plain_runs(kind, config):
    """Wave, Poisson and 3-D heat with a callback every 7 steps: each field the
    callback receives is, bit for bit, the field of a run of that many steps
    without one (the callback's copies change nothing)."""
    seen = {}
    fdx.Simulation(kind, **config).run(every=7, callback=lambda sim, step, f: seen.__setitem__(step, f))
    assert sorted(seen) == [7, 14, 20]
    for step, f in seen.items():
        plain = fdx.Simulation(kind, **config)
        plain.run(steps=step)
        assert np.array_equal(plain.field(), f), (kind, step)
        assert np.isfinite(f).all() and np.abs(f).max() > 0
