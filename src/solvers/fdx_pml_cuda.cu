/* fdx_pml_cuda: the PML on CUDA, the fused pass or the two passes
   (compiled ahead of time, one thread per point of the layer, the point
   code of fdx_pml_point.h).  The launcher returns a cudaError_t as int. */
#include <cuda_runtime.h>

#include "solvers/fdx_pml_point.h"

static unsigned blocks_for(long long n, int t) { return (unsigned)((n + t - 1) / t); }

/* The job goes by value (about 640 bytes of kernel parameters); T the
   element type, I the index type (fdx_pml_point.h). */
#define PML_KERNELS(T, I)                                                                                          \
    __global__ void psi_kernel_##T##_##I(fdx_pml_job J, const T *tab, T *aux, const T *u, long long n)             \
    {                                                                                                              \
        long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;                                            \
        if (t < n) pml_psi_point_##T##_##I(&J, tab, aux, u, t);                                                    \
    }                                                                                                              \
    __global__ void term_kernel_##T##_##I(fdx_pml_job J, const T *tab, T *aux, T *next, const T *u, const T *c2,   \
                                          long long n)                                                             \
    {                                                                                                              \
        long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;                                            \
        if (t < n) pml_term_point_##T##_##I(&J, tab, aux, next, u, c2, t);                                         \
    }                                                                                                              \
    static void launch_##T##_##I(const fdx_pml_job *J, const void *tab, void *aux, void *next, const void *cur,    \
                                 const void *c2, long long npsi, long long nterm, cudaStream_t s)                  \
    {                                                                                                              \
        if (npsi > 0)                                                                                              \
            psi_kernel_##T##_##I<<<blocks_for(npsi, 256), 256, 0, s>>>(*J, (const T *)tab, (T *)aux,               \
                                                                       (const T *)cur, npsi);                      \
        if (nterm > 0)                                                                                             \
            term_kernel_##T##_##I<<<blocks_for(nterm, 256), 256, 0, s>>>(*J, (const T *)tab, (T *)aux, (T *)next,  \
                                                                         (const T *)cur, (const T *)c2, nterm);    \
    }
PML_KERNELS(float, i32)
PML_KERNELS(float, i64)
PML_KERNELS(double, i32)
PML_KERNELS(double, i64)

extern "C" int fdx_pml_cuda_step(const fdx_pml_job *J, int is_double, const void *tab, void *aux, void *next,
                                 const void *cur, const void *c2, void *stream)
{
    long long npsi = 0, nterm = J->nbox ? J->box_end[J->nbox - 1] : 0;
    for (int a = 0; !J->fused && a < J->rank; a++) npsi += J->npsi[a]; /* pass 1: the two passes only */
    cudaStream_t s = (cudaStream_t)stream;
    if (is_double && J->i32) launch_double_i32(J, tab, aux, next, cur, c2, npsi, nterm, s);
    else if (is_double) launch_double_i64(J, tab, aux, next, cur, c2, npsi, nterm, s);
    else if (J->i32) launch_float_i32(J, tab, aux, next, cur, c2, npsi, nterm, s);
    else launch_float_i64(J, tab, aux, next, cur, c2, npsi, nterm, s);
    return (int)cudaGetLastError();
}
