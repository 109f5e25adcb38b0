/* fdx_dloop: loops of the loop runtime on distributed arrays: one fdx_loop
   per local unit over the part of the global range it owns, stale shadows
   of read arrays renewed first, reductions combined over units and ranks. */
#include "comm/fdx_comm_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ARGS FDX_LOOP_MAX_ARGS

struct fdx_dloop {
    fdx_dist *dist;
    fdx_loop *loop[FDX_DIST_MAX_LOCAL];
    int nidx, has_range;
    int64_t lo[FDX_DIST_MAX_RANK], hi[FDX_DIST_MAX_RANK];
    int narr;
    fdx_darray *arr[MAX_ARGS];
    fdx_access acc[MAX_ARGS];
    int nred;
    char red_name[MAX_ARGS][64];
    fdx_reduce red_op[MAX_ARGS];
    double red_val[MAX_ARGS];
    int exchanges;
};

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
        if (st == FDX_OK) st = fdx_loop_create(d->ctx[i], indices, &l->loop[i]);
        /* Exchanges and gathers assume the plain layout of every block. */
        if (st == FDX_OK) st = fdx_loop_set_autotfm(l->loop[i], 0);
    }
    l->nidx = 1;
    for (const char *c = indices; *c; c++) l->nidx += *c == ',';
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
    for (int i = 0; i < (*pl)->dist->nlocal; i++) fdx_loop_destroy(&(*pl)->loop[i]);
    free(*pl);
    *pl = NULL;
}

fdx_status fdx_dloop_range(fdx_dloop *l, const int64_t *lo, const int64_t *hi)
{
    FDX_CHECK(l && lo && hi, FDX_ERR_INVALID, "fdx_dloop_range: NULL argument");
    for (int a = 0; a < l->nidx; a++)
        FDX_CHECK(lo[a] >= 0 && hi[a] <= l->dist->desc.shape[a], FDX_ERR_INVALID,
                  "distributed loop range %lld..%lld of index %d is outside the grid (0..%lld)", (long long)lo[a],
                  (long long)hi[a], a, (long long)l->dist->desc.shape[a]);
    memcpy(l->lo, lo, sizeof(int64_t) * (size_t)l->nidx);
    memcpy(l->hi, hi, sizeof(int64_t) * (size_t)l->nidx);
    l->has_range = 1;
    return FDX_OK;
}

fdx_status fdx_dloop_array(fdx_dloop *l, const char *name, fdx_darray *a, fdx_access access)
{
    FDX_CHECK(l && name && a, FDX_ERR_INVALID, "fdx_dloop_array: NULL argument");
    FDX_CHECK(a->dist == l->dist, FDX_ERR_INVALID, "array '%s' belongs to another distribution", name);
    FDX_CHECK(l->narr < MAX_ARGS, FDX_ERR_INVALID, "more than %d arrays in a distributed loop", MAX_ARGS);
    for (int i = 0; i < l->dist->nlocal; i++) FDX_TRY(fdx_loop_array(l->loop[i], name, a->unit[i].local, access));
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

fdx_status fdx_dloop_reduction(fdx_dloop *l, const char *name, fdx_reduce op)
{
    FDX_CHECK(l && name, FDX_ERR_INVALID, "fdx_dloop_reduction: NULL argument");
    FDX_CHECK(op == FDX_REDUCE_SUM || op == FDX_REDUCE_MAX || op == FDX_REDUCE_MIN, FDX_ERR_UNSUPPORTED,
              "reduction '%s': distributed loops combine sum, max and min (not the _LOC variants)", name);
    FDX_CHECK(l->nred < MAX_ARGS && strlen(name) < sizeof l->red_name[0], FDX_ERR_INVALID,
              "reduction '%s': too many or too long a name", name);
    for (int i = 0; i < l->dist->nlocal; i++) FDX_TRY(fdx_loop_reduction(l->loop[i], name, op));
    snprintf(l->red_name[l->nred], sizeof l->red_name[0], "%s", name);
    l->red_op[l->nred++] = op;
    return FDX_OK;
}

fdx_status fdx_dloop_body(fdx_dloop *l, const char *body)
{
    FDX_CHECK(l, FDX_ERR_INVALID, "fdx_dloop_body: NULL loop");
    for (int i = 0; i < l->dist->nlocal; i++) FDX_TRY(fdx_loop_body(l->loop[i], body));
    return FDX_OK;
}

/* The local range of unit i: the global range cut to what it owns, moved
   to its block's indices; 0 when empty. */
static int local_range(const fdx_dloop *l, int i, int64_t *lo, int64_t *hi)
{
    const fdx_dist *d = l->dist;
    int64_t olo[3] = {0, 0, 0}, ohi[3] = {1, 1, 1};
    fdx_dist_owned(d, d->proc * d->nlocal + i, olo, ohi);
    const fdx_unit_plan *p = &l->arr[0]->unit[i];
    for (int a = 0; a < l->nidx; a++) {
        int64_t glo = l->has_range ? l->lo[a] : 0, ghi = l->has_range ? l->hi[a] : d->desc.shape[a];
        lo[a] = (glo > olo[a] ? glo : olo[a]) - p->origin[a];
        hi[a] = (ghi < ohi[a] ? ghi : ohi[a]) - p->origin[a];
        if (hi[a] <= lo[a]) return 0;
    }
    return 1;
}

static double identity(fdx_reduce op) { return op == FDX_REDUCE_SUM ? 0 : op == FDX_REDUCE_MAX ? -INFINITY : INFINITY; }

static double combine(fdx_reduce op, double a, double b)
{
    if (op == FDX_REDUCE_SUM) return a + b;
    if (op == FDX_REDUCE_MAX) return b > a ? b : a;
    return b < a ? b : a;
}

fdx_status fdx_dloop_run(fdx_dloop *l)
{
    FDX_CHECK(l, FDX_ERR_INVALID, "fdx_dloop_run: NULL loop");
    FDX_CHECK(l->narr > 0, FDX_ERR_INVALID, "a distributed loop needs at least one distributed array");
    fdx_dist *d = l->dist;
    for (int k = 0; k < l->narr; k++)
        if ((l->acc[k] & FDX_READ) && l->arr[k]->stale) {
            FDX_TRY(fdx_darray_exchange(l->arr[k]));
            l->arr[k]->stale = 0;
            l->exchanges++;
        }
    for (int r = 0; r < l->nred; r++) l->red_val[r] = identity(l->red_op[r]);
    for (int i = 0; i < d->nlocal; i++) {
        int64_t lo[3], hi[3];
        if (!local_range(l, i, lo, hi)) continue;
        FDX_TRY(fdx_dist_use(d, i));
        FDX_TRY(fdx_loop_range(l->loop[i], lo, hi));
        FDX_TRY(fdx_loop_run(l->loop[i], d->compute[i]));
        for (int r = 0; r < l->nred; r++) {
            double v;
            FDX_TRY(fdx_loop_result(l->loop[i], l->red_name[r], &v, NULL));
            l->red_val[r] = combine(l->red_op[r], l->red_val[r], v);
        }
    }
    for (int k = 0; k < l->narr; k++)
        if (l->acc[k] & FDX_WRITE) l->arr[k]->stale = 1;
    for (int r = 0; r < l->nred; r++) {
        if (l->red_op[r] == FDX_REDUCE_SUM) FDX_TRY(fdx_mpi_sum_double(&l->red_val[r], 1));
        else FDX_TRY(fdx_mpi_extreme_double(&l->red_val[r], 1, l->red_op[r] == FDX_REDUCE_MAX));
    }
    return FDX_OK;
}

fdx_status fdx_dloop_result(const fdx_dloop *l, const char *name, double *value)
{
    FDX_CHECK(l && name && value, FDX_ERR_INVALID, "fdx_dloop_result: NULL argument");
    for (int r = 0; r < l->nred; r++)
        if (strcmp(l->red_name[r], name) == 0) {
            *value = l->red_val[r];
            return FDX_OK;
        }
    return fdx_fail(FDX_ERR_INVALID, "no reduction named '%s' in the distributed loop", name);
}

int fdx_dloop_exchanges(const fdx_dloop *l) { return l ? l->exchanges : 0; }
