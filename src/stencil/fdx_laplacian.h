/* fdx_laplacian (internal): the per-backend kernels behind fdx_laplacian_apply. */
#ifndef FDX_LAPLACIAN_IMPL_H
#define FDX_LAPLACIAN_IMPL_H

#include "core/fdx_error.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Shapes are 3D here: a 2D problem has shape[2] == 1 and no z term. */
typedef struct fdx_lap_args {
    int64_t n[3];
    double inv_h2[3]; /* 1/h^2 per axis, 0 for an absent axis */
    int dims;
} fdx_lap_args;

FDX_HIDDEN fdx_status fdx_laplacian_cpu(int is_double, void *out, const void *in, const fdx_lap_args *a);
FDX_HIDDEN fdx_status fdx_laplacian_cuda(int is_double, void *out, const void *in, const fdx_lap_args *a,
                                         void *stream);

#ifdef __cplusplus
}
#endif
#endif
