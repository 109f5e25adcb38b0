/* fdx_stencil: the stencil object: a validated description, its weights in
   the generated code's axis order, and one plan (configuration + loaded
   kernel) per shape it has been applied to. */
#include "arrays/fdx_array_impl.h"
#include "core/fdx_file.h"
#include "fdx/internal/clock.h"
#include "core/fdx_knob.h"
#include "core/fdx_log.h"
#include "fdx/laplacian.h"
#include "fdx/metrics.h"
#include "stencil/fdx_bc.h"
#include "stencil/fdx_stencil_cache.h"
#include "stencil/fdx_stencil_tune.h"
#include "fdx/internal/test_hooks.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PLANS 8

typedef struct plan {
    int64_t n3[3];
    fdx_stencil_cfg cfg;
    fdx_kernel *kernel;
    fdx_kernel *inner; /* a split grid's inner blocks (FDX_BC_FOLD=3), else NULL */
    char text[96];
} plan;

struct fdx_stencil {
    fdx_ctx *ctx;
    fdx_stencil_desc desc;
    fdx_stencil_kspec ks;
    fdx_dtype type;
    double c0;
    double ws[3 * FDX_STENCIL_MAX_RADIUS], wa[3 * FDX_STENCIL_MAX_RADIUS];
    double damp[FDX_STENCIL_MAX_SPONGE]; /* sponge factor per distance, in the element type */
    plan plans[MAX_PLANS];
    int nplans, next_victim;
    int forced;
    fdx_stencil_cfg force;
    fdx_bc *bc; /* boundary pass run before the interior (fdx_stencil_set_boundary) */
};

void fdx_stencil_desc_laplacian(fdx_stencil_desc *d, int rank, int order, const double *h)
{
    memset(d, 0, sizeof *d);
    d->rank = rank;
    d->order = order;
    for (int a = 0; a < 3; a++) {
        d->h[a] = h && a < rank ? h[a] : 1.0;
        d->d2[a] = a < rank ? 1.0 : 0.0;
    }
    d->update = FDX_UPDATE_APPLY;
    d->alpha = 1.0;
}

static fdx_status check_desc(const fdx_stencil_desc *d)
{
    FDX_CHECK(d->rank >= 1 && d->rank <= 3, FDX_ERR_INVALID, "stencil rank %d must be 1, 2 or 3", d->rank);
    FDX_CHECK(d->order >= 2 && d->order <= FDX_STENCIL_MAX_ORDER && d->order % 2 == 0, FDX_ERR_INVALID,
              "stencil order %d must be even, 2..%d", d->order, FDX_STENCIL_MAX_ORDER);
    FDX_CHECK(d->update >= FDX_UPDATE_APPLY && d->update <= FDX_UPDATE_HEAT, FDX_ERR_INVALID,
              "stencil update %d is not APPLY, WAVE or HEAT", (int)d->update);
    FDX_CHECK(d->coef == 0 || d->coef == 1, FDX_ERR_INVALID, "stencil coef flag %d must be 0 or 1", d->coef);
    FDX_CHECK(isfinite(d->alpha) && isfinite(d->d0), FDX_ERR_INVALID, "stencil alpha %g / d0 %g must be finite",
              d->alpha, d->d0);
    FDX_CHECK(d->sponge >= 0 && d->sponge <= FDX_STENCIL_MAX_SPONGE, FDX_ERR_INVALID,
              "stencil sponge width %d must be 0..%d cells", d->sponge, FDX_STENCIL_MAX_SPONGE);
    FDX_CHECK(d->sponge == 0 || (d->update == FDX_UPDATE_WAVE && d->rank >= 2), FDX_ERR_INVALID,
              "a sponge (width %d) needs the WAVE update in rank 2 or 3", d->sponge);
    FDX_CHECK(d->sponge == 0 || (isfinite(d->sponge_strength) && d->sponge_strength >= 0), FDX_ERR_INVALID,
              "stencil sponge strength %g must be finite and >= 0", d->sponge_strength);
    for (int a = 0; a < d->rank; a++) {
        FDX_CHECK(d->h[a] > 0 && isfinite(d->h[a]), FDX_ERR_INVALID, "grid spacing h[%d] = %g must be positive", a,
                  d->h[a]);
        FDX_CHECK(isfinite(d->d1[a]) && isfinite(d->d2[a]), FDX_ERR_INVALID,
                  "derivative weights d1[%d] = %g, d2[%d] = %g must be finite", a, d->d1[a], a, d->d2[a]);
    }
    return FDX_OK;
}

/* Weights of L u scaled by alpha, in the generated axes (x, y, marching). */
static fdx_status build_weights(fdx_stencil *s)
{
    const fdx_stencil_desc *d = &s->desc;
    int r = d->order / 2;
    double w1[2 * FDX_STENCIL_MAX_RADIUS + 1], w2[2 * FDX_STENCIL_MAX_RADIUS + 1];
    FDX_TRY(fdx_fd_weights(1, d->order, w1));
    FDX_TRY(fdx_fd_weights(2, d->order, w2));
    /* Description axis -> generated axis: x is always 0; rank 3 has y = 1
       and marches along 2; rank 2 marches along its axis 1. */
    static const int gaxis[4][3] = {{0}, {0}, {0, 2}, {0, 1, 2}};
    double c0 = d->d0;
    s->ks.d1 = 0;
    for (int a = 0; a < d->rank; a++) {
        int g = gaxis[d->rank][a];
        double h = d->h[a];
        c0 += d->d2[a] * w2[r] / (h * h);
        for (int o = 1; o <= r; o++) {
            s->ws[g * r + o - 1] = d->alpha * d->d2[a] * w2[r + o] / (h * h);
            s->wa[g * r + o - 1] = d->alpha * d->d1[a] * w1[r + o] / h;
        }
        if (d->d1[a] != 0) s->ks.d1 = 1;
    }
    s->c0 = d->alpha * c0;
    return FDX_OK;
}

fdx_status fdx_stencil_create(fdx_ctx *ctx, const fdx_stencil_desc *d, fdx_dtype type, fdx_stencil **out)
{
    FDX_CHECK(ctx && d && out, FDX_ERR_INVALID, "fdx_stencil_create: NULL argument");
    *out = NULL;
    FDX_TRY(check_desc(d));
    FDX_CHECK(type == FDX_FLOAT32 || type == FDX_FLOAT64, FDX_ERR_INVALID, "stencils need float or double, not %s",
              fdx_dtype_name(type));
    fdx_stencil *s = calloc(1, sizeof *s);
    FDX_CHECK(s, FDX_ERR_NOMEM, "out of memory creating a stencil");
    s->ctx = ctx;
    s->desc = *d;
    s->type = type;
    s->ks = (fdx_stencil_kspec){type == FDX_FLOAT64, d->rank, d->order / 2, (int)d->update, d->coef, 0, d->sponge > 0};
    /* Computed and rounded exactly as a separate sponge pass would (double
       exp, then the element type), so fused and separate damping agree. */
    for (int i = 0; i < d->sponge; i++) {
        double x = d->sponge_strength * (double)(d->sponge - i) / (double)d->sponge, g = exp(-x * x);
        s->damp[i] = type == FDX_FLOAT64 ? g : (double)(float)g;
    }
    fdx_status st = build_weights(s);
    if (st != FDX_OK) {
        free(s);
        return st;
    }
    *out = s;
    return FDX_OK;
}

/* Plans hold no resources of their own: kernels belong to the process cache. */
void fdx_stencil_destroy(fdx_stencil **s)
{
    if (!s || !*s) return;
    fdx_bc_destroy(&(*s)->bc);
    free(*s);
    *s = NULL;
}

void fdx_stencil_force_cfg(fdx_stencil *s, const fdx_stencil_cfg *cfg)
{
    s->forced = cfg != NULL;
    if (cfg) s->force = *cfg;
    s->nplans = 0;
}

int fdx_stencil_radius(const fdx_stencil *s) { return s ? s->ks.radius : 0; }

const fdx_bc *fdx_stencil_boundary_of(const fdx_stencil *s) { return s ? s->bc : NULL; }

fdx_status fdx_stencil_set_boundary(fdx_stencil *s, const fdx_bc_desc *bc)
{
    FDX_CHECK(s, FDX_ERR_INVALID, "fdx_stencil_set_boundary: NULL stencil");
    fdx_bc *b = NULL;
    if (fdx_bc_any(bc, s->desc.rank))
        FDX_TRY(fdx_bc_create(s->ctx, bc, s->desc.rank, s->ks.radius, s->desc.h, s->type, &b));
    fdx_bc_destroy(&s->bc);
    s->bc = b;
    /* FDX_BC_FOLD (default 4 on CUDA, below): 1 lets the CUDA kernels apply the x
       faces themselves as they read a row, storing u's x ghosts (the pass
       keeps y and z; measured no faster than the whole pass on the H100 and
       wrong in the 'direct' strategy); 2 lets the unrolled column apply
       every face with Dirichlet, Neumann or periodic conditions, in its
       blocks that touch a face, storing nothing (no pass at all; u's frame
       is left as it was); 3 as 2 with the grid in two launches, the blocks
       that touch a face (folded code) and the others (the plain kernel's
       code and registers); 4 lets the unrolled column fix up its column's
       registers after each group's loads (marching faces; x faces where
       its lanes hold the ghosts), its point code the plain one, and the
       pass fills the y faces (coalesced rows).  docs/notes/stencil.md,
       2026-11-24, and docs/notes/userapi.md, session 9. */
    /* The default on CUDA (session 9, H100, 512^3 double at the 7-point
       winner: 1.031 / 1.036 of interior-only against the pass's 1.085 /
       1.092): 4 with the x faces' fix-ups only, the pass the y and z faces */
    const int cuda = fdx_ctx_ops(s->ctx)->kind == FDX_BACKEND_CUDA;
    const int mode = cuda ? (int)fdx_knob_int(FDX_KNOB_BC_FOLD, 0, 4, 4) : 0;
    memset(s->ks.fbc, 0, sizeof s->ks.fbc);
    memset(s->ks.fval, 0, sizeof s->ks.fval);
    s->ks.fstore = mode == 1;
    s->ks.fpart = mode == 3;
    s->ks.ffix = mode == 4;
    s->ks.fixmask = mode == 4 ? (unsigned)fdx_knob_int(FDX_KNOB_BC_FIX, 1, 63, 3) : 0u;
    s->ks.fixat = mode == 4 ? (int)fdx_knob_int(FDX_KNOB_BC_FIXAT, 0, 3, 0) : 0;
    for (int f = 0; b && mode >= 1 && f < (mode == 1 ? 2 : 2 * s->desc.rank); f++) {
        int code = fdx_bc_face_code(b, f);
        if (code != FDX_BCC_DIRICHLET && code != FDX_BCC_NEUMANN && code != FDX_BCC_PERIODIC) continue;
        s->ks.fbc[f] = code;
        fdx_bc_face_values(b, f, s->ks.fval[f]);
    }
    s->nplans = 0; /* the kernels depend on the folded faces */
    return FDX_OK;
}

/* ---- running a configuration ---------------------------------------------- */

typedef struct call {
    fdx_stencil *s;
    const fdx_backend *be;
    const fdx_device_info *dev;
    int64_t n3[3];
    void *ptr[4]; /* out, u, u_prev, coef in the backend's memory */
    /* set per configuration while tuning */
    fdx_kernel *kernel, *inner;
    fdx_stencil_cfg cfg;
} call;

/* The spec of a split grid's inner kernel (FDX_BC_FOLD=3). */
static fdx_stencil_kspec inner_spec(const fdx_stencil *s)
{
    fdx_stencil_kspec ks = s->ks;
    ks.fpart = 2;
    return ks;
}

/* One launch of kernel k of spec ks (none for an empty part of a split grid). */
static fdx_status launch_part(call *c, const fdx_stencil_kspec *ks, fdx_kernel *k, const fdx_stencil_cfg *cfg,
                              void *stream)
{
    fdx_stencil_params p;
    fdx_stencil_params_build(ks, cfg, c->n3, c->s->c0, c->s->ws, c->s->wa, c->s->desc.sponge, c->s->damp, &p);
    fdx_launch_dims dims = {{1, 1, 1}, {1, 1, 1}, 0};
    if (c->be->kind == FDX_BACKEND_CUDA) FDX_TRY(fdx_stencil_launch_dims(ks, cfg, c->n3, &dims));
    if (!dims.grid[0]) return FDX_OK;
    if (p.tm_at) { /* tm: u's tensor map, a box a tile plane with its halo (fdx_stencil_async_geom_of) */
        fdx_stencil_async_geom a;
        fdx_stencil_async_geom_of(ks, cfg, &a);
        FDX_CHECK(c->be->tensor_map_3d, FDX_ERR_UNSUPPORTED, "tensor-map copies (tm) on the %s backend", c->be->name);
        const uint64_t dims[3] = {(uint64_t)c->n3[0], (uint64_t)c->n3[1], (uint64_t)c->n3[2]};
        const unsigned box[3] = {(unsigned)a.width, (unsigned)a.height, 1};
        FDX_TRY(c->be->tensor_map_3d(p.bytes + p.tm_at, c->ptr[1], dims, ks->is_double ? 8 : 4, box));
    }
    void *args[5] = {&c->ptr[0], &c->ptr[1], &c->ptr[2], &c->ptr[3], p.bytes};
    if (c->be->kind != FDX_BACKEND_CUDA)
        for (int i = 0; i < 4; i++) args[i] = c->ptr[i]; /* the CPU entry takes the pointers themselves */
    return c->be->launch(k, &dims, args, stream);
}

/* The kernel, and a split grid's inner kernel after it (both on one
   stream; they write disjoint blocks). */
static fdx_status launch(call *c, fdx_kernel *k, fdx_kernel *inner, const fdx_stencil_cfg *cfg, void *stream)
{
    FDX_TRY(launch_part(c, &c->s->ks, k, cfg, stream));
    if (c->be->kind != FDX_BACKEND_CUDA || !fdx_stencil_split(&c->s->ks, cfg)) return FDX_OK;
    fdx_stencil_kspec ks = inner_spec(c->s);
    FDX_CHECK(inner, FDX_ERR_INTERNAL, "split stencil grid without its inner kernel");
    return launch_part(c, &ks, inner, cfg, stream);
}

/* The kernels of a configuration (the inner one only for a split grid). */
static fdx_status get_kernels(call *c, const fdx_stencil_cfg *cfg, fdx_kernel **k, fdx_kernel **inner)
{
    *inner = NULL;
    FDX_TRY(fdx_stencil_kernel_get(c->be, c->dev, &c->s->ks, cfg, k));
    if (c->be->kind != FDX_BACKEND_CUDA || !fdx_stencil_split(&c->s->ks, cfg)) return FDX_OK;
    fdx_stencil_kspec ks = inner_spec(c->s);
    return fdx_stencil_kernel_get(c->be, c->dev, &ks, cfg, inner);
}

static fdx_status timed_launch(void *arg, void *stream)
{
    call *c = arg;
    return launch(c, c->kernel, c->inner, &c->cfg, stream);
}

static fdx_status trial(void *arg, const fdx_stencil_cfg *cfg, double *ms)
{
    call *c = arg;
    FDX_TRY(get_kernels(c, cfg, &c->kernel, &c->inner));
    c->cfg = *cfg;
    fdx_time_stats t;
    FDX_TRY(fdx_time_run(c->s->ctx, timed_launch, c, 1, 5, &t));
    *ms = t.median_ms;
    return FDX_OK;
}

/* Compiles a batch of candidates in parallel before their trials. */
static void prepare(void *arg, const fdx_stencil_cfg *cfgs, int n)
{
    call *c = arg;
    fdx_stencil_kernels_prepare(c->be, c->dev, &c->s->ks, cfgs, n);
}

/* Problems under this many points run the default configuration: tuning
   them costs more than it can save.  FDX_STENCIL_TUNE_MIN (measurements)
   moves the line, e.g. to time the budgeted tuner on the random suite's
   small high-order cases. */
static int64_t tune_min_points(const fdx_stencil_kspec *ks, int cuda)
{
    const char *k = fdx_knob(FDX_KNOB_STENCIL_TUNE_MIN);
    char *end = NULL;
    long long v = k ? strtoll(k, &end, 10) : 0;
    if (!k || end == k || *end || v < 1 || v > (1LL << 40)) {
        if (k) FDX_WARN("FDX_STENCIL_TUNE_MIN='%s' is not a point count 1..2^40; ignored", k);
        return fdx_stencil_tune_min_default(ks, cuda);
    }
    return v;
}

/* The configuration for this shape: tuned (cache or search) for large
   problems unless tuning is off, the default otherwise. */
static fdx_status choose(call *c, void *stream, fdx_stencil_cfg *cfg)
{
    int cuda = c->be->kind == FDX_BACKEND_CUDA;
    const char *tune = fdx_options_get(fdx_ctx_options(c->s->ctx), "tune");
    int off = !tune || strcmp(tune, "off") == 0 || strcmp(tune, "0") == 0, force = tune && strcmp(tune, "force") == 0;
    int64_t points = c->n3[0] * c->n3[1] * c->n3[2];
    fdx_stencil_default_cfg(&c->s->ks, c->dev, cuda, c->n3, cfg);
    if (c->s->forced) {
        fdx_stencil_cfg f = c->s->force;
        if (!cuda || fdx_stencil_cfg_fits(&c->s->ks, &f, c->n3)) *cfg = f;
        return FDX_OK;
    }
    /* FDX_STENCIL_CFG (profiling one configuration, experiments): the
       tuning file's fields after its version, used where they fit; a value
       that does not parse or fit is reported and ignored. */
    const char *env = fdx_knob(FDX_KNOB_STENCIL_CFG);
    if (env) {
        fdx_stencil_cfg f;
        if (fdx_stencil_cfg_parse(env, &f) && (!cuda || fdx_stencil_cfg_fits(&c->s->ks, &f, c->n3))) {
            *cfg = f;
            return FDX_OK;
        }
        FDX_WARN("FDX_STENCIL_CFG='%s' does not parse or fit this stencil; ignored", env);
    }
    if (off || points < tune_min_points(&c->s->ks, cuda)) return FDX_OK;
    char key[33];
    /* Folded boundary faces change a few instructions at the rows' ends, not
       the best configuration: one tuning serves the stencil with and without. */
    fdx_stencil_kspec plain = c->s->ks;
    memset(plain.fbc, 0, sizeof plain.fbc);
    memset(plain.fval, 0, sizeof plain.fval);
    plain.fstore = 0;
    plain.fpart = 0;
    fdx_stencil_tune_key(c->be->name, c->dev, &plain, c->n3, key);
    fdx_stencil_journal *j = malloc(sizeof *j);
    FDX_CHECK(j, FDX_ERR_NOMEM, "out of memory for the tuning journal");
    if (fdx_stencil_tuned_find(key, force, cfg, force ? NULL : j)) {
        free(j);
        /* A configuration tuned for this class may not fit an odd member
           (vector width); the chunk is rescaled to this shape's planes. */
        if (!cuda || fdx_stencil_cfg_fits(&c->s->ks, cfg, c->n3)) return FDX_OK;
        fdx_stencil_default_cfg(&c->s->ks, c->dev, cuda, c->n3, cfg);
        return FDX_OK;
    }
    if (force) memset(j, 0, sizeof *j);
    /* The caller's earlier work on its stream must finish before the trials
       (they run on the timer's own stream). */
    fdx_status st = c->be->stream_sync(stream);
    const char *budget = fdx_options_get(fdx_ctx_options(c->s->ctx), "tune-budget");
    fdx_stencil_tuner t = {trial, prepare, c, budget && strcmp(budget, "all") != 0 ? atoi(budget) : 0};
    int measured = 0;
    double t0 = fdx_now_s();
    if (st == FDX_OK) st = fdx_stencil_tune_step(&c->s->ks, c->dev, cuda, c->n3, &t, j, cfg, &measured);
    if (st == FDX_OK) {
        char text[96];
        fdx_stencil_cfg_text(cfg, cuda, text, sizeof text);
        FDX_INFO("stencil tuned for %lldx%lldx%lld: %s (%d configurations measured in %.2f s, %d in all; %s)",
                 (long long)c->n3[0], (long long)c->n3[1], (long long)c->n3[2], text, measured, fdx_now_s() - t0,
                 j->n, j->complete ? "search complete" : "later runs go on with the search");
        fdx_stencil_tuned_store(key, cfg, j);
    }
    free(j);
    return st;
}

static plan *find_plan(fdx_stencil *s, const int64_t n3[3])
{
    for (int i = 0; i < s->nplans; i++)
        if (memcmp(s->plans[i].n3, n3, sizeof s->plans[i].n3) == 0) return &s->plans[i];
    return NULL;
}

static fdx_status get_plan(fdx_stencil *s, call *c, void *stream, plan **out)
{
    plan *p = find_plan(s, c->n3);
    if (p) {
        *out = p;
        return FDX_OK;
    }
    plan np;
    memcpy(np.n3, c->n3, sizeof np.n3);
    FDX_TRY(choose(c, stream, &np.cfg));
    FDX_TRY(get_kernels(c, &np.cfg, &np.kernel, &np.inner));
    fdx_stencil_cfg_text(&np.cfg, c->be->kind == FDX_BACKEND_CUDA, np.text, sizeof np.text);
    if (s->nplans < MAX_PLANS) {
        p = &s->plans[s->nplans++];
    } else {
        p = &s->plans[s->next_victim];
        s->next_victim = (s->next_victim + 1) % MAX_PLANS;
    }
    *p = np;
    *out = p;
    return FDX_OK;
}

static fdx_status check_array(const fdx_stencil *s, const fdx_array *a, const fdx_array *u, const char *what)
{
    FDX_CHECK(a->rank == s->desc.rank, FDX_ERR_INVALID, "%s has rank %d, the stencil rank %d", what, a->rank,
              s->desc.rank);
    FDX_CHECK(a->dtype == s->type, FDX_ERR_INVALID, "%s is %s, the stencil %s", what, fdx_dtype_name(a->dtype),
              fdx_dtype_name(s->type));
    for (int d = 0; d < a->rank; d++)
        FDX_CHECK(a->shape[d] == u->shape[d], FDX_ERR_INVALID, "%s extent %lld differs from u's %lld on axis %d", what,
                  (long long)a->shape[d], (long long)u->shape[d], d);
    FDX_CHECK(fdx_layout_is_identity(&a->layout), FDX_ERR_UNSUPPORTED, "%s is not stored in the plain layout (first index fastest): the stencil engine reads only that one", what);
    return FDX_OK;
}

static fdx_status storage(const fdx_array *a, int cuda, const char *what, void **ptr)
{
    *ptr = cuda ? a->device : a->host;
    FDX_CHECK(*ptr, FDX_ERR_INVALID, "%s has no %s storage (%s)", what, cuda ? "device" : "host",
              cuda ? "call fdx_array_to_device" : "create it with FDX_ON_HOST");
    return FDX_OK;
}

fdx_status fdx_stencil_apply(fdx_stencil *s, fdx_array *out, fdx_array *u, fdx_array *u_prev, fdx_array *coef,
                             void *stream)
{
    FDX_CHECK(s && out && u, FDX_ERR_INVALID, "fdx_stencil_apply: NULL stencil, output or input");
    FDX_CHECK(u->ctx == s->ctx && out->ctx == s->ctx, FDX_ERR_INVALID,
              "fdx_stencil_apply: arrays belong to another context than the stencil");
    int wave = s->desc.update == FDX_UPDATE_WAVE;
    FDX_CHECK(!wave || u_prev, FDX_ERR_INVALID, "the wave update needs u_prev");
    FDX_CHECK(wave || !u_prev, FDX_ERR_INVALID, "u_prev given, but only the wave update reads it");
    FDX_CHECK(!s->desc.coef || coef, FDX_ERR_INVALID, "the stencil needs a coefficient array");
    FDX_CHECK(s->desc.coef || !coef, FDX_ERR_INVALID, "coefficient array given, but the stencil has coef = 0");
    FDX_CHECK(out != u && out != u_prev && out != coef, FDX_ERR_INVALID,
              "the output must be distinct from the input arrays");
    stream = fdx_ctx_stream(s->ctx, stream);
    FDX_TRY(check_array(s, u, u, "u"));
    FDX_TRY(check_array(s, out, u, "output"));
    if (u_prev) FDX_TRY(check_array(s, u_prev, u, "u_prev"));
    if (coef) FDX_TRY(check_array(s, coef, u, "coef"));
    int r = s->ks.radius;
    for (int d = 0; d < u->rank; d++)
        FDX_CHECK(u->shape[d] > 2 * r, FDX_ERR_INVALID,
                  "a stencil of order %d needs at least %d points on axis %d, got %lld", s->desc.order, 2 * r + 1, d,
                  (long long)u->shape[d]);

    call c = {0};
    c.s = s;
    c.be = fdx_ctx_ops(s->ctx);
    c.dev = fdx_ctx_device(s->ctx);
    int cuda = c.be->kind == FDX_BACKEND_CUDA;
    fdx_stencil_shape3(u->rank, u->shape, c.n3);
    FDX_TRY(storage(out, cuda, "output", &c.ptr[0]));
    FDX_TRY(storage(u, cuda, "u", &c.ptr[1]));
    if (u_prev) FDX_TRY(storage(u_prev, cuda, "u_prev", &c.ptr[2]));
    if (coef) FDX_TRY(storage(coef, cuda, "coef", &c.ptr[3]));
    FDX_CHECK(c.ptr[0] != c.ptr[1] && c.ptr[0] != c.ptr[2] && c.ptr[0] != c.ptr[3], FDX_ERR_INVALID,
              "the output must not share storage with an input");
    plan *p;
    FDX_TRY(get_plan(s, &c, stream, &p));
    /* The ghosts first, on the same stream: the faces the kernel does not
       apply itself. */
    unsigned faces = fdx_stencil_pass_faces(&s->ks, &p->cfg, cuda);
    if (s->bc && faces) FDX_TRY(fdx_bc_apply_faces(s->bc, u, faces, stream));
    return launch(&c, p->kernel, p->inner, &p->cfg, stream);
}

void fdx_stencil_traffic(const fdx_stencil *s, const int64_t *shape, double *fetch_bytes, double *write_bytes)
{
    int rank = s->desc.rank, r = s->ks.radius;
    size_t e = s->type == FDX_FLOAT64 ? 8 : 4;
    int64_t padded[3] = {shape[0], rank > 1 ? shape[1] : 1, rank > 2 ? shape[2] : 1};
    double fetch, write;
    if (rank == 1) {
        fetch = (double)shape[0] * (double)e;
        write = (double)(shape[0] - 2 * r) * (double)e;
    } else {
        fdx_star_traffic(rank, padded, r, e, &fetch, &write);
    }
    /* u_prev and coef are read at interior points only, like the output. */
    int pointwise = (s->desc.update == FDX_UPDATE_WAVE) + s->desc.coef;
    *fetch_bytes = fetch + pointwise * write;
    *write_bytes = write;
}

const char *fdx_stencil_config(const fdx_stencil *s, const int64_t *shape)
{
    if (!s || !shape) return "";
    int64_t n3[3];
    fdx_stencil_shape3(s->desc.rank, shape, n3);
    const plan *p = find_plan((fdx_stencil *)s, n3);
    return p ? p->text : "";
}

fdx_status fdx_stencil_storage(const fdx_array *a, int cuda, const char *what, void **ptr)
{
    return storage(a, cuda, what, ptr);
}

void fdx_stencil_view_of(const fdx_stencil *s, fdx_stencil_view *v)
{
    v->ctx = s->ctx, v->desc = &s->desc, v->ks = &s->ks, v->type = s->type;
    v->c0 = s->c0, v->ws = s->ws, v->wa = s->wa;
}
