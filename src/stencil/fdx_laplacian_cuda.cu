/* fdx_laplacian_cuda: a plain one-thread-per-point Laplacian kernel.  Correct,
   not tuned: the stencil engine generates the fast kernels. */
#include "backends/cuda/fdx_cuda.h"
#include "stencil/fdx_laplacian.h"

namespace {

constexpr int TX = 32, TY = 8;

template <typename T>
__global__ void laplacian_kernel(T *__restrict__ f, const T *__restrict__ u, fdx_lap_args a)
{
    const int64_t i = 1 + (int64_t)blockIdx.x * TX + threadIdx.x;
    const int64_t j = 1 + (int64_t)blockIdx.y * TY + threadIdx.y;
    const int64_t k = (a.dims == 3 ? 1 : 0) + (int64_t)blockIdx.z;
    if (i >= a.n[0] - 1 || j >= a.n[1] - 1) return;
    const int64_t sy = a.n[0], sz = a.n[0] * a.n[1], p = i + j * sy + k * sz;
    const T cx = (T)a.inv_h2[0], cy = (T)a.inv_h2[1], cz = (T)a.inv_h2[2];
    T s = (T)(-2.0 * (a.inv_h2[0] + a.inv_h2[1] + a.inv_h2[2])) * u[p] + cx * (u[p - 1] + u[p + 1]) +
          cy * (u[p - sy] + u[p + sy]);
    if (a.dims == 3) s += cz * (u[p - sz] + u[p + sz]);
    f[p] = s;
}

unsigned ceil_div(int64_t n, int d) { return (unsigned)((n + d - 1) / d); }

} // namespace

extern "C" fdx_status fdx_laplacian_cuda(int is_double, void *out, const void *in, const fdx_lap_args *a,
                                         void *stream)
{
    const int64_t planes = a->dims == 3 ? a->n[2] - 2 : 1;
    FDX_CHECK(planes <= 65535, FDX_ERR_UNSUPPORTED,
              "the plain CUDA Laplacian handles at most 65535 interior planes, got %lld", (long long)planes);
    dim3 block(TX, TY, 1);
    dim3 grid(ceil_div(a->n[0] - 2, TX), ceil_div(a->n[1] - 2, TY), (unsigned)planes);
    FDX_CHECK(grid.y <= 65535, FDX_ERR_UNSUPPORTED, "axis 1 extent %lld too large for the plain CUDA Laplacian",
              (long long)a->n[1]);
    cudaStream_t s = (cudaStream_t)stream;
    if (is_double)
        laplacian_kernel<double><<<grid, block, 0, s>>>((double *)out, (const double *)in, *a);
    else
        laplacian_kernel<float><<<grid, block, 0, s>>>((float *)out, (const float *)in, *a);
    FDX_CUDA_CHECK_LAUNCH("laplacian_kernel");
    return FDX_OK;
}
