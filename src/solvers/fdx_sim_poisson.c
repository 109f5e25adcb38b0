/* fdx_sim_poisson: -lap u = f by Richardson (Jacobi) sweeps,
   u <- u + alpha (lap u + f), on the manufactured problem; the Dirichlet
   layers keep their values (the stencil never writes them). */
#include "core/fdx_error.h"
#include "solvers/fdx_fieldops.h"
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

const fdx_sim_physics fdx_sim_poisson_ops = {FDX_SIM_POISSON, 2, poisson_setup, poisson_terms, NULL};
