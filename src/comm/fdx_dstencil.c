/* fdx_dstencil: the stencil engine's updates on distributed arrays: each
   unit applies the stencil to its block (shadows as input), then the
   output's shadows are renewed; in overlap mode the slabs next to split
   faces go first and their exchange runs while the interior is computed. */
#include "comm/fdx_comm_impl.h"
#include "comm/fdx_dgraph.h"
#include "core/fdx_knob.h"
#include "stencil/fdx_bc.h"
#include "stencil/fdx_temporal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Steps per CUDA graph: a multiple of 2 and 3, so that the ring of fields
   (heat 2, wave 3) is back in its place after one graph. */
#define GRAPH_STEPS 24

/* The captured batch of steps and the arguments it was captured for. */
typedef struct dgraph {
    fdx_dgraph *g;
    fdx_darray *b[3], *coef;
    int nf, overlap;
} dgraph;

struct fdx_dstencil {
    fdx_dist *dist;
    int radius;
    fdx_dtype type;
    double h[3];
    fdx_stencil *s[FDX_DIST_MAX_LOCAL];
    /* boundary passes (fdx_dstencil_set_boundary): per unit, over the faces
       of its block on the global boundary (NULL: none there) */
    fdx_bc *bc[FDX_DIST_MAX_LOCAL];
    fdx_bc_region reg[FDX_DIST_MAX_LOCAL];
    dgraph g;
    int graph_failed, graph_used;
    /* Deep halos (fdx_dstencil_set_temporal): steps a pass, and the wave's
       fourth field (a pass writes two levels), made on first use. */
    int temporal;
    fdx_darray *spare;
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
    s->type = type;
    memcpy(s->h, desc->h, sizeof s->h);
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
    fdx_dstencil *s = *ps;
    fdx_dist *d = s->dist;
    fdx_dgraph_destroy(&s->g.g);
    for (int i = 0; i < d->nlocal; i++) {
        fdx_dist_use(d, i);
        fdx_stencil_destroy(&s->s[i]);
        fdx_bc_destroy(&s->bc[i]);
    }
    fdx_darray_destroy(&s->spare);
    free(*ps);
    *ps = NULL;
}

/* The conditions checked against the distribution; periodic faces become
   none (the exchange renews their frames). */
static fdx_status local_conditions(const fdx_dstencil *s, const fdx_bc_desc *bc, fdx_bc_desc *local)
{
    const fdx_dist *d = s->dist;
    FDX_TRY(fdx_bc_check_desc(bc, d->desc.rank));
    *local = *bc;
    for (int a = 0; a < d->desc.rank; a++) {
        int per = bc->face[a][0].kind == FDX_FACE_PERIODIC;
        FDX_CHECK(per == (d->desc.periodic[a] > 0), FDX_ERR_INVALID,
                  "axis %d is %speriodic in the boundary conditions but periodic[%d] = %d in the distribution", a,
                  per ? "" : "not ", a, d->desc.periodic[a]);
        FDX_CHECK(!per || d->desc.periodic[a] == s->radius, FDX_ERR_INVALID,
                  "axis %d: the distribution's periodic frame is %d points, the stencil's radius %d", a,
                  d->desc.periodic[a], s->radius);
        for (int side = 0; side < 2; side++) {
            FDX_CHECK(!bc->face[a][side].values, FDX_ERR_UNSUPPORTED,
                      "face %c%c: distributed stencils take one boundary value a face, not a values array", "xyz"[a],
                      side ? '+' : '-');
            if (per) local->face[a][side].kind = FDX_FACE_NONE;
        }
    }
    return FDX_OK;
}

/* Unit `unit`'s part of the pass: the faces of its block on the global
   boundary, over its unknowns of the other axes (owned, less the global
   frame). */
static void unit_region(const fdx_dstencil *s, int unit, fdx_bc_region *reg)
{
    const fdx_dist *d = s->dist;
    int c[3], r = s->radius;
    int64_t lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
    fdx_dist_coords(d, unit, c);
    fdx_dist_owned(d, unit, lo, hi);
    memset(reg, 0, sizeof *reg);
    for (int a = 0; a < 3; a++) {
        int sl = a < d->desc.rank ? fdx_dist_shadow(d, unit, a, 0) : 0, sh = a < d->desc.rank ? fdx_dist_shadow(d, unit, a, 1) : 0;
        int first = c[a] == 0, last = c[a] == d->desc.grid[a] - 1;
        int64_t n = hi[a] - lo[a] + sl + sh;
        reg->lo[a] = a >= d->desc.rank ? 0 : first ? r : sl;
        reg->hi[a] = a >= d->desc.rank ? 1 : last ? n - r : n - sh;
        if (a < d->desc.rank) reg->faces |= (unsigned)first << (2 * a) | (unsigned)last << (2 * a + 1);
    }
}

fdx_status fdx_dstencil_set_boundary(fdx_dstencil *s, const fdx_bc_desc *bc)
{
    FDX_CHECK(s, FDX_ERR_INVALID, "fdx_dstencil_set_boundary: NULL stencil");
    fdx_dist *d = s->dist;
    fdx_bc_desc local = {0};
    if (bc) FDX_TRY(local_conditions(s, bc, &local));
    for (int i = 0; i < d->nlocal; i++) fdx_bc_destroy(&s->bc[i]);
    if (!fdx_bc_any(&local, d->desc.rank)) return FDX_OK;
    for (int i = 0; i < d->nlocal; i++) {
        unit_region(s, d->proc * d->nlocal + i, &s->reg[i]);
        FDX_TRY(fdx_dist_use(d, i));
        fdx_status st = fdx_bc_create(d->ctx[i], &local, d->desc.rank, s->radius, s->h, s->type, &s->bc[i]);
        if (st != FDX_OK) {
            for (int k = 0; k < i; k++) fdx_bc_destroy(&s->bc[k]);
            return st;
        }
    }
    return FDX_OK;
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

/* Applies unit i's stencil on `stream` to write output rows [lo, hi) of
   the slowest axis (the whole block when lo < 0). */
static fdx_status apply_rows(const step_args *a, int i, int64_t lo, int64_t hi, void *stream)
{
    fdx_dist *d = a->s->dist;
    fdx_array *o = a->out->unit[i].local, *u = a->u->unit[i].local;
    fdx_array *p = a->u_prev ? a->u_prev->unit[i].local : NULL, *c = a->coef ? a->coef->unit[i].local : NULL;
    if (lo < 0) return fdx_stencil_apply(a->s->s[i], o, u, p, c, stream);
    if (hi <= lo) return FDX_OK;
    int r = a->s->radius;
    fdx_array vo = view_rows(o, lo - r, hi + r), vu = view_rows(u, lo - r, hi + r), vp, vc;
    if (p) vp = view_rows(p, lo - r, hi + r);
    if (c) vc = view_rows(c, lo - r, hi + r);
    (void)d;
    return fdx_stencil_apply(a->s->s[i], &vo, &vu, p ? &vp : NULL, c ? &vc : NULL, stream);
}

static int slabs_on_compute(void)
{
    return fdx_knob_is(FDX_KNOB_DSTENCIL_SLABS_ON_COMPUTE, "1");
}

static fdx_status check_arrays(const step_args *a)
{
    fdx_darray *all[4] = {a->out, a->u, a->u_prev, a->coef};
    for (int k = 0; k < 4; k++)
        FDX_CHECK(!all[k] || all[k]->dist == a->s->dist, FDX_ERR_INVALID,
                  "fdx_dstencil_step: array %d belongs to another distribution", k);
    FDX_CHECK(a->out && a->u, FDX_ERR_INVALID, "fdx_dstencil_step: NULL output or input");
    for (int k = 0; k < 4; k++)
        FDX_CHECK(!all[k] || (all[k]->ncomp == 1 && !all[k]->own_shadow), FDX_ERR_UNSUPPORTED,
                  "fdx_dstencil_step: array %d has components or its own shadow widths (stencils take the distribution's arrays)", k);
    return FDX_OK;
}

fdx_status fdx_dstencil_step(fdx_dstencil *s, fdx_darray *out, fdx_darray *u, fdx_darray *u_prev, fdx_darray *coef,
                             int overlap)
{
    FDX_CHECK(s, FDX_ERR_INVALID, "fdx_dstencil_step: NULL stencil");
    step_args a = {s, out, u, u_prev, coef};
    FDX_TRY(check_arrays(&a));
    /* A distributed loop wrote u since its shadows were renewed. */
    if (u->stale) FDX_TRY(fdx_darray_exchange(u));
    fdx_dist *d = s->dist;
    /* Ghosts of the global faces first, on each unit's compute stream. */
    for (int i = 0; i < d->nlocal; i++) {
        if (!s->bc[i]) continue;
        FDX_TRY(fdx_dist_use(d, i));
        FDX_TRY(fdx_bc_apply_region(s->bc[i], u->unit[i].local, &s->reg[i], d->compute[i]));
    }
    int rank = d->desc.rank, S = rank - 1, r = s->radius, w = d->desc.shadow[S];
    /* Overlap needs the faces to be contiguous slabs: only the slowest axis split. */
    for (int ax = 0; ax < S; ax++) overlap &= d->desc.grid[ax] == 1;
    overlap &= d->desc.grid[S] > 1;
    /* A periodic end face sends unknowns next to its frame, which the early
       slabs do not cover: no overlap with periodic axes. */
    for (int ax = 0; ax < rank; ax++) overlap &= d->desc.periodic[ax] == 0;

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
            FDX_TRY(apply_rows(&a, i, -1, -1, d->compute[i]));
            ilo[i] = ihi[i] = 0;
            continue;
        }
        /* The boundary slabs run on the comm stream, ahead of their own
           exchange and beside the interior rather than before it: the
           interior does not wait for the slabs' small, poorly occupied
           launches.  They read what the previous step left on the compute
           stream.  (FDX_DSTENCIL_SLABS_ON_COMPUTE=1 puts them back ahead of the
           interior on the compute stream, to measure the difference.) */
        void *ready = out->unit[i].ready, *slabs = slabs_on_compute() ? d->compute[i] : d->comm[i];
        if (ready && slabs != d->compute[i]) {
            FDX_TRY(d->be->event_record(ready, d->compute[i]));
            FDX_TRY(fdx_comm_stream_wait(d->be, d->comm[i], ready));
        }
        if (lower) FDX_TRY(apply_rows(&a, i, w, b_hi, slabs));
        if (upper) FDX_TRY(apply_rows(&a, i, t_lo, L - w, slabs));
        ilo[i] = b_hi, ihi[i] = t_lo;
    }
    FDX_TRY(fdx_darray_exchange_begin(out));
    for (int i = 0; i < d->nlocal; i++) {
        if (ihi[i] <= ilo[i]) continue;
        FDX_TRY(fdx_dist_use(d, i));
        FDX_TRY(apply_rows(&a, i, ilo[i], ihi[i], d->compute[i]));
    }
    return fdx_darray_exchange_end(out);
}

/* One step on the ring: b[nf-2] current, b[nf-1] written, b[0] previous
   (wave); then the ring turns left. */
static fdx_status ring_step(fdx_dstencil *s, fdx_darray **b, int nf, fdx_darray *coef, int overlap)
{
    FDX_TRY(fdx_dstencil_step(s, b[nf - 1], b[nf - 2], nf == 3 ? b[0] : NULL, coef, overlap));
    fdx_darray *t = b[0];
    for (int k = 0; k < nf - 1; k++) b[k] = b[k + 1];
    b[nf - 1] = t;
    return FDX_OK;
}

static int graph_matches(const dgraph *g, fdx_darray **b, int nf, fdx_darray *coef, int overlap)
{
    if (!fdx_dgraph_ready(g->g) || g->nf != nf || g->coef != coef || g->overlap != overlap) return 0;
    for (int k = 0; k < nf; k++)
        if (g->b[k] != b[k]) return 0;
    return 1;
}

typedef struct ring {
    fdx_dstencil *s;
    fdx_darray **b, *coef;
    int nf, overlap;
} ring;

static fdx_status ring_step_fn(void *arg)
{
    ring *r = arg;
    return ring_step(r->s, r->b, r->nf, r->coef, r->overlap);
}

/* Captures GRAPH_STEPS steps of every unit into one graph. */
static fdx_status capture(fdx_dstencil *s, fdx_darray **b, int nf, fdx_darray *coef, int overlap)
{
    dgraph *g = &s->g;
    if (!g->g) FDX_TRY(fdx_dgraph_create(s->dist, &g->g));
    fdx_darray *saved[3];
    memcpy(saved, b, sizeof(fdx_darray *) * (size_t)nf);
    ring r = {s, b, coef, nf, overlap};
    fdx_darray *all[4] = {b[0], b[1], nf == 3 ? b[2] : NULL, coef};
    fdx_status st = fdx_dgraph_capture(g->g, ring_step_fn, &r, GRAPH_STEPS, all, 4);
    /* Whatever happened, the ring is where it started: nothing ran. */
    memcpy(b, saved, sizeof(fdx_darray *) * (size_t)nf);
    FDX_TRY(st);
    memcpy(g->b, b, sizeof(fdx_darray *) * (size_t)nf);
    g->coef = coef, g->nf = nf, g->overlap = overlap;
    return FDX_OK;
}

/* ---- deep halos: k steps a pass on each unit's block, one exchange ---------- */

fdx_status fdx_dstencil_set_temporal(fdx_dstencil *s, int k)
{
    FDX_CHECK(s, FDX_ERR_INVALID, "fdx_dstencil_set_temporal: NULL stencil");
    FDX_CHECK(k >= 0 && k <= FDX_TEMPORAL_MAX_K, FDX_ERR_INVALID, "temporal depth %d must be 0..%d", k,
              FDX_TEMPORAL_MAX_K);
    fdx_dist *d = s->dist;
    int split = 0;
    for (int a = 0; a < d->desc.rank; a++) {
        if (d->desc.grid[a] <= 1) continue;
        split++;
        FDX_CHECK(k <= 1 || d->desc.shadow[a] >= k * s->radius, FDX_ERR_INVALID,
                  "temporal depth %d needs shadows of %d (depth x radius %d) on split axis %d, the distribution has %d",
                  k, k * s->radius, s->radius, a, d->desc.shadow[a]);
    }
    for (int a = 0; a < d->desc.rank; a++)
        FDX_CHECK(k <= 1 || !d->desc.periodic[a], FDX_ERR_UNSUPPORTED,
                  "temporal depth %d: periodic axis %d (deep halos take fixed frames)", k, a);
    /* Several levels reach diagonal neighbours: with two split axes the
       corner shadows must be exchanged too. */
    FDX_CHECK(k <= 1 || split < 2 || d->desc.corners, FDX_ERR_UNSUPPORTED,
              "temporal depth %d with %d split axes needs the corner shadows (fdx_dist_desc.corners = 1)", k, split);
    for (int i = 0; i < d->nlocal; i++)
        FDX_CHECK(k <= 1 || !s->bc[i], FDX_ERR_UNSUPPORTED,
                  "temporal depth %d: the stencil has boundary conditions, which only one step a pass applies", k);
    s->temporal = k;
    return FDX_OK;
}

/* Whole local arrays dst <- src on every unit (shadows included). */
static fdx_status copy_all(fdx_dist *d, fdx_darray *dst, fdx_darray *src)
{
    for (int i = 0; i < d->nlocal; i++) {
        FDX_TRY(fdx_dist_use(d, i));
        fdx_array *a = dst->unit[i].local, *b = src->unit[i].local;
        int cuda = fdx_ctx_backend(d->ctx[i]) == FDX_BACKEND_CUDA;
        FDX_TRY(d->be->copy(cuda ? a->device : a->host, cuda ? b->device : b->host, (size_t)a->count * a->elem_size,
                            cuda ? FDX_COPY_D2D : FDX_COPY_H2H, d->compute[i]));
    }
    return FDX_OK;
}

/* Steps in passes of s->temporal: each unit runs the blocked kernel on its
   block, shadows of depth >= k r standing in for the neighbours' levels
   (level t is exact at t r from the block's edge, so the owned points are
   after k steps), then the written fields' shadows are renewed once.  The
   ring ends as single steps leave it (b turned `steps` times, the current
   field, and the wave's previous, in their places); the last pass may be
   shallower, one step through the ring step. */
static fdx_status temporal_run(fdx_dstencil *s, fdx_darray **b, int nf, fdx_darray *coef, int64_t steps, int overlap)
{
    fdx_dist *d = s->dist;
    int wave = nf == 3;
    if (wave && !s->spare) {
        FDX_TRY(fdx_darray_create(d, s->type, &s->spare));
        FDX_TRY(copy_all(d, s->spare, b[2])); /* the global frame of the ring */
    }
    fdx_darray *ring0[3] = {b[0], b[1], nf == 3 ? b[2] : NULL};
    /* cur, prv (wave) and the free fields */
    fdx_darray *cur = b[nf - 2], *prv = wave ? b[0] : NULL, *fa = b[nf - 1], *fb = wave ? s->spare : NULL;
    if (cur->stale) FDX_TRY(fdx_darray_exchange(cur));
    if (prv && prv->stale) FDX_TRY(fdx_darray_exchange(prv));
    for (int64_t left = steps; left > 0;) {
        int k = s->temporal < left ? s->temporal : (int)left;
        if (k == 1) {
            FDX_TRY(fdx_dstencil_step(s, fa, cur, prv, coef, overlap));
            fdx_darray *t = prv;
            if (wave) prv = cur, cur = fa, fa = t;
            else t = cur, cur = fa, fa = t;
        } else {
            for (int i = 0; i < d->nlocal; i++) {
                FDX_TRY(fdx_dist_use(d, i));
                FDX_TRY(fdx_temporal_pass(s->s[i], fa->unit[i].local, cur->unit[i].local,
                                          wave ? fb->unit[i].local : NULL, wave ? prv->unit[i].local : NULL,
                                          coef ? coef->unit[i].local : NULL, k, d->compute[i]));
            }
            FDX_TRY(fdx_darray_exchange(fa));
            if (wave) FDX_TRY(fdx_darray_exchange(fb));
            fdx_darray *t = cur, *tp = prv;
            cur = fa, prv = fb, fa = t, fb = tp;
        }
        left -= k;
    }
    /* Where single steps would have left the fields: b turned `steps`
       times; through a free field where the two are swapped. */
    fdx_darray *tcur = ring0[(nf - 2 + steps) % nf], *tprv = wave ? ring0[steps % nf] : NULL;
    if (cur != tcur && prv == tcur) {
        FDX_TRY(copy_all(d, fa, prv));
        prv = fa;
    }
    if (cur != tcur) FDX_TRY(copy_all(d, tcur, cur));
    if (wave && prv != tprv) FDX_TRY(copy_all(d, tprv, prv));
    for (int j = 0; j < nf; j++) b[j] = ring0[(j + steps) % nf];
    return FDX_OK;
}

fdx_status fdx_dstencil_run(fdx_dstencil *s, fdx_darray **b, int nf, fdx_darray *coef, int64_t steps, int overlap,
                            int graph)
{
    FDX_CHECK(s && b, FDX_ERR_INVALID, "fdx_dstencil_run: NULL argument");
    FDX_CHECK(nf == 2 || nf == 3, FDX_ERR_INVALID, "fdx_dstencil_run: %d fields on the ring; 2 (heat) or 3 (wave)", nf);
    if (s->temporal > 1) return temporal_run(s, b, nf, coef, steps, overlap);
    fdx_dist *d = s->dist;
    /* Graphs need every transfer on a stream: one process, CUDA. */
    int use = graph && !s->graph_failed && fdx_dgraph_possible(d);
    s->graph_used = 0;
    int64_t done = 0;
    if (use && steps >= GRAPH_STEPS + nf && !graph_matches(&s->g, b, nf, coef, overlap)) {
        /* A full turn of the ring first: kernels compile and tune on first
           use, which a capture cannot do. */
        for (; done < nf; done++) FDX_TRY(ring_step(s, b, nf, coef, overlap));
        FDX_TRY(fdx_dist_sync(d));
        if (capture(s, b, nf, coef, overlap) != FDX_OK) {
            /* Plain steps from now on; the reason stays in fdx_last_error. */
            s->graph_failed = 1;
            use = 0;
        }
    }
    if (use && graph_matches(&s->g, b, nf, coef, overlap)) {
        for (; steps - done >= GRAPH_STEPS; done += GRAPH_STEPS) {
            FDX_TRY(fdx_dgraph_launch(s->g.g));
            s->graph_used = 1;
        }
    }
    for (; done < steps; done++) FDX_TRY(ring_step(s, b, nf, coef, overlap));
    return FDX_OK;
}

int fdx_dstencil_graph_used(const fdx_dstencil *s) { return s && s->graph_used; }
