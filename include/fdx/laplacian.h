/* The second-order Laplacian of the seed "Finite difference method -
   Laplacian part 1": 5 points in 2D, 7 points in 3D, on interior points. */
#ifndef FDX_LAPLACIAN_H
#define FDX_LAPLACIAN_H

#include "array.h"

#ifdef __cplusplus
extern "C" {
#endif

/* out = L(in) on interior points, h[axis] the grid spacing of each axis.
   in and out: rank 2 or 3, same shape (every extent >= 3) and element type
   (float or double), distinct storage.  Boundary points of out are not written.
   Runs on the context's backend: on CUDA it reads and writes the device copies
   (asynchronously on `stream`, NULL for the default stream), on the CPU the host
   copies. */
FDX_API fdx_status fdx_laplacian_apply(fdx_array *out, fdx_array *in, const double *h,
                                       void *stream);

#ifdef __cplusplus
}
#endif
#endif
