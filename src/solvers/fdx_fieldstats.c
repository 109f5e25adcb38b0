/* fdx_fieldstats: the reductions of fdx_fieldstats.h: the CPU loops follow
   the lanes and the order of the CUDA kernels (fdx_fieldstats_cuda.cu)
   exactly, so both give the same bits.  The per-point terms are those of
   fdx_fieldstats_point.h, written here with the element type known (four
   times faster than through st_point); test_fieldstats_gpu compares the
   two bit for bit. */
#include "solvers/fdx_fieldstats.h"

#include "backends/fdx_backend.h"
#include "solvers/fdx_fieldops.h"
#include "solvers/fdx_fieldstats_point.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define LANES 32

/* The lanes' pairwise tree, then the row's 4-tuple. */
static void lanes_out(double *la, double *lb, const double *mnl, const double *mxl, double *out)
{
    double mn = INFINITY, mx = -INFINITY;
    for (int l = 0; l < LANES; l++) {
        mn = mnl[l] < mn ? mnl[l] : mn;
        mx = mxl[l] > mx ? mxl[l] : mx;
    }
    for (int off = LANES / 2; off > 0; off /= 2)
        for (int l = 0; l < off; l++) {
            la[l] = la[l] + la[l + off];
            lb[l] = lb[l] + lb[l + off];
        }
    out[0] = la[0], out[1] = lb[0], out[2] = mn, out[3] = mx;
}

/* Plain statistics of one row, 32 points at a time (the lanes vectorize). */
#define DEFINE_ROW_STATS(T)                                                                                        \
    static void row_stats_##T(const T *x, int64_t len, double *out)                                                \
    {                                                                                                              \
        double la[LANES] = {0}, lb[LANES] = {0}, mnl[LANES], mxl[LANES];                                           \
        for (int l = 0; l < LANES; l++) mnl[l] = INFINITY, mxl[l] = -INFINITY;                                     \
        for (int64_t i = 0; i < len; i += LANES) {                                                                 \
            int m = len - i < LANES ? (int)(len - i) : LANES;                                                      \
            for (int l = 0; l < m; l++) {                                                                          \
                double v = x[i + l], v2 = v * v;                                                                   \
                la[l] = la[l] + v;                                                                                 \
                lb[l] = lb[l] + v2;                                                                                \
                mnl[l] = v < mnl[l] ? v : mnl[l];                                                                  \
                mxl[l] = v > mxl[l] ? v : mxl[l];                                                                  \
            }                                                                                                      \
        }                                                                                                          \
        lanes_out(la, lb, mnl, mxl, out);                                                                          \
    }
DEFINE_ROW_STATS(float)
DEFINE_ROW_STATS(double)

/* The energy's terms of one row (st_point's, with the element type known). */
#define DEFINE_ROW_ENERGY(T)                                                                                       \
    static void row_energy_##T(const fdx_stats_job *J, int64_t j, int64_t k, double *out)                          \
    {                                                                                                              \
        const T *u = J->u, *p = J->p, *c2 = J->c2;                                                                 \
        int r = J->e.r;                                                                                            \
        int64_t st[3] = {1, J->n[0], J->n[0] * J->n[1]}, row = J->n[0] * (j + J->n[1] * k);                        \
        int inner_row = j >= r && j < J->n[1] - r && (J->rank < 3 || (k >= r && k < J->n[2] - r));               \
        double la[LANES] = {0}, lb[LANES] = {0}, mnl[LANES], mxl[LANES];                                           \
        for (int l = 0; l < LANES; l++) mnl[l] = INFINITY, mxl[l] = -INFINITY;                                     \
        for (int64_t i = 0; i < J->n[0]; i++) {                                                                    \
            int l = (int)(i % LANES);                                                                              \
            int64_t q = row + i;                                                                                   \
            double v = u[q], d = v - (double)p[q], dd = d * d, kin = dd * J->e.idt2;                               \
            la[l] = la[l] + kin / (double)c2[q];                                                                   \
            mnl[l] = v < mnl[l] ? v : mnl[l];                                                                      \
            mxl[l] = v > mxl[l] ? v : mxl[l];                                                                      \
            if (!inner_row || i < r || i >= J->n[0] - r) {                                                         \
                lb[l] = lb[l] + 0.0;                                                                               \
                continue;                                                                                          \
            }                                                                                                      \
            double lap = 0;                                                                                        \
            for (int ax = 0; ax < J->rank; ax++)                                                                   \
                for (int m = -r; m <= r; m++) {                                                                    \
                    double t = J->e.w[m + r] * (double)p[q + m * st[ax]];                                          \
                    lap = lap + t;                                                                                 \
                }                                                                                                  \
            double ul = v * lap;                                                                                   \
            lb[l] = lb[l] + -(ul * J->e.ih2);                                                                      \
        }                                                                                                          \
        lanes_out(la, lb, mnl, mxl, out);                                                                          \
    }
DEFINE_ROW_ENERGY(float)
DEFINE_ROW_ENERGY(double)

/* One row: 32 lane sums, then the shuffle tree. */
static void row_reduce(const fdx_stats_job *J, int64_t j, int64_t k, double *out)
{
    int64_t q0 = J->lo[0] + J->n[0] * (j + J->n[1] * k), len = J->hi[0] - J->lo[0];
    if (J->mode == 0 && J->is_double) return row_stats_double((const double *)J->u + q0, len, out);
    if (J->mode == 0) return row_stats_float((const float *)J->u + q0, len, out);
    /* Energy: always the whole grid. */
    if (J->mode == 1 && J->is_double) return row_energy_double(J, j, k, out);
    if (J->mode == 1) return row_energy_float(J, j, k, out);
    double la[LANES] = {0}, lb[LANES] = {0}, mnl[LANES], mxl[LANES];
    for (int l = 0; l < LANES; l++) mnl[l] = INFINITY, mxl[l] = -INFINITY;
    for (int64_t i = J->lo[0]; i < J->hi[0]; i++) {
        int l = (int)((i - J->lo[0]) % LANES);
        double a, b, v;
        st_point(J, i, j, k, &a, &b, &v);
        la[l] = la[l] + a;
        lb[l] = lb[l] + b;
        mnl[l] = v < mnl[l] ? v : mnl[l];
        mxl[l] = v > mxl[l] ? v : mxl[l];
    }
    lanes_out(la, lb, mnl, mxl, out);
}

/* Adds the 4-tuples in[0..n) in order. */
static void fold(const double *in, int64_t n, double *out)
{
    double a = 0, b = 0, mn = INFINITY, mx = -INFINITY;
    for (int64_t t = 0; t < n; t++) {
        a = a + in[4 * t];
        b = b + in[4 * t + 1];
        mn = in[4 * t + 2] < mn ? in[4 * t + 2] : mn;
        mx = in[4 * t + 3] > mx ? in[4 * t + 3] : mx;
    }
    out[0] = a, out[1] = b, out[2] = mn, out[3] = mx;
}

static fdx_status reduce_cpu(const fdx_stats_job *J, fdx_stats *out)
{
    int64_t ny = J->hi[1] - J->lo[1], nz = J->hi[2] - J->lo[2], rows = ny * nz;
    double *t = malloc(sizeof(double) * 4 * (size_t)(rows + nz));
    FDX_CHECK(t, FDX_ERR_NOMEM, "no memory for a reduction over %lld rows", (long long)rows);
    double *planes = t + 4 * rows, res[4];
#pragma omp parallel for collapse(2)
    for (int64_t k = 0; k < nz; k++)
        for (int64_t j = 0; j < ny; j++) row_reduce(J, J->lo[1] + j, J->lo[2] + k, t + 4 * (j + ny * k));
#pragma omp parallel for
    for (int64_t k = 0; k < nz; k++) fold(t + 4 * ny * k, ny, planes + 4 * k);
    fold(planes, nz, res);
    free(t);
    *out = (fdx_stats){res[0], res[1], res[2], res[3]};
    return FDX_OK;
}

static fdx_status reduce(fdx_array *u, fdx_stats_job *J, fdx_stats *out, void *stream)
{
    J->is_double = fdx_array_dtype(u) == FDX_FLOAT64;
    J->rank = fdx_array_rank(u);
    for (int d = 0; d < 3; d++) {
        J->n[d] = d < J->rank ? fdx_array_extent(u, d) : 1;
        FDX_CHECK(J->lo[d] >= 0 && J->lo[d] < J->hi[d] && J->hi[d] <= J->n[d], FDX_ERR_INVALID,
                  "reduction: box %lld..%lld of axis %d is empty or outside 0..%lld", (long long)J->lo[d],
                  (long long)J->hi[d], d, (long long)J->n[d]);
    }
    J->u = fdx_array_device(u);
    if (fdx_ctx_backend(fdx_array_ctx(u)) != FDX_BACKEND_CUDA) return reduce_cpu(J, out);
#ifdef FDX_HAVE_CUDA
    const fdx_backend *be = fdx_ctx_ops(fdx_array_ctx(u));
    int64_t rows = (J->hi[1] - J->lo[1]) * (J->hi[2] - J->lo[2]), planes = J->hi[2] - J->lo[2];
    size_t bytes = sizeof(double) * 4 * (size_t)(rows + planes + 1);
    double *scratch, res[4];
    FDX_TRY(be->alloc(bytes, (void **)&scratch));
    int e = fdx_fieldstats_cuda_reduce(J, scratch, stream);
    fdx_status st = e == 0 ? FDX_OK : fdx_fail(FDX_ERR_CUDA, "reduction kernel: %s", fdx_fieldops_cuda_error(e));
    if (st == FDX_OK) st = be->copy(res, scratch, sizeof res, FDX_COPY_D2H, stream);
    if (st == FDX_OK) st = be->stream_sync(stream);
    be->free(scratch);
    if (st == FDX_OK) *out = (fdx_stats){res[0], res[1], res[2], res[3]};
    return st;
#else
    (void)stream;
    return fdx_fail(FDX_ERR_UNSUPPORTED, "fdx was built without CUDA");
#endif
}

fdx_status fdx_fieldstats_box(fdx_array *u, const int64_t *lo, const int64_t *hi, fdx_stats *out, void *stream)
{
    fdx_stats_job J;
    memset(&J, 0, sizeof J);
    memcpy(J.lo, lo, sizeof J.lo);
    memcpy(J.hi, hi, sizeof J.hi);
    return reduce(u, &J, out, stream);
}

fdx_status fdx_fieldstats_diff(fdx_array *u, fdx_array *p, fdx_stats *out, void *stream)
{
    fdx_stats_job J;
    memset(&J, 0, sizeof J);
    J.mode = 2;
    J.p = fdx_array_device(p);
    for (int d = 0; d < 3; d++) J.hi[d] = d < fdx_array_rank(u) ? fdx_array_extent(u, d) : 1;
    FDX_CHECK(fdx_array_dtype(p) == fdx_array_dtype(u), FDX_ERR_INVALID, "difference: two element types");
    return reduce(u, &J, out, stream);
}

fdx_status fdx_fieldstats_energy(fdx_array *u, fdx_array *p, fdx_array *c2, const fdx_energy_args *e,
                                 fdx_stats *out, void *stream)
{
    fdx_stats_job J;
    memset(&J, 0, sizeof J);
    J.mode = 1;
    J.e = *e;
    J.p = fdx_array_device(p);
    J.c2 = fdx_array_device(c2);
    for (int d = 0; d < 3; d++) J.hi[d] = d < fdx_array_rank(u) ? fdx_array_extent(u, d) : 1;
    FDX_CHECK(fdx_array_dtype(p) == fdx_array_dtype(u) && fdx_array_dtype(c2) == fdx_array_dtype(u), FDX_ERR_INVALID,
              "energy: the three fields must have one element type");
    return reduce(u, &J, out, stream);
}
