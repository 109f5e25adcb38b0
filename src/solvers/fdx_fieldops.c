/* fdx_fieldops: the solvers' pointwise kernels: OpenMP loops here for the CPU
   backend, dispatch to fdx_fieldops_cuda.cu for CUDA. */
#include "solvers/fdx_fieldops.h"

#include "backends/fdx_backend.h"

#include <math.h>
#include <stdint.h>

static int on_cuda(const fdx_array *a) { return fdx_ctx_backend(fdx_array_ctx(a)) == FDX_BACKEND_CUDA; }

static void shape3(const fdx_array *a, int64_t n[3])
{
    for (int d = 0; d < 3; d++) n[d] = d < fdx_array_rank(a) ? fdx_array_extent(a, d) : 1;
}

/* The status of a CUDA launcher's result (0 or a cudaError_t); built
   without CUDA, the CUDA path is unsupported and its call is left out. */
#ifdef FDX_HAVE_CUDA
static fdx_status cuda_status(int e, const char *call)
{
    return e ? fdx_fail(FDX_ERR_CUDA, "%s: %s", call, fdx_fieldops_cuda_error(e)) : FDX_OK;
}
#define CUDA_CALL(call) cuda_status((call), #call)
#else
#define CUDA_CALL(call) fdx_fail(FDX_ERR_UNSUPPORTED, "fdx was built without CUDA")
#endif

/* The CPU loops, once per element type. */
#define DEFINE_CPU_OPS(T)                                                                                          \
    static void mirror_##T(T *u, const int64_t *n, int rank, int r, unsigned sides)                                \
    {                                                                                                              \
        int64_t s[3] = {1, n[0], n[0] * n[1]};                                                                     \
        for (int axis = 0; axis < rank; axis++) {                                                                  \
            int b = (axis + 1) % 3, c = (axis + 2) % 3;                                                            \
            _Pragma("omp parallel for collapse(2)") for (int64_t ic = 0; ic < n[c]; ic++) for (int64_t ib = 0;     \
                                                                                              ib < n[b]; ib++)     \
            {                                                                                                      \
                int64_t base = ib * s[b] + ic * s[c];                                                              \
                for (int m = 0; m < r; m++) {                                                                      \
                    if (sides >> (2 * axis) & 1) u[base + (r - 1 - m) * s[axis]] = u[base + (r + m) * s[axis]];     \
                    if (sides >> (2 * axis + 1) & 1)                                                               \
                        u[base + (n[axis] - r + m) * s[axis]] = u[base + (n[axis] - r - 1 - m) * s[axis]];         \
                }                                                                                                  \
            }                                                                                                      \
        }                                                                                                          \
    }                                                                                                              \
    static void sponge_##T(T *u, T *v, const int64_t *n, int rank, int w, double strength, const int64_t *o,      \
                           const int64_t *N)                                                                       \
    {                                                                                                              \
        _Pragma("omp parallel for collapse(2)") for (int64_t k = 0; k < n[2]; k++) for (int64_t j = 0; j < n[1];   \
                                                                                          j++)                     \
        {                                                                                                          \
            int64_t gj = j + o[1], gk = k + o[2];                                                                  \
            int64_t dyz = gj < N[1] - 1 - gj ? gj : N[1] - 1 - gj;                                                 \
            if (rank == 3) {                                                                                       \
                int64_t dk = gk < N[2] - 1 - gk ? gk : N[2] - 1 - gk;                                              \
                if (dk < dyz) dyz = dk;                                                                            \
            }                                                                                                      \
            for (int64_t i = 0; i < n[0]; i++) {                                                                   \
                int64_t gi = i + o[0], d = gi < N[0] - 1 - gi ? gi : N[0] - 1 - gi;                                \
                if (dyz < d) d = dyz;                                                                              \
                if (d >= w) {                                                                                      \
                    /* skip the interior of the row */                                                             \
                    int64_t next = N[0] - 1 - w - o[0];                                                            \
                    if (next > i) i = next;                                                                        \
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
    static int64_t first_nonfinite_##T(const T *u, int64_t n)                                                     \
    {                                                                                                              \
        int64_t first = INT64_MAX;                                                                                 \
        _Pragma("omp parallel for reduction(min : first)") for (int64_t i = 0; i < n; i++) if (!isfinite(u[i]) && \
                                                                                                i < first) first = i; \
        return first;                                                                                              \
    }                                                                                                              \
    static void axpy_##T(T *y, const T *x, int64_t n, double a)                                                    \
    {                                                                                                              \
        _Pragma("omp parallel for") for (int64_t i = 0; i < n; i++) y[i] += (T)a * x[i];                           \
    }

DEFINE_CPU_OPS(float)
DEFINE_CPU_OPS(double)

static int is_double(const fdx_array *a) { return fdx_array_dtype(a) == FDX_FLOAT64; }

fdx_status fdx_fieldops_mirror(fdx_array *u, int r, void *stream) { return fdx_fieldops_mirror_sides(u, r, 0x3f, stream); }

fdx_status fdx_fieldops_mirror_sides(fdx_array *u, int r, unsigned sides, void *stream)
{
    int64_t n[3];
    shape3(u, n);
    void *p = fdx_array_device(u);
    FDX_CHECK(p, FDX_ERR_INVALID, "mirror: array has no device storage");
    if (on_cuda(u)) return CUDA_CALL(fdx_fieldops_cuda_mirror(p, is_double(u), n, fdx_array_rank(u), r, sides, stream));
    if (is_double(u)) mirror_double(p, n, fdx_array_rank(u), r, sides);
    else mirror_float(p, n, fdx_array_rank(u), r, sides);
    return FDX_OK;
}

fdx_status fdx_fieldops_sponge(fdx_array *u, fdx_array *v, int w, double strength, void *stream)
{
    int64_t n[3], o[3] = {0, 0, 0};
    shape3(u, n);
    return fdx_fieldops_sponge_at(u, v, w, strength, o, n, stream);
}

fdx_status fdx_fieldops_sponge_at(fdx_array *u, fdx_array *v, int w, double strength, const int64_t *origin,
                                  const int64_t *global, void *stream)
{
    int64_t n[3], N[3];
    shape3(u, n);
    int rank = fdx_array_rank(u);
    for (int d = 0; d < 3; d++) N[d] = d < rank ? global[d] : 1;
    void *pu = fdx_array_device(u), *pv = v ? fdx_array_device(v) : NULL;
    if (on_cuda(u)) {
#ifdef FDX_HAVE_CUDA
        /* Six slabs (four in 2D) of the global grid cover the layer without
           visiting the interior; each is clipped to this block. */
        for (int axis = 0; axis < rank; axis++)
            for (int side = 0; side < 2; side++) {
                int64_t lo[3] = {0, 0, 0}, hi[3] = {N[0], N[1], N[2]};
                for (int b = 0; b < axis; b++) {
                    lo[b] = w < N[b] ? w : N[b];
                    hi[b] = N[b] - w > lo[b] ? N[b] - w : lo[b];
                }
                int64_t ww = w < N[axis] / 2 ? w : N[axis] / 2;
                if (side == 0) hi[axis] = ww;
                else lo[axis] = N[axis] - ww;
                int empty = 0;
                for (int d = 0; d < 3; d++) {
                    lo[d] = lo[d] - origin[d] > 0 ? lo[d] - origin[d] : 0;
                    hi[d] = hi[d] - origin[d] < n[d] ? hi[d] - origin[d] : n[d];
                    empty |= hi[d] <= lo[d];
                }
                if (empty) continue;
                int e = fdx_fieldops_cuda_sponge_box(pu, pv, is_double(u), n, rank, lo, hi, origin, N, w, strength,
                                                     stream);
                if (e) return fdx_fail(FDX_ERR_CUDA, "sponge kernel: %s", fdx_fieldops_cuda_error(e));
            }
        return FDX_OK;
#else
        return CUDA_CALL(0);
#endif
    }
    if (is_double(u)) sponge_double(pu, pv, n, rank, w, strength, origin, N);
    else sponge_float(pu, pv, n, rank, w, strength, origin, N);
    return FDX_OK;
}

fdx_status fdx_fieldops_add_point(fdx_array *u, int64_t index, double value, void *stream)
{
    void *p = fdx_array_device(u);
    if (on_cuda(u)) return CUDA_CALL(fdx_fieldops_cuda_add_point(p, is_double(u), index, value, stream));
    if (is_double(u)) ((double *)p)[index] += value;
    else ((float *)p)[index] += (float)value;
    return FDX_OK;
}

fdx_status fdx_fieldops_add_point_step(fdx_array *u, int64_t index, const double *table, int64_t len,
                                       int64_t *step, void *stream)
{
    void *p = fdx_array_device(u);
    if (on_cuda(u)) return CUDA_CALL(fdx_fieldops_cuda_add_point_step(p, is_double(u), index, table, len, step, stream));
    int64_t k = (*step)++;
    if (k < 0 || k >= len || table[k] == 0) return FDX_OK;
    if (is_double(u)) ((double *)p)[index] += table[k];
    else ((float *)p)[index] += (float)table[k];
    return FDX_OK;
}

fdx_status fdx_fieldops_gather(fdx_array *u, const int64_t *idx, int n, void *out, void *stream)
{
    const void *p = fdx_array_device(u);
    if (on_cuda(u)) return CUDA_CALL(fdx_fieldops_cuda_gather(p, is_double(u), idx, n, out, stream));
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
    if (on_cuda(y)) return CUDA_CALL(fdx_fieldops_cuda_axpy(py, px, is_double(y), n, a, stream));
    if (is_double(y)) axpy_double(py, px, n, a);
    else axpy_float(py, px, n, a);
    return FDX_OK;
}

fdx_status fdx_fieldops_first_nonfinite(fdx_array *u, void *scratch, int64_t *first, void *stream)
{
    const void *p = fdx_array_device(u);
    int64_t n = fdx_array_count(u);
    FDX_CHECK(p, FDX_ERR_INVALID, "finiteness check: array has no device storage");
    if (on_cuda(u)) {
#ifdef FDX_HAVE_CUDA
        const fdx_backend *be = fdx_ctx_ops(fdx_array_ctx(u));
        uint64_t found = UINT64_MAX;
        FDX_TRY(be->memset(scratch, 0xff, sizeof found, stream));
        int e = fdx_fieldops_cuda_first_nonfinite(p, is_double(u), n, scratch, stream);
        if (e != 0) return fdx_fail(FDX_ERR_CUDA, "finiteness check: %s", fdx_fieldops_cuda_error(e));
        FDX_TRY(be->copy(&found, scratch, sizeof found, FDX_COPY_D2H, stream));
        FDX_TRY(be->stream_sync(stream));
        *first = found == UINT64_MAX ? INT64_MAX : (int64_t)found;
        return FDX_OK;
#else
        (void)scratch;
        (void)stream;
        return fdx_fail(FDX_ERR_UNSUPPORTED, "fdx was built without CUDA");
#endif
    }
    (void)scratch;
    *first = is_double(u) ? first_nonfinite_double(p, n) : first_nonfinite_float(p, n);
    return FDX_OK;
}

fdx_status fdx_fieldops_device_memory(fdx_ctx *ctx, size_t *free_bytes, size_t *total_bytes)
{
    *free_bytes = *total_bytes = 0;
    if (fdx_ctx_backend(ctx) != FDX_BACKEND_CUDA) return FDX_OK;
#ifdef FDX_HAVE_CUDA
    int e = fdx_fieldops_cuda_mem_info(free_bytes, total_bytes);
    if (e != 0) return fdx_fail(FDX_ERR_CUDA, "cudaMemGetInfo: %s", fdx_fieldops_cuda_error(e));
#endif
    return FDX_OK;
}
