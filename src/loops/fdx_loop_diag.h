/* fdx_loop_diag: the inverse of the layout engine's diagonal index for the
   loop enumeration: point r of an a x b plane taken diagonal after
   diagonal (x + y = d ascending), x ascending inside a diagonal, as an
   anti-diagonal layout stores the plane.  Written once, compiled into the
   C library's tests and emitted as source text into generated CUDA
   kernels (parallel loops walking diagonal arrays, fdx_loop_gen_gpu.c). */
#ifndef FDX_LOOP_DIAG_H
#define FDX_LOOP_DIAG_H

/* Three closed forms, as fdx_diag_index: the growing triangle (diagonals
   0..m-2, m = min(a,b)), the band of full diagonals of length m, the
   shrinking triangle (mirrored).  A triangle's row comes from a double
   square root, corrected by integer steps (exact for any r < 2^50).  T:
   long long, or unsigned when a * b < 2^31 (64-bit division costs tens of
   instructions on a GPU); nothing in it goes negative.  F and SQRT: the
   square root's type and function: double for long long; float (a few
   instructions on a GPU, not a double-precision square root) for unsigned,
   where u < 2^30 leaves the estimate within one step of the row, which
   the integer corrections fix. */
#define FDX_LOOP_DIAG_POINT_DEFINE(QUAL, NAME, T, F, SQRT)                                        \
    QUAL void NAME(T r, T a, T b, T *x, T *y)                                                     \
    {                                                                                             \
        T m = a < b ? a : b, big = a < b ? b : a, tri = m * (m - 1) / 2;                           \
        T d, p;                                                                                   \
        if (r < tri || r >= tri + (big - m + 1) * m) {                                            \
            T u = r < tri ? r : a * b - 1 - r;                                                    \
            T t = (T)((SQRT((F)8 * (F)u + (F)1) - (F)1) / (F)2);                                  \
            while ((t + 1) * (t + 2) / 2 <= u) t++;                                               \
            while (t * (t + 1) / 2 > u) t--;                                                      \
            T q = u - t * (t + 1) / 2;                                                            \
            d = r < tri ? t : a + b - 2 - t;                                                      \
            p = r < tri ? q : t - q;                                                              \
        } else {                                                                                  \
            d = m - 1 + (r - tri) / m;                                                            \
            p = (r - tri) % m;                                                                    \
        }                                                                                         \
        *x = (d > b - 1 ? d - (b - 1) : 0) + p;                                                   \
        *y = d - *x;                                                                              \
    }

#define FDX_LOOP_DIAG_STR_(...) #__VA_ARGS__
#define FDX_LOOP_DIAG_STR(...) FDX_LOOP_DIAG_STR_(__VA_ARGS__)
/* The helper as CUDA source text, 64-bit and 32-bit. */
#define FDX_LOOP_DIAG_POINT_CUDA                                                                  \
    FDX_LOOP_DIAG_STR(FDX_LOOP_DIAG_POINT_DEFINE(static __device__ __forceinline__, fdx_diag_point, long long, double, sqrt))
#define FDX_LOOP_DIAG_POINT_CUDA32                                                                \
    FDX_LOOP_DIAG_STR(FDX_LOOP_DIAG_POINT_DEFINE(static __device__ __forceinline__, fdx_diag_point32, unsigned, float, sqrtf))

#endif
