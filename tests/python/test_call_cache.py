"""The call cache (python/fdx/_array.py, the per-call path of Stencil(u,
out=o), fdx.laplacian, UStencil, BoundaryPass, Simulation.step_arrays) on
CuPy / torch look-alikes (mock_arrays.py) over NumPy memory: one wrap per
live array, and never a wrong or dangling one: arrays changed in place,
dead arrays whose address or memory a new one reuses, stale entries, the
device in the signature; the checks and their exceptions on the fast path."""
import gc
import weakref

import numpy as np
import pytest

import fdx
from fdx._array import plain, _entry, _signature
from mock_arrays import DeviceViewContext, CupyLike, TorchLike, NoWeakref
from test_fdx import lap_ref, check_against


@pytest.fixture
def dctx():
    return DeviceViewContext(backend="cpu")


def test_hits_reuse_one_wrap_per_array(dctx, rng):
    a, o = rng.random((6, 7, 8)), np.full((6, 7, 8), np.nan)
    u, out = CupyLike(a), CupyLike(o)
    s = fdx.Stencil(3, ctx=dctx)
    s(u, out=out)
    check_against(o, lap_ref(a, (1, 1, 1)), 1e-13)
    hu, ho = plain(u, dctx), plain(out, dctx)
    assert len(dctx._views) == 2
    for _ in range(3):
        o[...] = np.nan
        assert s(u, out=out) is out
        check_against(o, lap_ref(a, (1, 1, 1)), 1e-13)
    assert plain(u, dctx) is hu and plain(out, dctx) is ho and len(dctx._views) == 2
    assert _signature(u) == (a.ctypes.data, a.shape, a.strides, a.dtype, 0)


def test_shape_changed_in_place_is_wrapped_again(dctx, rng):
    a = rng.random((6, 8))
    u, out = CupyLike(a), CupyLike(np.full((6, 8), np.nan))
    fdx.laplacian(u, out=out, ctx=dctx)
    h = plain(u, dctx)
    u.shape = (8, 6)                     # CuPy's in-place reshape: same memory, another shape
    out2 = CupyLike(np.full((8, 6), np.nan))
    fdx.laplacian(u, out=out2, ctx=dctx)
    check_against(out2._a, lap_ref(a.reshape(8, 6), (1, 1)), 1e-13)
    assert plain(u, dctx) is not h


def test_torch_set_points_at_other_memory(dctx, rng):
    a, b = rng.random((7, 9)), rng.random((7, 9))
    t, o = TorchLike(a), TorchLike(np.full((7, 9), np.nan))
    s = fdx.Stencil(2, ctx=dctx)
    s(t, out=o)
    check_against(o._a, lap_ref(a, (1, 1)), 1e-13)
    t.set_(b)                            # same object, same shape, new memory: a stale wrap would read a
    s(t, out=o)
    check_against(o._a, lap_ref(b, (1, 1)), 1e-13)
    t._device = 1                        # the device is part of the signature
    assert _signature(t)[-1] == 1 and _entry(t, dctx)[2][-1] == 1


def test_dead_arrays_leave_and_reused_memory_is_wrapped_fresh(dctx, rng):
    """A dead array's entry goes with it; a new array over the same memory
    (another shape), or a new object at the same address, gets its own wrap."""
    buf = rng.random(48)
    s = fdx.Stencil(2, ctx=dctx)
    u = CupyLike(buf.reshape(6, 8))
    o = CupyLike(np.full((6, 8), np.nan))
    s(u, out=o)
    del u
    gc.collect()
    assert len(dctx._views) == 1         # only o's entry is left
    for shape in ((8, 6), (6, 8), (4, 12)):
        v = CupyLike(buf.reshape(shape))      # the dead array's memory, maybe its address too
        w = CupyLike(np.full(shape, np.nan))
        s(v, out=w)
        check_against(w._a, lap_ref(buf.reshape(shape), (1, 1)), 1e-13)
        assert _entry(v, dctx)[3].shape == shape
        del v, w
        gc.collect()
    assert len(dctx._views) == 1


def test_stale_entry_under_a_reused_id_is_never_returned(dctx, rng):
    """An entry left under an id whose object died (its weak reference dead
    or pointing at another object) is replaced, never handed out, even when
    its signature matches: an entry's wrap was checked (on CUDA: the
    pointer's memory and device) for memory its own live object holds."""
    a, b = rng.random((6, 8)), rng.random((6, 8))
    s = fdx.Stencil(2, ctx=dctx)
    for twin in (a, b):                  # another object's entry: other memory, or v's own memory
        other = CupyLike(twin)
        s(other, out=CupyLike(np.zeros((6, 8))))
        stale = dctx._views[id(other)]
        v = CupyLike(b)
        dctx._views[id(v)] = stale       # as if v had taken the address of a dead array
        o = CupyLike(np.full((6, 8), np.nan))
        s(v, out=o)
        check_against(o._a, lap_ref(b, (1, 1)), 1e-13)
        assert dctx._views[id(v)] is not stale and dctx._views[id(v)][0]() is v
    # a dead weak reference under the id, with v's own signature: the same

    class Gone:
        pass
    g = Gone()
    dead = weakref.ref(g)
    del g
    dctx._views[id(v)] = [dead] + dctx._views[id(v)][1:]
    stale = dctx._views[id(v)]
    o._a[...] = np.nan
    s(v, out=o)
    check_against(o._a, lap_ref(b, (1, 1)), 1e-13)
    assert dctx._views[id(v)] is not stale and dctx._views[id(v)][0]() is v


def test_callback_of_a_replaced_entry_leaves_the_new_one(dctx, rng):
    a = rng.random((6, 8))
    u = CupyLike(a)
    fdx.laplacian(u, out=CupyLike(np.zeros((6, 8))), ctx=dctx)
    first = dctx._views[id(u)]
    u.shape = (8, 6)
    fdx.laplacian(u, out=CupyLike(np.zeros((8, 6))), ctx=dctx)
    second = dctx._views[id(u)]
    assert second is not first
    callback = first[0].__callback__
    callback(first[0])                   # the replaced entry's callback, late
    assert dctx._views[id(u)] is second


def test_objects_without_weak_references_are_wrapped_every_call(dctx, rng):
    a = rng.random((6, 8))
    u, o = NoWeakref(a), CupyLike(np.full((6, 8), np.nan))
    n = len(dctx._views)
    fdx.laplacian(u, out=o, ctx=dctx)
    fdx.laplacian(u, out=o, ctx=dctx)
    check_against(o._a, lap_ref(a, (1, 1)), 1e-13)
    assert len(dctx._views) == n + 1     # o only


def test_checks_and_exceptions_on_the_fast_path(dctx, rng):
    s = fdx.Stencil(2, ctx=dctx)
    good = CupyLike(rng.random((6, 8)))
    out = CupyLike(np.full((6, 8), np.nan))
    s(good, out=out)
    with pytest.raises(TypeError, match="int16"):
        s(CupyLike(np.zeros((6, 8), np.int16)), out=out)
    with pytest.raises(ValueError, match="C-contiguous"):
        s(CupyLike(np.zeros((6, 16))[:, ::2]), out=out)
    with pytest.raises(ValueError, match="C-contiguous"):   # again: the entry did not hide the check
        s(CupyLike(np.zeros((6, 16))[:, ::2]), out=out)
    with pytest.raises(ValueError, match="host array given to a context on the cuda backend"):
        s(np.zeros((6, 8)), out=out)
    with pytest.raises(fdx.FdxError) as e:                    # shapes differ: the C check, its message
        s(good, out=CupyLike(np.zeros((6, 9))))
    assert e.value.status == "FDX_ERR_INVALID"
    with pytest.raises(TypeError, match="NumPy, CuPy, PyTorch"):
        s([[1.0]], out=out)
    fs = fdx.Stencil(2, ctx=dctx, dtype="float32")
    with pytest.raises(fdx.FdxError):                          # float64 arrays, a float32 stencil
        fs(good, out=out)
    s(good, out=out)                                           # and the good call still works
    check_against(out._a, lap_ref(good._a, (1, 1)), 1e-13)


def test_fdx_arrays_and_other_contexts(rng):
    c1, c2 = DeviceViewContext(backend="cpu"), DeviceViewContext(backend="cpu")
    a = rng.random((6, 8))
    u = CupyLike(a)
    for c in (c1, c2):                   # one cache per context
        o = CupyLike(np.full((6, 8), np.nan))
        fdx.laplacian(u, out=o, ctx=c)
        check_against(o._a, lap_ref(a, (1, 1)), 1e-13)
    assert plain(u, c1) is not plain(u, c2)
    fa = fdx.asarray(u, c1)
    assert plain(fa, c1) is fa.handle("plain")
    o = CupyLike(np.full((6, 8), np.nan))
    fdx.laplacian(fa, out=o, ctx=c2)     # an fdx.Array of another context
    check_against(o._a, lap_ref(a, (1, 1)), 1e-13)
    del u, fa, o
    gc.collect()
    assert len(c1._views) == 0 and len(c2._views) == 0
