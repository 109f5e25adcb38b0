/* fdx_loop_run: one launch of a loop: actuality, the planner's transforms,
   code generation for the layouts now current, the kernel cache, the steps
   of the launch geometry, and the reductions' final fold on the host. */
#include "loops/fdx_loop_impl.h"
#include "loops/fdx_loop_graph.h"
#include "core/fdx_knob.h"
#include "core/fdx_log.h"

#include <float.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

static fdx_status kernel_for(fdx_loop *l, const char *src, const char *entry, fdx_kernel **out)
{
    const fdx_backend *be = fdx_ctx_ops(l->ctx);
    int hit = -1;
    for (int i = 0; i < LOOP_KCACHE && hit < 0; i++)
        if (l->kcache[i].source && strcmp(l->kcache[i].source, src) == 0) hit = i;
    if (hit < 0) {
        char what[96];
        snprintf(what, sizeof what, "loop '%s'", l->name);
        fdx_kernel *k = NULL;
        FDX_TRY(be->jit_load(fdx_ctx_device(l->ctx), src, entry, what, &k));
        char *copy = strdup(src);
        if (!copy) {
            be->kernel_release(k);
            return fdx_fail(FDX_ERR_NOMEM, "out of memory caching loop '%s'", l->name);
        }
        hit = LOOP_KCACHE - 1;
        /* a graph may name the kernel that goes (or one at its address later) */
        if (l->kcache[hit].kernel) fdx_loop_graph_drop(l);
        if (l->kcache[hit].kernel) be->kernel_release(l->kcache[hit].kernel);
        free(l->kcache[hit].source);
        l->kcache[hit].source = copy;
        l->kcache[hit].kernel = k;
    }
    /* most recent first */
    loop_kentry e = l->kcache[hit];
    memmove(&l->kcache[1], &l->kcache[0], sizeof l->kcache[0] * (size_t)hit);
    l->kcache[0] = e;
    *out = e.kernel;
    return FDX_OK;
}

/* Reduction partials [sweep][block][reduction] of a launch on the host,
   identities to start with; the slot after them flags the CPU kernel's
   accumulator allocation failure. */
static fdx_status partials_init(fdx_loop *l, size_t slots, loop_launch *L)
{
    L->count = slots * (size_t)l->nreds;
    L->hv = malloc(sizeof(double) * (L->count + 1));
    L->hl = malloc(sizeof(long long) * (L->count + 1));
    if (!L->hv || !L->hl) {
        free(L->hv);
        free(L->hl);
        L->hv = NULL, L->hl = NULL;
        return fdx_fail(FDX_ERR_NOMEM, "out of memory for %zu reduction partials of loop '%s'", L->count, l->name);
    }
    for (size_t q = 0; q < L->count; q++) {
        const loop_red *r = &l->red[q % (size_t)l->nreds];
        L->hv[q] = fdx_loop_red_identity(r->op);
        L->hl[q] = fdx_loop_red_identity_int(r);
    }
    L->hv[L->count] = 0;
    L->hl[L->count] = 0;
    return FDX_OK;
}

/* Results of the last sweep from its `blocks` partial slots. */
static void partials_fold(fdx_loop *l, const double *hv, const long long *hl, size_t first_slot, size_t blocks)
{
    for (int r = 0; r < l->nreds; r++) {
        loop_red *red = &l->red[r];
        double v = fdx_loop_red_identity(red->op);
        int64_t lin = fdx_loop_red_identity_int(red);
        for (size_t b = 0; b < blocks; b++) {
            size_t q = (first_slot + b) * (size_t)l->nreds + (size_t)r;
            fdx_loop_red_fold(red, hv[q], hl[q], &v, &lin);
        }
        red->value = v;
        red->ivalue = fdx_loop_red_is_int(red) ? lin : 0;
        red->lin = fdx_loop_red_is_loc(red->op) ? lin : 0;
    }
}

/* The launch's run-time integers: lower bounds, shifted arrays' origins,
   and the steps [T0, T1) the CPU kernel walks (all of them by default). */
static void runtime_ints(const fdx_loop *l, long long *ri)
{
    memset(ri, 0, sizeof(long long) * LOOP_RI_COUNT);
    for (int d = 0; d < l->rank; d++) ri[d] = l->lo[d];
    for (int a = 0; a < l->nargs; a++)
        for (int x = 0; x < l->arg[a].array->rank; x++) ri[LOOP_RI_ORIGIN + a * FDX_MAX_RANK + x] = l->arg[a].origin[x];
    ri[LOOP_RI_STEPS + 1] = LLONG_MAX;
}

/* Grid kernel: up to a block per chunk (y and z at most 65535, the kernel
   strides over the rest; with reductions at most 8 blocks an SM, each
   owning a partial slot).  Else threads wanted: one per enumerated point,
   or a warp per line, at most 8 blocks an SM (grid-stride); dim[1] is then
   1 and each step launches its sweeps in flight on y. */
void fdx_loop_launch_shape(const fdx_loop *l, const loop_geom *g, int sm_count, unsigned dim[3], unsigned block[2])
{
    int64_t cap = (int64_t)sm_count * 8;
    dim[0] = dim[1] = dim[2] = 1;
    if (g->grid) {
        int64_t c[3];
        fdx_loop_grid_chunks(g, c);
        int64_t lim[3] = {INT_MAX, 65535, 65535};
        for (int q = 0; q < 3; q++) c[q] = c[q] < 1 ? 1 : c[q] < lim[q] ? c[q] : lim[q];
        for (int q = 2; l->nreds && q >= 0; q--) {
            int64_t rest = c[0] * c[1] * c[2] / c[q];
            int64_t want = cap / rest > 1 ? cap / rest : 1;
            if (c[q] > want) c[q] = want;
        }
        for (int q = 0; q < 3; q++) dim[q] = (unsigned)c[q];
        block[0] = (unsigned)g->bx, block[1] = (unsigned)g->by;
        return;
    }
    int64_t e = 1;
    for (int d = 0; d < g->rank; d++)
        if (d != g->solved && d != g->seq && !(g->lines && d == g->fast)) e *= g->n[d];
    /* a diagonal walk by lines: a warp per diagonal of (fast, diag2) */
    if (g->lines && g->diag2 >= 0) e = e / g->n[g->diag2] * (g->n[g->fast] + g->n[g->diag2] - 1);
    if (g->lines) e *= 32;
    int64_t nblk = (e + g->block - 1) / g->block;
    if (nblk > cap) nblk = cap;
    if (nblk < 1) nblk = 1;
    dim[0] = (unsigned)nblk;
    block[0] = (unsigned)g->block, block[1] = 1;
}

/* Everything the launches of a run depend on: two runs with equal keys
   launch the same kernels with the same arguments, so the second may
   replay the first's graph. */
typedef struct launch_key {
    fdx_kernel *k;
    void *ptr[FDX_LOOP_MAX_ARGS], *pv, *pl;
    double sc[LOOP_MAX_SCALARS];
    long long ri[LOOP_RI_COUNT];
    long long steps;
    int times;
    unsigned dim[3], block[2];
} launch_key;

static void graph_slot_drop(fdx_loop *l, int q)
{
    fdx_loop_graph_free(l->graph[q], NULL);
    l->graph[q] = NULL;
    free(l->graph_key[q]);
    l->graph_key[q] = NULL;
    l->graph_used[q] = 0;
}

void fdx_loop_graph_drop(fdx_loop *l)
{
    for (int q = 0; q < LOOP_GRAPHS; q++) graph_slot_drop(l, q);
}

/* Graphs pay for runs of many launches (ACROSS: a launch per hyperplane)
   that repeat; FDX_LOOP_GRAPH=0 launches every step. */
#define GRAPH_MIN_LAUNCHES 8

/* The steps [T0, T1) of the geometry, each a launch with its sweeps in flight on y
   (*T and *s0: the addresses the kernel's arguments name). */
static fdx_status launch_steps(const fdx_loop *l, const loop_geom *g, fdx_kernel *k, void **args, long long *T,
                               long long *s0, const launch_key *key, long long T0, long long T1, void *stream)
{
    const fdx_backend *be = fdx_ctx_ops(l->ctx);
    for (*T = T0 > 0 ? T0 : 0; *T <= key->steps && *T < T1; (*T)++) {
        long long slo = *T > g->tmax ? (*T - g->tmax + g->dist - 1) / g->dist : 0;
        long long shi = *T / g->dist;
        if (shi > key->times - 1) shi = key->times - 1;
        if (slo > shi) continue;
        *s0 = slo;
        /* the grid kernel runs parallel loops: one sweep a step */
        fdx_launch_dims dims = {{key->dim[0], g->grid ? key->dim[1] : (unsigned)(shi - slo + 1), key->dim[2]},
                                {key->block[0], key->block[1], 1},
                                0};
        FDX_TRY(be->launch(k, &dims, args, stream));
    }
    return FDX_OK;
}

/* A run's launches: replayed from the loop's graph for the key when it
   has one, captured into one when the key was seen before (the second run
   with it), else launched and the key remembered.  Graphs are kept for up
   to LOOP_GRAPHS keys, least recently used out: the portions of a
   distributed ACROSS sweep differ in their lower bounds, so each portion
   has its key and, from the third sweep on, replays its graph instead of
   a launch per hyperplane (with one graph, as before, the keys of
   successive portions evicted each other and every portion launched its
   hundreds of hyperplanes one by one: ~5 ms a portion on an H200, the
   host launching both units' portions in turn). */
static fdx_status launch_run(fdx_loop *l, const loop_geom *g, fdx_kernel *k, void **args, long long *T, long long *s0,
                             const launch_key *key, void *stream)
{
    if (l->graph_off || key->steps + 1 < GRAPH_MIN_LAUNCHES || fdx_knob_is(FDX_KNOB_LOOP_GRAPH, "0"))
        return launch_steps(l, g, k, args, T, s0, key, 0, LLONG_MAX, stream);
    int q = -1;
    for (int i = 0; i < LOOP_GRAPHS && q < 0; i++)
        if (l->graph_key[i] && memcmp(l->graph_key[i], key, sizeof *key) == 0) q = i;
    if (q < 0) {
        /* first run with this key: remembered in a free or the least
           recently used slot */
        q = 0;
        for (int i = 0; i < LOOP_GRAPHS; i++) {
            if (!l->graph_key[i]) {
                q = i;
                break;
            }
            if (l->graph_used[i] < l->graph_used[q]) q = i;
        }
        graph_slot_drop(l, q);
        l->graph_key[q] = malloc(sizeof *key);
        if (l->graph_key[q]) memcpy(l->graph_key[q], key, sizeof *key);
        l->graph_used[q] = ++l->graph_clock;
        return launch_steps(l, g, k, args, T, s0, key, 0, LLONG_MAX, stream);
    }
    l->graph_used[q] = ++l->graph_clock;
    if (!l->graph[q]) {
        fdx_status st = fdx_loop_graph_begin(&l->graph_stream);
        if (st == FDX_OK) {
            st = launch_steps(l, g, k, args, T, s0, key, 0, LLONG_MAX, l->graph_stream);
            fdx_status end = fdx_loop_graph_end(l->graph_stream, st == FDX_OK, &l->graph[q]);
            if (st == FDX_OK) st = end;
        }
        if (st != FDX_OK || !l->graph[q]) {
            FDX_INFO("loop '%s': launching every step (no graph: %s)", l->name, fdx_last_error());
            l->graph_off = 1;
            return launch_steps(l, g, k, args, T, s0, key, 0, LLONG_MAX, stream);
        }
    }
    return fdx_loop_graph_launch(l->graph[q], stream);
}

static int on_cuda(const fdx_loop *l) { return fdx_ctx_backend(l->ctx) == FDX_BACKEND_CUDA; }

static void launch_release(loop_launch *L)
{
    free(L->hv);
    free(L->hl);
    L->hv = NULL, L->hl = NULL;
}

/* Everything the launches of a run need: the kernel for the current
   layouts, the launch shape, the arguments, and the reduction partials
   set to their identities (on the device for CUDA). */
static fdx_status launch_prepare(fdx_loop *l, const loop_geom *g, int times, void *user_stream, loop_launch *L)
{
    const fdx_backend *be = fdx_ctx_ops(l->ctx);
    int cuda = on_cuda(l);
    memset(L, 0, sizeof *L);
    L->g = *g;
    L->times = times;
    L->stream = cuda ? fdx_ctx_stream(l->ctx, user_stream) : NULL;
    char *src = NULL;
    FDX_TRY(cuda ? fdx_loop_gen_cuda(l, g, &src) : fdx_loop_gen_cpu(l, g, &src));
    fdx_status st = kernel_for(l, src, cuda ? "fdx_loop_kernel" : "fdx_loop_entry", &L->k);
    free(src);
    FDX_TRY(st);
    L->dim[0] = L->dim[1] = L->dim[2] = 1;
    L->block[0] = L->block[1] = 1;
    if (cuda) fdx_loop_launch_shape(l, g, fdx_ctx_device(l->ctx)->sm_count, L->dim, L->block);
    L->nblk = (int64_t)L->dim[0] * L->dim[1] * L->dim[2];
    if (cuda && g->coop && !l->coop_bar) {
        /* the grid barrier's counter (it returns to its value after every
           barrier) and the blocks' work counter (back to zero at the end
           of every launch): zero once */
        FDX_TRY(be->alloc(16, &l->coop_bar));
        FDX_TRY(be->memset(l->coop_bar, 0, 16, L->stream));
    }
    memcpy(L->sc, l->scalar, sizeof L->sc);
    runtime_ints(l, L->ri);
    for (int a = 0; a < l->nargs; a++) L->ptr[a] = l->arg[a].array->device;
    if (!l->nreds) return FDX_OK;
    FDX_TRY(partials_init(l, (size_t)times * (size_t)L->nblk, L));
    if (!cuda) return FDX_OK;
    size_t need = L->count * (sizeof(double) + sizeof(long long));
    if (need > l->partials_bytes) {
        if (l->partials) be->free(l->partials);
        l->partials = NULL;
        l->partials_bytes = 0;
        FDX_TRY_GOTO(st, be->alloc(need, &l->partials), fail);
        l->partials_bytes = need;
    }
    L->pv = l->partials;
    L->pl = (char *)l->partials + L->count * sizeof(double);
    FDX_TRY_GOTO(st, be->copy(L->pv, L->hv, L->count * sizeof(double), FDX_COPY_H2D, L->stream), fail);
    FDX_TRY_GOTO(st, be->copy(L->pl, L->hl, L->count * sizeof(long long), FDX_COPY_H2D, L->stream), fail);
    return FDX_OK;
fail:
    launch_release(L);
    return st;
}

/* The steps [T0, T1) of the run as one cooperative launch (geometry coop):
   the kernel walks them with a grid-wide barrier between two, each step's
   blocks those of the launch per step (dim[0] x its sweeps in flight);
   as many blocks as that shape takes at most (FDX_LOOP_COOP_SM: at most
   that many a multiprocessor), the backend cutting the grid to the
   blocks resident at once. */
static fdx_status launch_coop(fdx_loop *l, loop_launch *L, void **args, int n, long long T0, long long T1)
{
    long long steps = L->g.tmax + L->g.dist * (L->times - 1);
    long long t0 = T0 > 0 ? T0 : 0, t1 = T1 < steps + 1 ? T1 : steps + 1, smax = L->times - 1;
    if (t0 >= t1) return FDX_OK;
    unsigned vgx = L->dim[0];
    void *bar = l->coop_bar;
    long long inflight = (L->g.tmax + L->g.dist) / L->g.dist;
    if (inflight > L->times) inflight = L->times;
    long long want = (long long)vgx * inflight;
    /* FDX_LOOP_COOP_SM: fewer blocks a multiprocessor (a cheaper barrier,
       less latency hidden) than the occupancy allows */
    long long cap = fdx_knob_int(FDX_KNOB_LOOP_COOP_SM, 1, 64, 0) * (long long)fdx_ctx_device(l->ctx)->sm_count;
    if (cap > 0 && want > cap) want = cap;
    args[n++] = L->sc;
    args[n++] = L->ri;
    args[n++] = &t0;
    args[n++] = &t1;
    args[n++] = &smax;
    args[n++] = &vgx;
    args[n++] = &bar;
    args[n++] = &L->pv;
    args[n++] = &L->pl;
    fdx_launch_dims dims = {{want < UINT_MAX ? (unsigned)want : UINT_MAX, 1, 1}, {L->block[0], L->block[1], 1}, 0,
                            l->coop_share > 1 ? l->coop_share : 1};
    return fdx_ctx_ops(l->ctx)->launch(L->k, &dims, args, L->stream);
}

/* The steps [T0, T1) of the run (whole: all of them, replayed from a
   graph where one pays).  The CPU kernel walks the steps itself. */
static fdx_status launch_range(fdx_loop *l, loop_launch *L, long long T0, long long T1, int whole)
{
    const fdx_backend *be = fdx_ctx_ops(l->ctx);
    void *args[FDX_LOOP_MAX_ARGS + 9];
    int n = 0;
    for (int a = 0; a < l->nargs; a++) args[n++] = &L->ptr[a];
    if (!on_cuda(l)) {
        double *sc = L->sc, dummy_v = 0, *rv = l->nreds ? L->hv : &dummy_v;
        long long dummy_l = 0, *rl = l->nreds ? L->hl : &dummy_l, *rip = L->ri;
        int times = L->times;
        L->ri[LOOP_RI_STEPS] = T0;
        L->ri[LOOP_RI_STEPS + 1] = T1;
        args[n++] = &sc;
        args[n++] = &times;
        args[n++] = &rv;
        args[n++] = &rl;
        args[n++] = &rip;
        fdx_launch_dims dims = {{1, 1, 1}, {1, 1, 1}, 0};
        FDX_TRY(be->launch(L->k, &dims, args, NULL));
        if (rl[l->nreds ? L->count : 0] == -2)
            return fdx_fail(FDX_ERR_NOMEM, "loop '%s': out of memory for reduction accumulators", l->name);
        return FDX_OK;
    }
    if (L->g.coop) return launch_coop(l, L, args, n, T0, T1);
    long long T = 0, s0 = 0;
    args[n++] = L->sc;
    args[n++] = L->ri;
    args[n++] = &T;
    args[n++] = &s0;
    args[n++] = &L->pv;
    args[n++] = &L->pl;
    launch_key key;
    memset(&key, 0, sizeof key);
    key.k = L->k;
    memcpy(key.ptr, L->ptr, sizeof(void *) * (size_t)l->nargs);
    key.pv = L->pv, key.pl = L->pl;
    memcpy(key.sc, L->sc, sizeof key.sc);
    memcpy(key.ri, L->ri, sizeof key.ri);
    key.steps = L->g.tmax + L->g.dist * (L->times - 1);
    key.times = L->times;
    memcpy(key.dim, L->dim, sizeof key.dim);
    memcpy(key.block, L->block, sizeof key.block);
    if (whole) return launch_run(l, &L->g, L->k, args, &T, &s0, &key, L->stream);
    return launch_steps(l, &L->g, L->k, args, &T, &s0, &key, T0, T1, L->stream);
}

/* After the launches: the last sweep's reductions folded, or left on the
   device for fdx_loop_finish (a deferred run); takes the partials. */
static fdx_status launch_complete(fdx_loop *l, loop_launch *L, void *user_stream)
{
    const fdx_backend *be = fdx_ctx_ops(l->ctx);
    fdx_status st = FDX_OK;
    size_t first = (size_t)(L->times - 1) * (size_t)L->nblk;
    if (l->nreds && l->defer) {
        l->pending = 1, l->pend_stream = L->stream, l->pend_count = L->count;
        l->pend_first = first, l->pend_blocks = (size_t)L->nblk;
        l->pend_v = L->hv, l->pend_l = L->hl;
        L->hv = NULL, L->hl = NULL;
        return FDX_OK;
    }
    if (l->nreds && on_cuda(l)) {
        st = be->copy(L->hv, L->pv, L->count * sizeof(double), FDX_COPY_D2H, L->stream);
        if (st == FDX_OK) st = be->copy(L->hl, L->pl, L->count * sizeof(long long), FDX_COPY_D2H, L->stream);
        if (st == FDX_OK) st = be->stream_sync(L->stream);
    } else if (on_cuda(l) && !user_stream && !fdx_ctx_get_stream(l->ctx)) {
        /* NULL means "wait" only without a context stream: with one, later
           work on that stream is ordered after this run anyway */
        st = be->stream_sync(L->stream);
    }
    if (st == FDX_OK && l->nreds) partials_fold(l, L->hv, L->hl, first, (size_t)L->nblk);
    launch_release(L);
    return st;
}

int fdx_loop_pending(const fdx_loop *l) { return l->pending; }

fdx_status fdx_loop_finish(fdx_loop *l)
{
    if (!l->pending) return FDX_OK;
    l->pending = 0;
    fdx_status st = FDX_OK;
    if (on_cuda(l)) {
        const fdx_backend *be = fdx_ctx_ops(l->ctx);
        void *pv = l->partials, *pl = (char *)l->partials + l->pend_count * sizeof(double);
        st = be->copy(l->pend_v, pv, l->pend_count * sizeof(double), FDX_COPY_D2H, l->pend_stream);
        if (st == FDX_OK) st = be->copy(l->pend_l, pl, l->pend_count * sizeof(long long), FDX_COPY_D2H, l->pend_stream);
        if (st == FDX_OK) st = be->stream_sync(l->pend_stream);
    }
    if (st == FDX_OK) partials_fold(l, l->pend_v, l->pend_l, l->pend_first, l->pend_blocks);
    free(l->pend_v);
    free(l->pend_l);
    l->pend_v = NULL, l->pend_l = NULL;
    return st;
}

fdx_status fdx_loop_run_deferred(fdx_loop *l, int times, void *stream)
{
    FDX_CHECK(l, FDX_ERR_INVALID, "fdx_loop_run_deferred: loop is NULL");
    l->defer = 1;
    fdx_status st = fdx_loop_run_repeated(l, times, stream);
    l->defer = 0;
    return st;
}

/* Before a run's launches: the last deferred results, the plan, the
   arrays current on the context's side and moved to the planned layouts. */
static fdx_status run_prologue(fdx_loop *l, int times, void *stream, loop_geom *g)
{
    FDX_CHECK(l, FDX_ERR_INVALID, "fdx_loop_run: loop is NULL");
    FDX_CHECK(!l->in_parts, FDX_ERR_INVALID, "loop '%s': a run in parts is under way", l->name);
    /* a deferred run's results first: its partials share the scratch */
    if (l->pending) FDX_TRY(fdx_loop_finish(l));
    FDX_CHECK(times >= 1, FDX_ERR_INVALID, "loop '%s': repetition count %d is below 1", l->name, times);
    FDX_CHECK(l->body, FDX_ERR_INVALID, "loop '%s' has no body (fdx_loop_body)", l->name);
    fdx_loop_decision d;
    FDX_TRY(fdx_loop_decide(l, FDX_BACKEND_AUTO, &d, g));
    for (int a = 0; a < l->nargs; a++) FDX_TRY(fdx_loop_actual_before(l->arg[a].array));
    return fdx_loop_apply(l, &d, stream);
}

static void run_epilogue(fdx_loop *l)
{
    for (int a = 0; a < l->nargs; a++)
        if (l->arg[a].access & FDX_WRITE) fdx_loop_actual_written(l->arg[a].array);
}

fdx_status fdx_loop_run_repeated(fdx_loop *l, int times, void *stream)
{
    loop_geom g;
    FDX_TRY(run_prologue(l, times, stream, &g));
    loop_launch L;
    FDX_TRY(launch_prepare(l, &g, times, stream, &L));
    fdx_status st = launch_range(l, &L, 0, LLONG_MAX, 1);
    if (st == FDX_OK) st = launch_complete(l, &L, stream);
    launch_release(&L);
    FDX_TRY(st);
    run_epilogue(l);
    return FDX_OK;
}

fdx_status fdx_loop_run(fdx_loop *l, void *stream) { return fdx_loop_run_repeated(l, 1, stream); }

/* ---- a run in parts (distributed ACROSS: fdx_dacross.c) ---------------------- */

fdx_status fdx_loop_steps_begin(fdx_loop *l, int times, void *stream, long long *last)
{
    loop_geom g;
    FDX_TRY(run_prologue(l, times, stream, &g));
    FDX_TRY(launch_prepare(l, &g, times, stream, &l->part));
    l->in_parts = 1;
    *last = g.tmax + g.dist * (times - 1);
    return FDX_OK;
}

fdx_status fdx_loop_steps(fdx_loop *l, long long T0, long long T1)
{
    FDX_CHECK(l->in_parts, FDX_ERR_INTERNAL, "loop '%s': steps outside a run in parts", l->name);
    return T0 < T1 ? launch_range(l, &l->part, T0, T1, 0) : FDX_OK;
}

fdx_status fdx_loop_steps_end(fdx_loop *l)
{
    if (!l->in_parts) return FDX_OK;
    l->in_parts = 0;
    int defer = l->defer;
    l->defer = 1;
    fdx_status st = launch_complete(l, &l->part, l->part.stream);
    l->defer = defer;
    launch_release(&l->part);
    FDX_TRY(st);
    run_epilogue(l);
    return FDX_OK;
}
