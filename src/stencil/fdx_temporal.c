/* fdx_temporal: fdx_stencil_steps, the library's heat / Jacobi time
   stepper: nsteps steps in passes of k (temporally blocked kernels,
   fdx_temporal_gen.c) or one step a pass (fdx_stencil_apply), k given or
   chosen by timing the candidates on the caller's arrays. */
#include "arrays/fdx_array_impl.h"
#include "core/fdx_knob.h"
#include "core/fdx_log.h"
#include "fdx/metrics.h"
#include "stencil/fdx_bc.h"
#include "stencil/fdx_stencil_tune.h"
#include "stencil/fdx_temporal.h"
#include "fdx/internal/clock.h"
#include "fdx/internal/test_hooks.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- process-wide tables: loaded kernels, chosen plans ------------------- */

/* A plan: k 1 means one step a pass through fdx_stencil_apply. */
typedef struct tplan {
    fdx_temporal_cfg cfg;
} tplan;

typedef struct kslot {
    char key[192];
    fdx_kernel *k;
} kslot;

typedef struct pslot {
    char key[192];
    tplan plan;
    int tuned; /* chosen by timing (auto); else the last explicit request */
} pslot;

#define MAX_KERNELS 256
#define MAX_PLANS 64

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static kslot kernels[MAX_KERNELS];
static int nkernels;
static pslot plans[MAX_PLANS];
static int nplans, next_plan;
static int forced;
static fdx_temporal_cfg force;

void fdx_temporal_force_tile(const fdx_temporal_cfg *cfg)
{
    pthread_mutex_lock(&lock);
    forced = cfg != NULL;
    if (cfg) force = *cfg;
    pthread_mutex_unlock(&lock);
}

/* Loaded once per process (the backend's JIT keeps compiled objects on
   disk); with the table full a kernel is loaded unlisted. */
static fdx_status kernel_get(const fdx_backend *be, const fdx_device_info *dev, const fdx_stencil_kspec *ks,
                             const fdx_temporal_cfg *c, fdx_kernel **out)
{
    int cuda = be->kind == FDX_BACKEND_CUDA;
    char spec[32], key[sizeof kernels->key];
    fdx_stencil_kspec_text(ks, spec, sizeof spec);
    snprintf(key, sizeof key, "%s/%d/%.60s/%s/k%d/%dx%d/q%d/pd%d/u%d/d%d/f%d/a%d/s%d/n%d/v%d/c%d/b%d/r%d/i%d/l%d", be->name, dev->ordinal, dev->name,
             spec, c->k, cuda ? c->tx : 0, cuda ? c->ty : 0, cuda ? fdx_temporal_points(c) : 0,
             cuda && c->pd > 1 ? c->pd : 1, cuda && c->un > 1 ? c->un : 1, !cuda && c->direct, cuda && c->fp,
             cuda && c->ax, !cuda && c->skew, !cuda && c->nt, !cuda && c->v512,
             !cuda && c->skew ? fdx_temporal_cpu_code() : 0, cuda && c->nb, cuda && c->nr, cuda && c->i32,
             cuda ? c->lc + 2 * c->ll + 4 * c->fw : 0);
    pthread_mutex_lock(&lock);
    for (int i = 0; i < nkernels; i++)
        if (strcmp(kernels[i].key, key) == 0) {
            *out = kernels[i].k;
            pthread_mutex_unlock(&lock);
            return FDX_OK;
        }
    char *src = NULL;
    fdx_status st = fdx_temporal_generate(ks, c, cuda, &src);
    if (st == FDX_OK) st = be->jit_load(dev, src, FDX_STENCIL_ENTRY, "temporal stencil kernel", out);
    free(src);
    if (st == FDX_OK && nkernels < MAX_KERNELS) {
        snprintf(kernels[nkernels].key, sizeof kernels[nkernels].key, "%s", key);
        kernels[nkernels++].k = *out;
    }
    pthread_mutex_unlock(&lock);
    return st;
}

static void plan_key(const fdx_backend *be, const fdx_device_info *dev, const fdx_stencil_kspec *ks,
                     const int64_t n3[3], int tuned, char *key, size_t n)
{
    char spec[32];
    fdx_stencil_kspec_text(ks, spec, sizeof spec);
    snprintf(key, n, "%s/%d/%.60s/%s/%lldx%lldx%lld/%c", be->name, dev->ordinal, dev->name, spec, (long long)n3[0],
             (long long)n3[1], (long long)n3[2], tuned ? 't' : 'l');
}

static int plan_find(const char *key, tplan *p)
{
    int found = 0;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < nplans && !found; i++)
        if (strcmp(plans[i].key, key) == 0) *p = plans[i].plan, found = 1;
    pthread_mutex_unlock(&lock);
    return found;
}

static void plan_store(const char *key, const tplan *p)
{
    pthread_mutex_lock(&lock);
    int at = -1;
    for (int i = 0; i < nplans && at < 0; i++)
        if (strcmp(plans[i].key, key) == 0) at = i;
    if (at < 0 && nplans < MAX_PLANS) at = nplans++;
    if (at < 0) at = next_plan, next_plan = (next_plan + 1) % MAX_PLANS;
    snprintf(plans[at].key, sizeof plans[at].key, "%s", key);
    plans[at].plan = *p;
    pthread_mutex_unlock(&lock);
}

/* ---- one pass ---------------------------------------------------------------- */

typedef struct run {
    fdx_stencil *s;
    fdx_stencil_view v;
    const fdx_backend *be;
    const fdx_device_info *dev;
    int cuda;
    int64_t n3[3];
    fdx_array *u, *tmp;
    void *pu, *pt; /* their storage in the backend's memory */
    /* WAVE: u_prev, the coefficients (or NULL), the second scratch array */
    int wave;
    fdx_array *up, *cf, *tmp2;
    void *pup, *pcf, *pt2;
    void *scratch; /* CPU: the threads' rings */
    size_t scratch_bytes;
    int scratch_kept; /* scratch is the kept block (scratch_release gives it back) */
    /* the pass being timed */
    fdx_temporal_cfg cfg;
    fdx_kernel *kernel;
} run;

/* CPU: the OpenMP threads a pass runs (each with its rings). */
static int threads(const run *r) { return r->dev->sm_count > 0 ? r->dev->sm_count : 1; }

/* CPU: the threads' rings outlive a call: one block (the largest a call
   has used so far) is kept and lent to the next call that finds it free.
   A fresh block's pages fault in on first touch inside the pass, 16
   threads at once in one address space (session 7 on the 16-thread host:
   a pass in the tuner, which reuses its block, 79 ms; the same passes in
   fdx_stencil_steps calls ~120 ms a call slower).  FDX_TEMPORAL_CPU_FRESH=1
   allocates a block a call as before (the A/B). */
static struct {
    void *p;
    size_t bytes;
    const fdx_backend *be;
    int lent;
} kept;

static void scratch_release(run *r)
{
    if (!r->scratch) return;
    void *drop = NULL;
    const fdx_backend *drop_be = r->be;
    pthread_mutex_lock(&lock);
    if (r->scratch_kept) {
        kept.lent = 0;
    } else if (!kept.lent && (!kept.p || kept.bytes < r->scratch_bytes) && !fdx_knob_is(FDX_KNOB_TEMPORAL_CPU_FRESH, "1")) {
        drop = kept.p, drop_be = kept.be;
        kept.p = r->scratch, kept.bytes = r->scratch_bytes, kept.be = r->be;
    } else {
        drop = r->scratch;
    }
    pthread_mutex_unlock(&lock);
    if (drop) drop_be->free(drop);
    r->scratch = NULL, r->scratch_bytes = 0, r->scratch_kept = 0;
}

static fdx_status ensure_scratch(run *r, const fdx_temporal_cfg *c)
{
    if (r->cuda) return FDX_OK;
    size_t need = (size_t)fdx_temporal_scratch_values(r->v.ks, c, r->n3, threads(r)) * (r->v.ks->is_double ? 8 : 4);
    if (need <= r->scratch_bytes) return FDX_OK;
    scratch_release(r);
    pthread_mutex_lock(&lock);
    if (kept.p && !kept.lent && kept.be == r->be && kept.bytes >= need) {
        kept.lent = 1;
        r->scratch = kept.p, r->scratch_bytes = kept.bytes, r->scratch_kept = 1;
    }
    pthread_mutex_unlock(&lock);
    if (r->scratch) return FDX_OK;
    FDX_TRY(r->be->alloc(need, &r->scratch));
    r->scratch_bytes = need;
    return FDX_OK;
}

/* The skewed slabs' geometry as the kernel sees it: slabs, even rows a
   slab, and the counter lines after the rings (16 values a slab: the
   counter, the time stamps from 1, the balanced first row at 15). */
static long long *skew_lines(const run *r, const fdx_temporal_cfg *c, int64_t per, int64_t *nslab, int64_t *by)
{
    int64_t rows = r->n3[1] - 2 * r->v.ks->radius;
    *by = c->by < rows ? c->by : rows;
    *nslab = (rows + *by - 1) / *by;
    return (long long *)((char *)r->scratch + (size_t)(*nslab * per) * (r->v.ks->is_double ? 8 : 4));
}

/* Balanced slabs (FDX_TEMPORAL_CPU_BALANCE=1): the first rows of the last
   pass's slabs for these rows and slab count, set again before the next
   pass, after each pass moved halfway toward rows in proportion to each
   thread's rows a compute cycle (levels only, not its waits).  Why: the
   16-core host's time stamps (session 11) showed one thread computing
   for ~98% of the pass, its levels 1.6-1.9 times the mean, and the others
   waiting for it ~35% of theirs: the chain runs at its slowest core. */
#define BAL_MAX 256
static struct {
    int64_t rows, nslab;
    long long y[BAL_MAX + 1];
} bal;

void fdx_temporal_balance_seed(int64_t ny, int64_t nslab, const long long *first_rows)
{
    pthread_mutex_lock(&lock);
    bal.rows = nslab >= 1 && nslab <= BAL_MAX ? ny : 0, bal.nslab = nslab;
    if (bal.rows) memcpy(bal.y, first_rows, (size_t)nslab * sizeof *first_rows);
    pthread_mutex_unlock(&lock);
}

static void skew_balance_set(const run *r, const fdx_temporal_cfg *c, int64_t per)
{
    int64_t nslab, by;
    long long *prog = skew_lines(r, c, per, &nslab, &by);
    const int rd = r->v.ks->radius;
    /* the kept split where it fits these slabs (another radius or depth
       may share the rows and the count): slab 0 at r, each 2r .. bym rows */
    const int64_t top = r->n3[1] - rd, bym = by + by / 2;
    pthread_mutex_lock(&lock);
    int have = bal.rows == r->n3[1] && bal.nslab == nslab && bal.y[0] == rd;
    for (int64_t j = 0; j < nslab && have; j++) {
        int64_t n = (j + 1 < nslab ? bal.y[j + 1] : top) - bal.y[j];
        have = n >= 2 * rd && n <= bym;
    }
    for (int64_t j = 0; j < nslab; j++) prog[j * 16 + 15] = have ? bal.y[j] : rd + j * by;
    pthread_mutex_unlock(&lock);
}

static void skew_balance_update(const run *r, const fdx_temporal_cfg *c, int64_t per)
{
    int64_t nslab, by;
    const long long *prog = skew_lines(r, c, per, &nslab, &by);
    const int rd = r->v.ks->radius, K = c->k;
    if (nslab != threads(r) || nslab < 2 || nslab > BAL_MAX || K + 4 >= 15) return;
    const int64_t top = r->n3[1] - rd, lo = by / 2 > 2 * rd ? by / 2 : 2 * rd, hi = by + by / 2;
    double want[BAL_MAX], sum = 0, rate[BAL_MAX], rsum = 0;
    for (int64_t j = 0; j < nslab; j++) {
        int64_t n = (j + 1 < nslab ? prog[(j + 1) * 16 + 15] : top) - prog[j * 16 + 15];
        long long cyc = 0;
        for (int t = 1; t <= K; t++) cyc += prog[j * 16 + 2 + t];
        if (n <= 0 || cyc <= 0) return;
        rate[j] = (double)n / (double)cyc, rsum += rate[j];
        want[j] = (double)n;
    }
    const double rows = (double)(top - rd);
    for (int64_t j = 0; j < nslab; j++) want[j] = 0.5 * want[j] + 0.5 * rows * rate[j] / rsum, sum += want[j];
    long long y[BAL_MAX + 1];
    y[0] = rd;
    double at = 0;
    for (int64_t j = 0; j + 1 < nslab; j++) {
        at += want[j] * rows / sum;
        long long n = llround(rd + at) - y[j];
        if (n < lo) n = lo;
        if (n > hi) n = hi;
        y[j + 1] = y[j] + n;
    }
    int64_t last = top - y[nslab - 1];
    if (last < lo || last > hi) return; /* no split within the rings' rows: keep the last */
    pthread_mutex_lock(&lock);
    bal.rows = r->n3[1], bal.nslab = nslab;
    memcpy(bal.y, y, (size_t)nslab * sizeof *y);
    pthread_mutex_unlock(&lock);
    if (fdx_temporal_cpu_code() & FDX_TEMPORAL_CODE_STATS) {
        y[nslab] = top;
        int64_t mn = 0, mx = 0;
        for (int64_t j = 1; j < nslab; j++) {
            if (y[j + 1] - y[j] < y[mn + 1] - y[mn]) mn = j;
            if (y[j + 1] - y[j] > y[mx + 1] - y[mx]) mx = j;
        }
        FDX_INFO("temporal balance: next pass's slabs %lld rows (thread %lld) .. %lld (thread %lld)",
                 y[mn + 1] - y[mn], (long long)mn, y[mx + 1] - y[mx], (long long)mx);
    }
}

/* Dynamic slabs (FDX_TEMPORAL_CPU_DYN): the threads' home ranges (bounds
   after the claims, fdx_temporal_emit_skew) where the last pass on these
   rows, slabs and threads left them; the kernel starts from even ranges
   where they do not tile its team's slabs.  Why: the 16-core host's slow
   vCPU stayed the same for several passes (session 11's balance log). */
static struct {
    int64_t rows, nslab, team;
    long long b[BAL_MAX + 1];
} dynb;

void fdx_temporal_dyn_seed(int64_t ny, int64_t nslab, int team, const long long *bounds)
{
    pthread_mutex_lock(&lock);
    dynb.rows = team >= 1 && team <= BAL_MAX ? ny : 0, dynb.nslab = nslab, dynb.team = team;
    if (dynb.rows) memcpy(dynb.b, bounds, (size_t)(team + 1) * sizeof *bounds);
    pthread_mutex_unlock(&lock);
}

static long long *skew_bounds(const run *r, const fdx_temporal_cfg *c, int64_t per, int64_t *nslab)
{
    int64_t by;
    return skew_lines(r, c, per, nslab, &by) + 32 * *nslab;
}

static void skew_dyn_set(const run *r, const fdx_temporal_cfg *c, int64_t per)
{
    int64_t nslab, team = threads(r);
    long long *b = skew_bounds(r, c, per, &nslab);
    pthread_mutex_lock(&lock);
    int have = dynb.rows == r->n3[1] && dynb.nslab == nslab && dynb.team == team;
    for (int64_t q = 0; q <= team; q++) b[q * 16] = have ? dynb.b[q] : q * nslab / team;
    pthread_mutex_unlock(&lock);
}

static void skew_dyn_keep(const run *r, const fdx_temporal_cfg *c, int64_t per)
{
    int64_t nslab, team = threads(r);
    const long long *b = skew_bounds(r, c, per, &nslab);
    if (team > BAL_MAX) return;
    pthread_mutex_lock(&lock);
    dynb.rows = r->n3[1], dynb.nslab = nslab, dynb.team = team;
    for (int64_t q = 0; q <= team; q++) dynb.b[q] = b[q * 16];
    pthread_mutex_unlock(&lock);
    if (fdx_temporal_cpu_code() & FDX_TEMPORAL_CODE_STATS) {
        int64_t mn = 0, mx = 0;
        for (int64_t q = 1; q < team; q++) {
            if (b[(q + 1) * 16] - b[q * 16] < b[(mn + 1) * 16] - b[mn * 16]) mn = q;
            if (b[(q + 1) * 16] - b[q * 16] > b[(mx + 1) * 16] - b[mx * 16]) mx = q;
        }
        FDX_INFO("temporal dyn: home ranges %lld slabs (thread %lld) .. %lld (thread %lld) of %lld",
                 b[(mn + 1) * 16] - b[mn * 16], (long long)mn, b[(mx + 1) * 16] - b[mx * 16], (long long)mx, (long long)nslab);
    }
}

/* FDX_TEMPORAL_CPU_STATS=1 (skew): the time stamps each thread left after
   its first slab's counter (fdx_temporal_emit_skew) as shares of its pass,
   mean and max over the threads, at info level: where a 16-thread pass
   goes (waiting on the neighbours, which level, the closing barriers). */
static void skew_stats_log(const run *r, const fdx_temporal_cfg *c, int64_t per, double ms)
{
    const int K = c->k, team = threads(r);
    if (K + 4 >= 15) return;
    int64_t nslab, by;
    const long long *prog = skew_lines(r, c, per, &nslab, &by);
    /* dynamic slabs: 0 the cycles with nothing to run, 1 the slabs taken
       from a neighbour (a count) */
    const int dyn = (fdx_temporal_cpu_code() & FDX_TEMPORAL_CODE_DYN) != 0;
    double mean[16] = {0}, max[16] = {0};
    int n = 0;
    for (int th = 0; th < team; th++) {
        int64_t ja = th * nslab / team, jz = (th + 1) * nslab / team;
        const long long *st = prog + ja * 16 + 1;
        if (ja >= jz || st[K + 3] <= 0) continue;
        for (int q = 0; q < K + 3; q++) {
            double f = dyn && q == 1 ? (double)st[q] : (double)st[q] / (double)st[K + 3];
            mean[q] += f;
            if (f > max[q]) max[q] = f;
        }
        n++;
    }
    if (!n) return;
    char text[512];
    int at = dyn ? snprintf(text, sizeof text, "idle %.3f/%.3f, slabs taken %.1f/%.0f", mean[0] / n, max[0], mean[1] / n, max[1])
                 : snprintf(text, sizeof text, "wait below %.3f/%.3f, above %.3f/%.3f", mean[0] / n, max[0], mean[1] / n, max[1]);
    double rest = 1;
    for (int q = 0; q < K + 3; q++)
        if (!dyn || q != 1) rest -= mean[q] / n;
    for (int t = 1; t <= K && at < (int)sizeof text; t++)
        at += snprintf(text + at, sizeof text - (size_t)at, ", level %d %.3f/%.3f", t, mean[1 + t] / n, max[1 + t]);
    if (at < (int)sizeof text)
        snprintf(text + at, sizeof text - (size_t)at, ", barriers %.3f/%.3f, other %.3f", mean[K + 2] / n, max[K + 2], rest);
    FDX_INFO("temporal stats: k%d %dx%d, %d threads, %.2f ms a pass; shares of a thread's pass, mean/max: %s", K, c->bx,
             c->by, n, ms, text);
}

/* k steps of the configuration's depth from src into dst (WAVE: from
   (srcp, src) into (dstp, dst), the levels k - 1 and k). */
static fdx_status pass(run *r, fdx_kernel *k, const fdx_temporal_cfg *c, void *dst, void *src, void *dstp, void *srcp,
                       void *stream)
{
    fdx_stencil_cfg sc;
    memset(&sc, 0, sizeof sc);
    sc.chunk = c->chunk, sc.by = c->by > 0 ? c->by : 1;
    fdx_stencil_params p;
    fdx_stencil_params_build(r->v.ks, &sc, r->n3, r->v.c0, r->v.ws, r->v.wa, 0, NULL, &p);
    fdx_temporal_tp tp = {c->bx, 0, threads(r), fdx_knob_int(FDX_KNOB_TEMPORAL_CPU_PIN, 0, 1, 1)};
    fdx_launch_dims dims = {{1, 1, 1}, {1, 1, 1}, 0};
    if (r->cuda) {
        FDX_TRY(fdx_temporal_launch_dims(r->v.ks, c, r->n3, &dims));
    } else {
        FDX_TRY(ensure_scratch(r, c));
        tp.per = fdx_temporal_scratch_per_thread(r->v.ks, c, r->n3);
    }
    void *scratch = r->scratch, *cf = r->pcf;
    void *args[8] = {&dst, &src, &scratch, p.bytes, &tp, &dstp, &srcp, &cf};
    if (!r->cuda) /* the CPU entry takes the pointers */
        args[0] = dst, args[1] = src, args[2] = scratch, args[5] = dstp, args[6] = srcp, args[7] = cf;
    const int code = !r->cuda && c->skew ? fdx_temporal_cpu_code() : 0;
    const int stats = code & FDX_TEMPORAL_CODE_STATS, balance = code & FDX_TEMPORAL_CODE_BALANCE,
              dyn = code & FDX_TEMPORAL_CODE_DYN;
    if (balance) skew_balance_set(r, c, tp.per);
    if (dyn) skew_dyn_set(r, c, tp.per);
    double t0 = stats ? fdx_now_s() : 0;
    FDX_TRY(r->be->launch(k, &dims, args, stream));
    if (stats) skew_stats_log(r, c, tp.per, (fdx_now_s() - t0) * 1e3);
    if (balance) skew_balance_update(r, c, tp.per);
    if (dyn) skew_dyn_keep(r, c, tp.per);
    return FDX_OK;
}

static fdx_status timed_pass(void *arg, void *stream)
{
    run *r = arg;
    return pass(r, r->kernel, &r->cfg, r->pt, r->pu, r->pt2, r->pup, stream);
}

static fdx_status timed_apply(void *arg, void *stream)
{
    run *r = arg;
    return fdx_stencil_apply(r->s, r->tmp, r->u, r->up, r->cf, stream);
}

/* Auto: every candidate and one step a pass, timed on the caller's arrays
   (u -> tmp: u is not written, tmp is scratch); the fastest per step. */
static fdx_status tune(run *r, void *stream, tplan *best)
{
    fdx_temporal_cfg cand[40];
    int n = fdx_temporal_candidates(r->v.ks, r->dev, r->cuda, r->n3, 0, cand, 40);
    FDX_TRY(r->be->stream_sync(stream));
    fdx_time_stats t;
    FDX_TRY(fdx_time_run(r->v.ctx, timed_apply, r, 1, 5, &t));
    double best_ms = t.median_ms;
    memset(best, 0, sizeof *best);
    best->cfg.k = 1;
    FDX_INFO("temporal tuning: one step a pass %.4f ms a step", best_ms);
    for (int i = 0; i < n; i++) {
        char text[96];
        fdx_temporal_cfg_text(&cand[i], r->cuda, text, sizeof text);
        r->cfg = cand[i];
        fdx_status st = kernel_get(r->be, r->dev, r->v.ks, &cand[i], &r->kernel);
        if (st == FDX_OK) st = fdx_time_run(r->v.ctx, timed_pass, r, 1, 3, &t);
        if (st != FDX_OK) {
            FDX_DEBUG("temporal tuning: %s cannot run: %s", text, fdx_last_error());
            fdx_clear_error();
            continue;
        }
        double per_step = t.median_ms / cand[i].k;
        FDX_INFO("temporal tuning: %-36s %.4f ms a step", text, per_step);
        if (per_step < best_ms) best_ms = per_step, best->cfg = cand[i];
    }
    return FDX_OK;
}

/* ---- the API ---------------------------------------------------------------------- */

static fdx_status check_array(const fdx_stencil_view *v, const fdx_array *a, const fdx_array *u, const char *what)
{
    FDX_CHECK(a->ctx == v->ctx, FDX_ERR_INVALID, "fdx_stencil_steps: %s belongs to another context than the stencil",
              what);
    FDX_CHECK(a->rank == v->ks->rank, FDX_ERR_INVALID, "%s has rank %d, the stencil rank %d", what, a->rank,
              v->ks->rank);
    FDX_CHECK(a->dtype == v->type, FDX_ERR_INVALID, "%s is %s, the stencil %s", what, fdx_dtype_name(a->dtype),
              fdx_dtype_name(v->type));
    for (int d = 0; d < a->rank; d++)
        FDX_CHECK(a->shape[d] == u->shape[d], FDX_ERR_INVALID, "%s extent %lld differs from u's %lld on axis %d", what,
                  (long long)a->shape[d], (long long)u->shape[d], d);
    FDX_CHECK(fdx_layout_is_identity(&a->layout), FDX_ERR_UNSUPPORTED,
              "%s is not stored in the plain layout (first index fastest): the stencil engine reads only that one",
              what);
    return FDX_OK;
}

static void *storage(const run *r, const fdx_array *a)
{
    return a ? (r->cuda ? a->device : a->host) : NULL;
}

/* The checks and plan both steppers share; then the passes.  Heat: u, tmp.
   Wave: u, up (u_prev), cf (or NULL), tmp, tmp2. */
static fdx_status steps(fdx_stencil *s, fdx_array *u, fdx_array *up, fdx_array *cf, fdx_array *tmp, fdx_array *tmp2,
                        int64_t nsteps, int temporal, void *stream)
{
    const char *fn = up ? "fdx_stencil_wave_steps" : "fdx_stencil_steps";
    FDX_CHECK(nsteps >= 0, FDX_ERR_INVALID, "%s: %lld steps", fn, (long long)nsteps);
    FDX_CHECK(temporal >= -1 && temporal <= FDX_TEMPORAL_MAX_K, FDX_ERR_INVALID,
              "temporal blocking depth %d must be -1 (auto), 0 (off) or 1..%d", temporal, FDX_TEMPORAL_MAX_K);
    run r;
    memset(&r, 0, sizeof r);
    r.s = s;
    fdx_stencil_view_of(s, &r.v);
    const fdx_stencil_kspec *ks = r.v.ks;
    r.wave = up != NULL;
    if (r.wave)
        FDX_CHECK(ks->update == FDX_UPDATE_WAVE && !ks->sponge && (cf != NULL) == (ks->coef != 0), FDX_ERR_INVALID,
                  "fdx_stencil_wave_steps advances the wave update (2 u - u_prev + alpha [c] L u) without a sponge, "
                  "with a coefficient array exactly when the stencil has one; this stencil is %s%s%s, coef %s",
                  ks->update == FDX_UPDATE_HEAT ? "heat" : ks->update == FDX_UPDATE_WAVE ? "wave" : "apply",
                  ks->coef ? " with a coefficient array" : "", ks->sponge ? " with a sponge" : "",
                  cf ? "given" : "NULL");
    else
        FDX_CHECK(ks->update == FDX_UPDATE_HEAT && !ks->coef && !ks->sponge, FDX_ERR_INVALID,
                  "fdx_stencil_steps advances the heat / Jacobi update (u + alpha L u) without a coefficient array; "
                  "this stencil is %s%s",
                  ks->update == FDX_UPDATE_HEAT ? "heat" : ks->update == FDX_UPDATE_WAVE ? "wave" : "apply",
                  ks->coef ? " with a coefficient array" : "");
    const char *why = NULL;
    FDX_CHECK(temporal <= 1 || fdx_temporal_supports(ks, &why), FDX_ERR_UNSUPPORTED, "temporal blocking: %s", why);
    fdx_array *all[5] = {u, tmp, up, tmp2, cf};
    const char *names[5] = {"u", "tmp", "u_prev", "tmp2", "coef"};
    for (int i = 0; i < (r.wave ? 5 : 2); i++) {
        if (!all[i]) continue;
        FDX_TRY(check_array(&r.v, all[i], u, names[i]));
        for (int j = 0; j < i; j++)
            FDX_CHECK(all[i] != all[j] || i == 4, FDX_ERR_INVALID, "%s: %s and %s must be distinct arrays", fn,
                      names[j], names[i]);
    }
    r.be = fdx_ctx_ops(r.v.ctx);
    r.dev = fdx_ctx_device(r.v.ctx);
    r.cuda = r.be->kind == FDX_BACKEND_CUDA;
    r.u = u, r.tmp = tmp, r.up = up, r.cf = cf, r.tmp2 = tmp2;
    r.pu = storage(&r, u), r.pt = storage(&r, tmp), r.pup = storage(&r, up), r.pcf = storage(&r, cf);
    r.pt2 = storage(&r, tmp2);
    for (int i = 0; i < (r.wave ? 5 : 2); i++) {
        void *pi = storage(&r, all[i]);
        FDX_CHECK(!all[i] || pi, FDX_ERR_INVALID, "%s: %s has no %s storage", fn, names[i], r.cuda ? "device" : "host");
        for (int j = 0; j < i && i < 4; j++)
            FDX_CHECK(!all[j] || pi != storage(&r, all[j]), FDX_ERR_INVALID, "%s: %s and %s share storage", fn,
                      names[j], names[i]);
    }
    int rd = fdx_stencil_radius(s);
    for (int d = 0; d < u->rank; d++)
        FDX_CHECK(u->shape[d] > 2 * rd, FDX_ERR_INVALID, "a stencil of radius %d needs at least %d points on axis %d, got %lld",
                  rd, 2 * rd + 1, d, (long long)u->shape[d]);
    fdx_stencil_shape3(u->rank, u->shape, r.n3);
    stream = fdx_ctx_stream(r.v.ctx, stream);
    if (nsteps == 0) return FDX_OK;

    /* Boundary conditions are filled between steps by fdx_stencil_apply's
       pass; the deeper kernels have no such step yet: one step a pass. */
    FDX_CHECK(temporal <= 1 || !fdx_stencil_boundary_of(s), FDX_ERR_UNSUPPORTED,
              "temporal depth %d: the stencil has boundary conditions, which only one step a pass applies (use off "
              "or auto)", temporal);
    if (fdx_stencil_boundary_of(s)) temporal = 0;
        /* The plan: one step a pass, the asked depth, or the tuned choice. */
    tplan plan;
    memset(&plan, 0, sizeof plan);
    plan.cfg.k = 1;
    char key[192];
    fdx_status st = FDX_OK;
    int64_t points = r.n3[0] * r.n3[1] * r.n3[2];
    pthread_mutex_lock(&lock);
    fdx_temporal_cfg f = force;
    int use_force = forced;
    pthread_mutex_unlock(&lock);
    /* FDX_TEMPORAL_CFG (measurements) forces a configuration where it
       fits, for an asked depth or auto; its depth, where given, for auto. */
    if (!use_force && fdx_knob(FDX_KNOB_TEMPORAL_CFG)) {
        st = fdx_temporal_cfg_parse(fdx_knob(FDX_KNOB_TEMPORAL_CFG), &f);
        if (st != FDX_OK) goto done;
        use_force = 1;
        if (temporal == -1 && f.k > 1 && nsteps >= 2) temporal = f.k;
        if (f.chunk <= 0) {
            fdx_temporal_cfg g = f;
            g.k = temporal > 1 ? temporal : 2;
            f.chunk = fdx_temporal_chunk(ks, r.dev, r.cuda, r.n3, &g);
        }
    }
    f.k = temporal;
    if (temporal > 1 && use_force && fdx_temporal_fits(ks, &f, r.cuda, r.n3)) {
        plan.cfg = f;
    } else if (temporal > 1) {
        fdx_temporal_cfg c[1];
        FDX_CHECK(fdx_temporal_candidates(ks, r.dev, r.cuda, r.n3, temporal, c, 1) == 1, FDX_ERR_UNSUPPORTED,
                  "temporal depth %d: no tile keeps points of its own at radius %d (halo %d) on %lldx%lldx%lld",
                  temporal, rd, temporal * rd, (long long)r.n3[0], (long long)r.n3[1], (long long)r.n3[2]);
        plan.cfg = c[0];
    } else if (temporal == -1 && nsteps >= 2 && fdx_temporal_supports(ks, NULL) &&
               points >= FDX_STENCIL_TUNE_MIN_POINTS) {
        plan_key(r.be, r.dev, ks, r.n3, 1, key, sizeof key);
        if (!plan_find(key, &plan)) {
            st = tune(&r, stream, &plan);
            if (st != FDX_OK) goto done;
            char text[96] = "one step a pass";
            if (plan.cfg.k > 1) fdx_temporal_cfg_text(&plan.cfg, r.cuda, text, sizeof text);
            FDX_INFO("temporal blocking for %lldx%lldx%lld: %s", (long long)r.n3[0], (long long)r.n3[1],
                     (long long)r.n3[2], text);
            plan_store(key, &plan);
        }
    }
    plan_key(r.be, r.dev, ks, r.n3, 0, key, sizeof key);
    plan_store(key, &plan);

    /* Passes alternate u -> tmp -> u (WAVE: the pair (u_prev, u) -> (tmp2,
       tmp) -> ...; one step a pass rotates the buffers); the last pass may
       be shallower. */
    fdx_array *cur = u, *prv = up, *fa = tmp, *fb = tmp2;
    for (int64_t left = nsteps; left > 0;) {
        int k = plan.cfg.k < left ? plan.cfg.k : (int)left;
        if (k == 1 && plan.cfg.k == 1) {
            st = fdx_stencil_apply(s, fa, cur, prv, cf, stream);
            if (st != FDX_OK) goto done;
            /* u_prev <- u <- the new level; the old u_prev is free. */
            fdx_array *t = prv;
            if (r.wave) prv = cur, cur = fa, fa = t;
            else t = cur, cur = fa, fa = t;
        } else {
            fdx_temporal_cfg c = plan.cfg;
            c.k = k;
            fdx_kernel *kern = NULL;
            st = kernel_get(r.be, r.dev, ks, &c, &kern);
            if (st == FDX_OK)
                st = pass(&r, kern, &c, storage(&r, fa), storage(&r, cur), storage(&r, fb), storage(&r, prv), stream);
            if (st != FDX_OK) goto done;
            fdx_array *t = cur, *tp = prv;
            cur = fa, prv = fb, fa = t, fb = tp;
        }
        left -= k;
    }
    /* The result into u (and u_prev), through a free buffer where they are
       swapped. */
    size_t bytes = (size_t)fdx_array_count(u) * u->elem_size;
    int kind = r.cuda ? FDX_COPY_D2D : FDX_COPY_H2H;
    if (cur != u && prv == u) {
        st = r.be->copy(storage(&r, fa), storage(&r, u), bytes, kind, stream);
        if (st != FDX_OK) goto done;
        prv = fa;
    }
    if (cur != u) st = r.be->copy(storage(&r, u), storage(&r, cur), bytes, kind, stream);
    if (st == FDX_OK && r.wave && prv != up) st = r.be->copy(storage(&r, up), storage(&r, prv), bytes, kind, stream);
done:
    scratch_release(&r);
    return st;
}


fdx_status fdx_temporal_pass(fdx_stencil *s, fdx_array *out, fdx_array *u, fdx_array *outp, fdx_array *up,
                             fdx_array *cf, int k, void *stream)
{
    FDX_CHECK(s && out && u && out != u && (!up || (outp && outp != up)), FDX_ERR_INTERNAL, "fdx_temporal_pass: arrays");
    FDX_CHECK(k >= 2 && k <= FDX_TEMPORAL_MAX_K, FDX_ERR_INTERNAL, "fdx_temporal_pass: depth %d", k);
    run r;
    memset(&r, 0, sizeof r);
    r.s = s;
    fdx_stencil_view_of(s, &r.v);
    const fdx_stencil_kspec *ks = r.v.ks;
    const char *why = NULL;
    FDX_CHECK(fdx_temporal_supports(ks, &why), FDX_ERR_UNSUPPORTED, "temporal blocking: %s", why);
    r.be = fdx_ctx_ops(r.v.ctx);
    r.dev = fdx_ctx_device(r.v.ctx);
    r.cuda = r.be->kind == FDX_BACKEND_CUDA;
    r.wave = up != NULL;
    r.pcf = storage(&r, cf);
    fdx_stencil_shape3(u->rank, u->shape, r.n3);
    stream = fdx_ctx_stream(r.v.ctx, stream);
    fdx_temporal_cfg c;
    pthread_mutex_lock(&lock);
    c = force;
    int use_force = forced;
    pthread_mutex_unlock(&lock);
    c.k = k;
    if (!use_force || !fdx_temporal_fits(ks, &c, r.cuda, r.n3))
        FDX_CHECK(fdx_temporal_candidates(ks, r.dev, r.cuda, r.n3, k, &c, 1) == 1, FDX_ERR_UNSUPPORTED,
                  "temporal depth %d: no tile keeps points of its own at radius %d on %lldx%lldx%lld", k, ks->radius,
                  (long long)r.n3[0], (long long)r.n3[1], (long long)r.n3[2]);
    fdx_kernel *kern = NULL;
    fdx_status st = kernel_get(r.be, r.dev, ks, &c, &kern);
    if (st == FDX_OK)
        st = pass(&r, kern, &c, storage(&r, out), storage(&r, u), storage(&r, outp), storage(&r, up), stream);
    /* The CPU pass is done when the launch returns: its scratch can go back. */
    scratch_release(&r);
    return st;
}

fdx_status fdx_stencil_steps(fdx_stencil *s, fdx_array *u, fdx_array *tmp, int64_t nsteps, int temporal,
                             void *stream)
{
    FDX_CHECK(s && u && tmp, FDX_ERR_INVALID, "fdx_stencil_steps: NULL stencil or array");
    return steps(s, u, NULL, NULL, tmp, NULL, nsteps, temporal, stream);
}

fdx_status fdx_stencil_wave_steps(fdx_stencil *s, fdx_array *u, fdx_array *u_prev, fdx_array *coef, fdx_array *tmp,
                                  fdx_array *tmp2, int64_t nsteps, int temporal, void *stream)
{
    FDX_CHECK(s && u && u_prev && tmp && tmp2, FDX_ERR_INVALID, "fdx_stencil_wave_steps: NULL stencil or array");
    return steps(s, u, u_prev, coef, tmp, tmp2, nsteps, temporal, stream);
}

int fdx_stencil_steps_depth(const fdx_stencil *s, const int64_t *shape, char *config, size_t n)
{
    if (config && n) config[0] = '\0';
    if (!s || !shape) return 0;
    fdx_stencil_view v;
    fdx_stencil_view_of(s, &v);
    const fdx_backend *be = fdx_ctx_ops(v.ctx);
    const fdx_device_info *dev = fdx_ctx_device(v.ctx);
    int64_t n3[3];
    fdx_stencil_shape3(v.ks->rank, shape, n3);
    char key[192];
    plan_key(be, dev, v.ks, n3, 0, key, sizeof key);
    tplan p;
    if (!plan_find(key, &p)) return 0;
    if (config && n) {
        if (p.cfg.k > 1) fdx_temporal_cfg_text(&p.cfg, be->kind == FDX_BACKEND_CUDA, config, n);
        else snprintf(config, n, "one step a pass (%s)", fdx_stencil_config(s, shape));
    }
    return p.cfg.k;
}
