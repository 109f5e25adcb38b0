/* fdx_pinned_cuda: page-locked host memory from the CUDA runtime. */
#include "backends/cuda/fdx_cuda.h"
#include "solvers/fdx_pinned.h"

#include <stdlib.h>

fdx_status fdx_pinned_alloc(fdx_ctx *ctx, size_t bytes, void **out)
{
    *out = NULL;
    if (fdx_ctx_backend(ctx) != FDX_BACKEND_CUDA) {
        *out = malloc(bytes ? bytes : 1);
        FDX_CHECK(*out, FDX_ERR_NOMEM, "no memory for a %zu-byte host buffer", bytes);
        return FDX_OK;
    }
    FDX_CUDA_TRY(cudaHostAlloc(out, bytes ? bytes : 1, cudaHostAllocDefault));
    return FDX_OK;
}

void fdx_pinned_free(fdx_ctx *ctx, void *p)
{
    if (!p) return;
    if (fdx_ctx_backend(ctx) != FDX_BACKEND_CUDA) free(p);
    else cudaFreeHost(p);
}
