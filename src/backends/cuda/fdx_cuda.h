/* fdx_cuda: checking CUDA runtime calls, shared by the CUDA backend and the
   host launchers of ahead-of-time kernels (.cu files). */
#ifndef FDX_CUDA_H
#define FDX_CUDA_H

#include "backends/fdx_backend.h"

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Turns a cudaError_t into an fdx_status with the call's text and the error. */
FDX_HIDDEN fdx_status fdx_cuda_fail(cudaError_t err, const char *call, const char *file, int line);

/* FDX_OK for cudaSuccess, else fdx_cuda_fail's status. */
static inline fdx_status fdx_cuda_status(cudaError_t err, const char *call, const char *file, int line)
{
    return err == cudaSuccess ? FDX_OK : fdx_cuda_fail(err, call, file, line);
}

/* Propagates a failed CUDA runtime call (through FDX_TRY, the one macro
   that returns). */
#define FDX_CUDA_TRY(call) FDX_TRY(fdx_cuda_status((call), #call, __FILE__, __LINE__))

/* After a <<<>>> launch: the launch error, if any. */
#define FDX_CUDA_CHECK_LAUNCH(name) FDX_CUDA_TRY(cudaPeekAtLastError())

/* Compiles CUDA C to a cubin for sm_<arch> with NVRTC (loaded on first use
   with dlopen, so fdx starts without it).  *cubin is malloc'ed. */
FDX_HIDDEN fdx_status fdx_nvrtc_compile(const char *source, int arch, const char *what,
                                        void **cubin, size_t *size);
FDX_HIDDEN fdx_status fdx_nvrtc_version(int *major, int *minor);
/* Starts loading NVRTC in a background thread (once), so the 110 MB library
   is mapped while the CUDA context is created; the first compile (or cache
   lookup, whose key holds NVRTC's version) waits for it if it is not done. */
FDX_HIDDEN void fdx_nvrtc_preload(void);

#ifdef __cplusplus
}
#endif
#endif
