/* fdx_comm_dev: dispatches the comm layer's device operations to the CPU or
   the CUDA halves, so the exchange itself is written once. */
#include "comm/fdx_comm_dev.h"

#include <stdlib.h>
#include <string.h>

static int is_cuda(const fdx_backend *be) { return be->kind == FDX_BACKEND_CUDA; }

fdx_status fdx_comm_box_copy(const fdx_backend *be, const fdx_box_copy *c, void *stream)
{
    for (int a = 0; a < 3; a++)
        FDX_CHECK(c->box[a] >= 0 && c->slo[a] >= 0 && c->dlo[a] >= 0 && c->slo[a] + c->box[a] <= c->sn[a] &&
                      c->dlo[a] + c->box[a] <= c->dn[a],
                  FDX_ERR_INTERNAL, "box copy out of bounds on axis %d: box %lld at %lld (source %lld), %lld (destination %lld)",
                  a, (long long)c->box[a], (long long)c->slo[a], (long long)c->sn[a], (long long)c->dlo[a],
                  (long long)c->dn[a]);
    if (c->box[0] * c->box[1] * c->box[2] == 0) return FDX_OK;
    if (is_cuda(be) && c->elem > 8) {
        /* Records (several components a point, first axis fastest) are
           contiguous along axis 0: the same box in words of 8, 4 or 1 bytes. */
        size_t w = c->elem % 8 == 0 ? 8 : c->elem % 4 == 0 ? 4 : 1, k = c->elem / w;
        fdx_box_copy r = *c;
        r.elem = w;
        r.box[0] *= (int64_t)k, r.sn[0] *= (int64_t)k, r.dn[0] *= (int64_t)k, r.slo[0] *= (int64_t)k, r.dlo[0] *= (int64_t)k;
        return fdx_comm_box_copy_cuda(&r, stream);
    }
    if (is_cuda(be)) return fdx_comm_box_copy_cuda(c, stream);
    fdx_comm_box_copy_cpu(c);
    return FDX_OK;
}

fdx_status fdx_comm_peer_copy(const fdx_backend *be, void *dst, int dst_dev, const void *src, int src_dev,
                              size_t bytes, void *stream)
{
    if (bytes == 0) return FDX_OK;
    if (is_cuda(be)) return fdx_comm_cuda_peer_copy(dst, dst_dev, src, src_dev, bytes, stream);
    memcpy(dst, src, bytes);
    return FDX_OK;
}

fdx_status fdx_comm_enable_peer(const fdx_backend *be, int a, int b)
{
    return is_cuda(be) && a != b ? fdx_comm_cuda_enable_peer(a, b) : FDX_OK;
}

fdx_status fdx_comm_stream_wait(const fdx_backend *be, void *stream, void *event)
{
    return is_cuda(be) && event ? fdx_comm_cuda_stream_wait(stream, event) : FDX_OK;
}

fdx_status fdx_comm_event_create(const fdx_backend *be, void **event)
{
    *event = NULL;
    return is_cuda(be) ? fdx_comm_cuda_event_create(event) : FDX_OK;
}

fdx_status fdx_comm_stream_create_urgent(const fdx_backend *be, void **stream)
{
    return is_cuda(be) ? fdx_comm_cuda_stream_create_urgent(stream) : be->stream_create(stream);
}

fdx_status fdx_comm_host_alloc(const fdx_backend *be, size_t bytes, void **p)
{
    if (is_cuda(be)) return fdx_comm_cuda_host_alloc(bytes, p);
    *p = malloc(bytes ? bytes : 1);
    FDX_CHECK(*p, FDX_ERR_NOMEM, "out of host memory for a %zu-byte shadow buffer", bytes);
    return FDX_OK;
}

void fdx_comm_host_free(const fdx_backend *be, void *p)
{
    if (!p) return;
    if (is_cuda(be)) fdx_comm_cuda_host_free(p);
    else free(p);
}
