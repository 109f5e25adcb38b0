/* fdx_dstencil: the stencil engine's updates on distributed arrays: each
   unit applies the stencil to its block (shadows as input), then the
   output's shadows are renewed; in overlap mode the slabs next to split
   faces go first and their exchange runs while the interior is computed. */
#include "comm/fdx_comm_impl.h"

#include <stdlib.h>

struct fdx_dstencil {
    fdx_dist *dist;
    int radius;
    fdx_stencil *s[FDX_DIST_MAX_LOCAL];
};

fdx_status fdx_dstencil_create(fdx_dist *d, const fdx_stencil_desc *desc, fdx_dtype type, fdx_dstencil **out)
{
    FDX_CHECK(d && desc && out, FDX_ERR_INVALID, "fdx_dstencil_create: NULL argument");
    FDX_CHECK(desc->rank == d->desc.rank, FDX_ERR_INVALID, "stencil of rank %d on a distribution of rank %d", desc->rank,
              d->desc.rank);
    *out = NULL;
    fdx_dstencil *s = calloc(1, sizeof *s);
    FDX_CHECK(s, FDX_ERR_NOMEM, "out of memory for a distributed stencil");
    s->dist = d;
    fdx_status st;
    for (int i = 0; i < d->nlocal; i++) {
        FDX_TRY_GOTO(st, fdx_dist_use(d, i), fail);
        FDX_TRY_GOTO(st, fdx_stencil_create(d->ctx[i], desc, type, &s->s[i]), fail);
    }
    s->radius = fdx_stencil_radius(s->s[0]);
    for (int a = 0; a < d->desc.rank; a++)
        if (d->desc.grid[a] > 1 && d->desc.shadow[a] < s->radius) {
            st = fdx_fail(FDX_ERR_INVALID, "axis %d is split with shadow width %d, less than the stencil's radius %d", a,
                          d->desc.shadow[a], s->radius);
            goto fail;
        }
    *out = s;
    return FDX_OK;
fail:
    fdx_dstencil_destroy(&s);
    return st;
}

void fdx_dstencil_destroy(fdx_dstencil **ps)
{
    if (!ps || !*ps) return;
    for (int i = 0; i < (*ps)->dist->nlocal; i++) fdx_stencil_destroy(&(*ps)->s[i]);
    free(*ps);
    *ps = NULL;
}

/* Rows [lo, hi) of the slowest axis of a local array, as an array of its
   own that shares the storage (slabs along the slowest axis are contiguous). */
static fdx_array view_rows(const fdx_array *a, int64_t lo, int64_t hi)
{
    fdx_array v = *a;
    int s = a->rank - 1;
    int64_t plane = a->count / a->shape[s];
    size_t off = (size_t)(lo * plane) * a->elem_size;
    v.shape[s] = hi - lo;
    v.count = plane * (hi - lo);
    if (v.device) v.device = (char *)v.device + off;
    if (v.host) v.host = (char *)v.host + off;
    return v;
}

typedef struct step_args {
    fdx_dstencil *s;
    fdx_darray *out, *u, *u_prev, *coef;
} step_args;

/* Applies unit i's stencil to write output rows [lo, hi) of the slowest
   axis (the whole block when lo < 0). */
static fdx_status apply_rows(const step_args *a, int i, int64_t lo, int64_t hi)
{
    fdx_dist *d = a->s->dist;
    fdx_array *o = a->out->unit[i].local, *u = a->u->unit[i].local;
    fdx_array *p = a->u_prev ? a->u_prev->unit[i].local : NULL, *c = a->coef ? a->coef->unit[i].local : NULL;
    if (lo < 0) return fdx_stencil_apply(a->s->s[i], o, u, p, c, d->compute[i]);
    if (hi <= lo) return FDX_OK;
    int r = a->s->radius;
    fdx_array vo = view_rows(o, lo - r, hi + r), vu = view_rows(u, lo - r, hi + r), vp, vc;
    if (p) vp = view_rows(p, lo - r, hi + r);
    if (c) vc = view_rows(c, lo - r, hi + r);
    return fdx_stencil_apply(a->s->s[i], &vo, &vu, p ? &vp : NULL, c ? &vc : NULL, d->compute[i]);
}

static fdx_status check_arrays(const step_args *a)
{
    fdx_darray *all[4] = {a->out, a->u, a->u_prev, a->coef};
    for (int k = 0; k < 4; k++)
        FDX_CHECK(!all[k] || all[k]->dist == a->s->dist, FDX_ERR_INVALID,
                  "fdx_dstencil_step: array %d belongs to another distribution", k);
    FDX_CHECK(a->out && a->u, FDX_ERR_INVALID, "fdx_dstencil_step: NULL output or input");
    return FDX_OK;
}

fdx_status fdx_dstencil_step(fdx_dstencil *s, fdx_darray *out, fdx_darray *u, fdx_darray *u_prev, fdx_darray *coef,
                             int overlap)
{
    FDX_CHECK(s, FDX_ERR_INVALID, "fdx_dstencil_step: NULL stencil");
    step_args a = {s, out, u, u_prev, coef};
    FDX_TRY(check_arrays(&a));
    fdx_dist *d = s->dist;
    int rank = d->desc.rank, S = rank - 1, r = s->radius, w = d->desc.shadow[S];
    /* Overlap needs the faces to be contiguous slabs: only the slowest axis split. */
    for (int ax = 0; ax < S; ax++) overlap &= d->desc.grid[ax] == 1;
    overlap &= d->desc.grid[S] > 1;

    int64_t ilo[FDX_DIST_MAX_LOCAL], ihi[FDX_DIST_MAX_LOCAL];
    for (int i = 0; i < d->nlocal; i++) {
        FDX_TRY(fdx_dist_use(d, i));
        fdx_unit_plan *p = &out->unit[i];
        int64_t L = p->n3[S];
        int lower = p->origin[S] > 0, upper = p->origin[S] + L < d->desc.shape[S];
        /* Output rows [r, L - r) are written; the slabs [w, 2w) and
           [L - 2w, L - w) are what the neighbours receive. */
        int64_t b_hi = lower ? (2 * w < L - r ? 2 * w : L - r) : r;
        int64_t t_lo = upper ? (L - 2 * w > r ? L - 2 * w : r) : L - r;
        if (!overlap || b_hi > t_lo) {
            FDX_TRY(apply_rows(&a, i, -1, -1));
            ilo[i] = ihi[i] = 0;
            continue;
        }
        if (lower) FDX_TRY(apply_rows(&a, i, w, b_hi));
        if (upper) FDX_TRY(apply_rows(&a, i, t_lo, L - w));
        ilo[i] = b_hi, ihi[i] = t_lo;
    }
    FDX_TRY(fdx_darray_exchange_begin(out));
    for (int i = 0; i < d->nlocal; i++) {
        if (ihi[i] <= ilo[i]) continue;
        FDX_TRY(fdx_dist_use(d, i));
        FDX_TRY(apply_rows(&a, i, ilo[i], ihi[i]));
    }
    return fdx_darray_exchange_end(out);
}
