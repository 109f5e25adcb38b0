/* fdx_fieldops_cuda: the solvers' pointwise kernels on CUDA (compiled ahead
   of time; they do not depend on the stencil).  Launchers return a
   cudaError_t as int. */
#include "solvers/fdx_fieldops.h"

#include <cuda_runtime.h>
#include <math.h>

static unsigned blocks_for(long long n, int t) { return (unsigned)((n + t - 1) / t); }

/* One thread per ghost point of the faces of `axis`: both sides, r layers. */
template <typename T>
__global__ void mirror_kernel(T *u, long long nx, long long ny, long long nz, int axis, int r, unsigned sides)
{
    long long n[3] = {nx, ny, nz};
    long long a = n[axis], b = n[(axis + 1) % 3], c = n[(axis + 2) % 3];
    long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= 2LL * r * b * c) return;
    long long m = t % r, q = t / r, side = q % 2, bc = q / 2, ib = bc % b, ic = bc / b;
    if (!(sides >> (2 * axis + side) & 1)) return;
    long long s[3] = {1, nx, nx * ny};
    long long g = side ? a - r + m : r - 1 - m;      /* ghost layer */
    long long src = side ? a - r - 1 - m : r + m;   /* its mirror inside */
    long long base = ib * s[(axis + 1) % 3] + ic * s[(axis + 2) % 3];
    u[base + g * s[axis]] = u[base + src * s[axis]];
}

template <typename T>
__global__ void sponge_kernel(T *u, T *v, long long nx, long long ny, long long nz, int rank, long long x0,
                              long long y0, long long z0, long long bx, long long by, long long bz, long long ox,
                              long long oy, long long oz, long long NX, long long NY, long long NZ, int w,
                              double strength)
{
    long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= bx * by * bz) return;
    long long i = x0 + t % bx, j = y0 + (t / bx) % by, k = z0 + t / (bx * by);
    long long gi = i + ox, gj = j + oy, gk = k + oz; /* distances to the global faces */
    long long d = gi < NX - 1 - gi ? gi : NX - 1 - gi;
    long long dj = gj < NY - 1 - gj ? gj : NY - 1 - gj;
    if (dj < d) d = dj;
    if (rank == 3) {
        long long dk = gk < NZ - 1 - gk ? gk : NZ - 1 - gk;
        if (dk < d) d = dk;
    }
    if (d >= w) return;
    double x = strength * (double)(w - d) / (double)w;
    T f = (T)exp(-x * x);
    long long q = i + nx * (j + ny * k);
    u[q] *= f;
    if (v) v[q] *= f;
}

template <typename T> __global__ void add_point_kernel(T *u, long long q, double value) { u[q] += (T)value; }

template <typename T>
__global__ void add_point_step_kernel(T *u, long long q, const double *table, long long len, long long *step)
{
    long long k = (*step)++;
    if (k >= 0 && k < len && table[k] != 0) u[q] += (T)table[k];
}

template <typename T> __global__ void gather_kernel(const T *u, const long long *idx, int n, T *out)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < n) out[t] = u[idx[t]];
}

template <typename T> __global__ void axpy_kernel(T *y, const T *x, long long n, double a)
{
    long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t < n) y[t] += (T)a * x[t];
}

/* Grid-stride scan; each thread keeps its smallest bad index and one
   atomicMin per thread that found one (blow-ups are rare, so the atomics are). */
template <typename T>
__global__ void first_nonfinite_kernel(const T *u, long long n, unsigned long long *first)
{
    unsigned long long mine = ~0ULL;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
        if (!isfinite(u[i])) {
            mine = (unsigned long long)i;
            break;
        }
    if (mine != ~0ULL) atomicMin(first, mine);
}

extern "C" {

int fdx_fieldops_cuda_mirror(void *u, int is_double, const int64_t *n3, int rank, int r, unsigned sides, void *stream)
{
    cudaStream_t s = (cudaStream_t)stream;
    for (int axis = 0; axis < rank; axis++) {
        long long n[3] = {(long long)n3[0], (long long)n3[1], (long long)n3[2]};
        long long pts = 2LL * r * n[(axis + 1) % 3] * n[(axis + 2) % 3];
        if (is_double) mirror_kernel<double><<<blocks_for(pts, 256), 256, 0, s>>>((double *)u, n[0], n[1], n[2], axis, r, sides);
        else mirror_kernel<float><<<blocks_for(pts, 256), 256, 0, s>>>((float *)u, n[0], n[1], n[2], axis, r, sides);
        cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess) return (int)e;
    }
    return 0;
}

int fdx_fieldops_cuda_sponge_box(void *u, void *v, int is_double, const int64_t *n3, int rank, const int64_t *lo,
                                 const int64_t *hi, const int64_t *o, const int64_t *N, int w, double strength,
                                 void *stream)
{
    long long bx = hi[0] - lo[0], by = hi[1] - lo[1], bz = hi[2] - lo[2], pts = bx * by * bz;
    if (pts <= 0) return 0;
    cudaStream_t s = (cudaStream_t)stream;
    if (is_double)
        sponge_kernel<double><<<blocks_for(pts, 256), 256, 0, s>>>((double *)u, (double *)v, n3[0], n3[1], n3[2], rank,
                                                                    lo[0], lo[1], lo[2], bx, by, bz, o[0], o[1], o[2], N[0], N[1],
                                                                    N[2], w, strength);
    else
        sponge_kernel<float><<<blocks_for(pts, 256), 256, 0, s>>>((float *)u, (float *)v, n3[0], n3[1], n3[2], rank,
                                                                  lo[0], lo[1], lo[2], bx, by, bz, o[0], o[1], o[2], N[0], N[1],
                                                                    N[2], w, strength);
    return (int)cudaGetLastError();
}

int fdx_fieldops_cuda_add_point(void *u, int is_double, int64_t index, double value, void *stream)
{
    cudaStream_t s = (cudaStream_t)stream;
    if (is_double) add_point_kernel<double><<<1, 1, 0, s>>>((double *)u, index, value);
    else add_point_kernel<float><<<1, 1, 0, s>>>((float *)u, index, value);
    return (int)cudaGetLastError();
}

int fdx_fieldops_cuda_add_point_step(void *u, int is_double, int64_t index, const double *table, int64_t len,
                                     int64_t *step, void *stream)
{
    cudaStream_t s = (cudaStream_t)stream;
    if (is_double) add_point_step_kernel<double><<<1, 1, 0, s>>>((double *)u, index, table, len, (long long *)step);
    else add_point_step_kernel<float><<<1, 1, 0, s>>>((float *)u, index, table, len, (long long *)step);
    return (int)cudaGetLastError();
}

int fdx_fieldops_cuda_gather(const void *u, int is_double, const int64_t *idx, int n, void *out, void *stream)
{
    if (n <= 0) return 0;
    cudaStream_t s = (cudaStream_t)stream;
    if (is_double) gather_kernel<double><<<blocks_for(n, 128), 128, 0, s>>>((const double *)u, (const long long *)idx, n, (double *)out);
    else gather_kernel<float><<<blocks_for(n, 128), 128, 0, s>>>((const float *)u, (const long long *)idx, n, (float *)out);
    return (int)cudaGetLastError();
}

int fdx_fieldops_cuda_axpy(void *y, const void *x, int is_double, int64_t n, double a, void *stream)
{
    cudaStream_t s = (cudaStream_t)stream;
    if (is_double) axpy_kernel<double><<<blocks_for(n, 256), 256, 0, s>>>((double *)y, (const double *)x, n, a);
    else axpy_kernel<float><<<blocks_for(n, 256), 256, 0, s>>>((float *)y, (const float *)x, n, a);
    return (int)cudaGetLastError();
}

int fdx_fieldops_cuda_first_nonfinite(const void *u, int is_double, int64_t n, void *first_dev, void *stream)
{
    if (n <= 0) return 0;
    cudaStream_t s = (cudaStream_t)stream;
    unsigned blocks = blocks_for(n, 256);
    if (blocks > 4096) blocks = 4096;
    if (is_double) first_nonfinite_kernel<double><<<blocks, 256, 0, s>>>((const double *)u, n, (unsigned long long *)first_dev);
    else first_nonfinite_kernel<float><<<blocks, 256, 0, s>>>((const float *)u, n, (unsigned long long *)first_dev);
    return (int)cudaGetLastError();
}

int fdx_fieldops_cuda_mem_info(size_t *free_bytes, size_t *total_bytes)
{
    return (int)cudaMemGetInfo(free_bytes, total_bytes);
}

const char *fdx_fieldops_cuda_error(int code) { return cudaGetErrorString((cudaError_t)code); }
}
