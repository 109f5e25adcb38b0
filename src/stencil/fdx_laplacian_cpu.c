/* fdx_laplacian_cpu: the 5/7-point Laplacian with OpenMP over planes and rows
   and a unit-stride inner loop the compiler vectorizes. */
#include "stencil/fdx_laplacian.h"

#include <stddef.h>

/* One body for both precisions. */
#define LAPLACIAN_CPU(T, out_, in_, a)                                                     \
    do {                                                                                   \
        T *restrict f = (T *)(out_);                                                       \
        const T *restrict u = (const T *)(in_);                                            \
        const int64_t nx = (a)->n[0], ny = (a)->n[1], nz = (a)->n[2];                      \
        const int64_t sy = nx, sz = nx * ny;                                               \
        const T cx = (T)(a)->inv_h2[0], cy = (T)(a)->inv_h2[1], cz = (T)(a)->inv_h2[2];    \
        const T cc = (T)(-2.0 * ((a)->inv_h2[0] + (a)->inv_h2[1] + (a)->inv_h2[2]));       \
        const int64_t k0 = (a)->dims == 3 ? 1 : 0, k1 = (a)->dims == 3 ? nz - 1 : 1;       \
        _Pragma("omp parallel for collapse(2) schedule(static)")                          \
        for (int64_t k = k0; k < k1; k++)                                                  \
            for (int64_t j = 1; j < ny - 1; j++) {                                         \
                const int64_t row = j * sy + k * sz;                                       \
                _Pragma("omp simd")                                                        \
                for (int64_t i = 1; i < nx - 1; i++) {                                     \
                    const int64_t p = row + i;                                             \
                    T s = cc * u[p] + cx * (u[p - 1] + u[p + 1]) + cy * (u[p - sy] + u[p + sy]); \
                    if ((a)->dims == 3) s += cz * (u[p - sz] + u[p + sz]);                 \
                    f[p] = s;                                                              \
                }                                                                          \
            }                                                                              \
    } while (0)

fdx_status fdx_laplacian_cpu(int is_double, void *out, const void *in, const fdx_lap_args *a)
{
    if (is_double)
        LAPLACIAN_CPU(double, out, in, a);
    else
        LAPLACIAN_CPU(float, out, in, a);
    return FDX_OK;
}
