/* fdx metrics: timing with device events, the copy-bandwidth probe, and the
   effective-bandwidth figure of merit of the seeds. */
#ifndef FDX_METRICS_H
#define FDX_METRICS_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fdx_time_stats {
    double median_ms, min_ms, max_ms, mean_ms;
    int reps;
} fdx_time_stats;

/* Work to time: enqueue it on `stream` (a cudaStream_t on CUDA, NULL on the CPU). */
typedef fdx_status (*fdx_timed_fn)(void *arg, void *stream);

/* Runs fn `warmup` times, then `reps` times each bracketed by events (CUDA) or
   the monotonic clock (CPU); reports median, min, max and mean in ms. */
FDX_API fdx_status fdx_time_run(fdx_ctx *ctx, fdx_timed_fn fn, void *arg, int warmup,
                                int reps, fdx_time_stats *out);

/* Copy bandwidth of the context's device in GB/s (1e9 bytes/s), counting bytes
   read plus bytes written: cudaMemcpy device to device on CUDA, a parallel
   (OpenMP) copy on the CPU.  `bytes` is the size of one buffer (0: the least
   that exceeds the device's last-level cache well: 4x it, 32 MiB..1 GiB). */
FDX_API fdx_status fdx_copy_bandwidth(fdx_ctx *ctx, size_t bytes, int reps,
                                      fdx_time_stats *time, double *gbps);

/* (fetch + write) / time, in GB/s. */
FDX_API double fdx_effective_gbps(double fetch_bytes, double write_bytes, double ms);

/* The seed's theoretical traffic of a star stencil of the given radius: every
   input point some output needs read once (corners and edges excluded), every
   interior output point written once.  In bytes. */
FDX_API void fdx_star_traffic(int rank, const int64_t *shape, int radius, size_t elem_size,
                              double *fetch_bytes, double *write_bytes);

#ifdef __cplusplus
}
#endif
#endif
