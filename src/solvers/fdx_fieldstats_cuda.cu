/* fdx_fieldstats_cuda: the reductions of fdx_fieldstats.h on the device: a
   warp a row (lane l adds points l, l + 32, ...; then the shuffle tree), a
   thread a plane adding its rows in order, one thread adding the planes.
   fdx_fieldstats.c computes the same sums in the same order on the CPU. */
#include "solvers/fdx_fieldstats.h"

#include "solvers/fdx_fieldstats_point.h"

#include <cuda_runtime.h>
#include <math.h>

#define ROWS_PER_BLOCK 8

__global__ void rows_kernel(fdx_stats_job J, double *rows)
{
    long long ny = J.hi[1] - J.lo[1], nrows = ny * (J.hi[2] - J.lo[2]);
    long long row = (long long)blockIdx.x * ROWS_PER_BLOCK + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (row >= nrows) return; /* whole warps leave together */
    long long j = J.lo[1] + row % ny, k = J.lo[2] + row / ny;
    double a = 0, b = 0, mn = INFINITY, mx = -INFINITY;
    for (long long i = J.lo[0] + lane; i < J.hi[0]; i += 32) {
        double pa, pb, v;
        st_point(&J, i, j, k, &pa, &pb, &v);
        a = __dadd_rn(a, pa);
        b = __dadd_rn(b, pb);
        mn = v < mn ? v : mn;
        mx = v > mx ? v : mx;
    }
    for (int off = 16; off > 0; off /= 2) {
        double oa = __shfl_down_sync(0xffffffffu, a, off), ob = __shfl_down_sync(0xffffffffu, b, off);
        double omn = __shfl_down_sync(0xffffffffu, mn, off), omx = __shfl_down_sync(0xffffffffu, mx, off);
        if (lane < off) {
            a = __dadd_rn(a, oa);
            b = __dadd_rn(b, ob);
            mn = omn < mn ? omn : mn;
            mx = omx > mx ? omx : mx;
        }
    }
    if (lane == 0) {
        double *o = rows + 4 * row;
        o[0] = a, o[1] = b, o[2] = mn, o[3] = mx;
    }
}

__device__ void fold(const double *in, long long n, double *out)
{
    double a = 0, b = 0, mn = INFINITY, mx = -INFINITY;
    for (long long t = 0; t < n; t++) {
        a = __dadd_rn(a, in[4 * t]);
        b = __dadd_rn(b, in[4 * t + 1]);
        mn = in[4 * t + 2] < mn ? in[4 * t + 2] : mn;
        mx = in[4 * t + 3] > mx ? in[4 * t + 3] : mx;
    }
    out[0] = a, out[1] = b, out[2] = mn, out[3] = mx;
}

/* One block: thread t folds planes t, t + blockDim, ...; then thread 0 the planes. */
__global__ void planes_kernel(const double *rows, long long ny, long long nz, double *planes, double *result)
{
    for (long long k = threadIdx.x; k < nz; k += blockDim.x) fold(rows + 4 * ny * k, ny, planes + 4 * k);
    __syncthreads();
    if (threadIdx.x == 0) fold(planes, nz, result);
}

extern "C" int fdx_fieldstats_cuda_reduce(const fdx_stats_job *job, double *scratch, void *stream)
{
    long long ny = job->hi[1] - job->lo[1], nz = job->hi[2] - job->lo[2], nrows = ny * nz;
    cudaStream_t s = (cudaStream_t)stream;
    double *result = scratch, *planes = scratch + 4, *rows = planes + 4 * nz;
    rows_kernel<<<(unsigned)((nrows + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK), 32 * ROWS_PER_BLOCK, 0, s>>>(*job, rows);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) return (int)e;
    planes_kernel<<<1, 256, 0, s>>>(rows, ny, nz, planes, result);
    return (int)cudaGetLastError();
}
