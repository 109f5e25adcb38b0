/* fdx_array: creation, storage on the host and the device, explicit copies. */
#include "arrays/fdx_array_impl.h"
#include "core/fdx_log.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

fdx_status fdx_shape_check(int rank, const int64_t *shape, int64_t min_extent, size_t elem_size)
{
    FDX_CHECK(rank >= 1 && rank <= FDX_MAX_RANK, FDX_ERR_INVALID, "rank %d out of range 1..%d", rank,
              FDX_MAX_RANK);
    FDX_CHECK(shape, FDX_ERR_INVALID, "shape is NULL");
    FDX_CHECK(elem_size > 0, FDX_ERR_INVALID, "element size is 0");
    uint64_t total = elem_size;
    for (int a = 0; a < rank; a++) {
        FDX_CHECK(shape[a] >= min_extent, FDX_ERR_INVALID, "extent %lld of axis %d is below the minimum %lld",
                  (long long)shape[a], a, (long long)min_extent);
        FDX_CHECK(total <= (uint64_t)INT64_MAX / (uint64_t)shape[a], FDX_ERR_NOMEM,
                  "array of shape with extent %lld on axis %d overflows 64-bit sizes", (long long)shape[a], a);
        total *= (uint64_t)shape[a];
    }
    FDX_CHECK(total <= SIZE_MAX, FDX_ERR_NOMEM, "array of %llu bytes does not fit in size_t",
              (unsigned long long)total);
    return FDX_OK;
}

fdx_status fdx_array_ensure_host(fdx_array *a)
{
    if (a->host) return FDX_OK;
    /* On the CPU backend, host and device storage are one buffer. */
    if (fdx_ctx_backend(a->ctx) == FDX_BACKEND_CPU && a->device) {
        a->host = a->device;
        return FDX_OK;
    }
    return fdx_backend_cpu()->alloc(fdx_array_bytes(a), &a->host);
}

fdx_status fdx_array_ensure_device(fdx_array *a)
{
    if (a->device) return FDX_OK;
    if (fdx_ctx_backend(a->ctx) == FDX_BACKEND_CPU && a->host) {
        a->device = a->host;
        return FDX_OK;
    }
    return fdx_ctx_ops(a->ctx)->alloc(fdx_array_bytes(a), &a->device);
}

fdx_status fdx_array_new(fdx_ctx *ctx, fdx_dtype type, int rank, const int64_t *shape, const char *what,
                         fdx_array **out)
{
    FDX_CHECK(out, FDX_ERR_INVALID, "%s: out is NULL", what);
    *out = NULL;
    FDX_CHECK(ctx, FDX_ERR_INVALID, "%s: context is NULL", what);
    size_t es = fdx_dtype_size(type);
    FDX_CHECK(es > 0, FDX_ERR_INVALID, "unknown element type %d", (int)type);
    FDX_TRY(fdx_shape_check(rank, shape, 1, es));
    fdx_array *a = calloc(1, sizeof *a);
    FDX_CHECK(a, FDX_ERR_NOMEM, "out of memory in %s", what);
    a->ctx = ctx;
    a->dtype = type;
    a->elem_size = es;
    a->rank = rank;
    a->count = 1;
    for (int i = 0; i < rank; i++) {
        a->shape[i] = shape[i];
        a->count *= shape[i];
        a->layout.perm[i] = i; /* the identity layout */
    }
    a->layout.rank = rank;
    *out = a;
    return FDX_OK;
}

fdx_status fdx_array_create(fdx_ctx *ctx, fdx_dtype type, int rank, const int64_t *shape, unsigned places,
                            fdx_array **out)
{
    FDX_CHECK(!out || (places && !(places & ~(unsigned)(FDX_ON_HOST | FDX_ON_DEVICE))), FDX_ERR_INVALID,
              "storage mask %u is not a combination of FDX_ON_HOST and FDX_ON_DEVICE", places);
    if (out) *out = NULL;
    fdx_array *a;
    FDX_TRY(fdx_array_new(ctx, type, rank, shape, "fdx_array_create", &a));
    fdx_status st = FDX_OK;
    if (places & FDX_ON_DEVICE) FDX_TRY_GOTO(st, fdx_array_ensure_device(a), fail);
    if (places & FDX_ON_HOST) FDX_TRY_GOTO(st, fdx_array_ensure_host(a), fail);
    *out = a;
    return FDX_OK;
fail:
    fdx_array_destroy(&a);
    return st;
}

void fdx_array_destroy(fdx_array **pa)
{
    if (!pa || !*pa) return;
    fdx_array *a = *pa;
    /* Storage the caller lent (fdx_array_wrap) stays with the caller. */
    int dev_own = a->device && !(a->borrowed & FDX_ON_DEVICE);
    int host_own = a->host && !(a->borrowed & FDX_ON_HOST);
    if (a->device == a->host) dev_own = host_own = dev_own && host_own;
    if (dev_own && a->device != a->host) fdx_ctx_ops(a->ctx)->free(a->device);
    if (host_own) fdx_backend_cpu()->free(a->host);
    free(a);
    *pa = NULL;
}

int fdx_array_rank(const fdx_array *a) { return a->rank; }
int64_t fdx_array_extent(const fdx_array *a, int axis)
{
    return axis >= 0 && axis < a->rank ? a->shape[axis] : 0;
}
int64_t fdx_array_count(const fdx_array *a) { return a->count; }
size_t fdx_array_bytes(const fdx_array *a) { return (size_t)a->count * a->elem_size; }
fdx_dtype fdx_array_dtype(const fdx_array *a) { return a->dtype; }
fdx_ctx *fdx_array_ctx(const fdx_array *a) { return a->ctx; }
void *fdx_array_host(fdx_array *a) { return a->host; }
void *fdx_array_device(fdx_array *a) { return a->device; }

/* The explicit copies, one way or the other, on the context's stream and
   waited for; the destination storage is allocated when missing. */
static fdx_status copy_across(fdx_array *a, int to_device, const char *what)
{
    FDX_CHECK(a, FDX_ERR_INVALID, "%s: array is NULL", what);
    FDX_CHECK(to_device ? a->host : a->device, FDX_ERR_INVALID, "%s: the array has no %s storage to copy from", what,
              to_device ? "host" : "device");
    FDX_TRY(to_device ? fdx_array_ensure_device(a) : fdx_array_ensure_host(a));
    if (a->device == a->host) return FDX_OK;
    const fdx_backend *be = fdx_ctx_ops(a->ctx);
    void *stream = fdx_ctx_stream(a->ctx, NULL);
    size_t bytes = fdx_array_bytes(a);
    FDX_TRY(to_device ? be->copy(a->device, a->host, bytes, FDX_COPY_H2D, stream)
                      : be->copy(a->host, a->device, bytes, FDX_COPY_D2H, stream));
    return be->stream_sync(stream);
}

fdx_status fdx_array_to_device(fdx_array *a) { return copy_across(a, 1, "fdx_array_to_device"); }
fdx_status fdx_array_to_host(fdx_array *a) { return copy_across(a, 0, "fdx_array_to_host"); }

fdx_status fdx_array_fill_host(fdx_array *a, double value)
{
    FDX_CHECK(a, FDX_ERR_INVALID, "fdx_array_fill_host: array is NULL");
    FDX_TRY(fdx_array_ensure_host(a));
    int64_t n = a->count;
    switch (a->dtype) {
    case FDX_FLOAT32: {
        float *p = a->host, v = (float)value;
        for (int64_t i = 0; i < n; i++) p[i] = v;
        break;
    }
    case FDX_FLOAT64: {
        double *p = a->host;
        for (int64_t i = 0; i < n; i++) p[i] = value;
        break;
    }
    case FDX_INT32: {
        int32_t *p = a->host, v = (int32_t)value;
        for (int64_t i = 0; i < n; i++) p[i] = v;
        break;
    }
    case FDX_INT64: {
        int64_t *p = a->host, v = (int64_t)value;
        for (int64_t i = 0; i < n; i++) p[i] = v;
        break;
    }
    case FDX_UINT8: memset(a->host, (unsigned char)value, (size_t)n); break;
    }
    return FDX_OK;
}

fdx_status fdx_array_fill_device_bytes(fdx_array *a, unsigned char byte)
{
    FDX_CHECK(a, FDX_ERR_INVALID, "fdx_array_fill_device_bytes: array is NULL");
    FDX_TRY(fdx_array_ensure_device(a));
    const fdx_backend *be = fdx_ctx_ops(a->ctx);
    void *stream = fdx_ctx_stream(a->ctx, NULL);
    FDX_TRY(be->memset(a->device, byte, fdx_array_bytes(a), stream));
    return be->stream_sync(stream);
}
