/* fdx mg: geometric multigrid for the Poisson equation -lap u = f, or
   -div(k grad u) = f with a coefficient array k > 0
   (fdx_solver_set_coefficient), on 2D and 3D grids of any size, as a solver or as the preconditioner of conjugate
   gradients.  The life cycle is PETSc's: create, set, setup, solve (many
   times), read the iterations and the residual history, destroy.

   The grid (first index fastest, u(i,j,k) = u[i + nx*(j + ny*k)]) has, on
   each axis, one boundary kind (both ends the same):
   - Dirichlet: vertex-centred, point i at x = i*h; points 0 and n-1 are the
     boundary: u there holds the boundary values, which the solve keeps.
   - Neumann (homogeneous, du/dn = 0): cell-centred, point i at (i+1/2)*h,
     all n points unknown; the boundary is mirrored half a cell out.
   - periodic: point i at i*h, period n*h, all n points unknown.
   With no Dirichlet axis the problem is singular: the solve checks that f
   has mean zero (compatibility), removes its rounding-level mean, and
   returns the solution of mean zero.

   Coarse grids have (n+1)/2 points per axis (nested for odd Dirichlet and
   even Neumann/periodic extents; for the others the coarse grid is the
   uniform grid of the same interval, and the transfers are linear
   interpolation between the two grids and its scaled transpose).  Axes too
   short to coarsen are kept (semi-coarsening).  Runs on the CPU backend
   (OpenMP) and on CUDA (levels in device memory); other backends are
   refused with FDX_ERR_UNSUPPORTED. */
#ifndef FDX_MG_H
#define FDX_MG_H

#include "array.h"
#include "dist.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fdx_solver fdx_solver;

typedef enum fdx_solver_method {
    FDX_SOLVER_MG = 0, /* multigrid cycles until the tolerance */
    FDX_SOLVER_CG_MG   /* conjugate gradients preconditioned by one cycle */
} fdx_solver_method;

typedef enum fdx_solver_cycle {
    FDX_CYCLE_V = 0,
    FDX_CYCLE_W,
    FDX_CYCLE_F,
    FDX_CYCLE_FMG /* full multigrid first, then V-cycles */
} fdx_solver_cycle;

typedef enum fdx_solver_smoother {
    FDX_SMOOTH_JACOBI = 0, /* weighted Jacobi (omega 4/5 in 2D, 6/7 in 3D) */
    FDX_SMOOTH_CHEBY,      /* Chebyshev polynomial of degree `sweeps` in D^-1 A */
    FDX_SMOOTH_RBGS        /* red-black Gauss-Seidel (post: black first) */
} fdx_solver_smoother;

typedef enum fdx_solver_bc {
    FDX_BC_DIRICHLET = 0,
    FDX_BC_NEUMANN,
    FDX_BC_PERIODIC
} fdx_solver_bc;

typedef enum fdx_solver_coarse {
    FDX_COARSE_DIRECT = 0, /* Cholesky of the coarsest level (at most 64 unknowns) */
    FDX_COARSE_SWEEPS      /* many smoothing sweeps on the coarsest level */
} fdx_solver_coarse;

/* A solver for a grid of `shape` (rank 2 or 3, every extent >= 3) on the
   context's backend.  Defaults: MG, full multigrid then V(2,2) cycles
   (FDX_CYCLE_FMG) with red-black Gauss-Seidel,
   direct coarse solve, Dirichlet on every axis, spacing 1/(n-1) (Dirichlet)
   or 1/n per axis, relative tolerance 1e-10, at most 50 cycles. */
FDX_API fdx_status fdx_solver_create(fdx_ctx *ctx, int rank, const int64_t *shape, fdx_solver **out);
FDX_API void fdx_solver_destroy(fdx_solver **s);

/* Setters; each checks its value (the message names it).  Changing anything
   after fdx_solver_setup requires another setup (solve does it). */
FDX_API fdx_status fdx_solver_set_method(fdx_solver *s, fdx_solver_method m);
/* Stop when ||f - A u||_2 <= tol * ||f - A u0||_2 (u0: the initial guess). */
FDX_API fdx_status fdx_solver_set_tolerance(fdx_solver *s, double rtol);
FDX_API fdx_status fdx_solver_set_max_cycles(fdx_solver *s, int max_cycles);
FDX_API fdx_status fdx_solver_set_cycle(fdx_solver *s, fdx_solver_cycle c);
/* Smoother and its sweeps before and after the coarse correction (0..16). */
FDX_API fdx_status fdx_solver_set_smoother(fdx_solver *s, fdx_solver_smoother sm, int pre, int post);
/* Coarsest level: direct, or `sweeps` smoothing sweeps (1..100000). */
FDX_API fdx_status fdx_solver_set_coarse(fdx_solver *s, fdx_solver_coarse c, int sweeps);
/* Boundary kind of one axis, or of every axis with axis -1. */
FDX_API fdx_status fdx_solver_set_bc(fdx_solver *s, int axis, fdx_solver_bc bc);
/* Grid spacing per axis (rank entries, each > 0). */
FDX_API fdx_status fdx_solver_set_spacing(fdx_solver *s, const double *h);

/* Order of the finest operator: 2 (default) or 4.  Order 4 (every axis
   Dirichlet, MG method): the 9/13-point star (-u[-2] + 16 u[-1] - 30 u +
   16 u[+1] - u[+2]) / 12h^2 per axis, second order at points next to the
   boundary (the error stays O(h^4)), solved by defect correction: each
   cycle solves the second-order problem for the fourth-order residual
   (about 1/3 per cycle, so ~2x the cycles).  The residual history is the
   fourth-order one. */
FDX_API fdx_status fdx_solver_set_order(fdx_solver *s, int order);

/* Variable coefficient: the operator becomes -div(k grad u), discretized
   as sum_a [w(p, p+e_a) (u_p - u_{p+e_a}) + w(p, p-e_a) (u_p - u_{p-e_a})]
   / h_a^2 with the face coefficient w(p, q) = 2 k_p k_q / (k_p + k_q), the
   harmonic mean of the two point values (exact flux continuity for layered
   media, so jumps between points are handled; second order where k is
   smooth).  k: a FLOAT64 array of the solver's shape, read now from its
   host copy (call fdx_array_to_host first for device data) and kept by the
   solver (the array may be destroyed after); every value finite and > 0
   (the message names the first bad point).  Values at Dirichlet boundary
   points are used (the faces next to the boundary); Neumann and periodic
   axes mirror or wrap k as they do u.  Coarse levels take k averaged with
   the full-weighting (hat) weights of the restriction, renormalized at the
   ends of the grid; see docs/notes/mg.md for where that needs a Galerkin
   operator instead (strong jumps not aligned with the coarse grids).
   NULL: back to k = 1 (-lap u).  Every smoother, cycle, FMG and CG-MG;
   order 2 only. */
FDX_API fdx_status fdx_solver_set_coefficient(fdx_solver *s, fdx_array *k);

/* Builds the levels and the transfers; allocates everything a solve uses
   (the cycles allocate nothing). */
FDX_API fdx_status fdx_solver_setup(fdx_solver *s);
/* Solves -lap u = f (or -div(k grad u) = f).  u: initial guess and (Dirichlet) boundary values in,
   solution out; f: right-hand side (values at the boundary points of a
   Dirichlet axis are ignored).  Both FLOAT64 arrays of the solver's shape.
   Returns FDX_OK also when the tolerance was not reached within the cycles:
   read fdx_solver_converged. */
FDX_API fdx_status fdx_solver_solve(fdx_solver *s, fdx_array *f, fdx_array *u);

/* Distributed over units (GPUs, CPU units, MPI ranks): a solver for the
   grid of d (rank and shape of its description), every fine level split
   as d splits the grid (a distribution of its own a level, with shadows
   as wide as the transfers need), the levels below FDX_MG_GATHER unknowns
   a unit (default 32768; CUDA 262144) gathered onto one unit of every process and
   solved there as on one unit.  opts: the options d was made with.  d
   must outlive the solver, and have no periodic frames
   (FDX_ERR_UNSUPPORTED: periodic axes are fdx_solver_set_bc's).  What one
   unit takes: Dirichlet, Neumann and periodic axes (mixed too; the ghosts
   of split axes renewed across units, a periodic one wrapped between its
   end units), orders 2 and 4, every cycle, smoother, the coefficient and
   CG-MG.  A grid whose first coarse level has fewer points than units on
   a split axis, or (order 4) parts of level 0 thinner than 2 points:
   FDX_ERR_INVALID.  The cycles, residual history and solution are those
   of one unit: every value bit for bit but the norms, whose sums are
   added per unit and then across units (the last bits of the history;
   without a Dirichlet axis the right-hand side's mean is such a sum, so
   the solution agrees to rounding).  CUDA units of one process (every
   axis Dirichlet: with Neumann or periodic axes the graph replayed
   slower than plain launches) run
   each cycle after the first as one CUDA graph over all of them
   (FDX_MG_GRAPH=0: plain launches). */
FDX_API fdx_status fdx_solver_create_dist(const fdx_options *opts, fdx_dist *d, fdx_solver **out);
/* fdx_solver_solve on arrays of the solver's distribution (f, u: double
   fdx_darrays of d); u's shadows are not renewed. */
FDX_API fdx_status fdx_solver_solve_dist(fdx_solver *s, fdx_darray *f, fdx_darray *u);
/* After setup: the levels split over the units (the finer ones; the rest
   are gathered onto one unit); 0 for a solver of one unit. */
FDX_API int fdx_solver_distributed_levels(const fdx_solver *s);

/* After a solve: cycles (MG) or CG iterations done, 1 if the tolerance was
   reached, the relative residual after each cycle (hist[0] = 1, n = cycles
   + 1; valid until the next solve or destroy), fine-grid work units (one
   unit = one operator application on the finest grid), and the levels. */
FDX_API int fdx_solver_iterations(const fdx_solver *s);
FDX_API int fdx_solver_converged(const fdx_solver *s);
FDX_API fdx_status fdx_solver_residual_history(const fdx_solver *s, const double **hist, int *n);
FDX_API double fdx_solver_work_units(const fdx_solver *s);
FDX_API int fdx_solver_levels(const fdx_solver *s);
/* Points per axis of level l (0: finest) into shape[rank]. */
FDX_API fdx_status fdx_solver_level_shape(const fdx_solver *s, int level, int64_t *shape);

/* Names (for flags and records) and their parsers: "mg"|"cg"; "v"|"w"|"f"|
   "fmg"; "jacobi"|"cheby"|"rbgs"; "dirichlet"|"neumann"|"periodic". */
FDX_API const char *fdx_solver_method_name(fdx_solver_method m);
FDX_API const char *fdx_solver_cycle_name(fdx_solver_cycle c);
FDX_API const char *fdx_solver_smoother_name(fdx_solver_smoother sm);
FDX_API const char *fdx_solver_bc_name(fdx_solver_bc bc);
FDX_API fdx_status fdx_solver_method_parse(const char *s, fdx_solver_method *out);
FDX_API fdx_status fdx_solver_cycle_parse(const char *s, fdx_solver_cycle *out);
FDX_API fdx_status fdx_solver_smoother_parse(const char *s, fdx_solver_smoother *out);
FDX_API fdx_status fdx_solver_bc_parse(const char *s, fdx_solver_bc *out);

#ifdef __cplusplus
}
#endif
#endif
