"""Distributed-loop cases shared by test_dloop.py (CPU units in one process)
and mpi_dloop.py (MPI ranks): each takes an fdx.Dist and returns the
gathered global fields (on every process) and the reductions, so that runs
on different grids of units can be compared bit for bit."""
import numpy as np


NAMES = ("k", "j", "i")


def names(rank):
    return NAMES[3 - rank:]


def coord_value(idx):
    """A coordinate expression in the loop's indices (C and NumPy agree on it
    exactly: integer-valued doubles)."""
    return " + ".join(f"{10.0 ** (2 * p):.1f} * {n}" for p, n in enumerate(idx[::-1]))


def coords(d, scale=0.5):
    """A(idx) = i + 100 j + 10000 k written by one loop; B = the neighbour sum
    of A minus 2r A plus s A at interior points (it reads A's shadows, which
    the runtime renews because a distributed loop wrote A), with reductions
    of every kind; B is poisoned with NaN outside the range."""
    r = len(d.shape)
    idx = names(r)
    at = ",".join(idx)
    A = d.array(value=np.full(d.shape, np.nan))
    B = d.array(value=np.full(d.shape, np.nan))
    I = d.array(value=np.full(d.shape, -7.0))  # (distributed arrays hold float or double)
    d.loop(",".join(idx), f"A({at}) = {coord_value(idx)} + 0.001 * sin(0.3 * i * j);\nI({at}) = (int)({coord_value(idx)}) % 11;",
           {"A": (A, "w"), "I": (I, "w")}).run()
    nb = " + ".join(f"A({','.join(n + s if n == m else n for n in idx)})" for m in idx for s in ("-1", "+1"))
    body = (f"B({at}) = {nb} - {2 * r} * A({at}) + s * A({at});\n"
            f"sum = B({at}); mx = B({at}); mn = B({at}); mxl = B({at}); mnl = B({at}); f32 = 0.25f;\n"
            f"int q = (int)I({at});\n"
            f"isum = q; lsum = (long long)q * 3000000000LL; imax = q; imin = q - (long long)i; iml = q; inl = q;\n"
            f"pr = (i == 2) ? 1.5 : 1.0; ia = ~(1LL << (j % 40)); io = 1 << (i % 20);")
    red = {"sum": "sum", "mx": "max", "mn": "min", "mxl": "maxloc", "mnl": "minloc", "f32": ("sum", "float32"),
           "isum": ("sum", "int32"), "lsum": ("sum", "int64"), "imax": ("max", "int32"), "imin": ("min", "int64"),
           "iml": ("maxloc", "int32"), "inl": ("minloc", "int64"), "pr": "prod", "ia": ("and", "int64"),
           "io": ("or", "int32")}
    lp = d.loop(",".join(idx), body, {"A": (A, "r"), "B": (B, "w"), "I": (I, "r")}, scalars={"s": scale},
                reductions=red, range=([1] * r, [n - 1 for n in d.shape]))
    res = lp.run()
    return {"A": A.gather(all=True), "B": B.gather(all=True), "I": I.gather(all=True)}, res, lp.exchanges


def coords_reference(shape, scale=0.5):
    """NumPy's A, I and B of coords() (B up to rounding) and its reductions."""
    r = len(shape)
    g = np.indices(shape, dtype=float)  # g[0] is NumPy axis 0 = the first loop index
    ii, jj = g[-1], g[-2] if r > 1 else 0 * g[-1]
    lin = sum(10.0 ** (2 * p) * g[r - 1 - p] for p in range(r))
    A = lin + 0.001 * np.sin(0.3 * ii * jj)
    I = (lin.astype(np.int64) % 11).astype(float)
    inner = tuple(slice(1, n - 1) for n in shape)
    B = np.full(shape, np.nan)
    acc = -2 * r * A[inner] + scale * A[inner]
    for a in range(r):
        for s in (-1, 1):
            acc = acc + A[tuple(slice(1 + s, n - 1 + s) if b == a else slice(1, n - 1) for b, n in enumerate(shape))]
    B[inner] = acc
    return A, I, B


def sor(d, u0, order=1, sweeps=3, omega=1.7, portions=None):
    """`sweeps` SOR sweeps over the interior as a distributed ACROSS loop
    (order -1: every index descending, NAS LU's upper sweep)."""
    r = len(d.shape)
    idx = names(r)
    at = ",".join(idx)
    U = d.array(value=u0)
    nb = " + ".join(f"U({','.join(n + s if n == m else n for n in idx)})" for m in idx for s in ("-1", "+1"))
    lp = d.loop(",".join(idx), f"U({at}) += w * ({1.0 / (2 * r)!r} * ({nb}) - U({at}));", {"U": (U, "rw")},
                scalars={"w": omega}, range=([1] * r, [n - 1 for n in d.shape]), across=1, order=order,
                portions=portions)
    lp.run(times=sweeps)
    return U.gather(all=True)


def sor_reference(u0, order=1, sweeps=3, omega=1.7):
    """The sequential nest in Python (the last index innermost)."""
    u = u0.copy()
    r = u.ndim
    ranges = [range(1, n - 1) if order == 1 else range(n - 2, 0, -1) for n in u.shape]
    for _ in range(sweeps):
        for p in np.ndindex(*[len(x) for x in ranges]):
            x = tuple(ranges[a][p[a]] for a in range(r))
            nb = 0.0
            for a in range(r):
                for s in (-1, 1):
                    y = list(x)
                    y[a] += s
                    nb += u[tuple(y)]
            u[x] += omega * ((1.0 / (2 * r)) * nb - u[x])
    return u


def remote(d):
    """2D: u written by a loop, then v(j,i) = u(j,i) + the column u(:, 5), the
    point u(0, nx-1), the row j = 3 of a component array's component 1, and a
    list of three points, wherever they live."""
    ny, nx = d.shape
    u = d.array(value=np.full(d.shape, np.nan))
    v = d.array(value=np.full(d.shape, np.nan))
    c = d.array(value=np.full(d.shape + (2,), np.nan), ncomp=2)
    d.loop("j,i", "u(j,i) = i + 100.0 * j + sin(1.0 * i * j); c(j,i,0) = -1.0 * i; c(j,i,1) = 0.5 * j + i;",
           {"u": (u, "w"), "c": (c, "w")}).run()
    pts = np.array([[ny - 1, nx - 1], [ny - 1, 0], [3, 11]])
    d.loop("j,i", f"v(j,i) = u(j,i) + col(j,5) + 2 * pt(0,{nx - 1}) + 3 * row(3,i,1) + L(0) - L(1) + 0.5 * L(2);",
           {"u": (u, "r"), "v": (v, "w")},
           remote={"col": (u, np.s_[:, 5]), "pt": (u, (0, -1)), "row": (c, np.s_[3, :]), "L": (u, pts)}).run()
    return v.gather(all=True)


def remote_reference(shape):
    ny, nx = shape
    j, i = np.indices(shape, dtype=float)
    u = i + 100.0 * j + np.sin(i * j)
    return u + u[:, 5:6] + 2 * u[0, nx - 1] + 3 * (0.5 * 3 + i) + u[ny - 1, nx - 1] - u[ny - 1, 0] + 0.5 * u[3, 11]


def aligned(d):
    """ALIGN with a shift (-2, 1): X(j, i) lives at grid index (j - 2, i + 1);
    iteration (j, i) writes X(j+2, i-1), the element at its own point, and a
    second loop reads it back there and one column left (a shadow)."""
    ny, nx = d.shape
    X = d.array(value=np.full(d.shape, np.nan))
    Y = d.array(value=np.full(d.shape, np.nan))
    sh = (-2, 1)
    d.loop("j,i", "X(j+2,i-1) = 1000.0 * i + j;", {"X": (X, "w", sh)}).run()
    d.loop("j,i", "Y(j,i) = X(j+2,i-1) - 0.5 * X(j+2,i-2);", {"X": (X, "r", sh), "Y": (Y, "w")},
           range=((0, 1), (ny, nx))).run()
    return X.gather(all=True), Y.gather(all=True)


def components(d):
    """A 3-component array with its own shadows (1 below, 0 above on axis 0;
    2 on both sides of axis 1): a loop writes the components from the
    coordinates, a second reads neighbours within those shadows."""
    ny, nx = d.shape
    U = d.array(value=np.full(d.shape + (3,), np.nan), ncomp=3, shadow=((1, 2), (0, 2)))
    V = d.array(value=np.full(d.shape, np.nan))
    d.loop("j,i", "U(j,i,0) = i; U(j,i,1) = j; U(j,i,2) = i * j + 0.25;", {"U": (U, "w")}).run()
    d.loop("j,i", "V(j,i) = U(j-1,i,2) + U(j,i+2,0) - U(j,i-2,1) + U(j,i,2);", {"U": (U, "r"), "V": (V, "w")},
           range=((1, 2), (ny, nx - 2))).run()
    return U.gather(all=True), V.gather(all=True)


def components_reference(shape):
    ny, nx = shape
    j, i = np.indices(shape, dtype=float)
    U = np.stack([i, j, i * j + 0.25], axis=-1)
    V = np.full(shape, np.nan)
    V[1:, 2:nx - 2] = U[0:ny - 1, 2:nx - 2, 2] + U[1:, 4:nx, 0] - U[1:, 0:nx - 4, 1] + U[1:, 2:nx - 2, 2]
    return U, V


def all_cases(d, rng_seed=5):
    """Every case on one Dist (2-D): {name: array or results}."""
    rng = np.random.default_rng(rng_seed)
    u0 = rng.random(d.shape)
    out = {}
    f, res, _ = coords(d)
    out.update({"coords_" + k: v for k, v in f.items()})
    out["results"] = res
    out["sor_fwd"] = sor(d, u0, 1)
    out["sor_bwd"] = sor(d, u0, -1)
    out["remote"] = remote(d)
    out["aligned_X"], out["aligned_Y"] = aligned(d)
    out["comp_U"], out["comp_V"] = components(d)
    return out
