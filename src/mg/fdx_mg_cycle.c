/* fdx_mg_cycle: smoothing, the coarse solve, and the V-, W-, F-cycles and
   full multigrid, recursively over the levels. */
#include "mg/fdx_mg_impl.h"


void mg_swap(double **a, double **b)
{
    double *t = *a;
    *a = *b;
    *b = t;
}

/* nu sweeps of the smoother on level l; `backward` reverses the colour
   order of Gauss-Seidel, so that post-smoothing is the adjoint of
   pre-smoothing and the cycle is a symmetric preconditioner. */
static void smooth(fdx_solver *s, int l, int nu, int backward)
{
    mg_level *L = &s->lev[l];
    if (nu <= 0) return;
    switch (s->smoother) {
    case FDX_SMOOTH_JACOBI:
        for (int it = 0; it < nu; it++) {
            s->ops->ghosts(s, L, L->u);
            s->ops->jacobi(L, L->u, L->f, L->t, s->omega);
            mg_swap(&L->u, &L->t);
        }
        break;
    case FDX_SMOOTH_RBGS:
        for (int it = 0; it < nu; it++) {
            if (L->gs2) {
                s->ops->gs_sweep2(L, L->u, L->f, L->t, backward);
                mg_swap(&L->u, &L->t);
                continue;
            }
            if (s->fused_gs) {
                s->ops->gs_sweep(L, L->u, L->f, backward);
                continue;
            }
            for (int c = 0; c < 2; c++) {
                s->ops->ghosts(s, L, L->u);
                s->ops->gs_color(L, L->u, L->f, backward ? 1 - c : c);
            }
        }
        break;
    case FDX_SMOOTH_CHEBY: {
        /* The Chebyshev iteration for [lo, hi] (Saad, Alg. 12.1), the same
           polynomial before and after. */
        const double theta = 0.5 * (s->cheb_hi + s->cheb_lo), delta = 0.5 * (s->cheb_hi - s->cheb_lo);
        const double sigma = theta / delta;
        double rho = 1.0 / sigma;
        for (int it = 0; it < nu; it++) {
            s->ops->ghosts(s, L, L->u);
            if (it == 0) {
                s->ops->cheby(L, L->u, L->f, L->d, L->t, 0.0, 1.0 / theta);
            } else {
                double rho_new = 1.0 / (2.0 * sigma - rho);
                s->ops->cheby(L, L->u, L->f, L->d, L->t, rho_new * rho, 2.0 * rho_new / delta);
                rho = rho_new;
            }
            mg_swap(&L->u, &L->t);
        }
        break;
    }
    }
    s->work += nu * L->work;
}

/* The coarsest level in correction form (u may hold boundary values and a
   guess): u += A^-1 (f - A u), directly or by many sweeps. */
void mg_coarse_solve(fdx_solver *s)
{
    const int l = s->nlev - 1;
    mg_level *L = &s->lev[l];
    if (s->coarse == FDX_COARSE_SWEEPS) {
        smooth(s, l, s->coarse_sweeps, 0);
        return;
    }
    s->ops->ghosts(s, L, L->u);
    s->ops->residual(L, L->u, L->f, L->t);
    s->ops->coarse(s, L);
    s->work += 2 * L->work;
}

/* Residual of level l restricted to the right-hand side of level l+1,
   whose solution starts at zero. */
static void descend(fdx_solver *s, int l)
{
    mg_level *L = &s->lev[l], *C = &s->lev[l + 1];
    s->ops->ghosts(s, L, L->u);
    if (s->fuse) {
        s->ops->resrestrict(s, L, C, L->u, L->f, C->f);
    } else {
        s->ops->residual(L, L->u, L->f, L->t);
        s->ops->restrict_(s, L, C, L->t, C->f);
    }
    s->ops->zero(C, C->u);
    s->work += L->work;
}

static void ascend(fdx_solver *s, int l)
{
    mg_level *L = &s->lev[l], *C = &s->lev[l + 1];
    s->ops->ghosts(s, C, C->u);
    s->ops->prolong(L, C, C->u, L->u, 1);
}

void mg_cycle(fdx_solver *s, int l, fdx_solver_cycle c)
{
    if (l == s->nlev - 1) {
        mg_coarse_solve(s);
        return;
    }
    smooth(s, l, s->pre - (l == 0 && s->skip_pre0), 0);
    descend(s, l);
    const int coarsest = l + 1 == s->nlev - 1;
    switch (c) {
    case FDX_CYCLE_W:
        mg_cycle(s, l + 1, FDX_CYCLE_W);
        if (!coarsest) mg_cycle(s, l + 1, FDX_CYCLE_W);
        break;
    case FDX_CYCLE_F:
        mg_cycle(s, l + 1, FDX_CYCLE_F);
        if (!coarsest) mg_cycle(s, l + 1, FDX_CYCLE_V);
        break;
    default:
        mg_cycle(s, l + 1, FDX_CYCLE_V);
        break;
    }
    const int backward = s->method == FDX_SOLVER_CG_MG;
    mg_level *L = &s->lev[l], *C = &s->lev[l + 1];
    if (s->psmooth && L->gs2 == MG_GS2_Z) {
        /* prolongation, correction and the first post-smoothing sweep in
           one pass over the fine level */
        s->ops->ghosts(s, C, C->u);
        s->ops->gs_sweep2p(L, C, C->u, L->u, L->f, L->t, backward);
        mg_swap(&L->u, &L->t);
        s->work += L->work;
        smooth(s, l, s->post - 1, backward);
        return;
    }
    ascend(s, l);
    smooth(s, l, s->post, backward);
}

void mg_fmg(fdx_solver *s)
{
    const int last = s->nlev - 1;
    if (last == 0) {
        mg_coarse_solve(s);
        return;
    }
    /* Each coarse level gets the problem itself: the restricted right-hand
       side and the fine boundary values at its boundary points (in both
       buffers a Jacobi sweep swaps), so the interpolated solutions are
       smooth up to the boundary.  The initial guess's interior is not used. */
    const int pingpong = s->smoother != FDX_SMOOTH_RBGS || s->gs2;
    for (int l = 0; l < last; l++) {
        mg_level *F = &s->lev[l], *C = &s->lev[l + 1];
        s->ops->restrict_(s, F, C, F->f, C->f);
        s->ops->zero(C, C->u);
        s->ops->inject(s, F, C, F->u, C->u);
        if (pingpong) s->ops->copy(C, C->t, C->u);
    }
    mg_coarse_solve(s);
    for (int l = last - 1; l >= 0; l--) {
        mg_level *L = &s->lev[l], *C = &s->lev[l + 1];
        s->ops->ghosts(s, C, C->u);
        s->ops->prolong(L, C, C->u, L->u, 0);
        /* Level l+1 now holds a correction (zero on the boundary) in the
           V-cycle below: its second buffer too, which the out-of-place
           sweeps and Jacobi swap in without writing its boundary points. */
        if (pingpong) s->ops->zero(C, C->t);
        mg_cycle(s, l, FDX_CYCLE_V);
    }
    /* Corrections on the coarse levels have zero boundary values again. */
    for (int l = 1; l <= last; l++) {
        s->ops->zero(&s->lev[l], s->lev[l].u);
        s->ops->zero(&s->lev[l], s->lev[l].t);
    }
}
