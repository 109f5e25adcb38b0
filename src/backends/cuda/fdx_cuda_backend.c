/* fdx_cuda_backend: the CUDA runtime (linked statically, so no libcudart and
   no libcuda at load time: a machine without a driver just has no device),
   and kernels compiled by NVRTC, cached as signed cubins (fdx_cache), loaded
   from verified memory with cudaLibraryLoadData. */
#include "backends/cuda/fdx_cuda.h"
#include "core/fdx_cache.h"
#include "core/fdx_log.h"

#include <cuda.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

fdx_status fdx_cuda_fail(cudaError_t err, const char *call, const char *file, int line)
{
    return fdx_fail(FDX_ERR_CUDA, "%s failed: %s (%s) [%s:%d]", call, cudaGetErrorName(err),
                    cudaGetErrorString(err), file, line);
}

/* Why there is no device, and what to do about it. */
static void explain_no_device(cudaError_t e)
{
    int drv = 0, rt = 0;
    cudaDriverGetVersion(&drv);
    cudaRuntimeGetVersion(&rt);
    const char *vis = getenv("CUDA_VISIBLE_DEVICES");
    if (e == cudaErrorInsufficientDriver && drv == 0)
        fdx_fail(FDX_ERR_NO_DEVICE, "no NVIDIA driver is installed (libcuda.so.1 was not found): install the NVIDIA "
                                    "driver, or run with --backend cpu");
    else if (e == cudaErrorInsufficientDriver)
        fdx_fail(FDX_ERR_NO_DEVICE, "the NVIDIA driver supports CUDA %d.%d but fdx was built with CUDA %d.%d: update "
                                    "the driver, or run with --backend cpu",
                 drv / 1000, drv % 1000 / 10, rt / 1000, rt % 1000 / 10);
    else if (e == cudaErrorNoDevice && vis)
        fdx_fail(FDX_ERR_NO_DEVICE, "the NVIDIA driver sees no CUDA device with CUDA_VISIBLE_DEVICES='%s': unset or "
                                    "fix it, or run with --backend cpu", vis);
    else if (e == cudaErrorNoDevice)
        fdx_fail(FDX_ERR_NO_DEVICE, "the NVIDIA driver is installed but sees no CUDA device (check nvidia-smi), or run "
                                    "with --backend cpu");
    else if (e == cudaErrorSystemDriverMismatch)
        fdx_fail(FDX_ERR_NO_DEVICE, "the NVIDIA kernel module and driver library versions differ: reboot or "
                                    "reinstall the driver, or run with --backend cpu");
    else if (e == cudaErrorDevicesUnavailable)
        fdx_fail(FDX_ERR_NO_DEVICE, "every CUDA device is busy or unavailable (exclusive-process mode?): wait, or run "
                                    "with --backend cpu");
    else
        fdx_fail(FDX_ERR_NO_DEVICE, "CUDA could not start (%s: %s): check the driver with nvidia-smi, or run with "
                                    "--backend cpu", cudaGetErrorName(e), cudaGetErrorString(e));
}

static int cuda_device_count(void)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n <= 0) {
        cudaGetLastError(); /* the error is not sticky: clear it */
        explain_no_device(e == cudaSuccess ? cudaErrorNoDevice : e);
        return 0;
    }
    return n;
}

static fdx_status cuda_device_info(int ordinal, fdx_device_info *info)
{
    struct cudaDeviceProp p;
    FDX_CUDA_TRY(cudaGetDeviceProperties(&p, ordinal));
    memset(info, 0, sizeof *info);
    snprintf(info->name, sizeof info->name, "%s", p.name);
    info->ordinal = ordinal;
    info->mem_total = p.totalGlobalMem;
    info->sm_count = p.multiProcessorCount;
    info->cc_major = p.major;
    info->cc_minor = p.minor;
    info->l2_bytes = (size_t)p.l2CacheSize;
    info->smem_per_block = p.sharedMemPerBlock;
    info->smem_per_block_optin = p.sharedMemPerBlockOptin;
    info->max_threads_per_block = p.maxThreadsPerBlock;
    return FDX_OK;
}

static fdx_status cuda_set_device(int ordinal)
{
    FDX_CUDA_TRY(cudaSetDevice(ordinal));
    return FDX_OK;
}

static fdx_status cuda_alloc(size_t bytes, void **ptr)
{
    cudaError_t e = cudaMalloc(ptr, bytes ? bytes : 1);
    if (e != cudaSuccess) {
        cudaGetLastError();
        size_t free_b = 0, total_b = 0;
        cudaMemGetInfo(&free_b, &total_b);
        return fdx_fail(e == cudaErrorMemoryAllocation ? FDX_ERR_NOMEM : FDX_ERR_CUDA,
                        "cudaMalloc of %zu bytes failed: %s (%zu of %zu bytes free)", bytes,
                        cudaGetErrorString(e), free_b, total_b);
    }
    return FDX_OK;
}

static void cuda_free(void *ptr)
{
    if (ptr) cudaFree(ptr);
}

static const enum cudaMemcpyKind kinds[] = {
    [FDX_COPY_H2D] = cudaMemcpyHostToDevice,
    [FDX_COPY_D2H] = cudaMemcpyDeviceToHost,
    [FDX_COPY_D2D] = cudaMemcpyDeviceToDevice,
    [FDX_COPY_H2H] = cudaMemcpyHostToHost,
};

static fdx_status cuda_copy(void *dst, const void *src, size_t bytes, fdx_copy_dir dir, void *stream)
{
    FDX_CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, kinds[dir], (cudaStream_t)stream));
    return FDX_OK;
}

static fdx_status cuda_copy_probe(void *dst, const void *src, size_t bytes, void *stream)
{
    return cuda_copy(dst, src, bytes, FDX_COPY_D2D, stream);
}

static fdx_status cuda_memset(void *ptr, int byte, size_t bytes, void *stream)
{
    FDX_CUDA_TRY(cudaMemsetAsync(ptr, byte, bytes, (cudaStream_t)stream));
    return FDX_OK;
}

static fdx_status cuda_stream_create(void **stream)
{
    FDX_CUDA_TRY(cudaStreamCreateWithFlags((cudaStream_t *)stream, cudaStreamNonBlocking));
    return FDX_OK;
}
static void cuda_stream_destroy(void *stream)
{
    if (stream) cudaStreamDestroy((cudaStream_t)stream);
}
static fdx_status cuda_stream_sync(void *stream)
{
    FDX_CUDA_TRY(cudaStreamSynchronize((cudaStream_t)stream));
    return FDX_OK;
}
static fdx_status cuda_device_sync(void)
{
    FDX_CUDA_TRY(cudaDeviceSynchronize());
    return FDX_OK;
}

static fdx_status cuda_event_create(void **event)
{
    FDX_CUDA_TRY(cudaEventCreate((cudaEvent_t *)event));
    return FDX_OK;
}
static void cuda_event_destroy(void *event)
{
    if (event) cudaEventDestroy((cudaEvent_t)event);
}
static fdx_status cuda_event_record(void *event, void *stream)
{
    FDX_CUDA_TRY(cudaEventRecord((cudaEvent_t)event, (cudaStream_t)stream));
    return FDX_OK;
}
static fdx_status cuda_event_elapsed_ms(void *start, void *stop, double *ms)
{
    float f = 0;
    FDX_CUDA_TRY(cudaEventSynchronize((cudaEvent_t)stop));
    FDX_CUDA_TRY(cudaEventElapsedTime(&f, (cudaEvent_t)start, (cudaEvent_t)stop));
    *ms = f;
    return FDX_OK;
}

struct fdx_kernel {
    cudaLibrary_t lib;
    cudaKernel_t fn;
    /* cooperative launches: blocks resident at once for coop_threads a block */
    unsigned coop_fit, coop_threads;
};

/* The cubin of `source` for the device's sm_XY: from the cache (verified
   in memory), else compiled by NVRTC and stored.  No CUDA runtime call:
   any thread may run it. */
static fdx_status cubin_of(const fdx_device_info *dev, const char *source, const char *what, void **cubin,
                           size_t *size)
{
    *cubin = NULL;
    *size = 0;
    int arch = dev->cc_major * 10 + dev->cc_minor, vmaj = 0, vmin = 0;
    FDX_TRY(fdx_nvrtc_version(&vmaj, &vmin));
    char ver[64];
    snprintf(ver, sizeof ver, "nvrtc %d.%d sm_%d", vmaj, vmin, arch);
    fdx_hash h;
    fdx_hash_init(&h);
    fdx_hash_add_str(&h, "cuda");
    fdx_hash_add_str(&h, source);
    fdx_hash_add_str(&h, ver);
    char key[33];
    fdx_hash_hex(&h, key);
    if (fdx_cache_load(key, ".cubin", cubin, size) == FDX_OK && *size > 0) {
        FDX_DEBUG("%s: CUDA kernel cache hit %s", what, key);
        return FDX_OK;
    }
    free(*cubin);
    *cubin = NULL;
    fdx_clear_error();
    FDX_INFO("compiling %s with NVRTC for sm_%d (%s)", what, arch, key);
    FDX_TRY(fdx_nvrtc_compile(source, arch, what, cubin, size));
    if (fdx_cache_store(key, ".cubin", *cubin, *size) != FDX_OK) {
        FDX_WARN("not caching %s: %s", what, fdx_last_error());
        fdx_clear_error();
    }
    return FDX_OK;
}

static fdx_status cuda_jit_compile(const fdx_device_info *dev, const char *source, const char *what)
{
    void *cubin = NULL;
    size_t size = 0;
    fdx_status st = cubin_of(dev, source, what ? what : "a kernel", &cubin, &size);
    free(cubin);
    return st;
}

static fdx_status cuda_jit_load(const fdx_device_info *dev, const char *source, const char *entry,
                                const char *what, fdx_kernel **out)
{
    *out = NULL;
    /* Read into memory and verified there (fdx_cache_load), then loaded
       from that same memory: nothing on disk is trusted after the check. */
    void *cubin = NULL;
    size_t size = 0;
    FDX_TRY(cubin_of(dev, source, what, &cubin, &size));
    fdx_kernel *k = calloc(1, sizeof *k);
    if (!k) {
        free(cubin);
        return fdx_fail(FDX_ERR_NOMEM, "out of memory loading %s", what);
    }
    cudaError_t e = cudaLibraryLoadData(&k->lib, cubin, NULL, NULL, 0, NULL, NULL, 0);
    free(cubin);
    if (e != cudaSuccess) {
        free(k);
        return fdx_fail(FDX_ERR_CUDA, "cudaLibraryLoadData(%s) failed: %s", what, cudaGetErrorString(e));
    }
    e = cudaLibraryGetKernel(&k->fn, k->lib, entry);
    if (e != cudaSuccess) {
        cudaLibraryUnload(k->lib);
        free(k);
        return fdx_fail(FDX_ERR_CUDA, "kernel '%s' not found in %s: %s", entry, what, cudaGetErrorString(e));
    }
    *out = k;
    return FDX_OK;
}

static void cuda_kernel_release(fdx_kernel *k)
{
    if (!k) return;
    cudaLibraryUnload(k->lib);
    free(k);
}

/* A cooperative launch: the grid cut to the blocks that are resident at
   once (occupancy x multiprocessors, kept with the kernel), shared by the
   d->coop launches that run on the device at the same time.  Where the
   occupancy query refuses the library kernel's handle, a full SM's
   threads a multiprocessor to start with, halved while the launch says
   the grid is too large. */
static fdx_status coop_launch(fdx_kernel *k, const fdx_launch_dims *d, void **args, void *stream)
{
    unsigned threads = d->block[0] * d->block[1] * d->block[2];
    FDX_CHECK(d->grid[1] == 1 && d->grid[2] == 1 && threads > 0, FDX_ERR_INTERNAL,
              "cooperative launch of a %ux%ux%u grid of %u threads (1D only)", d->grid[0], d->grid[1], d->grid[2], threads);
    if (k->coop_threads != threads) {
        int dev = 0, sms = 0, per_sm = 0;
        FDX_CUDA_TRY(cudaGetDevice(&dev));
        FDX_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
        if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, (const void *)k->fn, (int)threads, d->shmem) !=
            cudaSuccess) {
            cudaGetLastError(); /* not sticky */
            per_sm = (int)(2048 / threads);
        }
        FDX_CHECK(per_sm > 0, FDX_ERR_CUDA, "cooperative launch: no block of %u threads fits a multiprocessor", threads);
        k->coop_fit = (unsigned)per_sm * (unsigned)sms;
        k->coop_threads = threads;
    }
    dim3 block = {d->block[0], d->block[1], d->block[2]};
    for (;;) {
        unsigned fit = k->coop_fit / (unsigned)d->coop > 0 ? k->coop_fit / (unsigned)d->coop : 1;
        dim3 grid = {d->grid[0] < fit ? d->grid[0] : fit, 1, 1};
        cudaError_t e = cudaLaunchCooperativeKernel((const void *)k->fn, grid, block, args, d->shmem, (cudaStream_t)stream);
        if (e == cudaSuccess) return FDX_OK;
        if (e == cudaErrorCooperativeLaunchTooLarge && k->coop_fit > 1) {
            cudaGetLastError();
            k->coop_fit /= 2;
            continue;
        }
        return fdx_fail(FDX_ERR_CUDA, "cooperative kernel launch (grid %u, block %u, %zu bytes shared) failed: %s",
                        grid.x, threads, d->shmem, cudaGetErrorString(e));
    }
}

static fdx_status cuda_launch(fdx_kernel *k, const fdx_launch_dims *d, void **args, void *stream)
{
    FDX_CHECK(k, FDX_ERR_INVALID, "launch of a NULL CUDA kernel");
    dim3 grid = {d->grid[0], d->grid[1], d->grid[2]};
    dim3 block = {d->block[0], d->block[1], d->block[2]};
    if (d->shmem > 48 * 1024) {
        int dev = 0;
        FDX_CUDA_TRY(cudaGetDevice(&dev));
        FDX_CUDA_TRY(cudaKernelSetAttributeForDevice(k->fn, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                     (int)d->shmem, dev));
    }
    if (d->coop) return coop_launch(k, d, args, stream);
    cudaError_t e = cudaLaunchKernel((const void *)k->fn, grid, block, args, d->shmem, (cudaStream_t)stream);
    if (e != cudaSuccess)
        return fdx_fail(FDX_ERR_CUDA, "kernel launch (grid %ux%ux%u, block %ux%ux%u, %zu bytes shared) failed: %s",
                        grid.x, grid.y, grid.z, block.x, block.y, block.z, d->shmem, cudaGetErrorString(e));
    return FDX_OK;
}

static fdx_status cuda_check_device_pointer(const void *ptr, int ordinal, const char *what)
{
    struct cudaPointerAttributes at;
    cudaError_t e = cudaPointerGetAttributes(&at, ptr);
    if (e != cudaSuccess) {
        cudaGetLastError(); /* not sticky */
        return fdx_fail(FDX_ERR_INVALID, "%s %p is not CUDA memory (cudaPointerGetAttributes: %s)", what, ptr,
                        cudaGetErrorString(e));
    }
    FDX_CHECK(at.type == cudaMemoryTypeDevice || at.type == cudaMemoryTypeManaged, FDX_ERR_INVALID,
              "%s %p is %s memory, not device memory: pass it as the host pointer", what, ptr,
              at.type == cudaMemoryTypeHost ? "pinned host" : "unregistered host");
    FDX_CHECK(at.device == ordinal, FDX_ERR_INVALID, "%s %p lives on CUDA device %d, the context uses device %d", what,
              ptr, at.device, ordinal);
    return FDX_OK;
}

/* cuTensorMapEncodeTiled from the driver the runtime uses (no link to
   libcuda): looked up once. */
static fdx_status cuda_tensor_map_3d(void *map, const void *base, const uint64_t dims[3], int elem_bytes,
                                     const unsigned box[3])
{
    typedef CUresult (*encode_fn)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *, const cuuint64_t *,
                                  const cuuint64_t *, const cuuint32_t *, const cuuint32_t *, CUtensorMapInterleave,
                                  CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
    static encode_fn encode;
    if (!encode) {
        void *fn = NULL;
        enum cudaDriverEntryPointQueryResult q;
#if CUDART_VERSION >= 12050
        cudaError_t e = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &q);
#else
        cudaError_t e = cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", &fn, cudaEnableDefault, &q);
#endif
        FDX_CHECK(e == cudaSuccess && q == cudaDriverEntryPointSuccess && fn, FDX_ERR_CUDA,
                  "cuTensorMapEncodeTiled not found in the driver (%s)", cudaGetErrorString(e));
        encode = (encode_fn)fn;
    }
    const uint64_t row = dims[0] * (uint64_t)elem_bytes;
    FDX_CHECK(((uintptr_t)base & 15) == 0 && (elem_bytes == 4 || elem_bytes == 8) && row % 16 == 0 && box[0] <= 256 &&
                  box[1] <= 256 && box[2] <= 256 && (box[0] * (unsigned)elem_bytes) % 16 == 0 && dims[0] < ((uint64_t)1 << 31) &&
                  dims[1] < ((uint64_t)1 << 31) && dims[2] < ((uint64_t)1 << 31),
              FDX_ERR_UNSUPPORTED, "a 3D tensor map of %llux%llux%llu %d-byte values at %p, box %ux%ux%u",
              (unsigned long long)dims[0], (unsigned long long)dims[1], (unsigned long long)dims[2], elem_bytes, base,
              box[0], box[1], box[2]);
    const cuuint64_t dim[3] = {dims[0], dims[1], dims[2]}, stride[2] = {row, row * dims[1]};
    const cuuint32_t boxd[3] = {box[0], box[1], box[2]}, es[3] = {1, 1, 1};
    CUresult r = encode((CUtensorMap *)map, elem_bytes == 8 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT64 : CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
                        3, (void *)base, dim, stride, boxd, es, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                        CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    FDX_CHECK(r == CUDA_SUCCESS, FDX_ERR_CUDA, "cuTensorMapEncodeTiled (3D %llux%llux%llu, box %ux%ux%u) failed: error %d",
              (unsigned long long)dims[0], (unsigned long long)dims[1], (unsigned long long)dims[2], box[0], box[1], box[2],
              (int)r);
    return FDX_OK;
}

static const fdx_backend cuda_backend = {
    .name = "cuda",
    .kind = FDX_BACKEND_CUDA,
    .device_count = cuda_device_count,
    .device_info = cuda_device_info,
    .set_device = cuda_set_device,
    .alloc = cuda_alloc,
    .free = cuda_free,
    .copy = cuda_copy,
    .memset = cuda_memset,
    .stream_create = cuda_stream_create,
    .stream_destroy = cuda_stream_destroy,
    .stream_sync = cuda_stream_sync,
    .device_sync = cuda_device_sync,
    .event_create = cuda_event_create,
    .event_destroy = cuda_event_destroy,
    .event_record = cuda_event_record,
    .event_elapsed_ms = cuda_event_elapsed_ms,
    .jit_load = cuda_jit_load,
    .jit_compile = cuda_jit_compile,
    .jit_preload = fdx_nvrtc_preload,
    .kernel_release = cuda_kernel_release,
    .launch = cuda_launch,
    .copy_probe = cuda_copy_probe,
    .check_device_pointer = cuda_check_device_pointer,
    .tensor_map_3d = cuda_tensor_map_3d,
};

const fdx_backend *fdx_backend_cuda(void) { return &cuda_backend; }
