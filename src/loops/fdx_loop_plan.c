/* fdx_loop_plan: the autotfm planner.  It picks the loop index for the
   fastest thread dimension, the hyperplane geometry of ACROSS loops, and for
   each array the layout under which neighbouring threads touch neighbouring
   elements: the thread index's axis stored fastest (a permutation), or for
   hyperplanes the anti-diagonal of the two fastest stored axes.  Layouts move
   on demand: an array stays as the last loop left it. */
#include "core/fdx_knob.h"
#include "loops/fdx_loop_impl.h"
#include "core/fdx_log.h"
#include "fdx/internal/clock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Below this many iterations a transform costs more than strided access. */
#define PLAN_MIN_POINTS 32768

/* The loop index that already walks the fastest stored axis of the most
   array uses; index 0 when none does (as DVMH maps the innermost loop). */
static int pick_fast(const fdx_loop *l)
{
    int score[FDX_LOOP_MAX_RANK] = {0}, best = 0;
    for (int a = 0; a < l->nargs; a++) {
        int d = l->arg[a].drive[l->arg[a].array->layout.perm[0]];
        if (d >= 0) score[d] += l->arg[a].uses;
    }
    for (int d = 1; d < l->rank; d++)
        if (score[d] > score[best]) best = d;
    return best;
}

/* Lines of the fast axis on warps when the fast and solved axes both lie in
   the plane: a line is fixed values of the other enumerated axes, and on it
   the fast index runs where the solved index stays in its box.  When exactly
   one line axis is in the plane, its range follows from t too.
   FDX_LOOP_LINES=0 keeps the flat enumeration (for comparisons). */
static void lines(loop_geom *g)
{
    if (!g->across || g->solved < 0 || g->solved == g->fast || !g->plane[g->fast] || fdx_knob_is(FDX_KNOB_LOOP_LINES, "0"))
        return;
    int64_t count = 1;
    int inplane = 0;
    for (int d = 0; d < g->rank; d++) {
        if (d == g->fast || d == g->solved || d == g->seq) continue;
        count *= g->n[d];
        if (g->plane[d] && inplane++ == 0) g->clip = d;
    }
    if (inplane > 1) g->clip = -1; /* a box of line axes; empty lines skipped */
    g->lines = count < ((int64_t)1 << 26); /* line x 32 lanes in 32 bits */
}

/* The diagonal kind on which x_f + x_s is constant for iteration offsets
   (lines of the hyperplane or of a diagonal enumeration): anti-diagonal of
   the array axes when the two indices run the same way, main otherwise. */
static fdx_diag diag_kind(const fdx_loop *l, int f, int s) { return l->dir[f] == l->dir[s] ? FDX_DIAG_ANTI : FDX_DIAG_MAIN; }

static int covers_both(const loop_arg *a, int f, int s)
{
    int hf = 0, hs = 0;
    for (int x = 0; x < a->array->rank; x++) hf |= a->drive[x] == f, hs |= a->drive[x] == s;
    return hf && hs;
}

/* A parallel loop on a GPU whose arrays already lie on the diagonals of
   the axes two of its indices drive (an ACROSS loop left them so) walks
   those diagonals instead of moving the arrays back: chosen when such
   arrays hold at least half the bytes of the arrays those two indices
   drive.  Returns 1 with the pair (fast, second). */
static int pick_diag(const fdx_loop *l, int *fast, int *second)
{
    double best = 0, weight[FDX_LOOP_MAX_RANK][FDX_LOOP_MAX_RANK] = {{0}};
    int bf = -1, bs = -1;
    for (int a = 0; a < l->nargs; a++) {
        const loop_arg *g = &l->arg[a];
        const fdx_layout *lay = &g->array->layout;
        if (lay->diag == FDX_DIAG_NONE) continue;
        int f = g->drive[lay->perm[0]], s = g->drive[lay->perm[1]];
        if (f < 0 || s < 0 || f == s || lay->diag != diag_kind(l, f, s)) continue;
        weight[f][s] += (double)fdx_array_bytes(g->array);
        if (weight[f][s] > best) best = weight[f][s], bf = f, bs = s;
    }
    if (bf < 0) return 0;
    double all = 0;
    for (int a = 0; a < l->nargs; a++)
        if (covers_both(&l->arg[a], bf, bs)) all += (double)fdx_array_bytes(l->arg[a].array);
    if (2 * best < all) return 0;
    *fast = bf, *second = bs;
    return 1;
}

/* A knob's value among `allowed` (powers of two), else `dflt`. */
static int knob_int(fdx_knob_id k, int lo, int hi, int dflt)
{
    const char *v = fdx_knob(k);
    char *end = NULL;
    long x = v ? strtol(v, &end, 10) : 0;
    if (!v || *end || x < lo || x > hi || (x & (x - 1))) return dflt;
    return (int)x;
}

/* The CUDA kernel's shape.  Parallel loops without a diagonal walk run the
   grid kernel (FDX_LOOP_KERNEL=flat: the grid-stride enumeration, kept for
   comparisons): blocks of 256 threads, bx of them along the fast axis (a
   power of two covering short axes, so a 100-point axis does not idle 60%
   of a 256-thread block), the others along the march axis (the last
   enumerated one), each thread walking ppt consecutive points of it.
   ppt (FDX_LOOP_PPT) defaults to 4 for short bodies (stencil-like: the
   unrolled points share their neighbours' loads) and 1 for long ones
   (register pressure, compile time).  Hyperplanes one thread a point
   (flat ACROSS) default to blocks of 64 threads (FDX_LOOP_BLOCK): a plane
   of a few thousand heavy points then spreads over every SM instead of
   crowding a few, each SM's FP64 units serving fewer warps. */
static void kernel_shape(const fdx_loop *l, loop_geom *g)
{
    g->march = -1;
    g->ppt = g->by = 1;
    g->block = g->bx = 256;
    if (g->across && !g->lines) g->block = 64;
    g->block = knob_int(FDX_KNOB_LOOP_BLOCK, 32, 256, g->block);
    /* FDX_LOOP_DIAG=lines: the diagonal walk a warp per diagonal (lanes
       along it, no square root or division a point; lanes idle on short
       diagonals) instead of a thread per point of the walk */
    if (g->diag2 >= 0 && fdx_knob_is(FDX_KNOB_LOOP_DIAG, "lines")) g->lines = 1;
    if (g->across || g->diag2 >= 0 || fdx_knob_is(FDX_KNOB_LOOP_KERNEL, "flat")) return;
    g->grid = 1;
    for (int d = 0; d < g->rank; d++)
        if (d != g->fast) g->march = d;
    int64_t nf = g->n[g->fast];
    g->bx = 32;
    while (g->bx < 256 && g->bx < nf) g->bx *= 2;
    g->by = g->march >= 0 ? 256 / g->bx : 1;
    g->block = g->bx * g->by;
    int uses = 0;
    for (int a = 0; a < l->nargs; a++) uses += l->arg[a].uses;
    int small = l->body && strlen(l->body) < 1024 && uses <= 24;
    if (g->march >= 0) g->ppt = knob_int(FDX_KNOB_LOOP_PPT, 1, 16, small ? 4 : 1);
}

static void geometry(const fdx_loop *l, fdx_backend_kind target, loop_geom *g)
{
    memset(g, 0, sizeof *g);
    g->rank = l->rank;
    for (int d = 0; d < l->rank; d++) {
        g->lo[d] = l->lo[d];
        g->n[d] = l->hi[d] - l->lo[d];
    }
    g->fast = pick_fast(l);
    g->solved = g->seq = g->clip = g->diag2 = -1;
    g->dist = 1;
    if (!l->across && target == FDX_BACKEND_CUDA && l->rank >= 2) {
        int f, s;
        if (pick_diag(l, &f, &s)) g->fast = f, g->diag2 = s;
    }
    if (!l->across) {
        kernel_shape(l, g);
        return;
    }
    g->across = 1;
    int wmax = 0;
    for (int d = 0; d < l->rank; d++) wmax = l->width[d] > wmax ? l->width[d] : wmax;
    g->dist = wmax + 1;
    /* distributed ACROSS: sweeps further apart (slack between exchanges) */
    if (l->dist_min > g->dist) g->dist = l->dist_min;
    /* The CPU walks the fast index sequentially inside each point of the
       plane (contiguous lines); the GPU puts every dependent index in t, as
       the CPU does for an index split over units (plane_axes). */
    if (target == FDX_BACKEND_CPU && l->width[g->fast] > 0 && !(l->plane_axes >> g->fast & 1)) g->seq = g->fast;
    for (int d = 0; d < l->rank; d++) {
        g->plane[d] = l->width[d] > 0 && d != g->seq;
        if (g->plane[d]) g->tmax += g->n[d] - 1;
    }
    for (int d = 0; d < l->rank && g->solved < 0; d++)
        if (g->plane[d] && d != g->fast) g->solved = d;
    if (g->solved < 0 && g->plane[g->fast]) g->solved = g->fast;
    lines(g);
    kernel_shape(l, g);
    g->coop = target == FDX_BACKEND_CUDA && !g->grid ? (int)fdx_knob_int(FDX_KNOB_LOOP_COOP, 0, 2, 0) : 0;
}

static int axis_driven_by(const loop_arg *a, int d)
{
    for (int x = 0; x < a->array->rank; x++)
        if (a->drive[x] == d) return x;
    return -1;
}

static int64_t stored_stride(const fdx_array *a, int axis)
{
    int64_t s = 1;
    for (int p = 0; p < a->rank && a->layout.perm[p] != axis; p++) s *= a->shape[a->layout.perm[p]];
    return s;
}

static void want_layout(const fdx_loop *l, const loop_geom *g, const loop_arg *a, fdx_layout *to, char *why,
                        size_t cap)
{
    const fdx_layout *from = &a->array->layout;
    *to = *from;
    int af = axis_driven_by(a, g->fast);
    if (af < 0) {
        snprintf(why, cap, "no axis of %s follows thread index %s", a->name, l->index[g->fast]);
        return;
    }
    int as = -1, second = g->diag2 >= 0 ? g->diag2 : g->solved;
    if (((g->across && g->plane[g->fast] && g->solved != g->fast) || g->diag2 >= 0) && a->array->rank >= 2)
        as = axis_driven_by(a, second);
    int first[2] = {af, as}, nfirst = as >= 0 ? 2 : 1, p = 0;
    for (int k = 0; k < nfirst; k++) to->perm[p++] = first[k];
    for (int q = 0; q < from->rank; q++)
        if (from->perm[q] != af && from->perm[q] != as) to->perm[p++] = from->perm[q];
    /* Opposite orders on the two axes walk x - y = const: the main diagonal. */
    to->diag = as < 0 ? FDX_DIAG_NONE : diag_kind(l, g->fast, second);
    if (as >= 0)
        snprintf(why, cap, "%s: thread index %s walks the %s diagonal of axes %d,%d of %s",
                 g->across ? "hyperplanes" : "diagonal enumeration", l->index[g->fast],
                 to->diag == FDX_DIAG_MAIN ? "main" : "anti", af, as, a->name);
    else if (from->diag == FDX_DIAG_NONE && from->perm[0] == af) *to = *from;
    else
        snprintf(why, cap, "thread index %s drives axis %d of %s, stride %lld elements%s", l->index[g->fast], af,
                 a->name, (long long)stored_stride(a->array, af), from->diag ? " on a diagonal" : "");
    if (memcmp(to->perm, from->perm, sizeof(int) * (size_t)from->rank) == 0 && to->diag == from->diag)
        snprintf(why, cap, "%s is already laid out for thread index %s", a->name, l->index[g->fast]);
}

/* The loop only writes the array and writes every element of it: each
   axis named by its own loop index alone, the range covering the axis. */
static int overwritten(const fdx_loop *l, const loop_arg *a)
{
    if (a->access != FDX_WRITE || !a->exact || !a->uses) return 0;
    int seen = 0;
    for (int x = 0; x < a->array->rank; x++) {
        int d = a->drive[x];
        if (d < 0 || (seen >> d) & 1) return 0;
        seen |= 1 << d;
        int64_t o = a->shifted ? a->origin[x] : 0;
        if (l->lo[d] - o != 0 || l->hi[d] - o != a->array->shape[x]) return 0;
    }
    return 1;
}

fdx_status fdx_loop_decide(fdx_loop *l, fdx_backend_kind target, fdx_loop_decision *d, loop_geom *g)
{
    FDX_CHECK(l->have_range, FDX_ERR_INVALID, "loop '%s' has no range: call fdx_loop_range or fdx_loop_on", l->name);
    if (!l->analyzed) FDX_TRY(fdx_loop_analyze(l));
    if (target == FDX_BACKEND_AUTO) target = l->plan_target;
    if (target == FDX_BACKEND_AUTO) target = fdx_ctx_backend(l->ctx);
    /* Layouts follow the plan target; the geometry, the backend that runs. */
    loop_geom gp;
    geometry(l, target, &gp);
    geometry(l, fdx_ctx_backend(l->ctx), g);
    memset(d, 0, sizeof *d);
    d->thread_index = g->fast;
    d->diag_index = gp.diag2;
    d->across = g->across;
    d->narrays = l->nargs;
    int64_t points = 1;
    for (int k = 0; k < l->rank; k++) points *= g->n[k];
    for (int a = 0; a < l->nargs; a++) {
        const loop_arg *arg = &l->arg[a];
        d->array[a].from = d->array[a].to = arg->array->layout;
        char *why = d->array[a].why;
        size_t cap = sizeof d->array[a].why;
        if (target != FDX_BACKEND_CUDA) {
            snprintf(why, cap, "CPU: the inner loop follows the layout, nothing moves");
        } else if (!l->autotfm) {
            snprintf(why, cap, "autotfm off");
        } else if (arg->array->borrowed) {
            snprintf(why, cap, "%s wraps the caller's memory: its layout stays the caller's", arg->name);
        } else if (points < PLAN_MIN_POINTS && l->autotfm != 2) {
            snprintf(why, cap, "loop of %lld points is too small to repay moving %s", (long long)points, arg->name);
        } else {
            want_layout(l, &gp, arg, &d->array[a].to, why, cap);
            d->array[a].moved = memcmp(&d->array[a].to, &d->array[a].from, sizeof(fdx_layout)) != 0;
            d->array[a].relabel = d->array[a].moved && overwritten(l, arg);
        }
    }
    return FDX_OK;
}

fdx_status fdx_loop_plan(fdx_loop *l, fdx_backend_kind target, fdx_loop_decision *out)
{
    FDX_CHECK(l && out, FDX_ERR_INVALID, "fdx_loop_plan: NULL argument");
    loop_geom g;
    return fdx_loop_decide(l, target, out, &g);
}

static void layout_text(const fdx_layout *l, char *buf, size_t cap)
{
    int n = snprintf(buf, cap, "(");
    for (int p = 0; p < l->rank && n > 0 && (size_t)n < cap; p++)
        n += snprintf(buf + n, cap - (size_t)n, "%s%d", p ? "," : "", l->perm[p]);
    if (n > 0 && (size_t)n < cap) snprintf(buf + n, cap - (size_t)n, ")%s%s", l->diag ? " diag " : "", l->diag ? fdx_diag_name(l->diag) : "");
}

fdx_status fdx_loop_apply(fdx_loop *l, const fdx_loop_decision *d, void *stream)
{
    /* the per-move time is the work's only when the move is waited for */
    int timed = fdx_log_get_level() <= FDX_LOG_INFO;
    void *s = fdx_ctx_stream(l->ctx, stream);
    for (int a = 0; a < d->narrays; a++) {
        fdx_array *arr = l->arg[a].array;
        char from[64], to[64];
        layout_text(&d->array[a].from, from, sizeof from);
        if (!d->array[a].moved) {
            FDX_DEBUG("loop '%s': %s stays %s: %s", l->name, l->arg[a].name, from, d->array[a].why);
            continue;
        }
        layout_text(&d->array[a].to, to, sizeof to);
        double t0 = fdx_now_s();
        int64_t bytes = 0;
        FDX_TRY(fdx_loop_move(l, arr, &d->array[a].to, d->array[a].relabel, s, &bytes));
        if (timed && bytes) FDX_TRY(fdx_ctx_ops(l->ctx)->stream_sync(s));
        double ms = (fdx_now_s() - t0) * 1e3;
        if (d->array[a].relabel)
            FDX_INFO("loop '%s': autotfm relabelled %s %s -> %s (%s; written whole, nothing moved)", l->name,
                     l->arg[a].name, from, to, d->array[a].why);
        else
            FDX_INFO("loop '%s': autotfm moved %s %s -> %s (%s); %.1f MB in %.3f ms", l->name, l->arg[a].name, from,
                     to, d->array[a].why, (double)fdx_array_bytes(arr) / 1e6, ms);
    }
    return FDX_OK;
}

fdx_status fdx_loop_geometry(fdx_loop *l, fdx_backend_kind target, loop_geom *g)
{
    FDX_CHECK(l && g, FDX_ERR_INVALID, "fdx_loop_geometry: NULL argument");
    FDX_CHECK(l->have_range, FDX_ERR_INVALID, "loop '%s' has no range: call fdx_loop_range or fdx_loop_on", l->name);
    if (!l->analyzed) FDX_TRY(fdx_loop_analyze(l));
    geometry(l, target, g);
    return FDX_OK;
}

fdx_status fdx_loop_source(fdx_loop *l, fdx_backend_kind target, char **out)
{
    FDX_CHECK(l && out, FDX_ERR_INVALID, "fdx_loop_source: NULL argument");
    loop_geom g;
    FDX_TRY(fdx_loop_geometry(l, target, &g));
    return target == FDX_BACKEND_CUDA ? fdx_loop_gen_cuda(l, &g, out) : fdx_loop_gen_cpu(l, &g, out);
}
