/* fdx_dacross: a distributed ACROSS loop run as one wavefront in time over
   every unit, DVMH's pipelined ACROSS with the portions cut along the
   hyperplanes.

   One unit runs `times` sweeps as the loop runtime's wavefront: sweep s
   computes hyperplane t (t = sum of the plane indices' offsets, in the
   loop's order) at step t + dist * s, every sweep in flight at once.
   Distributed, every unit runs its block's wavefront shifted to the global
   one: its local plane t is the global plane t + off(u) (off: where its
   block starts along the split axes), so it runs its local step T at the
   global step G = T + off(u) + lag * base(u) (base: its distance from the
   upstream end, summed over the split axes with widths).  The units run
   the global steps in portions of B, and between two portions the written
   arrays' shadows are renewed (the ordinary split-phase exchange: events,
   peer copies, MPI messages, no host wait between local units).

   Why it is exact: a point p of unit A reads a point q of its neighbour B
   across the split axis at offset d (1 <= |d| <= w).  Upstream q (a new
   value, sweep s): B computed it at G_p - (|d| + lag); downstream q (an
   old value, sweep s - 1): at G_p - (dist - |d| - lag).  The shadow A reads
   in the portion [bB, bB + B) holding G_p is B's value at step bB, so it is
   the value wanted when each gap lies in [B, dist): lag = B - 1 and
   dist >= 2B + w - 1 (B = 1: dist = w + 1, the one-unit schedule).
   Renewed one portion late (FDX_DLOOP_LATE=1, fdx_dacross_late.c) the
   shadow read in portion b holds B's values at step (b - 1)B: q computed
   at G_q = G_p - gap must be in it for the portion's last step (gap >=
   2B) and not yet replaced by its next version G_q + dist for its first
   (gap <= dist + B), so lag = 2B - 1 and dist >= 4B + w - 1 (test_dacross
   shows both bounds tight: one step less and runs differ).  Reads
   along unsplit axes stay inside a block, and the dependences are
   star-shaped (the loop runtime refuses others), so no corner is read.

   So the host only queues: B launches a unit and one renewal a portion;
   the reductions' partials of every sweep stay on each device and are
   folded once at the end (fdx_dloop_finish_all).  The price: sweeps are
   dist apart instead of w + 1, i.e. (dist - w - 1) * (times - 1) more
   steps, and the upstream units' lag.  B: fdx_dloop_set_portions /
   FDX_DLOOP_PORTIONS (portions of a block's hyperplanes a sweep), else a
   model of launch and exchange cost (choose_portion). */
#include "comm/fdx_dloop_impl.h"
#include "comm/fdx_dacross_late.h"
#include "comm/fdx_dgraph.h"
#include "core/fdx_knob.h"
#include "core/fdx_log.h"
#include "fdx/internal/test_hooks.h"

#include <stdlib.h>
#include <string.h>

/* Split axes that carry a dependence: the units along them are coupled. */
static unsigned coupled_axes(const fdx_dloop *l)
{
    unsigned m = 0;
    for (int a = 0; a < l->nidx; a++)
        if (l->dist->desc.grid[a] > 1 && (l->wlo[a] > 0 || l->whi[a] > 0)) m |= 1u << a;
    return m;
}

/* Unit u's part of the loop's global range; 0 when empty. */
static int unit_box(const fdx_dloop *l, int u, int64_t *lo, int64_t *hi)
{
    int64_t olo[3] = {0, 0, 0}, ohi[3] = {1, 1, 1}, glo[3], ghi[3];
    fdx_dist_owned(l->dist, u, olo, ohi);
    fdx_dloop_global_range(l, glo, ghi);
    int empty = 0;
    for (int a = 0; a < 3; a++) {
        lo[a] = glo[a] > olo[a] ? glo[a] : olo[a];
        hi[a] = ghi[a] < ohi[a] ? ghi[a] : ohi[a];
        empty |= hi[a] <= lo[a];
    }
    return !empty;
}

/* Hyperplanes of a box for one sweep, less one (the loop runtime's tmax
   when every index with a width is a plane index). */
static int64_t box_tmax(const fdx_dloop *l, const int64_t *lo, const int64_t *hi)
{
    int64_t t = 0;
    for (int a = 0; a < l->nidx; a++)
        if (l->wlo[a] > 0 || l->whi[a] > 0) t += hi[a] - lo[a] - 1;
    return t;
}

static int widest(const fdx_dloop *l)
{
    int w = 0;
    for (int a = 0; a < l->nidx; a++) {
        if (l->wlo[a] > w) w = l->wlo[a];
        if (l->whi[a] > w) w = l->whi[a];
    }
    return w;
}

/* The sweeps' distance and the lag a unit's distance from the upstream
   end costs: B = 1 on time is the one-unit schedule; late renewals (the
   shadow one portion older) double the lag and add 2B to the distance. */
static int tighten_dist, tighten_lag;
void fdx_dacross_test_tighten(int dist_less, int lag_less) { tighten_dist = dist_less, tighten_lag = lag_less; }

static long long dist_for(int B, int w, int late)
{
    long long d = (late ? 4LL : 2LL) * B + w - 1;
    return (d > w + 1 ? d : w + 1) - tighten_dist;
}
static long long lag_for(int B, int late) { return (late ? 2LL * B - 1 : B - 1LL) - tighten_lag; }

/* Global steps of the whole run with portions of B steps. */
static long long run_steps(int64_t tg, int base_max, int B, int w, int times, int late)
{
    return tg + dist_for(B, w, late) * (times - 1) + lag_for(B, late) * base_max + 1;
}

/* The portion length B.  The model: a global step costs about a launch a
   local unit (the host queues them one after another; ~3 us on CUDA), a
   portion adds one renewal (CUDA: ~15 us of host calls a local unit plus
   ~20 us on the devices' critical path, pack, copy, unpack, event hops;
   ~200 us between processes); B trades the renewals (fewer with long
   portions) against the steps long portions add (sweeps 2B apart, 4B
   late, the upstream units' lag).  Session 8 measured ~6.5 us a step and
   ~43.5 us a renewal on 2 H200s (docs/notes/dist.md); the model's B was
   within 1% of the best there.  Not fitted to measurements yet (no GPU in the
   session that wrote it): FDX_DLOOP_PORTIONS or fdx_dloop_set_portions
   give P portions of a block's hyperplanes a sweep instead. */
static int choose_portion(const fdx_dloop *l, int times, int64_t tg, int64_t tunit, int base_max, int late)
{
    const fdx_dist *d = l->dist;
    int w = widest(l), P = l->portions_set;
    const char *env = fdx_knob(FDX_KNOB_DLOOP_PORTIONS);
    if (P <= 0 && env && atoi(env) > 0) P = atoi(env);
    if (P > 0) {
        int64_t B = (tunit + 1 + P - 1) / P;
        return B < 1 ? 1 : B > (1 << 20) ? 1 << 20 : (int)B;
    }
    int cuda = d->be->kind == FDX_BACKEND_CUDA;
    double c_step = (cuda ? 3.0 : 2.0) * d->nlocal;
    double c_renew = d->procs > 1 ? 200.0 : cuda ? 20.0 + 15.0 * d->nlocal : 3.0 * d->nlocal;
    /* late: a local pack and unpack a unit on the critical path, the host's calls */
    if (late) c_renew = cuda ? 5.0 + 10.0 * d->nlocal : 3.0 * d->nlocal;
    /* FDX_LOOP_COOP=1: a step is a grid barrier on each device (the units
       in parallel), a portion one more launch a unit */
    if (cuda && fdx_knob_int(FDX_KNOB_LOOP_COOP, 0, 2, 0) > 0) c_step = 1.5, c_renew += 4.0 * d->nlocal;
    int best = 1;
    double best_cost = 0;
    for (int B = 1; B <= 1024 && B <= tg + 1; B++) {
        long long n = run_steps(tg, base_max, B, w, times, late);
        double cost = (double)n * c_step + (double)((n + B - 1) / B) * c_renew;
        if (B == 1 || cost < best_cost) best = B, best_cost = cost;
    }
    return best;
}

/* One run's schedule: the portion length, where each local unit starts in
   global steps, the last global step; with each unit loop's launch, the
   key of a run that may replay a graph. */
typedef struct schedule {
    int times, B, late;
    long long start[FDX_DIST_MAX_LOCAL], end;
    int active[FDX_DIST_MAX_LOCAL];
    loop_launch unit[FDX_DIST_MAX_LOCAL]; /* the unit loops' launches, host partials left out */
} schedule;

typedef struct portions_arg {
    fdx_dloop *l;
    const schedule *s;
} portions_arg;

/* Every portion of the run: the written arrays' shadows renewed between
   portions, each unit's steps of the portion queued on its stream. */
static fdx_status run_portions(void *arg)
{
    const portions_arg *p = arg;
    fdx_dloop *l = p->l;
    const schedule *s = p->s;
    fdx_dist *d = l->dist;
    long long b = 0, nb = s->end / s->B + 1;
    for (long long G = 0; G <= s->end; G += s->B, b++) {
        for (int k = 0; !s->late && G > 0 && k < l->narr; k++)
            if (l->acc[k] & FDX_WRITE) FDX_TRY(fdx_darray_exchange(l->arr[k]));
        if (s->late) FDX_TRY(fdx_dlate_before(l->late, b));
        for (int i = 0; i < d->nlocal; i++) {
            if (!s->active[i]) continue;
            FDX_TRY(fdx_dist_use(d, i));
            FDX_TRY(fdx_loop_steps(l->loop[i], G - s->start[i], G - s->start[i] + s->B));
        }
        if (s->late && b + 2 < nb) FDX_TRY(fdx_dlate_after(l->late, b));
    }
    return s->late ? fdx_dlate_end(l->late, nb) : FDX_OK;
}

static int written_arrays(const fdx_dloop *l, fdx_darray **written)
{
    int n = 0;
    for (int k = 0; k < l->narr; k++)
        if (l->acc[k] & FDX_WRITE) written[n++] = l->arr[k];
    return n;
}

/* FDX_DLOOP_LATE=1: the renewal one portion late where it can be (one
   process; see fdx_dacross_late.c), its buffers made on the first run. */
static fdx_status want_late(fdx_dloop *l, int *late)
{
    fdx_darray *written[FDX_LOOP_MAX_ARGS];
    int n = written_arrays(l, written);
    int asked = fdx_knob_int(FDX_KNOB_DLOOP_LATE, 0, 1, 0) == 1;
    *late = asked && n > 0 && fdx_dlate_possible(l->dist, written, n);
    static int told;
    if (asked && !*late && !told++)
        FDX_INFO("distributed ACROSS: FDX_DLOOP_LATE=1 renews on time here (several processes, corner shadows or a periodic axis)");
    if (*late && !l->late) FDX_TRY(fdx_dlate_create(l->dist, written, n, &l->late));
    return FDX_OK;
}

/* FDX_DLOOP_GRAPH=1, one process on CUDA: a run equal to the last one (the
   same schedule, kernels, arguments, partial scratch) replays the graph
   captured the second time it came; the first time it runs directly (it
   compiles, allocates faces' buffers, moves layouts).  *done: the graph
   ran the portions. */
static fdx_status maybe_graph(fdx_dloop *l, schedule *s, int *done)
{
    *done = 0;
    if (l->graph_off || !fdx_knob_is(FDX_KNOB_DLOOP_GRAPH, "1") || !fdx_dgraph_possible(l->dist)) return FDX_OK;
    fdx_darray *written[FDX_LOOP_MAX_ARGS];
    int n = written_arrays(l, written);
    for (int i = 0; i < l->dist->nlocal; i++) {
        if (!s->active[i]) continue;
        s->unit[i] = l->loop[i]->part;
        s->unit[i].hv = NULL, s->unit[i].hl = NULL;
    }
    if (!l->graph_key || memcmp(l->graph_key, s, sizeof *s) != 0) {
        if (!l->graph_key) l->graph_key = malloc(sizeof *s);
        if (l->graph_key) memcpy(l->graph_key, s, sizeof *s);
        if (l->graph) fdx_dgraph_destroy(&l->graph);
        return FDX_OK;
    }
    if (!fdx_dgraph_ready(l->graph)) {
        if (!l->graph) FDX_TRY(fdx_dgraph_create(l->dist, &l->graph));
        portions_arg pa = {l, s};
        if (fdx_dgraph_capture(l->graph, run_portions, &pa, 1, written, n) != FDX_OK) {
            FDX_INFO("distributed ACROSS: no CUDA graph (%s); launching every step", fdx_last_error());
            l->graph_off = 1;
            return FDX_OK;
        }
    }
    *done = 1;
    return fdx_dgraph_launch(l->graph);
}

fdx_status fdx_dacross_run(fdx_dloop *l, int times)
{
    fdx_dist *d = l->dist;
    const fdx_dist_desc *dd = &d->desc;
    unsigned mask = coupled_axes(l);
    int w = widest(l), base_max = 0;
    int64_t glo[3], ghi[3], tg, tunit = 0;
    fdx_dloop_global_range(l, glo, ghi);
    tg = box_tmax(l, glo, ghi);
    for (int a = 0; a < 3; a++)
        if (mask >> a & 1) base_max += dd->grid[a] - 1;
    for (int u = 0; u < d->procs * d->nlocal; u++) {
        int64_t lo[3], hi[3];
        if (unit_box(l, u, lo, hi) && box_tmax(l, lo, hi) > tunit) tunit = box_tmax(l, lo, hi);
    }
    schedule *s = calloc(1, sizeof *s);
    FDX_CHECK(s, FDX_ERR_NOMEM, "out of memory for a distributed ACROSS schedule");
    s->times = times;
    fdx_status st = want_late(l, &s->late);
    s->B = choose_portion(l, times, tg, tunit, base_max, s->late);
    l->portions_used = (int)((tunit + s->B) / s->B);
    long long dist = dist_for(s->B, w, s->late), lag = lag_for(s->B, s->late);
    if (st == FDX_OK && dist >= (1LL << 30))
        st = fdx_fail(FDX_ERR_INVALID, "distributed ACROSS: portions of %d steps are too long", s->B);

    /* every local unit starts its run in parts at its global step */
    long long last[FDX_DIST_MAX_LOCAL];
    for (int i = 0; i < d->nlocal && st == FDX_OK; i++) {
        int u = d->proc * d->nlocal + i, c[3];
        int64_t lo[3], hi[3];
        if (!unit_box(l, u, lo, hi)) continue;
        fdx_dist_coords(d, u, c);
        long long off = 0, base = 0;
        for (int a = 0; a < 3; a++) {
            if (!(mask >> a & 1)) continue;
            off += l->dir[a] > 0 ? lo[a] - glo[a] : ghi[a] - hi[a];
            base += l->dir[a] > 0 ? c[a] : dd->grid[a] - 1 - c[a];
        }
        fdx_loop *ul = l->loop[i];
        ul->dist_min = (int)dist;
        ul->plane_axes = mask;
        /* units on one device run at once: their cooperative grids share it */
        ul->coop_share = 0;
        for (int j = 0; j < d->nlocal; j++) ul->coop_share += d->ordinal[j] == d->ordinal[i];
        st = fdx_dist_use(d, i);
        if (st == FDX_OK) st = fdx_loop_range(ul, lo, hi);
        if (st == FDX_OK) st = fdx_loop_steps_begin(ul, times, d->compute[i], &last[i]);
        if (st != FDX_OK) break;
        s->active[i] = 1;
        s->start[i] = off + lag * base;
        if (s->start[i] + last[i] > s->end) s->end = s->start[i] + last[i];
    }
    /* every process renews as often as the others */
    if (st == FDX_OK && d->procs > 1) {
        double e = (double)s->end;
        st = fdx_mpi_extreme_double(d->comm_mpi, &e, 1, 1);
        s->end = (long long)e;
    }
    int done = 0;
    if (st == FDX_OK) st = maybe_graph(l, s, &done);
    portions_arg pa = {l, s};
    if (st == FDX_OK && !done) st = run_portions(&pa);
    for (int i = 0; i < d->nlocal; i++) {
        if (!s->active[i]) continue;
        fdx_status e = fdx_dist_use(d, i);
        if (e == FDX_OK) e = fdx_loop_steps_end(l->loop[i]);
        if (st == FDX_OK) st = e;
    }
    free(s);
    return st;
}

void fdx_dacross_free(fdx_dloop *l)
{
    fdx_dgraph_destroy(&l->graph);
    fdx_dlate_destroy(&l->late);
    free(l->graph_key);
    l->graph_key = NULL;
}
