/* fdx_comm_dev_cuda: peer copies, peer access, stream waits and pinned host
   memory on CUDA. */
#include "backends/cuda/fdx_cuda.h"
#include "comm/fdx_comm_dev.h"

fdx_status fdx_comm_cuda_peer_copy(void *dst, int dst_dev, const void *src, int src_dev, size_t bytes,
                                   void *stream)
{
    if (dst_dev == src_dev)
        FDX_CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, (cudaStream_t)stream));
    else
        FDX_CUDA_TRY(cudaMemcpyPeerAsync(dst, dst_dev, src, src_dev, bytes, (cudaStream_t)stream));
    return FDX_OK;
}

fdx_status fdx_comm_cuda_enable_peer(int a, int b)
{
    /* Enabled once per process and pair: enabling again is an error that
       compute-sanitizer reports. */
    static unsigned char enabled[FDX_MAX_DEVICES][FDX_MAX_DEVICES];
    if (a >= 0 && b >= 0 && a < FDX_MAX_DEVICES && b < FDX_MAX_DEVICES) {
        if (enabled[a][b]) return FDX_OK;
        enabled[a][b] = 1;
    }
    int can = 0;
    FDX_CUDA_TRY(cudaDeviceCanAccessPeer(&can, a, b));
    /* Without peer access cudaMemcpyPeerAsync still works, staged by the
       driver through host memory. */
    if (!can) return FDX_OK;
    int cur;
    FDX_CUDA_TRY(cudaGetDevice(&cur));
    FDX_CUDA_TRY(cudaSetDevice(a));
    cudaError_t e = cudaDeviceEnablePeerAccess(b, 0);
    if (e == cudaErrorPeerAccessAlreadyEnabled) (void)cudaGetLastError();
    else if (e != cudaSuccess) return fdx_cuda_fail(e, "cudaDeviceEnablePeerAccess", __FILE__, __LINE__);
    FDX_CUDA_TRY(cudaSetDevice(cur));
    return FDX_OK;
}

fdx_status fdx_comm_cuda_stream_wait(void *stream, void *event)
{
    FDX_CUDA_TRY(cudaStreamWaitEvent((cudaStream_t)stream, (cudaEvent_t)event, 0));
    return FDX_OK;
}

fdx_status fdx_comm_cuda_host_alloc(size_t bytes, void **p)
{
    FDX_CUDA_TRY(cudaMallocHost(p, bytes ? bytes : 1));
    return FDX_OK;
}

void fdx_comm_cuda_host_free(void *p) { cudaFreeHost(p); }

fdx_status fdx_comm_cuda_event_create(void **event)
{
    /* Ordering only: events without timing are cheaper to record and wait on. */
    FDX_CUDA_TRY(cudaEventCreateWithFlags((cudaEvent_t *)event, cudaEventDisableTiming));
    return FDX_OK;
}
