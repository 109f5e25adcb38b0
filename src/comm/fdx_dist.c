/* fdx_dist: the distribution of a global grid over units (MPI ranks x local
   units), one context and two streams per local unit. */
#include "comm/fdx_comm_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Start of part c of n points split into p parts; the first n % p parts get
   one point more, so parts differ by at most one point. */
static int64_t part_start(int64_t n, int p, int c) { return c * (n / p) + (c < n % p ? c : n % p); }

void fdx_dist_coords(const fdx_dist *d, int unit, int *c)
{
    for (int a = 0; a < 3; a++) {
        int g = a < d->desc.rank ? d->desc.grid[a] : 1;
        c[a] = unit % g;
        unit /= g;
    }
}

int fdx_dist_unit_at(const fdx_dist *d, const int *c)
{
    int u = 0;
    for (int a = d->desc.rank - 1; a >= 0; a--) {
        if (c[a] < 0 || c[a] >= d->desc.grid[a]) return -1;
        u = u * d->desc.grid[a] + c[a];
    }
    return u;
}

int fdx_dist_shadow(const fdx_dist *d, int unit, int axis, int side)
{
    int c[3];
    fdx_dist_coords(d, unit, c);
    int edge = side ? c[axis] == d->desc.grid[axis] - 1 : c[axis] == 0;
    return edge ? 0 : d->desc.shadow[axis];
}

void fdx_dist_owned(const fdx_dist *d, int unit, int64_t *lo, int64_t *hi)
{
    int c[3];
    fdx_dist_coords(d, unit, c);
    for (int a = 0; a < d->desc.rank; a++) {
        /* frames: the inner points split by the rule, the frames added to the end parts */
        const int64_t F = d->frame[a], n = d->desc.shape[a] - 2 * F;
        const int g = d->desc.grid[a];
        lo[a] = c[a] == 0 ? 0 : F + part_start(n, g, c[a]);
        hi[a] = c[a] == g - 1 ? d->desc.shape[a] : F + part_start(n, g, c[a] + 1);
    }
}

fdx_status fdx_dist_use(const fdx_dist *d, int i) { return d->be->set_device(d->ordinal[i]); }

static fdx_status check_desc(fdx_dist_desc *d, int units)
{
    FDX_CHECK(d->rank >= 1 && d->rank <= FDX_DIST_MAX_RANK, FDX_ERR_INVALID,
              "distributed arrays have rank 1..%d, not %d", FDX_DIST_MAX_RANK, d->rank);
    int auto_grid = 1;
    for (int a = 0; a < d->rank; a++) auto_grid &= d->grid[a] == 0;
    for (int a = 0; a < d->rank; a++) {
        if (auto_grid) d->grid[a] = a == d->rank - 1 ? units : 1;
        FDX_CHECK(d->grid[a] >= 1, FDX_ERR_INVALID, "grid[%d] = %d: every axis needs >= 1 unit", a, d->grid[a]);
        FDX_CHECK(d->shadow[a] >= 0, FDX_ERR_INVALID, "shadow width %d on axis %d is negative", d->shadow[a], a);
        /* Each part must own at least as many points as it sends. */
        int64_t part = d->shape[a] / d->grid[a];
        FDX_CHECK(d->grid[a] == 1 || part >= d->shadow[a], FDX_ERR_INVALID,
                  "axis %d: %lld points over %d units leaves parts of %lld points, fewer than the shadow width %d", a,
                  (long long)d->shape[a], d->grid[a], (long long)part, d->shadow[a]);
        FDX_CHECK(part >= 1, FDX_ERR_INVALID, "axis %d: %lld points cannot be split over %d units", a,
                  (long long)d->shape[a], d->grid[a]);        /* a periodic frame is sent and received by the end parts */
        FDX_CHECK(d->periodic[a] >= 0 && part >= 2 * (int64_t)d->periodic[a], FDX_ERR_INVALID,
                  "axis %d: a periodic frame of %d points needs parts of at least %d points, not %lld", a,
                  d->periodic[a], 2 * d->periodic[a], (long long)part);
    }
    int prod = 1;
    for (int a = 0; a < d->rank; a++) prod *= d->grid[a];
    FDX_CHECK(prod == units, FDX_ERR_INVALID,
              "the unit grid has %d units but the job has %d (processes x units per process)", prod, units);
    for (int a = d->rank; a < FDX_DIST_MAX_RANK; a++) d->shape[a] = 1, d->grid[a] = 1, d->shadow[a] = 0, d->periodic[a] = 0;
    return FDX_OK;
}

fdx_status fdx_dist_create(const fdx_options *opts, const fdx_dist_desc *desc, fdx_dist **out)
{
    FDX_CHECK(desc && out, FDX_ERR_INVALID, "fdx_dist_create: NULL argument");
    *out = NULL;
    FDX_CHECK(desc->units_per_proc >= 1 && desc->units_per_proc <= FDX_DIST_MAX_LOCAL, FDX_ERR_INVALID,
              "units per process must be 1..%d, not %d", FDX_DIST_MAX_LOCAL, desc->units_per_proc);
    fdx_dist *d = calloc(1, sizeof *d);
    FDX_CHECK(d, FDX_ERR_NOMEM, "out of memory for a distribution");
    d->desc = *desc;
    fdx_options *o = NULL;
    fdx_status st;
    FDX_TRY_GOTO(st, fdx_mpi_join(desc->mpi_comm, &d->comm_mpi, &d->procs, &d->proc, &d->node_rank), fail);
    d->nlocal = desc->units_per_proc;
    d->units = d->procs * d->nlocal;
    FDX_TRY_GOTO(st, check_desc(&d->desc, d->units), fail);
    d->cuda_aware = d->procs > 1 && fdx_mpi_cuda_aware();

    /* One context per unit, each on its own device. */
    FDX_TRY_GOTO(st, fdx_options_create(&o), fail);
    for (int i = 0; i < fdx_options_count(); i++) {
        const char *name, *env, *def, *help;
        fdx_options_describe(i, &name, &env, &def, &help);
        const char *v = opts ? fdx_options_get(opts, name) : NULL;
        if (v) FDX_TRY_GOTO(st, fdx_options_set(o, name, v), fail);
    }
    int ndev = fdx_cuda_device_count(), first = atoi(fdx_options_get(o, "device"));
    for (int i = 0; i < d->nlocal; i++) {
        char dev[16];
        int ordinal = ndev > 0 ? (first + d->node_rank * d->nlocal + i) % ndev : 0;
        snprintf(dev, sizeof dev, "%d", ordinal);
        FDX_TRY_GOTO(st, fdx_options_set(o, "device", dev), fail);
        FDX_TRY_GOTO(st, fdx_ctx_create(o, &d->ctx[i]), fail);
        d->ordinal[i] = fdx_ctx_device(d->ctx[i])->ordinal;
    }
    d->be = fdx_ctx_ops(d->ctx[0]);
    for (int i = 0; i < d->nlocal; i++) {
        FDX_TRY_GOTO(st, fdx_dist_use(d, i), fail);
        FDX_TRY_GOTO(st, d->be->stream_create(&d->compute[i]), fail);
        FDX_TRY_GOTO(st, fdx_comm_stream_create_urgent(d->be, &d->comm[i]), fail);
        for (int j = 0; j < d->nlocal; j++)
            FDX_TRY_GOTO(st, fdx_comm_enable_peer(d->be, d->ordinal[i], d->ordinal[j]), fail);
    }
    fdx_options_destroy(&o);
    *out = d;
    return FDX_OK;
fail:
    fdx_options_destroy(&o);
    fdx_dist_destroy(&d);
    return st;
}

fdx_status fdx_dist_create_framed(const fdx_options *opts, const fdx_dist_desc *desc, const int64_t *frame,
                                  fdx_dist **out)
{
    FDX_CHECK(desc && frame && out, FDX_ERR_INVALID, "fdx_dist_create_framed: NULL argument");
    *out = NULL;
    for (int a = 0; a < desc->rank && a < FDX_DIST_MAX_RANK; a++)
        FDX_CHECK(frame[a] >= 0 && desc->grid[a] >= 1 && desc->shape[a] - 2 * frame[a] >= desc->grid[a], FDX_ERR_INVALID,
                  "axis %d: %lld points less frames of %lld leave fewer points than its %d parts", a,
                  (long long)desc->shape[a], (long long)frame[a], desc->grid[a]);
    /* fdx_dist_create checks the periodic frames against parts of the
       whole shape; the framed parts at the ends are checked here */
    fdx_dist_desc d = *desc;
    for (int a = 0; a < desc->rank && a < FDX_DIST_MAX_RANK; a++) {
        const int64_t n = desc->shape[a] - 2 * frame[a];
        const int64_t end = frame[a] + n - part_start(n, desc->grid[a], desc->grid[a] - 1); /* the last: the smaller */
        FDX_CHECK(desc->periodic[a] >= 0 && end >= 2 * (int64_t)desc->periodic[a], FDX_ERR_INVALID,
                  "axis %d: a periodic frame of %d points needs end parts of at least %d points, not %lld", a,
                  desc->periodic[a], 2 * desc->periodic[a], (long long)end);
        d.periodic[a] = 0;
    }
    FDX_TRY(fdx_dist_create(opts, &d, out));
    for (int a = 0; a < (*out)->desc.rank; a++) (*out)->frame[a] = frame[a], (*out)->desc.periodic[a] = desc->periodic[a];
    return FDX_OK;
}

void fdx_dist_destroy(fdx_dist **pd)
{
    if (!pd || !*pd) return;
    fdx_dist *d = *pd;
    for (int i = 0; i < d->nlocal; i++) {
        if (d->be && d->ctx[i]) {
            fdx_dist_use(d, i);
            if (d->compute[i]) d->be->stream_destroy(d->compute[i]);
            if (d->comm[i]) d->be->stream_destroy(d->comm[i]);
        }
        fdx_ctx_destroy(&d->ctx[i]);
    }
    fdx_mpi_comm_free(&d->comm_mpi);
    free(d);
    *pd = NULL;
}

void fdx_dist_finalize(void) { fdx_mpi_finalize(); }

int fdx_dist_units(const fdx_dist *d) { return d->units; }
int fdx_dist_local_units(const fdx_dist *d) { return d->nlocal; }
int fdx_dist_procs(const fdx_dist *d) { return d->procs; }
int fdx_dist_proc(const fdx_dist *d) { return d->proc; }
fdx_ctx *fdx_dist_ctx(const fdx_dist *d, int i) { return i >= 0 && i < d->nlocal ? d->ctx[i] : NULL; }
const fdx_dist_desc *fdx_dist_get_desc(const fdx_dist *d) { return &d->desc; }
void *fdx_dist_stream(const fdx_dist *d, int i) { return i >= 0 && i < d->nlocal ? d->compute[i] : NULL; }

const char *fdx_dist_transport(const fdx_dist *d)
{
    if (d->procs == 1) return "none";
    if (d->be->kind != FDX_BACKEND_CUDA) return "host";
    return d->cuda_aware ? "cuda-aware" : "staged";
}

fdx_status fdx_dist_sync(fdx_dist *d)
{
    for (int i = 0; i < d->nlocal; i++) {
        FDX_TRY(fdx_dist_use(d, i));
        FDX_TRY(d->be->stream_sync(d->comm[i]));
        FDX_TRY(d->be->stream_sync(d->compute[i]));
    }
    return FDX_OK;
}

fdx_status fdx_dist_xor_bytes(const fdx_dist *d, void *buf, size_t bytes)
{
    return fdx_mpi_xor(d->comm_mpi, buf, bytes);
}

fdx_status fdx_dist_sum_doubles(const fdx_dist *d, double *v, int n)
{
    return d->procs > 1 ? fdx_mpi_sum_double(d->comm_mpi, v, n) : FDX_OK;
}
