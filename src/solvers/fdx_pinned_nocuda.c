/* fdx_pinned_nocuda: without CUDA, host buffers are plain malloc. */
#include "solvers/fdx_pinned.h"

#include <stdlib.h>

fdx_status fdx_pinned_alloc(fdx_ctx *ctx, size_t bytes, void **out)
{
    (void)ctx;
    *out = malloc(bytes ? bytes : 1);
    FDX_CHECK(*out, FDX_ERR_NOMEM, "no memory for a %zu-byte host buffer", bytes);
    return FDX_OK;
}

void fdx_pinned_free(fdx_ctx *ctx, void *p)
{
    (void)ctx;
    free(p);
}
