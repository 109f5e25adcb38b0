"""-div(k grad u) = 1 on the unit square with u = 0 on the boundary and a
layered coefficient k (a jump of 1000 between layers), solved by conjugate
gradients preconditioned by fdx's geometric multigrid V-cycle (fdx.Solver;
plain V-cycles stall on this jump, whose coarse grids only see an averaged
k: docs/notes/mg.md); the solution is then checked by a user
stencil (fdx.UStencil) that applies the same operator: two coefficient arrays
of face weights (the harmonic means 2 k_p k_q / (k_p + k_q) the solver uses)
read at their own offsets.  With an output directory and matplotlib, plots
the solution and the residual history.

    PYTHONPATH=python FDX_LIBRARY_DIR=build/lib /usr/bin/python3 examples/python/varcoef_mg.py [OUTDIR] [N]

Works on the default context: NumPy arrays on the CPU backend (FDX_BACKEND=cpu
or no GPU); on a GPU pass CuPy arrays instead (the same calls)."""
import os
import sys

import numpy as np

import fdx

n = int(sys.argv[2]) if len(sys.argv) > 2 else 129
h = 1.0 / (n - 1)
y = np.linspace(0, 1, n)[:, None]
k = np.where((y * 4).astype(int) % 2 == 0, 1.0, 1000.0) * np.ones((n, n))   # layers in y
f = np.ones((n, n))
u = np.zeros((n, n))                                                        # boundary values 0

solver = fdx.Solver((n, n), coef=k, bc="dirichlet", h=h, method="cg", cycle="v", smoother="rbgs", tol=1e-10)
solver.solve(f, u)
hist = solver.residual_history
print(f"CG-MG: {solver.iterations} iterations, {solver.levels} levels, residual {hist[-1]:.3e}, "
      f"converged {solver.converged}")

# the same operator as a user stencil: face weights wy, wx at p (the face p..p+e)
wy, wx = k.copy(), k.copy()
wy[:-1, :] = 2 * k[:-1, :] * k[1:, :] / (k[:-1, :] + k[1:, :])
wx[:, :-1] = 2 * k[:, :-1] * k[:, 1:] / (k[:, :-1] + k[:, 1:])
A = fdx.UStencil(2, ncoefs=2, alpha=1 / h ** 2)
for c, e in ((0, (1, 0)), (1, (0, 1))):           # coefficient 0: y faces, 1: x faces
    me = tuple(-x for x in e)
    A.add_term(1.0, (0, 0), coef=c).add_term(-1.0, e, coef=c)                                   # w(p) (u_p - u_p+e)
    A.add_term(1.0, (0, 0), coef=c, coef_offset=me).add_term(-1.0, me, coef=c, coef_offset=me)  # w(p-e) (u_p - u_p-e)
Au = A(u, coefs=[wy, wx])
r = (f - Au)[1:-1, 1:-1]
rel = np.linalg.norm(r) / np.linalg.norm(f[1:-1, 1:-1])
print(f"user stencil: ||f - A u|| / ||f|| = {rel:.3e} ({A.nterms} terms, radius {A.radius})")
ok = solver.converged and rel <= 2 * hist[-1] + 1e-14 and abs(rel - hist[-1]) <= 0.05 * hist[-1]
print("verified" if ok else "MISMATCH between the solver's residual and the user stencil's")

try:
    import matplotlib
except ImportError:
    matplotlib = None
    print("no matplotlib (python3-matplotlib): no plot")
if len(sys.argv) > 1 and matplotlib is not None:
    matplotlib.use(os.environ.get("MPLBACKEND", "Agg"))
    import matplotlib.pyplot as plt
    os.makedirs(sys.argv[1], exist_ok=True)
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 4))
    im = a1.imshow(u, origin="lower", extent=(0, 1, 0, 1), cmap="viridis")
    fig.colorbar(im, ax=a1)
    a1.set_title("u: -div(k grad u) = 1, k layered 1 | 1000")
    a2.semilogy(hist, "o-")
    a2.set_xlabel("V-cycle")
    a2.set_ylabel("relative residual")
    a2.set_title("multigrid convergence")
    fig.tight_layout()
    fig.savefig(os.path.join(sys.argv[1], "varcoef_mg.png"), dpi=80)
    print("wrote", os.path.join(sys.argv[1], "varcoef_mg.png"))
sys.exit(0 if ok else 1)
