/* fdx_fieldops: the solvers' pointwise kernels: OpenMP loops here for the CPU
   backend, dispatch to fdx_fieldops_cuda.cu for CUDA. */
#include "solvers/fdx_fieldops.h"

#include <math.h>

static int on_cuda(const fdx_array *a) { return fdx_ctx_backend(fdx_array_ctx(a)) == FDX_BACKEND_CUDA; }

static void shape3(const fdx_array *a, int64_t n[3])
{
    for (int d = 0; d < 3; d++) n[d] = d < fdx_array_rank(a) ? fdx_array_extent(a, d) : 1;
}

#ifdef FDX_HAVE_CUDA
#define CUDA_RUN(call)                                                                                             \
    do {                                                                                                           \
        int e_ = (call);                                                                                           \
        if (e_ != 0) return fdx_fail(FDX_ERR_CUDA, "%s: %s", #call, fdx_fieldops_cuda_error(e_));                 \
        return FDX_OK;                                                                                             \
    } while (0)
#else
#define CUDA_RUN(call) return fdx_fail(FDX_ERR_UNSUPPORTED, "fdx was built without CUDA")
#endif

/* The CPU loops, once per element type. */
#define DEFINE_CPU_OPS(T)                                                                                          \
    static void mirror_##T(T *u, const int64_t *n, int rank, int r)                                                \
    {                                                                                                              \
        int64_t s[3] = {1, n[0], n[0] * n[1]};                                                                     \
        for (int axis = 0; axis < rank; axis++) {                                                                  \
            int b = (axis + 1) % 3, c = (axis + 2) % 3;                                                            \
            _Pragma("omp parallel for collapse(2)") for (int64_t ic = 0; ic < n[c]; ic++) for (int64_t ib = 0;     \
                                                                                              ib < n[b]; ib++)     \
            {                                                                                                      \
                int64_t base = ib * s[b] + ic * s[c];                                                              \
                for (int m = 0; m < r; m++) {                                                                      \
                    u[base + (r - 1 - m) * s[axis]] = u[base + (r + m) * s[axis]];                                 \
                    u[base + (n[axis] - r + m) * s[axis]] = u[base + (n[axis] - r - 1 - m) * s[axis]];             \
                }                                                                                                  \
            }                                                                                                      \
        }                                                                                                          \
    }                                                                                                              \
    static void sponge_##T(T *u, T *v, const int64_t *n, int rank, int w, double strength)                         \
    {                                                                                                              \
        _Pragma("omp parallel for collapse(2)") for (int64_t k = 0; k < n[2]; k++) for (int64_t j = 0; j < n[1];   \
                                                                                          j++)                     \
        {                                                                                                          \
            int64_t dyz = j < n[1] - 1 - j ? j : n[1] - 1 - j;                                                     \
            if (rank == 3) {                                                                                       \
                int64_t dk = k < n[2] - 1 - k ? k : n[2] - 1 - k;                                                  \
                if (dk < dyz) dyz = dk;                                                                            \
            }                                                                                                      \
            for (int64_t i = 0; i < n[0]; i++) {                                                                   \
                int64_t d = i < n[0] - 1 - i ? i : n[0] - 1 - i;                                                   \
                if (dyz < d) d = dyz;                                                                              \
                if (d >= w) {                                                                                      \
                    i = n[0] - 1 - w; /* skip the interior of the row */                                           \
                    if (i < 0) break;                                                                              \
                    continue;                                                                                      \
                }                                                                                                  \
                double x = strength * (double)(w - d) / (double)w;                                                 \
                T f = (T)exp(-x * x);                                                                              \
                int64_t q = i + n[0] * (j + n[1] * k);                                                             \
                u[q] *= f;                                                                                         \
                if (v) v[q] *= f;                                                                                  \
            }                                                                                                      \
        }                                                                                                          \
    }                                                                                                              \
    static void axpy_##T(T *y, const T *x, int64_t n, double a)                                                    \
    {                                                                                                              \
        _Pragma("omp parallel for") for (int64_t i = 0; i < n; i++) y[i] += (T)a * x[i];                           \
    }

DEFINE_CPU_OPS(float)
DEFINE_CPU_OPS(double)

static int is_double(const fdx_array *a) { return fdx_array_dtype(a) == FDX_FLOAT64; }

fdx_status fdx_fieldops_mirror(fdx_array *u, int r, void *stream)
{
    int64_t n[3];
    shape3(u, n);
    void *p = fdx_array_device(u);
    FDX_CHECK(p, FDX_ERR_INVALID, "mirror: array has no device storage");
    if (on_cuda(u)) CUDA_RUN(fdx_fieldops_cuda_mirror(p, is_double(u), n, fdx_array_rank(u), r, stream));
    if (is_double(u)) mirror_double(p, n, fdx_array_rank(u), r);
    else mirror_float(p, n, fdx_array_rank(u), r);
    return FDX_OK;
}

fdx_status fdx_fieldops_sponge(fdx_array *u, fdx_array *v, int w, double strength, void *stream)
{
    int64_t n[3];
    shape3(u, n);
    int rank = fdx_array_rank(u);
    void *pu = fdx_array_device(u), *pv = v ? fdx_array_device(v) : NULL;
    if (on_cuda(u)) {
#ifdef FDX_HAVE_CUDA
        /* Six slabs (four in 2D) cover the layer without visiting the interior. */
        for (int axis = 0; axis < rank; axis++)
            for (int side = 0; side < 2; side++) {
                int64_t lo[3] = {0, 0, 0}, hi[3] = {n[0], n[1], n[2]};
                for (int b = 0; b < axis; b++) {
                    lo[b] = w < n[b] ? w : n[b];
                    hi[b] = n[b] - w > lo[b] ? n[b] - w : lo[b];
                }
                int64_t ww = w < n[axis] / 2 ? w : n[axis] / 2;
                if (side == 0) hi[axis] = ww;
                else lo[axis] = n[axis] - ww;
                int e = fdx_fieldops_cuda_sponge_box(pu, pv, is_double(u), n, rank, lo, hi, w, strength, stream);
                if (e) return fdx_fail(FDX_ERR_CUDA, "sponge kernel: %s", fdx_fieldops_cuda_error(e));
            }
        return FDX_OK;
#else
        CUDA_RUN(0);
#endif
    }
    if (is_double(u)) sponge_double(pu, pv, n, rank, w, strength);
    else sponge_float(pu, pv, n, rank, w, strength);
    return FDX_OK;
}

fdx_status fdx_fieldops_add_point(fdx_array *u, int64_t index, double value, void *stream)
{
    void *p = fdx_array_device(u);
    if (on_cuda(u)) CUDA_RUN(fdx_fieldops_cuda_add_point(p, is_double(u), index, value, stream));
    if (is_double(u)) ((double *)p)[index] += value;
    else ((float *)p)[index] += (float)value;
    return FDX_OK;
}

fdx_status fdx_fieldops_gather(fdx_array *u, const int64_t *idx, int n, void *out, void *stream)
{
    const void *p = fdx_array_device(u);
    if (on_cuda(u)) CUDA_RUN(fdx_fieldops_cuda_gather(p, is_double(u), idx, n, out, stream));
    for (int i = 0; i < n; i++) {
        if (is_double(u)) ((double *)out)[i] = ((const double *)p)[idx[i]];
        else ((float *)out)[i] = ((const float *)p)[idx[i]];
    }
    return FDX_OK;
}

fdx_status fdx_fieldops_axpy(fdx_array *y, double a, fdx_array *x, void *stream)
{
    void *py = fdx_array_device(y), *px = fdx_array_device(x);
    int64_t n = fdx_array_count(y);
    if (on_cuda(y)) CUDA_RUN(fdx_fieldops_cuda_axpy(py, px, is_double(y), n, a, stream));
    if (is_double(y)) axpy_double(py, px, n, a);
    else axpy_float(py, px, n, a);
    return FDX_OK;
}
