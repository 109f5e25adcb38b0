/* fdx_layout_cuda_vec: the vector tile kernel for transposes of 1-, 2- and
   4-byte elements (plan->vec; the planner's choose_vec says when).
   Included by fdx_layout_cuda.cu inside its namespace (FastDiv, hqdiv,
   THREADS, DEVICE_UNROLL come from there).

   Why: the sub-word kernel moved its elements one at a time through the
   buffer (an 8-bit shared load and store and the index steps per byte,
   ~45 instructions a byte) and stored the ends of odd rows byte by byte:
   rt1-155 (1 byte, 128 x 311 x 64 x 283) ran at 0.17 of a same-size copy,
   issue slots 34%, 2-way bank conflicts both ways, 7 of 32 bytes used a
   stored sector (H100 profile, session 8).

   How: a block's tile is 128 bytes along A (the src-contiguous side: a
   flat index over the first vga src axes; TE = 128 / sizeof(T) elements)
   by 128 elements along K (the dst-contiguous side: a flat index over the
   first vgk dst axes), as E = 4 / sizeof(T) sub-tiles of TE x TE
   elements (128 x 128 bytes): 16 KB a block, 4 loads a thread, for every
   element size.  The src offset of each of the block's K rows and the dst
   offset of each of its A rows are computed once into two tables.  Read:
   lane j (0..7) of a row group takes bytes [16j, 16j + 16) of E
   consecutive src rows of a sub-tile as aligned 16-byte loads (one more
   for rows that start off 16 bytes, realigned by funnel shifts), and
   transposes the E x 4-byte blocks in registers (byte permutes), giving
   for each A element one 32-bit word of E consecutive K elements, stored
   to the sub-tile's buffer: row a (128 bytes of K), its 16-byte slots
   XOR-swizzled by (a * sizeof(T) / 16) & 7, so the 32 lanes of a warp hit
   32 banks.  Write: lane j of a row takes the aligned dst word j of that
   row's 128-byte segment (realigned from two buffer slots when the
   segment starts off 16 bytes; lane 0 also takes word 8), stored whole,
   or, at the segment's ends, as aligned pieces of 8, 4, 2, 1 bytes:
   nothing outside the tile is written.  16-byte src words partly outside
   the array (its ends) are read byte by byte. */

constexpr uint32_t VEC_BYTES = 128; /* a block's A side in bytes, K side in elements */
constexpr uint32_t VEC_PRE = 16;    /* skewed tiles: K rows before the tile read, at most (16 / sizeof(T)) */

/* Skewed tiles (VecSpec::skew, plan->vskew): where dst rows start off 16
   bytes, the plain tile's row segment [k0, k0 + 128) covers 9 aligned
   words, the first and last partial (stored in pieces, by lane 0 of the
   row, which also takes the ninth word while the other lanes wait), and
   every 16-byte dst word at a tile boundary is written half by one block,
   half by the next: the vector tiles measured 0.58-0.68 of a same-size
   copy there against 0.86 for aligned dst rows (H100, session 8, s8a/s8b).
   Skewed, A row a of a tile holds K [k0 - s_a, k0 + 128 - s_a), s_a = the
   row's dst residue mod 16 bytes in elements, so its segment starts on 16
   bytes: 8 whole words a row, one a lane, pieces only at the array's row
   ends.  The read side also takes the P = 16 / sizeof(T) K rows before k0
   (one warp, into a 16-byte "pre" slot per A row), and one more tile along
   K takes the rows' last elements.  The write side still realigns (two
   buffer slots, funnel shifts): the buffer keeps K in tile order.  H100,
   session 9: the 2D transposes with unaligned dst rows 0.49-0.61 -> 0.57-
   0.82 (rt1-008, -141, -177, -052, -122); the default where dst rows are
   off 16 bytes (FDX_LAYOUT_VEC_SKEW=0: the plain tile). */

struct VecSpec {
    uint32_t na, nk;                 /* flat extents of the A and K sides, elements */
    FastDiv tiles_a, tiles_k;        /* tiles along A and along K */
    int k_fast;                      /* block order: K tiles fastest (plan->vkfast), else A tiles */
    int skew;                        /* skewed tiles (plan->vskew) */
    int groups;                      /* M, A groups a tile (plan->vgroups; see VecTile) */
    int nga, ngk, nb;                /* axes of the A side, of the K side, batch axes */
    FastDiv ga[FDX_MAX_RANK];        /* A side, src order: extents */
    int64_t ga_ds[FDX_MAX_RANK];     /*   and dst strides */
    FastDiv gk[FDX_MAX_RANK];        /* K side, dst order: extents */
    int64_t gk_ss[FDX_MAX_RANK];     /*   and src strides */
    FastDiv bn[FDX_MAX_RANK];        /* batch axes: extents, */
    int64_t bs[FDX_MAX_RANK], bd[FDX_MAX_RANK]; /* src and dst strides */
    uint64_t src_lo, src_hi;         /* the src array's bytes [lo, hi) */
};

/* A tile: origins along A and K, valid extents, the batch offsets.  With
   M A groups (plan->vgroups: A sides of at most 128 / M bytes) a tile is
   TE / M A elements by 128 M K elements: buffer row al = m TE / M + a holds
   A element a0 + a of K [k0 + 128 m, k0 + 128 m + 128), so the buffer, its
   swizzle and the byte transposes stay those of M = 1 and a short A side
   (rt1-131: 45 bytes) fills M times as much of it. */
struct VecTile {
    uint32_t a0, k0, va, vk;
    int64_t sb, db;
};

template <typename T, uint32_t M = 1> __host__ __device__ __forceinline__ VecTile vec_tile(const VecSpec &s, uint32_t tl)
{
    constexpr uint32_t TE = VEC_BYTES / sizeof(T) / M, KT = VEC_BYTES * M; /* A and K elements a tile */
    VecTile o;
    const FastDiv &f0 = s.k_fast ? s.tiles_k : s.tiles_a, &f1 = s.k_fast ? s.tiles_a : s.tiles_k;
    uint32_t q = hqdiv(tl, f0), r = hqdiv(q, f1);
    const uint32_t i0 = tl - q * f0.d, i1 = q - r * f1.d;
    o.a0 = (s.k_fast ? i1 : i0) * TE;
    o.k0 = (s.k_fast ? i0 : i1) * KT;
    o.va = s.na - o.a0 < TE ? s.na - o.a0 : TE;
    o.vk = s.nk <= o.k0 ? 0 : s.nk - o.k0 < KT ? s.nk - o.k0 : KT; /* 0: a skewed K's extra tile */
    o.sb = o.db = 0;
    DEVICE_UNROLL
    for (int b = 0; b < FDX_MAX_RANK; b++) {
        if (b >= s.nb) break;
        const uint32_t d = hqdiv(r, s.bn[b]), c = r - d * s.bn[b].d;
        r = d;
        o.sb += (int64_t)c * s.bs[b];
        o.db += (int64_t)c * s.bd[b];
    }
    return o;
}

/* The src offset of K index k (k_side) or the dst offset of A index k. */
__host__ __device__ __forceinline__ int64_t vec_offset(const VecSpec &s, const VecTile &o, bool k_side, uint32_t k)
{
    int64_t off = k_side ? o.sb : o.db;
    const int n = k_side ? s.ngk : s.nga;
    const FastDiv *ext = k_side ? s.gk : s.ga;
    const int64_t *str = k_side ? s.gk_ss : s.ga_ds;
    DEVICE_UNROLL
    for (int q = 0; q < FDX_MAX_RANK; q++) {
        if (q >= n) break;
        const uint32_t d = hqdiv(k, ext[q]);
        off += (int64_t)(k - d * ext[q].d) * str[q];
        k = d;
    }
    return off;
}

/* Thread t's entries of the tile's tables: t < 128: the src offset of K row
   k0 + t (srow[t]), else the dst offset of A row t - 128 (drow); skewed,
   threads t < P also the src offset of K row k0 - P + t (srow[128 + t]);
   rows outside the valid extents are left alone.  M = 2: thread t the K
   row k0 + t and, t < TE / 2, the A row t; the pre rows at srow[256 + t]. */
template <typename T, bool SKEW, uint32_t M = 1>
__host__ __device__ __forceinline__ void vec_table(const VecSpec &s, const VecTile &o, uint32_t t, int64_t *srow,
                                                   int64_t *drow)
{
    constexpr uint32_t P = VEC_PRE / sizeof(T), KT = VEC_BYTES * M;
    if constexpr (M == 1) {
        const bool k_side = t < VEC_BYTES;
        const uint32_t i = k_side ? t : t - VEC_BYTES;
        if (i < (k_side ? o.vk : o.va)) (k_side ? srow : drow)[i] = vec_offset(s, o, k_side, (k_side ? o.k0 : o.a0) + i);
    } else {
        static_assert(M * VEC_BYTES == 256, "vec_table: one K row a thread");
        if (t < o.vk) srow[t] = vec_offset(s, o, true, o.k0 + t);
        if (t < o.va) drow[t] = vec_offset(s, o, false, o.a0 + t);
    }
    if (SKEW && t < P && o.k0 + t >= P && o.k0 + t - P < s.nk) srow[KT + t] = vec_offset(s, o, true, o.k0 + t - P);
}

/* Byte permute and funnel shift (PRMT and SHF on the device). */
__host__ __device__ __forceinline__ uint32_t vec_prmt(uint32_t x, uint32_t y, uint32_t sel)
{
#ifdef __CUDA_ARCH__
    return __byte_perm(x, y, sel);
#else
    const uint64_t v = (uint64_t)y << 32 | x;
    uint32_t r = 0;
    for (int i = 0; i < 4; i++) r |= (uint32_t)(v >> (8 * ((sel >> (4 * i)) & 7)) & 0xff) << (8 * i);
    return r;
#endif
}

__host__ __device__ __forceinline__ uint32_t vec_fsr(uint32_t lo, uint32_t hi, uint32_t bits)
{
#ifdef __CUDA_ARCH__
    return __funnelshift_r(lo, hi, bits);
#else
    return bits ? lo >> bits | hi << (32 - bits) : lo;
#endif
}

/* v = bytes [s, s + 16) of the 32 bytes u[0..8), s in 0..15: word steps by
   selects, the byte step by funnel shifts (no indexing by a variable: the
   words stay in registers). */
__host__ __device__ __forceinline__ void vec_shift(const uint32_t *u, uint32_t s, uint32_t *v)
{
    uint32_t t1[7], t2[5];
    DEVICE_UNROLL
    for (int i = 0; i < 7; i++) t1[i] = s & 4 ? u[i + 1] : u[i];
    DEVICE_UNROLL
    for (int i = 0; i < 5; i++) t2[i] = s & 8 ? t1[i + 2] : t1[i];
    DEVICE_UNROLL
    for (int i = 0; i < 4; i++) v[i] = vec_fsr(t2[i], t2[i + 1], (s & 3) * 8);
}

/* The host emulation's count of accesses off their size's alignment (the
   device would fault; the host would not notice). */
static unsigned long vec_misaligned;

/* The aligned 16-byte word at w; its bytes outside [lo, hi) (the array's
   ends) are not read (0). */
__host__ __device__ __forceinline__ void vec_load16(uint64_t w, uint64_t lo, uint64_t hi, uint32_t *u)
{
    if (w >= lo && w + 16 <= hi) {
#ifdef __CUDA_ARCH__
        const uint4 x = __ldg(reinterpret_cast<const uint4 *>(w));
        u[0] = x.x, u[1] = x.y, u[2] = x.z, u[3] = x.w;
#else
        vec_misaligned += (w & 15) != 0;
        memcpy(u, (const void *)(uintptr_t)w, 16);
#endif
        return;
    }
    DEVICE_UNROLL
    for (int b = 0; b < 16; b++) {
        if (!(b & 3)) u[b >> 2] = 0;
        if (w + b >= lo && w + b < hi) u[b >> 2] |= (uint32_t) * (const unsigned char *)(uintptr_t)(w + b) << (8 * (b & 3));
    }
}

/* Byte o and up of the 16-byte word (h0, h1) stored as `size` bytes at w + o
   (o a multiple of size). */
__host__ __device__ __forceinline__ void vec_piece(uint64_t w, uint64_t h0, uint64_t h1, int o, int size)
{
    const uint64_t x = (o & 8 ? h1 : h0) >> (8 * (o & 7));
    void *p = (void *)(uintptr_t)(w + (uint64_t)o);
#ifndef __CUDA_ARCH__
    vec_misaligned += (w + (uint64_t)o) % (uint64_t)size != 0;
#endif
    if (size == 8) *(uint64_t *)p = x;
    else if (size == 4) *(uint32_t *)p = (uint32_t)x;
    else if (size == 2) *(uint16_t *)p = (uint16_t)x;
    else *(unsigned char *)p = (unsigned char)x;
}

/* Stores bytes [lo, hi) of the 16-byte word v at the aligned address w, as
   aligned pieces of 16, 8, 4, 2 and 1 bytes: a row segment's first word
   (a suffix [lo, 16)) and last word (a prefix [0, hi)) in at most four
   pieces without a loop (lane 0 of each row does both while its
   neighbours wait), anything else piece by piece. */
__host__ __device__ __forceinline__ void vec_store16(uint64_t w, const uint32_t *v, int lo, int hi)
{
    if (lo == 0 && hi == 16) {
#ifdef __CUDA_ARCH__
        *reinterpret_cast<uint4 *>(w) = make_uint4(v[0], v[1], v[2], v[3]);
#else
        vec_misaligned += (w & 15) != 0;
        memcpy((void *)(uintptr_t)w, v, 16);
#endif
        return;
    }
#ifndef __CUDA_ARCH__
    vec_misaligned += (w & 15) != 0;
#endif
    const uint64_t h0 = (uint64_t)v[1] << 32 | v[0], h1 = (uint64_t)v[3] << 32 | v[2];
    if (hi == 16) {
        if (lo & 1) vec_piece(w, h0, h1, lo, 1), lo += 1;
        if (lo & 2) vec_piece(w, h0, h1, lo, 2), lo += 2;
        if (lo & 4) vec_piece(w, h0, h1, lo, 4), lo += 4;
        if (lo & 8) vec_piece(w, h0, h1, lo, 8);
    } else if (lo == 0) {
        if (hi & 8) vec_piece(w, h0, h1, 0, 8);
        if (hi & 4) vec_piece(w, h0, h1, hi & 8, 4);
        if (hi & 2) vec_piece(w, h0, h1, hi & 12, 2);
        if (hi & 1) vec_piece(w, h0, h1, hi & 14, 1);
    } else
        while (lo < hi) {
            const int n = hi - lo, size = !(lo & 7) && n >= 8 ? 8 : !(lo & 3) && n >= 4 ? 4 : !(lo & 1) && n >= 2 ? 2 : 1;
            vec_piece(w, h0, h1, lo, size);
            lo += size;
        }
}

/* The buffer: A row a holds 32 words of K; its 16-byte slot w sits at
   w ^ ((a * sizeof(T) / 16) & 7). */
template <typename T> __host__ __device__ __forceinline__ uint32_t vec_swz(uint32_t a)
{
    return (a * (uint32_t)sizeof(T) / 16) & 7;
}

/* Buffer slot `slot` (16 bytes) of a row, as one 16-byte shared load. */
__host__ __device__ __forceinline__ void vec_slot(const uint32_t *row, uint32_t slot, uint32_t *v)
{
#ifdef __CUDA_ARCH__
    const uint4 x = *reinterpret_cast<const uint4 *>(row + (slot << 2));
    v[0] = x.x, v[1] = x.y, v[2] = x.z, v[3] = x.w;
#else
    memcpy(v, row + (slot << 2), 16);
#endif
}

/* Lane j's 16 bytes [16j, 16j + 16) of a src row segment starting at seg
   (realigned when seg is off 16 bytes), zero where j is past the valid A
   bytes vb or the row is not valid. */
__host__ __device__ __forceinline__ void vec_load_row(const VecSpec &s, bool valid, uint64_t seg, uint32_t j, uint32_t vb,
                                                      uint32_t *x)
{
    uint32_t w8[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    uint32_t r = 0;
    if (valid && 16 * j < vb) {
        r = (uint32_t)(seg & 15);
        const uint64_t w = seg - r + 16 * j;
        vec_load16(w, s.src_lo, s.src_hi, w8);
        if (r && 16 * j + 16 - r < vb) vec_load16(w + 16, s.src_lo, s.src_hi, w8 + 4);
    }
    if (r) vec_shift(w8, r, x); /* rows on 16 bytes skip the realignment */
    else x[0] = w8[0], x[1] = w8[1], x[2] = w8[2], x[3] = w8[3];
}

/* Word i (bytes 4i..4i+3 of each) of E = 4 / sizeof(T) rows x[e] transposed
   by byte permutes: w[m] = E K elements of A element 4i / sizeof(T) + m. */
template <typename T>
__host__ __device__ __forceinline__ void vec_transpose(const uint32_t (*x)[4], uint32_t i, uint32_t *w)
{
    constexpr uint32_t E = 4 / sizeof(T);
    if constexpr (E == 4) {
        const uint32_t t0 = vec_prmt(x[0][i], x[1][i], 0x5140), t1 = vec_prmt(x[0][i], x[1][i], 0x7362),
                       t2 = vec_prmt(x[2][i], x[3][i], 0x5140), t3 = vec_prmt(x[2][i], x[3][i], 0x7362);
        w[0] = vec_prmt(t0, t2, 0x5410), w[1] = vec_prmt(t0, t2, 0x7632);
        w[2] = vec_prmt(t1, t3, 0x5410), w[3] = vec_prmt(t1, t3, 0x7632);
    } else if constexpr (E == 2) {
        w[0] = vec_prmt(x[0][i], x[1][i], 0x5410), w[1] = vec_prmt(x[0][i], x[1][i], 0x7632);
    } else {
        w[0] = x[0][i];
    }
}

/* Where the skewed tile's pre slot (16 bytes of K before k0) of A row a
   lies in the buffer: after the 128 rows of 32 words. */
__host__ __device__ __forceinline__ uint32_t vec_pre(uint32_t a) { return VEC_BYTES * 32 + a * 4; }
constexpr uint32_t VEC_BUF_WORDS = VEC_BYTES * 32 + VEC_BYTES * 4;

/* Read side, thread t: lane j = t % 8 of row group g = t / 8; in each
   sub-tile u (NT = sizeof(T) of them, TE K rows each: a block's K extent
   is 128 elements, and every thread makes NT E = 4 loads), K rows g E .. g E + E - 1,
   bytes [16j, 16j + 16) of each; then the E x 4-byte blocks transposed
   into one word per A element (E K elements each).  Skewed tiles: the
   first warp (g < 4) also reads the P = 4 E K rows before k0 into the pre
   slots.  M A groups: lane j reads K chunk m = j / (8 / M) (K row + 128 m),
   bytes [16 j', 16 j' + 16) of its A segment, j' = j % (8 / M): the words
   land where M = 1 puts them (A element 16 j / sizeof(T) + ... = m TE / M
   + a).  CHECK (the host emulation): got[] marks each buffer word
   written; false if one is written twice. */
template <typename T, bool CHECK, bool SKEW, uint32_t M = 1>
__host__ __device__ __forceinline__ bool vec_read(const VecSpec &s, const VecTile &o, uint32_t t, const T *src,
                                                  const int64_t *srow, uint32_t *buf, unsigned char *got)
{
    constexpr uint32_t E = 4 / sizeof(T), NT = sizeof(T), TE = VEC_BYTES / sizeof(T), JM = 8 / M;
    const uint32_t j = t & 7, g = t >> 3, vb = o.va * (uint32_t)sizeof(T);
    const uint32_t jl = M == 1 ? j : j % JM, kc = M == 1 ? 0 : j / JM * VEC_BYTES; /* lane in its A segment, its K chunk's first row */
    uint32_t x[NT][E][4]; /* sub-tile, row, word */
    DEVICE_UNROLL
    for (uint32_t u = 0; u < NT; u++)
        DEVICE_UNROLL
        for (uint32_t e = 0; e < E; e++) {
            const uint32_t kl = u * TE + g * E + e + kc;
            vec_load_row(s, kl < o.vk, kl < o.vk ? (uint64_t)(uintptr_t)(src + srow[kl] + o.a0) : 0, jl, vb, x[u][e]);
        }
    const uint32_t slot = ((g >> 2) ^ j) << 2 | (g & 3); /* vec_swz of every A row this thread writes is j */
    DEVICE_UNROLL
    for (uint32_t u = 0; u < NT; u++)
        DEVICE_UNROLL
        for (uint32_t i = 0; i < 4; i++) {
            uint32_t w[E];
            vec_transpose<T>(x[u], i, w);
            DEVICE_UNROLL
            for (uint32_t m = 0; m < E; m++) {
                const uint32_t al = (16 * j + 4 * i) / (uint32_t)sizeof(T) + m, idx = (u * TE + al) * 32 + slot;
                if (CHECK) {
                    if (got[idx]) return false;
                    got[idx] = 1;
                }
                buf[idx] = w[m];
            }
        }
    if (SKEW && g < 4) { /* K rows k0 - P + g E + e, word g of each A row's pre slot */
        uint32_t y[E][4];
        DEVICE_UNROLL
        for (uint32_t e = 0; e < E; e++) {
            const uint32_t c = g * E + e; /* K = k0 - P + c */
            const bool ok = o.k0 + c >= 4 * E && o.k0 + c - 4 * E < s.nk; /* M > 1: lanes j >= 8 / M past vb */
            vec_load_row(s, ok, ok ? (uint64_t)(uintptr_t)(src + srow[VEC_BYTES * M + c] + o.a0) : 0, j, vb, y[e]);
        }
        DEVICE_UNROLL
        for (uint32_t i = 0; i < 4; i++) {
            uint32_t w[E];
            vec_transpose<T>(y, i, w);
            DEVICE_UNROLL
            for (uint32_t m = 0; m < E; m++) {
                const uint32_t idx = vec_pre((16 * j + 4 * i) / (uint32_t)sizeof(T) + m) + g;
                if (CHECK) {
                    if (got[idx]) return false;
                    got[idx] = 1;
                }
                buf[idx] = w[m];
            }
        }
    }
    return true;
}

/* The emulation's count of the dst bytes each store covers (cnt[i]: byte
   dst_lo + i); false for a byte outside [dst_lo, dst_hi). */
struct VecCount {
    unsigned char *cnt;
    uint64_t dst_lo, dst_hi;
};
inline bool vec_count(const VecCount &c, uint64_t w, int lo, int hi)
{
    for (int b = lo; b < hi; b++) {
        if (w + b < c.dst_lo || w + b >= c.dst_hi) return false;
        c.cnt[w + b - c.dst_lo]++;
    }
    return true;
}

/* The host emulations' store checks (vector tiles, vector rows, sub-word
   gather tiles): counts for the `bytes` of dst, the misaligned-access
   count reset; then vec_count_close: every dst byte stored exactly once and
   no 16-byte access off 16 bytes, the counts freed; st: the emulation's
   status so far (returned as it is when not FDX_OK). */
inline fdx_status vec_count_open(VecCount *c, void *dst, size_t bytes, const char *what)
{
    c->cnt = (unsigned char *)calloc(bytes ? bytes : 1, 1);
    c->dst_lo = (uint64_t)(uintptr_t)dst, c->dst_hi = c->dst_lo + bytes;
    vec_misaligned = 0;
    return c->cnt ? FDX_OK : fdx_fail(FDX_ERR_NOMEM, "emulated %s: %zu bytes of counts", what, bytes);
}
inline fdx_status vec_count_close(VecCount *c, fdx_status st, const char *what)
{
    const size_t bytes = (size_t)(c->dst_hi - c->dst_lo);
    for (size_t b = 0; b < bytes && st == FDX_OK; b++)
        if (c->cnt[b] != 1) st = fdx_fail(FDX_ERR_INTERNAL, "%s: dst byte %zu stored %d times", what, b, c->cnt[b]);
    if (st == FDX_OK && vec_misaligned)
        st = fdx_fail(FDX_ERR_INTERNAL, "%s: %lu 16-byte accesses off 16 bytes", what, vec_misaligned);
    free(c->cnt);
    c->cnt = NULL;
    return st;
}

/* Skewed write side (see VEC_PRE): lane j of A row al = h + 32 p, in each
   sub-tile u, the aligned dst word j of the row's segment shifted back by
   its residue r: K [k0 + u TE - r / sizeof(T) + j P, + P), bytes [16 j - r
   + 16, 16 j - r + 32) of the row's buffer data counted from its pre slot,
   i.e. the end of slot j - 1 (j = 0: the last slot of sub-tile u - 1, or
   the pre slot) and the start of slot j; whole, but at the array's row
   ends (K < 0 or >= nk). */
template <typename T, bool CHECK, uint32_t M = 1>
__host__ __device__ __forceinline__ bool vec_write_skewed(const VecSpec &s, const VecTile &o, uint32_t j, uint32_t h,
                                                          T *dst, const int64_t *drow, const uint32_t *buf,
                                                          const VecCount *count)
{
    constexpr uint32_t E = 4 / sizeof(T), NT = sizeof(T), TE = VEC_BYTES / sizeof(T), P = VEC_PRE / sizeof(T),
                       TA = TE / M;
    DEVICE_UNROLL
    for (uint32_t q = 0; q < NT * E; q++) {
        const uint32_t u = q / E, al = (q % E) * 32 + h, m = M == 1 ? 0 : al / TA, a = al - m * TA; /* K chunk, A row */
        if (a >= o.va) continue;
        const uint32_t kt = m * VEC_BYTES + u * TE; /* the sub-tile's first K in the tile */
        const uint64_t seg = (uint64_t)(uintptr_t)(dst + drow[a] + o.k0 + kt);
        const uint32_t r = (uint32_t)(seg & 15), sw = vec_swz<T>(al);
        const int64_t k = (int64_t)o.k0 + kt - r / (uint32_t)sizeof(T) + j * P; /* the word's first K */
        const int lo = k >= 0 ? 0 : (int)(-k * (int64_t)sizeof(T)),
                  hi = k + P <= (int64_t)s.nk ? 16 : (int)(((int64_t)s.nk - k) * (int64_t)sizeof(T));
        if (hi <= lo) continue;
        const uint32_t *row = buf + (u * TE + al) * 32;
        uint32_t x[8] = {0, 0, 0, 0, 0, 0, 0, 0}, v[4];
        if (r == 0) vec_slot(row, j ^ sw, v);
        else {
            if (j) vec_slot(row, (j - 1) ^ sw, x);
            else if (u) vec_slot(row - TE * 32, 7 ^ sw, x); /* sub-tile u - 1, same A row */
            else if (m) /* the last sub-tile of K chunk m - 1, same A row */
                vec_slot(buf + ((NT - 1) * TE + al - TA) * 32, 7 ^ vec_swz<T>(al - TA), x);
            else vec_slot(buf + vec_pre(al), 0, x);
            vec_slot(row, j ^ sw, x + 4);
            vec_shift(x, 16 - r, v);
        }
        const uint64_t w = seg - r + 16 * (uint64_t)j;
        vec_store16(w, v, lo, hi);
#ifndef __CUDA_ARCH__
        if (CHECK && !vec_count(*count, w, lo, hi)) return false;
#endif
    }
    return true;
}

/* Write side, thread t: lane j = t % 8 of A rows t / 8 + 32 p (p < E), in
   each sub-tile u < NT: aligned dst word j of the row's segment (128 bytes of
   K; and word 8 for lane 0), its bytes inside the segment.  CHECK (the
   host emulation): counts the bytes stored (false: one outside dst). */
template <typename T, bool CHECK, uint32_t M = 1>
__host__ __device__ __forceinline__ bool vec_write_plain(const VecTile &o, uint32_t t, T *dst, const int64_t *drow,
                                                         const uint32_t *buf, const VecCount *count)
{
    constexpr uint32_t E = 4 / sizeof(T), NT = sizeof(T), TE = VEC_BYTES / sizeof(T), TA = TE / M;
    const uint32_t j = t & 7, h = t >> 3;
    DEVICE_UNROLL
    for (uint32_t q = 0; q < NT * E; q++) {
        const uint32_t u = q / E, al = (q % E) * 32 + h, m = M == 1 ? 0 : al / TA, a = al - m * TA; /* K chunk, A row */
        const uint32_t kt = m * VEC_BYTES + u * TE; /* the sub-tile's first K in the tile */
        if (a >= o.va || kt >= o.vk) continue;
        const int kb = (int)((o.vk - kt < TE ? o.vk - kt : TE) * sizeof(T));
        const uint64_t seg = (uint64_t)(uintptr_t)(dst + drow[a] + o.k0 + kt);
        const int r = (int)(seg & 15);
        const uint32_t sw = vec_swz<T>(al);
        const uint32_t *row = buf + (u * TE + al) * 32;
        for (int w = (int)j; w <= 8; w += 8) {
            const int lo = (16 * w > r ? 16 * w : r) - 16 * w, hi = (16 * w + 16 < r + kb ? 16 * w + 16 : r + kb) - 16 * w;
            if (hi <= lo) continue;
            /* the row's bytes [16w - r, 16w - r + 16): slot w, or the end
               of slot w - 1 and the start of slot w */
            uint32_t u[8] = {0, 0, 0, 0, 0, 0, 0, 0}, v[4];
            if (r == 0) vec_slot(row, (uint32_t)w ^ sw, v);
            else {
                if (w >= 1) vec_slot(row, (uint32_t)(w - 1) ^ sw, u);
                if (w < 8) vec_slot(row, (uint32_t)w ^ sw, u + 4);
                vec_shift(u, (uint32_t)(16 - r), v);
            }
            vec_store16(seg - (uint64_t)r + 16 * (uint64_t)w, v, lo, hi);
#ifndef __CUDA_ARCH__
            if (CHECK && !vec_count(*count, seg - (uint64_t)r + 16 * (uint64_t)w, lo, hi)) return false;
#endif
        }
    }
    return true;
}

template <typename T, bool CHECK, bool SKEW, uint32_t M = 1>
__host__ __device__ __forceinline__ bool vec_write(const VecSpec &s, const VecTile &o, uint32_t t, T *dst,
                                                   const int64_t *drow, const uint32_t *buf, const VecCount *count)
{
    if constexpr (SKEW) return vec_write_skewed<T, CHECK, M>(s, o, t & 7, t >> 3, dst, drow, buf, count);
    else return vec_write_plain<T, CHECK, M>(o, t, dst, drow, buf, count);
}

template <typename T, bool SKEW, uint32_t M>
__global__ void __launch_bounds__(THREADS) vec_kernel(T *__restrict__ dst, const T *__restrict__ src, VecSpec s)
{
    __shared__ __align__(16) uint32_t buf[SKEW ? VEC_BUF_WORDS : VEC_BYTES * 32]; /* skewed: + the pre slots */
    __shared__ int64_t srow[VEC_BYTES * M + (SKEW ? VEC_PRE : 0)], drow[VEC_BYTES];
    const VecTile o = vec_tile<T, M>(s, blockIdx.x);
    vec_table<T, SKEW, M>(s, o, threadIdx.x, srow, drow);
    __syncthreads();
    vec_read<T, false, SKEW, M>(s, o, threadIdx.x, src, srow, buf, nullptr);
    __syncthreads();
    vec_write<T, false, SKEW, M>(s, o, threadIdx.x, dst, drow, buf, nullptr);
}

/* Kept rows whose bytes leave a word under 16 bytes (plan->vec with a
   ROWS plan: odd rows, 5387 bytes of 1-byte elements; rows that src and
   dst start at different residues mod 16): a batched copy of rows, a row
   taken by tpr = 2^tsh threads (the power of two covering its dst words,
   at most 256: a block takes 256 / tpr rows) in `chunks` blocks; thread i
   of a row stores its aligned dst word chunk * tpr + i, whole, or in
   aligned pieces at the row's ends, from the two aligned src words its
   bytes lie in, funnel-shifted into place.  No buffer. */
struct VecRows {
    uint64_t len;                            /* row bytes */
    uint32_t rows, tsh;                      /* rows; log2 of the threads a row */
    FastDiv chunks;                          /* blocks a row group: tpr dst words each */
    int nb;                                  /* the row axes: */
    FastDiv bn[FDX_MAX_RANK];                /*   extents */
    int64_t bs[FDX_MAX_RANK], bd[FDX_MAX_RANK]; /* src and dst strides, bytes */
    uint64_t src_lo, src_hi;                 /* the src array's bytes [lo, hi) */
    /* flat layout (plan->vrows = W > 0): the rows' dst words numbered row
       by row, wpr a row (len / 16 + 2, the most a row spans), `total` in
       all; block b's thread t takes words (b W + i) 256 + t, i < W */
    FastDiv wpr;
    uint32_t total;
};

/* Row `row`'s batch offsets in src and dst (bytes). */
__host__ __device__ __forceinline__ void vec_row_offsets(const VecRows &a, uint32_t row, int64_t *so, int64_t *dof)
{
    *so = *dof = 0;
    DEVICE_UNROLL
    for (int b = 0; b < FDX_MAX_RANK; b++) {
        if (b >= a.nb) break;
        const uint32_t d = hqdiv(row, a.bn[b]), c = row - d * a.bn[b].d;
        row = d;
        *so += (int64_t)c * a.bs[b];
        *dof += (int64_t)c * a.bd[b];
    }
}

/* The flat layout (VecRows::wpr; plan->vrows = W words a thread): why.
   Session 8's layout gives a row 2^k threads, one dst word each: a row of
   524 bytes (rt1-064, 34 words) takes 64 threads of which 30 idle, and a
   thread keeps one 16-byte word (two loads) in flight: with 8 blocks an
   SM that is ~17 KB of useful bytes in flight an SM, under the ~25-30 KB
   an H100 SM needs at DRAM speed (3.35 TB/s / 132 SMs x ~1 us); such row
   copies measured 0.64-0.87 of a same-size copy (s11c).  Flat, every
   thread has a word (but the one or two past a row's end) and W of them in
   flight: all loads first, then the realignment, then the stores. */
template <int W, bool CHECK>
__host__ __device__ __forceinline__ bool vec_rows_flat(const VecRows &a, uint32_t blk, uint32_t t, unsigned char *dst,
                                                       const unsigned char *src, const VecCount *count)
{
    uint64_t w[W], s0[W];
    int lo[W], hi[W];
    uint32_t u[W][8];
    DEVICE_UNROLL
    for (int i = 0; i < W; i++) {
        const uint32_t g = (blk * (uint32_t)W + (uint32_t)i) * (uint32_t)THREADS + t;
        lo[i] = hi[i] = 0, w[i] = s0[i] = 0;
        DEVICE_UNROLL
        for (int b = 0; b < 8; b++) u[i][b] = 0;
        if (g >= a.total) continue;
        const uint32_t row = hqdiv(g, a.wpr), wi = g - row * a.wpr.d;
        int64_t so, dof;
        vec_row_offsets(a, row, &so, &dof);
        const uint64_t drow = (uint64_t)(uintptr_t)dst + (uint64_t)dof, srow = (uint64_t)(uintptr_t)src + (uint64_t)so;
        w[i] = (drow & ~(uint64_t)15) + 16 * (uint64_t)wi;
        lo[i] = w[i] >= drow ? 0 : (int)(drow - w[i]);
        hi[i] = w[i] + 16 <= drow + a.len ? 16 : (int)((int64_t)(drow + a.len) - (int64_t)w[i]);
        if (hi[i] <= lo[i]) {
            lo[i] = hi[i] = 0;
            continue;
        }
        s0[i] = srow + (w[i] - drow); /* where the word's byte 0 comes from (mod 2^64 before the row) */
        const uint64_t sr = s0[i] & 15;
        vec_load16(s0[i] - sr, a.src_lo, a.src_hi, u[i]);
        if (sr) vec_load16(s0[i] - sr + 16, a.src_lo, a.src_hi, u[i] + 4);
    }
    DEVICE_UNROLL
    for (int i = 0; i < W; i++) {
        if (hi[i] <= lo[i]) continue;
        uint32_t v[4];
        const uint32_t sr = (uint32_t)(s0[i] & 15);
        if (sr) vec_shift(u[i], sr, v);
        else v[0] = u[i][0], v[1] = u[i][1], v[2] = u[i][2], v[3] = u[i][3];
        vec_store16(w[i], v, lo[i], hi[i]);
#ifndef __CUDA_ARCH__
        if (CHECK && !vec_count(*count, w[i], lo[i], hi[i])) return false;
#endif
    }
    return true;
}

template <int W>
__global__ void __launch_bounds__(THREADS) vec_rows_flat_kernel(unsigned char *__restrict__ dst,
                                                                const unsigned char *__restrict__ src, VecRows a)
{
    vec_rows_flat<W, false>(a, blockIdx.x, threadIdx.x, dst, src, nullptr);
}

template <bool CHECK>
__host__ __device__ __forceinline__ bool vec_row_word(const VecRows &a, uint32_t blk, uint32_t t, unsigned char *dst,
                                                      const unsigned char *src, const VecCount *count)
{
    const uint32_t group = hqdiv(blk, a.chunks), chunk = blk - group * a.chunks.d;
    uint32_t row = (group << (8 - a.tsh)) + (t >> a.tsh);
    if (row >= a.rows) return true;
    t &= (1u << a.tsh) - 1;
    int64_t so = 0, dof = 0;
    DEVICE_UNROLL
    for (int b = 0; b < FDX_MAX_RANK; b++) {
        if (b >= a.nb) break;
        const uint32_t d = hqdiv(row, a.bn[b]), c = row - d * a.bn[b].d;
        row = d;
        so += (int64_t)c * a.bs[b];
        dof += (int64_t)c * a.bd[b];
    }
    const uint64_t drow = (uint64_t)(uintptr_t)dst + (uint64_t)dof, srow = (uint64_t)(uintptr_t)src + (uint64_t)so;
    const uint64_t w = (drow & ~(uint64_t)15) + 16 * (((uint64_t)chunk << a.tsh) + t);
    const int lo = w >= drow ? 0 : (int)(drow - w), hi = w + 16 <= drow + a.len ? 16 : (int)((int64_t)(drow + a.len) - (int64_t)w);
    if (hi <= lo) return true;
    const uint64_t s0 = srow + (w - drow); /* where the word's byte 0 comes from (mod 2^64 before the row) */
    const uint32_t sr = (uint32_t)(s0 & 15);
    uint32_t u[8] = {0, 0, 0, 0, 0, 0, 0, 0}, v[4];
    vec_load16(s0 - sr, a.src_lo, a.src_hi, u);
    if (sr) {
        vec_load16(s0 - sr + 16, a.src_lo, a.src_hi, u + 4);
        vec_shift(u, sr, v);
    } else v[0] = u[0], v[1] = u[1], v[2] = u[2], v[3] = u[3];
    vec_store16(w, v, lo, hi);
#ifndef __CUDA_ARCH__
    if (CHECK && !vec_count(*count, w, lo, hi)) return false;
#endif
    return true;
}

__global__ void __launch_bounds__(THREADS) vec_rows_kernel(unsigned char *__restrict__ dst,
                                                           const unsigned char *__restrict__ src, VecRows a)
{
    vec_row_word<false>(a, blockIdx.x, threadIdx.x, dst, src, nullptr);
}

/* A kept-rows plan (plan->vec, ROWS) on the device or emulated on the host
   (on_host; each dst byte stored once, nothing outside dst). */
inline fdx_status run_vec_rows(void *dst, const void *src, const fdx_perm_plan *p, cudaStream_t st, bool on_host)
{
    VecRows a;
    memset(&a, 0, sizeof a);
    const int64_t w = p->word, len = p->n[0] * w, words = len / 16 + 2; /* dst words a row, at most */
    uint32_t tsh = 0;
    while (tsh < 8 && ((int64_t)1 << tsh) < words) tsh++;
    const int64_t chunks = blocks_of(words, (int64_t)1 << tsh);
    int64_t rows = 1;
    for (int i = 1; i < p->rank; i++) { /* rows in src order, or (plan->vrdst) in dst order */
        const int q = p->vrdst ? p->s[i] : i;
        a.bn[a.nb] = fd(p->n[q]), a.bs[a.nb] = p->ss[q] * w, a.bd[a.nb] = p->ds[q] * w, a.nb++;
        rows *= p->n[q];
    }
    const int W = p->vrows; /* > 0: the flat layout, W words a thread */
    const int64_t blocks = W > 0 ? blocks_of(rows * words, (int64_t)THREADS * W) : blocks_of(rows, (int64_t)1 << (8 - tsh)) * chunks;
    FDX_CHECK(p->kind == FDX_PLAN_ROWS && p->s[0] == 0 && blocks < ((int64_t)1 << 31) && rows < ((int64_t)1 << 31) && THREADS == 256 &&
                  (W == 0 || ((W == 1 || W == 2 || W == 4 || W == 8) && rows * words + (int64_t)THREADS * W < ((int64_t)1 << 31))),
              FDX_ERR_INTERNAL, "vector rows: plan kind %d, %lld rows of %lld bytes, %d words a thread", (int)p->kind,
              (long long)rows, (long long)len, W);
    if (W > 0) a.wpr = fd(words), a.total = (uint32_t)(rows * words);
    a.len = (uint64_t)len;
    a.rows = (uint32_t)rows, a.tsh = tsh;
    a.chunks = fd(chunks);
    a.src_lo = (uint64_t)(uintptr_t)src, a.src_hi = a.src_lo + (uint64_t)p->count * (uint64_t)w;
    unsigned char *d8 = (unsigned char *)dst;
    const unsigned char *s8 = (const unsigned char *)src;
    if (!on_host) {
        const unsigned nb = (unsigned)blocks;
        if (W == 8) vec_rows_flat_kernel<8><<<nb, THREADS, 0, st>>>(d8, s8, a);
        else if (W == 4) vec_rows_flat_kernel<4><<<nb, THREADS, 0, st>>>(d8, s8, a);
        else if (W == 2) vec_rows_flat_kernel<2><<<nb, THREADS, 0, st>>>(d8, s8, a);
        else if (W == 1) vec_rows_flat_kernel<1><<<nb, THREADS, 0, st>>>(d8, s8, a);
        else vec_rows_kernel<<<nb, THREADS, 0, st>>>(d8, s8, a);
        FDX_CUDA_CHECK_LAUNCH("vec_rows_kernel");
        return FDX_OK;
    }
    VecCount cnt;
    FDX_TRY(vec_count_open(&cnt, dst, (size_t)(p->count * w), "vector rows"));
    fdx_status s = FDX_OK;
    for (int64_t b = 0; b < blocks && s == FDX_OK; b++)
        for (uint32_t t = 0; t < (uint32_t)THREADS && s == FDX_OK; t++) {
            const uint32_t bb = (uint32_t)b;
            const bool ok = W == 8   ? vec_rows_flat<8, true>(a, bb, t, d8, s8, &cnt)
                            : W == 4 ? vec_rows_flat<4, true>(a, bb, t, d8, s8, &cnt)
                            : W == 2 ? vec_rows_flat<2, true>(a, bb, t, d8, s8, &cnt)
                            : W == 1 ? vec_rows_flat<1, true>(a, bb, t, d8, s8, &cnt)
                                     : vec_row_word<true>(a, bb, t, d8, s8, &cnt);
            if (!ok) s = fdx_fail(FDX_ERR_INTERNAL, "vector rows: block %lld thread %u stores outside dst", (long long)b, t);
        }
    return vec_count_close(&cnt, s, "vector rows");
}

/* The vector kernel's view of a plan (plan->vec). */
template <typename T>
fdx_status vec_spec(const fdx_perm_plan *p, const void *src, VecSpec *out, int64_t *ntiles)
{
    VecSpec a;
    memset(&a, 0, sizeof a);
    int side[FDX_MAX_RANK] = {0}; /* 1: A side, 2: K side, 0: batch */
    int64_t na = 1, nk = 1, batch = 1;
    for (int q = 0; q < p->vga; q++) a.ga[q] = fd(p->n[q]), a.ga_ds[q] = p->ds[q], na *= p->n[q], side[q] = 1;
    for (int q = 0; q < p->vgk; q++) {
        const int ax = p->s[q];
        FDX_CHECK(side[ax] == 0, FDX_ERR_INTERNAL, "vector tile: axis %d on both sides (vga %d, vgk %d)", ax, p->vga,
                  p->vgk);
        a.gk[q] = fd(p->n[ax]), a.gk_ss[q] = p->ss[ax], nk *= p->n[ax], side[ax] = 2;
    }
    for (int q = 0; q < p->rank; q++)
        if (!side[q]) a.bn[a.nb] = fd(p->n[q]), a.bs[a.nb] = p->ss[q], a.bd[a.nb] = p->ds[q], a.nb++, batch *= p->n[q];
    a.nga = p->vga, a.ngk = p->vgk;
    /* skewed: one more K tile where the rows' shifted ends need it */
    const int64_t M = p->vgroups > 1 ? p->vgroups : 1; /* A groups (VecTile) */
    const int64_t ta = blocks_of(na, VEC_BYTES / sizeof(T) / M),
                  tk = blocks_of(nk + (p->vskew ? (int64_t)(VEC_PRE / sizeof(T)) - 1 : 0), VEC_BYTES * M);
    FDX_CHECK(M == 1 || (M == 2 && na <= (int64_t)(VEC_BYTES / sizeof(T) / M)), FDX_ERR_INTERNAL,
              "vector tile: %lld A groups for an A side of %lld elements", (long long)M, (long long)na);
    FDX_CHECK(sizeof(T) <= 4 && p->vga >= 1 && p->vgk >= 1 && na < ((int64_t)1 << 31) && nk < ((int64_t)1 << 31) &&
                  ta * tk * batch < ((int64_t)1 << 31),
              FDX_ERR_INTERNAL, "vector tile: %zu-byte elements, sides of %lld and %lld elements, %lld batches",
              sizeof(T), (long long)na, (long long)nk, (long long)batch);
    a.na = (uint32_t)na, a.nk = (uint32_t)nk;
    a.tiles_a = fd(ta), a.tiles_k = fd(tk);
    a.k_fast = p->vkfast;
    a.skew = p->vskew;
    a.groups = (int)M;
    a.src_lo = (uint64_t)(uintptr_t)src, a.src_hi = a.src_lo + (uint64_t)p->count * sizeof(T);
    *ntiles = ta * tk * batch;
    *out = a;
    return FDX_OK;
}

/* The vector kernel run on the host, tile after tile, thread after thread
   (the tables, then every read, then every write): each buffer word
   written exactly once a tile, each dst byte stored exactly once in all
   (a store past a segment's end would otherwise hide under the next
   tile's), nothing outside dst. */
template <typename T, bool SKEW, uint32_t M>
fdx_status emulate_vec(T *dst, const T *src, const VecSpec &s, int64_t ntiles, int64_t count)
{
    constexpr uint32_t WORDS = VEC_BUF_WORDS;
    static uint32_t buf[WORDS];
    static unsigned char got[WORDS];
    int64_t srow[VEC_BYTES * M + VEC_PRE], drow[VEC_BYTES];
    const uint32_t used = VEC_BYTES * 32 + (SKEW ? VEC_BYTES / (uint32_t)sizeof(T) * 4 : 0); /* + the pre slots */
    VecCount cnt;
    FDX_TRY(vec_count_open(&cnt, dst, (size_t)count * sizeof(T), "vector tiles"));
    fdx_status st = FDX_OK;
    for (int64_t tl = 0; tl < ntiles && st == FDX_OK; tl++) {
        const VecTile o = vec_tile<T, M>(s, (uint32_t)tl);
        for (uint32_t t = 0; t < (uint32_t)THREADS; t++) vec_table<T, SKEW, M>(s, o, t, srow, drow);
        memset(got, 0, sizeof got);
        for (uint32_t t = 0; t < (uint32_t)THREADS && st == FDX_OK; t++)
            if (!vec_read<T, true, SKEW, M>(s, o, t, src, srow, buf, got))
                st = fdx_fail(FDX_ERR_INTERNAL, "vector tile %lld: thread %u writes a buffer word twice", (long long)tl, t);
        for (uint32_t w = 0; w < used && st == FDX_OK; w++)
            if (!got[w]) st = fdx_fail(FDX_ERR_INTERNAL, "vector tile %lld: buffer word %u never written", (long long)tl, w);
        for (uint32_t t = 0; t < (uint32_t)THREADS && st == FDX_OK; t++)
            if (!vec_write<T, true, SKEW, M>(s, o, t, dst, drow, buf, &cnt))
                st = fdx_fail(FDX_ERR_INTERNAL, "vector tile %lld: thread %u stores outside dst", (long long)tl, t);
    }
    return vec_count_close(&cnt, st, "vector tiles");
}

/* Loop axes of the register kernels below (interleave, narrow-K, unit
   gather): an item's index split over the axes, fastest first, gives its
   src and dst offsets (elements). */
struct VecAxes {
    int n;
    FastDiv ext[FDX_MAX_RANK];
    int64_t s[FDX_MAX_RANK], d[FDX_MAX_RANK];
};

/* Every merged axis of p from `first` on except skip0 and skip1 (-1: none);
   returns the product of their extents. */
static int64_t vec_axes_make(VecAxes *a, const fdx_perm_plan *p, int first, int skip0, int skip1)
{
    int64_t n = 1;
    a->n = 0;
    for (int q = first; q < p->rank; q++) {
        if (q == skip0 || q == skip1) continue;
        a->ext[a->n] = fd(p->n[q]), a->s[a->n] = p->ss[q], a->d[a->n] = p->ds[q], a->n++;
        n *= p->n[q];
    }
    return n;
}

__host__ __device__ __forceinline__ void vec_axes_offsets(const VecAxes &a, uint32_t x, int64_t &so, int64_t &dof)
{
    DEVICE_UNROLL
    for (int q = 0; q < FDX_MAX_RANK; q++) {
        if (q >= a.n) break;
        const uint32_t d = hqdiv(x, a.ext[q]), y = x - d * a.ext[q].d;
        x = d;
        so += (int64_t)y * a.s[q];
        dof += (int64_t)y * a.d[q];
    }
}

/* v = the 16 bytes at address at (any alignment) of the array [lo, hi):
   one or two aligned loads, realigned by funnel shifts. */
__host__ __device__ __forceinline__ void vec_load_at(uint64_t at, uint64_t lo, uint64_t hi, uint32_t *v)
{
    const uint32_t sr = (uint32_t)(at & 15);
    uint32_t u[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    vec_load16(at - sr, lo, hi, u);
    if (sr) {
        vec_load16(at - sr + 16, lo, hi, u + 4);
        vec_shift(u, sr, v);
    } else v[0] = u[0], v[1] = u[1], v[2] = u[2], v[3] = u[3];
}

/* The interleave kernel (plan->vilv): short dst-fastest K before src's contiguous axis. */
#include "layout/fdx_layout_cuda_ilv.cuh"
/* The narrow-K register transpose (plan->vnk): dst's fastest axis one 4-byte word. */
#include "layout/fdx_layout_cuda_nk.cuh"
/* The unit gather (plan->vug): 2D transposes of short kept rows. */
#include "layout/fdx_layout_cuda_ug.cuh"

/* A vector-tile plan on the device (on_host: emulated, host buffers). */
template <typename T>
fdx_status run_vec(void *dst, const void *src, const fdx_perm_plan *p, cudaStream_t st, bool on_host)
{
    if (p->vilv) return run_ilv<T>(dst, src, p, st, on_host);
    if (p->vnk) return run_nk<T>(dst, src, p, st, on_host);
    if (p->vug) return run_ug<T>(dst, src, p, st, on_host);
    if (p->kind == FDX_PLAN_ROWS) return run_vec_rows(dst, src, p, st, on_host);
    if constexpr (sizeof(T) > 4) return fdx_fail(FDX_ERR_INTERNAL, "vector tile of %d-byte words", p->word);
    else {
        static thread_local SpecMemo<VecSpec> memo; /* see SpecMemo */
        if (on_host || !memo_hit(memo, p, src)) {
            VecSpec a;
            int64_t ntiles;
            FDX_TRY(vec_spec<T>(p, src, &a, &ntiles));
            if (on_host) {
                if (a.groups == 2)
                    return a.skew ? emulate_vec<T, true, 2>((T *)dst, (const T *)src, a, ntiles, p->count)
                                  : emulate_vec<T, false, 2>((T *)dst, (const T *)src, a, ntiles, p->count);
                return a.skew ? emulate_vec<T, true, 1>((T *)dst, (const T *)src, a, ntiles, p->count)
                              : emulate_vec<T, false, 1>((T *)dst, (const T *)src, a, ntiles, p->count);
            }
            memo_keep(memo, p, src, a, ntiles, 0);
        }
        const VecSpec &a = memo.spec;
        const int64_t ntiles = memo.ntiles;
        if (a.groups == 2) {
            if (a.skew) vec_kernel<T, true, 2><<<(unsigned)ntiles, THREADS, 0, st>>>((T *)dst, (const T *)src, a);
            else vec_kernel<T, false, 2><<<(unsigned)ntiles, THREADS, 0, st>>>((T *)dst, (const T *)src, a);
        } else if (a.skew) vec_kernel<T, true, 1><<<(unsigned)ntiles, THREADS, 0, st>>>((T *)dst, (const T *)src, a);
        else vec_kernel<T, false, 1><<<(unsigned)ntiles, THREADS, 0, st>>>((T *)dst, (const T *)src, a);
        FDX_CUDA_CHECK_LAUNCH("vec_kernel");
        return FDX_OK;
    }
}
