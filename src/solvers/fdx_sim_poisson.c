/* fdx_sim_poisson: -lap u = f by Richardson (Jacobi) sweeps,
   u <- u + alpha (lap u + f), on the manufactured problem; the Dirichlet
   layers keep their values (the stencil never writes them). */
#include "core/fdx_error.h"
#include "solvers/fdx_fieldops.h"
#include "solvers/fdx_fieldstats.h"
#include "solvers/fdx_sim_impl.h"

#include <math.h>

static fdx_status poisson_setup(fdx_sim *s, double lam, fdx_stencil_desc *desc)
{
    s->alpha = s->p.cfl * 2.0 / lam;
    s->dt = 1;
    s->tol = s->p.tol;
    s->change = INFINITY;
    FDX_TRY(fdx_sim_check_numbers(s));
    FDX_TRY(fdx_sim_make_array(s, &s->rhs));
    FDX_TRY(fdx_sim_init_poisson(s, s->cur, s->rhs));
    desc->update = FDX_UPDATE_HEAT;
    return FDX_OK;
}

static fdx_status poisson_terms(fdx_sim *s, const fdx_sim_block *b, fdx_array *next, fdx_array *cur, int64_t step,
                                void *stream)
{
    (void)cur;
    (void)step;
    (void)b; /* one array only: Poisson is not distributed */
    return fdx_fieldops_axpy(next, s->alpha, s->rhs, stream);
}

/* The stopping test, every 100 sweeps: one sweep more, and the largest change it made
   relative to the largest value, reduced where the field lives (after the
   step, next holds the field before it). */
static fdx_status poisson_converged(fdx_sim *s, int *stop)
{
    *stop = 0;
    if (s->step % 100 != 0 || s->step >= s->steps) return FDX_OK;
    FDX_TRY(fdx_sim_step(s));
    /* A NaN field must never read as "no change". */
    fdx_status st = fdx_sim_check_finite(s, s->cur, "the solution");
    if (st != FDX_OK) {
        s->change = NAN;
        return st;
    }
    int64_t lo[3] = {0, 0, 0};
    fdx_stats d, u;
    FDX_TRY(fdx_fieldstats_diff(s->cur, s->next, &d, s->stream));
    FDX_TRY(fdx_fieldstats_box(s->cur, lo, s->n, &u, s->stream));
    double umax = fmax(1e-300, fmax(fabs(u.min), fabs(u.max)));
    s->change = fmax(fabs(d.min), fabs(d.max)) / umax;
    *stop = s->change < s->tol;
    return FDX_OK;
}

const fdx_sim_physics fdx_sim_poisson_ops = {.kind = FDX_SIM_POISSON,
                                             .levels = 2,
                                             .setup = poisson_setup,
                                             .terms = poisson_terms,
                                             .converged = poisson_converged};
