/* fdx_backend: the small table of functions every backend provides, so the
   layers above never ask "is this CUDA?".  Pointers returned by alloc live in
   the backend's memory space (device memory on CUDA, host memory on the CPU);
   streams and events are opaque handles (NULL is the default stream). */
#ifndef FDX_BACKEND_H
#define FDX_BACKEND_H

#include "core/fdx_error.h"

#define FDX_MAX_DEVICES 16

typedef struct fdx_device_info {
    char name[256];
    int ordinal;            /* device number within the backend */
    size_t mem_total;       /* bytes of device memory (host RAM for the CPU) */
    int sm_count;           /* multiprocessors (CPU: usable threads) */
    int cc_major, cc_minor; /* compute capability (CPU: 0.0) */
    size_t l2_bytes;
    size_t smem_per_block;        /* default shared memory per block */
    size_t smem_per_block_optin;  /* after raising the dynamic limit */
    int max_threads_per_block;
} fdx_device_info;

typedef enum fdx_copy_dir {
    FDX_COPY_H2D,
    FDX_COPY_D2H,
    FDX_COPY_D2D,
    FDX_COPY_H2H
} fdx_copy_dir;

/* A kernel loaded from run-time compiled source. */
typedef struct fdx_kernel fdx_kernel;

typedef struct fdx_launch_dims {
    unsigned grid[3];
    unsigned block[3];
    size_t shmem;           /* dynamic shared memory in bytes */
    /* k >= 1: a cooperative launch (CUDA): every block resident at once,
       for kernels with a grid-wide barrier; a 1D grid, cut to the blocks
       the device holds at once (the occupancy of this kernel and block)
       divided by k, the cooperative launches that share the device. */
    int coop;
} fdx_launch_dims;

typedef struct fdx_backend {
    const char *name;
    fdx_backend_kind kind;

    /* Number of devices (0 if none); fills info for device `ordinal`. */
    int (*device_count)(void);
    fdx_status (*device_info)(int ordinal, fdx_device_info *info);
    /* Makes `ordinal` current for this thread's later calls. */
    fdx_status (*set_device)(int ordinal);

    fdx_status (*alloc)(size_t bytes, void **ptr);
    void (*free)(void *ptr);
    fdx_status (*copy)(void *dst, const void *src, size_t bytes, fdx_copy_dir dir,
                       void *stream);
    fdx_status (*memset)(void *ptr, int byte, size_t bytes, void *stream);

    fdx_status (*stream_create)(void **stream);
    void (*stream_destroy)(void *stream);
    fdx_status (*stream_sync)(void *stream);
    fdx_status (*device_sync)(void);

    fdx_status (*event_create)(void **event);
    void (*event_destroy)(void *event);
    fdx_status (*event_record)(void *event, void *stream);
    fdx_status (*event_elapsed_ms)(void *start, void *stop, double *ms);

    /* Compiles (or takes from the cache) `source` and loads function `entry`.
       CPU sources define `void entry(void **args)`; CUDA sources define an
       extern "C" __global__ function.  `what` names the kernel in messages. */
    fdx_status (*jit_load)(const fdx_device_info *dev, const char *source,
                           const char *entry, const char *what, fdx_kernel **out);
    /* Compiles `source` into the kernel cache unless it is there, loading
       nothing and touching no device, so any thread may call it: the
       tuner compiles a batch of candidates in parallel this way, and
       jit_load then finds them cached.  The compiler itself (NVRTC, $CC)
       is loaded on first use. */
    fdx_status (*jit_compile)(const fdx_device_info *dev, const char *source, const char *what);
    /* Starts loading the run-time compiler in the background, so it
       overlaps context creation (NULL: nothing to load ahead). */
    void (*jit_preload)(void);
    void (*kernel_release)(fdx_kernel *k);
    /* Runs a loaded kernel: args is an array of pointers to the arguments, as
       for cudaLaunchKernel.  The CPU backend ignores dims and runs it now. */
    fdx_status (*launch)(fdx_kernel *k, const fdx_launch_dims *dims, void **args,
                         void *stream);
    /* Parallel copy used by the copy-bandwidth probe (dst, src in its space). */
    fdx_status (*copy_probe)(void *dst, const void *src, size_t bytes, void *stream);
    /* FDX_OK when `ptr` is memory kernels of device `ordinal` can read and
       write (memory another library allocated, for fdx_array_wrap); the
       message names the pointer and what it is instead.  NULL: no check (the
       CPU backend, whose "device" memory is host memory). */
    fdx_status (*check_device_pointer)(const void *ptr, int ordinal, const char *what);
    /* Writes into `map` (128 bytes, 64-byte aligned) a 3D tensor map of the
       dims[0] x dims[1] x dims[2] values of elem_bytes (4 or 8) at `base`
       (16-byte aligned; dims[0] values a row of a 16-byte multiple), copied
       a box[0] x box[1] x box[2] box at a time, zeros outside the array
       (sm_90's tensor copies).  NULL: none. */
    fdx_status (*tensor_map_3d)(void *map, const void *base, const uint64_t dims[3], int elem_bytes,
                                const unsigned box[3]);
} fdx_backend;

FDX_HIDDEN const fdx_backend *fdx_backend_cpu(void);
/* NULL when fdx was built without CUDA. */
FDX_HIDDEN const fdx_backend *fdx_backend_cuda(void);

/* Bytes per buffer of the copy-bandwidth probe by default: the least that
   exceeds the device's last-level cache well (fdx_timing.c). */
FDX_HIDDEN size_t fdx_copy_probe_bytes(const fdx_device_info *dev);

/* The context's backend and device, for the layers above. */
FDX_HIDDEN const fdx_backend *fdx_ctx_ops(const fdx_ctx *ctx);
FDX_HIDDEN const fdx_device_info *fdx_ctx_device(const fdx_ctx *ctx);
/* The stream an operation launches on: `stream` when the caller gave one,
   else the context's stream (fdx_ctx_set_stream; NULL, the default stream,
   unless set).  Every entry point that takes a stream resolves it here, and
   synchronous ones wait for the resolved stream before and after. */
FDX_HIDDEN void *fdx_ctx_stream(const fdx_ctx *ctx, void *stream);

#endif
