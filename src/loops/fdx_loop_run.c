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

/* Partials: [sweep][block][reduction], values and linear iterations. */
typedef struct partials {
    double *v;
    long long *l;
    size_t count;
} partials;

static fdx_status partials_init(fdx_loop *l, size_t slots, partials *h)
{
    h->count = slots * (size_t)l->nreds;
    h->v = malloc(sizeof(double) * (h->count + 1));
    h->l = malloc(sizeof(long long) * (h->count + 1));
    if (!h->v || !h->l) {
        free(h->v);
        free(h->l);
        return fdx_fail(FDX_ERR_NOMEM, "out of memory for %zu reduction partials of loop '%s'", h->count, l->name);
    }
    for (size_t q = 0; q < h->count; q++) {
        const loop_red *r = &l->red[q % (size_t)l->nreds];
        h->v[q] = fdx_loop_red_identity(r->op);
        h->l[q] = fdx_loop_red_identity_int(r);
    }
    h->v[h->count] = 0;
    h->l[h->count] = 0;
    return FDX_OK;
}

/* Results of the last sweep from its `blocks` partial slots. */
static void partials_fold(fdx_loop *l, const partials *h, size_t first_slot, size_t blocks)
{
    for (int r = 0; r < l->nreds; r++) {
        loop_red *red = &l->red[r];
        double v = fdx_loop_red_identity(red->op);
        int64_t lin = fdx_loop_red_identity_int(red);
        for (size_t b = 0; b < blocks; b++) {
            size_t q = (first_slot + b) * (size_t)l->nreds + (size_t)r;
            fdx_loop_red_fold(red, h->v[q], h->l[q], &v, &lin);
        }
        red->value = v;
        red->ivalue = fdx_loop_red_is_int(red) ? lin : 0;
        red->lin = fdx_loop_red_is_loc(red->op) ? lin : 0;
    }
}

/* The launch's run-time integers: lower bounds and shifted arrays' origins. */
static void runtime_ints(const fdx_loop *l, long long *ri)
{
    memset(ri, 0, sizeof(long long) * LOOP_RI_COUNT);
    for (int d = 0; d < l->rank; d++) ri[d] = l->lo[d];
    for (int a = 0; a < l->nargs; a++)
        for (int x = 0; x < l->arg[a].array->rank; x++) ri[LOOP_RI_ORIGIN + a * FDX_MAX_RANK + x] = l->arg[a].origin[x];
}

static fdx_status run_cpu(fdx_loop *l, const loop_geom *g, int times)
{
    char *src = NULL;
    FDX_TRY(fdx_loop_gen_cpu(l, g, &src));
    fdx_kernel *k = NULL;
    fdx_status st = kernel_for(l, src, "fdx_loop_entry", &k);
    free(src);
    FDX_TRY(st);
    partials h = {0};
    if (l->nreds) FDX_TRY(partials_init(l, (size_t)times, &h));
    void *ptr[FDX_LOOP_MAX_ARGS], *args[FDX_LOOP_MAX_ARGS + 5];
    long long ri[LOOP_RI_COUNT];
    long long *rip = ri;
    runtime_ints(l, ri);
    int n = 0;
    for (int a = 0; a < l->nargs; a++) {
        ptr[a] = l->arg[a].array->device;
        args[n++] = &ptr[a];
    }
    double *sc = l->scalar;
    args[n++] = &sc;
    args[n++] = &times;
    long long dummy_l = 0;
    double dummy_v = 0;
    double *rv = l->nreds ? h.v : &dummy_v;
    long long *rl = l->nreds ? h.l : &dummy_l;
    args[n++] = &rv;
    args[n++] = &rl;
    args[n++] = &rip;
    fdx_launch_dims dims = {{1, 1, 1}, {1, 1, 1}, 0};
    st = fdx_ctx_ops(l->ctx)->launch(k, &dims, args, NULL);
    /* the slot after the partials flags the accumulators' allocation failure */
    if (st == FDX_OK && rl[l->nreds ? h.count : 0] == -2) st = fdx_fail(FDX_ERR_NOMEM, "loop '%s': out of memory for reduction accumulators", l->name);
    if (st == FDX_OK && l->nreds && l->defer) {
        /* done already on the CPU; folded when finished, as on the GPU */
        l->pending = 1, l->pend_v = h.v, l->pend_l = h.l, l->pend_first = (size_t)(times - 1), l->pend_blocks = 1;
        return FDX_OK;
    }
    if (st == FDX_OK && l->nreds) partials_fold(l, &h, (size_t)(times - 1), 1);
    free(h.v);
    free(h.l);
    return st;
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

/* The steps of the geometry, each a launch with its sweeps in flight on y
   (*T and *s0: the addresses the kernel's arguments name). */
static fdx_status launch_steps(const fdx_loop *l, const loop_geom *g, fdx_kernel *k, void **args, long long *T,
                               long long *s0, const launch_key *key, void *stream)
{
    const fdx_backend *be = fdx_ctx_ops(l->ctx);
    for (*T = 0; *T <= key->steps; (*T)++) {
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
        return launch_steps(l, g, k, args, T, s0, key, stream);
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
        return launch_steps(l, g, k, args, T, s0, key, stream);
    }
    l->graph_used[q] = ++l->graph_clock;
    if (!l->graph[q]) {
        fdx_status st = fdx_loop_graph_begin(&l->graph_stream);
        if (st == FDX_OK) {
            st = launch_steps(l, g, k, args, T, s0, key, l->graph_stream);
            fdx_status end = fdx_loop_graph_end(l->graph_stream, st == FDX_OK, &l->graph[q]);
            if (st == FDX_OK) st = end;
        }
        if (st != FDX_OK || !l->graph[q]) {
            FDX_INFO("loop '%s': launching every step (no graph: %s)", l->name, fdx_last_error());
            l->graph_off = 1;
            return launch_steps(l, g, k, args, T, s0, key, stream);
        }
    }
    return fdx_loop_graph_launch(l->graph[q], stream);
}

static fdx_status run_cuda(fdx_loop *l, const loop_geom *g, int times, void *user_stream)
{
    void *stream = fdx_ctx_stream(l->ctx, user_stream);
    const fdx_backend *be = fdx_ctx_ops(l->ctx);
    char *src = NULL;
    FDX_TRY(fdx_loop_gen_cuda(l, g, &src));
    fdx_kernel *k = NULL;
    fdx_status st = kernel_for(l, src, "fdx_loop_kernel", &k);
    free(src);
    FDX_TRY(st);
    unsigned dim[3], block[2];
    fdx_loop_launch_shape(l, g, fdx_ctx_device(l->ctx)->sm_count, dim, block);
    int64_t nblk = (int64_t)dim[0] * dim[1] * dim[2];

    partials h = {0};
    void *pv = NULL, *pl = NULL;
    if (l->nreds) {
        FDX_TRY(partials_init(l, (size_t)times * (size_t)nblk, &h));
        size_t need = h.count * (sizeof(double) + sizeof(long long));
        if (need > l->partials_bytes) {
            if (l->partials) be->free(l->partials);
            l->partials = NULL;
            l->partials_bytes = 0;
            FDX_TRY_GOTO(st, be->alloc(need, &l->partials), done);
            l->partials_bytes = need;
        }
        pv = l->partials;
        pl = (char *)l->partials + h.count * sizeof(double);
        FDX_TRY_GOTO(st, be->copy(pv, h.v, h.count * sizeof(double), FDX_COPY_H2D, stream), done);
        FDX_TRY_GOTO(st, be->copy(pl, h.l, h.count * sizeof(long long), FDX_COPY_H2D, stream), done);
    }
    struct {
        double v[LOOP_MAX_SCALARS];
    } sc;
    memcpy(sc.v, l->scalar, sizeof sc.v);
    struct {
        long long v[LOOP_RI_COUNT];
    } ri;
    runtime_ints(l, ri.v);
    void *ptr[FDX_LOOP_MAX_ARGS], *args[FDX_LOOP_MAX_ARGS + 6];
    int n = 0;
    for (int a = 0; a < l->nargs; a++) {
        ptr[a] = l->arg[a].array->device;
        args[n++] = &ptr[a];
    }
    long long T = 0, s0 = 0;
    args[n++] = &sc;
    args[n++] = &ri;
    args[n++] = &T;
    args[n++] = &s0;
    args[n++] = &pv;
    args[n++] = &pl;
    launch_key key;
    memset(&key, 0, sizeof key);
    key.k = k;
    memcpy(key.ptr, ptr, sizeof(void *) * (size_t)l->nargs);
    key.pv = pv, key.pl = pl;
    memcpy(key.sc, sc.v, sizeof key.sc);
    memcpy(key.ri, ri.v, sizeof key.ri);
    key.steps = g->tmax + g->dist * (times - 1);
    key.times = times;
    memcpy(key.dim, dim, sizeof key.dim);
    memcpy(key.block, block, sizeof key.block);
    FDX_TRY_GOTO(st, launch_run(l, g, k, args, &T, &s0, &key, stream), done);
    if (l->nreds && l->defer) {
        /* the partials stay in l->partials until fdx_loop_finish */
        l->pending = 1, l->pend_stream = stream, l->pend_count = h.count;
        l->pend_first = (size_t)(times - 1) * (size_t)nblk, l->pend_blocks = (size_t)nblk;
        l->pend_v = h.v, l->pend_l = h.l;
        return FDX_OK;
    }
    if (l->nreds) {
        FDX_TRY_GOTO(st, be->copy(h.v, pv, h.count * sizeof(double), FDX_COPY_D2H, stream), done);
        FDX_TRY_GOTO(st, be->copy(h.l, pl, h.count * sizeof(long long), FDX_COPY_D2H, stream), done);
        FDX_TRY_GOTO(st, be->stream_sync(stream), done);
        partials_fold(l, &h, (size_t)(times - 1) * (size_t)nblk, (size_t)nblk);
    } else if (!user_stream && !fdx_ctx_get_stream(l->ctx)) {
        /* NULL means "wait" only without a context stream: with one, later
           work on that stream is ordered after this run anyway */
        FDX_TRY_GOTO(st, be->stream_sync(stream), done);
    }
done:
    free(h.v);
    free(h.l);
    return st;
}

int fdx_loop_pending(const fdx_loop *l) { return l->pending; }

fdx_status fdx_loop_finish(fdx_loop *l)
{
    if (!l->pending) return FDX_OK;
    l->pending = 0;
    fdx_status st = FDX_OK;
    if (fdx_ctx_backend(l->ctx) == FDX_BACKEND_CUDA) {
        const fdx_backend *be = fdx_ctx_ops(l->ctx);
        void *pv = l->partials, *pl = (char *)l->partials + l->pend_count * sizeof(double);
        st = be->copy(l->pend_v, pv, l->pend_count * sizeof(double), FDX_COPY_D2H, l->pend_stream);
        if (st == FDX_OK) st = be->copy(l->pend_l, pl, l->pend_count * sizeof(long long), FDX_COPY_D2H, l->pend_stream);
        if (st == FDX_OK) st = be->stream_sync(l->pend_stream);
    }
    if (st == FDX_OK) {
        partials h = {l->pend_v, l->pend_l, l->pend_count};
        partials_fold(l, &h, l->pend_first, l->pend_blocks);
    }
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

fdx_status fdx_loop_run_repeated(fdx_loop *l, int times, void *stream)
{
    FDX_CHECK(l, FDX_ERR_INVALID, "fdx_loop_run: loop is NULL");
    /* a deferred run's results first: its partials share the scratch */
    if (l->pending) FDX_TRY(fdx_loop_finish(l));
    FDX_CHECK(times >= 1, FDX_ERR_INVALID, "loop '%s': repetition count %d is below 1", l->name, times);
    FDX_CHECK(l->body, FDX_ERR_INVALID, "loop '%s' has no body (fdx_loop_body)", l->name);
    fdx_loop_decision d;
    loop_geom g;
    FDX_TRY(fdx_loop_decide(l, FDX_BACKEND_AUTO, &d, &g));
    for (int a = 0; a < l->nargs; a++) FDX_TRY(fdx_loop_actual_before(l->arg[a].array));
    FDX_TRY(fdx_loop_apply(l, &d, stream));
    fdx_status st = fdx_ctx_backend(l->ctx) == FDX_BACKEND_CUDA ? run_cuda(l, &g, times, stream) : run_cpu(l, &g, times);
    FDX_TRY(st);
    for (int a = 0; a < l->nargs; a++)
        if (l->arg[a].access & FDX_WRITE) fdx_loop_actual_written(l->arg[a].array);
    return FDX_OK;
}

fdx_status fdx_loop_run(fdx_loop *l, void *stream) { return fdx_loop_run_repeated(l, 1, stream); }
