"""The time steppers that reached Python in session 7: Stencil.wave_steps
(fdx_stencil_wave_steps), DistStencil.set_temporal / temporal= (deep halos,
fdx_dstencil_set_temporal) and Simulation.run_dist_timed
(fdx_sim_run_dist_timed, what `fdx dist` times), each against the C
library's own single steps or the CLI, bit for bit, and a NumPy reference."""
import json
import os
import subprocess

import numpy as np
import pytest

import fdx
from test_fdx import star_ref


def _wave_applies(s, u, u_prev, n, coef=None):
    """n single applies (fdx_stencil_apply) rotating u_prev <- u <- out;
    every array keeps u's frame (out starts as a copy of u)."""
    p, a = u_prev.copy(), u.copy()
    for _ in range(n):
        o = a.copy()
        s(a, out=o, u_prev=p, coef=coef)
        p, a = a, o
    return a, p


# ---- Stencil.wave_steps --------------------------------------------------------------------------
@pytest.mark.parametrize("shape,order,dtype,coef", [((40, 52), 2, "float64", False), ((36, 44), 4, "float32", True),
                                                    ((18, 20, 22), 2, "float64", True),
                                                    ((16, 18, 20), 4, "float32", False)])
@pytest.mark.parametrize("temporal", ["off", 2, 4, "auto"])
def test_wave_steps_bit_identical_to_applies(rng, shape, order, dtype, coef, temporal):
    u = (rng.random(shape) - 0.5).astype(dtype)
    up = u.copy()                                     # at rest: u_prev shares u's frame
    up[(slice(order // 2, -(order // 2)),) * len(shape)] += (0.01 * rng.random(
        tuple(n - order for n in shape))).astype(dtype)
    c = (0.5 + 0.5 * rng.random(shape)).astype(dtype) if coef else None
    s = fdx.Stencil(len(shape), order=order, update="wave", alpha=0.05, coef=coef, dtype=dtype)
    want_u, want_p = _wave_applies(s, u, up, 9, c)
    gu, gp = u.copy(), up.copy()
    r = s.wave_steps(gu, gp, 9, coef=c, temporal=temporal)
    assert r[0] is gu and r[1] is gp
    assert np.array_equal(gu, want_u) and np.array_equal(gp, want_p)
    assert not np.array_equal(gu, u)
    k, cfg = s.steps_depth(shape)
    assert k >= 1 and (temporal not in (2, 4) or k == temporal) and (k == 1 or "temporal" in cfg)
    # explicit scratch arrays (copies of u: their frame holds u's): the same
    gu2, gp2 = u.copy(), up.copy()
    s.wave_steps(gu2, gp2, 9, coef=c, tmp=u.copy(), tmp2=u.copy(), temporal=temporal)
    assert np.array_equal(gu2, want_u) and np.array_equal(gp2, want_p)


def test_wave_steps_against_numpy(rng):
    """The first steps by NumPy: next = 2 u - u_prev + alpha c L u inside, the frame u's."""
    shape, order, alpha = (30, 34), 4, 0.04
    r = order // 2
    u = rng.random(shape) - 0.5
    up = u.copy()
    c = 0.5 + 0.5 * rng.random(shape)
    s = fdx.Stencil(2, order=order, update="wave", alpha=alpha, coef=True, h=(0.5, 0.25))
    a, p = u.copy(), up.copy()
    for _ in range(5):
        L, inner = star_ref(a, order, (0.5, 0.25), (1, 1), (0, 0), 0.0)
        nxt = a.copy()
        nxt[inner] = 2 * a[inner] - p[inner] + alpha * c[inner] * L[inner]
        p, a = a, nxt
    gu, gp = s.wave_steps(u.copy(), up.copy(), 5, coef=c, temporal=2)
    inner = (slice(r, -r),) * 2
    assert np.max(np.abs(gu[inner] - a[inner])) < 1e-12 and np.max(np.abs(gp - p)) < 1e-12
    assert np.array_equal(gu[:r], u[:r])                  # the frame is never written


def test_wave_steps_errors(rng):
    u = rng.random((24, 26))
    heat = fdx.Stencil(2, order=2, update="heat", alpha=0.1)
    with pytest.raises(fdx.FdxError, match="wave"):           # a heat stencil
        heat.wave_steps(u.copy(), u.copy(), 3)
    w = fdx.Stencil(2, order=2, update="wave", alpha=0.1, coef=True)
    with pytest.raises(fdx.FdxError, match="coef"):           # its coefficient array missing
        w.wave_steps(u.copy(), u.copy(), 3)
    w = fdx.Stencil(2, order=2, update="wave", alpha=0.1)
    with pytest.raises(fdx.FdxError):
        w.wave_steps(u.copy(), u.copy(), 3, temporal=9)
    with pytest.raises(ValueError, match="temporal"):
        w.wave_steps(u.copy(), u.copy(), 3, temporal="often")
    with pytest.raises(fdx.FdxError):                          # scratch of another shape
        w.wave_steps(u.copy(), u.copy(), 3, tmp=np.zeros((24, 25)))
    with pytest.raises(fdx.FdxError):
        w.wave_steps(u.copy(), u.copy(), -1)
    sponge = fdx.Stencil(2, order=2, update="wave", alpha=0.1, sponge=4)
    with pytest.raises(fdx.FdxError, match="sponge"):
        sponge.wave_steps(u.copy(), u.copy(), 3)


# ---- DistStencil deep halos ----------------------------------------------------------------------
def _ring_run(shape, units, grid, shadow, k, wave, fields, coef, order, dtype, steps, corners=False):
    d = fdx.Dist(shape, units=units, grid=grid, shadow=shadow, corners=corners, backend="cpu")
    kw = dict(update="wave", alpha=0.05, coef=coef is not None) if wave else dict(update="heat", alpha=0.02)
    st = d.stencil(order=order, dtype=dtype, temporal=k, h=(1.0, 0.5) if len(shape) == 2 else None, **kw)
    assert st.temporal == k
    ring = [d.array(dtype, value=f) for f in fields]
    cf = d.array(dtype, value=coef) if coef is not None else None
    st.run(ring, steps, coef=cf)
    return [ring[-2].gather(all=True)] + ([ring[0].gather(all=True)] if wave else [])


@pytest.mark.parametrize("wave,coef,order,dtype", [(False, False, 2, "float64"), (False, False, 4, "float32"),
                                                   (True, False, 4, "float64"), (True, True, 2, "float32")])
@pytest.mark.parametrize("k", [2, 3, 4])
def test_dist_temporal_bit_identical(rng, wave, coef, order, dtype, k):
    shape, r, steps = (48, 30), order // 2, 11          # 11 steps: a shallower last pass
    u = (rng.random(shape) - 0.5).astype(dtype)
    fields = [u.copy() for _ in range(3 if wave else 2)]
    if wave:                                            # u_prev differs inside, shares the frame
        fields[0][r:-r, r:-r] += (0.01 * rng.random((shape[0] - 2 * r, shape[1] - 2 * r))).astype(dtype)
    c = (0.5 + 0.5 * rng.random(shape)).astype(dtype) if coef else None
    one = _ring_run(shape, 1, None, 0, 0, wave, fields, c, order, dtype, steps)
    two = _ring_run(shape, 2, None, k * r, k, wave, fields, c, order, dtype, steps)
    three = _ring_run(shape, 3, None, k * r, k, wave, fields, c, order, dtype, steps)
    grid = _ring_run(shape, 4, (2, 2), k * r, k, wave, fields, c, order, dtype, steps, corners=True)
    for got in (two, three, grid):
        for g, w in zip(got, one):
            assert np.array_equal(g, w)
    # and one array through fdx.Stencil's single applies (the same C stencil)
    s = fdx.Stencil(2, order=order, dtype=dtype, h=(1.0, 0.5),
                    **(dict(update="wave", alpha=0.05, coef=coef) if wave else dict(update="heat", alpha=0.02)))
    if wave:
        want_u, want_p = _wave_applies(s, fields[1], fields[0], steps, c)
        assert np.array_equal(one[0], want_u) and np.array_equal(one[1], want_p)
    else:
        a = u.copy()
        b = u.copy()
        for _ in range(steps):
            s(a, out=b)
            a, b = b, a
        assert np.array_equal(one[0], a)


def test_dist_temporal_refusals():
    d = fdx.Dist((40, 40), units=4, grid=(2, 2), shadow=2, backend="cpu")
    st = d.stencil(order=2, update="heat", alpha=0.1)
    with pytest.raises(fdx.FdxError) as e:
        st.set_temporal(3)                                    # shadows 2 < 3 x radius 1
    assert e.value.status == "FDX_ERR_INVALID" and "shadows" in e.value.message
    with pytest.raises(fdx.FdxError) as e:
        st.set_temporal(2)                                    # two split axes, no corners
    assert e.value.status == "FDX_ERR_UNSUPPORTED" and "corner" in e.value.message
    with pytest.raises(fdx.FdxError):
        st.set_temporal(9)
    st.set_temporal(1)
    assert st.temporal == 1
    p = fdx.Dist((40, 40), units=2, shadow=4, periodic={1: 1}, backend="cpu")
    with pytest.raises(fdx.FdxError) as e:
        p.stencil(order=2, update="heat", alpha=0.1, temporal=2)
    assert e.value.status == "FDX_ERR_UNSUPPORTED" and "periodic" in e.value.message
    q = fdx.Dist((40, 40), units=2, shadow=4, backend="cpu")
    with pytest.raises(fdx.FdxError, match="boundary"):
        q.stencil(order=2, update="heat", alpha=0.1, boundary={0: ("dirichlet", 0.0)}, temporal=2)


# ---- Simulation.run_dist_timed against fdx dist -------------------------------------------------------------
@pytest.mark.parametrize("kind,size,steps,gpus", [("wave", "64x48", 20, 2), ("heat", "40x36", 15, 3),
                                                   ("wave", "24x20x18", 6, 2)])
def test_run_dist_timed_matches_fdx_dist(kind, size, steps, gpus):
    """The digests and checksums `fdx dist --json` prints, bit for bit, from
    the same configuration (fdx dist's same_as line)."""
    cli = os.environ.get("FDX_CLI")
    if not cli:
        pytest.skip("FDX_CLI not set (ctest sets it)")
    rec = json.loads(subprocess.run([cli, "dist", kind, "--size", size, "--steps", str(steps), "--gpus", str(gpus),
                                     "--reps", "2", "--backend", "cpu", "--json"], check=True,
                                    capture_output=True, text=True).stdout)
    keys = dict(size=size, steps=steps, gpus=gpus, precision="float")
    keys.update(model="layered") if kind == "wave" else keys.update(init="gaussian", boundary="fixed")
    sim = fdx.Simulation(kind, ctx=fdx.Context(backend="cpu"), **keys)
    res = sim.run_dist_timed(gpus, reps=2, batch=48, backend="cpu")
    t = res["timing"]
    assert t["digest"] == rec["checksum"]["digest"] and t["digest_timed"] == rec["checksum"]["digest_after_timing"]
    assert res["diag"]["sum"] == rec["checksum"]["sum"] and res["diag"]["l2"] == rec["checksum"]["l2"]
    assert res["units"] == gpus and t["local_units"] == gpus and t["reps"] == 2 and t["batch"] == 48
    assert t["min_ms"] <= t["median_ms"] <= t["max_ms"] and t["fetch_bytes"] == rec["bytes"]["fetch"]
    assert not t["graph_used"] and sim.steps_done == steps     # the sim keeps the run's final fields
    # the timed steps are the steps of a longer run: its final digest, on one unit
    longer = fdx.Simulation(kind, ctx=fdx.Context(backend="cpu"), **dict(keys, steps=steps + 3 * 48))
    assert longer.run_dist_timed(1, reps=0, backend="cpu")["timing"]["digest"] == t["digest_timed"]


def test_run_dist_timed_errors():
    sim = fdx.Simulation("heat", ctx=fdx.Context(backend="cpu"), size="32x32", steps=4)
    with pytest.raises(ValueError, match="batch"):
        sim.run_dist_timed(2, batch=0, backend="cpu")
    with pytest.raises(fdx.FdxError):
        sim.run_dist_timed(2, backend="nowhere")
    with pytest.raises(fdx.FdxError):
        sim.run_dist_timed(0, backend="cpu")


# ---- the simulation's field as a view (fdx_sim_field_view) -------------------------------------------
@pytest.mark.parametrize("kind,keys", [("wave", dict(size="64x48", steps=20, order=8)),
                                       ("heat", dict(size="40x36", steps=12, boundary="all=dirichlet:0.5")),
                                       ("poisson", dict(size="33x33", steps=6)),
                                       ("wave", dict(size="24x22x20", steps=9, precision="double"))])
def test_callback_views_are_the_field(kind, keys):
    """run(view=True) hands the callback the field itself: the same values as
    the copy, the simulation's precision, no copy (writing it changes the run)."""
    sim = fdx.Simulation(kind, ctx=fdx.Context(backend="cpu"), **keys)
    seen = []

    def cb(s, step, f):
        a = np.asarray(f)
        assert isinstance(f, fdx.Array) and a.dtype == {"float": np.float32, "double": np.float64}[
            s.config("precision")]
        assert np.array_equal(a.astype(np.float64), s.field()) and a.shape == s.shape
        seen.append(step)
    sim.run(every=3, callback=cb, view=True)
    assert seen[-1] == sim.steps_done and len(seen) >= 2
    v = sim.field_view()
    np.asarray(v)[...] = 0.25                         # the view is the simulation's memory
    assert np.all(sim.field()[(slice(4, -4),) * len(sim.shape)] == 0.25)   # (the frame: boundary conditions)


def test_field_view_keeps_the_simulation_and_follows_run_dist():
    v = fdx.Simulation("heat", ctx=fdx.Context(backend="cpu"), size="32x30", steps=5).field_view()
    import gc
    gc.collect()
    assert np.asarray(v).shape == (30, 32) and np.isfinite(np.asarray(v)).all()   # its simulation lives on
    sim = fdx.Simulation("wave", ctx=fdx.Context(backend="cpu"), size="48x40", steps=15, model="layered")
    sim.run_dist(2, backend="cpu")
    assert np.array_equal(np.asarray(sim.field_view()), sim.field())
