/* fdx_sim_dist: heat and wave runs distributed over units (GPUs, CPU units,
   MPI ranks): fields as fdx_darray blocks stepped by fdx_dstencil_step; the
   boundary, source, sponge and receivers applied per block in global
   coordinates, so every block, shadows included, holds exactly the values
   the one-array run computes, without a second exchange. */
#include "comm/fdx_comm.h"
#include "comm/fdx_dgraph.h"
#include "fdx/metrics.h"
#include "solvers/fdx_fieldops.h"
#include "solvers/fdx_sim_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LOCAL 16

typedef struct unit_extra {
    int64_t origin[3], n[3]; /* the block in global indices (rank 3) */
    unsigned mirror;         /* faces shared with the whole grid */
    int64_t src;             /* local index of the source, -1: not in the block */
    double *src_table;       /* device: the source's value of each step (NULL: no source here) */
    int64_t *src_step;       /* device: the step the next source kernel adds */
    int nrec, rec[FDX_SIM_MAX_REC]; /* receivers owned here: their numbers */
    void *rec_idx, *rec_buf;        /* device: local indices, nrec x (steps + 1) values */
    fdx_pml *pml;                   /* wave, absorb = pml: the block's part of the layer */
} unit_extra;

typedef struct dsim {
    fdx_dist *d;
    fdx_dstencil *ds;
    fdx_darray *f[3]; /* next, cur, prev (wave); rotated each step */
    fdx_darray *coef;
    int nf, overlap, nlocal;
    int64_t src_len;  /* steps the source table holds: later ones add nothing */
    void *edges;      /* periodic runs: the pushed field, for its frame edges (see keep_edges) */
    const fdx_backend *be;
    unit_extra u[MAX_LOCAL];
    fdx_sim_driver drv;
} dsim;

static dsim *of(fdx_sim *s) { return (dsim *)s->drv->arg; }

typedef struct host_field {
    const void *p;
    int is_double;
    const int64_t *n;
} host_field;

static double from_host(const int64_t *g, void *arg)
{
    const host_field *h = arg;
    int64_t q = g[0] + h->n[0] * (g[1] + h->n[1] * g[2]);
    return h->is_double ? ((const double *)h->p)[q] : (double)((const float *)h->p)[q];
}

/* A darray filled from one of the sim's global (host) arrays. */
static fdx_status fill_from(fdx_sim *s, fdx_darray *a, fdx_array *global)
{
    host_field h = {fdx_array_device(global), s->type == FDX_FLOAT64, s->n};
    return fdx_darray_fill(a, from_host, &h);
}

/* Unit i's block of a generated field, made where it lives, in global
   indices: the values of the one-array run on the same backend. */
static fdx_status generate(fdx_sim *s, dsim *m, fdx_darray *a, int i, const fdx_gen *g)
{
    fdx_gen at = *g;
    memcpy(at.origin, m->u[i].origin, sizeof at.origin);
    FDX_TRY(fdx_dist_use(m->d, i));
    fdx_array *la = fdx_darray_local(a, i);
    void *stream = fdx_dist_stream(m->d, i);
    if (g->kind == FDX_GEN_LETTERS) return fdx_sim_fill_letters(m->be, la, &at, s->init_mask, stream);
    return fdx_fieldgen_fill(la, &at, stream);
}

/* The initial state made on the units: heat's generated field (next too,
   cur with its mirrored walls), the wave at rest. */
static fdx_status push_fresh(fdx_sim *s, dsim *m)
{
    for (int i = 0; i < m->nlocal; i++) {
        unit_extra *x = &m->u[i];
        void *stream = fdx_dist_stream(m->d, i);
        FDX_TRY(fdx_dist_use(m->d, i));
        for (int k = 0; k < m->nf; k++) {
            fdx_array *la = fdx_darray_local(m->f[k], i);
            if (s->kind == FDX_SIM_WAVE) FDX_TRY(m->be->memset(fdx_array_device(la), 0, fdx_array_bytes(la), stream));
            else FDX_TRY(generate(s, m, m->f[k], i, &s->init_gen));
        }
        fdx_sim_block b = {{x->origin[0], x->origin[1], x->origin[2]}, x->mirror, -1, 0};
        if (s->ops->boundary) FDX_TRY(s->ops->boundary(s, &b, fdx_darray_local(m->f[1], i), stream));
    }
    return fdx_dist_sync(m->d);
}

static fdx_status push_fields(fdx_sim *s, dsim *m)
{
    if (s->fresh && (s->kind == FDX_SIM_WAVE || s->init_generated)) return push_fresh(s, m);
    FDX_TRY(fill_from(s, m->f[1], s->cur));
    /* Fixed walls live in every time level: the stencil never writes them. */
    FDX_TRY(fill_from(s, m->f[0], s->cur));
    if (m->nf == 3) FDX_TRY(fill_from(s, m->f[2], s->prev));
    return fdx_dist_sync(m->d);
}

/* The source kernels continue at the run's step (a restart's too). */
static fdx_status push_source_step(fdx_sim *s, dsim *m)
{
    for (int i = 0; i < m->nlocal; i++) {
        if (!m->u[i].src_step) continue;
        FDX_TRY(fdx_dist_use(m->d, i));
        FDX_TRY(m->be->copy(m->u[i].src_step, &s->step, sizeof s->step, FDX_COPY_H2D, fdx_dist_stream(m->d, i)));
    }
    return fdx_dist_sync(m->d);
}

/* Whether global point q lies in the frame (the outer r layers) of two or
   more axes: an edge or corner of the frame, which no step of the one-array
   run writes, but a periodic exchange of the units fills. */
static int frame_edge(const fdx_sim *s, int64_t q)
{
    int in = 0;
    for (int d = 0; d < s->rank; d++, q /= s->n[d - 1]) {
        int64_t i = q % s->n[d];
        in += i < s->r || i >= s->n[d] - s->r;
    }
    return in >= 2;
}

/* Periodic axes: the frame's edges keep the pushed values (the one-array
   run's: it never writes them), not the exchange's, so the gathered field
   is the one-array field bit for bit. */
static fdx_status keep_edges(fdx_sim *s, dsim *m, int save)
{
    if (!s->p.periodic) return FDX_OK;
    size_t es = fdx_dtype_size(s->type), bytes = (size_t)s->count * es;
    char *cur = fdx_array_device(s->cur);
    if (save) {
        free(m->edges);
        m->edges = malloc(bytes);
        FDX_CHECK(m->edges, FDX_ERR_NOMEM, "no memory for a copy of the field's frame");
        memcpy(m->edges, cur, bytes);
        return FDX_OK;
    }
    for (int64_t q = 0; m->edges && q < s->count; q++)
        if (frame_edge(s, q)) memcpy(cur + (size_t)q * es, (char *)m->edges + (size_t)q * es, es);
    return FDX_OK;
}

static fdx_status push(fdx_sim *s)
{
    dsim *m = of(s);
    FDX_TRY(keep_edges(s, m, 1));
    FDX_TRY(push_fields(s, m));
    FDX_TRY(push_source_step(s, m));
    /* Periodic ghosts come from the exchange, which the first step does not
       run on a field written here: the wrapped values before it reads them. */
    return s->p.periodic ? fdx_darray_exchange(m->f[1]) : FDX_OK;
}

static fdx_status record(fdx_sim *s, dsim *m)
{
    if (s->nrec == 0 || s->step > s->steps) return FDX_OK;
    size_t es = fdx_dtype_size(s->type);
    for (int i = 0; i < m->nlocal; i++) {
        unit_extra *x = &m->u[i];
        if (x->nrec == 0) continue;
        void *dst = (char *)x->rec_buf + es * (size_t)x->nrec * (size_t)s->step;
        FDX_TRY(fdx_fieldops_gather(fdx_darray_local(m->f[1], i), x->rec_idx, x->nrec, dst, fdx_dist_stream(m->d, i)));
    }
    return FDX_OK;
}

/* One step on the units, with no host value that changes from step to
   step, so that a CUDA graph can capture it (advance_fn): the source's
   value comes from the device table at the device's step counter. */
static fdx_status advance(fdx_sim *s, dsim *m)
{
    fdx_darray *next = m->f[0], *cur = m->f[1], *prev = m->nf == 3 ? m->f[2] : NULL;
    FDX_TRY(fdx_dstencil_step(m->ds, next, cur, prev, m->coef, m->overlap));
    /* The physics' terms and boundary step on every block, in global
       coordinates: the same code as the one-array run's, the source (first
       of the wave's terms) added here from the table. */
    for (int i = 0; i < m->nlocal; i++) {
        unit_extra *x = &m->u[i];
        void *stream = fdx_dist_stream(m->d, i);
        fdx_array *ln = fdx_darray_local(next, i);
        /* The one-array order: the PML's terms, the source, the sponge (a
           PML run has none), so the sums round alike at a source in the layer. */
        int late = x->pml != NULL;
        if (x->src_table && !late)
            FDX_TRY(fdx_fieldops_add_point_step(ln, x->src, x->src_table, m->src_len, x->src_step, stream));
        fdx_sim_block b = {{x->origin[0], x->origin[1], x->origin[2]}, x->mirror, -1, 0, x->pml,
                           m->coef ? fdx_darray_local(m->coef, i) : NULL};
        FDX_TRY(fdx_sim_after_update(s, &b, ln, fdx_darray_local(cur, i), s->step, stream));
        if (x->src_table && late)
            FDX_TRY(fdx_fieldops_add_point_step(ln, x->src, x->src_table, m->src_len, x->src_step, stream));
    }
    m->f[0] = m->nf == 3 ? prev : cur;
    if (m->nf == 3) m->f[2] = cur;
    m->f[1] = next;
    return FDX_OK;
}

static fdx_status step(fdx_sim *s)
{
    FDX_TRY(advance(s, of(s)));
    s->step++;
    return record(s, of(s));
}

static fdx_status pull_traces(fdx_sim *s, dsim *m)
{
    size_t es = fdx_dtype_size(s->type), per = (size_t)s->nrec * (size_t)(s->steps + 1);
    /* The steps up to a restart's checkpoint are not the units' (receivers.csv
       gave them back to the writing rank): only the later ones are joined. */
    size_t kept = (size_t)s->nrec * (size_t)(s->rec_kept + 1) * es;
    /* Each rank writes its receivers into a zeroed buffer; xor joins them. */
    memset((char *)s->rec_buf_dev + kept, 0, per * es - kept);
    void *tmp = NULL;
    fdx_status st = FDX_OK;
    for (int i = 0; st == FDX_OK && i < m->nlocal; i++) {
        unit_extra *x = &m->u[i];
        if (x->nrec == 0) continue;
        size_t bytes = (size_t)x->nrec * (size_t)(s->steps + 1) * es;
        void *t = realloc(tmp, bytes);
        if (!t) {
            st = fdx_fail(FDX_ERR_NOMEM, "no memory for receiver traces");
            break;
        }
        tmp = t;
        st = m->be->copy(tmp, x->rec_buf, bytes, FDX_COPY_D2H, fdx_dist_stream(m->d, i));
        if (st == FDX_OK) st = m->be->stream_sync(fdx_dist_stream(m->d, i));
        for (int64_t k = s->rec_kept + 1; st == FDX_OK && k <= s->steps; k++)
            for (int r = 0; r < x->nrec; r++)
                memcpy((char *)s->rec_buf_dev + ((size_t)k * (size_t)s->nrec + (size_t)x->rec[r]) * es,
                       (char *)tmp + ((size_t)k * (size_t)x->nrec + (size_t)r) * es, es);
    }
    free(tmp);
    if (st == FDX_OK) st = fdx_dist_xor_bytes(m->d, (char *)s->rec_buf_dev + kept, per * es - kept);
    return st;
}

static fdx_status pull(fdx_sim *s)
{
    dsim *m = of(s);
    FDX_TRY(fdx_darray_gather(m->f[1], fdx_array_device(s->cur), 1));
    FDX_TRY(keep_edges(s, m, 0));
    if (m->nf == 3) FDX_TRY(fdx_darray_gather(m->f[2], fdx_array_device(s->prev), 1));
    if (s->nrec > 0) FDX_TRY(pull_traces(s, m));
    return FDX_OK;
}

static fdx_status sync(fdx_sim *s) { return fdx_dist_sync(of(s)->d); }

static void dsim_free(dsim *m)
{
    if (!m) return;
    free(m->edges);
    for (int i = 0; i < m->nlocal; i++) {
        void *dev[4] = {m->u[i].rec_idx, m->u[i].rec_buf, m->u[i].src_table, m->u[i].src_step};
        for (int k = 0; k < 4; k++)
            if (dev[k]) m->be->free(dev[k]);
        fdx_pml_destroy(&m->u[i].pml);
    }
    for (int k = 0; k < 3; k++) fdx_darray_destroy(&m->f[k]);
    fdx_darray_destroy(&m->coef);
    fdx_dstencil_destroy(&m->ds);
    fdx_dist_destroy(&m->d);
    free(m);
}

static void unravel(const fdx_sim *s, int64_t q, int64_t *g)
{
    g[0] = q % s->n[0];
    g[1] = q / s->n[0] % s->n[1];
    g[2] = q / (s->n[0] * s->n[1]);
}

static int64_t local_index(const unit_extra *x, const int64_t *g)
{
    for (int d = 0; d < 3; d++)
        if (g[d] < x->origin[d] || g[d] >= x->origin[d] + x->n[d]) return -1;
    return (g[0] - x->origin[0]) + x->n[0] * ((g[1] - x->origin[1]) + x->n[1] * (g[2] - x->origin[2]));
}

/* Blocks, face masks, the source's local index and the receivers each unit
   owns. */
static fdx_status place_units(fdx_sim *s, dsim *m)
{
    int S = s->rank - 1;
    size_t es = fdx_dtype_size(s->type);
    for (int i = 0; i < m->nlocal; i++) {
        unit_extra *x = &m->u[i];
        fdx_array *a = fdx_darray_local(m->f[1], i);
        int64_t o[FDX_DIST_MAX_RANK] = {0, 0, 0}, lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
        fdx_darray_local_origin(m->f[1], i, o);
        int unit = fdx_dist_proc(m->d) * m->nlocal + i;
        fdx_dist_owned(m->d, unit, lo, hi);
        for (int d = 0; d < 3; d++) {
            x->origin[d] = d < s->rank ? o[d] : 0;
            x->n[d] = d < s->rank ? fdx_array_extent(a, d) : 1;
        }
        /* The mirror on a block touches its shadows too, so a part along the
           split axis must hold the whole mirrored layer pair: 2r points. */
        FDX_CHECK(hi[S] - lo[S] >= 2 * s->r, FDX_ERR_INVALID,
                  "gpus: %d units leave %lld points of axis %d to unit %d; order %d needs at least %d",
                  fdx_dist_units(m->d), (long long)(hi[S] - lo[S]), S, unit, s->order, 2 * s->r);
        x->mirror = 0;
        for (int d = 0; d < s->rank; d++) {
            if (x->origin[d] == 0) x->mirror |= 1u << (2 * d);
            if (x->origin[d] + x->n[d] == s->n[d]) x->mirror |= 1u << (2 * d + 1);
        }
        int64_t g[3];
        x->src = -1;
        if (s->kind == FDX_SIM_WAVE) {
            unravel(s, s->src, g);
            x->src = local_index(x, g);
        }
        int64_t idx[FDX_SIM_MAX_REC];
        x->nrec = 0;
        for (int r = 0; r < s->nrec; r++) {
            unravel(s, s->rec[r], g);
            int own = 1;
            for (int d = 0; d < 3; d++) own &= g[d] >= lo[d] && g[d] < hi[d];
            if (!own) continue;
            idx[x->nrec] = local_index(x, g);
            x->rec[x->nrec++] = r;
        }
        FDX_TRY(fdx_dist_use(m->d, i));
        if (s->kind == FDX_SIM_WAVE) FDX_TRY(fdx_sim_wave_pml(s, fdx_dist_ctx(m->d, i), x->origin, x->n, &x->pml));
        if (x->nrec == 0) continue;
        size_t bytes = es * (size_t)x->nrec * (size_t)(s->steps + 1);
        void *stream = fdx_dist_stream(m->d, i);
        FDX_TRY(m->be->alloc(sizeof(int64_t) * (size_t)x->nrec, &x->rec_idx));
        FDX_TRY(m->be->alloc(bytes, &x->rec_buf));
        FDX_TRY(m->be->copy(x->rec_idx, idx, sizeof(int64_t) * (size_t)x->nrec, FDX_COPY_H2D, stream));
        FDX_TRY(m->be->memset(x->rec_buf, 0, bytes, stream));
        FDX_TRY(m->be->stream_sync(stream));
    }
    return FDX_OK;
}

/* The source's value of every step up to `steps`, or to where the
   wavelet has become exactly 0 for good (10 periods after its peak
   exp(-(pi f0 (t - t0))^2) underflows), on each unit whose block holds the
   point: the same numbers the one-array run adds (fdx_sim_source_value). */
static fdx_status source_tables(fdx_sim *s, dsim *m, int64_t steps)
{
    if (s->kind != FDX_SIM_WAVE || s->amp == 0) return FDX_OK;
    double tail = (s->t0 + 10.0 / s->f0) / s->dt + 1;
    m->src_len = tail < (double)steps ? (int64_t)tail : steps;
    double *v = malloc(sizeof(double) * (size_t)(m->src_len > 0 ? m->src_len : 1));
    FDX_CHECK(v, FDX_ERR_NOMEM, "no memory for the source's %lld values", (long long)m->src_len);
    for (int64_t k = 0; k < m->src_len; k++) v[k] = fdx_sim_source_value(s, k);
    fdx_status st = FDX_OK;
    for (int i = 0; st == FDX_OK && i < m->nlocal; i++) {
        unit_extra *x = &m->u[i];
        if (x->src < 0) continue;
        void *stream = fdx_dist_stream(m->d, i);
        size_t bytes = sizeof(double) * (size_t)(m->src_len > 0 ? m->src_len : 1);
        if ((st = fdx_dist_use(m->d, i)) != FDX_OK || (st = m->be->alloc(bytes, (void **)&x->src_table)) != FDX_OK ||
            (st = m->be->alloc(sizeof(int64_t), (void **)&x->src_step)) != FDX_OK)
            break;
        st = m->be->copy(x->src_table, v, sizeof(double) * (size_t)m->src_len, FDX_COPY_H2D, stream);
        if (st == FDX_OK) st = m->be->stream_sync(stream);
    }
    free(v);
    return st;
}

/* Every unit holds its block of each field (plus shadows): a grid that
   cannot fit is refused before anything is allocated. */
static fdx_status check_unit_memory(const fdx_sim *s, const dsim *m)
{
    int S = s->rank - 1, arrays = m->nf + (s->coef != NULL), units = fdx_dist_units(m->d);
    double slab = (double)s->count / (double)s->n[S] * (double)(s->n[S] / units + 1 + 2 * s->r);
    double need = arrays * slab * (double)fdx_dtype_size(s->type);
    fdx_ctx *c = fdx_dist_ctx(m->d, 0);
    double have = (double)fdx_ctx_memory(c);
    FDX_CHECK(need <= 0.9 * have, FDX_ERR_INVALID, "size: %.2f GiB a unit for %d fields, more than the %.2f GiB of %s",
              need / (1 << 30), arrays, have / (1 << 30), fdx_ctx_device_name(c));
    return FDX_OK;
}

/* extra: steps beyond the run's (timed ones) whose source the table holds. */
static fdx_status dsim_create(fdx_sim *s, const fdx_options *opts, int units, int overlap, int64_t extra, dsim **out)
{
    *out = NULL;
    FDX_CHECK(s->kind != FDX_SIM_POISSON, FDX_ERR_INVALID, "gpus: Poisson runs on one unit");
    FDX_CHECK(units >= 1 && units <= MAX_LOCAL, FDX_ERR_INVALID, "gpus: %d units per process; 1 to %d", units,
              MAX_LOCAL);
    FDX_CHECK(fdx_ctx_backend(s->ctx) == FDX_BACKEND_CPU, FDX_ERR_INVALID,
              "fdx_sim_run_dist: the simulation must live on a CPU context (it keeps the global fields)");
    dsim *m = calloc(1, sizeof *m);
    FDX_CHECK(m, FDX_ERR_NOMEM, "no memory for a distributed run");
    fdx_status st;
    fdx_dist_desc dd;
    memset(&dd, 0, sizeof dd);
    dd.rank = s->rank;
    for (int d = 0; d < s->rank; d++) dd.shape[d] = s->n[d];
    /* The default split: the slowest axis, the one overlap needs. */
    dd.shadow[s->rank - 1] = s->r;
    dd.units_per_proc = units;
    /* Periodic conditions: the distribution's periodic exchange. */
    for (int d = 0; d < s->rank; d++)
        if (s->p.periodic >> d & 1) dd.periodic[d] = s->r;
    m->overlap = overlap;
    m->nf = s->kind == FDX_SIM_WAVE ? 3 : 2;
    FDX_TRY_GOTO(st, fdx_dist_create(opts, &dd, &m->d), fail);
    m->nlocal = fdx_dist_local_units(m->d);
    m->be = fdx_ctx_ops(fdx_dist_ctx(m->d, 0));
    FDX_TRY_GOTO(st, check_unit_memory(s, m), fail);
    FDX_TRY_GOTO(st, fdx_dstencil_create(m->d, &s->desc, s->type, &m->ds), fail);
    /* Conditions of the boundary key on the global faces only. */
    if (s->p.has_bc) FDX_TRY_GOTO(st, fdx_dstencil_set_boundary(m->ds, &s->p.bc), fail);
    for (int k = 0; k < m->nf; k++) FDX_TRY_GOTO(st, fdx_darray_create(m->d, s->type, &m->f[k]), fail);
    if (s->coef) FDX_TRY_GOTO(st, fdx_darray_create(m->d, s->type, &m->coef), fail);
    FDX_TRY_GOTO(st, place_units(s, m), fail);
    FDX_TRY_GOTO(st, source_tables(s, m, s->steps + extra), fail);
    /* A generated model is made on the units; a file's comes from the host. */
    for (int i = 0; s->coef && !s->model_c2_file && i < m->nlocal; i++)
        FDX_TRY_GOTO(st, generate(s, m, m->coef, i, &s->model_gen), fail);
    if (s->coef && s->model_c2_file) FDX_TRY_GOTO(st, fill_from(s, m->coef, s->coef), fail);
    if (s->coef) FDX_TRY_GOTO(st, fdx_dist_sync(m->d), fail);
    m->drv = (fdx_sim_driver){push, step, pull, sync, m, fdx_dist_ctx(m->d, 0), fdx_dist_units(m->d),
                              fdx_dist_procs(m->d), fdx_dist_proc(m->d) != 0, -1};
    *out = m;
    return FDX_OK;
fail:
    dsim_free(m);
    return st;
}

/* Steps per CUDA graph: a multiple of 2 and 3, so that the ring of fields
   (heat 2, wave 3) is back in its place after one graph. */
#define GRAPH_STEPS 24

typedef struct bench {
    fdx_sim *s;
    dsim *m;
    fdx_sim_timing *t;
    fdx_dgraph *g;
    fdx_darray *ring[3]; /* the ring's place when the graph was captured */
} bench;

static fdx_status advance_fn(void *arg)
{
    bench *b = arg;
    return advance(b->s, b->m);
}

static int at_capture(const bench *b) { return memcmp(b->ring, b->m->f, sizeof b->ring) == 0; }

/* A turn of plain steps (kernels compile and tune on first use, which a
   capture cannot do), then the capture; a failure leaves plain steps and
   its reason in the note. */
static fdx_status capture(bench *b)
{
    fdx_dist *d = b->m->d;
    FDX_TRY(fdx_dgraph_create(d, &b->g));
    for (int k = 0; k < GRAPH_STEPS; k++) FDX_TRY(advance(b->s, b->m));
    FDX_TRY(fdx_dist_sync(d));
    fdx_darray *all[4] = {b->m->f[0], b->m->f[1], b->m->f[2], b->m->coef};
    memcpy(b->ring, b->m->f, sizeof b->ring);
    if (fdx_dgraph_capture(b->g, advance_fn, b, GRAPH_STEPS, all, 4) != FDX_OK) {
        snprintf(b->t->note, sizeof b->t->note, "%s", fdx_last_error());
        fdx_dgraph_destroy(&b->g);
    }
    /* The capture turned the ring once on the host, back to its place. */
    return FDX_OK;
}

/* A batch of steps, then every unit synchronized: timed as one piece so
   the events bracket the work of all units. */
static fdx_status timed_batch(void *arg, void *stream)
{
    (void)stream;
    bench *b = arg;
    int64_t done = 0, n = b->t->batch;
    if (b->t->graph && !b->g && !b->t->note[0] && fdx_dgraph_possible(b->m->d) && n >= 2 * GRAPH_STEPS) {
        FDX_TRY(capture(b));
        done += GRAPH_STEPS;
    }
    for (; b->g && at_capture(b) && n - done >= GRAPH_STEPS; done += GRAPH_STEPS) {
        FDX_TRY(fdx_dgraph_launch(b->g));
        b->t->graph_used = 1;
    }
    for (; done < n; done++) FDX_TRY(advance(b->s, b->m));
    b->s->step += n;
    return fdx_dist_sync(b->m->d);
}

/* After the run: the final field's digest, then batches of steps timed
   (they move the field on; the sim keeps the run's final fields). */
static fdx_status time_steps(fdx_sim *s, dsim *m, fdx_sim_timing *t)
{
    fdx_dist_checksum cs;
    FDX_TRY(fdx_darray_checksum(m->f[1], &cs));
    t->digest = cs.digest;
    t->local_units = m->nlocal;
    snprintf(t->transport, sizeof t->transport, "%s", fdx_dist_transport(m->d));
    fdx_stencil_traffic(s->stencil, s->n, &t->fetch_bytes, &t->write_bytes);
    t->note[0] = 0;
    t->graph_used = 0;
    if (t->reps <= 0) return FDX_OK;
    FDX_CHECK(t->batch > 0, FDX_ERR_INVALID, "fdx_sim_run_dist_timed: batch = %d steps", t->batch);
    bench b = {s, m, t, NULL, {NULL}};
    fdx_time_stats ts;
    fdx_status st = fdx_time_run(fdx_dist_ctx(m->d, 0), timed_batch, &b, 1, t->reps, &ts);
    fdx_dgraph_destroy(&b.g);
    FDX_TRY(st);
    /* Where the timed steps left the field: graphs on or off, any number
       of units, the same digest. */
    FDX_TRY(fdx_darray_checksum(m->f[1], &cs));
    t->digest_timed = cs.digest;
    t->median_ms = ts.median_ms / t->batch, t->min_ms = ts.min_ms / t->batch;
    t->max_ms = ts.max_ms / t->batch, t->mean_ms = ts.mean_ms / t->batch;
    return FDX_OK;
}

fdx_status fdx_sim_run_dist_timed(fdx_sim *s, const fdx_options *opts, int units, int overlap, FILE *progress,
                                  fdx_sim_result *res, fdx_sim_timing *t)
{
    FDX_CHECK(s && res, FDX_ERR_INVALID, "fdx_sim_run_dist: NULL argument");
    memset(res, 0, sizeof *res);
    dsim *m;
    FDX_TRY(dsim_create(s, opts, units, overlap, t && t->reps > 0 ? (int64_t)(t->reps + 1) * t->batch : 0, &m));
    s->drv = &m->drv;
    fdx_status st = fdx_sim_run(s, m->drv.quiet ? NULL : progress, res);
    res->units = m->drv.units;
    res->procs = m->drv.procs;
    res->proc = fdx_dist_proc(m->d);
    /* The fields stay in the sim (pulled) for whoever reads them next. */
    if (st == FDX_OK) st = fdx_sim_pull(s);
    int64_t at = s->step;
    if (st == FDX_OK && t && !res->interrupted) st = time_steps(s, m, t);
    s->step = at;
    s->drv = NULL;
    dsim_free(m);
    return st;
}

fdx_status fdx_sim_run_dist(fdx_sim *s, const fdx_options *opts, int units, int overlap, FILE *progress,
                            fdx_sim_result *res)
{
    return fdx_sim_run_dist_timed(s, opts, units, overlap, progress, res, NULL);
}
