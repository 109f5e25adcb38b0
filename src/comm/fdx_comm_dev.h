/* fdx_comm_dev (internal): the device operations shadow renewal needs beyond
   the backend table: strided box copies (pack/unpack), peer copies between
   devices, stream-waits-for-event, pinned host buffers. */
#ifndef FDX_COMM_DEV_H
#define FDX_COMM_DEV_H

#include "backends/fdx_backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A box of extents box[3] from src (extents sn, starting at slo) to dst
   (extents dn, starting at dlo); arrays padded to rank 3, first index
   fastest.  Packing is dst dense (dn = box, dlo = 0), unpacking the reverse.
   Asynchronous on `stream` on CUDA; done on return on the CPU. */
typedef struct fdx_box_copy {
    void *dst;
    const void *src;
    int64_t dn[3], dlo[3], sn[3], slo[3], box[3];
    size_t elem;
} fdx_box_copy;

FDX_HIDDEN fdx_status fdx_comm_box_copy(const fdx_backend *be, const fdx_box_copy *c, void *stream);
/* The backends' versions (fdx_comm_pack.c, fdx_comm_pack.cu). */
FDX_HIDDEN void fdx_comm_box_copy_cpu(const fdx_box_copy *c);
FDX_HIDDEN fdx_status fdx_comm_box_copy_cuda(const fdx_box_copy *c, void *stream);

/* bytes from src on device src_dev to dst on device dst_dev, on `stream`
   (a stream of dst_dev).  A plain copy on the CPU. */
FDX_HIDDEN fdx_status fdx_comm_peer_copy(const fdx_backend *be, void *dst, int dst_dev, const void *src,
                                         int src_dev, size_t bytes, void *stream);
/* Lets device a read and write device b's memory directly when it can. */
FDX_HIDDEN fdx_status fdx_comm_enable_peer(const fdx_backend *be, int a, int b);
/* Work queued on `stream` after this waits for `event` (no-op on the CPU). */
FDX_HIDDEN fdx_status fdx_comm_stream_wait(const fdx_backend *be, void *stream, void *event);
/* An event for ordering streams only (no timing); NULL on the CPU. */
FDX_HIDDEN fdx_status fdx_comm_event_create(const fdx_backend *be, void **event);
/* A stream whose blocks the GPU schedules ahead of other streams' (the
   highest priority on CUDA): for the short boundary work that gates an
   exchange. */
FDX_HIDDEN fdx_status fdx_comm_stream_create_urgent(const fdx_backend *be, void **stream);
/* Page-locked host memory on CUDA (so copies run asynchronously), malloc on
   the CPU. */
FDX_HIDDEN fdx_status fdx_comm_host_alloc(const fdx_backend *be, size_t bytes, void **p);
FDX_HIDDEN void fdx_comm_host_free(const fdx_backend *be, void *p);

/* CUDA halves (fdx_comm_dev_cuda.c, or stand-ins without CUDA). */
FDX_HIDDEN fdx_status fdx_comm_cuda_peer_copy(void *dst, int dst_dev, const void *src, int src_dev, size_t bytes,
                                              void *stream);
FDX_HIDDEN fdx_status fdx_comm_cuda_enable_peer(int a, int b);
FDX_HIDDEN fdx_status fdx_comm_cuda_stream_wait(void *stream, void *event);
FDX_HIDDEN fdx_status fdx_comm_cuda_host_alloc(size_t bytes, void **p);
FDX_HIDDEN fdx_status fdx_comm_cuda_event_create(void **event);
FDX_HIDDEN fdx_status fdx_comm_cuda_stream_create_urgent(void **stream);
FDX_HIDDEN void fdx_comm_cuda_host_free(void *p);
/* CUDA graphs of work spread over several streams (and devices): begin
   starts capturing on origin and forks the other streams into the capture
   (fork: an event of origin's device); end joins them back (join[i]: an
   event of streams[i]'s device), ends the capture and instantiates it.  On
   failure the capture is ended and discarded, and *exec stays NULL. */
FDX_HIDDEN fdx_status fdx_comm_cuda_capture_begin(void *origin, void *fork, void *const *streams, int n);
FDX_HIDDEN fdx_status fdx_comm_cuda_capture_end(void *origin, void *const *streams, void *const *join, int n,
                                                int ok, void **exec);
/* Launches a graph captured as above on origin, ordered after the earlier
   work of every stream and before their later work. */
FDX_HIDDEN fdx_status fdx_comm_cuda_graph_launch(void *exec, void *origin, void *fork, void *const *streams,
                                                 void *const *join, int n);
FDX_HIDDEN void fdx_comm_cuda_graph_destroy(void *exec);

#ifdef __cplusplus
}
#endif
#endif
