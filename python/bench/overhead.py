"""Per-call overhead of fdx from Python over the C call (issue 19: <= 10 us),
measured in one process on the same arrays, the paths interleaved round by
round so that drift of the machine cancels out:

  c           fdx_overhead_loop (overhead.c built as a shared object): the C
              loop of fdx_stencil_apply on wraps of the same memory;
  bound       Stencil.bind(u, out): one ctypes call a run;
  fdx arrays  s(fa, out=fo) on fdx.asarray'd arrays;
  raw arrays  s(u, out=o) on the caller's CuPy arrays / torch tensors (the
              call cache's hit: python/fdx/_array.py plain());

and a profile of the Python-side pieces (timeit): the cache hit, the
signature reader, the array interface, a wrap from scratch (the miss).

Used by gpu_check.py on the GPU with CuPy and torch; run as a program it
profiles the same paths on this machine's CPU backend with the CuPy / torch
look-alikes of tests/python/mock_arrays.py (the device-pointer checks of a
real wrap cannot run here, everything else does):

    FDX_LIBRARY_DIR=build/lib PYTHONPATH=python python3 python/bench/overhead.py [n] [calls] [rounds]
"""
import ctypes
import os
import statistics
import subprocess
import sys
import tempfile
import time
import timeit

HERE = os.path.dirname(os.path.abspath(__file__))


def build_c_loop(libdir, include, out_dir=None):
    """overhead.c as a shared object against libfdx in libdir: the loop
    function (ctypes), or (None, why) when it cannot be built."""
    out_dir = out_dir or tempfile.mkdtemp(prefix="fdx-overhead-")
    so = os.path.join(out_dir, "libfdx_overhead.so")
    r = subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", so, os.path.join(HERE, "overhead.c"), "-I", include,
                        "-L", libdir, "-lfdx", f"-Wl,-rpath,{libdir}"], capture_output=True, text=True)
    if r.returncode != 0:
        return None, r.stderr[-500:]
    f = ctypes.CDLL(so).fdx_overhead_loop
    f.restype = ctypes.c_double
    f.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int]
    return f, so


def interleaved(paths, calls, rounds, sync, warm=200):
    """{name: [us a call, one a round]}: every path `calls` calls a round,
    timed from a synchronised start to a synchronised end.  A path is a
    function of no arguments (one call), or ("loop", f) with f(calls)
    returning us a call itself (the C loop)."""
    out = {name: [] for name in paths}
    for name, p in paths.items():  # compile, tune, fill the caches
        if isinstance(p, tuple):
            p[1](warm)
        else:
            for _ in range(warm):
                p()
    sync()
    for _ in range(rounds):
        for name, p in paths.items():
            if isinstance(p, tuple):
                us = p[1](calls)
                if us < 0:
                    raise RuntimeError(f"{name}: the C loop failed")
            else:
                sync()
                t0 = time.perf_counter()
                for _ in range(calls):
                    p()
                sync()
                us = (time.perf_counter() - t0) / calls * 1e6
            out[name].append(us)
    return out


def summarize(times, base="c"):
    """Medians a call and the median of each round's difference to `base`."""
    r = {f"{name}_us": statistics.median(v) for name, v in times.items()}
    if base in times:
        for name, v in times.items():
            if name != base:
                r[f"overhead_{name}_us"] = statistics.median(x - c for x, c in zip(v, times[base]))
    return r


def profile(pieces, number=20000, repeat=5):
    """{name: us a call}: the best of `repeat` timeit runs of each piece."""
    return {name: min(timeit.repeat(f, number=number, repeat=repeat)) / number * 1e6 for name, f in pieces.items()}


def paths_for(fdx, st, u, o, ctx, c_loop, raw):
    """The interleaved paths of one stencil on arrays u -> o: the C loop
    (when built), bound, fdx arrays, and each raw kind {name: (u, o)}."""
    from fdx._array import asarray
    fa, fo = asarray(u, ctx), asarray(o, ctx)
    paths = {}
    if c_loop is not None:
        hs, hu, ho = st._h, fa.handle("plain"), fo.handle("plain")
        paths["c"] = ("loop", lambda n: c_loop(hs, ho, hu, n))
    paths["bound"] = st.bind(u, o)
    paths["fdx_arrays"] = lambda: st(fa, out=fo)
    for name, (ru, ro) in raw.items():
        paths[name] = (lambda a, b: lambda: st(a, out=b))(ru, ro)
    return paths


def pieces_for(ctx, raw):
    """The Python-side pieces of one raw call, per kind of array."""
    from fdx._array import plain, _signature, asarray
    out = {}
    for name, (ru, _) in raw.items():
        out[f"{name}: plain() hit"] = (lambda a: lambda: plain(a, ctx))(ru)
        out[f"{name}: signature"] = (lambda a: lambda: _signature(a))(ru)
        out[f"{name}: __cuda_array_interface__"] = (lambda a: lambda: a.__cuda_array_interface__)(ru)
        out[f"{name}: wrap from scratch (miss)"] = (lambda a: lambda: asarray(a, ctx).handle("plain"))(ru)
    return out


def main():
    os.environ.setdefault("FDX_BACKEND", "cpu")
    os.environ.setdefault("FDX_THREADS", "1")
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 6
    calls = int(sys.argv[2]) if len(sys.argv) > 2 else 20000
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "python"))
    import numpy as np
    import fdx
    from mock_arrays import DeviceViewContext, CupyLike, TorchLike
    root = os.path.join(HERE, "..", "..")
    libdir = os.path.dirname(os.path.abspath(fdx.library_path))
    c_loop, where = build_c_loop(libdir, os.path.join(root, "include"))
    if c_loop is None:
        print("C loop not built:", where)
    ctx = DeviceViewContext(backend="cpu", threads=1)
    rng = np.random.default_rng(1)
    a, b = rng.random((n, n, n)), np.zeros((n, n, n))
    raw = {"cupy_like": (CupyLike(a), CupyLike(b)), "torch_like": (TorchLike(a), TorchLike(b))}
    st = fdx.Stencil(3, ctx=ctx)
    times = interleaved(paths_for(fdx, st, raw["cupy_like"][0], raw["cupy_like"][1], ctx, c_loop, raw), calls,
                        rounds, lambda: None)
    print(f"{n}^3 Laplacian on the CPU backend, one thread, {calls} calls x {rounds} rounds (median us a call):")
    for k, v in summarize(times).items():
        print(f"  {k:32s} {v:7.3f}")
    print("Python-side pieces (best of 5 timeit runs, us):")
    for k, v in profile(pieces_for(ctx, raw), number=max(1000, calls // 4)).items():
        print(f"  {k:44s} {v:7.3f}")


if __name__ == "__main__":
    main()
