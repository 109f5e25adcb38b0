/* fdx_sim_wave: the acoustic wave u_tt = c^2 lap u + f by leapfrog: the
   velocity model, dt from the CFL limit, the Ricker point source, the
   absorbing layer (Cerjan's sponge, or the PML of fdx_pml.c) and the
   receivers. */
#include "core/fdx_error.h"
#include "solvers/fdx_fieldops.h"
#include "solvers/fdx_sim_impl.h"

#include <math.h>
#include <string.h>

/* The layer of a block (extent NULL: the whole grid). */
static fdx_pml_desc pml_desc(const fdx_sim *s, const int64_t *origin, const int64_t *extent)
{
    fdx_pml_desc d = {s->rank, {s->n[0], s->n[1], s->n[2]}, s->r, s->pml_width, s->h, s->dt, s->cmax,
                      fdx_pml_default_r0(s->pml_width - s->r), FDX_PML_POWER, M_PI * s->f0, {0, 0, 0}, {0, 0, 0}};
    for (int a = 0; extent && a < s->rank; a++) d.origin[a] = origin[a], d.extent[a] = extent[a];
    return d;
}

static fdx_status make_pml(const fdx_sim *s, fdx_ctx *ctx, const int64_t *origin, const int64_t *extent, fdx_pml **out)
{
    fdx_pml_desc d = pml_desc(s, origin, extent);
    return fdx_pml_create(ctx, s->type, &d, out);
}

/* The units' memory is not in checkpoints (yet): refused rather than lost. */
static fdx_status units_keep_no_state(const fdx_sim *s)
{
    FDX_CHECK(s->p.checkpoint_every == 0 && !s->p.restart[0] && s->step == 0, FDX_ERR_INVALID,
              "absorb: pml over units does not checkpoint or restart (run on one unit, or absorb = sponge)");
    return FDX_OK;
}

fdx_status fdx_sim_wave_pml(const fdx_sim *s, fdx_ctx *ctx, const int64_t *origin, const int64_t *extent, fdx_pml **out)
{
    *out = NULL;
    if (s->pml_width == 0) return FDX_OK;
    FDX_TRY(units_keep_no_state(s));
    return make_pml(s, ctx, origin, extent, out);
}

/* absorb = none drops the layer, pml puts the perfectly matched layer of
   fdx_pml.c in the sponge's cells (the stencil's update stays the plain
   one, the sponge off; a distributed run's units make their own parts,
   fdx_sim_wave_pml); sponge keeps Cerjan's.  *layer: the cells the
   absorbing layer takes (the default receivers stay out of them). */
static fdx_status absorb_setup(fdx_sim *s, int *layer)
{
    const fdx_sim_params *p = &s->p;
    if (p->absorb == FDX_SIM_ABSORB_NONE) {
        FDX_CHECK(p->sponge_is_default || p->sponge == 0, FDX_ERR_INVALID,
                  "sponge: %d cells with absorb = none (give one or the other)", p->sponge);
        s->sponge = 0;
    }
    *layer = s->sponge;
    if (p->absorb != FDX_SIM_ABSORB_PML) return FDX_OK;
    FDX_CHECK(!p->has_bc, FDX_ERR_INVALID,
              "absorb: pml ends at the fixed frame; it does not combine with boundary conditions (use boundary = fixed, or absorb = sponge)");
    FDX_CHECK(s->sponge > 0, FDX_ERR_INVALID, "absorb: pml needs a layer (sponge = N cells, N >= %d)", s->r + 2);
    s->pml_width = s->sponge;
    /* With units (gpus = K) the layer is theirs (fdx_sim_wave_pml; its
       description checked now); the one-array layer is made when the run
       may step here (gpus unset). */
    fdx_pml_desc d = pml_desc(s, NULL, NULL);
    if (p->gpus == 0) FDX_TRY(make_pml(s, s->ctx, NULL, NULL, &s->pml));
    else {
        FDX_TRY(fdx_pml_check(&d));
        FDX_TRY(units_keep_no_state(s));
    }
    s->sponge = 0;
    return FDX_OK;
}

static fdx_status wave_setup(fdx_sim *s, double lam, fdx_stencil_desc *desc)
{
    FDX_TRY(fdx_sim_make_array(s, &s->prev)); /* the fields start at rest, zero */
    FDX_TRY(fdx_sim_velocity_range(s));
    s->dt = s->p.cfl * 2.0 / (s->cmax * sqrt(lam));
    s->alpha = s->dt * s->dt;
    s->f0 = s->p.f0;
    if (s->f0 == 0) s->f0 = s->cmin / (12 * s->h);
    s->t0 = 1.2 / s->f0;
    s->amp = s->p.amplitude;
    FDX_TRY(fdx_sim_check_numbers(s));
    FDX_TRY(fdx_sim_params_check_boundary(&s->p));
    s->sponge = s->p.sponge;
    /* Conditions replace the default sponge (a periodic axis has no wall
       to absorb at); an explicit one stays, except on periodic axes. */
    if (s->p.has_bc && s->p.sponge_is_default) s->sponge = 0;
    FDX_CHECK(!(s->p.periodic && s->sponge > 0), FDX_ERR_INVALID,
              "sponge: %d cells against a periodic boundary (give --sponge 0, or no periodic axis)", s->sponge);
    /* The default sponge fits every allowed size (issue 18): on an axis of
       40 points or fewer it is a quarter of that axis. */
    for (int d = 0; d < s->rank && s->p.sponge_is_default; d++)
        if (2 * s->sponge >= s->n[d]) s->sponge = (int)(s->n[d] / 4);
    for (int d = 0; d < s->rank; d++)
        FDX_CHECK(2 * s->sponge < s->n[d], FDX_ERR_INVALID, "sponge: %d cells on both sides leave nothing of axis %d (%lld points)",
                  s->sponge, d, (long long)s->n[d]);
    FDX_TRY(fdx_sim_make_array(s, &s->coef));
    FDX_TRY(fdx_sim_velocity_fill(s, s->coef));
    int layer = 0;
    FDX_TRY(absorb_setup(s, &layer));

    /* Source and receivers: grid points away from the untouched outer layers. */
    int64_t pts[FDX_SIM_MAX_REC][3];
    int np = s->p.nsource, dims = s->p.source_dims;
    memcpy(pts[0], s->p.source, sizeof pts[0]);
    if (np == 0) {
        for (int d = 0; d < 3; d++) pts[0][d] = d < s->rank ? s->n[d] / 2 : 0;
        dims = s->rank;
    }
    FDX_CHECK(dims == s->rank, FDX_ERR_INVALID, "source: %d coordinates for a %dD grid", dims, s->rank);
    int64_t src[3];
    memcpy(src, pts[0], sizeof src);
    for (int d = 0; d < s->rank; d++)
        FDX_CHECK(pts[0][d] >= s->r && pts[0][d] < s->n[d] - s->r, FDX_ERR_INVALID,
                  "source: coordinate %d = %lld is outside %d..%lld", d, (long long)pts[0][d], s->r,
                  (long long)(s->n[d] - s->r - 1));
    s->src = src[0] + s->n[0] * (src[1] + s->n[1] * (s->rank == 3 ? src[2] : 0));
    np = s->p.nrec;
    dims = s->p.rec_dims;
    memcpy(pts, s->p.rec, sizeof pts);
    if (np == 0 && !s->p.no_receivers) {
        /* A line of receivers along x, a quarter of the grid above the source. */
        np = 32;
        int64_t lo = layer + s->r, hi = s->n[0] - 1 - lo;
        if (hi < lo) hi = lo = s->n[0] / 2;
        for (int i = 0; i < np; i++) {
            pts[i][0] = lo + (hi - lo) * i / (np - 1);
            pts[i][1] = src[1] + (s->n[1] - 1 - src[1]) / 2;
            pts[i][2] = src[2];
        }
        dims = s->rank;
    }
    FDX_CHECK(dims == s->rank, FDX_ERR_INVALID, "receivers: %d coordinates for a %dD grid", dims, s->rank);
    s->nrec = np;
    for (int i = 0; i < np; i++) {
        for (int d = 0; d < s->rank; d++)
            FDX_CHECK(pts[i][d] < s->n[d], FDX_ERR_INVALID, "receivers: point %d coordinate %d = %lld is outside the grid",
                      i, d, (long long)pts[i][d]);
        s->rec[i] = pts[i][0] + s->n[0] * (pts[i][1] + s->n[1] * (s->rank == 3 ? pts[i][2] : 0));
    }
    size_t es = fdx_dtype_size(s->type);
    FDX_TRY(s->be->alloc(sizeof(int64_t) * (size_t)np, &s->rec_idx_dev));
    FDX_TRY(s->be->alloc(es * (size_t)np * (size_t)(s->steps + 1), &s->rec_buf_dev));
    FDX_TRY(s->be->copy(s->rec_idx_dev, s->rec, sizeof(int64_t) * (size_t)np, FDX_COPY_H2D, s->stream));
    FDX_TRY(s->be->memset(s->rec_buf_dev, 0, es * (size_t)np * (size_t)(s->steps + 1), s->stream));
    desc->update = FDX_UPDATE_WAVE;
    desc->coef = 1;
    return s->be->stream_sync(s->stream);
}

double fdx_sim_source_value(const fdx_sim *s, int64_t step)
{
    /* A point force f(t) delta(x): dt^2 f / h^d at one grid point. */
    return s->amp * fdx_sim_ricker((double)step * s->dt, s->f0, s->t0) * s->dt * s->dt / pow(s->h, s->rank);
}

static fdx_status wave_terms(fdx_sim *s, const fdx_sim_block *b, fdx_array *next, fdx_array *cur, int64_t step,
                             void *stream)
{
    /* The PML's terms: a unit's own, or the one array's. */
    if (b->pml) FDX_TRY(fdx_pml_step(b->pml, next, cur, b->coef, stream));
    else if (s->pml) FDX_TRY(fdx_pml_step(s->pml, next, cur, s->coef, stream));
    /* Every array that holds the source point adds it (a block's shadows too). */
    double f = fdx_sim_source_value(s, step);
    if (f != 0 && b->src >= 0) FDX_TRY(fdx_fieldops_add_point(next, b->src, f, stream));
    /* Cerjan's sponge damps both time levels: damping only the new one
       leaves the two inconsistent and about half the energy stays.  The
       fused sponge of the one-array run damps cur as the next step reads it
       (as u_prev); blocks damp in global coordinates. */
    if (s->sponge > 0 && !(b->whole && s->sponge_fused))
        FDX_TRY(fdx_fieldops_sponge_at(next, cur, s->sponge, 0.3, b->origin, s->n, stream));
    return FDX_OK;
}

const fdx_sim_physics fdx_sim_wave_ops = {.kind = FDX_SIM_WAVE, .levels = 3, .setup = wave_setup, .terms = wave_terms,
                                     .steps = fdx_sim_wave_steps};
