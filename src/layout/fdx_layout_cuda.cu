/* fdx_layout_cuda: the transform kernels on CUDA, one template per kernel over
   the moved word type (1, 2, 4, 8, 16 bytes): tiled transposes through shared
   memory, row copies, in-place square transposes, parallelogram-tiled
   diagonalization, and box gathers/scatters through the index function. */
#include "backends/cuda/fdx_cuda.h"
#include "layout/fdx_layout_index.h"
#include "layout/fdx_layout_plan.h"

#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>

namespace {

constexpr int THREADS = 256;
constexpr int EPT = 8; /* words per thread: a tile holds THREADS * EPT = 2048 */
constexpr int SQ = 32; /* square in-place tile */
constexpr int DW = 64, DT = 32; /* diagonal tile: DW points along x, DT lines */

struct FastDiv {
    uint32_t d, mul, shift;
};

FastDiv fd(int64_t d)
{
    fdx_fastdiv f = fdx_fastdiv_make((uint32_t)d);
    return FastDiv{f.d, f.mul, f.shift};
}

__device__ __forceinline__ uint32_t qdiv(uint32_t n, const FastDiv &f) { return (__umulhi(n, f.mul) + n) >> f.shift; }

struct TileArgs {
    int64_t nA, nK, sA, sK, dA, dK;
    uint32_t R, TA, TB;
    FastDiv divR, divTA, divTB, tilesA, tilesK;
    int nb;
    FastDiv bn[FDX_MAX_RANK];
    int64_t bs[FDX_MAX_RANK], bd[FDX_MAX_RANK];
};

/* Block -> tile origin and the src/dst offsets of its batch coordinates. */
__device__ __forceinline__ void tile_origin(const TileArgs &a, int64_t &so, int64_t &dof, uint32_t &ia, uint32_t &ik)
{
    uint32_t bid = blockIdx.x, q = qdiv(bid, a.tilesA);
    ia = bid - q * a.tilesA.d;
    uint32_t q2 = qdiv(q, a.tilesK);
    ik = q - q2 * a.tilesK.d;
    so = 0;
    dof = 0;
#pragma unroll
    for (int b = 0; b < FDX_MAX_RANK; b++) {
        if (b >= a.nb) break;
        uint32_t q3 = qdiv(q2, a.bn[b]), c = q2 - q3 * a.bn[b].d;
        so += (int64_t)c * a.bs[b];
        dof += (int64_t)c * a.bd[b];
        q2 = q3;
    }
}

/* Reads the tile in src order (unit r fastest, then A, then K) into a buffer
   padded by one word per K-row, then writes it in dst order (r, K, A): both
   global sides move whole rows of R*TA and R*TB words. */
template <typename T>
__global__ void __launch_bounds__(THREADS) tiled_kernel(T *__restrict__ dst, const T *__restrict__ src, TileArgs a)
{
    extern __shared__ __align__(16) unsigned char smem_raw[];
    T *tile = reinterpret_cast<T *>(smem_raw);
    int64_t so, dof;
    uint32_t ia, ik;
    tile_origin(a, so, dof, ia, ik);
    const int64_t a0 = (int64_t)ia * a.TA, b0 = (int64_t)ik * a.TB;
    const uint32_t va = (uint32_t)min((int64_t)a.TA, a.nA - a0), vb = (uint32_t)min((int64_t)a.TB, a.nK - b0);
    const uint32_t n = a.R * a.TA * a.TB, row = a.R * a.TA + 1;
    const T *s = src + so + a0 * a.sA + b0 * a.sK;
    T *d = dst + dof + a0 * a.dA + b0 * a.dK;
    T v[EPT];
#pragma unroll
    for (int k = 0; k < EPT; k++) {
        uint32_t t = threadIdx.x + k * THREADS, q = qdiv(t, a.divR), r = t - q * a.R, kb = qdiv(q, a.divTA),
                 ka = q - kb * a.TA;
        if (t < n && ka < va && kb < vb) v[k] = s[r + ka * a.sA + kb * a.sK];
    }
#pragma unroll
    for (int k = 0; k < EPT; k++) {
        uint32_t t = threadIdx.x + k * THREADS, q = qdiv(t, a.divR), r = t - q * a.R, kb = qdiv(q, a.divTA),
                 ka = q - kb * a.TA;
        if (t < n && ka < va && kb < vb) tile[r + a.R * ka + kb * row] = v[k];
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < EPT; k++) {
        uint32_t t = threadIdx.x + k * THREADS, q = qdiv(t, a.divR), r = t - q * a.R, ka = qdiv(q, a.divTB),
                 kb = q - ka * a.TB;
        if (t < n && ka < va && kb < vb) d[r + ka * a.dA + kb * a.dK] = tile[r + a.R * ka + kb * row];
    }
}

/* The fastest axis stays: each thread copies words of TB rows of TA words. */
template <typename T>
__global__ void __launch_bounds__(THREADS) rows_kernel(T *__restrict__ dst, const T *__restrict__ src, TileArgs a)
{
    int64_t so, dof;
    uint32_t ia, ik;
    tile_origin(a, so, dof, ia, ik);
    const int64_t a0 = (int64_t)ia * a.TA, b0 = (int64_t)ik * a.TB;
    const uint32_t va = (uint32_t)min((int64_t)a.TA, a.nA - a0), vb = (uint32_t)min((int64_t)a.TB, a.nK - b0);
    const uint32_t n = a.TA * a.TB;
    const T *s = src + so + a0 + b0 * a.sK;
    T *d = dst + dof + a0 + b0 * a.dK;
    T v[EPT];
#pragma unroll
    for (int k = 0; k < EPT; k++) {
        uint32_t t = threadIdx.x + k * THREADS, kb = qdiv(t, a.divTA), ka = t - kb * a.TA;
        if (t < n && ka < va && kb < vb) v[k] = s[ka + kb * a.sK];
    }
#pragma unroll
    for (int k = 0; k < EPT; k++) {
        uint32_t t = threadIdx.x + k * THREADS, kb = qdiv(t, a.divTA), ka = t - kb * a.TA;
        if (t < n && ka < va && kb < vb) d[ka + kb * a.dK] = v[k];
    }
}

/* Packed tiles: tile axes in src order (read side) and dst order (write
   side), precomputed on the host so the kernel indexes them statically. */
struct PackArgs {
    int rank;
    uint32_t ntiles, W;
    FastDiv pad;                                     /* one padding word per pad.d buffer words */
    FastDiv tiles[FDX_MAX_RANK];                     /* tiles along each src axis */
    uint32_t te[FDX_MAX_RANK];                       /* tile extents, src order */
    int64_t n[FDX_MAX_RANK], ss[FDX_MAX_RANK], ds[FDX_MAX_RANK];
    FastDiv rte[FDX_MAX_RANK];                       /* read order: tile extents (src axes) */
    uint32_t rlin[FDX_MAX_RANK];                     /* read order: src-linear in-tile strides */
    FastDiv wte[FDX_MAX_RANK];                       /* write order: tile extents (dst axes) */
    int64_t wds[FDX_MAX_RANK];                       /* write order: dst strides */
    uint32_t wlin[FDX_MAX_RANK];                     /* write order: src-linear in-tile strides */
    int rcut[2], wcut[2];                            /* positions of cut[0], cut[1] in each order (-1: none) */
};

/* One tile slot t (0 <= t < THREADS * EPT) of a packed tile, decomposed in
   src order (the read side) and in dst order (the write side); slots past
   the tile's W words get coordinates that never pass the bounds check. */
struct PackSlot {
    int32_t so, dof;     /* in-tile src and dst offsets */
    uint32_t smw, smr;   /* buffer positions written (src order) and read (dst order) */
    uint32_t rc, wc;     /* coordinates along cut[0] | cut[1] << 16, read and write order */
};

/* The host pass of nvcc compiles the __host__ __device__ helpers below too
   (they can be checked on a machine without a GPU), and the host compiler
   warns about #pragma unroll. */
#ifdef __CUDA_ARCH__
#define DEVICE_UNROLL _Pragma("unroll")
#else
#define DEVICE_UNROLL
#endif

__host__ __device__ __forceinline__ uint32_t hqdiv(uint32_t n, const FastDiv &f)
{
#ifdef __CUDA_ARCH__
    return qdiv(n, f);
#else
    return (uint32_t)(((uint64_t)n * f.mul >> 32) + n) >> f.shift;
#endif
}

/* Slot t in one order: its in-tile offset, src-linear position (the
   buffer's order) and cut-axis coordinates (c0 | c1 << 16; never in
   bounds past the tile's W words). */
__host__ __device__ __forceinline__ void pack_decompose(const PackArgs &a, uint32_t t, const FastDiv *te,
                                                        const int64_t *stride, const uint32_t *lin_stride,
                                                        const int *cut, int32_t &off, uint32_t &lin, uint32_t &cuts)
{
    uint32_t rest = t, c0 = 0, c1 = 0;
    int64_t o = 0;
    lin = 0;
    DEVICE_UNROLL
    for (int q = 0; q < FDX_MAX_RANK; q++) {
        if (q >= a.rank) break;
        uint32_t d = hqdiv(rest, te[q]), c = rest - d * te[q].d;
        rest = d;
        o += (int64_t)c * stride[q];
        lin += c * lin_stride[q];
        if (q == cut[0]) c0 = c;
        if (q == cut[1]) c1 = c;
    }
    off = (int32_t)o;
    cuts = t < a.W ? c0 | c1 << 16 : 0xFFFFFFFFu;
}

__host__ __device__ __forceinline__ PackSlot pack_slot(const PackArgs &a, uint32_t t)
{
    PackSlot r;
    uint32_t lin;
    pack_decompose(a, t, a.rte, a.ss, a.rlin, a.rcut, r.so, lin, r.rc);
    r.smw = lin + hqdiv(lin, a.pad);
    pack_decompose(a, t, a.wte, a.wds, a.wlin, a.wcut, r.dof, lin, r.wc);
    r.smr = lin + hqdiv(lin, a.pad);
    return r;
}

/* Tile tl: src and dst offsets of its origin, valid extents along the cut axes. */
__host__ __device__ __forceinline__ void pack_tile(const PackArgs &a, uint32_t tl, int64_t &sb, int64_t &db,
                                                   uint32_t &v0, uint32_t &v1)
{
    uint32_t rest = tl;
    sb = 0, db = 0, v0 = 1, v1 = 1;
    DEVICE_UNROLL
    for (int q = 0; q < FDX_MAX_RANK; q++) {
        if (q >= a.rank) break;
        uint32_t d = hqdiv(rest, a.tiles[q]), c = rest - d * a.tiles[q].d;
        rest = d;
        int64_t o = (int64_t)c * a.te[q];
        sb += o * a.ss[q];
        db += o * a.ds[q];
        uint32_t v = (uint32_t)(a.n[q] - o < (int64_t)a.te[q] ? a.n[q] - o : (int64_t)a.te[q]);
        if (q == a.rcut[0]) v0 = v;
        if (q == a.rcut[1]) v1 = v;
    }
}

__host__ __device__ __forceinline__ bool pack_ok(uint32_t c, uint32_t v0, uint32_t v1)
{
    return (c & 0xFFFFu) < v0 && (c >> 16) < v1;
}

/* Persistent blocks: each thread decomposes its EPT tile slots once, then
   walks tiles blockIdx.x, +gridDim.x, ... paying only the tile origin and
   one compare per word.  The buffer holds the tile in src order with one
   padding word per pad.d words (pad.d = the src-linear stride of the
   dst-fastest axis when even), so the write side reads it without bank
   conflicts. */
template <typename T, int MINB>
__global__ void __launch_bounds__(THREADS, MINB) packed_kernel(T *__restrict__ dst, const T *__restrict__ src, PackArgs a)
{
    extern __shared__ __align__(16) unsigned char smem_raw[];
    T *tile = reinterpret_cast<T *>(smem_raw);
    int32_t so[EPT], dof[EPT];
    uint32_t smr[EPT], rc[EPT], wc[EPT];
#pragma unroll
    for (int k = 0; k < EPT; k++) {
        PackSlot sl = pack_slot(a, threadIdx.x + k * THREADS);
        so[k] = sl.so, dof[k] = sl.dof, smr[k] = sl.smr, rc[k] = sl.rc, wc[k] = sl.wc;
    }
    for (uint32_t tl = blockIdx.x; tl < a.ntiles; tl += gridDim.x) {
        int64_t sb, db;
        uint32_t v0, v1;
        pack_tile(a, tl, sb, db, v0, v1);
        const T *sp = src + sb;
        T *dp = dst + db;
        T v[EPT];
#pragma unroll
        for (int k = 0; k < EPT; k++)
            if (pack_ok(rc[k], v0, v1)) v[k] = sp[so[k]];
#pragma unroll
        for (int k = 0; k < EPT; k++)
            if (pack_ok(rc[k], v0, v1)) { /* the write position is cheap to recompute: saves registers */
                const uint32_t t = threadIdx.x + k * THREADS;
                tile[t + qdiv(t, a.pad)] = v[k];
            }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < EPT; k++)
            if (pack_ok(wc[k], v0, v1)) dp[dof[k]] = tile[smr[k]];
        __syncthreads();
    }
}

struct SquareArgs {
    int64_t n;
    FastDiv tiles, tiles2; /* tiles per side, tiles per slice */
};

/* In place: block (i, j), i <= j, holds tiles (i, j) and (j, i) of one slice
   in shared memory and writes each, transposed, where the other was. */
template <typename T>
__global__ void __launch_bounds__(SQ * 8) square_kernel(T *buf, SquareArgs a)
{
    __shared__ T t1[SQ][SQ + 1], t2[SQ][SQ + 1];
    uint32_t bid = blockIdx.x, z = qdiv(bid, a.tiles2), rest = bid - z * a.tiles2.d, tj = qdiv(rest, a.tiles),
             ti = rest - tj * a.tiles.d;
    if (ti > tj) return;
    T *base = buf + (int64_t)z * a.n * a.n;
    const int64_t xi = (int64_t)ti * SQ, xj = (int64_t)tj * SQ, n = a.n;
    const int tx = threadIdx.x, ty = threadIdx.y;
    for (int y = ty; y < SQ; y += 8) {
        if (xi + tx < n && xj + y < n) t1[y][tx] = base[xi + tx + n * (xj + y)];
        if (ti != tj && xj + tx < n && xi + y < n) t2[y][tx] = base[xj + tx + n * (xi + y)];
    }
    __syncthreads();
    for (int y = ty; y < SQ; y += 8) {
        if (xj + tx < n && xi + y < n) base[xj + tx + n * (xi + y)] = t1[tx][y];
        if (ti != tj && xi + tx < n && xj + y < n) base[xi + tx + n * (xj + y)] = t2[tx][y];
    }
}

struct DiagArgs {
    int64_t rx, ry;
    FastDiv tilesX, tilesXD; /* x tiles, x tiles * line tiles */
    int main_diag;
};

/* Diagonalize with parallelogram tiles: DW consecutive x on DT consecutive
   lines d.  On the plain side lane i takes line j = (c + i) mod DT, so the 32
   lanes of a warp share one row y = d - x (two runs where j wraps):
   coalesced row reads.  On the diagonal side lane i takes a fixed line: one
   contiguous run of writes.  Buffer rows of DW words: lane i lands in bank i
   on both sides. */
template <typename T>
__global__ void __launch_bounds__(THREADS) diag_kernel(T *__restrict__ dst, const T *__restrict__ src, DiagArgs a)
{
    __shared__ T tile[DT * DW];
    uint32_t bid = blockIdx.x, z = qdiv(bid, a.tilesXD), rest = bid - z * a.tilesXD.d, id = qdiv(rest, a.tilesX),
             ix = rest - id * a.tilesX.d;
    const int64_t x0 = (int64_t)ix * DW, d0 = (int64_t)id * DT, rx = a.rx, ry = a.ry;
    if (d0 + DT - 1 < x0 || d0 - (x0 + DW - 1) > ry - 1) return; /* tile misses the plane */
    const int64_t plane = (int64_t)z * rx * ry;
    const T *in = src + plane;
    T *out = dst + plane;
    const int i = threadIdx.x % DW, c0 = threadIdx.x / DW;
    constexpr int ROUNDS = DT * DW / THREADS;
    const int64_t x = x0 + i;
    T v[ROUNDS];
#pragma unroll
    for (int k = 0; k < ROUNDS; k++) {
        int j = (c0 + k * (THREADS / DW) + i) % DT;
        int64_t y = d0 + j - x, yp = a.main_diag ? ry - 1 - y : y;
        if (x < rx && y >= 0 && y < ry) v[k] = in[x + rx * yp];
    }
#pragma unroll
    for (int k = 0; k < ROUNDS; k++) tile[((c0 + k * (THREADS / DW) + i) % DT) * DW + i] = v[k];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < ROUNDS; k++) {
        int j = c0 + k * (THREADS / DW);
        int64_t y = d0 + j - x;
        if (x < rx && y >= 0 && y < ry) out[fdx_diag_index(x, y, rx, ry)] = tile[j * DW + i];
    }
}

/* Undiagonalize with rectangular tiles of the plain plane (DW x DT), so the
   writes are whole aligned row segments (partial-sector writes cost more than
   partial reads).  On the diagonal side lane i takes row j = (c -/+ i) mod DT
   so the warp's lanes share one line d (two runs where j wraps). */
template <typename T>
__global__ void __launch_bounds__(THREADS) undiag_kernel(T *__restrict__ dst, const T *__restrict__ src, DiagArgs a)
{
    __shared__ T tile[DT * DW];
    uint32_t bid = blockIdx.x, z = qdiv(bid, a.tilesXD), rest = bid - z * a.tilesXD.d, iy = qdiv(rest, a.tilesX),
             ix = rest - iy * a.tilesX.d;
    const int64_t x0 = (int64_t)ix * DW, y0 = (int64_t)iy * DT, rx = a.rx, ry = a.ry, plane = (int64_t)z * rx * ry;
    const T *in = src + plane;
    T *out = dst + plane;
    const int i = threadIdx.x % DW, c0 = threadIdx.x / DW;
    constexpr int ROUNDS = DT * DW / THREADS;
    const int64_t x = x0 + i;
    T v[ROUNDS];
#pragma unroll
    for (int k = 0; k < ROUNDS; k++) {
        int c = c0 + k * (THREADS / DW), j = a.main_diag ? (c + i) % DT : (c - i + 2 * DW) % DT;
        int64_t yp = y0 + j, y = a.main_diag ? ry - 1 - yp : yp;
        if (x < rx && yp < ry) v[k] = in[fdx_diag_index(x, y, rx, ry)];
    }
#pragma unroll
    for (int k = 0; k < ROUNDS; k++) {
        int c = c0 + k * (THREADS / DW), j = a.main_diag ? (c + i) % DT : (c - i + 2 * DW) % DT;
        tile[j * DW + i] = v[k];
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < ROUNDS; k++) {
        int64_t yp = y0 + c0 + k * (THREADS / DW);
        if (x < rx && yp < ry) out[x + rx * yp] = tile[(c0 + k * (THREADS / DW)) * DW + i];
    }
}

struct BoxArgs {
    int rank;
    FastDiv box[FDX_MAX_RANK];
    int64_t lo[FDX_MAX_RANK], stride[FDX_MAX_RANK];
    int diag, ax, ay;
    int64_t rx, ry, count;
};

/* One thread per box element: the layout's index function, gather or scatter. */
template <typename T, bool PUT>
__global__ void __launch_bounds__(THREADS) box_kernel(T *array, T *plain, BoxArgs a)
{
    uint32_t i = blockIdx.x * THREADS + threadIdx.x;
    if (i >= a.count) return;
    uint32_t rest = i;
    int64_t off = 0, ix = 0, iy = 0;
#pragma unroll
    for (int d = 0; d < FDX_MAX_RANK; d++) {
        if (d >= a.rank) break;
        uint32_t q = qdiv(rest, a.box[d]);
        int64_t idx = a.lo[d] + (rest - q * a.box[d].d);
        rest = q;
        off += idx * a.stride[d];
        if (d == a.ax) ix = idx;
        if (d == a.ay) iy = idx;
    }
    if (a.diag != FDX_DIAG_NONE) off += fdx_diag_index(ix, a.diag == FDX_DIAG_MAIN ? a.ry - 1 - iy : iy, a.rx, a.ry);
    if (PUT) array[off] = plain[i];
    else plain[i] = array[off];
}

/* The moved word types: opaque, aligned to their size. */
template <int W> struct Word;
template <> struct Word<1> { typedef unsigned char type; };
template <> struct Word<2> { typedef unsigned short type; };
template <> struct Word<4> { typedef unsigned int type; };
template <> struct Word<8> { typedef unsigned long long type; };
template <> struct Word<16> { typedef uint4 type; };

unsigned blocks_of(int64_t n, int64_t per) { return (unsigned)((n + per - 1) / per); }

/* FDX_LAYOUT_PERSIST=0 (one tile per block) and FDX_LAYOUT_BLOCKS=3 are for
   measurements only, like FDX_LAYOUT_TILE and FDX_LAYOUT_KERNEL. */
bool env_is(const char *name, const char *value)
{
    const char *e = getenv(name);
    return e && strcmp(e, value) == 0;
}

/* The kernel's view of a packed plan; the tile count in *ntiles. */
PackArgs pack_args(const fdx_perm_plan *p, int64_t *ntiles_out, int64_t *words)
{
    PackArgs a;
    memset(&a, 0, sizeof a);
    a.rank = p->rank;
    int64_t tst[FDX_MAX_RANK + 1], ntiles = 1;
    tst[0] = 1;
    for (int q = 0; q < p->rank; q++) {
        int64_t tiles = blocks_of(p->n[q], p->te[q]);
        a.tiles[q] = fd(tiles), a.te[q] = (uint32_t)p->te[q], a.rte[q] = fd(p->te[q]);
        a.n[q] = p->n[q], a.ss[q] = p->ss[q], a.ds[q] = p->ds[q];
        a.rlin[q] = (uint32_t)tst[q];
        tst[q + 1] = tst[q] * p->te[q];
        ntiles *= tiles;
    }
    for (int q = 0; q < p->rank; q++) {
        int ax = p->s[q];
        a.wte[q] = fd(p->te[ax]), a.wds[q] = p->ds[ax], a.wlin[q] = (uint32_t)tst[ax];
    }
    for (int i = 0; i < 2; i++) {
        a.rcut[i] = p->cut[i], a.wcut[i] = -1;
        for (int q = 0; q < p->rank; q++)
            if (p->cut[i] >= 0 && p->s[q] == p->cut[i]) a.wcut[i] = q;
    }
    a.ntiles = (uint32_t)ntiles, a.W = (uint32_t)tst[p->rank];
    /* pad when the dst-fastest axis walks the buffer with an even stride >= 4 */
    int64_t P = tst[p->s[0]];
    a.pad = fd(P >= 4 && P % 2 == 0 ? P : (int64_t)1 << 30);
    *ntiles_out = ntiles;
    *words = tst[p->rank];
    return a;
}

template <typename T>
fdx_status launch_packed(void *dst, const void *src, const fdx_perm_plan *p, cudaStream_t st)
{
    int64_t ntiles, words;
    PackArgs a = pack_args(p, &ntiles, &words);
    FDX_CHECK(ntiles < ((int64_t)1 << 31) && words <= THREADS * EPT, FDX_ERR_INTERNAL,
              "packed plan of %lld tiles of %lld words", (long long)ntiles, (long long)words);
    size_t smem = (size_t)(a.W + (a.W - 1) / a.pad.d + 1) * sizeof(T);
    FDX_CHECK(smem <= 48 * 1024, FDX_ERR_INTERNAL, "tile of %zu bytes exceeds 48 KiB", smem);
    /* 2 blocks per SM hold the precomputed slots in registers; 3 (measured
       with FDX_LAYOUT_BLOCKS=3) spill some of them to local memory. */
    void (*kernel)(T *, const T *, PackArgs) = env_is("FDX_LAYOUT_BLOCKS", "3") ? packed_kernel<T, 3> : packed_kernel<T, 2>;
    int64_t grid = ntiles;
    if (!env_is("FDX_LAYOUT_PERSIST", "0")) {
        int dev = 0, sms = 0, per = 0;
        FDX_CUDA_TRY(cudaGetDevice(&dev));
        FDX_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
        FDX_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, kernel, THREADS, smem));
        if (per < 1) per = 1;
        if (grid > (int64_t)per * sms) grid = (int64_t)per * sms;
    }
    kernel<<<(unsigned)grid, THREADS, smem, st>>>((T *)dst, (const T *)src, a);
    FDX_CUDA_CHECK_LAUNCH("packed_kernel");
    return FDX_OK;
}

template <int W>
fdx_status launch_perm(void *dst, const void *src, const fdx_perm_plan *p, cudaStream_t st)
{
    typedef typename Word<W>::type T;
    if (p->kind == FDX_PLAN_SQUARE) {
        int64_t tiles = blocks_of(p->nA, SQ), slices = p->count / (p->nA * p->nA);
        FDX_CHECK(tiles * tiles * slices < ((int64_t)1 << 31), FDX_ERR_UNSUPPORTED, "in-place transpose too large");
        SquareArgs a{p->nA, fd(tiles), fd(tiles * tiles)};
        square_kernel<T><<<(unsigned)(tiles * tiles * slices), dim3(SQ, 8), 0, st>>>((T *)dst, a);
        FDX_CUDA_CHECK_LAUNCH("square_kernel");
        return FDX_OK;
    }
    TileArgs a;
    a.nA = p->nA, a.nK = p->nK, a.sA = p->sA, a.sK = p->sK, a.dA = p->dA, a.dK = p->dK;
    a.R = (uint32_t)p->R, a.TA = (uint32_t)p->TA, a.TB = (uint32_t)p->TB;
    a.divR = fd(p->R), a.divTA = fd(p->TA), a.divTB = fd(p->TB);
    int64_t ta = blocks_of(p->nA, p->TA), tk = blocks_of(p->nK, p->TB), blocks = ta * tk;
    a.tilesA = fd(ta), a.tilesK = fd(tk);
    a.nb = p->nb;
    for (int b = 0; b < FDX_MAX_RANK; b++) {
        a.bn[b] = fd(b < p->nb ? p->bn[b] : 1);
        a.bs[b] = b < p->nb ? p->bs[b] : 0;
        a.bd[b] = b < p->nb ? p->bd[b] : 0;
        if (b < p->nb) blocks *= p->bn[b];
    }
    if (p->kind == FDX_PLAN_TILED && p->packed) return launch_packed<T>(dst, src, p, st);
    if (p->kind == FDX_PLAN_ROWS) {
        rows_kernel<T><<<(unsigned)blocks, THREADS, 0, st>>>((T *)dst, (const T *)src, a);
        FDX_CUDA_CHECK_LAUNCH("rows_kernel");
    } else {
        size_t smem = (size_t)(p->R * p->TA + 1) * (size_t)p->TB * sizeof(T);
        FDX_CHECK(smem <= 48 * 1024, FDX_ERR_INTERNAL, "tile of %zu bytes exceeds 48 KiB", smem);
        tiled_kernel<T><<<(unsigned)blocks, THREADS, smem, st>>>((T *)dst, (const T *)src, a);
        FDX_CUDA_CHECK_LAUNCH("tiled_kernel");
    }
    return FDX_OK;
}

template <int W>
fdx_status launch_diag(void *dst, const void *src, const fdx_diag_plan *p, cudaStream_t st)
{
    typedef typename Word<W>::type T;
    /* diagonalize: tiles over (x, line d); undiagonalize: tiles over (x, y) */
    int64_t tx = blocks_of(p->rx, DW), td = p->undiag ? blocks_of(p->ry, DT) : blocks_of(p->rx + p->ry - 1, DT);
    int64_t blocks = tx * td * p->planes;
    FDX_CHECK(blocks < ((int64_t)1 << 31), FDX_ERR_UNSUPPORTED, "diagonal transform needs %lld tiles, more than 2^31",
              (long long)blocks);
    DiagArgs a{p->rx, p->ry, fd(tx), fd(tx * td), p->diag == FDX_DIAG_MAIN};
    if (p->undiag) undiag_kernel<T><<<(unsigned)blocks, THREADS, 0, st>>>((T *)dst, (const T *)src, a);
    else diag_kernel<T><<<(unsigned)blocks, THREADS, 0, st>>>((T *)dst, (const T *)src, a);
    FDX_CUDA_CHECK_LAUNCH("diag_kernel");
    return FDX_OK;
}

template <int W>
fdx_status launch_box(void *array, void *plain, const fdx_box_plan *p, cudaStream_t st)
{
    typedef typename Word<W>::type T;
    FDX_CHECK(p->count < ((int64_t)1 << 31), FDX_ERR_UNSUPPORTED, "box of %lld elements: at most 2^31 on CUDA",
              (long long)p->count);
    BoxArgs a;
    a.rank = p->map.rank;
    for (int d = 0; d < FDX_MAX_RANK; d++) {
        a.box[d] = fd(d < a.rank ? p->box[d] : 1);
        a.lo[d] = d < a.rank ? p->lo[d] : 0;
        a.stride[d] = d < a.rank ? p->map.stride[d] : 0;
    }
    a.diag = p->map.diag, a.ax = p->map.diag ? p->map.ax : -1, a.ay = p->map.diag ? p->map.ay : -1;
    a.rx = p->map.rx, a.ry = p->map.ry, a.count = p->count;
    unsigned blocks = blocks_of(p->count, THREADS);
    if (p->put) box_kernel<T, true><<<blocks, THREADS, 0, st>>>((T *)array, (T *)plain, a);
    else box_kernel<T, false><<<blocks, THREADS, 0, st>>>((T *)array, (T *)plain, a);
    FDX_CUDA_CHECK_LAUNCH("box_kernel");
    return FDX_OK;
}

} // namespace

/* Runs CALL<W>(...) for the plan's word size. */
#define BY_WORD(word, CALL, ...)                                                                   \
    switch (word) {                                                                                \
    case 1: return CALL<1>(__VA_ARGS__);                                                           \
    case 2: return CALL<2>(__VA_ARGS__);                                                           \
    case 4: return CALL<4>(__VA_ARGS__);                                                           \
    case 8: return CALL<8>(__VA_ARGS__);                                                           \
    case 16: return CALL<16>(__VA_ARGS__);                                                         \
    default: return fdx_fail(FDX_ERR_INTERNAL, "word size %d", word);                             \
    }

extern "C" fdx_status fdx_layout_cuda_perm(void *dst, const void *src, const fdx_perm_plan *p, void *stream)
{
    cudaStream_t st = (cudaStream_t)stream;
    if (p->kind == FDX_PLAN_COPY) {
        if (dst != src) FDX_CUDA_TRY(cudaMemcpyAsync(dst, src, (size_t)p->count * (size_t)p->word, cudaMemcpyDeviceToDevice, st));
        return FDX_OK;
    }
    BY_WORD(p->word, launch_perm, dst, src, p, st)
}

extern "C" fdx_status fdx_layout_cuda_diag(void *dst, const void *src, const fdx_diag_plan *p, void *stream)
{
    BY_WORD(p->word, launch_diag, dst, src, p, (cudaStream_t)stream)
}

extern "C" fdx_status fdx_layout_cuda_box(void *array, void *plain, const fdx_box_plan *p, void *stream)
{
    BY_WORD(p->word, launch_box, array, plain, p, (cudaStream_t)stream)
}
