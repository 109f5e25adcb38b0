/* fdx_sim_dist: heat and wave runs distributed over units (GPUs, CPU units,
   MPI ranks): fields as fdx_darray blocks stepped by fdx_dstencil_step; the
   boundary, source, sponge and receivers applied per block in global
   coordinates, so every block, shadows included, holds exactly the values
   the one-array run computes, without a second exchange. */
#include "comm/fdx_comm_impl.h"
#include "solvers/fdx_fieldops.h"
#include "solvers/fdx_sim_impl.h"

#include <stdlib.h>
#include <string.h>

#define MAX_LOCAL 16

typedef struct unit_extra {
    int64_t origin[3], n[3]; /* the block in global indices (rank 3) */
    unsigned mirror;         /* faces shared with the whole grid */
    int64_t src;             /* local index of the source, -1: not in the block */
    int nrec, rec[FDX_SIM_MAX_REC]; /* receivers owned here: their numbers */
    void *rec_idx, *rec_buf;        /* device: local indices, nrec x (steps + 1) values */
} unit_extra;

typedef struct dsim {
    fdx_dist *d;
    fdx_dstencil *ds;
    fdx_darray *f[3]; /* next, cur, prev (wave); rotated each step */
    fdx_darray *coef;
    int nf, overlap, nlocal;
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

static fdx_status push(fdx_sim *s)
{
    dsim *m = of(s);
    FDX_TRY(push_fields(s, m));
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

static fdx_status step(fdx_sim *s)
{
    dsim *m = of(s);
    fdx_darray *next = m->f[0], *cur = m->f[1], *prev = m->nf == 3 ? m->f[2] : NULL;
    FDX_TRY(fdx_dstencil_step(m->ds, next, cur, prev, m->coef, m->overlap));
    /* The physics' terms and boundary step on every block, in global
       coordinates: the same code as the one-array run's. */
    for (int i = 0; i < m->nlocal; i++) {
        unit_extra *x = &m->u[i];
        fdx_sim_block b = {{x->origin[0], x->origin[1], x->origin[2]}, x->mirror, x->src, 0};
        FDX_TRY(fdx_sim_after_update(s, &b, fdx_darray_local(next, i), fdx_darray_local(cur, i), s->step,
                                     fdx_dist_stream(m->d, i)));
    }
    m->f[0] = m->nf == 3 ? prev : cur;
    if (m->nf == 3) m->f[2] = cur;
    m->f[1] = next;
    s->step++;
    return record(s, m);
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
    if (st == FDX_OK) st = fdx_mpi_xor_bytes((char *)s->rec_buf_dev + kept, per * es - kept);
    return st;
}

static fdx_status pull(fdx_sim *s)
{
    dsim *m = of(s);
    FDX_TRY(fdx_darray_gather(m->f[1], fdx_array_device(s->cur), 1));
    if (m->nf == 3) FDX_TRY(fdx_darray_gather(m->f[2], fdx_array_device(s->prev), 1));
    if (s->nrec > 0) FDX_TRY(pull_traces(s, m));
    return FDX_OK;
}

static fdx_status sync(fdx_sim *s) { return fdx_dist_sync(of(s)->d); }

static void dsim_free(dsim *m)
{
    if (!m) return;
    for (int i = 0; i < m->nlocal; i++) {
        if (m->u[i].rec_idx) m->be->free(m->u[i].rec_idx);
        if (m->u[i].rec_buf) m->be->free(m->u[i].rec_buf);
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
        if (x->nrec == 0) continue;
        FDX_TRY(fdx_dist_use(m->d, i));
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

static fdx_status dsim_create(fdx_sim *s, const fdx_options *opts, int units, int overlap, dsim **out)
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
    FDX_TRY_GOTO(st, fdx_dstencil_create(m->d, &s->desc, s->type, &m->ds), fail);
    /* Conditions of the boundary key on the global faces only. */
    if (s->p.has_bc) FDX_TRY_GOTO(st, fdx_dstencil_set_boundary(m->ds, &s->p.bc), fail);
    for (int k = 0; k < m->nf; k++) FDX_TRY_GOTO(st, fdx_darray_create(m->d, s->type, &m->f[k]), fail);
    if (s->coef) FDX_TRY_GOTO(st, fdx_darray_create(m->d, s->type, &m->coef), fail);
    FDX_TRY_GOTO(st, place_units(s, m), fail);
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

fdx_status fdx_sim_run_dist(fdx_sim *s, const fdx_options *opts, int units, int overlap, FILE *progress,
                            fdx_sim_result *res)
{
    FDX_CHECK(s && res, FDX_ERR_INVALID, "fdx_sim_run_dist: NULL argument");
    memset(res, 0, sizeof *res);
    dsim *m;
    FDX_TRY(dsim_create(s, opts, units, overlap, &m));
    s->drv = &m->drv;
    fdx_status st = fdx_sim_run(s, m->drv.quiet ? NULL : progress, res);
    res->units = m->drv.units;
    res->procs = m->drv.procs;
    res->proc = fdx_dist_proc(m->d);
    /* The fields stay in the sim (pulled) for whoever reads them next. */
    if (st == FDX_OK) st = fdx_sim_pull(s);
    s->drv = NULL;
    dsim_free(m);
    return st;
}
