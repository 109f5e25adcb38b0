/* fdx_loop_graph: the launches of one run of a loop (an ACROSS loop's
   hyperplanes: hundreds of small kernels a sweep) captured as a CUDA graph
   and replayed, so a run that repeats the last one's launches costs one
   graph launch instead of one launch per step.  Captured on a private
   non-blocking stream (nothing runs during a capture), launched on the
   run's stream. */
#include "loops/fdx_loop_graph.h"

#include <cuda_runtime.h>

fdx_status fdx_loop_graph_begin(void **stream)
{
    if (!*stream) {
        cudaStream_t s = NULL;
        cudaError_t e = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
        if (e != cudaSuccess) return fdx_fail(FDX_ERR_CUDA, "cudaStreamCreateWithFlags (loop graph): %s", cudaGetErrorString(e));
        *stream = s;
    }
    cudaError_t e = cudaStreamBeginCapture((cudaStream_t)*stream, cudaStreamCaptureModeThreadLocal);
    if (e != cudaSuccess) return fdx_fail(FDX_ERR_CUDA, "cudaStreamBeginCapture (loop graph): %s", cudaGetErrorString(e));
    return FDX_OK;
}

fdx_status fdx_loop_graph_end(void *stream, int ok, void **exec)
{
    *exec = NULL;
    cudaGraph_t g = NULL;
    cudaError_t e = cudaStreamEndCapture((cudaStream_t)stream, &g);
    if (e == cudaSuccess && ok) {
        cudaGraphExec_t x = NULL;
        e = cudaGraphInstantiate(&x, g, 0);
        if (e == cudaSuccess) *exec = x;
    }
    if (g) cudaGraphDestroy(g);
    if (e != cudaSuccess) {
        (void)cudaGetLastError(); /* not sticky: the run falls back to plain launches */
        return fdx_fail(FDX_ERR_CUDA, "capturing a loop's launches as a graph: %s", cudaGetErrorString(e));
    }
    return FDX_OK;
}

fdx_status fdx_loop_graph_launch(void *exec, void *stream)
{
    cudaError_t e = cudaGraphLaunch((cudaGraphExec_t)exec, (cudaStream_t)stream);
    if (e != cudaSuccess) return fdx_fail(FDX_ERR_CUDA, "cudaGraphLaunch (loop): %s", cudaGetErrorString(e));
    return FDX_OK;
}

void fdx_loop_graph_free(void *exec, void *stream)
{
    if (exec) cudaGraphExecDestroy((cudaGraphExec_t)exec);
    if (stream) cudaStreamDestroy((cudaStream_t)stream);
}
