/* fdx_layout_index: the diagonal index function, written once and used three
   ways: compiled into the C library, into the CUDA kernels, and emitted as
   source text for generated kernels (fdx_layout_emit_helpers). */
#ifndef FDX_LAYOUT_INDEX_H
#define FDX_LAYOUT_INDEX_H

/* Offset of (x, y) in an Rx x Ry plane stored by anti-diagonals x + y = d:
   line d starts after all shorter-d lines (three closed forms: the growing
   triangle, the band of full lines of length min(Rx,Ry), the shrinking
   triangle), and inside a line the points go by x ascending.  The main
   diagonal arrangement is this function with y reflected (Ry - 1 - y). */
#define FDX_DIAG_INDEX_DEFINE(QUAL)                                                            \
    QUAL long long fdx_diag_index(long long x, long long y, long long rx, long long ry)        \
    {                                                                                          \
        long long d = x + y, m = rx < ry ? rx : ry, big = rx < ry ? ry : rx;                   \
        long long t = rx + ry - 1 - d;                                                         \
        long long start = d <= m ? d * (d + 1) / 2                                             \
                        : d <= big ? m * (m + 1) / 2 + (d - m) * m : rx * ry - t * (t + 1) / 2; \
        return start + x - (d >= ry ? d - ry + 1 : 0);                                         \
    }

#define FDX_LAYOUT_STR_(...) #__VA_ARGS__
#define FDX_LAYOUT_STR(...) FDX_LAYOUT_STR_(__VA_ARGS__)

#if defined(__CUDACC__)
#define FDX_LAYOUT_QUAL static __host__ __device__ __forceinline__
#else
#define FDX_LAYOUT_QUAL static inline
#endif

FDX_DIAG_INDEX_DEFINE(FDX_LAYOUT_QUAL)

#endif
