"""The distributed multigrid solver from Python (fdx.Solver(dist=...),
fdx.Dist.solver): on 1x2, 2x2 and 1x1x2 CPU units it reaches the cycles,
convergence and levels of the one-unit Solver on the same random problem,
its residual history within 1e-12 (relative) of one unit's (the tolerance
tests/mg/test_mg_dist.c uses: the norms add per unit, then across units),
the solution bit for bit for the cycles (CG's step lengths are norms: to
rounding), the Dirichlet boundary values kept, with Neumann and periodic
axes (mixed; without a Dirichlet axis the right-hand side's mean is a sum
over units: the solution to rounding) and order 4 too; and its errors
raise fdx.FdxError with the C library's message."""
import numpy as np
import pytest

import fdx


def one_and_dist(rng, shape, grid, **settings):
    """(one-unit Solver, its u, distributed Solver, its u gathered) on one random problem."""
    f = 50 * rng.normal(size=shape)
    if "dirichlet" not in np.atleast_1d(settings.get("bc", "dirichlet")):
        f -= f.mean()                                        # singular: a compatible right-hand side
    u0 = rng.random(shape)                                   # random guess and Dirichlet boundary values
    one = fdx.Solver(shape, tol=1e-9, max_cycles=60, **settings)
    u1 = one.solve(f, u0.copy())
    units = int(np.prod(grid))
    d = fdx.Dist(shape, units=units, grid=grid, shadow=1, backend="cpu")
    ds = fdx.Solver(dist=d, tol=1e-9, max_cycles=60, **settings)
    du = ds.solve(d.array(value=f), d.array(value=u0))
    return one, u1, ds, du.gather(), u0


@pytest.mark.parametrize("shape,grid,settings", [
    ((33, 40), (1, 2), {}),
    ((33, 40), (2, 2), {}),
    ((31, 26), (2, 2), dict(cycle="w", smoother="jacobi")),
    ((30, 33), (1, 2), dict(cycle="fmg", smoother="cheby")),
    ((33, 33), (2, 2), dict(method="cg")),
    ((17, 18, 19), (1, 1, 2), dict(cycle="f")),
    ((33, 40), (2, 2), dict(bc=("periodic", "dirichlet"))),
    ((31, 26), (2, 1), dict(bc=("dirichlet", "neumann"), cycle="fmg")),
    ((33, 40), (2, 1), dict(order=4)),
    ((17, 18, 19), (1, 2, 2), dict(order=4, cycle="v")),
])
def test_same_as_one_unit(rng, shape, grid, settings):
    one, u1, ds, ud, u0 = one_and_dist(rng, shape, grid, **settings)
    assert ds.converged and one.converged and ds.iterations == one.iterations >= 1
    h1, hd = one.residual_history, ds.residual_history
    assert len(hd) == len(h1) == one.iterations + 1
    assert np.max(np.abs(hd - h1) / h1) <= 1e-12, (hd, h1)
    assert ds.levels == one.levels and ds.level_shapes() == one.level_shapes()
    assert 0 < ds.distributed_levels <= ds.levels and one.distributed_levels == 0
    if settings.get("method") == "cg":
        assert np.max(np.abs(ud - u1)) <= 1e-11 * np.max(np.abs(u1))
    else:
        assert np.array_equal(ud, u1)
    bc = np.broadcast_to(settings.get("bc", "dirichlet"), (len(shape),))
    for ax in range(len(shape)):                             # Dirichlet values kept exactly
        if bc[ax] == "dirichlet":
            assert np.array_equal(np.take(ud, [0, -1], axis=ax), np.take(u0, [0, -1], axis=ax))


@pytest.mark.parametrize("shape,grid,bc", [
    ((33, 40), (2, 2), "neumann"),
    ((31, 26), (1, 2), "periodic"),
    ((17, 18, 19), (2, 1, 2), ("periodic", "neumann", "periodic")),
])
def test_singular_as_one_unit(rng, shape, grid, bc):
    """No Dirichlet axis: the mean of f (made compatible) and of u (removed)
    are sums over units, so u differs in its last bits and with it each
    residual's rounding (~1e-15 of r0): the history is compared to 1e-13 of
    r0 below 0.1, the solution to 1e-11 of its scale."""
    one, u1, ds, ud, _ = one_and_dist(rng, shape, grid, bc=bc)
    assert ds.converged and one.converged and ds.iterations == one.iterations >= 1
    h1, hd = one.residual_history, ds.residual_history
    assert len(hd) == len(h1) and np.max(np.abs(hd - h1) / np.maximum(h1, 0.1)) <= 1e-12, (hd, h1)
    assert np.max(np.abs(ud - u1)) <= 1e-11 * np.max(np.abs(u1))


def test_coefficient_and_dist_solver(rng):
    shape = (34, 33)
    k = 1.5 + rng.random(shape)
    one, u1, ds, ud, _ = one_and_dist(rng, shape, (2, 2), coef=k)
    assert ds.iterations == one.iterations and np.array_equal(ud, u1)
    d = fdx.Dist(shape, units=2, backend="cpu")              # Dist.solver, u defaulting to zeros
    s = d.solver(tol=1e-8)
    u = s.solve(d.array(value=np.ones(shape)))
    assert s.converged and isinstance(u, fdx.DistArray) and s.distributed_levels > 0
    ref = fdx.Solver(shape, tol=1e-8)
    assert np.array_equal(u.gather(), ref.solve(np.ones(shape))) and s.iterations == ref.iterations


def test_errors(rng):
    d = fdx.Dist((33, 33), units=2, backend="cpu")
    with pytest.raises(fdx.FdxError) as e:                   # order 4: parts of 1 point, reads 2 deep
        fdx.Solver(dist=fdx.Dist((7, 17), units=4, backend="cpu"), order=4).setup()
    assert e.value.status == "FDX_ERR_INVALID" and "2-point shadows" in e.value.message
    with pytest.raises(fdx.FdxError) as e:                   # periodic distribution: at creation
        fdx.Solver(dist=fdx.Dist((32, 33), units=2, backend="cpu", periodic={1: 1}))
    assert e.value.status == "FDX_ERR_UNSUPPORTED" and "periodic" in e.value.message
    with pytest.raises(fdx.FdxError) as e:                   # first coarse level smaller than the units
        fdx.Solver(dist=fdx.Dist((9, 17), units=8, backend="cpu")).setup()
    assert e.value.status == "FDX_ERR_INVALID" and e.value.message
    s = fdx.Solver(dist=d)
    other = fdx.Dist((33, 33), units=2, backend="cpu")
    with pytest.raises(fdx.FdxError) as e:                   # arrays of another distribution
        s.solve(other.array(), other.array())
    assert e.value.status == "FDX_ERR_INVALID" and e.value.message
    with pytest.raises(TypeError, match="DistArray"):
        s.solve(np.zeros((33, 33)))
    with pytest.raises(ValueError, match="distribution's grid"):
        fdx.Solver((33, 32), dist=d)
    with pytest.raises(TypeError, match="fdx.Dist"):
        fdx.Solver(dist=object())
    with pytest.raises(TypeError, match="shape or a dist"):
        fdx.Solver()
