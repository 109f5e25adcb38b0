/* fdx_dloop: loops of the loop runtime on distributed arrays: one fdx_loop
   per local unit over the part of the global range it owns, the body in
   global indices (each array's accessor subtracts its block's origin),
   stale shadows of read arrays renewed first, reductions folded over units
   and ranks in a fixed order so that every unit gets the same result. */
#include "comm/fdx_dloop_impl.h"
#include "core/fdx_knob.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

fdx_status fdx_dloop_create(fdx_dist *d, const char *indices, fdx_dloop **out)
{
    FDX_CHECK(d && indices && out, FDX_ERR_INVALID, "fdx_dloop_create: NULL argument");
    *out = NULL;
    fdx_dloop *l = calloc(1, sizeof *l);
    FDX_CHECK(l, FDX_ERR_NOMEM, "no memory for a distributed loop");
    l->dist = d;
    fdx_status st = FDX_OK;
    for (int i = 0; st == FDX_OK && i < d->nlocal; i++) {
        st = fdx_dist_use(d, i);
        /* autotfm as the context says: exchanges, faces and gathers read
           blocks through their layouts */
        if (st == FDX_OK) st = fdx_loop_create(d->ctx[i], indices, &l->loop[i]);
        /* FDX_DLOOP_AUTOTFM=off keeps the blocks plain (comparisons with
           the one-unit path, which keeps the context's setting) */
        if (st == FDX_OK && fdx_knob_is(FDX_KNOB_DLOOP_AUTOTFM, "off")) st = fdx_loop_set_autotfm(l->loop[i], 0);
    }
    l->nidx = 1;
    for (const char *c = indices; *c; c++) l->nidx += *c == ',';
    for (int a = 0; a < FDX_DIST_MAX_RANK; a++) l->dir[a] = 1;
    if (st == FDX_OK && l->nidx != d->desc.rank)
        st = fdx_fail(FDX_ERR_INVALID, "distributed loop over %d indices ('%s') on arrays of rank %d", l->nidx, indices,
                      d->desc.rank);
    if (st != FDX_OK) {
        fdx_dloop_destroy(&l);
        return st;
    }
    *out = l;
    return FDX_OK;
}

void fdx_dloop_destroy(fdx_dloop **pl)
{
    if (!pl || !*pl) return;
    fdx_dremote_free(*pl);
    for (int i = 0; i < (*pl)->dist->nlocal; i++) fdx_loop_destroy(&(*pl)->loop[i]);
    free(*pl);
    *pl = NULL;
}

fdx_status fdx_dloop_range(fdx_dloop *l, const int64_t *lo, const int64_t *hi)
{
    FDX_CHECK(l && lo && hi, FDX_ERR_INVALID, "fdx_dloop_range: NULL argument");
    for (int a = 0; a < l->nidx; a++)
        FDX_CHECK(lo[a] >= 0 && hi[a] <= l->dist->desc.shape[a] && lo[a] < hi[a], FDX_ERR_INVALID,
                  "distributed loop range %lld..%lld of index %d is empty or outside the grid (0..%lld)",
                  (long long)lo[a], (long long)hi[a], a, (long long)l->dist->desc.shape[a]);
    memcpy(l->lo, lo, sizeof(int64_t) * (size_t)l->nidx);
    memcpy(l->hi, hi, sizeof(int64_t) * (size_t)l->nidx);
    l->has_range = 1;
    return FDX_OK;
}

void fdx_dloop_global_range(const fdx_dloop *l, int64_t *lo, int64_t *hi)
{
    for (int a = 0; a < 3; a++) {
        int in = a < l->nidx;
        lo[a] = in && l->has_range ? l->lo[a] : 0;
        hi[a] = in && l->has_range ? l->hi[a] : in ? l->dist->desc.shape[a] : 1;
    }
}

fdx_status fdx_dloop_array(fdx_dloop *l, const char *name, fdx_darray *a, fdx_access access)
{
    return fdx_dloop_array_aligned(l, name, a, access, NULL);
}

fdx_status fdx_dloop_array_aligned(fdx_dloop *l, const char *name, fdx_darray *a, fdx_access access,
                                   const int64_t *shift)
{
    FDX_CHECK(l && name && a, FDX_ERR_INVALID, "fdx_dloop_array: NULL argument");
    FDX_CHECK(a->dist == l->dist, FDX_ERR_INVALID, "array '%s' belongs to another distribution", name);
    FDX_CHECK(l->narr < FDX_LOOP_MAX_ARGS, FDX_ERR_INVALID, "more than %d arrays in a distributed loop",
              FDX_LOOP_MAX_ARGS);
    for (int i = 0; i < l->dist->nlocal; i++) {
        FDX_TRY(fdx_loop_array(l->loop[i], name, a->unit[i].local, access));
        /* global indices in the body: the block starts at its origin (the
           component axis, first when there is one, is not distributed) */
        int with = a->ncomp > 1;
        int64_t origin[FDX_DIST_MAX_RANK + 1] = {0};
        for (int ax = 0; ax < l->dist->desc.rank; ax++) origin[ax + with] = a->unit[i].origin[ax] - (shift ? shift[ax] : 0);
        FDX_TRY(fdx_loop_array_origin(l->loop[i], name, origin));
    }
    l->arr[l->narr] = a;
    l->acc[l->narr++] = access;
    return FDX_OK;
}

fdx_status fdx_dloop_scalar(fdx_dloop *l, const char *name, double value)
{
    FDX_CHECK(l, FDX_ERR_INVALID, "fdx_dloop_scalar: NULL loop");
    for (int i = 0; i < l->dist->nlocal; i++) FDX_TRY(fdx_loop_scalar(l->loop[i], name, value));
    return FDX_OK;
}

fdx_status fdx_dloop_reduction_typed(fdx_dloop *l, const char *name, fdx_reduce op, fdx_dtype type)
{
    FDX_CHECK(l && name, FDX_ERR_INVALID, "fdx_dloop_reduction: NULL argument");
    for (int i = 0; i < l->dist->nlocal; i++) FDX_TRY(fdx_loop_reduction_typed(l->loop[i], name, op, type));
    /* the unit loops checked name, op and type and kept the same order */
    l->red[l->nred++] = l->loop[0]->red[l->loop[0]->nreds - 1];
    return FDX_OK;
}

fdx_status fdx_dloop_reduction(fdx_dloop *l, const char *name, fdx_reduce op)
{
    return fdx_dloop_reduction_typed(l, name, op, FDX_FLOAT64);
}

fdx_status fdx_dloop_across(fdx_dloop *l, const int *low, const int *high)
{
    FDX_CHECK(l && low && high, FDX_ERR_INVALID, "fdx_dloop_across: NULL argument");
    int any = 0;
    for (int i = 0; i < l->dist->nlocal; i++) FDX_TRY(fdx_loop_across_widths(l->loop[i], low, high));
    for (int a = 0; a < l->nidx; a++) {
        l->wlo[a] = low[a], l->whi[a] = high[a];
        any |= low[a] > 0 || high[a] > 0;
    }
    l->across = any;
    return FDX_OK;
}

fdx_status fdx_dloop_order(fdx_dloop *l, const int *dir)
{
    FDX_CHECK(l && dir, FDX_ERR_INVALID, "fdx_dloop_order: NULL argument");
    for (int i = 0; i < l->dist->nlocal; i++) FDX_TRY(fdx_loop_order(l->loop[i], dir));
    for (int a = 0; a < l->nidx; a++) l->dir[a] = dir[a];
    return FDX_OK;
}

fdx_status fdx_dloop_set_portions(fdx_dloop *l, int portions)
{
    FDX_CHECK(l && portions >= 0, FDX_ERR_INVALID, "fdx_dloop_set_portions: NULL loop or negative count %d", portions);
    l->portions_set = portions;
    return FDX_OK;
}

fdx_status fdx_dloop_body(fdx_dloop *l, const char *body)
{
    FDX_CHECK(l, FDX_ERR_INVALID, "fdx_dloop_body: NULL loop");
    for (int i = 0; i < l->dist->nlocal; i++) FDX_TRY(fdx_loop_body(l->loop[i], body));
    return FDX_OK;
}

fdx_status fdx_dloop_renew(fdx_dloop *l)
{
    for (int k = 0; k < l->narr; k++)
        if ((l->acc[k] & FDX_READ) && l->arr[k]->stale) {
            FDX_TRY(fdx_darray_exchange(l->arr[k]));
            l->arr[k]->stale = 0;
            l->exchanges++;
        }
    return FDX_OK;
}

void fdx_dloop_mark_written(fdx_dloop *l)
{
    for (int k = 0; k < l->narr; k++)
        if (l->acc[k] & FDX_WRITE) l->arr[k]->stale = 1;
}

/* ---- reductions --------------------------------------------------------------
   Each reduction keeps (value, 64-bit slot) as the loop runtime does: the
   exact value of integer reductions, or the global linear iteration (in the
   loop's order) of a _LOC extreme, so ties resolve as on one unit. */

void fdx_dloop_red_start(fdx_dloop *l)
{
    for (int r = 0; r < l->nred; r++) {
        l->red[r].value = fdx_loop_red_identity(l->red[r].op);
        l->red[r].lin = l->red[r].ivalue = fdx_loop_red_identity_int(&l->red[r]);
    }
}

static int64_t global_lin(const fdx_dloop *l, const int64_t *idx)
{
    int64_t lo[3], hi[3], lin = 0;
    fdx_dloop_global_range(l, lo, hi);
    for (int a = l->nidx - 1; a >= 0; a--)
        lin = lin * (hi[a] - lo[a]) + (l->dir[a] > 0 ? idx[a] - lo[a] : hi[a] - 1 - idx[a]);
    return lin;
}

static void global_loc(const fdx_dloop *l, int64_t lin, int64_t *loc)
{
    int64_t lo[3], hi[3];
    fdx_dloop_global_range(l, lo, hi);
    for (int a = 0; a < l->nidx; a++) {
        int64_t n = hi[a] - lo[a], x = lin % n;
        loc[a] = l->dir[a] > 0 ? lo[a] + x : hi[a] - 1 - x;
        lin /= n;
    }
}

/* The slot of reduction r: the value of integer ones, else the location. */
static int64_t *slot(loop_red *r) { return fdx_loop_red_is_int(r) ? &r->ivalue : &r->lin; }

fdx_status fdx_dloop_red_fold_unit(fdx_dloop *l, int i)
{
    for (int r = 0; r < l->nred; r++) {
        loop_red *g = &l->red[r];
        const loop_red *u = &l->loop[i]->red[r];
        int64_t s = fdx_loop_red_is_int(u) ? u->ivalue : 0;
        if (fdx_loop_red_is_loc(u->op) && u->lin != INT64_MAX) {
            int64_t loc[FDX_LOOP_MAX_RANK];
            double v;
            FDX_TRY(fdx_loop_result(l->loop[i], u->name, &v, loc));
            s = global_lin(l, loc);
        } else if (fdx_loop_red_is_loc(u->op)) {
            s = INT64_MAX;
        }
        fdx_loop_red_fold(g, u->value, s, &g->value, slot(g));
    }
    return FDX_OK;
}

/* Every process's partials, folded in rank order on every process. */
fdx_status fdx_dloop_red_finish(fdx_dloop *l)
{
    fdx_dist *d = l->dist;
    if (!l->nred || d->procs == 1) return FDX_OK;
    typedef struct {
        double v;
        int64_t s;
    } part;
    part mine[LOOP_MAX_REDS];
    for (int r = 0; r < l->nred; r++) mine[r] = (part){l->red[r].value, *slot(&l->red[r])};
    part *all = malloc(sizeof(part) * LOOP_MAX_REDS * (size_t)d->procs);
    FDX_CHECK(all, FDX_ERR_NOMEM, "out of memory combining reductions of %d processes", d->procs);
    fdx_status st = fdx_mpi_allgather(d->comm_mpi, mine, sizeof mine, all);
    if (st == FDX_OK) {
        fdx_dloop_red_start(l);
        for (int p = 0; p < d->procs; p++)
            for (int r = 0; r < l->nred; r++)
                fdx_loop_red_fold(&l->red[r], all[p * LOOP_MAX_REDS + r].v, all[p * LOOP_MAX_REDS + r].s,
                                  &l->red[r].value, slot(&l->red[r]));
    }
    free(all);
    return st;
}

/* ---- runs --------------------------------------------------------------------- */

/* Unit i's last run's reductions, waited for and folded (its range is
   still the run's, which the loc conversion needs). */
fdx_status fdx_dloop_finish_unit(fdx_dloop *l, int i)
{
    if (!fdx_loop_pending(l->loop[i])) return FDX_OK;
    FDX_TRY(fdx_dist_use(l->dist, i));
    FDX_TRY(fdx_loop_finish(l->loop[i]));
    return fdx_dloop_red_fold_unit(l, i);
}

fdx_status fdx_dloop_finish_all(fdx_dloop *l)
{
    for (int i = 0; i < l->dist->nlocal; i++) FDX_TRY(fdx_dloop_finish_unit(l, i));
    return FDX_OK;
}

/* Runs are deferred: with reductions the host goes on queueing other
   units' work and waits for a unit's results only before its next run or
   at the end, so units overlap on their devices. */
fdx_status fdx_dloop_run_box(fdx_dloop *l, int i, const int64_t *lo, const int64_t *hi, int times)
{
    fdx_dist *d = l->dist;
    for (int a = 0; a < l->nidx; a++)
        if (hi[a] <= lo[a]) return FDX_OK;
    FDX_TRY(fdx_dloop_finish_unit(l, i));
    FDX_TRY(fdx_dist_use(d, i));
    FDX_TRY(fdx_loop_range(l->loop[i], lo, hi));
    return fdx_loop_run_deferred(l->loop[i], times, d->compute[i]);
}

/* Unit i's owned part of the global range. */
static void owned_box(const fdx_dloop *l, int i, int64_t *lo, int64_t *hi)
{
    const fdx_dist *d = l->dist;
    int64_t olo[3] = {0, 0, 0}, ohi[3] = {1, 1, 1}, glo[3], ghi[3];
    fdx_dist_owned(d, d->proc * d->nlocal + i, olo, ohi);
    fdx_dloop_global_range(l, glo, ghi);
    for (int a = 0; a < 3; a++) {
        lo[a] = glo[a] > olo[a] ? glo[a] : olo[a];
        hi[a] = ghi[a] < ohi[a] ? ghi[a] : ohi[a];
    }
}

/* Every array's shadows hold what the widths read across split axes. */
static fdx_status check_across(const fdx_dloop *l)
{
    const fdx_dist_desc *dd = &l->dist->desc;
    for (int k = 0; k < l->narr; k++)
        for (int a = 0; a < l->nidx; a++) {
            const fdx_darray *x = l->arr[k];
            FDX_CHECK(dd->grid[a] == 1 || (l->wlo[a] <= x->shadow_lo[a] && l->whi[a] <= x->shadow_hi[a]),
                      FDX_ERR_INVALID,
                      "distributed ACROSS loop: widths %d:%d on split axis %d exceed the shadow widths %d:%d of array %d",
                      l->wlo[a], l->whi[a], a, x->shadow_lo[a], x->shadow_hi[a], k);
        }
    return FDX_OK;
}

/* Sweeps need nothing from other units between them when no split axis
   carries a dependence (ACROSS widths 0 there) or nothing is split: then
   each unit runs all sweeps in one call, and the loop runtime pipelines
   them (fdx sor --gpus 1 costs what the plain path costs). */
static int sweeps_together(const fdx_dloop *l)
{
    for (int a = 0; a < l->nidx; a++)
        if (l->dist->desc.grid[a] > 1 && (!l->across || l->wlo[a] > 0 || l->whi[a] > 0)) return 0;
    return 1;
}

fdx_status fdx_dloop_run_repeated(fdx_dloop *l, int times)
{
    FDX_CHECK(l, FDX_ERR_INVALID, "fdx_dloop_run: NULL loop");
    FDX_CHECK(l->narr > 0, FDX_ERR_INVALID, "a distributed loop needs at least one distributed array");
    FDX_CHECK(times >= 1, FDX_ERR_INVALID, "distributed loop: repetition count %d is below 1", times);
    fdx_dist *d = l->dist;
    if (l->across) FDX_TRY(check_across(l));
    /* remote values change only when the loop writes their array */
    int refetch = 0;
    for (int r = 0; r < l->nremote; r++)
        for (int k = 0; k < l->narr; k++) refetch |= l->arr[k] == l->remote[r].src && (l->acc[k] & FDX_WRITE);
    if (times > 1 && sweeps_together(l) && !refetch) {
        FDX_TRY(fdx_dremote_fetch(l));
        FDX_TRY(fdx_dloop_renew(l));
        fdx_dloop_red_start(l);
        l->portions_used = 1;
        for (int i = 0; i < d->nlocal; i++) {
            int64_t lo[3], hi[3];
            owned_box(l, i, lo, hi);
            FDX_TRY(fdx_dloop_run_box(l, i, lo, hi, times));
        }
        FDX_TRY(fdx_dloop_finish_all(l));
        fdx_dloop_mark_written(l);
        return fdx_dloop_red_finish(l);
    }
    /* ACROSS: all sweeps in flight through the units at once, unless the
       remote values must be fetched again between sweeps */
    int in_flight = l->across && !refetch;
    for (int s = 0; s < (in_flight ? 1 : times); s++) {
        FDX_TRY(fdx_dremote_fetch(l));
        FDX_TRY(fdx_dloop_renew(l));
        fdx_dloop_red_start(l);
        if (l->across) {
            FDX_TRY(fdx_dacross_run(l, in_flight ? times : 1));
        } else {
            for (int i = 0; i < d->nlocal; i++) {
                int64_t lo[3], hi[3];
                owned_box(l, i, lo, hi);
                FDX_TRY(fdx_dloop_run_box(l, i, lo, hi, 1));
            }
        }
        FDX_TRY(fdx_dloop_finish_all(l));
        fdx_dloop_mark_written(l);
    }
    return fdx_dloop_red_finish(l);
}

fdx_status fdx_dloop_run(fdx_dloop *l) { return fdx_dloop_run_repeated(l, 1); }

static fdx_status find(const fdx_dloop *l, const char *name, int64_t *loc, const loop_red **out)
{
    FDX_CHECK(l && name, FDX_ERR_INVALID, "fdx_dloop_result: NULL argument");
    for (int r = 0; r < l->nred; r++) {
        if (strcmp(l->red[r].name, name) != 0) continue;
        FDX_CHECK(!loc || fdx_loop_red_is_loc(l->red[r].op), FDX_ERR_INVALID,
                  "distributed loop: reduction '%s' has no location (only maxloc and minloc keep one)", name);
        if (loc) global_loc(l, l->red[r].lin, loc);
        *out = &l->red[r];
        return FDX_OK;
    }
    return fdx_fail(FDX_ERR_INVALID, "no reduction named '%s' in the distributed loop", name);
}

fdx_status fdx_dloop_result_loc(const fdx_dloop *l, const char *name, double *value, int64_t *loc)
{
    const loop_red *r = NULL;
    FDX_CHECK(value, FDX_ERR_INVALID, "fdx_dloop_result: NULL value");
    FDX_TRY(find(l, name, loc, &r));
    *value = fdx_loop_red_is_int(r) ? (double)r->ivalue : r->value;
    return FDX_OK;
}

fdx_status fdx_dloop_result(const fdx_dloop *l, const char *name, double *value)
{
    return fdx_dloop_result_loc(l, name, value, NULL);
}

fdx_status fdx_dloop_result_int(const fdx_dloop *l, const char *name, int64_t *value, int64_t *loc)
{
    const loop_red *r = NULL;
    FDX_CHECK(value, FDX_ERR_INVALID, "fdx_dloop_result_int: NULL value");
    FDX_TRY(find(l, name, loc, &r));
    FDX_CHECK(r->type == FDX_INT32 || r->type == FDX_INT64, FDX_ERR_INVALID,
              "distributed loop: reduction '%s' is not an integer reduction", name);
    *value = fdx_loop_red_is_int(r) ? r->ivalue : (int64_t)r->value;
    return FDX_OK;
}

fdx_status fdx_dloop_set_autotfm(fdx_dloop *l, int mode)
{
    FDX_CHECK(l, FDX_ERR_INVALID, "fdx_dloop_set_autotfm: NULL loop");
    for (int i = 0; i < l->dist->nlocal; i++) FDX_TRY(fdx_loop_set_autotfm(l->loop[i], mode));
    return FDX_OK;
}

fdx_status fdx_dloop_plan_for(fdx_dloop *l, fdx_backend_kind target)
{
    FDX_CHECK(l, FDX_ERR_INVALID, "fdx_dloop_plan_for: NULL loop");
    for (int i = 0; i < l->dist->nlocal; i++) FDX_TRY(fdx_loop_plan_for(l->loop[i], target));
    return FDX_OK;
}

fdx_status fdx_dloop_move_stats(const fdx_dloop *l, fdx_loop_moves *out)
{
    FDX_CHECK(l && out, FDX_ERR_INVALID, "fdx_dloop_move_stats: NULL argument");
    memset(out, 0, sizeof *out);
    for (int i = 0; i < l->dist->nlocal; i++) {
        fdx_loop_moves m;
        FDX_TRY(fdx_loop_move_stats(l->loop[i], &m));
        out->transforms += m.transforms, out->relabels += m.relabels, out->bytes += m.bytes;
    }
    return FDX_OK;
}

int fdx_dloop_exchanges(const fdx_dloop *l) { return l ? l->exchanges : 0; }
int fdx_dloop_portions(const fdx_dloop *l) { return l ? l->portions_used : 0; }
