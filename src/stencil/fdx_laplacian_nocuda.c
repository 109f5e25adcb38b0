/* fdx_laplacian_nocuda: stands in for the CUDA kernel in builds without CUDA
   (never reached: such a build has no CUDA context). */
#include "stencil/fdx_laplacian.h"

fdx_status fdx_laplacian_cuda(int is_double, void *out, const void *in, const fdx_lap_args *a, void *stream)
{
    (void)is_double, (void)out, (void)in, (void)a, (void)stream;
    return fdx_fail(FDX_ERR_UNSUPPORTED, "fdx was built without CUDA");
}
