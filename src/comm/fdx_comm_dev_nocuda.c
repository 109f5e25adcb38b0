/* fdx_comm_dev_nocuda: stand-ins for the CUDA halves of the comm layer in a
   build without CUDA (never reached: there is no CUDA backend). */
#include "comm/fdx_comm_dev.h"

#define NO_CUDA fdx_fail(FDX_ERR_UNSUPPORTED, "fdx was built without CUDA")

fdx_status fdx_comm_box_copy_cuda(const fdx_box_copy *c, void *stream)
{
    (void)c, (void)stream;
    return NO_CUDA;
}
fdx_status fdx_comm_cuda_peer_copy(void *dst, int dst_dev, const void *src, int src_dev, size_t bytes,
                                   void *stream)
{
    (void)dst, (void)dst_dev, (void)src, (void)src_dev, (void)bytes, (void)stream;
    return NO_CUDA;
}
fdx_status fdx_comm_cuda_stream_create_urgent(void **stream)
{
    (void)stream;
    return NO_CUDA;
}
fdx_status fdx_comm_cuda_enable_peer(int a, int b)
{
    (void)a, (void)b;
    return NO_CUDA;
}
fdx_status fdx_comm_cuda_stream_wait(void *stream, void *event)
{
    (void)stream, (void)event;
    return NO_CUDA;
}
fdx_status fdx_comm_cuda_host_alloc(size_t bytes, void **p)
{
    (void)bytes, (void)p;
    return NO_CUDA;
}
void fdx_comm_cuda_host_free(void *p) { (void)p; }
fdx_status fdx_comm_cuda_event_create(void **event)
{
    (void)event;
    return NO_CUDA;
}
fdx_status fdx_comm_cuda_capture_begin(void *origin, void *fork, void *const *streams, int n)
{
    (void)origin, (void)fork, (void)streams, (void)n;
    return NO_CUDA;
}
fdx_status fdx_comm_cuda_capture_end(void *origin, void *const *streams, void *const *join, int n, int ok,
                                     void **exec)
{
    (void)origin, (void)streams, (void)join, (void)n, (void)ok, (void)exec;
    return NO_CUDA;
}
fdx_status fdx_comm_cuda_graph_launch(void *exec, void *origin, void *fork, void *const *streams,
                                      void *const *join, int n)
{
    (void)exec, (void)origin, (void)fork, (void)streams, (void)join, (void)n;
    return NO_CUDA;
}
void fdx_comm_cuda_graph_destroy(void *exec) { (void)exec; }
