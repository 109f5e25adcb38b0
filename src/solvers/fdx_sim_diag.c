/* fdx_sim_diag: the run's diagnostics, reduced where the fields live
   (fdx_fieldstats; 32 bytes come back a reduction): integral and max |u|
   over the interior, the checksum (sum and L2 over every point), and the
   discrete wave energy that leapfrog conserves. */
#include "core/fdx_error.h"
#include "fdx/stencil.h"
#include "solvers/fdx_fieldstats.h"
#include "solvers/fdx_sim_impl.h"

#include <math.h>
#include <string.h>

fdx_status fdx_sim_diagnose(fdx_sim *s, fdx_sim_diag *d)
{
    FDX_CHECK(s && d, FDX_ERR_INVALID, "fdx_sim_diagnose: %s is NULL", s ? "the result" : "the simulation");
    memset(d, 0, sizeof *d);
    FDX_TRY(fdx_sim_pull(s));
    /* The interior: the r outer layers are walls, ghosts or Dirichlet data. */
    int64_t lo[3] = {0, 0, 0}, hi[3], all_lo[3] = {0, 0, 0};
    for (int a = 0; a < 3; a++) {
        lo[a] = a < s->rank ? s->r : 0;
        hi[a] = a < s->rank ? s->n[a] - s->r : 1;
    }
    fdx_stats in, all;
    FDX_TRY(fdx_fieldstats_box(s->cur, lo, hi, &in, s->stream));
    /* The checksum: the same bits for any run that computed the same field
       (CPU, GPU, any split; see fdx_fieldstats.h for the order). */
    FDX_TRY(fdx_fieldstats_box(s->cur, all_lo, s->n, &all, s->stream));
    d->sum = all.a;
    d->l2 = sqrt(all.b);
    d->integral = in.a * pow(s->h, s->rank);
    d->max_abs = fmax(fabs(in.min), fabs(in.max));
    d->change = s->change;
    if (s->kind == FDX_SIM_WAVE) {
        /* E = sum (u - u_prev)^2 / (c^2 dt^2) - (u, L u_prev), half of it,
           times the cell volume: constant for leapfrog without source and
           sponge. */
        fdx_energy_args e;
        memset(&e, 0, sizeof e);
        e.idt2 = 1.0 / (s->dt * s->dt);
        e.ih2 = 1.0 / (s->h * s->h);
        e.r = s->r;
        FDX_TRY(fdx_fd_weights(2, s->order, e.w));
        fdx_stats en;
        FDX_TRY(fdx_fieldstats_energy(s->cur, s->prev, s->coef, &e, &en, s->stream));
        d->energy = 0.5 * (en.a + en.b) * pow(s->h, s->rank);
    }
    return FDX_OK;
}
