/* fdx_mg_gpu: the multigrid kernels on CUDA: one thread a point (a colour
   point for Gauss-Seidel, a coarse point for restriction, also when it
   computes the fine residual itself, and for injection; the one-pass
   red-black sweep: tiles marching in z),
   rows x blocks along x, grid.y rows, grid.z planes; reductions by block
   into one slot a block, then summed in a fixed order by one block, so a
   sum (a residual norm, a CG dot product, a mean) is the same bit for bit
   in every run, replayed graph or plain launches alike. */
#include "mg/fdx_mg_gpu.h"

#include <cuda_runtime.h>

#define MG_T 128

/* Every launch goes to this stream (a blocking stream, so the legacy
   default stream's copies order with it; capturable into a graph). */
static __thread cudaStream_t mg_stream = 0;

/* The face coefficient: the harmonic mean of the two point values (as
   MG_KF in fdx_mg_kernels.c). */
__device__ __forceinline__ double kf(double a, double b) { return 2.0 * a * b / (a + b); }

/* -div(k grad u) at p (g.k set): the operator, the weighted neighbour sum
   nb and the diagonal dg (op = dg u_p - nb), in the CPU's order of terms. */
__device__ __forceinline__ double auk(const mg_geom &g, const double *u, long long p, double *nb, double *dg)
{
    const double *k = g.k, kp = k[p];
    const double wxm = g.c[0] * kf(kp, k[p - 1]), wxp = g.c[0] * kf(kp, k[p + 1]);
    const double wym = g.c[1] * kf(kp, k[p - g.sy]), wyp = g.c[1] * kf(kp, k[p + g.sy]);
    const double wzm = g.c[2] * kf(kp, k[p - g.sz]), wzp = g.c[2] * kf(kp, k[p + g.sz]);
    *dg = (wxm + wxp) + (wym + wyp) + (wzm + wzp);
    *nb = (wxm * u[p - 1] + wxp * u[p + 1]) + (wym * u[p - g.sy] + wyp * u[p + g.sy]) +
          (wzm * u[p - g.sz] + wzp * u[p + g.sz]);
    return *dg * u[p] - *nb;
}

/* -lap u at p, or -div(k grad u) when the level has a coefficient. */
__device__ __forceinline__ double au(const mg_geom &g, const double *u, long long p)
{
    if (g.k) {
        double nb, dg;
        return auk(g, u, p, &nb, &dg);
    }
    return g.diag * u[p] - g.c[0] * (u[p - 1] + u[p + 1]) - g.c[1] * (u[p - g.sy] + u[p + g.sy]) -
           g.c[2] * (u[p - g.sz] + u[p + g.sz]);
}

/* -div(k grad u)'s row p (g.k set) from the six neighbours' values (x-,
   x+, y-, y+, z-, z+): the weighted neighbour sum (returned) and the
   diagonal *dg, in auk's order of terms. */
__device__ __forceinline__ double knb(const mg_geom &g, long long p, double xm, double xp, double ym, double yp,
                                      double zm, double zp, double *dg)
{
    const double *k = g.k, kp = k[p];
    const double wxm = g.c[0] * kf(kp, k[p - 1]), wxp = g.c[0] * kf(kp, k[p + 1]);
    const double wym = g.c[1] * kf(kp, k[p - g.sy]), wyp = g.c[1] * kf(kp, k[p + g.sy]);
    const double wzm = g.c[2] * kf(kp, k[p - g.sz]), wzp = g.c[2] * kf(kp, k[p + g.sz]);
    *dg = (wxm + wxp) + (wym + wyp) + (wzm + wzp);
    return (wxm * xm + wxp * xp) + (wym * ym + wyp * yp) + (wzm * zm + wzp * zp);
}

static dim3 grid_of(const mg_geom &g, long long nx)
{
    return dim3((unsigned)((nx + MG_T - 1) / MG_T), (unsigned)(g.hi[1] - g.lo[1]), (unsigned)(g.hi[2] - g.lo[2]));
}

/* Block sum of v into sum[1 + the block's linear index] (every thread of
   the block calls it); sum_finish_kernel adds the slots into sum[0]. */
__device__ void block_add(double v, double *sum)
{
    __shared__ double part[MG_T / 32];
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = v;
    __syncthreads();
    if (threadIdx.x == 0) {
        double s = 0;
        for (int w = 0; w < MG_T / 32; w++) s += part[w];
        sum[1 + blockIdx.x + (long long)gridDim.x * (blockIdx.y + (long long)gridDim.y * blockIdx.z)] = s;
    }
}

#define MG_FINISH_T 256
/* sum[0] = sum[1] + ... + sum[nb], in an order fixed by nb alone. */
__global__ void sum_finish_kernel(double *sum, long long nb)
{
    __shared__ double part[MG_FINISH_T];
    double v = 0;
    for (long long b = threadIdx.x; b < nb; b += MG_FINISH_T) v += sum[1 + b];
    part[threadIdx.x] = v;
    __syncthreads();
    for (int w = MG_FINISH_T / 2; w > 0; w >>= 1) {
        if (threadIdx.x < w) part[threadIdx.x] += part[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0) sum[0] = part[0];
}

/* The sum's slots after a kernel launched on grid d. */
static int finish(dim3 d, double *sum)
{
    if (sum) sum_finish_kernel<<<1, MG_FINISH_T, 0, mg_stream>>>(sum, (long long)d.x * d.y * d.z);
    return (int)cudaPeekAtLastError();
}

/* The point of this thread; 0 when outside the unknowns. */
__device__ __forceinline__ bool point(const mg_geom &g, long long *p)
{
    long long i = g.lo[0] + (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long j = g.lo[1] + blockIdx.y, k = g.lo[2] + blockIdx.z;
    *p = i + j * g.sy + k * g.sz;
    return i < g.hi[0];
}

__global__ void residual_kernel(mg_geom g, const double *u, const double *f, double *r, double *sum)
{
    long long p;
    double v = 0;
    if (point(g, &p)) {
        v = f[p] - au(g, u, p);
        if (r) r[p] = v;
    }
    if (sum) block_add(v * v, sum);
}

/* Second difference along one axis: fourth order where the point is at
   least 2 from both ends of the stored axis (wide), second order else. */
__device__ __forceinline__ double d2(const double *u, long long p, long long s, bool wide)
{
    return wide ? ((u[p - 2 * s] + u[p + 2 * s]) - 16.0 * (u[p - s] + u[p + s]) + 30.0 * u[p]) * (1.0 / 12.0)
                : 2.0 * u[p] - u[p - s] - u[p + s];
}

__global__ void residual4_kernel(mg_geom g, const double *u, const double *f, double *r, double *sum)
{
    long long p;
    double v = 0;
    if (point(g, &p)) {
        const long long i = g.lo[0] + (long long)blockIdx.x * blockDim.x + threadIdx.x;
        const long long j = g.lo[1] + blockIdx.y, k = g.lo[2] + blockIdx.z;
        const bool wx = i >= 2 && i + 2 <= g.m[0] - 1, wy = j >= 2 && j + 2 <= g.m[1] - 1;
        const bool wz = g.sz && k >= 2 && k + 2 <= g.m[2] - 1;
        v = f[p] - (g.c[0] * d2(u, p, 1, wx) + g.c[1] * d2(u, p, g.sy, wy) + (g.sz ? g.c[2] * d2(u, p, g.sz, wz) : 0.0));
        r[p] = v;
    }
    if (sum) block_add(v * v, sum);
}

__global__ void apply_kernel(mg_geom g, const double *x, double *q, double *sum)
{
    long long p;
    double v = 0;
    if (point(g, &p)) {
        double a = au(g, x, p);
        q[p] = a;
        v = a * x[p];
    }
    if (sum) block_add(v, sum);
}

/* w: omega / diag (constant operator) or omega (variable: divided by the
   point's diagonal here). */
__global__ void jacobi_kernel(mg_geom g, const double *u, const double *f, double *out, double w)
{
    long long p;
    if (!point(g, &p)) return;
    if (g.k) {
        double nb, dg;
        const double a = auk(g, u, p, &nb, &dg);
        out[p] = u[p] + w / dg * (f[p] - a);
    } else {
        out[p] = u[p] + w * (f[p] - au(g, u, p));
    }
}

/* The Gauss-Seidel value at p from its six neighbours' values (x-, x+,
   y-, y+, z-, z+): one expression for the two-kernel and the one-pass
   sweeps, so they agree bit for bit. */
__device__ __forceinline__ double gs_value(const mg_geom &g, long long p, double f, double xm, double xp, double ym,
                                           double yp, double zm, double zp)
{
    if (g.k) {
        double dg;
        const double nb = knb(g, p, xm, xp, ym, yp, zm, zp, &dg);
        return (f + nb) / dg;
    }
    return (f + g.c[0] * (xm + xp) + g.c[1] * (ym + yp) + g.c[2] * (zm + zp)) / g.diag;
}

/* The prolongation (P uc) at fine stored point (i, j, k) (uc's ghosts
   filled) is interpolated in x and y on the two coarse planes around k
   (prolong_column: up to 4 coarse values), then in z (prolong_value), in
   one order for prolong_kernel and the z-marching sweep that folds it in
   (which computes each coarse plane's column once and keeps it for the
   fine planes that share it). */
__device__ __forceinline__ double prolong_column(const mg_geom &C, const mg_gpu_tr &tx, const mg_gpu_tr &ty,
                                                 const double *uc, long long i, long long j, long long K)
{
    const int ia[2] = {tx.i0[i], tx.i1[i]}, ja[2] = {ty.i0[j], ty.i1[j]};
    const double wi[2] = {tx.w0[i], tx.w1[i]}, wj[2] = {ty.w0[j], ty.w1[j]};
    double v = 0;
    for (int c = 0; c < 4; c++) {
        const int a = c & 1, b = c >> 1;
        const double w = wi[a] * wj[b];
        if (w != 0) v += w * uc[ia[a] + ja[b] * C.sy + K * C.sz];
    }
    return v;
}

/* wk0 X(K0) + wk1 X(K1) for the columns X of the planes around k. */
__device__ __forceinline__ double prolong_value(const mg_gpu_tr &tz, long long k, double x0, double x1)
{
    double v = 0;
    if (tz.w0[k] != 0) v += tz.w0[k] * x0;
    if (tz.w1[k] != 0) v += tz.w1[k] * x1;
    return v;
}

/* (A u)_p from u_p and its six neighbours' values (x-, x+, y-, y+, z-,
   z+), in au's order of terms. */
__device__ __forceinline__ double au_of(const mg_geom &g, long long p, double up, double xm, double xp, double ym,
                                        double yp, double zm, double zp)
{
    if (g.k) {
        double dg;
        const double nb = knb(g, p, xm, xp, ym, yp, zm, zp, &dg);
        return dg * up - nb;
    }
    return g.diag * up - g.c[0] * (xm + xp) - g.c[1] * (ym + yp) - g.c[2] * (zm + zp);
}

__global__ void gs_kernel(mg_geom g, double *u, const double *f, int color)
{
    long long j = g.lo[1] + blockIdx.y, k = g.lo[2] + blockIdx.z;
    long long i = g.lo[0] + ((g.lo[0] + j + k + color) & 1) + 2 * ((long long)blockIdx.x * blockDim.x + threadIdx.x);
    if (i >= g.hi[0]) return;
    long long p = i + j * g.sy + k * g.sz;
    u[p] = gs_value(g, p, f[p], u[p - 1], u[p + 1], u[p - g.sy], u[p + g.sy], u[p - g.sz], u[p + g.sz]);
}

/* One red-black sweep out of place in one pass (3D, Dirichlet: every
   unknown's neighbours are stored points).  A block owns a tile of
   GS2_X x GS2_Y points of every plane and marches up in z: at step k it
   updates the first colour on plane k over the tile and a one-point ring
   around it (the ring again in the neighbouring blocks: they cannot see
   each other's values), from u's old values, into a ring of three shared
   planes that hold "after the first colour"; then the second colour on
   plane k - 1 over the tile, whose neighbours are all first-colour points
   of planes k-2..k in the ring, and writes plane k - 1 of out.  u is only
   read, so no block can spoil another's inputs; the values are those of
   the two in-place colour kernels (gs_value), bit for bit. */
#define GS2_X MG_GS2_X
#define GS2_Y MG_GS2_Y
__global__ void __launch_bounds__(GS2_X * GS2_Y) gs2_kernel(mg_geom g, const double *u, const double *f, double *out,
                                                            int first)
{
    __shared__ double ring[3][GS2_Y + 2][GS2_X + 2];
    const long long ti = g.lo[0] + (long long)blockIdx.x * GS2_X, tj = g.lo[1] + (long long)blockIdx.y * GS2_Y;
    const int tid = threadIdx.x + GS2_X * threadIdx.y;
    const long long k0 = g.lo[2], k1 = g.hi[2];
    /* plane kk of the ring: the first colour updated on unknowns of the
       tile and its ring, every other stored point as it is in u */
    for (long long kk = k0 - 1; kk <= k1; kk++) {
        double(*pl)[GS2_X + 2] = ring[(kk + 3) % 3];
        for (int q = tid; q < (GS2_X + 2) * (GS2_Y + 2); q += GS2_X * GS2_Y) {
            const int a = q % (GS2_X + 2), b = q / (GS2_X + 2);
            const long long i = ti - 1 + a, j = tj - 1 + b;
            if (i >= g.m[0] || j >= g.m[1]) continue;
            const long long p = i + j * g.sy + kk * g.sz;
            double v = u[p];
            const bool unknown = i >= g.lo[0] && i < g.hi[0] && j >= g.lo[1] && j < g.hi[1] && kk >= k0 && kk < k1;
            if (unknown && ((i + j + kk) & 1) == first)
                v = gs_value(g, p, f[p], u[p - 1], u[p + 1], u[p - g.sy], u[p + g.sy], u[p - g.sz], u[p + g.sz]);
            pl[b][a] = v;
        }
        __syncthreads();
        /* the second colour on plane kk - 1 */
        const long long kc = kk - 1;
        if (kc >= k0 && kk <= k1) {
            const int a = 1 + threadIdx.x, b = 1 + threadIdx.y;
            const long long i = ti + threadIdx.x, j = tj + threadIdx.y;
            if (i < g.hi[0] && j < g.hi[1]) {
                const double(*lo)[GS2_X + 2] = ring[(kc - 1 + 3) % 3], (*mid)[GS2_X + 2] = ring[(kc + 3) % 3],
                                  (*hi)[GS2_X + 2] = ring[(kk + 3) % 3];
                const long long p = i + j * g.sy + kc * g.sz;
                double v = mid[b][a];
                if (((i + j + kc) & 1) != first)
                    v = gs_value(g, p, f[p], mid[b][a - 1], mid[b][a + 1], mid[b - 1][a], mid[b + 1][a], lo[b][a], hi[b][a]);
                out[p] = v;
            }
        }
        __syncthreads(); /* the slot of plane kk - 2 is refilled next step */
    }
}

/* One red-black sweep out of place in one pass, marching in z with the
   columns in registers (3D, every axis Dirichlet), built to stream: each
   step reads one plane of u and f per thread, prefetched a step ahead,
   and writes one plane of out; one barrier a step.  A block of GSZ_X x
   GSZ_Y threads holds a column each over a tile of (GSZ_X - 4) x (GSZ_Y - 4)
   output points and two rings: the first colour is updated on the tile
   and the inner ring (the neighbouring blocks do it again: u is only read,
   so blocks never see each other's values), the outer ring only supplies
   old values.  Step k: the old plane k into shared memory, the first
   colour on plane k (x/y neighbours from shared, z neighbours from the
   column's registers), then the second colour on plane k - 1 from the
   shared plane of first-colour values written the step before and the
   column's registers, written to out.  Blocks own chunks of zc planes (and
   start one plane early: the first colour below the chunk).  uc != NULL:
   the old value of an unknown is u + P uc (prolongation and correction
   folded into the first post-smoothing sweep; the same sum as
   prolong_kernel).  Bit for bit the two colour kernels (gs_value).
   NORM: also sum (f - A u)^2 of the old values over the block's tile and
   planes into sum[1 + block] (the residual norm of the iterate, for the
   convergence check, in the first pre-smoothing sweep that reads it
   anyway).  Instantiated with and without the prolongation (PRO), the
   coefficient (VAR) and the norm, so that the common case fits 64
   registers.  ob: the output box (tiles and chunks over it; the first
   colour on gk's unknowns around it), gk's unknowns for a whole sweep. */
#define GSZ_X MG_GSZ_X
#define GSZ_Y MG_GSZ_Y
template <bool PRO, bool VAR, bool NORM>
__global__ void __launch_bounds__(GSZ_X * GSZ_Y, 2)
    gsz_kernel(mg_geom gk, mg_box ob, const double *u, const double *f, double *out, int first, long long zc,
               mg_geom C, mg_gpu_tr tx, mg_gpu_tr ty, mg_gpu_tr tz, const double *uc, double *sum)
{
    mg_geom g = gk;
    if (!VAR) g.k = nullptr; /* the constant operator's gs_value, folded */
    __shared__ double so[2][GSZ_Y][GSZ_X], sr[2][GSZ_Y][GSZ_X];
    const int a = threadIdx.x, b = threadIdx.y;
    const long long i = ob.lo[0] + (long long)blockIdx.x * (GSZ_X - 4) - 2 + a;
    const long long j = ob.lo[1] + (long long)blockIdx.y * (GSZ_Y - 4) - 2 + b;
    const long long z0 = ob.lo[2] + (long long)blockIdx.z * zc, z1 = z0 + zc < ob.hi[2] ? z0 + zc : ob.hi[2];
    const bool stored = i >= 0 && i < g.m[0] && j >= 0 && j < g.m[1];
    const bool col = i >= g.lo[0] && i < g.hi[0] && j >= g.lo[1] && j < g.hi[1]; /* a column of unknowns */
    const bool inner = a >= 1 && a < GSZ_X - 1 && b >= 1 && b < GSZ_Y - 1 && col; /* first colour here */
    const bool tile = a >= 2 && a < GSZ_X - 2 && b >= 2 && b < GSZ_Y - 2 && i >= ob.lo[0] && i < ob.hi[0] &&
                      j >= ob.lo[1] && j < ob.hi[1]; /* output here */
    const long long base = stored ? i + j * g.sy : 0;
    /* the coarse columns of the prolongation: the two last computed (the
       fine planes march up, so each coarse plane's is computed once) */
    long long cK[2] = {-1, -1};
    double cX[2] = {0, 0};
    auto column = [&](long long K) -> double {
        if (cK[0] == K) return cX[0];
        if (cK[1] == K) return cX[1];
        cK[0] = cK[1], cX[0] = cX[1];
        cK[1] = K, cX[1] = prolong_column(C, tx, ty, uc, i, j, K);
        return cX[1];
    };
    /* u (plus the prolonged correction) and f of this column at plane kk */
    auto old = [&](long long kk) -> double {
        if (!stored || kk < 0 || kk >= g.m[2]) return 0.0;
        const long long p = base + kk * g.sz;
        if (PRO && col && kk >= g.lo[2] && kk < g.hi[2]) {
            const double x0 = tz.w0[kk] != 0 ? column(tz.i0[kk]) : 0.0;
            const double x1 = tz.w1[kk] != 0 ? column(tz.i1[kk]) : 0.0;
            return u[p] + prolong_value(tz, kk, x0, x1);
        }
        return u[p];
    };
    auto rhs = [&](long long kk) -> double {
        return inner && kk >= g.lo[2] && kk < g.hi[2] && kk <= z1 ? f[base + kk * g.sz] : 0.0;
    };
    long long k = z0 - 1;
    double o_m = old(k - 1), o_c = old(k), o_p = old(k + 1), f_c = rhs(k), f_m = 0, r_m2 = 0, r_m = 0, norm = 0;
    for (; k <= z1; k++) {
        const double o_n = k + 2 <= z1 + 1 ? old(k + 2) : 0.0, f_n = rhs(k + 1); /* the next step's */
        so[k & 1][b][a] = o_c;
        __syncthreads();
        if (NORM && tile && k >= z0 && k < z1) {
            const double res = f_c - au_of(g, base + k * g.sz, o_c, so[k & 1][b][a - 1], so[k & 1][b][a + 1],
                                           so[k & 1][b - 1][a], so[k & 1][b + 1][a], o_m, o_p);
            norm += res * res;
        }
        double r_c = o_c;
        if (inner && k >= g.lo[2] && k < g.hi[2] && ((i + j + k) & 1) == first)
            r_c = gs_value(g, base + k * g.sz, f_c, so[k & 1][b][a - 1], so[k & 1][b][a + 1], so[k & 1][b - 1][a],
                           so[k & 1][b + 1][a], o_m, o_p);
        if (k > z0 && tile) {
            const long long kc = k - 1;
            double v = r_m;
            if (((i + j + kc) & 1) != first)
                v = gs_value(g, base + kc * g.sz, f_m, sr[kc & 1][b][a - 1], sr[kc & 1][b][a + 1],
                             sr[kc & 1][b - 1][a], sr[kc & 1][b + 1][a], r_m2, r_c);
            out[base + kc * g.sz] = v;
        }
        sr[k & 1][b][a] = r_c;
        o_m = o_c, o_c = o_p, o_p = o_n, f_m = f_c, f_c = f_n, r_m2 = r_m, r_m = r_c;
    }
    if (NORM) {
        /* the block's sum by a tree in a fixed order, in the shared planes
           once every thread is past the last step's reads of them */
        double *part = &so[0][0][0];
        const int tid = a + GSZ_X * b;
        __syncthreads();
        part[tid] = norm;
        __syncthreads();
        for (int w = GSZ_X * GSZ_Y / 2; w > 0; w >>= 1) {
            if (tid < w) part[tid] += part[tid + w];
            __syncthreads();
        }
        if (tid == 0)
            sum[1 + blockIdx.x + (long long)gridDim.x * (blockIdx.y + (long long)gridDim.y * blockIdx.z)] = part[0];
    }
}

__global__ void cheby_kernel(mg_geom g, const double *u, const double *f, double *d, double *out, double alpha,
                             double beta)
{
    long long p;
    if (!point(g, &p)) return;
    double dn;
    if (g.k) {
        double nb, dg;
        const double a = auk(g, u, p, &nb, &dg);
        dn = (alpha == 0 ? 0.0 : alpha * d[p]) + beta / dg * (f[p] - a);
    } else {
        dn = beta / g.diag * (f[p] - au(g, u, p));
        if (alpha != 0) dn += alpha * d[p];
    }
    d[p] = dn;
    out[p] = u[p] + dn;
}

/* fc = R r: r the fine residual array rf, or (rf NULL) f - A u computed
   where it is read (the one-pass residual+restriction: no fine residual
   array).  The same terms in the same order either way, so the same coarse
   values unless the compiler contracts a product into an FMA differently
   in the two branches (then ~1 ulp of each residual: test_mg_gpu bounds
   the solutions' difference). */
__global__ void restrict_kernel(mg_geom F, mg_geom C, mg_gpu_tr tx, mg_gpu_tr ty, mg_gpu_tr tz, const double *rf,
                                const double *u, const double *f, double *fc)
{
    long long I = C.lo[0] + (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long J = C.lo[1] + blockIdx.y, K = C.lo[2] + blockIdx.z;
    if (I >= C.hi[0]) return;
    double acc = 0;
    for (int pz = tz.ptr[K]; pz < tz.ptr[K + 1]; pz++)
        for (int py = ty.ptr[J]; py < ty.ptr[J + 1]; py++) {
            const double w = tz.w[pz] * ty.w[py];
            const long long row = ty.idx[py] * F.sy + tz.idx[pz] * F.sz;
            double s = 0;
            for (int px = tx.ptr[I]; px < tx.ptr[I + 1]; px++) {
                const long long q = row + tx.idx[px];
                const double r = rf ? rf[q] : f[q] - au(F, u, q);
                s += tx.w[px] * r;
            }
            acc += w * s;
        }
    fc[I + J * C.sy + K * C.sz] = acc;
}

/* fc = R (f - A u) in one pass that computes each fine residual once
   (restrict_kernel's fused branch computes each up to 27 times and is
   L1-bound).  A block owns a tile of RR_X x RR_Y coarse points and a chunk
   of kc coarse planes, and marches up the fine planes they gather: each
   fine plane's residual over the tile's fine window goes to shared
   memory, then each thread adds its coarse point's x-y sums into the one
   or two coarse planes whose rows hold that fine plane (linear transfers:
   never more), finishing a coarse plane when its row ends.  Every axis
   Dirichlet (rows ascend, no folding), and every tile's fine window fits
   RR_WX x RR_WY (the launcher checks; 2:1 and the (n+1)/2 coarsening of
   even extents fit).  The same terms in the same order as restrict_kernel,
   so the same values as residual then restriction. */
#define RR_X MG_RR_X
#define RR_Y MG_RR_Y
#define RR_WX MG_RR_WX
#define RR_WY MG_RR_WY
__global__ void __launch_bounds__(RR_X *RR_Y) rr_kernel(mg_geom F, mg_geom C, mg_gpu_tr tx, mg_gpu_tr ty, mg_gpu_tr tz,
                                                        const double *u, const double *f, double *fc, long long kc)
{
    __shared__ double r[RR_WY][RR_WX];
    const int t = threadIdx.x + RR_X * threadIdx.y;
    const long long I0 = C.lo[0] + (long long)blockIdx.x * RR_X, J0 = C.lo[1] + (long long)blockIdx.y * RR_Y;
    const long long I = I0 + threadIdx.x, J = J0 + threadIdx.y;
    const long long I1 = I0 + RR_X < C.hi[0] ? I0 + RR_X : C.hi[0], J1 = J0 + RR_Y < C.hi[1] ? J0 + RR_Y : C.hi[1];
    const long long K0 = C.lo[2] + (long long)blockIdx.z * kc, K1 = K0 + kc < C.hi[2] ? K0 + kc : C.hi[2];
    const bool mine = I < C.hi[0] && J < C.hi[1];
    /* the fine window: from the first entry of the tile's first row to the
       last of its last row, per axis */
    const long long fx0 = tx.idx[tx.ptr[I0]], fx1 = tx.idx[tx.ptr[I1] - 1] + 1;
    const long long fy0 = ty.idx[ty.ptr[J0]], fy1 = ty.idx[ty.ptr[J1] - 1] + 1;
    const long long wx = fx1 - fx0, wn = wx * (fy1 - fy0);
    /* coarse plane K and K + 1 open; pa, pb: the next entries of their rows */
    long long K = K0;
    int pa = tz.ptr[K0], pb = K0 + 1 < K1 ? tz.ptr[K0 + 1] : 0;
    double acc0 = 0, acc1 = 0;
    const long long kf0 = tz.idx[tz.ptr[K0]], kf1 = tz.idx[tz.ptr[K1] - 1] + 1;
    for (long long kf = kf0; kf < kf1; kf++) {
        for (long long q = t; q < wn; q += RR_X * RR_Y) {
            const long long a = q % wx, b = q / wx;
            const long long p = fx0 + a + (fy0 + b) * F.sy + kf * F.sz;
            r[b][a] = f[p] - au(F, u, p);
        }
        __syncthreads();
        if (mine) {
            for (int two = 0; two < 2; two++) {
                const int pz = two ? pb : pa;
                if (two && !(K + 1 < K1 && pb < tz.ptr[K + 2])) break;
                if (tz.idx[pz] != kf) continue;
                double acc = two ? acc1 : acc0;
                for (int py = ty.ptr[J]; py < ty.ptr[J + 1]; py++) {
                    const double w = tz.w[pz] * ty.w[py];
                    const double *rr = r[ty.idx[py] - fy0];
                    double s = 0;
                    for (int px = tx.ptr[I]; px < tx.ptr[I + 1]; px++) s += tx.w[px] * rr[tx.idx[px] - fx0];
                    acc += w * s;
                }
                if (two)
                    acc1 = acc;
                else
                    acc0 = acc;
            }
        }
        /* the cursors (the same in every thread) */
        if (tz.idx[pa] == kf) pa++;
        if (K + 1 < K1 && pb < tz.ptr[K + 2] && tz.idx[pb] == kf) pb++;
        if (pa == tz.ptr[K + 1]) { /* coarse plane K is complete */
            if (mine) fc[I + J * C.sy + K * C.sz] = acc0;
            K++;
            acc0 = acc1, acc1 = 0, pa = pb;
            pb = K + 1 < K1 ? tz.ptr[K + 1] : 0;
        }
        __syncthreads(); /* r is refilled next plane */
    }
}

__global__ void prolong_kernel(mg_geom F, mg_geom C, mg_gpu_tr tx, mg_gpu_tr ty, mg_gpu_tr tz, const double *uc,
                               double *uf, int add)
{
    long long p;
    if (!point(F, &p)) return;
    long long i = F.lo[0] + (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long j = F.lo[1] + blockIdx.y, k = F.lo[2] + blockIdx.z;
    const double x0 = tz.w0[k] != 0 ? prolong_column(C, tx, ty, uc, i, j, tz.i0[k]) : 0.0;
    const double x1 = tz.w1[k] != 0 ? prolong_column(C, tx, ty, uc, i, j, tz.i1[k]) : 0.0;
    const double v = prolong_value(tz, k, x0, x1);
    uf[p] = add ? uf[p] + v : v;
}

__global__ void inject_kernel(mg_geom F, mg_geom C, mg_gpu_tr tx, mg_gpu_tr ty, mg_gpu_tr tz, unsigned dirichlet,
                              const double *uf, double *uc)
{
    long long I = (long long)blockIdx.x * blockDim.x + threadIdx.x, J = blockIdx.y, K = blockIdx.z;
    if (I >= C.m[0]) return;
    const long long S[3] = {I, J, K};
    bool face = false;
    for (int a = 0; a < 3; a++)
        if ((dirichlet >> a & 1) && (S[a] == 0 || S[a] == C.m[a] - 1)) face = true;
    if (!face) return;
    const mg_gpu_tr *t[3] = {&tx, &ty, &tz};
    const long long st[3] = {1, F.sy, F.sz};
    double v = 0;
    for (int corner = 0; corner < 8; corner++) {
        double w = 1;
        long long q = 0;
        for (int a = 0; a < 3; a++) {
            const int hi = (corner >> a) & 1;
            const double wa = t[a]->bw[S[a]];
            w *= hi ? 1 - wa : wa;
            q += (t[a]->b0[S[a]] + hi) * st[a];
        }
        if (w != 0) v += w * uf[q];
    }
    uc[I + J * C.sy + K * C.sz] = v;
}

/* The ghost planes of `axis` over the whole stored extent of the other axes
   (a thread a point along the first of them): plane 0 = plane src_lo,
   plane m - 1 = plane src_hi, a side skipped when its source is -1. */
__global__ void ghost_planes_kernel(mg_geom g, double *a, int axis, long long src_lo, long long src_hi)
{
    const int b = axis == 0 ? 1 : 0, c = axis == 2 ? 1 : 2;
    const long long st[3] = {1, g.sy, g.sz};
    long long x = (long long)blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x >= g.m[b]) return;
    const long long base = x * st[b] + y * st[c], s = st[axis];
    if (src_lo >= 0) a[base] = a[base + src_lo * s];
    if (src_hi >= 0) a[base + (g.m[axis] - 1) * s] = a[base + src_hi * s];
}

__global__ void fill_kernel(long long n, double *a, double v)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] = v;
}

__global__ void dot_kernel(mg_geom g, const double *a, const double *b, double *sum)
{
    long long p;
    double v = 0;
    if (point(g, &p)) v = a[p] * (b ? b[p] : 1.0);
    block_add(v, sum);
}

__global__ void shift_kernel(mg_geom g, double *a, double v)
{
    long long p;
    if (point(g, &p)) a[p] += v;
}

__global__ void cg_update_kernel(mg_geom g, double *x, const double *p, double *r, const double *q, double alpha,
                                 double *sum)
{
    long long i;
    double v = 0;
    if (point(g, &i)) {
        x[i] += alpha * p[i];
        v = r[i] - alpha * q[i];
        r[i] = v;
    }
    block_add(v * v, sum);
}

__global__ void cg_direction_kernel(mg_geom g, double *p, const double *z, double beta)
{
    long long i;
    if (point(g, &i)) p[i] = z[i] + beta * p[i];
}

/* A holds the nu x nu factor, then nu doubles of scratch for the solution
   (the coarsest level of periodic or Neumann grids can have more than a
   few dozen unknowns). */
__global__ void coarse_kernel(int nu, double *A, const int64_t *map, const double *t, double *u)
{
    double *x = A + (long long)nu * nu;
    for (int i = 0; i < nu; i++) {
        double v = t[map[i]];
        for (int k = 0; k < i; k++) v -= A[i * nu + k] * x[k];
        x[i] = v / A[i * nu + i];
    }
    for (int i = nu - 1; i >= 0; i--) {
        double v = x[i];
        for (int k = i + 1; k < nu; k++) v -= A[k * nu + i] * x[k];
        x[i] = v / A[i * nu + i];
    }
    for (int i = 0; i < nu; i++) u[map[i]] += x[i];
}

__global__ void copy_user_kernel(mg_geom g, long long ox, long long oy, long long oz, long long x0, long long y0,
                                 long long z0, long long bx, long long nx, long long ny, const double *src,
                                 double *dst, int to_user)
{
    long long i = x0 + (long long)blockIdx.x * blockDim.x + threadIdx.x, j = y0 + blockIdx.y, k = z0 + blockIdx.z;
    if (i >= x0 + bx) return;
    long long user = i + nx * (j + ny * k), stored = (i + ox) + (j + oy) * g.sy + (k + oz) * g.sz;
    if (to_user)
        dst[user] = src[stored];
    else
        dst[stored] = src[user];
}

static int done(void) { return (int)cudaPeekAtLastError(); }

extern "C" {

void *mg_gpu_stream(void) { return (void *)mg_stream; }
void mg_gpu_set_stream(void *stream) { mg_stream = (cudaStream_t)stream; }

int mg_gpu_residual(mg_geom g, const double *u, const double *f, double *r, double *sum)
{
    dim3 d = grid_of(g, g.hi[0] - g.lo[0]);
    residual_kernel<<<d, MG_T, 0, mg_stream>>>(g, u, f, r, sum);
    return done() ? done() : finish(d, sum);
}

int mg_gpu_residual4(mg_geom g, const double *u, const double *f, double *r, double *sum)
{
    dim3 d = grid_of(g, g.hi[0] - g.lo[0]);
    residual4_kernel<<<d, MG_T, 0, mg_stream>>>(g, u, f, r, sum);
    return done() ? done() : finish(d, sum);
}

int mg_gpu_apply(mg_geom g, const double *p, double *q, double *sum)
{
    dim3 d = grid_of(g, g.hi[0] - g.lo[0]);
    apply_kernel<<<d, MG_T, 0, mg_stream>>>(g, p, q, sum);
    return done() ? done() : finish(d, sum);
}

int mg_gpu_jacobi(mg_geom g, const double *u, const double *f, double *out, double omega)
{
    jacobi_kernel<<<grid_of(g, g.hi[0] - g.lo[0]), MG_T, 0, mg_stream>>>(g, u, f, out, g.k ? omega : omega / g.diag);
    return done();
}

int mg_gpu_gs_color(mg_geom g, double *u, const double *f, int color)
{
    gs_kernel<<<grid_of(g, (g.hi[0] - g.lo[0] + 1) / 2), MG_T, 0, mg_stream>>>(g, u, f, color);
    return done();
}

int mg_gpu_gs_sweep2(mg_geom g, const double *u, const double *f, double *out, int first)
{
    dim3 grid((unsigned)((g.hi[0] - g.lo[0] + GS2_X - 1) / GS2_X), (unsigned)((g.hi[1] - g.lo[1] + GS2_Y - 1) / GS2_Y));
    gs2_kernel<<<grid, dim3(GS2_X, GS2_Y), 0, mg_stream>>>(g, u, f, out, first);
    return done();
}

int mg_gpu_gs_zsweep(mg_geom g, const mg_box *obox, const double *u, const double *f, double *out, int first,
                     long long zc, mg_geom C, mg_gpu_tr tx, mg_gpu_tr ty, mg_gpu_tr tz, const double *uc, double *sum)
{
    const mg_box ob = obox ? *obox : mg_box{{g.lo[0], g.lo[1], g.lo[2]}, {g.hi[0], g.hi[1], g.hi[2]}};
    const long long nx = ob.hi[0] - ob.lo[0], ny = ob.hi[1] - ob.lo[1], nz = ob.hi[2] - ob.lo[2];
    const long long gx = (nx + GSZ_X - 5) / (GSZ_X - 4), gy = (ny + GSZ_Y - 5) / (GSZ_Y - 4);
    if (zc <= 0) {
        /* chunks of z: enough blocks to fill the device (~2000), each
           chunk long enough that starting one plane early costs little */
        zc = gx * gy * nz / 2048;
        zc = zc < 4 ? 4 : zc > 32 ? 32 : zc;
    }
    dim3 grid((unsigned)gx, (unsigned)gy, (unsigned)((nz + zc - 1) / zc));
    const dim3 block(GSZ_X, GSZ_Y);
    if (sum && g.k)
        gsz_kernel<false, true, true><<<grid, block, 0, mg_stream>>>(g, ob, u, f, out, first, zc, C, tx, ty, tz, uc, sum);
    else if (sum)
        gsz_kernel<false, false, true><<<grid, block, 0, mg_stream>>>(g, ob, u, f, out, first, zc, C, tx, ty, tz, uc, sum);
    else if (uc && g.k)
        gsz_kernel<true, true, false><<<grid, block, 0, mg_stream>>>(g, ob, u, f, out, first, zc, C, tx, ty, tz, uc, sum);
    else if (uc)
        gsz_kernel<true, false, false><<<grid, block, 0, mg_stream>>>(g, ob, u, f, out, first, zc, C, tx, ty, tz, uc, sum);
    else if (g.k)
        gsz_kernel<false, true, false><<<grid, block, 0, mg_stream>>>(g, ob, u, f, out, first, zc, C, tx, ty, tz, uc, sum);
    else
        gsz_kernel<false, false, false><<<grid, block, 0, mg_stream>>>(g, ob, u, f, out, first, zc, C, tx, ty, tz, uc, sum);
    return done() ? done() : finish(grid, sum);
}

int mg_gpu_cheby(mg_geom g, const double *u, const double *f, double *d, double *out, double alpha, double beta)
{
    cheby_kernel<<<grid_of(g, g.hi[0] - g.lo[0]), MG_T, 0, mg_stream>>>(g, u, f, d, out, alpha, beta);
    return done();
}

int mg_gpu_restrict(mg_geom F, mg_geom C, mg_gpu_tr tx, mg_gpu_tr ty, mg_gpu_tr tz, const double *rf, double *fc)
{
    restrict_kernel<<<grid_of(C, C.hi[0] - C.lo[0]), MG_T, 0, mg_stream>>>(F, C, tx, ty, tz, rf, NULL, NULL, fc);
    return done();
}

int mg_gpu_resrestrict(mg_geom F, mg_geom C, mg_gpu_tr tx, mg_gpu_tr ty, mg_gpu_tr tz, const double *u,
                       const double *f, double *fc)
{
    restrict_kernel<<<grid_of(C, C.hi[0] - C.lo[0]), MG_T, 0, mg_stream>>>(F, C, tx, ty, tz, NULL, u, f, fc);
    return done();
}

int mg_gpu_resrestrict_planes(mg_geom F, mg_geom C, mg_gpu_tr tx, mg_gpu_tr ty, mg_gpu_tr tz, const double *u,
                              const double *f, double *fc, long long kc)
{
    const long long nx = C.hi[0] - C.lo[0], ny = C.hi[1] - C.lo[1], nz = C.hi[2] - C.lo[2];
    const long long gx = (nx + RR_X - 1) / RR_X, gy = (ny + RR_Y - 1) / RR_Y;
    if (kc <= 0) {
        /* enough blocks to fill the device (~1000), chunks of at most 8
           coarse planes (a chunk's first fine plane is shared with the
           chunk below: computed twice) */
        kc = gx * gy * nz / 1024;
        kc = kc < 1 ? 1 : kc > 8 ? 8 : kc;
    }
    dim3 grid((unsigned)gx, (unsigned)gy, (unsigned)((nz + kc - 1) / kc));
    rr_kernel<<<grid, dim3(RR_X, RR_Y), 0, mg_stream>>>(F, C, tx, ty, tz, u, f, fc, kc);
    return done();
}

int mg_gpu_prolong(mg_geom F, mg_geom C, mg_gpu_tr tx, mg_gpu_tr ty, mg_gpu_tr tz, const double *uc, double *uf,
                   int add)
{
    prolong_kernel<<<grid_of(F, F.hi[0] - F.lo[0]), MG_T, 0, mg_stream>>>(F, C, tx, ty, tz, uc, uf, add);
    return done();
}

int mg_gpu_inject(mg_geom F, mg_geom C, mg_gpu_tr tx, mg_gpu_tr ty, mg_gpu_tr tz, unsigned dirichlet,
                  const double *uf, double *uc)
{
    dim3 grid((unsigned)((C.m[0] + MG_T - 1) / MG_T), (unsigned)C.m[1], (unsigned)C.m[2]);
    inject_kernel<<<grid, MG_T, 0, mg_stream>>>(F, C, tx, ty, tz, dirichlet, uf, uc);
    return done();
}

int mg_gpu_ghost_planes(mg_geom g, double *a, int axis, long long src_lo, long long src_hi)
{
    const int b = axis == 0 ? 1 : 0, c = axis == 2 ? 1 : 2;
    dim3 grid((unsigned)((g.m[b] + MG_T - 1) / MG_T), (unsigned)g.m[c]);
    ghost_planes_kernel<<<grid, MG_T, 0, mg_stream>>>(g, a, axis, src_lo, src_hi);
    return done();
}

int mg_gpu_fill(long long n, double *a, double v)
{
    fill_kernel<<<(unsigned)((n + 255) / 256), 256, 0, mg_stream>>>(n, a, v);
    return done();
}

int mg_gpu_dot(mg_geom g, const double *a, const double *b, double *sum)
{
    dim3 d = grid_of(g, g.hi[0] - g.lo[0]);
    dot_kernel<<<d, MG_T, 0, mg_stream>>>(g, a, b, sum);
    return done() ? done() : finish(d, sum);
}

int mg_gpu_shift(mg_geom g, double *a, double v)
{
    shift_kernel<<<grid_of(g, g.hi[0] - g.lo[0]), MG_T, 0, mg_stream>>>(g, a, v);
    return done();
}

int mg_gpu_cg_update(mg_geom g, double *x, const double *p, double *r, const double *q, double alpha, double *sum)
{
    dim3 d = grid_of(g, g.hi[0] - g.lo[0]);
    cg_update_kernel<<<d, MG_T, 0, mg_stream>>>(g, x, p, r, q, alpha, sum);
    return done() ? done() : finish(d, sum);
}

int mg_gpu_cg_direction(mg_geom g, double *p, const double *z, double beta)
{
    cg_direction_kernel<<<grid_of(g, g.hi[0] - g.lo[0]), MG_T, 0, mg_stream>>>(g, p, z, beta);
    return done();
}

int mg_gpu_coarse(int nu, double *chol, const int64_t *map, const double *t, double *u)
{
    coarse_kernel<<<1, 1, 0, mg_stream>>>(nu, chol, map, t, u);
    return done();
}

int mg_gpu_copy_user(mg_geom g, const long long *off, const long long *lo, const long long *hi, long long nx,
                     long long ny, const double *src, double *dst, int to_user)
{
    const long long bx = hi[0] - lo[0];
    dim3 grid((unsigned)((bx + MG_T - 1) / MG_T), (unsigned)(hi[1] - lo[1]), (unsigned)(hi[2] - lo[2]));
    copy_user_kernel<<<grid, MG_T, 0, mg_stream>>>(g, off[0], off[1], off[2], lo[0], lo[1], lo[2], bx, nx, ny, src, dst, to_user);
    return done();
}

} /* extern "C" */
