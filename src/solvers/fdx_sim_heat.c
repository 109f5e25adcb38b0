/* fdx_sim_heat: the heat equation u_t = kappa lap u, explicit Euler: dt
   from the stability limit, the initial temperature, and the insulated
   walls' mirror as the boundary step (conditions of the boundary key are
   the stencil's own pass, set in fdx_sim.c); blocks of steps between
   outputs through fdx_stencil_steps (temporal blocking). */
#include "core/fdx_error.h"
#include "solvers/fdx_fieldops.h"
#include "solvers/fdx_fieldstats.h"
#include "solvers/fdx_sim_impl.h"

fdx_status fdx_sim_heat_range(fdx_sim *s)
{
    int64_t lo[3] = {0, 0, 0};
    fdx_stats st;
    FDX_TRY(fdx_fieldstats_box(s->cur, lo, s->n, &st, s->stream));
    s->range[0] = st.min;
    s->range[1] = st.max;
    return FDX_OK;
}

static fdx_status heat_setup(fdx_sim *s, double lam, fdx_stencil_desc *desc)
{
    s->dt = s->p.cfl * 2.0 / (s->p.kappa * lam);
    s->alpha = s->p.kappa * s->dt;
    FDX_TRY(fdx_sim_check_numbers(s));
    FDX_TRY(fdx_sim_params_check_boundary(&s->p));
    s->insulated = s->p.insulated;
    FDX_TRY(fdx_sim_init_heat(s, s->cur));
    /* The colour range of heat pictures: the initial field's, reduced where it lives. */
    FDX_TRY(fdx_sim_heat_range(s));
    desc->update = FDX_UPDATE_HEAT;
    return FDX_OK;
}

/* Insulated walls: the r ghost layers mirror the layers inside (zero
   normal flux), on the faces of the whole grid this array holds. */
static fdx_status heat_boundary(fdx_sim *s, const fdx_sim_block *b, fdx_array *next, void *stream)
{
    if (!s->insulated || !b->faces) return FDX_OK;
    return fdx_fieldops_mirror_sides(next, s->r, b->faces, stream);
}

fdx_status fdx_sim_heat_steps(fdx_sim *s, int64_t n)
{
    /* cur and next share the fixed frame (spread_initial, restart), as
       fdx_stencil_steps asks of its scratch; the result lands in cur. */
    FDX_TRY(fdx_stencil_steps(s->stencil, s->cur, s->next, n, s->p.temporal, s->stream));
    s->depth_used = fdx_stencil_steps_depth(s->stencil, s->n, NULL, 0);
    s->step += n;
    return FDX_OK;
}

const fdx_sim_physics fdx_sim_heat_ops = {.kind = FDX_SIM_HEAT, .levels = 2, .setup = heat_setup, .boundary = heat_boundary,
                                     .steps = fdx_sim_heat_steps};
