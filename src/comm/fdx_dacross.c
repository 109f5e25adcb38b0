/* fdx_dacross: one sweep of a distributed ACROSS loop, pipelined as DVMH
   runs it.  The shadows hold the old values when the sweep starts (the
   renewal before it).  An axis is a dependence chain when it is split and
   the loop reads new values across it (low width in ascending order, high
   width in descending order); the upstream neighbour on it is the one the
   sequential nest visits first.  Each block is cut into P portions along an
   axis that is not split; task (unit, portion m) runs at level
   m + sum over chains of the unit's upstream distance, so every task runs
   after the tasks it reads from (the same portion of its upstream
   neighbours, its own previous portion).  Before a task the unit receives
   its upstream neighbours' new boundary planes of that portion into its
   shadow; after it, it packs its own downstream face for the neighbours.
   Inside a block the loop runtime's hyperplanes run, so the result is the
   sequential nest's whatever the grid of units. */
#include "comm/fdx_dloop_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TAG_ACROSS 4096

static int64_t part_start(int64_t lo, int64_t n, int p, int c) { return lo + c * (n / p) + (c < n % p ? c : n % p); }

typedef struct plan {
    int chain[3];   /* 1: a dependence chain (split, reads new values across) */
    int paxis;      /* portion axis (-1: one portion) */
    int P;
    int64_t glo[3], ghi[3];
} plan;

static void make_plan(fdx_dloop *l, plan *p)
{
    const fdx_dist_desc *dd = &l->dist->desc;
    fdx_dloop_global_range(l, p->glo, p->ghi);
    int units_on_chain = 1;
    p->paxis = -1;
    for (int a = 0; a < 3; a++) {
        int up_width = a < l->nidx ? (l->dir[a] > 0 ? l->wlo[a] : l->whi[a]) : 0;
        p->chain[a] = a < l->nidx && dd->grid[a] > 1 && up_width > 0;
        if (p->chain[a]) units_on_chain += dd->grid[a] - 1;
    }
    /* the slowest axis that is not split: portions of whole lines and planes */
    for (int a = 0; a < l->nidx; a++)
        if (dd->grid[a] == 1) p->paxis = a;
    /* The model: with U units on the longest chain the pipeline fills in
       U - 1 portions; 4 portions per unit keep the idle fraction near
       (U - 1) / (P + U - 1) while portions stay large. */
    int P = units_on_chain > 1 ? 4 * (units_on_chain - 1) : 1;
    const char *env = getenv("FDX_DLOOP_PORTIONS");
    if (l->portions_set > 0) P = l->portions_set;
    else if (env && atoi(env) > 0) P = atoi(env);
    if (P > 200) P = 200; /* sends in flight per face: fdx_mpi_reqs of 256 */
    if (p->paxis < 0) P = 1;
    else if (P > p->ghi[p->paxis] - p->glo[p->paxis]) P = (int)(p->ghi[p->paxis] - p->glo[p->paxis]);
    p->P = P;
}

/* Portion m (in the loop's order) of the global range along the portion
   axis; the whole range on other axes. */
static void portion(const fdx_dloop *l, const plan *p, int m, int64_t *lo, int64_t *hi)
{
    memcpy(lo, p->glo, sizeof p->glo);
    memcpy(hi, p->ghi, sizeof p->ghi);
    if (p->paxis < 0) return;
    int a = p->paxis, c = l->dir[a] > 0 ? m : p->P - 1 - m;
    int64_t n = p->ghi[a] - p->glo[a];
    lo[a] = part_start(p->glo[a], n, p->P, c);
    hi[a] = part_start(p->glo[a], n, p->P, c + 1);
}

/* The task box of unit `unit` for portion m: its owned points in it. */
static void task_box(const fdx_dloop *l, const plan *p, int unit, int m, int64_t *lo, int64_t *hi)
{
    int64_t olo[3] = {0, 0, 0}, ohi[3] = {1, 1, 1}, plo[3], phi[3];
    fdx_dist_owned(l->dist, unit, olo, ohi);
    portion(l, p, m, plo, phi);
    for (int a = 0; a < 3; a++) {
        lo[a] = plo[a] > olo[a] ? plo[a] : olo[a];
        hi[a] = phi[a] < ohi[a] ? phi[a] : ohi[a];
    }
}

/* The planes that receiver `unit` reads as new values from its upstream
   neighbour on chain axis a in portion m (global coordinates): the width
   next to its owned range on the upstream side, its task box elsewhere.
   Returns the element count (0: nothing to move). */
static int64_t face_box(const fdx_dloop *l, const plan *p, int unit, int a, int m, int64_t *lo, int64_t *hi)
{
    int64_t olo[3] = {0, 0, 0}, ohi[3] = {1, 1, 1};
    fdx_dist_owned(l->dist, unit, olo, ohi);
    task_box(l, p, unit, m, lo, hi);
    if (l->dir[a] > 0) lo[a] = olo[a] - l->wlo[a], hi[a] = olo[a];
    else lo[a] = ohi[a], hi[a] = ohi[a] + l->whi[a];
    int64_t n = 1;
    for (int b = 0; b < 3; b++) n *= hi[b] > lo[b] ? hi[b] - lo[b] : 0;
    return n;
}

/* Elements of the faces of portions before m (their place in the buffer). */
static int64_t face_offset(const fdx_dloop *l, const plan *p, int unit, int a, int m)
{
    int64_t off = 0, lo[3], hi[3];
    for (int q = 0; q < m; q++) off += face_box(l, p, unit, a, q, lo, hi);
    return off;
}

static int neighbour(const fdx_dist *d, int unit, int a, int step)
{
    int c[3];
    fdx_dist_coords(d, unit, c);
    c[a] += step;
    return fdx_dist_unit_at(d, c);
}

/* A face buffer big enough for a whole sweep's face on axis a. */
static fdx_status buffer(fdx_dloop *l, const plan *p, int k, int i, int a, int side, int unit_for_size, int remote,
                         dacross_buf **out)
{
    fdx_dist *d = l->dist;
    dacross_buf *b = &l->buf[k][i][a][side];
    size_t need = (size_t)face_offset(l, p, unit_for_size, a, p->P) * l->arr[k]->elem;
    if (need > b->cap) {
        if (b->dev) d->be->free(b->dev);
        fdx_comm_host_free(d->be, b->host);
        b->dev = b->host = NULL;
        b->cap = 0;
        FDX_TRY(d->be->alloc(need, &b->dev));
        if (remote && d->be->kind == FDX_BACKEND_CUDA && !d->cuda_aware) FDX_TRY(fdx_comm_host_alloc(d->be, need, &b->host));
        b->cap = need;
    }
    if (!b->reqs) FDX_TRY(fdx_mpi_reqs_create(d->comm_mpi, 256, &b->reqs));
    if (!b->event && d->be->kind == FDX_BACKEND_CUDA) FDX_TRY(fdx_comm_event_create(d->be, &b->event));
    *out = b;
    return FDX_OK;
}

/* The global box [lo, hi) between local unit i's block (any layout) and a
   dense buffer. */
static fdx_status box_copy(fdx_darray *a, int i, const int64_t *lo, const int64_t *hi, void *buf, int pack, void *stream)
{
    int64_t at[3], box[3];
    for (int b = 0; b < 3; b++) at[b] = lo[b] - a->unit[i].origin[b], box[b] = hi[b] - lo[b];
    return fdx_darray_box_copy(a, i, at, box, buf, pack, stream);
}

static int tag_of(int local_receiver, int a) { return TAG_ACROSS + local_receiver * FDX_DIST_MAX_RANK + a; }

/* Before unit i's task m: its upstream faces into its shadows. */
static fdx_status receive(fdx_dloop *l, const plan *p, int i, int m)
{
    fdx_dist *d = l->dist;
    const fdx_backend *be = d->be;
    int unit = d->proc * d->nlocal + i;
    FDX_TRY(fdx_dist_use(d, i)); /* buffers, copies and events on unit i's device */
    for (int a = 0; a < 3; a++) {
        if (!p->chain[a]) continue;
        int up = neighbour(d, unit, a, -l->dir[a]);
        int64_t lo[3], hi[3], n = up < 0 ? 0 : face_box(l, p, unit, a, m, lo, hi);
        if (n == 0) continue;
        int remote = up / d->nlocal != d->proc;
        int64_t off = face_offset(l, p, unit, a, m);
        for (int k = 0; k < l->narr; k++) {
            if (!(l->acc[k] & FDX_WRITE)) continue;
            fdx_darray *arr = l->arr[k];
            size_t bytes = (size_t)n * arr->elem, at = (size_t)off * arr->elem;
            dacross_buf *b;
            FDX_TRY(buffer(l, p, k, i, a, 1, unit, remote, &b));
            char *dst = (char *)b->dev + at;
            if (remote) {
                char *land = b->host ? (char *)b->host + at : dst;
                FDX_TRY(fdx_mpi_irecv(b->reqs, land, bytes, up / d->nlocal, tag_of(i, a)));
                FDX_TRY(fdx_mpi_waitall(b->reqs));
                if (b->host) FDX_TRY(be->copy(dst, land, bytes, FDX_COPY_H2D, d->compute[i]));
            } else {
                int j = up % d->nlocal;
                dacross_buf *s = &l->buf[k][j][a][0];
                FDX_CHECK(s->dev && s->cap >= at + bytes, FDX_ERR_INTERNAL,
                          "ACROSS face of unit %d on axis %d was not packed before unit %d's portion %d", up, a, unit, m);
                if (s->event) FDX_TRY(fdx_comm_stream_wait(be, d->compute[i], s->event));
                FDX_TRY(fdx_comm_peer_copy(be, dst, d->ordinal[i], (char *)s->dev + at, d->ordinal[j], bytes,
                                           d->compute[i]));
            }
            FDX_TRY(box_copy(arr, i, lo, hi, dst, 0, d->compute[i]));
        }
    }
    return FDX_OK;
}

/* After unit i's task m: its downstream faces packed (and sent to other
   processes). */
static fdx_status send(fdx_dloop *l, const plan *p, int i, int m)
{
    fdx_dist *d = l->dist;
    const fdx_backend *be = d->be;
    int unit = d->proc * d->nlocal + i;
    FDX_TRY(fdx_dist_use(d, i));
    for (int a = 0; a < 3; a++) {
        if (!p->chain[a]) continue;
        int down = neighbour(d, unit, a, l->dir[a]);
        int64_t lo[3], hi[3], n = down < 0 ? 0 : face_box(l, p, down, a, m, lo, hi);
        if (n == 0) continue;
        int remote = down / d->nlocal != d->proc;
        int64_t off = face_offset(l, p, down, a, m);
        for (int k = 0; k < l->narr; k++) {
            if (!(l->acc[k] & FDX_WRITE)) continue;
            fdx_darray *arr = l->arr[k];
            size_t bytes = (size_t)n * arr->elem, at = (size_t)off * arr->elem;
            dacross_buf *b;
            FDX_TRY(buffer(l, p, k, i, a, 0, down, remote, &b));
            char *src = (char *)b->dev + at;
            FDX_TRY(box_copy(arr, i, lo, hi, src, 1, d->compute[i]));
            if (b->event) FDX_TRY(be->event_record(b->event, d->compute[i]));
            if (!remote) continue;
            char *out = src;
            if (b->host) {
                out = (char *)b->host + at;
                FDX_TRY(be->copy(out, src, bytes, FDX_COPY_D2H, d->compute[i]));
            }
            FDX_TRY(be->stream_sync(d->compute[i]));
            FDX_TRY(fdx_mpi_isend(b->reqs, out, bytes, down / d->nlocal, tag_of(down % d->nlocal, a)));
        }
    }
    return FDX_OK;
}

fdx_status fdx_dacross_sweep(fdx_dloop *l)
{
    fdx_dist *d = l->dist;
    plan p;
    make_plan(l, &p);
    l->portions_used = p.P;
    int base[FDX_DIST_MAX_LOCAL], top = 0;
    for (int i = 0; i < d->nlocal; i++) {
        int c[3];
        fdx_dist_coords(d, d->proc * d->nlocal + i, c);
        base[i] = 0;
        for (int a = 0; a < 3; a++)
            if (p.chain[a]) base[i] += l->dir[a] > 0 ? c[a] : d->desc.grid[a] - 1 - c[a];
    }
    for (int a = 0; a < 3; a++)
        if (p.chain[a]) top += d->desc.grid[a] - 1;
    for (int level = 0; level <= top + p.P - 1; level++)
        for (int i = 0; i < d->nlocal; i++) {
            int m = level - base[i];
            if (m < 0 || m >= p.P) continue;
            int64_t lo[3], hi[3];
            task_box(l, &p, d->proc * d->nlocal + i, m, lo, hi);
            FDX_TRY(receive(l, &p, i, m));
            FDX_TRY(fdx_dloop_run_box(l, i, lo, hi, 1));
            FDX_TRY(send(l, &p, i, m));
        }
    FDX_TRY(fdx_dloop_finish_all(l));
    /* Sends complete and every unit done before the next renewal reuses the
       buffers and shadows. */
    for (int k = 0; k < l->narr; k++)
        for (int i = 0; i < d->nlocal; i++)
            for (int a = 0; a < 3; a++)
                if (l->buf[k][i][a][0].reqs) FDX_TRY(fdx_mpi_waitall(l->buf[k][i][a][0].reqs));
    return fdx_dist_sync(d);
}

void fdx_dacross_free(fdx_dloop *l)
{
    fdx_dist *d = l->dist;
    for (int k = 0; k < FDX_LOOP_MAX_ARGS; k++)
        for (int i = 0; i < d->nlocal; i++)
            for (int a = 0; a < 3; a++)
                for (int s = 0; s < 2; s++) {
                    dacross_buf *b = &l->buf[k][i][a][s];
                    if (!b->dev && !b->reqs && !b->event) continue;
                    fdx_dist_use(d, i);
                    if (b->dev) d->be->free(b->dev);
                    fdx_comm_host_free(d->be, b->host);
                    if (b->event) d->be->event_destroy(b->event);
                    fdx_mpi_reqs_destroy(&b->reqs);
                }
}
