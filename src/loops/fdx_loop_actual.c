/* fdx_loop_actual: which copy of an array is current (host, device or both),
   the copies loops make when the other side holds it, and the user's own
   reads and writes of whole arrays in the plain layout. */
#include "loops/fdx_loop_impl.h"
#include "core/fdx_log.h"

#include <stdlib.h>
#include <string.h>

static int on_cpu(const fdx_array *a) { return fdx_ctx_backend(a->ctx) == FDX_BACKEND_CPU; }

/* Untracked arrays (valid 0) trust the device copy when there is one: the
   user moved data by hand, as before actuality existed. */
static int device_current(const fdx_array *a)
{
    return (a->valid & FDX_ON_DEVICE) || (a->valid == 0 && a->device);
}

unsigned fdx_array_valid(const fdx_array *a) { return a ? a->valid : 0; }

fdx_status fdx_loop_actual_before(fdx_array *a)
{
    if (on_cpu(a)) {
        /* one buffer serves both sides; make sure the device name exists */
        if (!a->device) FDX_TRY(fdx_array_to_device(a));
        return FDX_OK;
    }
    if (device_current(a)) return FDX_OK;
    FDX_CHECK(a->host, FDX_ERR_INVALID, "array of %lld elements has no current copy anywhere", (long long)a->count);
    FDX_INFO("actuality: copying an array of %.1f MB to the device (the host held the current copy)",
             (double)fdx_array_bytes(a) / 1e6);
    FDX_TRY(fdx_array_to_device(a));
    a->valid |= FDX_ON_DEVICE;
    return FDX_OK;
}

void fdx_loop_actual_written(fdx_array *a) { a->valid = on_cpu(a) ? FDX_ON_HOST | FDX_ON_DEVICE : FDX_ON_DEVICE; }

static fdx_status ensure_device_storage(fdx_array *a) { return fdx_array_ensure_device(a); }

/* Moves the whole array between a plain host buffer and the device copy:
   straight when the layout is the identity, else through a device scratch
   buffer and the layout engine's box copy. */
static fdx_status device_io(fdx_array *a, void *host, int put)
{
    const fdx_backend *be = fdx_ctx_ops(a->ctx);
    size_t bytes = fdx_array_bytes(a);
    int64_t lo[FDX_MAX_RANK] = {0};
    /* Everything on the context's stream (a caller's non-blocking stream
       does not order with the legacy default stream), after the caller's
       work already queued there. */
    void *stream = fdx_ctx_stream(a->ctx, NULL);
    FDX_TRY(be->stream_sync(stream));
    if (on_cpu(a)) {
        if (put) return fdx_layout_box_put(a->ctx, a->device, host, &a->layout, a->elem_size, a->rank, a->shape, lo, a->shape, stream);
        return fdx_layout_box_get(a->ctx, host, a->device, &a->layout, a->elem_size, a->rank, a->shape, lo, a->shape, stream);
    }
    if (fdx_layout_is_identity(&a->layout)) {
        FDX_TRY(be->copy(put ? a->device : host, put ? host : a->device, bytes, put ? FDX_COPY_H2D : FDX_COPY_D2H, stream));
        return be->stream_sync(stream);
    }
    void *tmp = NULL;
    FDX_TRY(be->alloc(bytes, &tmp));
    fdx_status st;
    if (put) {
        FDX_TRY_GOTO(st, be->copy(tmp, host, bytes, FDX_COPY_H2D, stream), done);
        FDX_TRY_GOTO(st, fdx_layout_box_put(a->ctx, a->device, tmp, &a->layout, a->elem_size, a->rank, a->shape, lo, a->shape, stream), done);
    } else {
        FDX_TRY_GOTO(st, fdx_layout_box_get(a->ctx, tmp, a->device, &a->layout, a->elem_size, a->rank, a->shape, lo, a->shape, stream), done);
        FDX_TRY_GOTO(st, be->copy(host, tmp, bytes, FDX_COPY_D2H, stream), done);
    }
    st = be->stream_sync(stream);
done:
    be->free(tmp);
    return st;
}

fdx_status fdx_array_get(fdx_array *a, void *dst)
{
    FDX_CHECK(a && dst, FDX_ERR_INVALID, "fdx_array_get: NULL argument");
    if (on_cpu(a) || device_current(a)) {
        FDX_CHECK(a->device || a->host, FDX_ERR_INVALID, "fdx_array_get: the array has no storage");
        if (!a->device) a->device = a->host; /* CPU: one buffer */
        return device_io(a, dst, 0);
    }
    FDX_CHECK(a->host, FDX_ERR_INVALID, "fdx_array_get: the array has no current copy");
    /* The host copy is current: it is in the array's layout too. */
    if (fdx_layout_is_identity(&a->layout)) {
        memcpy(dst, a->host, fdx_array_bytes(a));
        return FDX_OK;
    }
    int64_t idx[FDX_MAX_RANK] = {0};
    for (int64_t q = 0; q < a->count; q++) {
        memcpy((char *)dst + (size_t)q * a->elem_size,
               (const char *)a->host + (size_t)fdx_layout_offset(&a->layout, a->shape, idx) * a->elem_size, a->elem_size);
        for (int x = 0; x < a->rank && ++idx[x] == a->shape[x]; x++) idx[x] = 0;
    }
    return FDX_OK;
}

fdx_status fdx_array_put(fdx_array *a, const void *src)
{
    FDX_CHECK(a && src, FDX_ERR_INVALID, "fdx_array_put: NULL argument");
    FDX_TRY(ensure_device_storage(a));
    FDX_TRY(device_io(a, (void *)src, 1));
    fdx_loop_actual_written(a);
    return FDX_OK;
}
