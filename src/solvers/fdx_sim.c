/* fdx_sim: the core of a heat, wave or Poisson simulation: the grid, the
   time levels and their rotation, the stencil, and the step (the stencil
   update, then the physics' terms and boundary step: fdx_sim_heat.c,
   fdx_sim_wave.c, fdx_sim_poisson.c). */
#include "core/fdx_error.h"
#include "core/fdx_log.h"
#include "solvers/fdx_fieldops.h"
#include "solvers/fdx_sim_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Largest eigenvalue of -L on the grid: the 1D second-derivative weights of
   the order alternate in sign, so the symbol peaks at sum |w| per axis. */
static fdx_status lambda_max(const fdx_sim *s, double *lam)
{
    double w[FDX_STENCIL_MAX_ORDER + 1], sum = 0;
    FDX_TRY(fdx_fd_weights(2, s->order, w));
    for (int i = 0; i <= s->order; i++) sum += fabs(w[i]);
    *lam = s->rank * sum / (s->h * s->h);
    return FDX_OK;
}

fdx_status fdx_sim_make_array(fdx_sim *s, fdx_array **a)
{
    /* The stencil reads host storage on the CPU (one buffer with the device's). */
    unsigned places = fdx_ctx_backend(s->ctx) == FDX_BACKEND_CPU ? FDX_ON_HOST | FDX_ON_DEVICE : FDX_ON_DEVICE;
    FDX_TRY(fdx_array_create(s->ctx, s->type, s->rank, s->n, places, a));
    /* On the run's stream: a non-blocking stream does not wait for the
       legacy default one. */
    FDX_TRY(s->be->memset(fdx_array_device(*a), 0, fdx_array_bytes(*a), s->stream));
    return s->be->stream_sync(s->stream);
}

/* Names grid point q as "i,j[,k]" for messages. */
static void point_name(const fdx_sim *s, int64_t q, char *buf, size_t cap)
{
    int64_t i = q % s->n[0], j = q / s->n[0] % s->n[1], k = q / (s->n[0] * s->n[1]);
    if (s->rank == 3) snprintf(buf, cap, "%lld,%lld,%lld", (long long)i, (long long)j, (long long)k);
    else snprintf(buf, cap, "%lld,%lld", (long long)i, (long long)j);
}

fdx_status fdx_sim_upload(fdx_sim *s, fdx_array *a, const double *v, const char *what)
{
    size_t bytes = fdx_array_bytes(a);
    void *tmp = malloc(bytes);
    FDX_CHECK(tmp, FDX_ERR_NOMEM, "no memory for a %zu-byte host copy", bytes);
    /* Checked after the conversion: 1e39 is finite as a double, Inf as a float. */
    int64_t bad = -1;
    for (int64_t i = 0; i < s->count; i++) {
        double x;
        if (s->type == FDX_FLOAT64) x = ((double *)tmp)[i] = v[i];
        else x = ((float *)tmp)[i] = (float)v[i];
        if (!isfinite(x) && bad < 0) bad = i;
    }
    fdx_status st;
    if (bad >= 0) {
        char at[64];
        point_name(s, bad, at, sizeof at);
        st = fdx_fail(FDX_ERR_INVALID, "%s: the value %g at point %s is not finite as %s", what, v[bad], at,
                      fdx_dtype_name(s->type));
    } else {
        st = fdx_sim_upload_raw(s, a, tmp);
    }
    free(tmp);
    return st;
}

fdx_status fdx_sim_download(fdx_sim *s, fdx_array *a, double *v)
{
    size_t bytes = fdx_array_bytes(a);
    void *tmp = malloc(bytes);
    FDX_CHECK(tmp, FDX_ERR_NOMEM, "no memory for a %zu-byte host copy", bytes);
    fdx_status st = fdx_sim_download_raw(s, a, tmp);
    if (st == FDX_OK)
        for (int64_t i = 0; i < s->count; i++)
            v[i] = s->type == FDX_FLOAT64 ? ((double *)tmp)[i] : (double)((float *)tmp)[i];
    free(tmp);
    return st;
}

fdx_status fdx_sim_upload_raw(fdx_sim *s, fdx_array *a, const void *bytes)
{
    FDX_TRY(s->be->stream_sync(s->stream));
    FDX_TRY(s->be->copy(fdx_array_device(a), bytes, fdx_array_bytes(a), FDX_COPY_H2D, s->stream));
    return s->be->stream_sync(s->stream);
}

fdx_status fdx_sim_download_raw(fdx_sim *s, fdx_array *a, void *bytes)
{
    FDX_TRY(s->be->copy(bytes, fdx_array_device(a), fdx_array_bytes(a), FDX_COPY_D2H, s->stream));
    return s->be->stream_sync(s->stream);
}

static fdx_status set_fields(fdx_sim *s, const double *cur, const double *prev, const char *what);

/* The initial field, made in cur, into the other time levels: fixed walls
   and Poisson's Dirichlet layers live in every buffer (the stencil never
   writes them); the wave starts at rest (all zero already). */
static fdx_status spread_initial(fdx_sim *s)
{
    size_t bytes = fdx_array_bytes(s->cur);
    if (s->kind != FDX_SIM_WAVE)
        FDX_TRY(s->be->copy(fdx_array_device(s->next), fdx_array_device(s->cur), bytes, FDX_COPY_D2D, s->stream));
    if (s->kind == FDX_SIM_HEAT && s->insulated) FDX_TRY(fdx_fieldops_mirror(s->cur, s->r, s->stream));
    return s->be->stream_sync(s->stream);
}

/* A key given a value that the chosen mode never reads is a mistake the
   user should hear about, not a silent no-op. */
static fdx_status no_idle_keys(const fdx_sim *s)
{
    static const char *const rules[][3] = {
        /* key, the key it depends on, the value that uses it ("" : any but the default) */
        {"text", "init", "letters"},     {"input", "init", "file"}, {"model-file", "model", "file"},
        {"model-shape", "model", "file"}, {"overlap", "gpus", ""},
        {"scale", "output", ""},          {"overwrite", "output", ""},
    };
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
        const char *name, *metavar, *def, *help, *v = fdx_sim_config_get(s->cfg, rules[i][0]);
        const char *dep = fdx_sim_config_get(s->cfg, rules[i][1]);
        if (!v || !dep) continue;
        const char *vdef = NULL, *ddef = NULL;
        for (int k = 0; fdx_sim_config_key(s->kind, k, &name, &metavar, &def, &help); k++) {
            if (strcmp(name, rules[i][0]) == 0) vdef = def;
            if (strcmp(name, rules[i][1]) == 0) ddef = def;
        }
        if (!vdef || !ddef || strcmp(v, vdef) == 0) continue;
        int used = rules[i][2][0] ? strcmp(dep, rules[i][2]) == 0 : strcmp(dep, ddef) != 0 && strcmp(dep, "0") != 0;
        FDX_CHECK(used, FDX_ERR_INVALID, "%s: has no effect unless %s%s%s (it is %s)", rules[i][0], rules[i][1],
                  rules[i][2][0] ? " = " : " is set", rules[i][2], dep[0] ? dep : "not set");
    }
    return FDX_OK;
}

/* Receivers a wave run will record (for the memory estimate). */
static int receiver_count(const fdx_sim *s)
{
    if (s->kind != FDX_SIM_WAVE) return 0;
    return s->p.nrec ? s->p.nrec : 32;
}

static const fdx_sim_physics *physics_of(fdx_sim_kind k)
{
    return k == FDX_SIM_HEAT ? &fdx_sim_heat_ops : k == FDX_SIM_WAVE ? &fdx_sim_wave_ops : &fdx_sim_poisson_ops;
}

fdx_status fdx_sim_create(fdx_ctx *ctx, const fdx_sim_config *cfg, fdx_sim **out)
{
    FDX_CHECK(out, FDX_ERR_INVALID, "fdx_sim_create: out is NULL");
    *out = NULL;
    FDX_CHECK(ctx && cfg, FDX_ERR_INVALID, "fdx_sim_create: %s is NULL", ctx ? "the config" : "the context");
    fdx_sim *s = calloc(1, sizeof *s);
    FDX_CHECK(s, FDX_ERR_NOMEM, "no memory for a simulation");
    fdx_status st;
    s->ctx = ctx;
    s->be = fdx_ctx_ops(ctx);
    FDX_TRY_GOTO(st, fdx_sim_config_copy(cfg, &s->cfg), fail);
    FDX_TRY_GOTO(st, fdx_sim_params_parse(cfg, &s->p), fail);
    /* The core: grid, time and schedule. */
    s->kind = s->p.kind;
    s->ops = physics_of(s->kind);
    s->rank = s->p.rank;
    memcpy(s->n, s->p.n, sizeof s->n);
    s->order = s->p.order;
    s->r = s->order / 2;
    s->type = s->p.type;
    s->steps = s->p.steps;
    s->snapshot_every = s->p.snapshot_every;
    s->field_every = s->p.field_every;
    s->checkpoint_every = s->p.checkpoint_every;
    snprintf(s->output, sizeof s->output, "%s", s->p.output);
    for (int d = 0; d < s->rank; d++)
        if (s->n[d] < 4 * s->r + 2) {
            st = fdx_fail(FDX_ERR_INVALID, "size: axis %d has %lld points; order %d needs at least %d", d,
                          (long long)s->n[d], s->order, 4 * s->r + 2);
            goto fail;
        }
    if (fdx_shape_check(s->rank, s->n, 1, fdx_dtype_size(s->type)) != FDX_OK) {
        char why[600];
        snprintf(why, sizeof why, "%s", fdx_last_error());
        st = fdx_fail(FDX_ERR_INVALID, "size: %s", why);
        goto fail;
    }
    FDX_TRY_GOTO(st, no_idle_keys(s), fail);
    if (s->output[0]) FDX_TRY_GOTO(st, fdx_sim_check_output(s->output, s->p.restart, s->p.overwrite), fail);
    s->count = s->n[0] * s->n[1] * s->n[2];
    s->h = s->p.length / (double)(s->n[0] - 1);

    /* Every buffer the run will hold, on the host and the device, before any
       of them is allocated. */
    FDX_TRY_GOTO(st, fdx_sim_check_memory(s, receiver_count(s), s->p.gpus > 0), fail);
    if (fdx_ctx_backend(ctx) == FDX_BACKEND_CUDA) FDX_TRY_GOTO(st, s->be->stream_create(&s->stream), fail);
    FDX_TRY_GOTO(st, s->be->alloc(sizeof(int64_t), &s->check_dev), fail);

    /* The fields, then the physics' setup: dt, its arrays, the initial state. */
    FDX_TRY_GOTO(st, fdx_sim_make_array(s, &s->cur), fail);
    FDX_TRY_GOTO(st, fdx_sim_make_array(s, &s->next), fail);
    fdx_stencil_desc desc;
    double hh[3] = {s->h, s->h, s->h}, lam;
    fdx_stencil_desc_laplacian(&desc, s->rank, s->order, hh);
    FDX_TRY_GOTO(st, lambda_max(s, &lam), fail);
    FDX_TRY_GOTO(st, s->ops->setup(s, lam, &desc), fail);
    desc.alpha = s->alpha;
    s->desc = desc; /* the distributed driver damps in separate passes, in global coordinates */
    /* One array: the sponge rides in the wave update, no passes of its own. */
    s->sponge_fused = s->kind == FDX_SIM_WAVE && s->sponge > 0 && s->sponge <= FDX_STENCIL_MAX_SPONGE && s->rank >= 2;
    if (s->sponge_fused) desc.sponge = s->sponge, desc.sponge_strength = 0.3;
    FDX_TRY_GOTO(st, fdx_stencil_create(ctx, &desc, s->type, &s->stencil), fail);
    /* Conditions of the boundary key: the stencil's generated pass fills the
       ghosts of every step's input. */
    if (s->p.has_bc) FDX_TRY_GOTO(st, fdx_stencil_set_boundary(s->stencil, &s->p.bc), fail);
    if (s->p.has_bc) FDX_TRY_GOTO(st, fdx_bc_create(ctx, &s->p.bc, s->rank, s->r, hh, s->type, &s->frame_bc), fail);
    FDX_TRY_GOTO(st, spread_initial(s), fail);
    s->fresh = 1;
    FDX_DEBUG("sim: %s %s: fields and models ready", fdx_sim_kind_name(s->kind), fdx_sim_config_get(cfg, "size"));
    *out = s;
    return FDX_OK;
fail:
    fdx_sim_destroy(&s);
    return st;
}

void fdx_sim_destroy(fdx_sim **ps)
{
    fdx_sim *s = ps ? *ps : NULL;
    if (!s) return;
    if (s->stream) s->be->stream_sync(s->stream);
    fdx_stencil_destroy(&s->stencil);
    fdx_bc_destroy(&s->frame_bc);
    fdx_pml_destroy(&s->pml);
    fdx_array_destroy(&s->cur);
    fdx_array_destroy(&s->prev);
    fdx_array_destroy(&s->next);
    fdx_array_destroy(&s->coef);
    fdx_array_destroy(&s->rhs);
    fdx_array_destroy(&s->spare);
    if (s->rec_idx_dev) s->be->free(s->rec_idx_dev);
    if (s->rec_buf_dev) s->be->free(s->rec_buf_dev);
    if (s->check_dev) s->be->free(s->check_dev);
    if (s->stream) s->be->stream_destroy(s->stream);
    free(s->traces);
    free(s->model_c2);
    free(s->init_mask);
    fdx_sim_config_destroy(&s->cfg);
    free(s);
    *ps = NULL;
}

static fdx_status set_fields(fdx_sim *s, const double *cur, const double *prev, const char *what)
{
    FDX_TRY(fdx_sim_upload(s, s->cur, cur, what));
    /* Fixed walls and Poisson's Dirichlet layers live in both buffers: the
       stencil never writes them. */
    FDX_TRY(fdx_sim_upload(s, s->next, cur, what));
    if (s->prev) FDX_TRY(fdx_sim_upload(s, s->prev, prev ? prev : cur, what));
    if (s->kind == FDX_SIM_HEAT && s->insulated) FDX_TRY(fdx_fieldops_mirror(s->cur, s->r, s->stream));
    return s->be->stream_sync(s->stream);
}

fdx_status fdx_sim_set_field(fdx_sim *s, const double *cur, const double *prev)
{
    FDX_CHECK(s && cur, FDX_ERR_INVALID, "fdx_sim_set_field: %s is NULL", s ? "the field" : "the simulation");
    FDX_CHECK(!s->drv, FDX_ERR_INVALID, "fdx_sim_set_field: the simulation is driven by the distributed driver");
    s->fresh = 0;
    s->frames_same = 0; /* the wave's temporal blocking compares them again */
    return set_fields(s, cur, prev, "fdx_sim_set_field");
}

fdx_status fdx_sim_get_field(fdx_sim *s, double *out)
{
    FDX_CHECK(s && out, FDX_ERR_INVALID, "fdx_sim_get_field: %s is NULL", s ? "out" : "the simulation");
    FDX_TRY(fdx_sim_pull(s));
    return fdx_sim_download(s, s->cur, out);
}

fdx_status fdx_sim_field_view(fdx_sim *s, fdx_array **field)
{
    if (field) *field = NULL;
    FDX_CHECK(s && field, FDX_ERR_INVALID, "fdx_sim_field_view: %s is NULL", s ? "field" : "the simulation");
    FDX_TRY(fdx_sim_pull(s));
    FDX_TRY(s->be->stream_sync(s->stream)); /* the caller reads it on a stream of its own */
    *field = s->cur;
    return FDX_OK;
}

fdx_status fdx_sim_pull(fdx_sim *s)
{
    if (s->drv && s->drv->pulled != s->step) {
        FDX_TRY(s->drv->pull(s));
        s->drv->pulled = s->step;
    }
    /* With conditions the step fills the frame of its input, so the newest
       field's frame is older; filled here from its unknowns (as the next
       step would) pictures, fields, checksums and checkpoints see the
       conditions, the same on one array and on units. */
    return s->frame_bc ? fdx_bc_apply(s->frame_bc, s->cur, s->stream) : FDX_OK;
}

fdx_status fdx_sim_after_update(fdx_sim *s, const fdx_sim_block *b, fdx_array *next, fdx_array *cur, int64_t step,
                                void *stream)
{
    if (s->ops->terms) FDX_TRY(s->ops->terms(s, b, next, cur, step, stream));
    if (s->ops->boundary) FDX_TRY(s->ops->boundary(s, b, next, stream));
    return FDX_OK;
}

fdx_status fdx_sim_step_arrays(fdx_sim *s, fdx_array *next, fdx_array *cur, fdx_array *prev, int64_t step,
                               void *stream)
{
    FDX_CHECK(s && next && cur && (prev || !s->prev), FDX_ERR_INVALID, "fdx_sim_step_arrays: %s is NULL",
              !s ? "the simulation" : !next ? "next" : !cur ? "cur" : "prev (a wave step needs it)");
    FDX_CHECK(step >= 0, FDX_ERR_INVALID, "fdx_sim_step_arrays: step %lld is negative", (long long)step);
    int wave = s->ops->levels == 3;
    FDX_TRY(fdx_stencil_apply(s->stencil, next, cur, wave ? prev : NULL, wave ? s->coef : NULL, stream));
    fdx_sim_block whole = {{0, 0, 0}, 0x3f, s->kind == FDX_SIM_WAVE ? s->src : -1, 1};
    return fdx_sim_after_update(s, &whole, next, cur, step, stream);
}

fdx_status fdx_sim_step(fdx_sim *s)
{
    FDX_CHECK(s, FDX_ERR_INVALID, "fdx_sim_step: the simulation is NULL");
    FDX_CHECK(!s->drv, FDX_ERR_INVALID, "fdx_sim_step: the simulation is driven by the distributed driver");
    FDX_TRY(fdx_sim_step_arrays(s, s->next, s->cur, s->prev, s->step, s->stream));
    fdx_array *old = s->cur;
    s->cur = s->next;
    if (s->prev) {
        s->next = s->prev;
        s->prev = old;
    } else {
        s->next = old;
    }
    s->step++;
    if (s->nrec > 0 && s->step <= s->steps) {
        void *dst = (char *)s->rec_buf_dev + fdx_dtype_size(s->type) * (size_t)s->nrec * (size_t)s->step;
        FDX_TRY(fdx_fieldops_gather(s->cur, s->rec_idx_dev, s->nrec, dst, s->stream));
    }
    return FDX_OK;
}

void fdx_sim_set_step(fdx_sim *s, int64_t step)
{
    s->step = step;
    s->rec_first = step;
    s->rec_kept = step;
}

/* Getters: a NULL simulation reads as empty (-1 steps, NaN times, rank 0). */
int64_t fdx_sim_steps_done(const fdx_sim *s) { return s ? s->step : -1; }
double fdx_sim_time(const fdx_sim *s) { return s ? (double)s->step * s->dt : NAN; }
double fdx_sim_dt(const fdx_sim *s) { return s ? s->dt : NAN; }
int fdx_sim_rank(const fdx_sim *s) { return s ? s->rank : 0; }
const int64_t *fdx_sim_shape(const fdx_sim *s) { return s ? s->n : NULL; }

fdx_status fdx_sim_check_finite(fdx_sim *s, fdx_array *a, const char *what)
{
    int64_t first;
    FDX_TRY(fdx_fieldops_first_nonfinite(a, s->check_dev, &first, s->stream));
    if (first == INT64_MAX) return FDX_OK;
    char at[64];
    point_name(s, first, at, sizeof at);
    return fdx_fail(FDX_ERR_VERIFY,
                    "%s is not finite (NaN or Inf) at step %lld, first at point %s: the run blew up (lower cfl, or "
                    "check the inputs); no checkpoint was written from it",
                    what, (long long)s->step, at);
}

fdx_status fdx_sim_receivers(fdx_sim *s, int *count, int64_t *steps, const double **traces)
{
    FDX_CHECK(s && count && steps && traces, FDX_ERR_INVALID, "fdx_sim_receivers: an argument is NULL");
    FDX_TRY(fdx_sim_pull(s));
    *count = s->nrec;
    *steps = (s->step < s->steps ? s->step : s->steps) - s->rec_first;
    if (*steps < 0) *steps = 0;
    *traces = NULL;
    if (s->nrec == 0) return FDX_OK;
    size_t es = fdx_dtype_size(s->type), n = (size_t)s->nrec * (size_t)(s->steps + 1);
    void *raw = malloc(n * es);
    double *t = realloc(s->traces, n * sizeof(double));
    if (!raw || !t) {
        free(raw);
        if (t) s->traces = t;
        return fdx_fail(FDX_ERR_NOMEM, "no memory for receiver traces");
    }
    s->traces = t;
    FDX_TRY(s->be->stream_sync(s->stream));
    fdx_status st = s->be->copy(raw, s->rec_buf_dev, n * es, FDX_COPY_D2H, s->stream);
    if (st == FDX_OK) st = s->be->stream_sync(s->stream);
    /* Device layout is step-major; traces are receiver-major from rec_first + 1. */
    for (int64_t k = 0; st == FDX_OK && k < *steps; k++)
        for (int i = 0; i < s->nrec; i++) {
            size_t q = (size_t)(s->rec_first + 1 + k) * (size_t)s->nrec + (size_t)i;
            t[(size_t)i * (size_t)*steps + (size_t)k] = es == 8 ? ((double *)raw)[q] : ((float *)raw)[q];
        }
    free(raw);
    *traces = t;
    return st;
}
