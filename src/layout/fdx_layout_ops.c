/* fdx_layout_ops: the public transforms: argument checks, planning, the choice
   between CPU loops and CUDA kernels, scratch buffers for two-pass
   conversions, and fdx_array_set_layout's all-or-nothing reorganization. */
#include "arrays/fdx_array_impl.h"
#include "layout/fdx_layout_plan.h"
#include "layout/fdx_layout_plan_cache.h"

#include <stdint.h>
#include <string.h>

static fdx_status check_elem(size_t elem)
{
    FDX_CHECK(elem == 1 || elem == 2 || elem == 4 || elem == 8 || elem == 16, FDX_ERR_INVALID,
              "element size %zu is not supported (1, 2, 4, 8 or 16 bytes)", elem);
    return FDX_OK;
}

/* Largest power of two <= 16 dividing both addresses. */
static size_t common_align(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t)a | (uintptr_t)b | 16;
    return (size_t)(x & (~x + 1));
}

static fdx_status check_buffers(const void *dst, const void *src, size_t elem)
{
    FDX_CHECK(dst && src, FDX_ERR_INVALID, "transform buffer is NULL");
    FDX_CHECK(common_align(dst, src) >= elem, FDX_ERR_INVALID, "buffers are not aligned to the element size %zu",
              elem);
    return FDX_OK;
}

/* A memory space: the context's backend (cuda = 1 runs the kernels) or the host. */
typedef struct space {
    const fdx_backend *be;
    int cuda;
} space;

static space ctx_space(fdx_ctx *ctx)
{
    space s = {fdx_ctx_ops(ctx), fdx_ctx_backend(ctx) == FDX_BACKEND_CUDA};
    return s;
}

static space host_space(void)
{
    space s = {fdx_backend_cpu(), 0};
    return s;
}

static fdx_status run_perm(space sp, void *dst, const void *src, const fdx_perm_plan *p, void *stream)
{
    return sp.cuda ? fdx_layout_cuda_perm(dst, src, p, stream) : fdx_layout_cpu_perm(dst, src, p);
}

static fdx_status run_diag(space sp, void *dst, const void *src, const fdx_diag_plan *p, void *stream)
{
    return sp.cuda ? fdx_layout_cuda_diag(dst, src, p, stream) : fdx_layout_cpu_diag(dst, src, p);
}

/* One step of a conversion between layouts of the same logical array. */
typedef struct step {
    int is_diag;
    fdx_perm_plan perm;
    fdx_diag_plan diag;
} step;

/* What is planned: a conversion (plan_convert), or fdx_permute's one
   permutation between distinct buffers or in place. */
typedef enum plan_op { PLAN_CONVERT, PLAN_PERMUTE, PLAN_PERMUTE_IN_PLACE } plan_op;
static fdx_status plan_cached(plan_op op, const fdx_layout *to, const fdx_layout *from, size_t elem,
                              const int64_t *shape, size_t align, step *steps, int *nsteps);

fdx_status fdx_permute(fdx_ctx *ctx, void *dst, const void *src, size_t elem_size, int rank, const int64_t *shape,
                       const int *perm, void *stream)
{
    FDX_CHECK(ctx, FDX_ERR_INVALID, "fdx_permute: context is NULL");
    FDX_TRY(check_elem(elem_size));
    FDX_TRY(check_buffers(dst, src, elem_size));
    FDX_TRY(fdx_shape_check(rank, shape, 1, elem_size));
    FDX_CHECK(perm, FDX_ERR_INVALID, "fdx_permute: perm is NULL");
    fdx_layout l;
    FDX_TRY(fdx_layout_make(rank, perm, FDX_DIAG_NONE, &l));
    step s;
    int n;
    FDX_TRY(plan_cached(dst == src ? PLAN_PERMUTE_IN_PLACE : PLAN_PERMUTE, &l, NULL, elem_size, shape,
                        common_align(dst, src), &s, &n));
    return run_perm(ctx_space(ctx), dst, src, &s.perm, fdx_ctx_stream(ctx, stream));
}

static void stored_shape(const fdx_layout *l, const int64_t *shape, int64_t *e)
{
    for (int p = 0; p < l->rank; p++) e[p] = shape[l->perm[p]];
}

static int64_t product(const int64_t *e, int from, int to)
{
    int64_t n = 1;
    for (int a = from; a < to; a++) n *= e[a];
    return n;
}

static void diag_step(step *s, size_t elem, const int64_t *e, int rank, fdx_diag d, int undiag)
{
    s->is_diag = 1;
    s->diag = (fdx_diag_plan){(int)elem, e[0], e[1], product(e, 2, rank), d, undiag};
}

/* Plans from -> to as at most three steps: leave the diagonal arrangement,
   permute the stored axes, enter the new diagonal arrangement.  Both diagonal
   with the two fastest stored axes kept and the same state: one permutation
   that moves whole planes. */
static fdx_status plan_convert(const fdx_layout *to, const fdx_layout *from, size_t elem, const int64_t *shape,
                               size_t align, step *steps, int *nsteps)
{
    const int rank = from->rank;
    int64_t e1[FDX_MAX_RANK], e2[FDX_MAX_RANK];
    int inv1[FDX_MAX_RANK], rel[FDX_MAX_RANK], rel_is_id = 1;
    stored_shape(from, shape, e1);
    stored_shape(to, shape, e2);
    for (int p = 0; p < rank; p++) inv1[from->perm[p]] = p;
    for (int p = 0; p < rank; p++) rel[p] = inv1[to->perm[p]], rel_is_id &= rel[p] == p;
    *nsteps = 0;
    if (from->diag != FDX_DIAG_NONE && from->diag == to->diag && rel[0] == 0 && rel[1] == 1) {
        int64_t m[FDX_MAX_RANK];
        int r[FDX_MAX_RANK];
        m[0] = e1[0] * e1[1];
        r[0] = 0;
        for (int p = 2; p < rank; p++) m[p - 1] = e1[p], r[p - 1] = rel[p] - 1;
        steps[(*nsteps)++].is_diag = 0;
        return fdx_perm_plan_make(elem, rank - 1, m, r, align, 0, &steps[0].perm);
    }
    if (from->diag != FDX_DIAG_NONE) diag_step(&steps[(*nsteps)++], elem, e1, rank, from->diag, 1);
    if (!rel_is_id || (from->diag == FDX_DIAG_NONE && to->diag == FDX_DIAG_NONE)) {
        step *s = &steps[(*nsteps)++];
        s->is_diag = 0;
        FDX_TRY(fdx_perm_plan_make(elem, rank, e1, rel, align, 0, &s->perm));
    }
    if (to->diag != FDX_DIAG_NONE) diag_step(&steps[(*nsteps)++], elem, e2, rank, to->diag, 0);
    return FDX_OK;
}

/* The plans of recent calls (fdx_layout_plan_cache.c): the key holds
   everything planning reads, unused fields zero so keys compare whole. */
typedef struct plan_key {
    int op, rank, to_perm[FDX_MAX_RANK], from_perm[FDX_MAX_RANK], to_diag, from_diag;
    int64_t shape[FDX_MAX_RANK];
    uint64_t elem, align;
    char knobs[448];
} plan_key;

typedef struct planned {
    int n;
    step steps[3];
} planned;

static fdx_status plan_cached(plan_op op, const fdx_layout *to, const fdx_layout *from, size_t elem,
                              const int64_t *shape, size_t align, step *steps, int *nsteps)
{
    plan_key k;
    planned v;
    memset(&k, 0, sizeof k);
    const int cache = fdx_layout_plan_knobs(k.knobs, sizeof k.knobs);
    k.op = (int)op;
    k.rank = to->rank;
    k.to_diag = (int)to->diag;
    k.from_diag = from ? (int)from->diag : 0;
    for (int a = 0; a < to->rank; a++) {
        k.to_perm[a] = to->perm[a];
        k.from_perm[a] = from ? from->perm[a] : a;
        k.shape[a] = shape[a];
    }
    k.elem = elem;
    k.align = align;
    if (cache && fdx_layout_plan_cache_find(&k, sizeof k, &v, sizeof v)) {
        memcpy(steps, v.steps, sizeof v.steps[0] * (size_t)v.n);
        *nsteps = v.n;
        return FDX_OK;
    }
    memset(&v, 0, sizeof v);
    if (op == PLAN_CONVERT) FDX_TRY(plan_convert(to, from, elem, shape, align, v.steps, &v.n));
    else {
        FDX_TRY(fdx_perm_plan_make(elem, to->rank, shape, to->perm, align, op == PLAN_PERMUTE_IN_PLACE, &v.steps[0].perm));
        v.n = 1;
    }
    if (cache) fdx_layout_plan_cache_put(&k, sizeof k, &v, sizeof v);
    memcpy(steps, v.steps, sizeof v.steps[0] * (size_t)v.n);
    *nsteps = v.n;
    return FDX_OK;
}

static fdx_status run_step(space sp, void *dst, const void *src, const step *s, void *stream)
{
    return s->is_diag ? run_diag(sp, dst, src, &s->diag, stream) : run_perm(sp, dst, src, &s->perm, stream);
}

/* Runs the steps src -> dst, through dst and one scratch buffer when there
   are several: 2 steps src->S->dst, 3 steps src->dst->S->dst. */
static fdx_status run_steps(space sp, void *dst, const void *src, const step *steps, int n, size_t bytes,
                            void *stream)
{
    if (n == 1) return run_step(sp, dst, src, &steps[0], stream);
    void *scratch = NULL;
    FDX_TRY(sp.be->alloc(bytes, &scratch));
    const void *in[3] = {src, n == 2 ? scratch : dst, scratch};
    void *out[3] = {n == 2 ? scratch : dst, n == 2 ? dst : scratch, dst};
    fdx_status st = FDX_OK;
    for (int i = 0; i < n && st == FDX_OK; i++) st = run_step(sp, out[i], in[i], &steps[i], stream);
    fdx_status st2 = sp.be->stream_sync(stream); /* the scratch must be idle before it goes */
    sp.be->free(scratch);
    return st != FDX_OK ? st : st2;
}

static fdx_status check_convert(const fdx_layout *to, const fdx_layout *from, size_t elem, int rank,
                                const int64_t *shape)
{
    FDX_TRY(check_elem(elem));
    FDX_TRY(fdx_shape_check(rank, shape, 1, elem));
    FDX_TRY(fdx_layout_check(from, rank));
    FDX_TRY(fdx_layout_check(to, rank));
    return FDX_OK;
}

fdx_status fdx_layout_convert(fdx_ctx *ctx, void *dst, const fdx_layout *to, const void *src,
                              const fdx_layout *from, size_t elem_size, int rank, const int64_t *shape, void *stream)
{
    FDX_CHECK(ctx, FDX_ERR_INVALID, "fdx_layout_convert: context is NULL");
    FDX_TRY(check_convert(to, from, elem_size, rank, shape));
    FDX_TRY(check_buffers(dst, src, elem_size));
    FDX_CHECK(dst != src, FDX_ERR_INVALID, "fdx_layout_convert needs distinct buffers (fdx_array_set_layout works in place)");
    step steps[3];
    int n;
    FDX_TRY(plan_cached(PLAN_CONVERT, to, from, elem_size, shape, common_align(dst, src), steps, &n));
    return run_steps(ctx_space(ctx), dst, src, steps, n, (size_t)product(shape, 0, rank) * elem_size, fdx_ctx_stream(ctx, stream));
}

static fdx_status box_run(fdx_ctx *ctx, void *array, void *plain, const fdx_layout *l, size_t elem, int rank,
                          const int64_t *shape, const int64_t *lo, const int64_t *box, int put, void *stream)
{
    FDX_CHECK(ctx, FDX_ERR_INVALID, "box copy: context is NULL");
    FDX_TRY(check_elem(elem));
    FDX_TRY(fdx_shape_check(rank, shape, 1, elem));
    FDX_TRY(fdx_layout_check(l, rank));
    FDX_TRY(check_buffers(array, plain, elem));
    FDX_CHECK(lo && box, FDX_ERR_INVALID, "box copy: lo or box is NULL");
    fdx_box_plan p;
    memset(&p, 0, sizeof p);
    p.word = (int)elem;
    p.put = put;
    p.count = 1;
    for (int a = 0; a < rank; a++) {
        FDX_CHECK(box[a] >= 1 && lo[a] >= 0 && lo[a] <= shape[a] - box[a], FDX_ERR_INVALID,
                  "box [%lld, %lld) on axis %d is not inside the extent %lld", (long long)lo[a],
                  (long long)(lo[a] + box[a]), a, (long long)shape[a]);
        p.lo[a] = lo[a];
        p.box[a] = box[a];
        p.count *= box[a];
    }
    fdx_index_map_make(l, shape, &p.map);
    space sp = ctx_space(ctx);
    return sp.cuda ? fdx_layout_cuda_box(array, plain, &p, fdx_ctx_stream(ctx, stream)) : fdx_layout_cpu_box(array, plain, &p);
}

fdx_status fdx_layout_box_get(fdx_ctx *ctx, void *plain, const void *array, const fdx_layout *l, size_t elem_size,
                              int rank, const int64_t *shape, const int64_t *lo, const int64_t *box, void *stream)
{
    return box_run(ctx, (void *)array, plain, l, elem_size, rank, shape, lo, box, 0, stream);
}

fdx_status fdx_layout_box_put(fdx_ctx *ctx, void *array, const void *plain, const fdx_layout *l, size_t elem_size,
                              int rank, const int64_t *shape, const int64_t *lo, const int64_t *box, void *stream)
{
    return box_run(ctx, array, (void *)plain, l, elem_size, rank, shape, lo, box, 1, stream);
}

fdx_status fdx_array_layout(const fdx_array *a, fdx_layout *out)
{
    FDX_CHECK(a && out, FDX_ERR_INVALID, "fdx_array_layout: NULL argument");
    *out = a->layout;
    return FDX_OK;
}

/* Converts one storage of the array: in place for square transposes, else
   into a new buffer (*fresh) that replaces the old one only once every
   storage has converted. */
static fdx_status convert_storage(space sp, void *buf, void **fresh, const step *steps, int n, size_t bytes)
{
    *fresh = NULL;
    if (n == 1 && !steps[0].is_diag && steps[0].perm.kind == FDX_PLAN_SQUARE) {
        FDX_TRY(run_step(sp, buf, buf, &steps[0], NULL));
        return sp.be->stream_sync(NULL);
    }
    FDX_TRY(sp.be->alloc(bytes, fresh));
    fdx_status st = run_steps(sp, *fresh, buf, steps, n, bytes, NULL);
    if (st == FDX_OK) st = sp.be->stream_sync(NULL);
    if (st != FDX_OK) {
        sp.be->free(*fresh);
        *fresh = NULL;
    }
    return st;
}

fdx_status fdx_array_set_layout(fdx_array *a, const fdx_layout *l)
{
    FDX_CHECK(a, FDX_ERR_INVALID, "fdx_array_set_layout: array is NULL");
    FDX_TRY(check_convert(l, &a->layout, a->elem_size, a->rank, a->shape));
    step steps[3];
    int n;
    FDX_TRY(plan_cached(PLAN_CONVERT, l, &a->layout, a->elem_size, a->shape, 16, steps, &n));
    if (n == 1 && !steps[0].is_diag && steps[0].perm.kind == FDX_PLAN_COPY) { /* same storage order */
        a->layout = *l;
        return FDX_OK;
    }
    FDX_CHECK(!a->borrowed, FDX_ERR_UNSUPPORTED, "fdx_array_set_layout: the array wraps the caller's memory, whose layout is the caller's (use fdx_layout_convert into another buffer)");
    FDX_TRY(fdx_ctx_ops(a->ctx)->stream_sync(fdx_ctx_stream(a->ctx, NULL))); /* the caller's work on the context's stream first */
    size_t bytes = fdx_array_bytes(a);
    /* Only current copies are converted (valid 0: not tracked, both are
       taken as current).  A stale copy keeps its old bytes: nothing reads it
       before the current copy is copied over it, in the new layout. */
    int shared = a->device == a->host;
    int dev_now = a->device && (!a->valid || (a->valid & FDX_ON_DEVICE) || shared);
    int host_now = a->host && !shared && (!a->valid || (a->valid & FDX_ON_HOST));
    if (!dev_now && !host_now) /* the mask names no storage the array has: as if not tracked */
        dev_now = a->device != NULL, host_now = a->host && !shared;
    /* A square swap of the two fastest axes runs in place, without scratch,
       when one storage converts: with two, a failure on the second could not
       be undone on the first. */
    if (!(dev_now && host_now) && n == 1 && !steps[0].is_diag) fdx_perm_plan_square(&steps[0].perm);
    void *fresh_dev = NULL, *fresh_host = NULL;
    space dev = ctx_space(a->ctx), host = host_space();
    fdx_status st = FDX_OK;
    if (dev_now) st = convert_storage(dev, a->device, &fresh_dev, steps, n, bytes);
    if (st == FDX_OK && host_now) st = convert_storage(host, a->host, &fresh_host, steps, n, bytes);
    if (st != FDX_OK) {
        if (fresh_dev) dev.be->free(fresh_dev);
        return st;
    }
    if (fresh_dev) {
        dev.be->free(a->device);
        if (shared) a->host = fresh_dev;
        a->device = fresh_dev;
    }
    if (fresh_host) {
        host.be->free(a->host);
        a->host = fresh_host;
    }
    a->layout = *l;
    return FDX_OK;
}
