/* fdx_layout_cuda: the transform kernels on CUDA, one template per kernel over
   the moved word type (1, 2, 4, 8, 16 bytes): tiles through shared memory
   (transposes and kept-row copies), in-place square transposes,
   parallelogram-tiled diagonalization, and box gathers/scatters through the
   index function. */
#include "backends/cuda/fdx_cuda.h"
#include "core/fdx_knob.h"
#include "layout/fdx_layout_index.h"
#include "layout/fdx_layout_plan.h"

#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>

namespace {

constexpr int THREADS = 256;
/* Gather table entries at most (1 KB): n0 * 16 / sizeof(T), n0 the dst run's
   first axis.  H100, session 10, same call: the table lifted the cases
   with n0 * E <= 208 entries (rt1-004 0.29 -> 0.59, rt1-149 0.30 -> 0.61,
   rt1-128 0.64 -> 0.67) and gave nothing or lost from 524 up (rt1-064
   0.57 -> 0.54-0.56, rt1-007 0.70 -> 0.69-0.71, rt1-147 2512 entries 0.34
   -> 0.28: its fill, 10 divisions a thread, outweighs the words' few
   carries when n0 >= E). */
constexpr uint64_t GATHER_TAB_MAX = 256;
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

unsigned blocks_of(int64_t n, int64_t per) { return (unsigned)((n + per - 1) / per); }

__device__ __forceinline__ uint32_t qdiv(uint32_t n, const FastDiv &f) { return (__umulhi(n, f.mul) + n) >> f.shift; }

/* The tile kernel (TILED and ROWS plans): a tile is te[a] indices of every
   merged src axis a (the 2D tile R x TA x TB, or a packed tile over several
   axes, see fdx_perm_plan), described here by its tile axes (te > 1) in src order
   (the read side) and in dst order (the write side), plus every merged axis
   for the tile origins.  At most two axes are cut (partial tiles at their
   ends); rc/wc give their positions in each order. */
struct TileSpec {
    uint32_t W, words;               /* words per tile, buffer words (with the padding) */
    FastDiv pad;                     /* one padding word per pad.d buffer words */
    int nt;                          /* tile axes */
    FastDiv rte[FDX_MAX_RANK];       /* read order: extents */
    int64_t rss[FDX_MAX_RANK];       /* read order: src strides */
    FastDiv wte[FDX_MAX_RANK];       /* write order: extents */
    int64_t wds[FDX_MAX_RANK];       /* write order: dst strides */
    uint32_t wlin[FDX_MAX_RANK];     /* write order: buffer (src-linear) strides */
    int rc[2], wc[2];                /* cut axes' positions in each order, -1: none */
    int rank;                        /* every merged axis, for the tile origins: */
    FastDiv tiles[FDX_MAX_RANK];     /*   tiles along the axis */
    uint32_t te[FDX_MAX_RANK];       /*   tile extent */
    int64_t n[FDX_MAX_RANK], ss[FDX_MAX_RANK], ds[FDX_MAX_RANK];
    int oc[2];                       /*   the cut axes, -1: none */
    /* Sector-skewed 2D tile (plan->skew, see skew_read / skew_write): */
    uint32_t sw;                     /*   words per 32-byte sector, 0: no skew */
    uint32_t rw;                     /*   read slots TA * (TB + sw - 1) (W without skew) */
    int kq;                          /*   the merged axis K (dst-contiguous), -1: none */
    /* Walked 2D tiles (plan->walk, see Walk): pe = the buffer pitch of the
       second read axis (its extent, plus 1 when padded). */
    int walk;
    uint32_t pe;
};

/* A tile's origin: src and dst offsets, valid extents along the cut axes,
   and for a skewed tile K's origin k0 and the dst word address of the
   origin (its residue mod sw is all that is used). */
struct Origin {
    int64_t sb, db, k0;
    uint32_t v0, v1;
    uint64_t dword;
};

/* The host pass of nvcc compiles the __host__ __device__ helpers below too
   (the index math can be emulated on a machine without a GPU), and the host
   compiler warns about #pragma unroll. */
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

/* Slot t of a tile in one order: its offset along that side, its
   src-linear position (the buffer's order; lin = NULL: t itself, the read
   order) and whether it lies inside the tile's valid extents v0, v1 along
   the cut axes. */
__host__ __device__ __forceinline__ bool tile_slot(uint32_t t, int nt, const FastDiv *te, const int64_t *stride,
                                                   const uint32_t *lin_stride, const int *cut, uint32_t v0,
                                                   uint32_t v1, int64_t &off, uint32_t &lin)
{
    uint32_t rest = t, c0 = 0, c1 = 0;
    off = 0;
    lin = lin_stride ? 0 : t;
    DEVICE_UNROLL
    for (int q = 0; q < FDX_MAX_RANK; q++) {
        if (q >= nt) break;
        uint32_t d = hqdiv(rest, te[q]), c = rest - d * te[q].d;
        rest = d;
        off += (int64_t)c * stride[q];
        if (lin_stride) lin += c * lin_stride[q];
        if (q == cut[0]) c0 = c;
        if (q == cut[1]) c1 = c;
    }
    return c0 < v0 && c1 < v1;
}

/* Tile tl's origin (k0 and dword only for skewed tiles: the plain path's
   code stays as it was measured). */
template <bool SKEW>
__host__ __device__ __forceinline__ Origin tile_origin(const TileSpec &a, uint32_t tl, uint64_t dst_word)
{
    uint32_t rest = tl;
    Origin o = {0, 0, 0, 1, 1, 0};
    DEVICE_UNROLL
    for (int q = 0; q < FDX_MAX_RANK; q++) {
        if (q >= a.rank) break;
        uint32_t d = hqdiv(rest, a.tiles[q]), c = rest - d * a.tiles[q].d;
        rest = d;
        int64_t k = (int64_t)c * a.te[q];
        o.sb += k * a.ss[q];
        o.db += k * a.ds[q];
        /* n - k < 0 only on a skewed K's extra tile, which ignores v */
        uint32_t v = (uint32_t)(a.n[q] - k < (int64_t)a.te[q] ? a.n[q] - k : (int64_t)a.te[q]);
        if (q == a.oc[0]) o.v0 = v;
        if (q == a.oc[1]) o.v1 = v;
        if (SKEW && q == a.kq) o.k0 = k;
    }
    if (SKEW) o.dword = dst_word + (uint64_t)o.db;
    return o;
}

__host__ __device__ __forceinline__ uint32_t padded(uint32_t lin, const TileSpec &a) { return lin + hqdiv(lin, a.pad); }

/* Sector-skewed 2D tiles (plan->skew = sw).  The 2D transposes whose dst
   rows start off the 32-byte sectors (random-01/04/05/10/11/14) wrote every
   64-word run as two partial sectors shared with the neighbouring tile:
   0.83-0.88 of copy, skewed 0.917-0.922 (H100, f64, 2026-11-22, round 4).
   Row cA of a skewed tile holds k in [k0 - s, k0 - s + TB), s = the
   misalignment (in words, mod sw) of that row's dst address at k0, so every row run
   starts on a sector; TB is a multiple of sw, so neighbouring tiles of a row
   meet exactly, and one extra tile along K takes the rows' last words.  The
   planner asks for it only with R = 1, tile axes A (src stride 1) and K
   (dst stride 1), K cut: read order (A, K), write order (K, A), buffer
   position cA + c * TA (c = k - k0 + s).  The read side walks the window
   k in [k0 - sw + 1, k0 + TB) and keeps the words of each row's range. */
__host__ __device__ __forceinline__ uint32_t skew_of(const TileSpec &a, const Origin &o, uint32_t cA)
{
    return (uint32_t)((o.dword + (uint64_t)((int64_t)cA * a.wds[1])) & (a.sw - 1)); /* wds[1]: A's dst stride */
}

/* In the skewed path the cut axes are A (oc[0], when cut) and K (oc[1]). */
__host__ __device__ __forceinline__ uint32_t skew_rows(const TileSpec &a, const Origin &o)
{
    return a.oc[0] >= 0 ? o.v0 : a.rte[0].d;
}

/* Read slot t of a skewed tile: its src offset (from sb) and buffer position. */
__host__ __device__ __forceinline__ bool skew_read(const TileSpec &a, const Origin &o, uint32_t t, int64_t &off,
                                                   uint32_t &pos)
{
    const uint32_t TA = a.rte[0].d, TB = a.wte[0].d, w = hqdiv(t, a.rte[0]), cA = t - w * TA;
    const int64_t dk = (int64_t)w - (int64_t)(a.sw - 1); /* k - k0 */
    const int64_t c = dk + skew_of(a, o, cA), k = o.k0 + dk;
    off = (int64_t)cA + dk * a.rss[1];
    pos = cA + (uint32_t)c * TA;
    return cA < skew_rows(a, o) && c >= 0 && c < (int64_t)TB && k >= 0 && k < a.n[a.kq];
}

/* Write slot t of a skewed tile: its dst offset (from db) and buffer position. */
__host__ __device__ __forceinline__ bool skew_write(const TileSpec &a, const Origin &o, uint32_t t, int64_t &off,
                                                    uint32_t &pos)
{
    const uint32_t TB = a.wte[0].d, cA = hqdiv(t, a.wte[0]), c = t - cA * TB;
    const int64_t dk = (int64_t)c - skew_of(a, o, cA), k = o.k0 + dk; /* dk = k - k0 */
    off = (int64_t)cA * a.wds[1] + dk;
    pos = cA + c * a.rte[0].d;
    return cA < skew_rows(a, o) && k >= 0 && k < a.n[a.kq];
}

/* Slot t of a tile on the read (src) or write (dst) side: the offset from
   the origin's sb or db, and the slot's position in the padded buffer. */
template <bool SKEW>
__host__ __device__ __forceinline__ bool read_slot(const TileSpec &a, const Origin &o, uint32_t t, int64_t &off,
                                                   uint32_t &pos)
{
    uint32_t lin;
    bool in = SKEW ? skew_read(a, o, t, off, lin) : tile_slot(t, a.nt, a.rte, a.rss, nullptr, a.rc, o.v0, o.v1, off, lin);
    if (in) pos = padded(lin, a); /* only then, as the plain kernel always did */
    return in;
}
template <bool SKEW>
__host__ __device__ __forceinline__ bool write_slot(const TileSpec &a, const Origin &o, uint32_t t, int64_t &off,
                                                    uint32_t &pos)
{
    uint32_t lin;
    bool in = SKEW ? skew_write(a, o, t, off, lin) : tile_slot(t, a.nt, a.wte, a.wds, a.wlin, a.wc, o.v0, o.v1, off, lin);
    if (in) pos = padded(lin, a); /* only then, as the plain kernel always did */
    return in;
}

/* Walked 2D tiles (TileSpec::walk; FDX_LAYOUT_TILE_WALK=1, the planner's
   plan->walk): a tile of two axes (nt = 2) read in order (A, K) and written
   in order (K, A), A the buffer's fastest axis (the plain 2D transpose tile
   and the sector-skewed one).  Thread t's slots t, t + THREADS, ... are
   stepped by adds: (c0, c1) += (THREADS mod e0, THREADS / e0) with one
   carry, the offset likewise, where tile_slot divides every slot index by
   each extent (two fast divisions, their remainders, 64-bit products and
   the padding's division a slot).  Why: the small 8- and 16-byte
   transposes sit in L2 between repetitions (a 12 MiB array and its result
   fit in the H100's 50 MB), where the tile kernel's instructions a word
   count: rt1-187 (761 x 2048, 8 bytes) 16.6 us against LibreTT's 12.4
   (H100, s11i).  Coordinates along the side's first and second tile axes,
   the offset c0 * s0 + c1 * s1 (s0, s1 the side's strides). */
struct Walk {
    uint32_t c0, c1, e0, d0, d1;
    int64_t off, step, carry;
};

__host__ __device__ __forceinline__ Walk walk_start(uint32_t t, const FastDiv &e0, const int64_t *s)
{
    Walk w;
    w.c1 = hqdiv(t, e0), w.c0 = t - w.c1 * e0.d, w.e0 = e0.d;
    w.d1 = hqdiv(THREADS, e0), w.d0 = THREADS - w.d1 * e0.d;
    w.off = (int64_t)w.c0 * s[0] + (int64_t)w.c1 * s[1];
    w.step = (int64_t)w.d0 * s[0] + (int64_t)w.d1 * s[1];
    w.carry = s[1] - (int64_t)e0.d * s[0];
    return w;
}

__host__ __device__ __forceinline__ void walk_next(Walk &w)
{
    w.c0 += w.d0, w.c1 += w.d1, w.off += w.step;
    if (w.c0 >= w.e0) w.c0 -= w.e0, w.c1++, w.off += w.carry;
}

/* The cut check of tile_slot on a walked slot: cut[i] is the position (0,
   1) of the axis whose valid extent is v_i, -1: none. */
__host__ __device__ __forceinline__ bool walk_in(const Walk &w, const int *cut, uint32_t v0, uint32_t v1)
{
    const uint32_t x0 = cut[0] == 0 ? w.c0 : cut[0] == 1 ? w.c1 : 0, x1 = cut[1] == 0 ? w.c0 : cut[1] == 1 ? w.c1 : 0;
    return x0 < v0 && x1 < v1;
}

/* read_slot / write_slot on a walked slot (the same offsets and positions:
   the host emulation checks both ways against the CPU). */
template <bool SKEW>
__host__ __device__ __forceinline__ bool walk_read(const TileSpec &a, const Origin &o, const Walk &w, int64_t &off,
                                                   uint32_t &pos)
{
    if (!SKEW) {
        off = w.off, pos = w.c0 + w.c1 * a.pe;
        return walk_in(w, a.rc, o.v0, o.v1);
    }
    /* skew_read: cA = c0, window row c1 (k - k0 = c1 - sw + 1), src stride of A 1 */
    const int64_t dk = (int64_t)w.c1 - (int64_t)(a.sw - 1), c = dk + skew_of(a, o, w.c0), k = o.k0 + dk;
    off = w.off - (int64_t)(a.sw - 1) * a.rss[1];
    pos = w.c0 + (uint32_t)c * a.pe;
    return w.c0 < skew_rows(a, o) && c >= 0 && c < (int64_t)a.wte[0].d && k >= 0 && k < a.n[a.kq];
}
template <bool SKEW>
__host__ __device__ __forceinline__ bool write_walk(const TileSpec &a, const Origin &o, const Walk &w, int64_t &off,
                                                    uint32_t &pos)
{
    pos = w.c1 + w.c0 * a.pe; /* c0 along K (buffer pitch pe), c1 along A */
    if (!SKEW) {
        off = w.off;
        return walk_in(w, a.wc, o.v0, o.v1);
    }
    /* skew_write: c = c0, cA = c1, dst stride of K 1 */
    const int64_t s = skew_of(a, o, w.c1), k = o.k0 + (int64_t)w.c0 - s;
    off = w.off - s;
    return w.c1 < skew_rows(a, o) && k >= 0 && k < a.n[a.kq];
}

/* cp.async (sm_80+): global -> shared without registers; 4 and 8 bytes
   through L1 (.ca), 16 bytes around it (.cg). */
template <typename T>
__device__ __forceinline__ void cp_async(T *smem, const T *gmem)
{
    const unsigned s = (unsigned)__cvta_generic_to_shared(smem);
    if constexpr (sizeof(T) < 4) *smem = *gmem; /* no such cp.async: the host takes the register path */
    else if constexpr (sizeof(T) == 16) asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(gmem) : "memory");
    else asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(s), "l"(gmem), "n"((int)sizeof(T)) : "memory");
}
__device__ __forceinline__ void cp_async_wait_all() { asm volatile("cp.async.wait_all;\n" ::: "memory"); }

/* One tile per block: its words read into a buffer in src order (with one
   padding word per pad.d words, pad.d = the src-linear stride of the
   dst-fastest tile axis when even, so the write side reads it without bank
   conflicts), then written in dst order.  ASYNC (4-, 8- and 16-byte words):
   the reads go to shared memory by cp.async, without registers, so a
   thread has all its words in flight; otherwise through registers (EPT a
   thread).  H100, 2026-11-22, named transposes: cp.async 0.94-0.99 of
   copy, registers (FDX_LAYOUT_ASYNC=0) 0.94-0.96, the round-2 2D kernel
   0.88-0.90; persistent blocks that read the next tile while writing one
   measured 0.89 (random suite 0.47-0.99, median 0.70: the tiles in flight
   drift apart), so each block moves one tile. */
template <typename T, bool ASYNC, bool SKEW, bool WALK>
__global__ void __launch_bounds__(THREADS) tile_kernel(T *__restrict__ dst, const T *__restrict__ src, TileSpec a)
{
    extern __shared__ __align__(16) unsigned char smem_raw[];
    T *buf = reinterpret_cast<T *>(smem_raw);
    int64_t off;
    uint32_t pos;
    const Origin o = tile_origin<SKEW>(a, blockIdx.x, (uint64_t)(uintptr_t)dst / sizeof(T));
    const T *s = src + o.sb;
    if (WALK) { /* the host's choice: cp.async, a walked 2D tile (see Walk) */
        Walk w = walk_start(threadIdx.x, a.rte[0], a.rss);
#pragma unroll 4
        for (uint32_t t = threadIdx.x; t < a.rw; t += THREADS, walk_next(w))
            if (walk_read<SKEW>(a, o, w, off, pos)) cp_async(buf + pos, s + off);
        cp_async_wait_all();
        __syncthreads();
        T *d = dst + o.db;
        w = walk_start(threadIdx.x, a.wte[0], a.wds);
#pragma unroll 4
        for (uint32_t t = threadIdx.x; t < a.W; t += THREADS, walk_next(w))
            if (write_walk<SKEW>(a, o, w, off, pos)) d[off] = buf[pos];
        return;
    }
    if (ASYNC) {
#pragma unroll 4
        for (uint32_t t = threadIdx.x; t < a.rw; t += THREADS)
            if (read_slot<SKEW>(a, o, t, off, pos)) cp_async(buf + pos, s + off);
        cp_async_wait_all();
    } else { /* never skewed (the host's choice): rw = W <= THREADS * EPT, pos = padded(t) */
        T v[EPT];
        uint32_t mask = 0;
#pragma unroll
        for (int k = 0; k < EPT; k++) {
            const uint32_t t = threadIdx.x + k * THREADS;
            if (t < a.rw && read_slot<false>(a, o, t, off, pos)) {
                v[k] = s[off];
                mask |= 1u << k;
            }
        }
#pragma unroll
        for (int k = 0; k < EPT; k++)
            if (mask >> k & 1) buf[padded(threadIdx.x + k * THREADS, a)] = v[k];
    }
    __syncthreads();
    T *d = dst + o.db;
#pragma unroll 4
    for (uint32_t t = threadIdx.x; t < a.W; t += THREADS)
        if (write_slot<SKEW>(a, o, t, off, pos)) d[off] = buf[pos];
}

/* The kernel view of the last plan launched, one per kernel kind and word
   type (and thread): a call with the same plan bytes and src (the vector
   and sub-word views hold src's bounds) takes it instead of building it
   again.  Why: each view is 10-30 fast-division constants, a few hundred ns
   of host time a call, and a small array's transform takes ~10 us,
   launch included (the plan itself comes from the plan cache). */
template <typename Spec> struct SpecMemo {
    fdx_perm_plan plan;
    const void *src;
    Spec spec;
    int64_t ntiles;
    size_t smem;
    bool ok;
};
template <typename Spec> bool memo_hit(const SpecMemo<Spec> &m, const fdx_perm_plan *p, const void *src)
{
    return m.ok && m.src == src && memcmp(&m.plan, p, sizeof *p) == 0;
}
template <typename Spec>
void memo_keep(SpecMemo<Spec> &m, const fdx_perm_plan *p, const void *src, const Spec &spec, int64_t ntiles, size_t smem)
{
    m.plan = *p, m.src = src, m.spec = spec, m.ntiles = ntiles, m.smem = smem, m.ok = true;
}

/* The vector tiles and the 16-byte access helpers the sub-word gather path shares. */
#include "layout/fdx_layout_cuda_vec.cuh"

/* Sub-word tiles (plan->subword = AW, the access word in bytes; the
   planner's choose_subword says when): elements T narrower than AW (1, 2, 4
   bytes; 8 when a measurement asks for 16-byte words).  Both sides move
   aligned AW-byte words: the tile kernel moves one element per access, and
   its index math per access made small elements instruction-bound (H100,
   2026-11-23, random suite: 4-byte elements 0.585 of a same-size copy
   where 8-byte ones reach 0.82-0.95; 4-byte sub-word words lifted 1-byte
   elements only to 0.383).
   The tile is the plan's te[] over the merged axes (a 2D tile A x K, or a
   packed tile grown over several axes where the fastest axes are short:
   3 x 5 x 4 -> one run of 60).  In src order its leading axes form runs
   contiguous in src (the first rq tile axes: all but the last whole), the
   other tile axes number the runs ("rows"); in dst order likewise runs
   contiguous in dst (the first wq axes).  The buffer holds the tile in src
   order, run r at r * pitch (pitch = run | 1: odd, so the write side's
   lanes, a word apart, spread over the banks).  The read side takes, for
   each src run, the aligned words overlapping it (runs start at any
   element: prime extents) and puts their elements in the run's buffer row;
   the write side builds a dst word from its elements' buffer positions
   (their coordinates along the dst run's axes, stepped with carries) and
   stores it.  A dst word only partly inside its run (the run's ends) is
   stored element by element, so nothing outside the tile is written; a src
   word only partly inside the array (its first or last word) is read
   element by element.  The 2D tile (one axis a run on each side) and kept
   rows (axis 0 the run on both sides) are cases of the same code. */
struct SubSide {
    int q;                              /* run axes: the first q tile axes of this side's order */
    uint32_t pre;                       /* elements of a run before its last axis: run = pre * te[q - 1] */
    int lc;                             /* which cut (0, 1) is the run's last axis, -1: none */
    uint32_t rows;                      /* runs a tile */
    FastDiv words;                      /* AW-words per run (with a misaligned start) */
    int rc[2];                          /* the cuts' positions among the row axes, -1: none */
};
struct SubSpec {
    TileSpec t;                         /* origins (tile_origin<false>), both orders, the cut axes */
    SubSide r, w;                       /* read (src) side, write (dst) side */
    uint32_t run, pitch;                /* src run (elements), buffer row pitch (elements) */
    FastDiv slots;                      /* gather path: 16-byte buffer slots a src run */
    uint32_t bst[FDX_MAX_RANK];         /* write order: buffer stride of each tile axis */
    uint64_t src_lo, src_hi;            /* the src array's bytes [lo, hi) */
    uint32_t tabn, tab_at;              /* gather table: entries (0: none), byte offset after the buffer */
};

/* The access word of AW bytes and its elements. */
template <int AW> struct AccessWord;
template <> struct AccessWord<4> { typedef unsigned int type; };
template <> struct AccessWord<8> { typedef unsigned long long type; };
template <> struct AccessWord<16> { typedef uint4 type; };
template <typename T, int AW> union Pack {
    typename AccessWord<AW>::type v;
    T e[AW / sizeof(T)];
};

template <int AW>
__host__ __device__ __forceinline__ typename AccessWord<AW>::type sub_load(uint64_t addr)
{
    typedef typename AccessWord<AW>::type V;
#ifdef __CUDA_ARCH__
    return __ldg(reinterpret_cast<const V *>(addr));
#else
    V v;
    memcpy(&v, (const void *)(uintptr_t)addr, AW);
    return v;
#endif
}

template <int AW>
__host__ __device__ __forceinline__ void sub_store(uint64_t addr, typename AccessWord<AW>::type v)
{
#ifdef __CUDA_ARCH__
    *reinterpret_cast<typename AccessWord<AW>::type *>(addr) = v;
#else
    memcpy((void *)(uintptr_t)addr, &v, AW);
#endif
}

/* Run `row` of one side: its offset (src or dst) from the tile origin, its
   buffer base (lin: the write side's buffer strides; NULL: none) and its
   valid length; false when the row lies outside the tile's valid extents. */
__host__ __device__ __forceinline__ bool sub_row(const SubSide &s, int nt, const FastDiv *te, const int64_t *stride,
                                                 const uint32_t *lin, const Origin &o, uint32_t row, int64_t &off,
                                                 uint32_t &base, uint32_t &len)
{
    if (!tile_slot(row, nt - s.q, te + s.q, stride + s.q, lin ? lin + s.q : nullptr, s.rc, o.v0, o.v1, off, base))
        return false;
    len = s.pre * (s.lc < 0 ? te[s.q - 1].d : s.lc == 0 ? o.v0 : o.v1);
    return true;
}

/* The gather path (plan->gather, AW = 16; see choose_subword): the
   sub-word kernel's read side moved every element alone into the buffer
   (an 8-bit shared store a byte) and its write side stored the ends of
   each dst run element by element: ~45 instructions a byte (H100 profile
   of rt1-155, session 8).  Here the read side copies each src run into its
   buffer row whole, as 16-byte slots realigned to the run's first byte
   (two aligned loads and funnel shifts where the run starts off 16 bytes:
   vec_shift), no per-element work; the buffer row pitch is a multiple of
   16 bytes, its 4-byte words XOR-swizzled within each 128 bytes (word w at
   w ^ ((w >> 5) & mask)) so that the write side's lanes, whose elements
   lie a power of two of words apart when a run is a multiple of 128 bytes
   (rt1-171: 64 bytes), hit distinct banks.  The write side gathers each
   dst word's elements as before (one shared load of sizeof(T) an element,
   carries along the run's axes) and stores a run's partial end words as
   aligned pieces (vec_store16, at most four). */
template <typename T, int G> __host__ __device__ __forceinline__ uint32_t gather_word(uint32_t w)
{
    constexpr uint32_t keep = sizeof(T) >= 8 ? (uint32_t)sizeof(T) / 4 - 1 : 0; /* an element's words stay together */
    return G >= 2 ? w : w ^ ((w >> 5) & 31u & ~keep); /* G = 2, 3: rows of an odd number of words or slots */
}
template <typename T, int G> __host__ __device__ __forceinline__ T gather_load(const T *buf, uint32_t pos)
{
    if constexpr (G >= 2) return buf[pos];
    const uint32_t b = pos * (uint32_t)sizeof(T);
    return *reinterpret_cast<const T *>(reinterpret_cast<const unsigned char *>(buf) + (gather_word<T, G>(b >> 2) << 2) +
                                        (b & 3));
}

/* The gather path's offset table (plan->gather = 2, session 10): the write
   side's per-element carries (a compare, a branch and the adds of the run's
   axes for every element, ~12-15 instructions a byte with the swizzled load
   for 1-byte elements: the narrow and short-unit cases' floor, 0.31-0.41 of
   a same-size copy) replaced by one table row a word.  The dst run's first
   two axes (extents n0, n1, buffer strides bst[0], bst[1]) repeat with period
   n0: element c1 * n0 + c0 + e of the run lies at buffer position
   p0 + tab[c0][e], p0 the position of (c1, c0 = 0), tab[c0][e] =
   ((c0 + e) / n0) * bst[1] + ((c0 + e) % n0) * bst[0], as long as the word's
   elements stay within axis 1 (c1 + (c0 + E - 1) / n0 < n1; other words,
   and a run's partial end words, take the carries).  Rows of E = 16 /
   sizeof(T) entries: E / 4 16-byte loads a word (one 8-byte load for
   8-byte elements, which take the sub-word path only when asked:
   FDX_LAYOUT_SUBWORD=16).  Filled by the block before
   the read side (the barrier between the phases covers it). */
template <typename T>
__host__ __device__ __forceinline__ void gather_tab_fill(const SubSpec &a, uint32_t *tab, uint32_t t)
{
    constexpr uint32_t E = 16 / sizeof(T);
    const uint32_t c = t / E + t % E, d = hqdiv(c, a.t.wte[0]);
    tab[t] = d * (a.w.q > 1 ? a.bst[1] : 0) + (c - d * a.t.wte[0].d) * a.bst[0];
}

/* Gather-path read item i of a tile: src run r = i / slots, its 16-byte
   slot j (bytes [16 j, 16 j + 16) of the run, realigned) into buffer row
   r.  CHECK: got[] marks the run's elements the slot holds, once. */
template <typename T, int G, bool CHECK>
__host__ __device__ __forceinline__ bool gather_read(const SubSpec &a, const Origin &o, const T *src, uint32_t i,
                                                     T *buf, unsigned char *got)
{
    const uint32_t r = hqdiv(i, a.slots), j = i - r * a.slots.d;
    int64_t off;
    uint32_t base, len;
    if (r >= a.r.rows || !sub_row(a.r, a.t.nt, a.t.rte, a.t.rss, nullptr, o, r, off, base, len)) return true;
    const uint32_t bytes = len * (uint32_t)sizeof(T), b0 = 16 * j;
    if (b0 >= bytes) return true;
    const uint64_t row = (uint64_t)(uintptr_t)(src + o.sb + off);
    const uint32_t res = (uint32_t)(row & 15), need = bytes - b0 < 16 ? bytes - b0 : 16;
    const uint64_t w = row - res + b0;
    uint32_t u[8] = {0, 0, 0, 0, 0, 0, 0, 0}, v[4];
    vec_load16(w, a.src_lo, a.src_hi, u);
    if (res) {
        if (res + need > 16) vec_load16(w + 16, a.src_lo, a.src_hi, u + 4);
        vec_shift(u, res, v);
    } else v[0] = u[0], v[1] = u[1], v[2] = u[2], v[3] = u[3];
    const uint32_t word = (r * a.pitch * (uint32_t)sizeof(T) + b0) >> 2;
    uint32_t *bw = reinterpret_cast<uint32_t *>(buf);
    if constexpr (G == 3) /* rows of an odd number of 16-byte slots: one aligned 16-byte store */
        *reinterpret_cast<uint4 *>(bw + word) = make_uint4(v[0], v[1], v[2], v[3]);
    else {
        DEVICE_UNROLL
        for (uint32_t c = 0; c < 4; c++) bw[gather_word<T, G>(word + c)] = v[c];
    }
    if (CHECK)
        for (uint32_t x = b0 / (uint32_t)sizeof(T); x < (b0 + need) / (uint32_t)sizeof(T); x++) {
            if (got[r * a.pitch + x]) return false;
            got[r * a.pitch + x] = 1;
        }
    return true;
}

/* Read item i of a tile (src run r = i / words, its word j): the word's
   elements that lie in the run go to buffer row r.  CHECK (the host
   emulation): got[] marks every buffer element written, once. */
template <typename T, int AW, bool CHECK>
__host__ __device__ __forceinline__ bool subword_read(const SubSpec &a, const Origin &o, const T *src, uint32_t i,
                                                      T *buf, unsigned char *got)
{
    constexpr uint32_t E = AW / sizeof(T);
    const uint32_t r = hqdiv(i, a.r.words), j = i - r * a.r.words.d;
    int64_t off;
    uint32_t base, len;
    if (r >= a.r.rows || !sub_row(a.r, a.t.nt, a.t.rte, a.t.rss, nullptr, o, r, off, base, len)) return true;
    const uint64_t row = (uint64_t)(uintptr_t)(src + o.sb + off), end = row + (uint64_t)len * sizeof(T);
    const uint64_t w = (row & ~(uint64_t)(AW - 1)) + (uint64_t)AW * j;
    if (w >= end) return true;
    const bool whole = w >= a.src_lo && w + AW <= a.src_hi;
    Pack<T, AW> u;
    if (whole) u.v = sub_load<AW>(w);
    if (whole && w >= row && w + AW <= end) { /* the word inside the run: one offset for its elements */
        const uint32_t pos = r * a.pitch + (uint32_t)((w - row) / sizeof(T));
        DEVICE_UNROLL
        for (uint32_t e = 0; e < E; e++) {
            if (CHECK) {
                if (got[pos + e]) return false;
                got[pos + e] = 1;
            }
            buf[pos + e] = u.e[e];
        }
        return true;
    }
    DEVICE_UNROLL
    for (uint32_t e = 0; e < E; e++) {
        const uint64_t x = w + e * sizeof(T);
        if (x < row || x >= end) continue;
        const uint32_t pos = r * a.pitch + (uint32_t)((x - row) / sizeof(T));
        const T val = whole ? u.e[e] : *(const T *)(uintptr_t)x;
        if (CHECK) {
            if (got[pos]) return false;
            got[pos] = 1;
        }
        buf[pos] = val;
    }
    return true;
}

/* Write item i of a tile: dst run r = i / words, its word j.  The word's
   elements x0, x0 + 1, .. of the run: their coordinates along the run's
   axes (dst order) stepped with carries, buffer positions through bst. */
template <typename T, int AW, int G, bool CHECK>
__host__ __device__ __forceinline__ bool subword_write(const SubSpec &a, const Origin &o, T *dst, uint32_t i,
                                                       const T *buf, const unsigned char *got, const VecCount *count)
{
    constexpr uint32_t E = AW / sizeof(T);
    const uint32_t r = hqdiv(i, a.w.words), j = i - r * a.w.words.d;
    int64_t off;
    uint32_t base, len;
    if (r >= a.w.rows || !sub_row(a.w, a.t.nt, a.t.wte, a.t.wds, a.bst, o, r, off, base, len)) return true;
    const uint64_t row = (uint64_t)(uintptr_t)(dst + o.db + off), end = row + (uint64_t)len * sizeof(T);
    const uint64_t w = (row & ~(uint64_t)(AW - 1)) + (uint64_t)AW * j;
    if (w >= end) return true;
    /* the first element of the word inside the run, and its coordinates */
    const uint32_t x0 = w >= row ? (uint32_t)((w - row) / sizeof(T)) : 0;
    uint32_t c[FDX_MAX_RANK] = {0}, pos = base, rest = x0;
    DEVICE_UNROLL
    for (int q = 0; q < FDX_MAX_RANK; q++) {
        if (q >= a.w.q) break;
        const uint32_t d = hqdiv(rest, a.t.wte[q]);
        c[q] = rest - d * a.t.wte[q].d;
        rest = d;
        pos += c[q] * a.bst[q];
    }
    Pack<T, AW> u;
    bool full = w >= row && w + AW <= end;
    bool tab = false; /* the word through the gather table (gather_tab_fill) */
    if constexpr (G && sizeof(T) <= 8) {
        tab = a.tabn && full && (a.w.q < 2 || c[1] + hqdiv(c[0] + E - 1, a.t.wte[0]) < a.t.wte[1].d);
        const uint32_t p0 = pos - c[0] * a.bst[0];
        const uint32_t *row = reinterpret_cast<const uint32_t *>(reinterpret_cast<const unsigned char *>(buf) + a.tab_at) +
                              c[0] * E;
        if (tab) {
            uint32_t t[E];
            if constexpr (E >= 4) {
                DEVICE_UNROLL
                for (uint32_t k = 0; k < E / 4; k++) {
                    const uint4 t4 = reinterpret_cast<const uint4 *>(row)[k];
                    t[4 * k] = t4.x, t[4 * k + 1] = t4.y, t[4 * k + 2] = t4.z, t[4 * k + 3] = t4.w;
                }
            } else {
                const uint2 t2 = *reinterpret_cast<const uint2 *>(row); /* 8-byte elements: E = 2 */
                t[0] = t2.x, t[1] = t2.y;
            }
            DEVICE_UNROLL
            for (uint32_t m = 0; m < E; m++) {
                if (CHECK && !got[p0 + t[m]]) return false;
                u.e[m] = gather_load<T, G>(buf, p0 + t[m]);
            }
        }
    }
    if (!tab) {
        DEVICE_UNROLL
        for (uint32_t e = 0; e < E; e++) {
            const uint64_t x = w + e * sizeof(T);
            if (x < row || x >= end) continue; /* outside the run: before its first element or past its last */
            if (CHECK && !got[pos]) return false;
            if (G) u.e[e] = gather_load<T, G>(buf, pos);
            else if (full) u.e[e] = buf[pos];
            else *(T *)(uintptr_t)x = buf[pos];
            /* the next element: step the run's axes */
            pos += a.bst[0];
            if (++c[0] == a.t.wte[0].d) {
                c[0] = 0;
                pos -= a.t.wte[0].d * a.bst[0];
                DEVICE_UNROLL
                for (int q = 1; q < FDX_MAX_RANK; q++) {
                    if (q >= a.w.q) break;
                    pos += a.bst[q];
                    if (++c[q] < a.t.wte[q].d) break;
                    c[q] = 0;
                    pos -= a.t.wte[q].d * a.bst[q];
                }
            }
        }
    }
    if constexpr (G) { /* AW = 16: the word whole, or its bytes inside the run as aligned pieces */
        const uint32_t v[4] = {u.v.x, u.v.y, u.v.z, u.v.w};
        const int lo = w >= row ? 0 : (int)(row - w), hi = w + AW <= end ? AW : (int)(end - w);
        vec_store16(w, v, lo, hi);
#ifndef __CUDA_ARCH__
        if (CHECK && !vec_count(*count, w, lo, hi)) return false;
#endif
    } else if (full) sub_store<AW>(w, u.v);
    return true;
}

template <typename T, int AW, int G>
__global__ void __launch_bounds__(THREADS) subword_kernel(T *__restrict__ dst, const T *__restrict__ src, SubSpec a)
{
    extern __shared__ __align__(16) unsigned char smem_raw[];
    T *buf = reinterpret_cast<T *>(smem_raw);
    const Origin o = tile_origin<false>(a.t, blockIdx.x, 0);
    const uint32_t nr = a.r.rows * (G ? a.slots.d : a.r.words.d), nw = a.w.rows * a.w.words.d;
    if (G)
        for (uint32_t t = threadIdx.x; t < a.tabn; t += THREADS)
            gather_tab_fill<T>(a, reinterpret_cast<uint32_t *>(smem_raw + a.tab_at), t);
#pragma unroll 4
    for (uint32_t i = threadIdx.x; i < nr; i += THREADS) {
        if (G) gather_read<T, G, false>(a, o, src, i, buf, nullptr);
        else subword_read<T, AW, false>(a, o, src, i, buf, nullptr);
    }
    __syncthreads();
#pragma unroll 4
    for (uint32_t i = threadIdx.x; i < nw; i += THREADS) subword_write<T, AW, G, false>(a, o, dst, i, buf, nullptr, nullptr);
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

/* Direct transposes (plan->direct): no tile, index math per dst word. */
#include "layout/fdx_layout_cuda_direct.cuh"


/* The largest tile the tile kernel takes (words); the register path holds EPT a thread. */
constexpr uint32_t MAX_TILE = 4096;

/* The kernel's view of a plan's tile and the tile count; skew_ok: the
   kernel path takes skewed tiles (cp.async; the register path holds
   THREADS * EPT read slots, not the skewed window). */
fdx_status tile_spec(const fdx_perm_plan *p, bool skew_ok, TileSpec *out, int64_t *ntiles)
{
    TileSpec a;
    memset(&a, 0, sizeof a);
    a.rank = p->rank;
    a.kq = -1;
    int64_t lin[FDX_MAX_RANK], acc = 1, tiles_all = 1;
    int rpos[FDX_MAX_RANK], wpos[FDX_MAX_RANK];
    const int skew = skew_ok && p->skew > 1, K = p->s[0];
    for (int q = 0; q < p->rank; q++) {
        /* a skewed K: one more tile for the rows' last words (shifted by up to sw - 1) */
        int64_t tiles = blocks_of(p->n[q] + (skew && q == K ? p->skew - 1 : 0), p->te[q]);
        a.tiles[q] = fd(tiles), a.te[q] = (uint32_t)p->te[q], a.n[q] = p->n[q], a.ss[q] = p->ss[q], a.ds[q] = p->ds[q];
        tiles_all *= tiles;
        lin[q] = acc;
        acc *= p->te[q];
        rpos[q] = -1;
        if (p->te[q] > 1) a.rte[a.nt] = fd(p->te[q]), a.rss[a.nt] = p->ss[q], rpos[q] = a.nt++;
    }
    int nw = 0;
    for (int q = 0; q < p->rank; q++) {
        int ax = p->s[q];
        wpos[ax] = -1;
        if (p->te[ax] > 1) a.wte[nw] = fd(p->te[ax]), a.wds[nw] = p->ds[ax], a.wlin[nw] = (uint32_t)lin[ax], wpos[ax] = nw++;
    }
    for (int i = 0; i < 2; i++) {
        int c = p->cut[i];
        a.oc[i] = c, a.rc[i] = c >= 0 ? rpos[c] : -1, a.wc[i] = c >= 0 ? wpos[c] : -1;
    }
    a.W = a.rw = (uint32_t)acc;
    if (skew) { /* the layout skew_read / skew_write assume (the planner's rule) */
        FDX_CHECK(a.nt == 2 && rpos[0] == 0 && rpos[K] == 1 && wpos[K] == 0 && a.rss[0] == 1 && a.wds[0] == 1 &&
                      a.oc[1] == K && (a.oc[0] == -1 || a.oc[0] == 0) && (p->skew & (p->skew - 1)) == 0 &&
                      p->te[K] % p->skew == 0,
                  FDX_ERR_INTERNAL, "skewed tile: plan of rank %d, %d tile axes, K = %d, TB = %lld, skew %d does not fit",
                  p->rank, a.nt, K, (long long)p->te[K], p->skew);
        a.sw = (uint32_t)p->skew;
        a.kq = K;
        a.rw = (uint32_t)(p->te[0] * (p->te[K] + p->skew - 1));
    }
    /* pad when the dst-fastest tile axis walks the buffer with an even stride >= 4 */
    int64_t P = nw > 0 ? a.wlin[0] : 1;
    a.pad = fd(P >= 4 && P % 2 == 0 ? P : (int64_t)1 << 30);
    a.words = a.W + (a.W - 1) / a.pad.d + 1;
    /* walked tiles: two axes, written (K, A) with A the buffer's fastest
       (the padding, when any, one word a K row: pad.d = TA) */
    a.walk = p->walk && skew_ok && a.nt == 2 && nw == 2 && a.wlin[1] == 1 && a.wlin[0] == a.rte[0].d;
    a.pe = a.rte[0].d + (a.pad.d == a.rte[0].d);
    FDX_CHECK(tiles_all < ((int64_t)1 << 31), FDX_ERR_UNSUPPORTED, "permutation needs %lld tiles, more than 2^31",
              (long long)tiles_all);
    *ntiles = tiles_all;
    *out = a;
    return FDX_OK;
}

/* The tile kernel's path for words of T: cp.async for 4 bytes and more
   (unless FDX_LAYOUT_ASYNC=0), registers otherwise. */
/* FDX_LAYOUT_ASYNC=0 (plan->regs): the register path for every word size (measurements). */
template <typename T> bool async_path(const fdx_perm_plan *p) { return sizeof(T) >= 4 && !p->regs; }


template <typename T>
fdx_status launch_tiles(void *dst, const void *src, const fdx_perm_plan *p, cudaStream_t st)
{
    static thread_local SpecMemo<TileSpec> memo;
    const bool async = async_path<T>(p);
    if (!memo_hit(memo, p, nullptr)) {
        int64_t n;
        TileSpec spec;
        FDX_TRY(tile_spec(p, async, &spec, &n));
        FDX_CHECK(spec.W <= (async ? MAX_TILE : (uint32_t)(THREADS * EPT)), FDX_ERR_INTERNAL,
                  "tile of %u words exceeds the kernel's %u", spec.W, async ? MAX_TILE : (uint32_t)(THREADS * EPT));
        memo_keep(memo, p, nullptr, spec, n, 0);
    }
    const TileSpec &a = memo.spec;
    const int64_t ntiles = memo.ntiles;
    const size_t smem = (size_t)a.words * sizeof(T);
    void (*kernel)(T *, const T *, TileSpec) = !async ? tile_kernel<T, false, false, false>
                                               : a.walk ? (a.sw ? tile_kernel<T, true, true, true> : tile_kernel<T, true, false, true>)
                                               : a.sw   ? tile_kernel<T, true, true, false>
                                                        : tile_kernel<T, true, false, false>;
    if (smem > 48 * 1024) /* 16-byte words, tiles over 3000 words (FDX_LAYOUT_TILE, _TILE_WORDS) */
        FDX_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    kernel<<<(unsigned)ntiles, THREADS, smem, st>>>((T *)dst, (const T *)src, a);
    FDX_CUDA_CHECK_LAUNCH("tile_kernel");
    return FDX_OK;
}

/* One side of a sub-word tile: its tile axes in order ax[0..nt) (src or dst
   order), their strides on that side (str, by merged axis); the run = the
   first q axes while each continues the previous one whole. */
template <int AW>
fdx_status sub_side(const fdx_perm_plan *p, const int *ax, int nt, const int64_t *str, size_t elem, SubSide *s)
{
    FDX_CHECK(nt >= 1 && str[ax[0]] == 1, FDX_ERR_INTERNAL,
              "sub-word tile: the fastest tile axis of a side (%d) is not contiguous there", nt ? ax[0] : -1);
    int q = 1;
    while (q < nt && p->te[ax[q - 1]] == p->n[ax[q - 1]] && str[ax[q]] == str[ax[q - 1]] * p->n[ax[q - 1]]) q++;
    s->q = q;
    s->pre = 1;
    for (int i = 0; i + 1 < q; i++) s->pre *= (uint32_t)p->te[ax[i]];
    const int last = ax[q - 1];
    s->lc = last == p->cut[0] ? 0 : last == p->cut[1] ? 1 : -1;
    s->rows = 1;
    for (int i = q; i < nt; i++) s->rows *= (uint32_t)p->te[ax[i]];
    for (int c = 0; c < 2; c++) {
        s->rc[c] = -1;
        for (int i = q; i < nt; i++)
            if (ax[i] == p->cut[c]) s->rc[c] = i - q;
    }
    s->words = fd(((uint64_t)s->pre * (uint64_t)p->te[last] * elem + AW - 1) / AW + 1);
    return FDX_OK;
}

/* The sub-word kernel's view of a plan (plan->subword = AW: elements
   narrower than the AW-byte access word). */
template <typename T, int AW, int G>
fdx_status subword_spec(const fdx_perm_plan *p, const void *src, SubSpec *out, int64_t *ntiles, size_t *smem)
{
    SubSpec a;
    memset(&a, 0, sizeof a);
    FDX_CHECK(sizeof(T) < AW && p->subword == AW, FDX_ERR_INTERNAL, "sub-word tile: %d-byte words, access word %d",
              p->word, p->subword);
    FDX_TRY(tile_spec(p, false, &a.t, ntiles));
    int rax[FDX_MAX_RANK], wax[FDX_MAX_RANK], nr = 0, nw = 0;
    for (int q = 0; q < p->rank; q++) {
        if (p->te[q] > 1) rax[nr++] = q;
        if (p->te[p->s[q]] > 1) wax[nw++] = p->s[q];
    }
    FDX_TRY(sub_side<AW>(p, rax, nr, p->ss, sizeof(T), &a.r));
    FDX_TRY(sub_side<AW>(p, wax, nw, p->ds, sizeof(T), &a.w));
    a.run = a.r.pre * (uint32_t)p->te[rax[a.r.q - 1]];
    a.pitch = a.run | 1u;
    if (G) { /* rows of whole 16-byte slots */
        const uint32_t slots = (a.run * (uint32_t)sizeof(T) + 15) / 16;
        a.slots = fd(slots);
        a.pitch = slots * 16 / (uint32_t)sizeof(T);
        if (G == 2) /* an odd number of 4-byte words (two for 8-byte elements): no swizzle */
            a.pitch += sizeof(T) <= 4 ? 4 / (uint32_t)sizeof(T) : 1;
        if (G == 3) /* an odd number of 16-byte slots: no swizzle, 16-byte stores (FDX_LAYOUT_GATHER=5) */
            a.pitch = (slots | 1u) * 16 / (uint32_t)sizeof(T);
    }
    /* buffer strides in write order: a src run axis by its place in the
       run, a row axis by rows of pitch */
    for (int i = 0; i < nw; i++) {
        const uint32_t lin = a.t.wlin[i];
        int in_run = 0;
        for (int k = 0; k < a.r.q; k++) in_run |= rax[k] == wax[i];
        a.bst[i] = in_run ? lin : lin / a.run * a.pitch;
    }
    a.src_lo = (uint64_t)(uintptr_t)src, a.src_hi = a.src_lo + (uint64_t)p->count * sizeof(T);
    *smem = (size_t)a.r.rows * a.pitch * sizeof(T);
    if (G) *smem = (*smem + 127) / 128 * 128; /* the swizzle permutes words within 128 bytes (G = 1) */
    /* the gather table (plan->gather = 2): n0 rows of 16 / sizeof(T) entries, n0 the dst run's first axis */
    const uint64_t tabn = (uint64_t)p->te[wax[0]] * (16 / sizeof(T));
    if (G && p->gather >= 2 && sizeof(T) <= 8 && tabn <= GATHER_TAB_MAX && *smem + tabn * 4 <= 48 * 1024) {
        a.tabn = (uint32_t)tabn;
        a.tab_at = (uint32_t)*smem;
        *smem += tabn * 4;
    }
    FDX_CHECK(*smem <= 48 * 1024, FDX_ERR_INTERNAL, "sub-word tile of %u runs of %u: %zu bytes of shared memory",
              a.r.rows, a.run, *smem);
    *out = a;
    return FDX_OK;
}

/* The sub-word kernel run on the host, block after block, every read item
   before any write item: each buffer element written once, every element a
   dst word takes read. */
template <typename T, int AW, int G>
fdx_status emulate_subword(T *dst, const T *src, const SubSpec &a, int64_t ntiles, size_t smem, int64_t count)
{
    const size_t n = smem / sizeof(T);
    T *buf = (T *)calloc(smem, 1); /* zeroed: the gather path also copies the bytes past a run (never read) */
    unsigned char *got = (unsigned char *)malloc(n);
    if (!buf || !got) {
        free(buf);
        free(got);
        return fdx_fail(FDX_ERR_NOMEM, "emulated sub-word tile of %zu bytes", smem);
    }
    VecCount cnt = {NULL, 0, 0};
    fdx_status st = G ? vec_count_open(&cnt, dst, (size_t)count * sizeof(T), "sub-word gather tiles") : FDX_OK;
    const uint32_t nr = a.r.rows * (G ? a.slots.d : a.r.words.d), nw = a.w.rows * a.w.words.d;
    for (uint32_t t = 0; t < a.tabn; t++) gather_tab_fill<T>(a, (uint32_t *)((unsigned char *)buf + a.tab_at), t);
    for (int64_t tl = 0; tl < ntiles && st == FDX_OK; tl++) {
        const Origin o = tile_origin<false>(a.t, (uint32_t)tl, 0);
        memset(got, 0, n);
        for (uint32_t i = 0; i < nr && st == FDX_OK; i++)
            if (!(G ? gather_read<T, G, true>(a, o, src, i, buf, got) : subword_read<T, AW, true>(a, o, src, i, buf, got)))
                st = fdx_fail(FDX_ERR_INTERNAL, "sub-word tile %lld: read item %u writes a buffer element twice",
                              (long long)tl, i);
        for (uint32_t i = 0; i < nw && st == FDX_OK; i++)
            if (!subword_write<T, AW, G, true>(a, o, dst, i, buf, got, &cnt))
                st = fdx_fail(FDX_ERR_INTERNAL, "sub-word tile %lld: write item %u takes an element never read%s",
                              (long long)tl, i, G ? " or stores outside dst" : "");
    }
    if (G && cnt.cnt) st = vec_count_close(&cnt, st, "sub-word gather tiles");
    free(buf);
    free(got);
    return st;
}

/* A sub-word plan with AW-byte words on the device (on_host: emulated, host buffers). */
template <typename T, int AW, int G>
fdx_status run_subword_aw(void *dst, const void *src, const fdx_perm_plan *p, cudaStream_t st, bool on_host)
{
    if constexpr (sizeof(T) >= AW || (G && AW != 16))
        return fdx_fail(FDX_ERR_INTERNAL, "sub-word tile of %d-byte words for %d-byte elements (gather %d)", AW,
                        p->word, (int)G);
    else {
        static thread_local SpecMemo<SubSpec> memo;
        if (on_host || !memo_hit(memo, p, src)) {
            SubSpec a;
            int64_t ntiles;
            size_t smem = 0;
            FDX_TRY((subword_spec<T, AW, G>(p, src, &a, &ntiles, &smem)));
            if (on_host) return emulate_subword<T, AW, G>((T *)dst, (const T *)src, a, ntiles, smem, p->count);
            memo_keep(memo, p, src, a, ntiles, smem);
        }
        subword_kernel<T, AW, G><<<(unsigned)memo.ntiles, THREADS, memo.smem, st>>>((T *)dst, (const T *)src, memo.spec);
        FDX_CUDA_CHECK_LAUNCH("subword_kernel");
        return FDX_OK;
    }
}

/* Shared-memory wavefronts of the gather path's write side (buffer layout
   G: 1 swizzled, 2 rows of an odd number of words), counted on the host
   over the first two warps of tile 0 at three element slots of a dst word:
   for each slot, the 32 lanes' buffer words, a wavefront per distinct word
   in the most loaded bank.  The odd rows spread lanes that read different
   src runs but not lanes a power of two of words apart within one run
   (rt1-147: dst words 16 elements of stride 16 apart, 256 bytes: one
   bank), where the swizzle does.  dst: its alignment is what matters
   (the planner passes an address aligned like the buffers). */
template <typename T, int G>
uint32_t gather_waves(const SubSpec &a, const T *dst)
{
    constexpr uint32_t E = 16 / sizeof(T);
    const uint32_t slot[3] = {0, 1, E / 2 + 1 < E ? E / 2 + 1 : E - 1};
    const Origin o = tile_origin<false>(a.t, 0, 0);
    const uint32_t nw = a.w.rows * a.w.words.d;
    uint32_t waves = 0;
    for (uint32_t w0 = 0; w0 < nw && w0 < 64; w0 += 32)
        for (uint32_t s = 0; s < 3; s++) {
            uint32_t word[32], cnt[32] = {0}, most = 0;
            for (uint32_t i = w0, n = 0; i < w0 + 32 && i < nw; i++) {
                const uint32_t r = hqdiv(i, a.w.words), j = i - r * a.w.words.d;
                int64_t off;
                uint32_t base, len;
                if (r >= a.w.rows || !sub_row(a.w, a.t.nt, a.t.wte, a.t.wds, a.bst, o, r, off, base, len)) continue;
                const uint64_t row = (uint64_t)(uintptr_t)(dst + o.db + off);
                const uint64_t x = (row & ~(uint64_t)15) + 16 * (uint64_t)j + slot[s] * sizeof(T);
                if (x < row || x >= row + (uint64_t)len * sizeof(T)) continue;
                uint32_t rest = (uint32_t)((x - row) / sizeof(T)), pos = base;
                for (int q = 0; q < a.w.q; q++) {
                    const uint32_t d = hqdiv(rest, a.t.wte[q]);
                    pos += (rest - d * a.t.wte[q].d) * a.bst[q];
                    rest = d;
                }
                const uint32_t wd = gather_word<T, G>(pos * (uint32_t)sizeof(T) >> 2);
                bool seen = false;
                for (uint32_t m = 0; m < n && !seen; m++) seen = word[m] == wd;
                if (!seen && ++cnt[wd & 31] > most) most = cnt[wd & 31];
                word[n++] = wd;
            }
            waves += most;
        }
    return waves;
}

/* FDX_LAYOUT_GATHER=4 (the default): where the write table fits
   (GATHER_TAB_MAX), the odd rows (3) unless their write side has more than
   twice the swizzled rows' bank conflicts (gather_waves), then the swizzled
   rows with the table (2); without a table the swizzled rows (1).  H100,
   session 10, same call, the 16 gather cases: the odd rows won on every
   case with a wave ratio up to 1.8 (rt1-049 0.47 -> 0.53 with the table,
   rt1-088 0.39 -> 0.44, rt1-120 0.68 -> 0.71) and on rt1-064 at 3.0 by
   0.02; they lost at 3.3 (rt1-147 0.28 -> 0.22) and 9.0 (rt1-171 0.60 ->
   0.31). */
template <typename T>
int gather_layout(const fdx_perm_plan *p)
{
    if constexpr (sizeof(T) >= 16) return 1;
    else {
        SubSpec a1, a2;
        int64_t nt;
        size_t sm;
        const T *base = reinterpret_cast<const T *>((uintptr_t)1 << 20);
        if (subword_spec<T, 16, 1>(p, base, &a1, &nt, &sm) != FDX_OK ||
            subword_spec<T, 16, 2>(p, base, &a2, &nt, &sm) != FDX_OK || !a1.tabn || !a2.tabn)
            return 1;
        return gather_waves<T, 2>(a2, base) <= 2 * gather_waves<T, 1>(a1, base) ? 3 : 2;
    }
}

template <typename T>
fdx_status run_subword(void *dst, const void *src, const fdx_perm_plan *p, cudaStream_t st, bool on_host)
{
    switch (p->subword) {
    case 4: return run_subword_aw<T, 4, 0>(dst, src, p, st, on_host);
    case 8: return run_subword_aw<T, 8, 0>(dst, src, p, st, on_host);
    case 16:
        return p->gather == 5 ? run_subword_aw<T, 16, 3>(dst, src, p, st, on_host)
               : p->gather == 3 ? run_subword_aw<T, 16, 2>(dst, src, p, st, on_host)
               : p->gather    ? run_subword_aw<T, 16, 1>(dst, src, p, st, on_host)
                              : run_subword_aw<T, 16, 0>(dst, src, p, st, on_host);
    default: return fdx_fail(FDX_ERR_INTERNAL, "sub-word tile with %d-byte access words", p->subword);
    }
}

/* The tile kernel run on the host, block after block, through the same
   slot functions (tests on machines without a GPU): every buffer slot read
   once before the write side takes it, every word through dst. */
template <typename T, bool SKEW>
fdx_status emulate_path(T *dst, const T *src, const TileSpec &a, int64_t ntiles)
{
    T *buf = (T *)malloc((size_t)a.words * sizeof(T));
    unsigned char *got = (unsigned char *)malloc(a.words);
    if (!buf || !got) {
        free(buf);
        free(got);
        return fdx_fail(FDX_ERR_NOMEM, "emulated tile of %u words", a.words);
    }
    fdx_status st = FDX_OK;
    for (int64_t tl = 0; tl < ntiles && st == FDX_OK; tl++) {
        const Origin o = tile_origin<SKEW>(a, (uint32_t)tl, (uint64_t)(uintptr_t)dst / sizeof(T));
        int64_t off;
        uint32_t pos;
        memset(got, 0, a.words);
        /* thread by thread, each thread's slots in turn (walked tiles step them) */
        for (uint32_t t0 = 0; t0 < THREADS && st == FDX_OK; t0++) {
            Walk w = a.walk ? walk_start(t0, a.rte[0], a.rss) : Walk{};
            for (uint32_t t = t0; t < a.rw && st == FDX_OK; t += THREADS, a.walk ? walk_next(w) : void()) {
                if (!(a.walk ? walk_read<SKEW>(a, o, w, off, pos) : read_slot<SKEW>(a, o, t, off, pos))) continue;
                if (pos >= a.words || got[pos])
                    st = fdx_fail(FDX_ERR_INTERNAL, "tile %lld: read slot %u lands on buffer word %u twice or out of %u",
                                  (long long)tl, t, pos, a.words);
                else buf[pos] = src[o.sb + off], got[pos] = 1;
            }
        }
        for (uint32_t t0 = 0; t0 < THREADS && st == FDX_OK; t0++) {
            Walk w = a.walk ? walk_start(t0, a.wte[0], a.wds) : Walk{};
            for (uint32_t t = t0; t < a.W && st == FDX_OK; t += THREADS, a.walk ? walk_next(w) : void()) {
                if (!(a.walk ? write_walk<SKEW>(a, o, w, off, pos) : write_slot<SKEW>(a, o, t, off, pos))) continue;
                if (pos >= a.words || !got[pos])
                    st = fdx_fail(FDX_ERR_INTERNAL, "tile %lld: write slot %u takes buffer word %u, never read",
                                  (long long)tl, t, pos);
                else dst[o.db + off] = buf[pos];
            }
        }
    }
    free(buf);
    free(got);
    return st;
}

template <int W>
fdx_status emulate_tiles(void *dst, const void *src, const fdx_perm_plan *p)
{
    typedef typename Word<W>::type T;
    FDX_CHECK(p->kind == FDX_PLAN_TILED || p->kind == FDX_PLAN_ROWS, FDX_ERR_INVALID,
              "emulation covers the tile kernel (TILED and ROWS plans), not plan kind %d", (int)p->kind);
    if (p->direct) return run_direct<T>(dst, src, p, nullptr, true);
    if (p->vec) return run_vec<T>(dst, src, p, nullptr, true);
    if (p->subword) return run_subword<T>(dst, src, p, nullptr, true);
    int64_t ntiles;
    TileSpec a;
    FDX_TRY(tile_spec(p, async_path<T>(p), &a, &ntiles));
    return a.sw ? emulate_path<T, true>((T *)dst, (const T *)src, a, ntiles)
                : emulate_path<T, false>((T *)dst, (const T *)src, a, ntiles);
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
    if (p->direct) return run_direct<T>(dst, src, p, st, false);
    if (p->vec) return run_vec<T>(dst, src, p, st, false);
    if (p->subword) return run_subword<T>(dst, src, p, st, false);
    return launch_tiles<T>(dst, src, p, st);
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

/* CALL<W>(...) for the plan's word size: one expression, which the caller
   returns (no macro but FDX_TRY hides a return). */
#define BY_WORD(word, CALL, ...)                                                                   \
    ((word) == 1    ? CALL<1>(__VA_ARGS__)                                                         \
     : (word) == 2  ? CALL<2>(__VA_ARGS__)                                                         \
     : (word) == 4  ? CALL<4>(__VA_ARGS__)                                                         \
     : (word) == 8  ? CALL<8>(__VA_ARGS__)                                                         \
     : (word) == 16 ? CALL<16>(__VA_ARGS__)                                                        \
                    : fdx_fail(FDX_ERR_INTERNAL, "word size %d", (word)))

extern "C" fdx_status fdx_layout_cuda_perm(void *dst, const void *src, const fdx_perm_plan *p, void *stream)
{
    cudaStream_t st = (cudaStream_t)stream;
    if (p->kind == FDX_PLAN_COPY) {
        if (dst != src) FDX_CUDA_TRY(cudaMemcpyAsync(dst, src, (size_t)p->count * (size_t)p->word, cudaMemcpyDeviceToDevice, st));
        return FDX_OK;
    }
    return BY_WORD(p->word, launch_perm, dst, src, p, st);
}

extern "C" int fdx_layout_cuda_gather_layout(const fdx_perm_plan *p)
{
    switch (p->word) {
    case 1: return gather_layout<unsigned char>(p);
    case 2: return gather_layout<unsigned short>(p);
    case 4: return gather_layout<unsigned int>(p);
    case 8: return gather_layout<unsigned long long>(p);
    default: return 1;
    }
}

extern "C" fdx_status fdx_layout_cuda_emulate(void *dst, const void *src, const fdx_perm_plan *p)
{
    return BY_WORD(p->word, emulate_tiles, dst, src, p);
}

extern "C" fdx_status fdx_layout_cuda_diag(void *dst, const void *src, const fdx_diag_plan *p, void *stream)
{
    return BY_WORD(p->word, launch_diag, dst, src, p, (cudaStream_t)stream);
}

extern "C" fdx_status fdx_layout_cuda_box(void *array, void *plain, const fdx_box_plan *p, void *stream)
{
    return BY_WORD(p->word, launch_box, array, plain, p, (cudaStream_t)stream);
}
