/* fdx_fieldgen_cuda: the field generator's kernel (compiled ahead of time):
   one thread a point, evaluating fdx_fieldgen_point.h as the CPU does. */
#include "solvers/fdx_fieldgen.h"

#include "solvers/fdx_fieldgen_point.h"

#include <cuda_runtime.h>

template <typename T> __global__ void fill_kernel(T *a, long long nx, long long ny, long long count, fdx_gen g)
{
    long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= count) return;
    long long i = t % nx, j = t / nx % ny, k = t / (nx * ny);
    a[t] = (T)gen_value(&g, i + g.origin[0], j + g.origin[1], k + g.origin[2]);
}

extern "C" int fdx_fieldgen_cuda_fill(void *a, int is_double, const int64_t *n3, const fdx_gen *g, void *stream)
{
    long long count = (long long)n3[0] * n3[1] * n3[2];
    if (count <= 0) return 0;
    unsigned blocks = (unsigned)((count + 255) / 256);
    cudaStream_t s = (cudaStream_t)stream;
    if (is_double) fill_kernel<double><<<blocks, 256, 0, s>>>((double *)a, n3[0], n3[1], count, *g);
    else fill_kernel<float><<<blocks, 256, 0, s>>>((float *)a, n3[0], n3[1], count, *g);
    return (int)cudaGetLastError();
}
