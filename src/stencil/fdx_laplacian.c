/* fdx_laplacian: the foundation's second-order Laplacian, served by the
   stencil engine (order 2, d2 = 1 on every axis); the seed's theoretical
   traffic for star stencils. */
#include "arrays/fdx_array_impl.h"
#include "fdx/laplacian.h"
#include "fdx/stencil.h"

fdx_status fdx_laplacian_apply(fdx_array *out, fdx_array *in, const double *h, void *stream)
{
    FDX_CHECK(out && in && h, FDX_ERR_INVALID, "fdx_laplacian_apply: NULL argument");
    FDX_CHECK(in->rank == 2 || in->rank == 3, FDX_ERR_INVALID, "Laplacian needs rank 2 or 3, input has rank %d",
              in->rank);
    FDX_CHECK(out->rank == in->rank, FDX_ERR_INVALID, "output rank %d differs from input rank %d", out->rank,
              in->rank);
    FDX_CHECK(in->dtype == FDX_FLOAT32 || in->dtype == FDX_FLOAT64, FDX_ERR_INVALID,
              "Laplacian needs float or double, input is %s", fdx_dtype_name(in->dtype));
    FDX_CHECK(out->dtype == in->dtype, FDX_ERR_INVALID, "output type %s differs from input type %s",
              fdx_dtype_name(out->dtype), fdx_dtype_name(in->dtype));
    FDX_CHECK(out != in, FDX_ERR_INVALID, "Laplacian output and input must be distinct arrays");
    for (int d = 0; d < in->rank; d++) {
        FDX_CHECK(in->shape[d] >= 3, FDX_ERR_INVALID, "Laplacian needs at least 3 points on axis %d, got %lld", d,
                  (long long)in->shape[d]);
        FDX_CHECK(out->shape[d] == in->shape[d], FDX_ERR_INVALID,
                  "output extent %lld differs from input %lld on axis %d", (long long)out->shape[d],
                  (long long)in->shape[d], d);
        FDX_CHECK(h[d] > 0, FDX_ERR_INVALID, "grid spacing h[%d] = %g must be positive", d, h[d]);
    }
    /* A stencil object is cheap (weights only): its kernel and tuning come
       from the engine's process-wide caches. */
    fdx_stencil_desc desc;
    fdx_stencil_desc_laplacian(&desc, in->rank, 2, h);
    fdx_stencil *s = NULL;
    FDX_TRY(fdx_stencil_create(in->ctx, &desc, in->dtype, &s));
    fdx_status st = fdx_stencil_apply(s, out, in, NULL, NULL, stream);
    fdx_stencil_destroy(&s);
    return st;
}
