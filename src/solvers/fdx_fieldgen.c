/* fdx_fieldgen: generated initial fields and models, written in place:
   OpenMP loops into the array on the CPU backend, a kernel on CUDA
   (fdx_fieldgen_cuda.cu); both evaluate fdx_fieldgen_point.h. */
#include "solvers/fdx_fieldgen.h"

#include "solvers/fdx_fieldgen_point.h"

#include "backends/fdx_backend.h"
#include "solvers/fdx_fieldops.h"

double fdx_fieldgen_velocity(const fdx_gen *g, int64_t d) { return gen_velocity(g, d); }

#define DEFINE_FILL(T)                                                                                             \
    static void fill_##T(T *a, const int64_t *n, const fdx_gen *g)                                                 \
    {                                                                                                              \
        _Pragma("omp parallel for collapse(2)") for (int64_t k = 0; k < n[2]; k++) for (int64_t j = 0; j < n[1];   \
                                                                                        j++)                       \
        {                                                                                                          \
            T *row = a + n[0] * (j + n[1] * k);                                                                    \
            for (int64_t i = 0; i < n[0]; i++)                                                                     \
                row[i] = (T)gen_value(g, i + g->origin[0], j + g->origin[1], k + g->origin[2]);                    \
        }                                                                                                          \
    }
DEFINE_FILL(float)
DEFINE_FILL(double)

fdx_status fdx_fieldgen_fill(fdx_array *a, const fdx_gen *g, void *stream)
{
    int64_t n[3];
    for (int d = 0; d < 3; d++) n[d] = d < fdx_array_rank(a) ? fdx_array_extent(a, d) : 1;
    void *p = fdx_array_device(a);
    FDX_CHECK(p, FDX_ERR_INVALID, "field generator: the array has no device storage");
    int is_double = fdx_array_dtype(a) == FDX_FLOAT64;
    if (fdx_ctx_backend(fdx_array_ctx(a)) == FDX_BACKEND_CUDA) {
#ifdef FDX_HAVE_CUDA
        int e = fdx_fieldgen_cuda_fill(p, is_double, n, g, stream);
        FDX_CHECK(e == 0, FDX_ERR_CUDA, "field generator kernel: %s", fdx_fieldops_cuda_error(e));
        return FDX_OK;
#else
        return fdx_fail(FDX_ERR_UNSUPPORTED, "fdx was built without CUDA");
#endif
    }
    (void)stream;
    if (is_double) fill_double(p, n, g);
    else fill_float(p, n, g);
    return FDX_OK;
}
