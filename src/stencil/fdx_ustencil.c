/* fdx_ustencil: the user stencil object: its canonical spec and weights, a
   plan (configuration + loaded kernel) per grid it has been applied to, and
   a process-wide table of loaded kernels keyed by their whole source. */
#include "arrays/fdx_array_impl.h"
#include "backends/fdx_jit_batch.h"
#include "core/fdx_cache.h"
#include "core/fdx_file.h"
#include "core/fdx_knob.h"
#include "fdx/internal/clock.h"
#include "core/fdx_log.h"
#include "fdx/metrics.h"
#include "stencil/fdx_stencil_impl.h"
#include "stencil/fdx_stencil_tune.h"
#include "stencil/fdx_ustencil_impl.h"
#include "fdx/internal/test_hooks.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PLANS 8
#define MAX_CANDIDATES 128

typedef struct uplan {
    int64_t n3[3];
    int aligned; /* every array aligned to 16 bytes (vector loads allowed) */
    fdx_us_cfg cfg;
    fdx_kernel *kernel;
    char text[96];
} uplan;

struct fdx_ustencil {
    fdx_ctx *ctx;
    fdx_dtype type;
    fdx_us_spec ks;
    double w[FDX_USTENCIL_MAX_TERMS];
    uplan plans[MAX_PLANS];
    int nplans, next_victim;
    int forced;
    fdx_us_cfg force;
};

/* ---- loaded kernels, once per process -------------------------------------------- */

typedef struct kentry {
    char key[33];
    fdx_kernel *k;
} kentry;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static kentry *kernels;
static size_t nkernels, capkernels;

/* The key is a digest of the backend, the device and the whole source: the
   source holds every field of the description but the weights (run-time
   parameters), so no field can be left out of it. */
static fdx_status kernel_get(const fdx_backend *be, const fdx_device_info *dev, const fdx_us_spec *ks,
                             const fdx_us_cfg *cfg, fdx_kernel **out)
{
    char *src = NULL, key[33];
    FDX_TRY(fdx_us_generate(ks, cfg, be->kind == FDX_BACKEND_CUDA, &src));
    fdx_hash h;
    fdx_hash_init(&h);
    fdx_hash_add_str(&h, be->name);
    fdx_hash_add(&h, &dev->ordinal, sizeof dev->ordinal);
    fdx_hash_add_str(&h, dev->name);
    fdx_hash_add_str(&h, src);
    fdx_hash_hex(&h, key);
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < nkernels; i++)
        if (strcmp(kernels[i].key, key) == 0) {
            *out = kernels[i].k;
            pthread_mutex_unlock(&lock);
            free(src);
            return FDX_OK;
        }
    /* Compiled under the lock: two threads asking for one kernel compile once. */
    fdx_kernel *k = NULL;
    fdx_status st = be->jit_load(dev, src, FDX_USTENCIL_ENTRY, "user stencil kernel", &k);
    free(src);
    if (st == FDX_OK) {
        if (nkernels == capkernels) {
            size_t cap = capkernels ? 2 * capkernels : 16;
            kentry *t = realloc(kernels, cap * sizeof *t);
            if (t) kernels = t, capkernels = cap;
        }
        if (nkernels < capkernels) { /* else it stays loaded unlisted */
            memcpy(kernels[nkernels].key, key, sizeof key);
            kernels[nkernels++].k = k;
        }
        *out = k;
    }
    pthread_mutex_unlock(&lock);
    return st;
}

/* ---- the object ---------------------------------------------------------------- */

fdx_status fdx_ustencil_create(fdx_ctx *ctx, const fdx_ustencil_desc *d, fdx_dtype type, fdx_ustencil **out)
{
    FDX_CHECK(ctx && d && out, FDX_ERR_INVALID, "fdx_ustencil_create: NULL argument");
    *out = NULL;
    FDX_CHECK(type == FDX_FLOAT32 || type == FDX_FLOAT64, FDX_ERR_INVALID,
              "user stencils need float or double, not %s", fdx_dtype_name(type));
    fdx_ustencil *s = calloc(1, sizeof *s);
    FDX_CHECK(s, FDX_ERR_NOMEM, "out of memory creating a user stencil");
    s->ctx = ctx;
    s->type = type;
    fdx_status st = fdx_us_spec_build(d, type == FDX_FLOAT64, &s->ks, s->w);
    if (st != FDX_OK) {
        free(s);
        return st;
    }
    *out = s;
    return FDX_OK;
}

void fdx_ustencil_destroy(fdx_ustencil **s)
{
    if (!s || !*s) return;
    free(*s); /* kernels belong to the process table */
    *s = NULL;
}

int fdx_ustencil_radius(const fdx_ustencil *s) { return s ? s->ks.radius : 0; }

void fdx_ustencil_force_cfg(fdx_ustencil *s, const fdx_us_cfg *cfg)
{
    s->forced = cfg != NULL;
    if (cfg) s->force = *cfg;
    s->nplans = 0, s->next_victim = 0;
}

/* ---- running ---------------------------------------------------------------------- */

typedef struct ucall {
    fdx_ustencil *s;
    const fdx_backend *be;
    const fdx_device_info *dev;
    int64_t n3[3];
    int aligned;
    void *ptr[1 + FDX_USTENCIL_MAX_INPUTS + FDX_USTENCIL_MAX_COEFS];
    fdx_kernel *kernel; /* while tuning */
    fdx_us_cfg cfg;
} ucall;

static fdx_status launch(ucall *c, fdx_kernel *k, const fdx_us_cfg *cfg, void *stream)
{
    const fdx_us_spec *ks = &c->s->ks;
    fdx_us_params p;
    fdx_us_params_build(ks, cfg, c->n3, c->s->w, &p);
    int cuda = c->be->kind == FDX_BACKEND_CUDA, n = 1 + ks->ninputs + ks->ncoefs;
    fdx_launch_dims dims = {{1, 1, 1}, {1, 1, 1}, 0};
    if (cuda) FDX_TRY(fdx_us_launch_dims(ks, cfg, c->n3, &dims));
    void *args[2 + FDX_USTENCIL_MAX_INPUTS + FDX_USTENCIL_MAX_COEFS];
    /* CUDA takes the address of each argument; the CPU entry the pointers. */
    for (int i = 0; i < n; i++) args[i] = cuda ? (void *)&c->ptr[i] : c->ptr[i];
    args[n] = p.bytes;
    return c->be->launch(k, &dims, args, stream);
}

static fdx_status timed_launch(void *arg, void *stream)
{
    ucall *c = arg;
    return launch(c, c->kernel, &c->cfg, stream);
}

/* The stage's kernels compiled in parallel threads into the JIT's disk
   cache before the trials (they then load without compiling); distinct
   sources once (candidates that differ in the chunk share one).  Failures
   are left for the trials to report. */
static void compile_ahead(ucall *c, const fdx_us_cfg *cand, int n)
{
    if (c->be->kind != FDX_BACKEND_CUDA || n < 2) return;
    char **src = calloc((size_t)n, sizeof *src);
    int m = 0;
    for (int i = 0; src && i < n; i++) {
        if (fdx_us_generate(&c->s->ks, &cand[i], 1, &src[m]) != FDX_OK) {
            fdx_clear_error();
            continue;
        }
        int dup = 0;
        for (int k = 0; k < m && !dup; k++) dup = strcmp(src[k], src[m]) == 0;
        if (dup) free(src[m]);
        else m++;
    }
    if (m > 1) {
        double t0 = fdx_now_s();
        int failed = fdx_jit_compile_batch(c->be, c->dev, (const char *const *)src, m, "user stencil kernel");
        FDX_DEBUG("compiled %d user stencil kernels ahead in %d threads: %.3f s (%d failed)", m,
                  fdx_jit_batch_threads(m), fdx_now_s() - t0, failed);
    }
    for (int i = 0; i < m; i++) free(src[i]);
    free(src);
}

/* Times the candidates of one stage; *best becomes the fastest (kept when
   none runs faster). */
static fdx_status tune_stage(ucall *c, int stage, fdx_us_cfg *best, double *best_ms)
{
    fdx_us_cfg cand[MAX_CANDIDATES];
    int n = fdx_us_candidates(&c->s->ks, c->n3, stage, best, cand, MAX_CANDIDATES);
    for (int i = 0; i < n; i++)
        if (!c->aligned && cand[i].vload) cand[i--] = cand[--n];
    compile_ahead(c, cand, n);
    fdx_us_cfg winner = *best;
    for (int i = 0; i < n; i++) {
        fdx_time_stats t;
        char text[96];
        fdx_us_cfg_text(&cand[i], 1, text, sizeof text);
        c->cfg = cand[i];
        fdx_status st = kernel_get(c->be, c->dev, &c->s->ks, &cand[i], &c->kernel);
        if (st == FDX_OK) st = fdx_time_run(c->s->ctx, timed_launch, c, 1, 5, &t);
        if (st != FDX_OK) {
            FDX_INFO("user stencil tuning: %s failed: %s", text, fdx_last_error());
            fdx_clear_error();
            continue;
        }
        FDX_INFO("user stencil tuning: %s %.4f ms", text, t.median_ms);
        if (*best_ms < 0 || t.median_ms < *best_ms) *best_ms = t.median_ms, winner = cand[i];
    }
    *best = winner;
    return FDX_OK;
}

/* Three stages from the default (CUDA, large grids, tuning on): the block
   shape, lanes and loads; then unroll, prefetch and chunk around the best;
   then its register caps. */
static fdx_status tune(ucall *c, void *stream, fdx_us_cfg *best)
{
    double best_ms = -1;
    FDX_TRY(c->be->stream_sync(stream));
    FDX_TRY(tune_stage(c, 0, best, &best_ms));
    FDX_TRY(tune_stage(c, 1, best, &best_ms));
    return tune_stage(c, 2, best, &best_ms);
}

/* ---- tuned configurations on disk ---------------------------------------------------- */

/* The tuning file's key: backend, device, the spec (its CPU source holds
   every field but the weights), the grid and the arrays' alignment. */
static void tune_key(const ucall *c, char key[33])
{
    fdx_us_cfg cpu;
    char *src = NULL;
    fdx_us_default_cfg(&c->s->ks, 0, c->n3, &cpu);
    if (fdx_us_generate(&c->s->ks, &cpu, 0, &src) != FDX_OK) fdx_clear_error();
    fdx_hash h;
    fdx_hash_init(&h);
    fdx_hash_add_str(&h, "fdx-utune 7");
    fdx_hash_add_str(&h, c->be->name);
    fdx_hash_add_str(&h, c->dev->name);
    fdx_hash_add_str(&h, src ? src : "");
    fdx_hash_add(&h, c->n3, sizeof c->n3);
    fdx_hash_add(&h, &c->aligned, sizeof c->aligned);
    fdx_hash_hex(&h, key);
    free(src);
}

/* A configuration's fields as text, "variant tx ty vec unroll chunk vload pf
   rows pipe minb" (the tuning file after its version, FDX_USTENCIL_CFG),
   when it parses and fits this grid. */
static int cfg_parse(const char *text, const ucall *c, fdx_us_cfg *cfg)
{
    fdx_us_cfg t;
    return sscanf(text, "%d %d %d %d %d %d %d %d %d %d %d", &t.variant, &t.tx, &t.ty, &t.vec, &t.unroll, &t.chunk,
                  &t.vload, &t.pf, &t.rows, &t.pipe, &t.minb) == 11 &&
           fdx_us_cfg_fits(&c->s->ks, &t, c->n3) &&
           (c->aligned || !t.vload) && (*cfg = t, 1);
}

/* "fdx-utune 7 variant tx ty vec unroll chunk vload pf rows pipe minb"; anything else (an
   older or damaged file) only costs a re-tune. */
static int tuned_find(const char *key, const ucall *c, fdx_us_cfg *cfg)
{
    void *data = NULL;
    size_t n = 0;
    if (fdx_cache_load(key, ".utune", &data, &n) != FDX_OK) {
        fdx_clear_error();
        return 0;
    }
    fdx_us_cfg t;
    const char *text = (const char *)data;
    int ok = n > 12 && strncmp(text, "fdx-utune 7 ", 12) == 0 && cfg_parse(text + 12, c, &t);
    free(data);
    if (ok) *cfg = t;
    else FDX_WARN("ignoring malformed user stencil tuning file %s.utune", key);
    return ok;
}

static void tuned_store(const char *key, const fdx_us_cfg *t)
{
    char text[128];
    int n = snprintf(text, sizeof text, "fdx-utune 7 %d %d %d %d %d %d %d %d %d %d %d\n", t->variant, t->tx, t->ty, t->vec,
                     t->unroll, t->chunk, t->vload, t->pf, t->rows, t->pipe, t->minb);
    if (fdx_cache_store(key, ".utune", text, (size_t)n) != FDX_OK) {
        FDX_WARN("not saving user stencil tuning: %s", fdx_last_error());
        fdx_clear_error();
    }
}

/* The configuration for this grid: forced (tests), tuned on CUDA for large
   grids unless the "tune" option is off (from the file of an earlier run
   unless it is "force"), else the default. */
static fdx_status choose(ucall *c, void *stream, fdx_us_cfg *cfg)
{
    int cuda = c->be->kind == FDX_BACKEND_CUDA;
    fdx_us_default_cfg(&c->s->ks, cuda, c->n3, cfg);
    if (!c->aligned) cfg->vload = 0;
    if (c->s->forced) {
        if (!cuda || (fdx_us_cfg_fits(&c->s->ks, &c->s->force, c->n3) && (c->aligned || !c->s->force.vload)))
            *cfg = c->s->force;
        return FDX_OK;
    }
    /* FDX_USTENCIL_CFG (profiling, A/B of one configuration): used where it
       fits, reported and ignored where it does not */
    const char *env = fdx_knob(FDX_KNOB_USTENCIL_CFG);
    if (env && cuda) {
        if (cfg_parse(env, c, cfg)) return FDX_OK;
        FDX_WARN("FDX_USTENCIL_CFG='%s' does not parse or fit this user stencil; ignored", env);
    }
    const char *t = fdx_options_get(fdx_ctx_options(c->s->ctx), "tune");
    int off = !t || strcmp(t, "off") == 0 || strcmp(t, "0") == 0;
    if (!cuda || off || c->n3[0] * c->n3[1] * c->n3[2] < FDX_STENCIL_TUNE_MIN_POINTS) return FDX_OK;
    char key[33];
    tune_key(c, key);
    if (strcmp(t, "force") != 0 && tuned_find(key, c, cfg)) return FDX_OK;
    FDX_TRY(tune(c, stream, cfg));
    tuned_store(key, cfg);
    char text[96];
    fdx_us_cfg_text(cfg, 1, text, sizeof text);
    FDX_INFO("user stencil tuned for %lldx%lldx%lld: %s", (long long)c->n3[0], (long long)c->n3[1],
             (long long)c->n3[2], text);
    return FDX_OK;
}

/* aligned < 0: either. */
static uplan *find_plan(const fdx_ustencil *s, const int64_t n3[3], int aligned)
{
    for (int i = 0; i < s->nplans; i++)
        if (memcmp(s->plans[i].n3, n3, sizeof s->plans[i].n3) == 0 && (aligned < 0 || s->plans[i].aligned == aligned))
            return (uplan *)&s->plans[i];
    return NULL;
}

static fdx_status get_plan(fdx_ustencil *s, ucall *c, void *stream, uplan **out)
{
    uplan *p = find_plan(s, c->n3, c->aligned);
    if (p) {
        *out = p;
        return FDX_OK;
    }
    uplan np;
    memcpy(np.n3, c->n3, sizeof np.n3);
    np.aligned = c->aligned;
    FDX_TRY(choose(c, stream, &np.cfg));
    FDX_TRY(kernel_get(c->be, c->dev, &s->ks, &np.cfg, &np.kernel));
    fdx_us_cfg_text(&np.cfg, c->be->kind == FDX_BACKEND_CUDA, np.text, sizeof np.text);
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

/* The grid of an array: its extents without the component axis. */
static fdx_status check_array(const fdx_ustencil *s, const fdx_array *a, int ncomp, const char *what, int index,
                              const int64_t *grid)
{
    const fdx_us_spec *ks = &s->ks;
    int lead = ncomp > 1;
    char name[48];
    snprintf(name, sizeof name, index >= 0 ? "%s %d" : "%s", what, index);
    FDX_CHECK(a, FDX_ERR_INVALID, "%s is NULL", name);
    FDX_CHECK(a->ctx == s->ctx, FDX_ERR_INVALID, "%s belongs to another context than the stencil", name);
    FDX_CHECK(a->rank == ks->rank + lead, FDX_ERR_INVALID, "%s has rank %d; the stencil needs %d (%s)", name, a->rank,
              ks->rank + lead, lead ? "components first, then the grid" : "the grid");
    FDX_CHECK(!lead || a->shape[0] == ncomp, FDX_ERR_INVALID, "%s has %lld components on axis 0, the stencil %d", name,
              (long long)a->shape[0], ncomp);
    FDX_CHECK(a->dtype == s->type, FDX_ERR_INVALID, "%s is %s, the stencil %s", name, fdx_dtype_name(a->dtype),
              fdx_dtype_name(s->type));
    for (int d = 0; d < ks->rank; d++)
        FDX_CHECK(a->shape[lead + d] == grid[d], FDX_ERR_INVALID, "%s extent %lld differs from the output's %lld on grid axis %d",
                  name, (long long)a->shape[lead + d], (long long)grid[d], d);
    FDX_CHECK(fdx_layout_is_identity(&a->layout), FDX_ERR_UNSUPPORTED,
              "%s is not stored in the plain layout (first index fastest): user stencils read only that one", name);
    return FDX_OK;
}

fdx_status fdx_ustencil_apply(fdx_ustencil *s, fdx_array *out, fdx_array *const *inputs, fdx_array *const *coefs,
                              void *stream)
{
    FDX_CHECK(s && out && inputs, FDX_ERR_INVALID, "fdx_ustencil_apply: NULL stencil, output or inputs");
    const fdx_us_spec *ks = &s->ks;
    FDX_CHECK(ks->ncoefs == 0 || coefs, FDX_ERR_INVALID, "the stencil needs %d coefficient arrays, got NULL",
              ks->ncoefs);
    FDX_CHECK(out->rank >= ks->rank, FDX_ERR_INVALID, "the output has rank %d, below the stencil's %d", out->rank,
              ks->rank);
    const int64_t *grid = out->shape + (ks->ncomp > 1);
    FDX_TRY(check_array(s, out, ks->ncomp, "the output", -1, grid));
    for (int i = 0; i < ks->ninputs; i++) FDX_TRY(check_array(s, inputs[i], ks->ncomp, "input", i, grid));
    for (int j = 0; j < ks->ncoefs; j++) FDX_TRY(check_array(s, coefs[j], 1, "coefficient array", j, grid));
    for (int d = 0; d < ks->rank; d++)
        FDX_CHECK(grid[d] > 2 * ks->radius, FDX_ERR_INVALID,
                  "a stencil of radius %d needs at least %d points on axis %d, got %lld", ks->radius,
                  2 * ks->radius + 1, d, (long long)grid[d]);
    ucall c;
    memset(&c, 0, sizeof c);
    c.s = s;
    c.be = fdx_ctx_ops(s->ctx);
    c.dev = fdx_ctx_device(s->ctx);
    int cuda = c.be->kind == FDX_BACKEND_CUDA;
    stream = fdx_ctx_stream(s->ctx, stream);
    fdx_stencil_shape3(ks->rank, grid, c.n3);
    FDX_TRY(fdx_stencil_storage(out, cuda, "the output", &c.ptr[0]));
    for (int i = 0; i < ks->ninputs; i++) FDX_TRY(fdx_stencil_storage(inputs[i], cuda, "an input", &c.ptr[1 + i]));
    for (int j = 0; j < ks->ncoefs; j++)
        FDX_TRY(fdx_stencil_storage(coefs[j], cuda, "a coefficient array", &c.ptr[1 + ks->ninputs + j]));
    for (int i = 1; i < 1 + ks->ninputs + ks->ncoefs; i++)
        FDX_CHECK(c.ptr[i] != c.ptr[0], FDX_ERR_INVALID, "the output shares storage with %s %d",
                  i <= ks->ninputs ? "input" : "coefficient array", i <= ks->ninputs ? i - 1 : i - 1 - ks->ninputs);
    c.aligned = 1;
    for (int i = 0; i < 1 + ks->ninputs + ks->ncoefs; i++) c.aligned &= (uintptr_t)c.ptr[i] % 16 == 0;
    uplan *p;
    FDX_TRY(get_plan(s, &c, stream, &p));
    return launch(&c, p->kernel, &p->cfg, stream);
}

void fdx_ustencil_traffic(const fdx_ustencil *s, const int64_t *shape, double *fetch_bytes, double *write_bytes)
{
    const fdx_us_spec *ks = &s->ks;
    int64_t n3[3];
    fdx_stencil_shape3(ks->rank, shape, n3);
    double e = ks->is_double ? 8 : 4, all = (double)n3[0] * (double)n3[1] * (double)n3[2];
    double in = (double)(n3[0] - 2 * ks->rx) * (double)(n3[1] - 2 * ks->ry) * (double)(n3[2] - 2 * ks->rm);
    /* Inputs and coefficients: every point of the grid some output reads
       (the whole grid less what no term reaches; counted as the whole grid
       when the stencil reaches the corners, as a box or div(k grad u) does
       on its axes: a lower bound either way). */
    double fields = (double)ks->ninputs * ks->ncomp + ks->ncoefs;
    *fetch_bytes = fields * (ks->radius ? all : in) * e;
    *write_bytes = in * ks->ncomp * e;
}

const char *fdx_ustencil_config(const fdx_ustencil *s, const int64_t *shape)
{
    if (!s || !shape) return "";
    int64_t n3[3];
    fdx_stencil_shape3(s->ks.rank, shape, n3);
    const uplan *p = find_plan(s, n3, -1);
    return p ? p->text : "";
}

fdx_status fdx_ustencil_source(const fdx_ustencil *s, int cuda, const int64_t *shape, char **source)
{
    FDX_CHECK(s && shape && source, FDX_ERR_INVALID, "fdx_ustencil_source: NULL argument");
    int64_t n3[3];
    fdx_stencil_shape3(s->ks.rank, shape, n3);
    fdx_us_cfg cfg;
    fdx_us_default_cfg(&s->ks, cuda, n3, &cfg);
    return fdx_us_generate(&s->ks, &cfg, cuda, source);
}
