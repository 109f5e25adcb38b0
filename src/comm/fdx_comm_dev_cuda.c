/* fdx_comm_dev_cuda: peer copies, peer access, stream waits and pinned host
   memory on CUDA. */
#include "backends/cuda/fdx_cuda.h"
#include "comm/fdx_comm_dev.h"

fdx_status fdx_comm_cuda_peer_copy(void *dst, int dst_dev, const void *src, int src_dev, size_t bytes,
                                   void *stream)
{
    /* With unified addressing a plain copy reaches any device (directly over
       the link when peer access is on), and, unlike cudaMemcpyPeerAsync, it
       can be captured into a graph. */
    (void)dst_dev, (void)src_dev;
    FDX_CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, (cudaStream_t)stream));
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

fdx_status fdx_comm_cuda_stream_create_urgent(void **stream)
{
    int least, greatest;
    FDX_CUDA_TRY(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    FDX_CUDA_TRY(cudaStreamCreateWithPriority((cudaStream_t *)stream, cudaStreamNonBlocking, greatest));
    return FDX_OK;
}

fdx_status fdx_comm_cuda_capture_begin(void *origin, void *fork, void *const *streams, int n)
{
    /* Relaxed: the launches being captured may query or set the device. */
    FDX_CUDA_TRY(cudaStreamBeginCapture((cudaStream_t)origin, cudaStreamCaptureModeRelaxed));
    FDX_CUDA_TRY(cudaEventRecord((cudaEvent_t)fork, (cudaStream_t)origin));
    /* A stream that waits on a captured event joins the capture. */
    for (int i = 0; i < n; i++) FDX_CUDA_TRY(cudaStreamWaitEvent((cudaStream_t)streams[i], (cudaEvent_t)fork, 0));
    return FDX_OK;
}

fdx_status fdx_comm_cuda_capture_end(void *origin, void *const *streams, void *const *join, int n, int ok,
                                     void **exec)
{
    *exec = NULL;
    cudaError_t e = cudaSuccess;
    for (int i = 0; ok && e == cudaSuccess && i < n; i++) {
        e = cudaEventRecord((cudaEvent_t)join[i], (cudaStream_t)streams[i]);
        if (e == cudaSuccess) e = cudaStreamWaitEvent((cudaStream_t)origin, (cudaEvent_t)join[i], 0);
    }
    cudaGraph_t g = NULL;
    cudaError_t ee = cudaStreamEndCapture((cudaStream_t)origin, &g);
    if (e == cudaSuccess) e = ee;
    cudaGraphExec_t x = NULL;
    /* Kernel nodes keep the priority of the stream they were captured from,
       but a graph runs at its launch stream's priority unless told to use
       them: the boundary slabs on the urgent comm stream need theirs. */
    if (e == cudaSuccess && ok) e = cudaGraphInstantiateWithFlags(&x, g, cudaGraphInstantiateFlagUseNodePriority);
    if (g) cudaGraphDestroy(g);
    (void)cudaGetLastError(); /* a failed capture leaves a sticky-free error behind */
    if (!ok) return FDX_OK;
    if (e != cudaSuccess) return fdx_cuda_fail(e, "capturing a batch of steps into a CUDA graph", __FILE__, __LINE__);
    *exec = x;
    return FDX_OK;
}

fdx_status fdx_comm_cuda_graph_launch(void *exec, void *origin, void *fork, void *const *streams,
                                      void *const *join, int n)
{
    /* The graph hangs off origin alone: the other streams' earlier work must
       finish before it starts, and their later work must wait for it. */
    for (int i = 0; i < n; i++) {
        FDX_CUDA_TRY(cudaEventRecord((cudaEvent_t)join[i], (cudaStream_t)streams[i]));
        FDX_CUDA_TRY(cudaStreamWaitEvent((cudaStream_t)origin, (cudaEvent_t)join[i], 0));
    }
    FDX_CUDA_TRY(cudaGraphLaunch((cudaGraphExec_t)exec, (cudaStream_t)origin));
    FDX_CUDA_TRY(cudaEventRecord((cudaEvent_t)fork, (cudaStream_t)origin));
    for (int i = 0; i < n; i++) FDX_CUDA_TRY(cudaStreamWaitEvent((cudaStream_t)streams[i], (cudaEvent_t)fork, 0));
    return FDX_OK;
}

void fdx_comm_cuda_graph_destroy(void *exec)
{
    if (exec) cudaGraphExecDestroy((cudaGraphExec_t)exec);
}
