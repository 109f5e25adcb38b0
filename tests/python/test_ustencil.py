"""User stencils from Python (fdx.UStencil): random offsets and weights,
boxes, mixed derivatives, coefficient arrays at their own offsets,
div(k grad u), fields with components, the heat and wave updates, boundary
passes, against NumPy references term by term on random inputs with
poisoned (NaN) outputs; and the errors."""
import numpy as np
import pytest

import fdx
from bc_ref import fill_ref, term_ref
from test_fdx import check_against


def _random_terms(rng, rank, n, radius, ninputs=1, ncomp=1, ncoefs=0):
    terms = []
    for _ in range(n):
        off = tuple(int(x) for x in rng.integers(-radius, radius + 1, rank))
        c = int(rng.integers(0, ncoefs)) if ncoefs and rng.random() < 0.6 else None
        coff = tuple(int(x) for x in rng.integers(-1, 2, rank)) if c is not None else (0,) * rank
        terms.append((float(rng.normal()), int(rng.integers(0, ninputs)), int(rng.integers(0, ncomp)),
                      int(rng.integers(0, ncomp)), off, c, coff))
    return terms


@pytest.mark.parametrize("rank,shape", [(1, (30,)), (2, (17, 23)), (3, (9, 11, 13))])
@pytest.mark.parametrize("dtype,tol", [("float64", 1e-12), ("float32", 3e-5)])
def test_random_terms(rng, rank, shape, dtype, tol):
    """Random offsets (up to the largest radius), weights, inputs, coefficients
    at their own offsets: the generated kernel against the sum of the terms."""
    ninputs, ncoefs = 2, 2
    terms = _random_terms(rng, rank, 12, 3, ninputs=ninputs, ncoefs=ncoefs)
    terms.append((0.5, 0, 0, 0, (3,) + (0,) * (rank - 1), None, (0,) * rank))   # radius 3 for sure
    s = fdx.UStencil(rank, ninputs=ninputs, ncoefs=ncoefs, alpha=0.75, dtype=dtype)
    for w, i, ic, oc, off, c, coff in terms:
        s.add_term(w, off, input=i, input_comp=ic, output_comp=oc, coef=c, coef_offset=coff)
    assert s.nterms == len(terms) and s.radius == 3
    ins = [rng.random(shape).astype(dtype) for _ in range(ninputs)]
    cs = [(1 + rng.random(shape)).astype(dtype) for _ in range(ncoefs)]
    want, _ = term_ref(shape, 3, terms, ins, cs, 1, alpha=0.75)
    out = s(*ins, coefs=cs, out=np.full(shape, np.nan, dtype))
    check_against(out, want, tol)
    assert s.config(shape) != "" and s.traffic(shape)[0] > 0
    assert "user stencil" in s.source(shape)


@pytest.mark.parametrize("shape,r", [((15, 18), 1), ((15, 18), 2), ((10, 11, 12), 1), ((12, 12, 13), 2)])
def test_box(rng, shape, r):
    w = rng.normal(size=(2 * r + 1,) * len(shape))
    w.flat[0] = 0.0                                      # zero weights are kept
    u = rng.random(shape)
    s = fdx.UStencil(len(shape)).add_box(w)
    assert s.nterms == w.size and s.radius == r
    terms = [(w[idx], 0, 0, 0, tuple(i - r for i in idx), None, (0,) * len(shape)) for idx in np.ndindex(w.shape)]
    want, _ = term_ref(shape, r, terms, [u], [], 1)
    check_against(s(u, out=np.full(shape, np.nan)), want, 1e-12)
    check_against(fdx._ustencil.box(w)(u, out=np.full(shape, np.nan)), want, 1e-12)


def test_points_mixed_laplacian(rng):
    """add_points, add_mixed and add_laplacian: d2u/dz dx + lap u with spacings."""
    shape, h = (12, 14, 16), (0.5, 0.25, 2.0)
    u = rng.random(shape)
    s = fdx.UStencil(3).add_mixed(0, 2, h_a=h[0], h_b=h[2], scale=1.5).add_laplacian(4, h=h)
    s2 = fdx.UStencil(3).add_points({(1, 0, 1): 1.0, (1, 0, -1): -1.0, (-1, 0, 1): -1.0, (-1, 0, -1): 1.0})
    inner = (slice(2, -2),) * 3
    m = np.full(shape, np.nan)
    m[inner] = (u[3:-1, 2:-2, 3:-1] - u[3:-1, 2:-2, 1:-3] - u[1:-3, 2:-2, 3:-1] + u[1:-3, 2:-2, 1:-3])
    w4 = fdx.fd_weights(2, 4)
    lap = np.zeros(tuple(n - 4 for n in shape))
    for ax in range(3):
        for q in range(-2, 3):
            sl = [slice(2, -2)] * 3
            sl[ax] = slice(2 + q, shape[ax] - 2 + q)
            lap += w4[q + 2] / h[ax] ** 2 * u[tuple(sl)]
    want = np.full(shape, np.nan)
    want[inner] = 1.5 * m[inner] / (4 * h[0] * h[2]) + lap
    check_against(s(u, out=np.full(shape, np.nan)), want, 1e-11)
    got2 = s2(u, out=np.full(shape, np.nan))
    inner1 = (slice(1, -1),) * 3
    assert np.allclose(got2[inner], m[inner]) and np.isnan(got2[0]).all() and np.isfinite(got2[inner1]).all()


@pytest.mark.parametrize("rank,shape", [(2, (19, 21)), (3, (10, 12, 14))])
def test_div_k_grad(rng, rank, shape):
    h = tuple(0.1 * (a + 1) for a in range(rank))
    u, k = rng.random(shape), 1 + rng.random(shape)
    s = fdx.UStencil(rank, ncoefs=1).add_div_k_grad(0, h=h, scale=-1.0)
    inner = (slice(1, -1),) * rank
    acc = np.zeros(tuple(n - 2 for n in shape))
    for ax in range(rank):
        def sh(a, q):
            sl = [slice(1, -1)] * rank
            sl[ax] = slice(1 + q, shape[ax] - 1 + q)
            return a[tuple(sl)]
        acc += ((sh(k, 0) + sh(k, 1)) / 2 * (sh(u, 1) - sh(u, 0))
                - (sh(k, -1) + sh(k, 0)) / 2 * (sh(u, 0) - sh(u, -1))) / h[ax] ** 2
    want = np.full(shape, np.nan)
    want[inner] = -acc
    check_against(s(u, coefs=[k], out=np.full(shape, np.nan)), want, 1e-11)
    check_against(fdx._ustencil.div_k_grad(rank, h=h, scale=-1.0)(u, coefs=[k], out=np.full(shape, np.nan)),
                  want, 1e-11)


@pytest.mark.parametrize("ncomp", [2, 3])
def test_components(rng, ncomp):
    """Fields with a vector per point (the last NumPy axis): terms that mix
    components (output_comp != input_comp), with a scalar coefficient."""
    grid = (13, 16)
    shape = grid + (ncomp,)
    terms = _random_terms(rng, 2, 14, 2, ninputs=1, ncomp=ncomp, ncoefs=1)
    s = fdx.UStencil(2, ncomp=ncomp, ncoefs=1)
    for w, i, ic, oc, off, c, coff in terms:
        s.add_term(w, off, input=i, input_comp=ic, output_comp=oc, coef=c, coef_offset=coff)
    u, k = rng.random(shape), rng.random(grid)
    r = s.radius
    want, _ = term_ref(shape, r, terms, [u], [k], ncomp)
    got = s(u, coefs=[k], out=np.full(shape, np.nan))
    # points (and components) no term writes stay 0 inside, NaN in the frame
    assert np.isnan(got[:r]).all() and np.isnan(got[:, -r:]).all()
    check_against(got, want, 1e-12)


def test_heat_and_wave_updates(rng):
    shape = (14, 15)
    u, up = rng.random(shape), rng.random(shape)
    lap = fdx.UStencil(2, update="heat", alpha=0.1).add_laplacian(2)
    inner = (slice(1, -1), slice(1, -1))
    L = u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4 * u[inner]
    want = np.full(shape, np.nan)
    want[inner] = u[inner] + 0.1 * L
    check_against(lap(u, out=np.full(shape, np.nan)), want, 1e-13)
    wave = fdx.UStencil(2, ninputs=2, update="wave", alpha=0.2).add_laplacian(2)
    want[inner] = 2 * u[inner] - up[inner] + 0.2 * L
    check_against(wave(u, up, out=np.full(shape, np.nan)), want, 1e-13)
    check_against(wave([u, up], out=np.full(shape, np.nan)), want, 1e-13)
    o = np.full(shape, np.nan)
    run = wave.bind(u, up, out=o)                         # one C call a run
    run()
    check_against(o, want, 1e-13)
    with pytest.raises(ValueError, match="inputs"):
        wave.bind(u, out=o)


def test_boundary_pass_before_apply(rng):
    """UStencil(boundary=...) fills input 0's frame (star-shaped) first."""
    shape = (16, 18)
    u = rng.random(shape)
    spec = {0: ("dirichlet", 0.5), 1: "periodic"}
    s = fdx.UStencil(2, boundary=spec, h=(0.5, 0.5)).add_laplacian(2, h=0.5)
    v = u.copy()
    got = s(v, out=np.full(shape, np.nan))
    filled = fill_ref(u, {(0, 0): ("dirichlet", 0.5), (0, 1): ("dirichlet", 0.5), (1, 0): ("periodic", 0),
                          (1, 1): ("periodic", 0)}, 1, (0.5, 0.5))
    assert np.max(np.abs(v - filled)) < 1e-14
    inner = (slice(1, -1), slice(1, -1))
    f = filled
    want = np.full(shape, np.nan)
    want[inner] = (f[:-2, 1:-1] + f[2:, 1:-1] + f[1:-1, :-2] + f[1:-1, 2:] - 4 * f[inner]) / 0.25
    check_against(got, want, 1e-12)


def test_errors(rng):
    with pytest.raises(fdx.FdxError) as e:
        fdx.UStencil(4)
    assert e.value.status == "FDX_ERR_INVALID" and "rank" in e.value.message
    for kw in (dict(ncomp=9), dict(ninputs=0), dict(ninputs=5), dict(ncoefs=5)):
        with pytest.raises(fdx.FdxError):
            fdx.UStencil(2, **kw)
    with pytest.raises(ValueError, match="update"):
        fdx.UStencil(2, update="leap")
    s = fdx.UStencil(2, ninputs=1)
    with pytest.raises(fdx.FdxError, match="offset|radius"):
        s.add_point(1.0, (0, 5))                          # beyond FDX_USTENCIL_MAX_RADIUS
    with pytest.raises(fdx.FdxError, match="input"):
        s.add_point(1.0, (0, 1), input=1)
    with pytest.raises(fdx.FdxError):
        s.add_point(float("nan"), (0, 1))
    with pytest.raises(fdx.FdxError):
        s.add_term(1.0, (0, 1), coef=0)                   # no coefficient arrays declared
    with pytest.raises(ValueError, match="entries"):
        s.add_point(1.0, (0, 1, 1))
    with pytest.raises(ValueError, match="box weights"):
        s.add_box(np.ones((3, 4)))
    with pytest.raises(ValueError, match="axis"):
        s.add_mixed(0, 2)
    with pytest.raises(fdx.FdxError):
        s.add_mixed(1, 1)                                 # a != b
    with pytest.raises(fdx.FdxError):
        fdx.UStencil(2, ninputs=1, update="wave")         # wave needs 2 inputs (at creation or build)
    s.add_point(1.0, (0, 1))
    u = rng.random((10, 10))
    with pytest.raises(ValueError, match="input arrays"):
        s(u, u)
    with pytest.raises(ValueError, match="coefficient"):
        s(u, coefs=[u])
    with pytest.raises(fdx.FdxError) as e:
        s(u, out=np.zeros((10, 11)))
    assert e.value.message
    with pytest.raises(fdx.FdxError):
        s(u.astype(np.float32))
    with pytest.raises(RuntimeError, match="built"):
        s.add_point(2.0, (1, 0))
    with pytest.raises(fdx.FdxError):
        fdx.UStencil(2).build()                           # no terms
