/* fdx_darray: distributed arrays: local blocks with shadows, their face
   plans, filling from a function of the global index, gathering, and global
   checksums. */
#include "comm/fdx_comm_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int64_t lin3(const int64_t *n, const int64_t *i) { return i[0] + n[0] * (i[1] + n[1] * i[2]); }

/* A box is one contiguous run of the array when it spans the whole array on
   every axis below its highest axis of extent > 1. */
static int box_contiguous(const int64_t *n, const int64_t *box)
{
    int m = 2;
    while (m > 0 && box[m] == 1) m--;
    for (int b = 0; b < m; b++)
        if (box[b] != n[b]) return 0;
    return 1;
}

/* The faces of local unit i: for every split axis and side with a
   neighbour, the owned slab next to that side (sent, as wide as the
   neighbour's shadow facing it) and the shadow slab (received, as wide as
   this array's shadow on that side).  Without corners the slabs cover the
   owned range of the other axes; with them the whole local extent, which is
   why corner exchanges go axis after axis. */
static fdx_status plan_faces(fdx_darray *a, int i)
{
    fdx_dist *d = a->dist;
    fdx_unit_plan *p = &a->unit[i];
    int unit = d->proc * d->nlocal + i, c[3];
    fdx_dist_coords(d, unit, c);
    int64_t lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1}, sl[3], sh[3];
    fdx_dist_owned(d, unit, lo, hi);
    for (int ax = 0; ax < 3; ax++) {
        int split = ax < d->desc.rank && d->desc.grid[ax] > 1;
        sl[ax] = split && c[ax] > 0 ? a->shadow_lo[ax] : 0;
        sh[ax] = split && c[ax] < d->desc.grid[ax] - 1 ? a->shadow_hi[ax] : 0;
        p->n3[ax] = hi[ax] - lo[ax] + sl[ax] + sh[ax];
        p->origin[ax] = lo[ax] - sl[ax];
    }
    p->nfaces = 0;
    for (int ax = 0; ax < d->desc.rank; ax++)
        for (int side = 0; side < 2; side++) {
            /* receive what my shadow on this side holds, send what the
               neighbour's shadow on the facing side holds */
            int has = side ? c[ax] < d->desc.grid[ax] - 1 : c[ax] > 0;
            int rw = side ? (int)sh[ax] : (int)sl[ax], sw = side ? a->shadow_lo[ax] : a->shadow_hi[ax];
            /* A periodic axis's end faces: the frame F (owned points) is
               received from the far end's unknowns next to its frame, and
               the unknowns next to this frame are sent there. */
            int wrap = !has && d->desc.periodic[ax] > 0, F = d->desc.periodic[ax];
            if (wrap) rw = sw = F;
            if ((!has && !wrap) || (rw == 0 && sw == 0)) continue;
            fdx_face *f = &p->faces[p->nfaces++];
            memset(f, 0, sizeof *f);
            f->axis = ax, f->side = side;
            int nc[3] = {c[0], c[1], c[2]};
            nc[ax] = wrap ? (side ? 0 : d->desc.grid[ax] - 1) : nc[ax] + (side ? 1 : -1);
            f->peer = fdx_dist_unit_at(d, nc);
            for (int b = 0; b < 3; b++) {
                int full = a->corners || b >= d->desc.rank;
                f->sbox[b] = f->rbox[b] = full ? p->n3[b] : hi[b] - lo[b];
                f->send_lo[b] = f->recv_lo[b] = full ? 0 : sl[b];
            }
            f->sbox[ax] = sw, f->rbox[ax] = rw;
            f->send_lo[ax] = wrap ? (side ? p->n3[ax] - 2 * F : F) : side ? p->n3[ax] - sh[ax] - sw : sl[ax];
            f->recv_lo[ax] = side ? p->n3[ax] - rw : 0;
            f->sbytes = (size_t)(f->sbox[0] * f->sbox[1] * f->sbox[2]) * a->elem;
            f->rbytes = (size_t)(f->rbox[0] * f->rbox[1] * f->rbox[2]) * a->elem;
            int scontig = box_contiguous(p->n3, f->sbox), rcontig = box_contiguous(p->n3, f->rbox);
            f->send_off = scontig ? lin3(p->n3, f->send_lo) : -1;
            f->recv_off = rcontig ? lin3(p->n3, f->recv_lo) : -1;
            const fdx_backend *be = d->be;
            if (!scontig && f->sbytes) FDX_TRY(be->alloc(f->sbytes, &f->send_buf));
            if (!rcontig && f->rbytes) FDX_TRY(be->alloc(f->rbytes, &f->recv_buf));
            int remote = f->peer / d->nlocal != d->proc;
            if (remote && be->kind == FDX_BACKEND_CUDA && !d->cuda_aware) {
                if (f->sbytes) FDX_TRY(fdx_comm_host_alloc(be, f->sbytes, &f->host_send));
                if (f->rbytes) FDX_TRY(fdx_comm_host_alloc(be, f->rbytes, &f->host_recv));
            }
        }
    return FDX_OK;
}

/* The block of unit i in the plain layout (the pack kernels, direct face
   copies and host reads below index it so). */
static int block_plain(const fdx_darray *a, int i) { return fdx_layout_is_identity(&a->unit[i].local->layout); }

fdx_status fdx_darray_sync_faces(fdx_darray *a)
{
    fdx_dist *d = a->dist;
    for (int i = 0; i < d->nlocal; i++) {
        fdx_unit_plan *p = &a->unit[i];
        int plain = block_plain(a, i);
        for (int k = 0; k < p->nfaces; k++) {
            fdx_face *f = &p->faces[k];
            int sc = plain && box_contiguous(p->n3, f->sbox), rc = plain && box_contiguous(p->n3, f->rbox);
            if ((f->send_off >= 0) == sc && (f->recv_off >= 0) == rc) continue;
            FDX_TRY(fdx_dist_use(d, i));
            f->send_off = sc ? lin3(p->n3, f->send_lo) : -1;
            f->recv_off = rc ? lin3(p->n3, f->recv_lo) : -1;
            if (!sc && f->sbytes && !f->send_buf) FDX_TRY(d->be->alloc(f->sbytes, &f->send_buf));
            if (!rc && f->rbytes && !f->recv_buf) FDX_TRY(d->be->alloc(f->rbytes, &f->recv_buf));
        }
    }
    return FDX_OK;
}

/* The seed's transform kind 5 (slices of a reorganized array): a face of
   a permuted or diagonal block is read or written in place by the layout
   engine's box copy, the block keeps its layout. */
fdx_status fdx_darray_box_copy(fdx_darray *a, int i, const int64_t *lo, const int64_t *box, void *buf, int pack,
                               void *stream)
{
    fdx_unit_plan *u = &a->unit[i];
    fdx_array *b = u->local;
    for (int k = 0; k < 3; k++)
        if (box[k] <= 0) return FDX_OK;
    if (block_plain(a, i)) {
        fdx_box_copy c = {0};
        c.elem = a->elem;
        for (int k = 0; k < 3; k++) {
            c.box[k] = box[k];
            if (pack) c.sn[k] = u->n3[k], c.slo[k] = lo[k], c.dn[k] = box[k];
            else c.dn[k] = u->n3[k], c.dlo[k] = lo[k], c.sn[k] = box[k];
        }
        if (pack) c.src = fdx_array_device(b), c.dst = buf;
        else c.src = buf, c.dst = fdx_array_device(b);
        return fdx_comm_box_copy(a->dist->be, &c, stream);
    }
    int with = a->ncomp > 1, rank = a->dist->desc.rank + with;
    int64_t alo[FDX_MAX_RANK] = {0}, abox[FDX_MAX_RANK] = {a->ncomp};
    for (int k = 0; k < a->dist->desc.rank; k++) alo[k + with] = lo[k], abox[k + with] = box[k];
    fdx_ctx *ctx = a->dist->ctx[i];
    if (pack) return fdx_layout_box_get(ctx, buf, fdx_array_device(b), &b->layout, b->elem_size, rank, b->shape, alo, abox, stream);
    return fdx_layout_box_put(ctx, fdx_array_device(b), buf, &b->layout, b->elem_size, rank, b->shape, alo, abox, stream);
}

/* Unit i's block on the host in the plain layout: its host copy, or a
   copy (*tmp, freed by the caller) read through the block's layout. */
static fdx_status block_host(fdx_darray *a, int i, const void **h, void **tmp)
{
    fdx_array *b = a->unit[i].local;
    *tmp = NULL;
    if (block_plain(a, i)) {
        FDX_TRY(fdx_array_to_host(b));
        *h = fdx_array_host(b);
        return FDX_OK;
    }
    *tmp = malloc(fdx_array_bytes(b));
    FDX_CHECK(*tmp, FDX_ERR_NOMEM, "out of host memory reading a block of %zu bytes", fdx_array_bytes(b));
    fdx_status st = fdx_array_get(b, *tmp);
    if (st != FDX_OK) {
        free(*tmp);
        *tmp = NULL;
        return st;
    }
    *h = *tmp;
    return FDX_OK;
}

static fdx_status check_desc(const fdx_dist *d, const fdx_darray_desc *dd)
{
    FDX_CHECK(dd->type == FDX_FLOAT32 || dd->type == FDX_FLOAT64, FDX_ERR_INVALID,
              "distributed arrays hold float or double, not %s", fdx_dtype_name(dd->type));
    FDX_CHECK(dd->ncomp >= 0 && dd->ncomp <= 64, FDX_ERR_INVALID, "%d values a point: 1 to 64", dd->ncomp);
    if (!dd->own_shadow) return FDX_OK;
    for (int ax = 0; ax < d->desc.rank; ax++) {
        FDX_CHECK(dd->shadow_lo[ax] >= 0 && dd->shadow_hi[ax] >= 0, FDX_ERR_INVALID,
                  "array shadow widths %d:%d on axis %d are negative", dd->shadow_lo[ax], dd->shadow_hi[ax], ax);
        /* each part sends at most what it owns */
        int64_t part = d->desc.shape[ax] / d->desc.grid[ax];
        int w = dd->shadow_lo[ax] > dd->shadow_hi[ax] ? dd->shadow_lo[ax] : dd->shadow_hi[ax];
        FDX_CHECK(d->desc.grid[ax] == 1 || part >= w, FDX_ERR_INVALID,
                  "axis %d: parts of %lld points are thinner than the array's shadow width %d", ax, (long long)part, w);
    }
    return FDX_OK;
}

fdx_status fdx_darray_create(fdx_dist *d, fdx_dtype type, fdx_darray **out)
{
    fdx_darray_desc dd = {0};
    dd.type = type;
    return fdx_darray_create_desc(d, &dd, out);
}

fdx_status fdx_darray_create_desc(fdx_dist *d, const fdx_darray_desc *dd, fdx_darray **out)
{
    FDX_CHECK(d && dd && out, FDX_ERR_INVALID, "fdx_darray_create: NULL argument");
    *out = NULL;
    FDX_TRY(check_desc(d, dd));
    fdx_darray *a = calloc(1, sizeof *a);
    FDX_CHECK(a, FDX_ERR_NOMEM, "out of memory for a distributed array");
    a->dist = d, a->type = dd->type, a->ncomp = dd->ncomp > 1 ? dd->ncomp : 1;
    a->elem = fdx_dtype_size(dd->type) * (size_t)a->ncomp;
    a->own_shadow = dd->own_shadow;
    a->corners = dd->own_shadow ? dd->corners : d->desc.corners;
    for (int ax = 0; ax < 3; ax++) {
        a->shadow_lo[ax] = ax >= d->desc.rank ? 0 : dd->own_shadow ? dd->shadow_lo[ax] : d->desc.shadow[ax];
        a->shadow_hi[ax] = ax >= d->desc.rank ? 0 : dd->own_shadow ? dd->shadow_hi[ax] : d->desc.shadow[ax];
    }
    fdx_dtype type = dd->type;
    fdx_status st;
    FDX_TRY_GOTO(st, fdx_mpi_reqs_create(d->comm_mpi, 4 * FDX_MAX_FACES * d->nlocal, &a->reqs), fail);
    int cuda = d->be->kind == FDX_BACKEND_CUDA;
    for (int i = 0; i < d->nlocal; i++) {
        fdx_unit_plan *p = &a->unit[i];
        FDX_TRY_GOTO(st, fdx_dist_use(d, i), fail);
        FDX_TRY_GOTO(st, plan_faces(a, i), fail);
        /* The CPU stencil reads host storage, which is the device buffer. */
        /* with components: (ncomp, local extents), the component axis first */
        int64_t shape[FDX_DIST_MAX_RANK + 1] = {a->ncomp, p->n3[0], p->n3[1], p->n3[2]};
        int with = a->ncomp > 1;
        FDX_TRY_GOTO(st, fdx_array_create(d->ctx[i], type, d->desc.rank + with, with ? shape : p->n3,
                                          cuda ? FDX_ON_DEVICE : FDX_ON_HOST | FDX_ON_DEVICE, &p->local), fail);
        if (cuda) {
            FDX_TRY_GOTO(st, fdx_comm_event_create(d->be, &p->ready), fail);
            FDX_TRY_GOTO(st, fdx_comm_event_create(d->be, &p->packed), fail);
            FDX_TRY_GOTO(st, fdx_comm_event_create(d->be, &p->done), fail);
        }
    }
    *out = a;
    return FDX_OK;
fail:
    fdx_darray_destroy(&a);
    return st;
}

void fdx_darray_destroy(fdx_darray **pa)
{
    if (!pa || !*pa) return;
    fdx_darray *a = *pa;
    fdx_dist *d = a->dist;
    for (int i = 0; i < d->nlocal; i++) {
        fdx_unit_plan *p = &a->unit[i];
        fdx_dist_use(d, i);
        for (int f = 0; f < p->nfaces; f++) {
            if (p->faces[f].send_buf) d->be->free(p->faces[f].send_buf);
            if (p->faces[f].recv_buf) d->be->free(p->faces[f].recv_buf);
            fdx_comm_host_free(d->be, p->faces[f].host_send);
            fdx_comm_host_free(d->be, p->faces[f].host_recv);
        }
        if (p->ready) d->be->event_destroy(p->ready);
        if (p->packed) d->be->event_destroy(p->packed);
        if (p->done) d->be->event_destroy(p->done);
        fdx_array_destroy(&p->local);
    }
    fdx_mpi_reqs_destroy(&a->reqs);
    free(a);
    *pa = NULL;
}

fdx_array *fdx_darray_local(fdx_darray *a, int i)
{
    return a && i >= 0 && i < a->dist->nlocal ? a->unit[i].local : NULL;
}

void fdx_darray_local_origin(const fdx_darray *a, int i, int64_t *origin)
{
    for (int ax = 0; ax < a->dist->desc.rank; ax++) origin[ax] = a->unit[i].origin[ax];
}

static double get(const void *p, int is_double, int64_t q)
{
    return is_double ? ((const double *)p)[q] : (double)((const float *)p)[q];
}

fdx_status fdx_darray_fill(fdx_darray *a, fdx_dist_init_fn fn, void *arg)
{
    FDX_CHECK(a && fn, FDX_ERR_INVALID, "fdx_darray_fill: NULL argument");
    fdx_dist *d = a->dist;
    FDX_TRY(fdx_dist_sync(d));
    int is_double = a->type == FDX_FLOAT64;
    for (int i = 0; i < d->nlocal; i++) {
        fdx_unit_plan *p = &a->unit[i];
        FDX_TRY(fdx_dist_use(d, i));
        /* every element is written: a reorganized block takes the plain
           layout back without moving its old values */
        FDX_TRY(fdx_layout_identity(p->local->rank, &p->local->layout));
        FDX_TRY(fdx_array_fill_host(p->local, 0.0)); /* makes the host copy */
        void *h = fdx_array_host(p->local);
        /* fn is a pure function of the global index (documented). */
#pragma omp parallel for collapse(2)
        for (int64_t k = 0; k < p->n3[2]; k++)
            for (int64_t j = 0; j < p->n3[1]; j++)
                for (int64_t x = 0; x < p->n3[0]; x++)
                    for (int c = 0; c < a->ncomp; c++) {
                        int64_t g[4] = {p->origin[0] + x, p->origin[1] + j, p->origin[2] + k, c};
                        double v = fn(g, arg);
                        int64_t q = c + a->ncomp * (x + p->n3[0] * (j + p->n3[1] * k));
                        if (is_double) ((double *)h)[q] = v;
                        else ((float *)h)[q] = (float)v;
                    }
        FDX_TRY(fdx_array_to_device(p->local));
        /* The copy ran on the legacy stream; the units' streams do not wait
           for it by themselves. */
        FDX_TRY(d->be->device_sync());
    }
    /* Periodic frames hold f of their own index, not of their image: the
       next stencil step renews them first. */
    for (int ax = 0; ax < d->desc.rank; ax++) a->stale |= d->desc.periodic[ax] > 0;
    return FDX_OK;
}

fdx_status fdx_darray_gather_box(fdx_darray *a, const int64_t *blo, const int64_t *bhi, void *out, int gather_all)
{
    fdx_dist *d = a->dist;
    int64_t bn[3];
    for (int ax = 0; ax < 3; ax++) bn[ax] = bhi[ax] - blo[ax];
    size_t bytes = (size_t)(bn[0] * bn[1] * bn[2]) * a->elem;
    FDX_TRY(fdx_dist_sync(d));
    if (gather_all && d->procs > 1) memset(out, 0, bytes);
    for (int i = 0; i < d->nlocal; i++) {
        fdx_unit_plan *p = &a->unit[i];
        int64_t lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
        fdx_dist_owned(d, d->proc * d->nlocal + i, lo, hi);
        int empty = 0;
        for (int ax = 0; ax < 3; ax++) {
            lo[ax] = lo[ax] > blo[ax] ? lo[ax] : blo[ax];
            hi[ax] = hi[ax] < bhi[ax] ? hi[ax] : bhi[ax];
            empty |= hi[ax] <= lo[ax];
        }
        if (empty) continue;
        FDX_TRY(fdx_dist_use(d, i));
        const void *hv;
        void *tmp;
        FDX_TRY(block_host(a, i, &hv, &tmp));
        const char *h = hv;
        size_t row = (size_t)(hi[0] - lo[0]) * a->elem;
        for (int64_t k = lo[2]; k < hi[2]; k++)
            for (int64_t j = lo[1]; j < hi[1]; j++) {
                int64_t bi[3] = {lo[0] - blo[0], j - blo[1], k - blo[2]};
                int64_t li[3] = {lo[0] - p->origin[0], j - p->origin[1], k - p->origin[2]};
                memcpy((char *)out + (size_t)lin3(bn, bi) * a->elem, h + (size_t)lin3(p->n3, li) * a->elem, row);
            }
        free(tmp);
    }
    if (gather_all && d->procs > 1) FDX_TRY(fdx_mpi_xor(d->comm_mpi, out, bytes));
    return FDX_OK;
}

fdx_status fdx_darray_gather(fdx_darray *a, void *global, int gather_all)
{
    FDX_CHECK(a && global, FDX_ERR_INVALID, "fdx_darray_gather: NULL argument");
    int64_t lo[3] = {0, 0, 0};
    return fdx_darray_gather_box(a, lo, a->dist->desc.shape, global, gather_all);
}

fdx_status fdx_darray_gather_points(fdx_darray *a, int n, const int64_t *idx, void *out)
{
    fdx_dist *d = a->dist;
    int rank = d->desc.rank;
    FDX_TRY(fdx_dist_sync(d));
    memset(out, 0, (size_t)n * a->elem);
    for (int i = 0; i < d->nlocal; i++) {
        fdx_unit_plan *p = &a->unit[i];
        int64_t lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
        fdx_dist_owned(d, d->proc * d->nlocal + i, lo, hi);
        const void *h = NULL;
        void *tmp = NULL;
        for (int q = 0; q < n; q++) {
            int64_t li[3] = {0, 0, 0};
            int mine = 1;
            for (int ax = 0; ax < rank; ax++) {
                int64_t g = idx[q * rank + ax];
                mine &= g >= lo[ax] && g < hi[ax];
                li[ax] = g - p->origin[ax];
            }
            if (!mine) continue;
            if (!h) {
                FDX_TRY(fdx_dist_use(d, i));
                FDX_TRY(block_host(a, i, &h, &tmp));
            }
            memcpy((char *)out + (size_t)q * a->elem, (const char *)h + (size_t)lin3(p->n3, li) * a->elem, a->elem);
        }
        free(tmp);
    }
    if (d->procs > 1) FDX_TRY(fdx_mpi_xor(d->comm_mpi, out, (size_t)n * a->elem));
    return FDX_OK;
}

static uint64_t mix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

fdx_status fdx_darray_checksum(fdx_darray *a, fdx_dist_checksum *out)
{
    FDX_CHECK(a && out, FDX_ERR_INVALID, "fdx_darray_checksum: NULL argument");
    fdx_dist *d = a->dist;
    const int64_t *gn = d->desc.shape;
    int is_double = a->type == FDX_FLOAT64;
    double s[2] = {0, 0};
    uint64_t digest = 0;
    FDX_TRY(fdx_dist_sync(d));
    for (int i = 0; i < d->nlocal; i++) {
        fdx_unit_plan *p = &a->unit[i];
        FDX_TRY(fdx_dist_use(d, i));
        const void *h;
        void *tmp;
        FDX_TRY(block_host(a, i, &h, &tmp));
        int64_t lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
        fdx_dist_owned(d, d->proc * d->nlocal + i, lo, hi);
        double sum = 0, l2 = 0;
        uint64_t dg = 0;
#pragma omp parallel for collapse(2) reduction(+ : sum, l2, dg)
        for (int64_t k = lo[2]; k < hi[2]; k++)
            for (int64_t j = lo[1]; j < hi[1]; j++)
                for (int64_t xc = lo[0] * a->ncomp; xc < hi[0] * a->ncomp; xc++) {
                    int64_t x = xc / a->ncomp, c = xc % a->ncomp;
                    int64_t gi[3] = {x, j, k}, li[3] = {x - p->origin[0], j - p->origin[1], k - p->origin[2]};
                    int64_t q = lin3(p->n3, li) * a->ncomp + c;
                    double v = get(h, is_double, q);
                    uint64_t bits = 0;
                    if (is_double) memcpy(&bits, (const double *)h + q, 8);
                    else memcpy(&bits, (const float *)h + q, 4);
                    sum += v;
                    l2 += v * v;
                    /* Addition modulo 2^64 commutes: any split gives one digest. */
                    dg += mix64((uint64_t)(lin3(gn, gi) * a->ncomp + c) * 0x100000001B3ULL ^ mix64(bits));
                }
        s[0] += sum, s[1] += l2, digest += dg;
        free(tmp);
    }
    FDX_TRY(fdx_mpi_sum_double(d->comm_mpi, s, 2));
    FDX_TRY(fdx_mpi_sum_u64(d->comm_mpi, &digest, 1));
    out->sum = s[0];
    out->l2 = sqrt(s[1]);
    out->digest = digest;
    return FDX_OK;
}
