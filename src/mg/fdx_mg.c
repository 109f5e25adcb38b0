/* fdx_mg: the solver object: life cycle, setters, and the solve (multigrid
   cycles, or conjugate gradients preconditioned by one cycle). */
#include "core/fdx_knob.h"
#include "mg/fdx_mg_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

fdx_status fdx_solver_create(fdx_ctx *ctx, int rank, const int64_t *shape, fdx_solver **out)
{
    FDX_CHECK(out, FDX_ERR_INVALID, "fdx_solver_create: out is NULL");
    *out = NULL;
    FDX_CHECK(ctx && shape, FDX_ERR_INVALID, "fdx_solver_create: ctx or shape is NULL");
    FDX_CHECK(rank == 2 || rank == 3, FDX_ERR_INVALID, "multigrid: rank %d (2 or 3 only)", rank);
    FDX_TRY(fdx_shape_check(rank, shape, 3, sizeof(double)));
    for (int a = 0; a < rank; a++)
        FDX_CHECK(shape[a] <= INT32_MAX / 4, FDX_ERR_INVALID, "multigrid: extent %lld of axis %d is too large",
                  (long long)shape[a], a);
    const int gpu = fdx_ctx_backend(ctx) == FDX_BACKEND_CUDA;
    const mg_ops *ops = gpu ? mg_cuda_ops() : mg_cpu_ops();
    FDX_CHECK(ops, FDX_ERR_UNSUPPORTED, "multigrid on the %s backend: this build has no CUDA kernels",
              fdx_backend_kind_name(fdx_ctx_backend(ctx)));
    fdx_solver *s = calloc(1, sizeof *s);
    FDX_CHECK(s, FDX_ERR_NOMEM, "out of host memory for a solver");
    s->ops = ops;
    s->gpu = gpu;
    s->ctx = ctx;
    s->rank = rank;
    for (int a = 0; a < 3; a++) s->shape[a] = a < rank ? shape[a] : 1;
    s->method = FDX_SOLVER_MG;
    s->cycle = FDX_CYCLE_FMG;
    s->smoother = FDX_SMOOTH_RBGS;
    s->pre = s->post = 2;
    s->coarse = FDX_COARSE_DIRECT;
    s->coarse_sweeps = 50;
    s->tol = 1e-10;
    s->max_cycles = 50;
    s->order = 2;
    *out = s;
    return FDX_OK;
}

void fdx_solver_destroy(fdx_solver **s)
{
    if (!s || !*s) return;
    mg_free_levels(*s);
    mg_dist_destroy(*s);
    free((*s)->kuser);
    free(*s);
    *s = NULL;
}

#define SETTER_CHECK(s) FDX_CHECK(s, FDX_ERR_INVALID, "solver is NULL")

fdx_status fdx_solver_set_method(fdx_solver *s, fdx_solver_method m)
{
    SETTER_CHECK(s);
    FDX_CHECK(m == FDX_SOLVER_MG || m == FDX_SOLVER_CG_MG, FDX_ERR_INVALID, "solver method %d is unknown", (int)m);
    s->method = m;
    s->ready = 0;
    return FDX_OK;
}

fdx_status fdx_solver_set_order(fdx_solver *s, int order)
{
    SETTER_CHECK(s);
    FDX_CHECK(order == 2 || order == 4, FDX_ERR_INVALID, "operator order %d (2 or 4)", order);
    s->order = order;
    s->ready = 0;
    return FDX_OK;
}

fdx_status fdx_solver_set_tolerance(fdx_solver *s, double rtol)
{
    SETTER_CHECK(s);
    FDX_CHECK(rtol > 0 && rtol < 1, FDX_ERR_INVALID, "tolerance %g is not in (0, 1)", rtol);
    s->tol = rtol;
    return FDX_OK;
}

fdx_status fdx_solver_set_max_cycles(fdx_solver *s, int max_cycles)
{
    SETTER_CHECK(s);
    FDX_CHECK(max_cycles >= 1 && max_cycles <= 100000, FDX_ERR_INVALID, "max cycles %d is not in 1..100000",
              max_cycles);
    s->max_cycles = max_cycles;
    s->ready = 0;
    return FDX_OK;
}

fdx_status fdx_solver_set_cycle(fdx_solver *s, fdx_solver_cycle c)
{
    SETTER_CHECK(s);
    FDX_CHECK(c >= FDX_CYCLE_V && c <= FDX_CYCLE_FMG, FDX_ERR_INVALID, "cycle %d is unknown", (int)c);
    s->cycle = c;
    return FDX_OK;
}

fdx_status fdx_solver_set_smoother(fdx_solver *s, fdx_solver_smoother sm, int pre, int post)
{
    SETTER_CHECK(s);
    FDX_CHECK(sm >= FDX_SMOOTH_JACOBI && sm <= FDX_SMOOTH_RBGS, FDX_ERR_INVALID, "smoother %d is unknown", (int)sm);
    FDX_CHECK(pre >= 0 && pre <= 16 && post >= 0 && post <= 16 && pre + post > 0, FDX_ERR_INVALID,
              "smoothing sweeps %d (pre) and %d (post) must be in 0..16, not both 0", pre, post);
    s->smoother = sm;
    s->pre = pre;
    s->post = post;
    s->ready = 0;
    return FDX_OK;
}

fdx_status fdx_solver_set_coarse(fdx_solver *s, fdx_solver_coarse c, int sweeps)
{
    SETTER_CHECK(s);
    FDX_CHECK(c == FDX_COARSE_DIRECT || c == FDX_COARSE_SWEEPS, FDX_ERR_INVALID, "coarse solve %d is unknown", (int)c);
    FDX_CHECK(c == FDX_COARSE_DIRECT || (sweeps >= 1 && sweeps <= 100000), FDX_ERR_INVALID,
              "coarse sweeps %d are not in 1..100000", sweeps);
    s->coarse = c;
    if (c == FDX_COARSE_SWEEPS) s->coarse_sweeps = sweeps;
    s->ready = 0;
    return FDX_OK;
}

fdx_status fdx_solver_set_bc(fdx_solver *s, int axis, fdx_solver_bc bc)
{
    SETTER_CHECK(s);
    FDX_CHECK(axis >= -1 && axis < s->rank, FDX_ERR_INVALID, "boundary axis %d is not in -1..%d", axis, s->rank - 1);
    FDX_CHECK(bc >= FDX_BC_DIRICHLET && bc <= FDX_BC_PERIODIC, FDX_ERR_INVALID, "boundary kind %d is unknown", (int)bc);
    for (int a = 0; a < s->rank; a++)
        if (axis < 0 || a == axis) s->bc[a] = bc;
    s->ready = 0;
    return FDX_OK;
}

fdx_status fdx_solver_set_spacing(fdx_solver *s, const double *h)
{
    SETTER_CHECK(s);
    FDX_CHECK(h, FDX_ERR_INVALID, "spacing is NULL");
    for (int a = 0; a < s->rank; a++)
        FDX_CHECK(h[a] > 0 && isfinite(h[a]), FDX_ERR_INVALID, "spacing %g of axis %d is not positive", h[a], a);
    for (int a = 0; a < s->rank; a++) s->h[a] = h[a];
    s->h_set = 1;
    s->ready = 0;
    return FDX_OK;
}

fdx_status fdx_solver_set_coefficient(fdx_solver *s, fdx_array *k)
{
    SETTER_CHECK(s);
    s->ready = 0;
    if (!k) {
        free(s->kuser);
        s->kuser = NULL;
        return FDX_OK;
    }
    FDX_CHECK(fdx_array_dtype(k) == FDX_FLOAT64, FDX_ERR_INVALID, "multigrid: the coefficient is %s, not double",
              fdx_dtype_name(fdx_array_dtype(k)));
    FDX_CHECK(fdx_array_rank(k) == s->rank, FDX_ERR_INVALID, "multigrid: the coefficient has rank %d, the solver %d",
              fdx_array_rank(k), s->rank);
    for (int d = 0; d < s->rank; d++)
        FDX_CHECK(fdx_array_extent(k, d) == s->shape[d], FDX_ERR_INVALID,
                  "multigrid: the coefficient has extent %lld on axis %d, the solver %lld",
                  (long long)fdx_array_extent(k, d), d, (long long)s->shape[d]);
    const double *v = fdx_array_host(k);
    FDX_CHECK(v, FDX_ERR_INVALID, "multigrid: the coefficient has no host storage (fdx_array_to_host first)");
    const int64_t n = s->shape[0] * s->shape[1] * s->shape[2];
    for (int64_t q = 0; q < n; q++)
        FDX_CHECK(v[q] > 0 && isfinite(v[q]), FDX_ERR_INVALID,
                  "multigrid: the coefficient is %g at point (%lld, %lld, %lld): it must be finite and > 0", v[q],
                  (long long)(q % s->shape[0]), (long long)(q / s->shape[0] % s->shape[1]),
                  (long long)(q / (s->shape[0] * s->shape[1])));
    double *copy = malloc((size_t)n * sizeof(double));
    FDX_CHECK(copy, FDX_ERR_NOMEM, "multigrid: out of host memory for the coefficient (%lld points)", (long long)n);
    memcpy(copy, v, (size_t)n * sizeof(double));
    free(s->kuser);
    s->kuser = copy;
    return FDX_OK;
}

fdx_status fdx_solver_setup(fdx_solver *s)
{
    SETTER_CHECK(s);
    mg_free_levels(s);
    if (!s->h_set)
        for (int a = 0; a < s->rank; a++)
            s->h[a] = 1.0 / (double)(s->bc[a] == FDX_BC_DIRICHLET ? s->shape[a] - 1 : s->shape[a]);
    /* Weighted Jacobi: the weight that minimizes the smoothing factor of the
       5/7-point operator; Chebyshev: D^-1 A lies in (0, 2] (Gershgorin), the
       smoother targets the upper part that coarse grids cannot represent. */
    s->omega = s->rank == 3 ? 6.0 / 7.0 : 4.0 / 5.0;
    s->cheb_hi = 2.0;
    s->cheb_lo = s->rank == 3 ? 0.3 : 0.4;
    if (s->order == 4) {
        FDX_CHECK(s->ops->residual4, FDX_ERR_UNSUPPORTED, "multigrid: this backend has no order 4");
        FDX_CHECK(s->method == FDX_SOLVER_MG, FDX_ERR_UNSUPPORTED,
                  "multigrid: order 4 is solved by defect correction with MG cycles, not with CG");
        for (int a = 0; a < s->rank; a++)
            FDX_CHECK(s->bc[a] == FDX_BC_DIRICHLET, FDX_ERR_UNSUPPORTED,
                      "multigrid: order 4 needs Dirichlet boundaries (axis %d is %s)", a, fdx_solver_bc_name(s->bc[a]));
        FDX_CHECK(!s->kuser, FDX_ERR_UNSUPPORTED, "multigrid: order 4 has no variable coefficient (order 2 only)");
    }
    /* Residual and restriction in one pass: on CUDA it saves writing and
       reading back the fine residual array; on the CPU the recomputed rows
       cost more than that (measured: docs/notes/mg.md). */
    s->fuse = s->ops->resrestrict && (fdx_knob_is(FDX_KNOB_MG_FUSE, "1") || (s->gpu && !fdx_knob_is(FDX_KNOB_MG_FUSE, "0")));
    s->fused_gs = s->rank == 3;
    for (int a = 0; a < s->rank; a++)
        if (s->bc[a] != FDX_BC_DIRICHLET) s->fused_gs = 0;
    /* Out-of-place one-pass red-black (CUDA: one read of u and f and one
       write a sweep instead of two each): on CUDA by default, the
       z-marching kernel (FDX_MG_GS2=1: the shared-ring one, 0: the two
       colour kernels in place); on the CPU only when asked (it adds a copy
       to the CPU's in-place one-pass sweep). */
    s->gs2 = 0;
    if (s->fused_gs && s->smoother == FDX_SMOOTH_RBGS && s->ops->gs_sweep2) {
        if (fdx_knob_is(FDX_KNOB_MG_GS2, "1"))
            s->gs2 = MG_GS2_RING;
        else if (fdx_knob_is(FDX_KNOB_MG_GS2, "z") || (s->gpu && !fdx_knob(FDX_KNOB_MG_GS2)))
            s->gs2 = MG_GS2_Z;
    }
    /* The prolongation inside the first post-smoothing sweep (z-marching
       sweeps) saves a read and a write of the fine u a cycle, but the
       folded kernel spills: slower on the H100 (V at 513^3 141.8 ms
       against 133.0 apart), so only with FDX_MG_PSMOOTH=1. */
    s->psmooth = s->gs2 == MG_GS2_Z && s->post > 0 && s->ops->gs_sweep2p && fdx_knob_is(FDX_KNOB_MG_PSMOOTH, "1");
    /* The convergence check's residual norm inside the next cycle's first
       pre-smoothing sweep (saves reading u and f once a cycle): MG cycles
       of order 2 with z-marching sweeps, FDX_MG_NORMFUSE=1 until measured. */
    s->normfuse = s->gs2 == MG_GS2_Z && s->pre > 0 && s->method == FDX_SOLVER_MG && s->order == 2 &&
                  s->ops->gs_sweep2_norm && fdx_knob_is(FDX_KNOB_MG_NORMFUSE, "1");
    fdx_status st = s->md ? mg_dist_build(s) : mg_build_levels(s);
    if (s->nlev < 2 || s->lev[0].gs2 != MG_GS2_Z) s->normfuse = 0; /* level 0 not out of place */
    if (st == FDX_OK && s->coarse == FDX_COARSE_DIRECT) st = mg_coarse_factor(s);
    if (st != FDX_OK) {
        mg_free_levels(s);
        return st;
    }
    s->ready = 1;
    return FDX_OK;
}

static fdx_status check_array(const fdx_solver *s, fdx_array *a, const char *what)
{
    FDX_CHECK(a, FDX_ERR_INVALID, "multigrid: %s is NULL", what);
    FDX_CHECK(fdx_array_dtype(a) == FDX_FLOAT64, FDX_ERR_INVALID, "multigrid: %s is %s, not double", what,
              fdx_dtype_name(fdx_array_dtype(a)));
    FDX_CHECK(fdx_array_rank(a) == s->rank, FDX_ERR_INVALID, "multigrid: %s has rank %d, the solver %d", what,
              fdx_array_rank(a), s->rank);
    for (int d = 0; d < s->rank; d++)
        FDX_CHECK(fdx_array_extent(a, d) == s->shape[d], FDX_ERR_INVALID,
                  "multigrid: %s has extent %lld on axis %d, the solver %lld", what, (long long)fdx_array_extent(a, d),
                  d, (long long)s->shape[d]);
    FDX_CHECK(s->gpu ? fdx_array_device(a) != NULL : fdx_array_host(a) != NULL, FDX_ERR_INVALID,
              "multigrid: %s has no %s storage", what, s->gpu ? "device" : "host");
    FDX_CHECK(fdx_array_ctx(a) == s->ctx, FDX_ERR_INVALID, "multigrid: %s belongs to another context", what);
    return FDX_OK;
}

/* The copy of an array a solve reads and writes: the device's on CUDA (the
   caller moves the values there: fdx_array_to_device), the host's on the
   CPU. */
static double *user_data(const fdx_solver *s, fdx_array *a)
{
    return s->gpu ? fdx_array_device(a) : fdx_array_host(a);
}

/* Singular problems: f must have mean zero up to rounding; the rounding is
   removed so the cycles see a compatible right-hand side. */
static fdx_status make_compatible(fdx_solver *s)
{
    mg_level *L = &s->lev[0];
    const double sum = s->ops->dot(L, L->f, NULL), sq = s->ops->dot(L, L->f, L->f);
    const double mean = sum / (double)L->unknowns, rms = sqrt(sq / (double)L->unknowns);
    FDX_CHECK(fabs(mean) <= 1e-8 * rms, FDX_ERR_INVALID,
              "multigrid: with no Dirichlet axis the right-hand side must have mean 0 (compatibility), its mean is "
              "%.3g (rms %.3g)",
              mean, rms);
    s->ops->shift(L, L->f, -mean);
    return FDX_OK;
}

static void remove_mean(fdx_solver *s, double *a)
{
    const mg_level *L = &s->lev[0];
    s->ops->shift(L, a, -s->ops->dot(L, a, NULL) / (double)L->unknowns);
}

/* One cycle on level 0: a replayed CUDA graph where the backend has one. */
static void run_cycle(fdx_solver *s, fdx_solver_cycle c)
{
    if (s->ops->graph_cycle && s->ops->graph_cycle(s, c)) return;
    mg_cycle(s, 0, c);
}

static void solve_mg(fdx_solver *s, double r0)
{
    mg_level *L = &s->lev[0];
    for (int it = 1; it <= s->max_cycles; it++) {
        if (it == 1 && s->cycle == FDX_CYCLE_FMG) {
            /* a distributed solver replays it as a graph (solves after the first) */
            if (!(s->ops->graph_cycle && s->ops->graph_cycle(s, FDX_CYCLE_FMG))) mg_fmg(s);
        } else {
            s->skip_pre0 = s->normfuse && it > 1; /* the check below ran its first sweep */
            run_cycle(s, s->cycle == FDX_CYCLE_FMG ? FDX_CYCLE_V : s->cycle);
            s->skip_pre0 = 0;
        }
        s->ops->ghosts(s, L, L->u);
        double r;
        if (s->normfuse) {
            /* the residual of u and the next cycle's first sweep in one
               pass (into t: u stays the answer if this is the last) */
            r = sqrt(s->ops->gs_sweep2_norm(L, L->u, L->f, L->t, 0));
            s->work += L->work;
        } else {
            r = sqrt(s->ops->resnorm2(L, L->u, L->f));
            s->work += 1;
        }
        s->hist[it] = r / r0;
        s->iters = it;
        if (r <= s->tol * r0) {
            s->converged = 1;
            break;
        }
        if (s->normfuse) mg_swap(&L->u, &L->t);
    }
}

/* Fourth order by defect correction: x holds the iterate (with its
   boundary values), p the right-hand side; each cycle solves the
   second-order problem for the fourth-order residual (in level 0's f) from
   zero and adds the correction. */
static void solve_order4(fdx_solver *s, double r0)
{
    mg_level *L = &s->lev[0];
    for (int it = 1; it <= s->max_cycles; it++) {
        s->ops->zero(L, L->u);
        run_cycle(s, s->cycle == FDX_CYCLE_FMG ? FDX_CYCLE_V : s->cycle);
        s->ops->cg_direction(L, s->x, L->u, 1.0); /* x = u + 1 x */
        s->ops->ghosts(s, L, s->x);
        const double r = sqrt(s->ops->residual4(L, s->x, s->p, L->f));
        s->work += 2;
        s->hist[it] = r / r0;
        s->iters = it;
        if (r <= s->tol * r0) {
            s->converged = 1;
            break;
        }
    }
}

/* z = M r: one cycle on level 0 with r as its right-hand side and zero
   start; returns level 0's u (the cycle may have swapped buffers). */
static double *precondition(fdx_solver *s)
{
    mg_level *L = &s->lev[0];
    s->ops->zero(L, L->u);
    run_cycle(s, s->cycle == FDX_CYCLE_FMG ? FDX_CYCLE_V : s->cycle);
    if (s->singular) remove_mean(s, L->u);
    return L->u;
}

/* Conjugate gradients on x (level 0 layout, with the boundary values); the
   residual lives in level 0's f, which is the preconditioner's input. */
static void solve_cg(fdx_solver *s, double r0)
{
    mg_level *L = &s->lev[0];
    double *r = L->f;
    s->ops->zero(L, L->u);
    s->ops->zero(L, L->t);
    s->ops->zero(L, s->p);
    double *z = precondition(s);
    s->ops->copy(L, s->p, z);
    double rz = s->ops->dot(L, r, z);
    for (int it = 1; it <= s->max_cycles; it++) {
        s->ops->ghosts(s, L, s->p);
        const double pq = s->ops->apply(L, s->p, s->q);
        const double alpha = rz / pq;
        const double rr = s->ops->cg_update(L, s->x, s->p, r, s->q, alpha);
        s->work += 1;
        s->hist[it] = sqrt(rr) / r0;
        s->iters = it;
        if (sqrt(rr) <= s->tol * r0) {
            s->converged = 1;
            break;
        }
        z = precondition(s);
        const double rz_new = s->ops->dot(L, r, z);
        s->ops->cg_direction(L, s->p, z, rz_new / rz);
        rz = rz_new;
    }
}

/* The solve on the caller's data: arrays' storage (one unit) or
   fdx_darray handles (distributed: the table's copy_user reads them). */
static fdx_status solve_data(fdx_solver *s, double *fdata, double *udata)
{
    if (!s->ready) FDX_TRY(fdx_solver_setup(s));
    mg_level *L = &s->lev[0];
    s->iters = 0;
    s->converged = 0;
    s->work = 0;
    s->hist[0] = 1;
    s->ops->zero(L, L->f);
    s->ops->copy_user(s, fdata, L->f, 0, 0);
    if (s->singular) FDX_TRY(make_compatible(s));
    const int separate = s->method == FDX_SOLVER_CG_MG || s->order == 4; /* iterate apart from level 0 */
    double *x = separate ? s->x : L->u;
    s->ops->zero(L, x);
    s->ops->copy_user(s, udata, x, 0, 1);
    /* Jacobi and Chebyshev write level 0's t and then swap it in: it needs
       the same boundary values. */
    if (s->method == FDX_SOLVER_MG && (s->smoother != FDX_SMOOTH_RBGS || s->gs2))
        s->ops->copy(L, L->t, L->u);
    s->ops->ghosts(s, L, x);
    double r0;
    if (s->order == 4) {
        s->ops->copy(L, s->p, L->f);
        s->ops->zero(L, L->u);
        s->ops->zero(L, L->t);
        r0 = sqrt(s->ops->residual4(L, x, s->p, L->f));
    } else if (s->method == FDX_SOLVER_CG_MG) {
        s->ops->residual(L, x, L->f, L->f);
        r0 = sqrt(s->ops->dot(L, L->f, L->f));
    } else {
        r0 = sqrt(s->ops->resnorm2(L, x, L->f));
    }
    s->work += 1;
    if (!(r0 > 0)) {
        s->converged = isfinite(r0);
    } else if (s->order == 4) {
        solve_order4(s, r0);
    } else if (s->method == FDX_SOLVER_CG_MG) {
        solve_cg(s, r0);
    } else {
        solve_mg(s, r0);
    }
    x = separate ? s->x : L->u;
    if (s->singular) remove_mean(s, x);
    s->ops->copy_user(s, x, udata, 1, 0);
    FDX_TRY(s->ops->status());
    s->nhist = s->iters + 1;
    FDX_CHECK(isfinite(s->hist[s->iters]), FDX_ERR_VERIFY, "multigrid: the residual is not finite after %d cycles",
              s->iters);
    return FDX_OK;
}

fdx_status fdx_solver_solve(fdx_solver *s, fdx_array *f, fdx_array *u)
{
    SETTER_CHECK(s);
    FDX_CHECK(!s->md, FDX_ERR_INVALID, "multigrid: a distributed solver solves fdx_darrays (fdx_solver_solve_dist)");
    FDX_TRY(check_array(s, f, "the right-hand side"));
    FDX_TRY(check_array(s, u, "the solution"));
    return solve_data(s, user_data(s, f), user_data(s, u));
}

fdx_status fdx_solver_solve_dist(fdx_solver *s, fdx_darray *f, fdx_darray *u)
{
    SETTER_CHECK(s);
    FDX_TRY(mg_dist_check(s, f, "the right-hand side"));
    FDX_TRY(mg_dist_check(s, u, "the solution"));
    mg_dist_begin(s);
    return solve_data(s, (double *)(void *)f, (double *)(void *)u);
}

int fdx_solver_iterations(const fdx_solver *s) { return s ? s->iters : 0; }
int fdx_solver_converged(const fdx_solver *s) { return s ? s->converged : 0; }
double fdx_solver_work_units(const fdx_solver *s) { return s ? s->work : 0; }
int fdx_solver_levels(const fdx_solver *s) { return s ? s->nlev : 0; }

fdx_status fdx_solver_residual_history(const fdx_solver *s, const double **hist, int *n)
{
    SETTER_CHECK(s);
    FDX_CHECK(hist && n, FDX_ERR_INVALID, "residual history: hist or n is NULL");
    FDX_CHECK(s->ready && s->nhist > 0, FDX_ERR_INVALID, "residual history: no solve yet");
    *hist = s->hist;
    *n = s->nhist;
    return FDX_OK;
}

fdx_status fdx_solver_level_shape(const fdx_solver *s, int level, int64_t *shape)
{
    SETTER_CHECK(s);
    FDX_CHECK(shape, FDX_ERR_INVALID, "level shape: shape is NULL");
    FDX_CHECK(s->ready && level >= 0 && level < s->nlev, FDX_ERR_INVALID, "level %d is not in 0..%d", level,
              s->nlev - 1);
    for (int a = 0; a < s->rank; a++) shape[a] = s->lev[level].n[a];
    return FDX_OK;
}
