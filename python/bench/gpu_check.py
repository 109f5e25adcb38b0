"""The fdx Python package on a GPU (run by tools/gpu-check.d/python.sh with
the device machine's torch/cupy interpreter): CuPy and PyTorch interop
checks, then the issue-19 benchmarks, one JSON record a line to argv[1]:

  - 7-point Laplacian, 512^3 double, on one CuPy array (PyTorch sees the same
    memory): fdx (bound call and per-call conversion), torch.compile, CuPy
    ElementwiseKernel, CuPy slicing, against a device copy of the same size;
  - 2D 8th-order wave step, 16384^2 float: fdx vs torch.compile (Gcells/s);
  - per-call overhead on a small array (python/bench/overhead.py): the C
    loop (overhead.c as a shared object) and the Python paths (bound, fdx
    arrays, raw CuPy arrays, raw torch tensors) in this process on the same
    memory, interleaved over 7 rounds; and a profile of the Python side;
  - distributed loops (fdx.DistLoop) on one and 2x2 CUDA units against the
    CPU backend (a check, before the benchmarks);
  - boundary passes, Stencil(boundary=), user stencils (fdx.UStencil),
    temporal steps (Stencil.steps) and multigrid (fdx.Solver) on CuPy and
    torch arrays against NumPy references or the CPU backend (checks);
  - session 7: Stencil.wave_steps on CuPy / torch arrays, DistStencil deep
    halos on CUDA units, Simulation.run_dist_timed against `fdx dist`
    (FDX_CLI) and one unit, the call cache on real CuPy / torch arrays.

Every check or measurement is a record; failures are recorded, not raised."""
import json
import os
import sys
import time
import traceback

import numpy as np

out_path = sys.argv[1]
# FDX_PY_CHECK_PARTS: "checks" (interop and wrapper checks), "bench" (the
# benchmarks and the per-call overhead, well under a minute), or both
PARTS = os.environ.get("FDX_PY_CHECK_PARTS", "checks,bench").split(",")
CHECKS, BENCH = "checks" in PARTS, "bench" in PARTS
overhead_c_us = float(sys.argv[2]) if len(sys.argv) > 2 and sys.argv[2] else None
records = []
T0 = time.perf_counter()


def record(**r):
    r.setdefault("source", "python/bench/gpu_check.py")
    r.setdefault("elapsed_s", round(time.perf_counter() - T0, 1))  # since the start: where the time goes
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
if cp is not None and CHECKS:
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

if CHECKS and torch is not None and torch.cuda.is_available():
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
if CHECKS:
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
if CHECKS:
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


if cp is not None and CHECKS:
    new_wrappers()


# ---- session 7: wave steps, deep halos, timed distributed runs, the call cache ----
def steppers():
    """Stencil.wave_steps on CuPy arrays, DistStencil deep halos on CUDA
    units, Simulation.run_dist_timed against `fdx dist` on CUDA, and the
    call cache on real CuPy / torch arrays; every check a record."""
    rng = np.random.default_rng(7)

    def wave_steps():
        out = {}
        for shape, order, dtype, coef in (((512, 640), 8, "float32", False), ((96, 100, 104), 4, "float64", True),
                                          ((130, 126), 2, "float64", True)):
            u = cp.asarray((rng.random(shape) - 0.5).astype(dtype))
            up = u.copy()
            r = order // 2
            inner = (slice(r, -r),) * len(shape)
            up[inner] += cp.asarray((0.01 * rng.random(tuple(n - 2 * r for n in shape))).astype(dtype))
            c = cp.asarray((0.5 + 0.5 * rng.random(shape)).astype(dtype)) if coef else None
            s = fdx.Stencil(len(shape), order=order, update="wave", alpha=0.05, coef=coef, dtype=dtype)
            p, a = up.copy(), u.copy()
            for _ in range(12):                         # single applies (fdx_stencil_apply), rotating
                o = a.copy()
                s(a, out=o, u_prev=p, coef=c)
                p, a = a, o
            for t in ("off", 2, 4, "auto"):
                gu, gp = s.wave_steps(u.copy(), up.copy(), 12, coef=c, temporal=t)
                assert bool((gu == a).all()) and bool((gp == p).all()), (shape, t)
                out[f"{shape} {dtype} order {order} {t}"] = s.steps_depth(shape)
            # torch tensors through the same call
            if torch is not None:
                tu, tp = torch.as_tensor(u.copy(), device="cuda"), torch.as_tensor(up.copy(), device="cuda")
                s.wave_steps(tu, tp, 12, coef=None if c is None else torch.as_tensor(c, device="cuda"), temporal=2)
                assert bool((cp.asarray(tu) == a).all()) and bool((cp.asarray(tp) == p).all()), (shape, "torch")
        return out
    check("Stencil.wave_steps on cupy/torch: temporal off/2/4/auto bit-identical to 12 applies", wave_steps)

    def deep_halos():
        out = {}
        shape = (1024, 768)
        for wave, order, dtype in ((False, 2, "float64"), (True, 8, "float32"), (True, 4, "float64")):
            r = order // 2
            u = (rng.random(shape) - 0.5).astype(dtype)
            fields = [u.copy() for _ in range(3 if wave else 2)]
            if wave:
                fields[0][r:-r, r:-r] += (0.01 * rng.random((shape[0] - 2 * r, shape[1] - 2 * r))).astype(dtype)
            c = (0.5 + 0.5 * rng.random(shape)).astype(dtype) if wave else None
            res = {}
            for name, units, k, backend in (("cuda 1 unit", 1, 0, "cuda"), ("cuda 2 units k4", 2, 4, "cuda"),
                                            ("cuda 3 units k3", 3, 3, "cuda"), ("cpu 1 unit", 1, 0, "cpu")):
                d = fdx.Dist(shape, units=units, shadow=max(k, 1) * r if units > 1 else 0, backend=backend)
                kw = dict(update="wave", alpha=0.05, coef=True) if wave else dict(update="heat", alpha=0.02)
                st = d.stencil(order=order, dtype=dtype, temporal=k, **kw)
                ring = [d.array(dtype, value=f) for f in fields]
                st.run(ring, 21, coef=d.array(dtype, value=c) if wave else None)
                res[name] = [ring[-2].gather(all=True)] + ([ring[0].gather(all=True)] if wave else [])
            for name in ("cuda 2 units k4", "cuda 3 units k3"):
                for g, w in zip(res[name], res["cuda 1 unit"]):
                    assert np.array_equal(g, w), (wave, order, dtype, name)
            err = max(float(np.abs(g - w).max() / max(1e-30, np.abs(w).max()))
                      for g, w in zip(res["cuda 1 unit"], res["cpu 1 unit"]))
            assert err < (1e-4 if dtype == "float32" else 1e-12), err
            out[f"{'wave' if wave else 'heat'} order {order} {dtype}"] = {"rel_diff_cuda_vs_cpu": err}
        return out
    check("DistStencil deep halos (k 3, 4) on CUDA units bit-identical to one unit; vs the CPU backend", deep_halos)

    def run_dist_timed():
        import subprocess
        out = {}
        cli = os.environ.get("FDX_CLI")
        for kind, size, steps, units in (("wave", "2048x1536", 100, 2), ("heat", "256x200x160", 40, 1)):
            keys = dict(size=size, steps=steps, gpus=units, precision="float")
            keys.update(model="layered") if kind == "wave" else keys.update(init="gaussian", boundary="fixed")
            sim = fdx.Simulation(kind, ctx=fdx.Context(backend="cpu"), **keys)
            res = sim.run_dist_timed(units, reps=5, backend="cuda")
            t = res["timing"]
            assert t["median_ms"] > 0 and res["units"] == units
            one = fdx.Simulation(kind, ctx=fdx.Context(backend="cpu"), **dict(keys, gpus=1)).run_dist_timed(
                1, reps=5, graph=False, backend="cuda")["timing"]
            assert one["digest"] == t["digest"] and one["digest_timed"] == t["digest_timed"], (kind, one, t)
            if cli:
                rec = json.loads(subprocess.run([cli, "dist", kind, "--size", size, "--steps", str(steps), "--gpus",
                                                 str(units), "--reps", "5", "--json", "--backend", "cuda"],
                                                check=True, capture_output=True, text=True).stdout)
                assert rec["checksum"]["digest"] == t["digest"], (rec["checksum"], t)
                assert rec["checksum"]["digest_after_timing"] == t["digest_timed"], (rec["checksum"], t)
            out[f"{kind} {size} on {units}"] = {k: t[k] for k in ("median_ms", "graph_used", "digest", "digest_timed",
                                                                  "transport", "note")}
            out[f"{kind} {size} on {units}"]["cli_compared"] = bool(cli)
        return out
    check("Simulation.run_dist_timed on CUDA: digests = fdx dist's and one unit's (graphs on and off)", run_dist_timed)

    def call_cache():
        from fdx._array import plain
        s = fdx.Stencil(3)
        u, o = cp.random.random((20, 22, 24)), cp.zeros((20, 22, 24))
        s(u, out=o)
        h = plain(u, ctx)
        s(u, out=o)
        assert plain(u, ctx) is h
        assert float(cp.abs(o - lap_ref_cupy(u)).max()) < 1e-12
        u.shape = (22, 20, 24)                            # CuPy's in-place reshape
        o2 = cp.zeros((22, 20, 24))
        s(u, out=o2)
        assert plain(u, ctx) is not h and float(cp.abs(o2 - lap_ref_cupy(u)).max()) < 1e-12
        key = id(u)
        del u
        assert key not in ctx._views                      # the dead array's entry went with it
        for _ in range(50):                               # new arrays from CuPy's pool reuse memory
            v = cp.random.random((20, 22, 24))
            w = cp.zeros_like(v)
            s(v, out=w)
            assert float(cp.abs(w - lap_ref_cupy(v)).max()) < 1e-12
        if torch is not None:
            t = torch.rand((20, 22, 24), dtype=torch.float64, device="cuda")
            to = torch.zeros_like(t)
            s(t, out=to)
            t.set_(torch.rand((20, 22, 24), dtype=torch.float64, device="cuda"))  # new memory, same object
            s(t, out=to)
            assert float(cp.abs(cp.asarray(to) - lap_ref_cupy(cp.asarray(t))).max()) < 1e-12
            with pytest_raises(TypeError):
                s(torch.zeros((20, 22, 24), dtype=torch.float16, device="cuda"), out=to)
            with pytest_raises(ValueError):
                s(t.transpose(0, 2), out=to)
        return {"entries": len(ctx._views)}
    check("call cache on cupy/torch: hits, in-place reshape and set_, dead arrays, pool reuse, checks", call_cache)

    def field_views():
        out = {}
        for kind, keys in (("wave", dict(size="512x384", steps=30, precision="float")),
                           ("heat", dict(size="96x80x64", steps=20, precision="double", boundary="all=dirichlet:0.5"))):
            sim = fdx.Simulation(kind, **keys)
            seen = []

            def cb(s, step, f):
                c = cp.asarray(f)                          # zero copy: the simulation's device memory
                assert c.data.ptr == f.ptr and c.dtype == np.dtype("float32" if keys["precision"] == "float"
                                                                   else "float64")
                assert np.array_equal(cp.asnumpy(c).astype(np.float64), s.field()), (kind, step)
                if torch is not None:
                    assert torch.as_tensor(f, device="cuda").data_ptr() == f.ptr
                seen.append(step)
            sim.run(every=10, callback=cb, view=True)
            out[kind] = seen
        return out
    check("Simulation.run(view=True) on CUDA: the field itself as CuPy / torch, equal to the copy", field_views)


if cp is not None and CHECKS:
    steppers()


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


if cp is not None and BENCH:
    # per-call overhead on a small array (launch-bound): python/bench/overhead.py,
    # the C loop in this process on the same memory, the paths interleaved
    def per_call_overhead():
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import overhead as ovh
        t_ov = time.perf_counter()
        m = 32
        su, so = cp.random.random((m, m, m)), cp.zeros((m, m, m))
        st = fdx.Stencil(3, order=2)
        raw = {"cupy_arrays": (su, so)}
        if torch is not None:
            raw["torch_tensors"] = (torch.as_tensor(su, device="cuda"), torch.as_tensor(so, device="cuda"))
        root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
        c_loop, where = ovh.build_c_loop(os.path.dirname(os.path.abspath(fdx.library_path)), os.path.join(root, "include"))
        if c_loop is None:
            record(op="per-call overhead: C loop not built", error=where)
        times = ovh.interleaved(ovh.paths_for(fdx, st, su, so, ctx, c_loop, raw), 3000, 7,
                                lambda: cp.cuda.Device().synchronize())
        summ = ovh.summarize(times)
        worst = max((v for k, v in summ.items() if k.startswith("overhead_")), default=None)
        record(op="per-call overhead 32^3 laplacian", c_call_us=summ.get("c_us"),
               c_call_us_separate_process=overhead_c_us, python_bound_us=summ["bound_us"],
               python_fdx_arrays_us=summ["fdx_arrays_us"], python_cupy_arrays_us=summ["cupy_arrays_us"],
               python_torch_tensors_us=summ.get("torch_tensors_us"),
               overhead_bound_us=summ.get("overhead_bound_us"), overhead_fdx_arrays_us=summ.get("overhead_fdx_arrays_us"),
               overhead_cupy_arrays_us=summ.get("overhead_cupy_arrays_us"),
               overhead_torch_tensors_us=summ.get("overhead_torch_tensors_us"),
               target_us=10, aim_us=5, met=None if worst is None else worst <= 10, rounds=7, calls_a_round=3000,
               method="one process, same memory, paths interleaved; overhead = median over rounds of (path - C loop)",
               per_round=times, device=ctx.device_name)
        record(op="per-call profile (python side, us a call)", **ovh.profile(ovh.pieces_for(ctx, raw), number=5000),
               seconds=time.perf_counter() - t_ov, device=ctx.device_name)
        del su, so, raw

    try:
        per_call_overhead()
    except Exception as e:  # recorded; the benchmarks go on
        record(op="per-call overhead 32^3 laplacian", error=f"{type(e).__name__}: {e}",
               trace=traceback.format_exc()[-1500:])

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
    rec("laplacian7 fdx (python, Stencil call on the raw cupy arrays)", gpu_time_ms(lambda: st(u, out=out)), ok)
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

failed = [r for r in records if r.get("passed") is False]
print(f"gpu_check.py: {len(records)} records, {len(failed)} failed checks")
sys.exit(1 if failed else 0)
