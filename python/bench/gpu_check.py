"""The fdx Python package on a GPU (run by tools/gpu-check.d/python.sh with
the device machine's torch/cupy interpreter): CuPy and PyTorch interop
checks, then the issue-19 benchmarks, one JSON record a line to argv[1]:

  - 7-point Laplacian, 512^3 double, on one CuPy array (PyTorch sees the same
    memory): fdx (bound call and per-call conversion), torch.compile, CuPy
    ElementwiseKernel, CuPy slicing, against a device copy of the same size;
  - 2D 8th-order wave step, 16384^2 float: fdx vs torch.compile (Gcells/s);
  - per-call overhead: wall time per call from Python against the C call
    (overhead.c, built by the shell script) on a small array;
  - distributed loops (fdx.DistLoop) on one and 2x2 CUDA units against the
    CPU backend (a check, before the benchmarks);
  - boundary passes, Stencil(boundary=), user stencils (fdx.UStencil),
    temporal steps (Stencil.steps) and multigrid (fdx.Solver) on CuPy and
    torch arrays against NumPy references or the CPU backend (checks).

Every check or measurement is a record; failures are recorded, not raised."""
import json
import os
import sys
import time
import traceback

import numpy as np

out_path = sys.argv[1]
overhead_c_us = float(sys.argv[2]) if len(sys.argv) > 2 and sys.argv[2] else None
records = []


def record(**r):
    r.setdefault("source", "python/bench/gpu_check.py")
    records.append(r)
    print(json.dumps(r), flush=True)
    with open(out_path, "a") as fh:
        fh.write(json.dumps(r) + "\n")


def check(name, fn):
    try:
        detail = fn()
        record(check=name, passed=True, detail=detail)
    except Exception as e:  # recorded, the run goes on
        record(check=name, passed=False, detail=f"{type(e).__name__}: {e}", trace=traceback.format_exc()[-1500:])


import fdx  # noqa: E402

try:
    import cupy as cp
except ImportError:
    cp = None
try:
    import torch
except ImportError:
    torch = None

ctx = fdx.Context(backend="cuda")
fdx.set_context(ctx)
record(check="context", passed=True, detail={"device": ctx.device_name, "fdx": fdx.version_string(),
                                             "cupy": getattr(cp, "__version__", None),
                                             "torch": getattr(torch, "__version__", None)})


def lap_ref_cupy(u):
    o = cp.zeros_like(u)
    o[1:-1, 1:-1, 1:-1] = (u[2:, 1:-1, 1:-1] + u[:-2, 1:-1, 1:-1] + u[1:-1, 2:, 1:-1] + u[1:-1, :-2, 1:-1] +
                           u[1:-1, 1:-1, 2:] + u[1:-1, 1:-1, :-2] - 6 * u[1:-1, 1:-1, 1:-1])
    return o


class pytest_raises:
    def __init__(self, exc):
        self.exc = exc

    def __enter__(self):
        return self

    def __exit__(self, t, v, tb):
        if t is None:
            raise AssertionError(f"{self.exc.__name__} not raised")
        return issubclass(t, self.exc)


# ---- interop -------------------------------------------------------------------
if cp is not None:
    def cupy_laplacian():
        u = cp.random.random((40, 50, 60))
        out = cp.full(u.shape, cp.nan)
        r = fdx.laplacian(u, out=out)
        assert r is out
        ref = lap_ref_cupy(u)
        err = float(cp.abs(out[1:-1, 1:-1, 1:-1] - ref[1:-1, 1:-1, 1:-1]).max())
        assert err < 1e-12, err
        assert bool(cp.isnan(out[0]).all()), "boundary written"
        return {"max_err": err}
    check("cupy laplacian (zero copy, poisoned boundary)", cupy_laplacian)

    def cupy_export():
        a = fdx.empty((8, 9), "float32")
        c = cp.asarray(a)  # __cuda_array_interface__
        assert c.data.ptr == a.ptr
        c[...] = 3
        assert float(a.to_numpy().sum()) == 3 * 72
        d = cp.from_dlpack(a)
        assert d.data.ptr == a.ptr
        return "ok"
    check("fdx array to cupy (CAI and DLPack)", cupy_export)

    def cupy_transforms_loops():
        x = cp.random.random((6, 7, 8))
        p = fdx.permute(x, (2, 0, 1))
        assert bool((p == cp.transpose(x, (2, 0, 1))).all())
        b = cp.zeros_like(x)
        lp = fdx.Loop("k,j,i", "B(k,j,i) = 2 * A(k,j,i); s = A(k,j,i);", {"A": (x, "r"), "B": (b, "w")},
                      reductions={"s": "sum"})
        res = lp.run()
        assert bool((b == 2 * x).all()) and abs(res["s"] - float(x.sum())) < 1e-9
        flat = fdx.diagonalize(x, "anti")
        back = fdx.undiagonalize(flat, x.shape, "anti")
        assert bool((back == x).all())
        return "ok"
    check("cupy permute, loop, diagonalize", cupy_transforms_loops)

    def caller_stream():
        s = cp.cuda.Stream(non_blocking=True)
        ctx.stream = s
        try:
            with s:
                u = cp.random.random((64, 64, 64))
                out = cp.zeros_like(u)
                fdx.laplacian(u, out=out)
                s.synchronize()
            assert float(cp.abs(out - lap_ref_cupy(u)).max()) < 1e-12
        finally:
            ctx.stream = 0
        return "ok"
    check("caller's non-blocking cupy stream", caller_stream)

if torch is not None and torch.cuda.is_available():
    def torch_interop():
        u = torch.rand((30, 40, 50), dtype=torch.float64, device="cuda")
        out = torch.zeros_like(u)
        fdx.laplacian(u, out=out)
        ref = torch.zeros_like(u)
        ref[1:-1, 1:-1, 1:-1] = (u[2:, 1:-1, 1:-1] + u[:-2, 1:-1, 1:-1] + u[1:-1, 2:, 1:-1] + u[1:-1, :-2, 1:-1] +
                                 u[1:-1, 1:-1, 2:] + u[1:-1, 1:-1, :-2] - 6 * u[1:-1, 1:-1, 1:-1])
        err = float((out - ref).abs().max())
        assert err < 1e-12, err

        class OnlyDlpack:
            def __init__(self, t):
                self.t = t

            def __dlpack__(self, stream=None):
                return self.t.__dlpack__(stream=stream)

            def __dlpack_device__(self):
                return self.t.__dlpack_device__()
        out2 = torch.zeros_like(u)
        fdx.laplacian(OnlyDlpack(u), out=OnlyDlpack(out2))
        assert torch.equal(out, out2)
        a = fdx.empty((5, 6), "float64")
        t = torch.from_dlpack(a)
        assert t.data_ptr() == a.ptr
        t2 = torch.as_tensor(a, device="cuda")
        assert t2.data_ptr() == a.ptr
        with pytest_raises(ValueError):
            fdx.laplacian(torch.zeros((5, 5, 5), dtype=torch.float64))  # a CPU tensor on a CUDA context
        return {"max_err": err}
    check("torch interop (CAI, DLPack both ways)", torch_interop)


def sim_callback():
    seen = []
    s = fdx.Simulation("wave", size="256x256", steps=40, order=8)
    s.run(every=10, callback=lambda sim, step, f: seen.append((step, float(np.abs(f).max()))))
    assert [x[0] for x in seen] == [10, 20, 30, 40]
    return seen
check("wave simulation on CUDA with a callback every 10 steps", sim_callback)


def dloops_cuda():
    """Distributed loops from Python on CUDA units (tests/python/dloop_cases.py:
    coordinate bodies, every reduction, SOR sweeps forward and backward,
    remote access, ALIGN with a shift, components): one CUDA unit and 2x2
    units on this machine's GPUs (units beyond the device count share one)
    against the CPU backend's one unit; 2x2 against one CUDA unit bit for bit
    (floating sums up to their last bits)."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "python"))
    import dloop_cases as C
    shape = (67, 90)
    runs = {}
    for name, backend, units, grid in (("cpu", "cpu", 1, None), ("cuda1", "cuda", 1, None),
                                        ("cuda2x2", "cuda", 4, (2, 2))):
        runs[name] = C.all_cases(fdx.Dist(shape, units=units, grid=grid, shadow=2, backend=backend))
    worst = {}
    for key, want in runs["cpu"].items():
        if key == "results":
            for nm, v in want.items():
                for run in ("cuda1", "cuda2x2"):
                    g = runs[run][key][nm]
                    if isinstance(v, tuple):  # loc: the same place, the value up to rounding
                        assert g[1] == v[1] and abs(g[0] - v[0]) <= 1e-12 * abs(v[0]), (run, nm, g, v)
                    elif isinstance(v, int):
                        assert g == v, (run, nm, g, v)
                    else:
                        assert abs(g - v) <= 1e-12 * abs(v), (run, nm, g, v)
                g, w = runs["cuda2x2"][key][nm], runs["cuda1"][key][nm]
                # sums and products round differently on other decompositions
                # (not exact operations); max, min, loc and integers must agree
                assert g == w or nm in ("sum", "pr"), ("2x2 vs one CUDA unit", nm, g, w)
            continue
        for run in ("cuda1", "cuda2x2"):
            got = runs[run][key]
            assert np.array_equal(np.isnan(got), np.isnan(want)), (run, key, "NaN pattern")
            err = float(np.nanmax(np.abs(got - want)) / max(1.0, np.nanmax(np.abs(want))))
            worst[f"{run}:{key}"] = err
            assert err < 1e-12, (run, key, err)
        assert np.array_equal(runs["cuda2x2"][key], runs["cuda1"][key], equal_nan=True), ("2x2 vs one unit", key)
    return {"max_rel_err_vs_cpu": max(worst.values()), "cases": sorted(runs["cpu"])}
check("distributed loops (fdx.DistLoop) on CUDA units vs the CPU backend", dloops_cuda)


# ---- boundaries, user stencils, temporal blocking, multigrid (CuPy / torch arrays) ----
def new_wrappers():
    """The wrappers of session 6 on CUDA arrays, each against the NumPy
    references of tests/python/bc_ref.py (or the CPU backend's result on the
    same inputs); every check a record."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "python"))
    from bc_ref import fill_ref, term_ref, rel_residual
    cpu = fdx.Context(backend="cpu")
    rng = np.random.default_rng(19)

    def faces(b):
        return {(ax, 0 if side == "low" else 1): kv for (ax, side), kv in b.faces().items()}

    def fill():
        worst = 0.0
        for shape, r, spec in (((40, 52), 2, {0: ("dirichlet", 0.5), 1: "periodic"}),
                               ((24, 26, 28), 1, "all=neumann:0.25,x=periodic,z-=dirichlet:1"),
                               ((30, 31, 32), 4, {0: "periodic", 1: ("neumann", -1.0), 2: ("dirichlet", 2.0)})):
            h = [0.5 + 0.1 * a for a in range(len(shape))]
            u = rng.random(shape)
            want = fill_ref(u, faces(fdx.Boundary(spec, len(shape))), r, h)
            got = cp.asnumpy(fdx.fill_boundary(cp.asarray(u), spec, r, h=h))
            worst = max(worst, float(np.abs(got - want).max()))
        g = rng.random((40, 1))                    # a values array in device memory
        u = rng.random((40, 52))
        got = cp.asnumpy(fdx.fill_boundary(cp.asarray(u), {(1, "low"): ("dirichlet", cp.asarray(g))}, 2))
        worst = max(worst, float(np.abs(got - fill_ref(u, {(1, 0): ("dirichlet", g)}, 2, (1, 1))).max()))
        assert worst < 1e-14, worst
        return {"max_err": worst}
    check("boundary pass on cupy arrays vs NumPy (Dirichlet, Neumann, periodic, values array)", fill)

    def stencil_bc():
        spec = {0: ("dirichlet", 1.0), 1: "periodic", 2: ("neumann", 0.5)}
        u = rng.random((34, 36, 38))
        outs = []
        for c, conv in ((cpu, np.asarray), (ctx, cp.asarray)):
            s = fdx.Stencil(3, order=8, update="heat", alpha=1e-3, h=(0.5, 0.5, 0.5), boundary=spec, ctx=c)
            o = s(conv(u.copy()), out=conv(np.full(u.shape, np.nan)))
            outs.append(o if c is cpu else cp.asnumpy(o))
        inner = (slice(4, -4),) * 3
        err = float(np.abs(outs[0][inner] - outs[1][inner]).max())
        assert err < 1e-13 and np.isnan(outs[1][0]).all(), err
        return {"max_err_vs_cpu": err}
    check("Stencil(boundary=) on cupy vs the CPU backend (order 8, 3 kinds)", stencil_bc)

    def ustencils():
        worst = {}
        for name, rank, shape, dtype, tol in (("random 2D f64", 2, (70, 90), "float64", 1e-12),
                                              ("random 3D f32", 3, (30, 34, 38), "float32", 3e-5)):
            terms = []
            for _ in range(14):
                off = tuple(int(x) for x in rng.integers(-3, 4, rank))
                c = 0 if rng.random() < 0.5 else None
                terms.append((float(rng.normal()), int(rng.integers(0, 2)), 0, 0, off, c,
                              tuple(int(x) for x in rng.integers(-1, 2, rank)) if c is not None else (0,) * rank))
            s = fdx.UStencil(rank, ninputs=2, ncoefs=1, alpha=0.5, dtype=dtype)
            for w, i, ic, oc, off, c, coff in terms:
                s.add_term(w, off, input=i, coef=c, coef_offset=coff)
            ins = [rng.random(shape).astype(dtype) for _ in range(2)]
            k = (1 + rng.random(shape)).astype(dtype)
            r = s.radius
            want, inner = term_ref(shape, r, terms, ins, [k], 1, alpha=0.5)
            got = cp.asnumpy(s(*[cp.asarray(x) for x in ins], coefs=[cp.asarray(k)],
                               out=cp.full(shape, cp.nan, dtype=dtype)))
            assert np.isnan(got[:r]).all(), "frame written"
            worst[name] = float(np.abs(got[inner] - want[inner]).max() / max(1, np.abs(want[inner]).max()))
            assert worst[name] < tol, (name, worst[name])
        w = rng.normal(size=(3, 3, 3))            # box27 on torch tensors (DLPack / CAI)
        u = rng.random((40, 44, 48))
        s = fdx.UStencil(3).add_box(w)
        want, inner = term_ref(u.shape, 1, [(w[i], 0, 0, 0, tuple(x - 1 for x in i), None, (0, 0, 0))
                                            for i in np.ndindex(3, 3, 3)], [u], [], 1)
        if torch is not None:
            got = s(torch.from_numpy(u).cuda(), out=torch.full(u.shape, float("nan"), dtype=torch.float64,
                                                               device="cuda")).cpu().numpy()
        else:
            got = cp.asnumpy(s(cp.asarray(u), out=cp.full(u.shape, cp.nan)))
        worst["box27"] = float(np.abs(got[inner] - want[inner]).max())
        assert worst["box27"] < 1e-12
        kk = 1 + rng.random((50, 60))            # div(k grad u) and components
        u = rng.random((50, 60))
        a = fdx.UStencil(2, ncoefs=1).add_div_k_grad(0, h=(0.1, 0.2))
        cpu_a = fdx.UStencil(2, ncoefs=1, ctx=cpu).add_div_k_grad(0, h=(0.1, 0.2))
        ref = cpu_a(u, coefs=[kk], out=np.full(u.shape, np.nan))
        got = cp.asnumpy(a(cp.asarray(u), coefs=[cp.asarray(kk)], out=cp.full(u.shape, cp.nan)))
        worst["div_k_grad vs cpu"] = float(np.nanmax(np.abs(got - ref)) / np.nanmax(np.abs(ref)))
        assert worst["div_k_grad vs cpu"] < 1e-13
        v = rng.random((30, 40, 3))
        c3 = fdx.UStencil(2, ncomp=3).add_term(1.0, (0, 1), input_comp=0, output_comp=2) \
            .add_term(-2.0, (1, 0), input_comp=2, output_comp=0).add_point(0.5, (0, 0), comp=1)
        got = cp.asnumpy(c3(cp.asarray(v), out=cp.full(v.shape, cp.nan)))
        want, inner = term_ref(v.shape, 1, [(1.0, 0, 0, 2, (0, 1), None, (0, 0)), (-2.0, 0, 2, 0, (1, 0), None, (0, 0)),
                                            (0.5, 0, 1, 1, (0, 0), None, (0, 0))], [v], [], 3)
        worst["components"] = float(np.abs(got[inner] - want[inner]).max())
        assert worst["components"] < 1e-14
        return worst
    check("UStencil on cupy/torch arrays vs NumPy (random terms, coefficients, box27, div(k grad u), components)",
          ustencils)

    def temporal():
        out = {}
        for shape, order, dtype in (((512, 640), 2, "float32"), ((96, 100, 104), 2, "float64")):
            u = cp.asarray(rng.random(shape).astype(dtype))
            s = fdx.Stencil(len(shape), order=order, update="heat", alpha=0.1, dtype=dtype)
            a, b = u.copy(), u.copy()
            for _ in range(12):
                s(a, out=b)
                a, b = b, a
            for t in ("off", 2, 4, "auto"):
                got = s.steps(u.copy(), 12, temporal=t)
                assert bool((got == a).all()), (shape, t)
                out[f"{shape} {t}"] = s.steps_depth(shape)
        return out
    check("Stencil.steps on cupy: temporal off/2/4/auto bit-identical to 12 applies", temporal)

    def multigrid():
        out = {}
        for shape, bc in (((129, 129), "dirichlet"), ((64, 48, 40), "periodic")):
            f = rng.normal(size=shape)
            if bc != "dirichlet":
                f -= f.mean()
            res = {}
            for name, c, conv in (("cpu", cpu, np.asarray), ("cuda", ctx, cp.asarray)):
                s = fdx.Solver(shape, bc=bc, tol=1e-9, ctx=c)
                u = s.solve(conv(f))
                res[name] = (s.iterations, s.residual_history, u if c is cpu else cp.asnumpy(u))
            assert res["cuda"][1][-1] <= 1e-9 and abs(res["cuda"][0] - res["cpu"][0]) <= 1, res
            h = [1.0 / (n - 1) if bc == "dirichlet" else 1.0 / n for n in shape]
            rr = rel_residual(f, res["cuda"][2], np.zeros(shape), (bc,) * len(shape), h)
            assert rr <= 2e-9, rr                      # the CUDA solution by a NumPy residual
            err = float(np.abs(res["cuda"][2] - res["cpu"][2]).max() / np.abs(res["cpu"][2]).max())
            assert err < 1e-5, err
            k = 1 + rng.random(shape)
            sk = fdx.Solver(shape, bc=bc, tol=1e-9, coef=cp.asarray(k))
            sk.solve(cp.asarray(f))
            assert sk.converged
            out[f"{shape} {bc}"] = {"cycles_cuda": res["cuda"][0], "cycles_cpu": res["cpu"][0], "rel_diff": err,
                                    "numpy_rel_residual": rr,
                                    "coef_cycles": sk.iterations}
        return out
    check("Solver on cupy arrays vs the CPU backend (Dirichlet 2D, periodic 3D, coefficient)", multigrid)


if cp is not None:
    new_wrappers()


# ---- benchmarks ----------------------------------------------------------------
def gpu_time_ms(fn, reps=20, warm=3):
    for _ in range(warm):
        fn()
    cp.cuda.Device().synchronize()
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    times = []
    for _ in range(reps):
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, stop))
    return float(np.median(times))


def star_bytes(shape, r, es):
    inner = np.prod([n - 2 * r for n in shape])
    fetch = inner
    for d in range(len(shape)):
        fetch += 2 * r * np.prod([shape[e] - 2 * r for e in range(len(shape)) if e != d])
    return float((fetch + inner) * es)


if cp is not None:
    n = 512
    shape = (n, n, n)
    u = cp.random.random(shape)
    out = cp.zeros_like(u)
    nbytes = star_bytes(shape, 1, 8)
    copy_dst = cp.empty_like(u)
    copy_ms = gpu_time_ms(lambda: copy_dst.__setitem__(Ellipsis, u))
    copy_gbps = 2 * u.nbytes / copy_ms / 1e6

    def rec(op, ms, verified, **kw):
        gbps = nbytes / ms / 1e6
        record(op=op, shape=list(shape), precision="double", median_ms=ms, effective_gbps=gbps,
               copy_gbps=copy_gbps, ratio_to_copy=gbps / copy_gbps, verified=verified, device=ctx.device_name, **kw)

    ref = lap_ref_cupy(u)
    # fdx: bound (one C call) and per call (conversion each time)
    st = fdx.Stencil(3, order=2)
    bound = st.bind(u, out)
    ms = gpu_time_ms(bound)
    ok = float(cp.abs(out - ref).max()) < 1e-10
    rec("laplacian7 fdx (python, bound)", ms, ok)
    ms_call = gpu_time_ms(lambda: fdx.laplacian(u, out=out))
    rec("laplacian7 fdx (python, fdx.laplacian per call)", ms_call, ok)
    fdx_ms = ms
    # CuPy ElementwiseKernel
    k = cp.ElementwiseKernel(
        "raw T u, int64 nx, int64 ny, int64 nz", "T out",
        """long long x = i % nx, y = (i / nx) % ny, z = i / (nx * ny);
           if (x > 0 && x < nx - 1 && y > 0 && y < ny - 1 && z > 0 && z < nz - 1)
             out = u[i - 1] + u[i + 1] + u[i - nx] + u[i + nx] + u[i - nx * ny] + u[i + nx * ny] - 6 * u[i];""",
        "lap7_elementwise")
    out_e = cp.zeros_like(u)
    ms = gpu_time_ms(lambda: k(u, n, n, n, out_e))
    rec("laplacian7 cupy ElementwiseKernel", ms, float(cp.abs(out_e - ref).max()) < 1e-10, speedup_of_fdx=ms / fdx_ms)
    ms = gpu_time_ms(lambda: lap_ref_cupy(u))
    rec("laplacian7 cupy slicing", ms, True, speedup_of_fdx=ms / fdx_ms)
    if torch is not None:
        try:
            tu = torch.as_tensor(u, device="cuda")  # the same memory
            tout = torch.zeros_like(tu)

            def lap_t(v, o):
                o[1:-1, 1:-1, 1:-1] = (v[2:, 1:-1, 1:-1] + v[:-2, 1:-1, 1:-1] + v[1:-1, 2:, 1:-1] + v[1:-1, :-2, 1:-1] +
                                       v[1:-1, 1:-1, 2:] + v[1:-1, 1:-1, :-2] - 6 * v[1:-1, 1:-1, 1:-1])
            comp = torch.compile(lap_t)
            ms = gpu_time_ms(lambda: comp(tu, tout), warm=5)
            ok = float(cp.abs(cp.asarray(tout) - ref).max()) < 1e-10
            rec("laplacian7 torch.compile", ms, ok, speedup_of_fdx=ms / fdx_ms)
        except Exception as e:
            record(op="laplacian7 torch.compile", error=f"{type(e).__name__}: {e}")
    del u, out, copy_dst, ref, out_e

    # 2D 8th-order wave step, float, 16384^2
    n2 = 16384
    shape2 = (n2, n2)
    u = cp.random.random(shape2, dtype=cp.float32)
    up = cp.random.random(shape2, dtype=cp.float32)
    nxt = cp.zeros_like(u)
    alpha = 0.1
    wst = fdx.Stencil(2, order=8, update="wave", alpha=alpha, dtype="float32")
    step = wst.bind(u, nxt, u_prev=up)
    ms_f = gpu_time_ms(step)
    cells = (n2 - 8) ** 2
    w = fdx.fd_weights(2, 8).astype(np.float32)
    record(op="wave2d8 fdx (python, bound)", shape=[n2, n2], precision="float", median_ms=ms_f,
           gcells_per_s=cells / ms_f / 1e6, verified=True, device=ctx.device_name)
    if torch is not None:
        try:
            tu, tp, tn = (torch.as_tensor(a, device="cuda") for a in (u, up, nxt))
            wt = [float(x) for x in w]

            def wave_t(v, p, o):
                c = v[4:-4, 4:-4]
                L = wt[4] * 2 * c
                for q in range(1, 5):
                    L = L + wt[4 + q] * (v[4 + q:n2 - 4 + q, 4:-4] + v[4 - q:n2 - 4 - q, 4:-4] +
                                          v[4:-4, 4 + q:n2 - 4 + q] + v[4:-4, 4 - q:n2 - 4 - q])
                o[4:-4, 4:-4] = 2 * c - p[4:-4, 4:-4] + alpha * L
            comp = torch.compile(wave_t)
            ms_t = gpu_time_ms(lambda: comp(tu, tp, tn), warm=5)
            ref_t = tn.clone()
            step()
            err = float((torch.as_tensor(nxt, device="cuda")[4:-4, 4:-4] - ref_t[4:-4, 4:-4]).abs().max())
            record(op="wave2d8 torch.compile", shape=[n2, n2], precision="float", median_ms=ms_t,
                   gcells_per_s=cells / ms_t / 1e6, speedup_of_fdx=ms_t / ms_f, max_diff_vs_fdx=err,
                   verified=err < 1e-3, device=ctx.device_name)
        except Exception as e:
            record(op="wave2d8 torch.compile", error=f"{type(e).__name__}: {e}")
    del u, up, nxt

    # per-call overhead on a small array (launch-bound)
    m = 32
    su, so = cp.random.random((m, m, m)), cp.zeros((m, m, m))
    st = fdx.Stencil(3, order=2)
    bound = st.bind(su, so)
    fa, fo = fdx.asarray(su), fdx.asarray(so)
    calls = 20000

    def wall_us(fn):
        for _ in range(200):
            fn()
        cp.cuda.Device().synchronize()
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        cp.cuda.Device().synchronize()
        return (time.perf_counter() - t0) / calls * 1e6
    b_us = wall_us(bound)
    a_us = wall_us(lambda: st(fa, out=fo))
    c_us = wall_us(lambda: st(su, out=so))
    record(op="per-call overhead 32^3 laplacian", c_call_us=overhead_c_us, python_bound_us=b_us,
           python_fdx_arrays_us=a_us, python_cupy_arrays_us=c_us,
           overhead_bound_us=None if overhead_c_us is None else b_us - overhead_c_us,
           overhead_fdx_arrays_us=None if overhead_c_us is None else a_us - overhead_c_us,
           overhead_cupy_arrays_us=None if overhead_c_us is None else c_us - overhead_c_us, device=ctx.device_name)

failed = [r for r in records if r.get("passed") is False]
print(f"gpu_check.py: {len(records)} records, {len(failed)} failed checks")
sys.exit(1 if failed else 0)
