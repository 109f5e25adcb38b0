/* fdx_pml_cuda: the PML's two passes on CUDA (compiled ahead of time, one
   thread per point of the layer, the point code of fdx_pml_point.h).  The
   launcher returns a cudaError_t as int. */
#include <cuda_runtime.h>

#include "solvers/fdx_pml_point.h"

static unsigned blocks_for(long long n, int t) { return (unsigned)((n + t - 1) / t); }

/* The job goes by value (about 640 bytes of kernel parameters). */
#define PML_KERNELS(T)                                                                                             \
    __global__ void psi_kernel_##T(fdx_pml_job J, const T *tab, T *aux, const T *u, long long n)                   \
    {                                                                                                              \
        long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;                                            \
        if (t < n) pml_psi_point_##T(&J, tab, aux, u, t);                                                          \
    }                                                                                                              \
    __global__ void term_kernel_##T(fdx_pml_job J, const T *tab, T *aux, T *next, const T *u, const T *c2,         \
                                    long long n)                                                                   \
    {                                                                                                              \
        long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;                                            \
        if (t < n) pml_term_point_##T(&J, tab, aux, next, u, c2, t);                                               \
    }                                                                                                              \
    static void launch_##T(const fdx_pml_job *J, const void *tab, void *aux, void *next, const void *cur,          \
                           const void *c2, long long npsi, long long nterm, cudaStream_t s)                        \
    {                                                                                                              \
        if (npsi > 0)                                                                                              \
            psi_kernel_##T<<<blocks_for(npsi, 256), 256, 0, s>>>(*J, (const T *)tab, (T *)aux, (const T *)cur,     \
                                                                 npsi);                                            \
        if (nterm > 0)                                                                                             \
            term_kernel_##T<<<blocks_for(nterm, 256), 256, 0, s>>>(*J, (const T *)tab, (T *)aux, (T *)next,        \
                                                                   (const T *)cur, (const T *)c2, nterm);          \
    }
PML_KERNELS(float)
PML_KERNELS(double)

extern "C" int fdx_pml_cuda_step(const fdx_pml_job *J, int is_double, const void *tab, void *aux, void *next,
                                 const void *cur, const void *c2, void *stream)
{
    long long npsi = 0, nterm = J->nbox ? J->box_end[J->nbox - 1] : 0;
    for (int a = 0; a < J->rank; a++) npsi += J->npsi[a];
    cudaStream_t s = (cudaStream_t)stream;
    if (is_double) launch_double(J, tab, aux, next, cur, c2, npsi, nterm, s);
    else launch_float(J, tab, aux, next, cur, c2, npsi, nterm, s);
    return (int)cudaGetLastError();
}
