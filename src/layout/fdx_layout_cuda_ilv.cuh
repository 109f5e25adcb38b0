/* fdx_layout_cuda_ilv: the interleave kernel (plan->vilv = K; the planner's
   choose_ilv says when).  Included by fdx_layout_cuda_vec.cuh (FastDiv,
   hqdiv, THREADS, DEVICE_UNROLL, vec_load16, vec_shift, vec_store16 and
   the emulation's VecCount come from there).

   Why: a transpose whose dst-fastest axis K is short (2-8 elements) and
   whose next dst axis is src's contiguous axis A is an interleave of K src
   rows into one dst line: dst[k + K i] = src_k[i] (rt1-049: 1-byte, K = 3,
   rows of 75151 bytes, 315 MiB; rt1-149: K = 3, rows of 32768).  The
   gather tiles moved them at 0.52-0.65 of a same-size copy on the H100
   (s13a; session 10's ncu of rt1-149: shared-memory bound, 4-way bank
   conflicts on both sides).  Nothing needs a buffer: K 16-byte src words
   (one a row, the same A range) hold exactly the 16 K bytes of K
   consecutive dst words.

   How: a line's dst bytes [L, L + K nA e) (e = sizeof(T)) are cut into
   chunks of 16 K bytes at the aligned address L0 = L & ~15; thread g takes
   chunk g of the lines' chunks numbered flat (cpl a line).  Chunk c starts
   at element j0 = (16 K c - (L - L0)) / e of the line, phase phi = j0 mod K
   and A index i0 = floor(j0 / K): output element t is K row (phi + t) mod
   K, A index i0 + (phi + t) div K.  So with "virtual rows" r = 0..K-1 (real
   row (phi + r) mod K, first element i0 + (phi + r >= K)), output element
   t is element t div K of virtual row t mod K: one compile-time byte
   pattern; each virtual row's 16 bytes are one realigned load (two aligned
   16-byte loads and funnel shifts, vec_shift).  The K output words are
   stored whole, at the line's ends as aligned pieces (vec_store16): every
   dst byte once.  Src bytes outside the line (its first and last chunk)
   are loaded (within the array: vec_load16 reads nothing outside it) but
   never stored. */

constexpr int ILV_MAX_BYTES = 8; /* K e at most: K 16-byte words of registers a side */

struct IlvSpec {
    uint32_t na;                   /* A extent (elements) */
    int64_t ks;                    /* src stride of K (elements) */
    FastDiv cpl;                   /* chunks a line */
    uint32_t total;                /* chunks in all */
    VecAxes lines;                 /* the line axes */
    uint64_t src_lo, src_hi;       /* the src array's bytes [lo, hi) */
};

/* Output byte m of the chunk from the K virtual rows' 16-byte words v[r]
   (compile-time m: the compiler folds the selects into byte permutes). */
template <int K, int E>
__host__ __device__ __forceinline__ uint32_t ilv_byte(const uint32_t (*v)[4], int m)
{
    const int t = m / E, bb = m % E, r = t % K, q = t / K, sb = q * E + bb; /* source byte of virtual row r */
    return v[r][sb >> 2] >> (8 * (sb & 3)) & 0xffu;
}

template <int K, typename T, bool CHECK>
__host__ __device__ __forceinline__ bool ilv_chunk(const IlvSpec &s, uint32_t g, T *dst, const T *src,
                                                   const VecCount *count)
{
    constexpr int E = (int)sizeof(T);
    if (g >= s.total) return true;
    uint32_t line = hqdiv(g, s.cpl);
    const uint32_t c = g - line * s.cpl.d;
    int64_t sb = 0, db = 0;
    vec_axes_offsets(s.lines, line, sb, db);
    const uint64_t L = (uint64_t)(uintptr_t)(dst + db), L0 = L & ~(uint64_t)15, len = (uint64_t)K * s.na * E;
    const uint64_t w0 = L0 + (uint64_t)16 * K * c; /* the chunk's first dst word */
    const int64_t j0 = ((int64_t)(w0 - L)) / E;     /* its first element in the line (>= -15 / E) */
    const int64_t i0 = j0 >= 0 ? j0 / K : -((-j0 + K - 1) / K);
    const int phi = (int)(j0 - i0 * K);
    uint32_t v[K][4];
    DEVICE_UNROLL
    for (int r = 0; r < K; r++) {
        const int k = phi + r >= K ? phi + r - K : phi + r;
        const int64_t i = i0 + (phi + r >= K);
        const uint64_t a = (uint64_t)(uintptr_t)(src + sb + (int64_t)k * s.ks) + (uint64_t)(i * E); /* mod 2^64 */
        vec_load_at(a, s.src_lo, s.src_hi, v[r]);
    }
    DEVICE_UNROLL
    for (int w = 0; w < K; w++) {
        const uint64_t at = w0 + 16 * (uint64_t)w;
        const int lo = at >= L ? 0 : (int)(L - at), hi = at + 16 <= L + len ? 16 : (int)((int64_t)(L + len) - (int64_t)at);
        if (hi <= lo) continue;
        uint32_t o[4];
        DEVICE_UNROLL
        for (int q = 0; q < 4; q++)
            o[q] = ilv_byte<K, E>(v, 16 * w + 4 * q) | ilv_byte<K, E>(v, 16 * w + 4 * q + 1) << 8 |
                   ilv_byte<K, E>(v, 16 * w + 4 * q + 2) << 16 | ilv_byte<K, E>(v, 16 * w + 4 * q + 3) << 24;
        vec_store16(at, o, lo, hi);
#ifndef __CUDA_ARCH__
        if (CHECK && !vec_count(*count, at, lo, hi)) return false;
#endif
    }
    return true;
}

template <int K, typename T>
__global__ void __launch_bounds__(THREADS) ilv_kernel(T *__restrict__ dst, const T *__restrict__ src, IlvSpec s)
{
    ilv_chunk<K, T, false>(s, blockIdx.x * (uint32_t)THREADS + threadIdx.x, dst, src, nullptr);
}

/* K e <= ILV_MAX_BYTES: 1-byte K = 2..8, 2-byte K = 2..4, 4-byte K = 2. */
template <int K, typename T> fdx_status ilv_launch(const IlvSpec &a, T *dst, const T *src, cudaStream_t st, bool on_host)
{
    const int64_t blocks = blocks_of(a.total, THREADS);
    if (!on_host) {
        ilv_kernel<K, T><<<(unsigned)blocks, THREADS, 0, st>>>(dst, src, a);
        FDX_CUDA_CHECK_LAUNCH("ilv_kernel");
        return FDX_OK;
    }
    VecCount cnt;
    const size_t bytes = (size_t)(a.src_hi - a.src_lo);
    FDX_TRY(vec_count_open(&cnt, dst, bytes, "interleave"));
    fdx_status s = FDX_OK;
    for (uint32_t g = 0; g < a.total && s == FDX_OK; g++)
        if (!ilv_chunk<K, T, true>(a, g, dst, src, &cnt))
            s = fdx_fail(FDX_ERR_INTERNAL, "interleave: chunk %u stores outside dst", g);
    return vec_count_close(&cnt, s, "interleave");
}

/* An interleave plan (plan->vilv = K: the K axis s[0], A = axis 0 = s[1],
   the rest line axes) on the device or emulated on the host. */
template <typename T>
fdx_status run_ilv(void *dst, const void *src, const fdx_perm_plan *p, cudaStream_t st, bool on_host)
{
    constexpr int E = (int)sizeof(T);
    const int K = p->vilv;
    FDX_CHECK(p->kind == FDX_PLAN_TILED && p->rank >= 2 && p->s[1] == 0 && p->n[p->s[0]] == K && K >= 2 &&
                  K * E <= ILV_MAX_BYTES && p->ds[0] == K && p->ds[p->s[0]] == 1 && p->ss[0] == 1,
              FDX_ERR_INTERNAL, "interleave: plan of rank %d, K %d, %d-byte elements", p->rank, K, E);
    IlvSpec a;
    memset(&a, 0, sizeof a);
    a.na = (uint32_t)p->n[0];
    a.ks = p->ss[p->s[0]];
    const int64_t cpl = ((int64_t)K * p->n[0] * E + 15 + 16 * K - 1) / (16 * K);
    const int64_t lines = vec_axes_make(&a.lines, p, 1, p->s[0], -1);
    FDX_CHECK(p->n[0] < ((int64_t)1 << 31) && lines < ((int64_t)1 << 31) && cpl * lines + THREADS < ((int64_t)1 << 31),
              FDX_ERR_INTERNAL, "interleave: %lld lines of %lld chunks", (long long)lines, (long long)cpl);
    a.cpl = fd(cpl);
    a.total = (uint32_t)(cpl * lines);
    a.src_lo = (uint64_t)(uintptr_t)src, a.src_hi = a.src_lo + (uint64_t)p->count * E;
    T *d = (T *)dst;
    const T *s = (const T *)src;
    if constexpr (E == 1) {
        switch (K) {
        case 2: return ilv_launch<2, T>(a, d, s, st, on_host);
        case 3: return ilv_launch<3, T>(a, d, s, st, on_host);
        case 4: return ilv_launch<4, T>(a, d, s, st, on_host);
        case 5: return ilv_launch<5, T>(a, d, s, st, on_host);
        case 6: return ilv_launch<6, T>(a, d, s, st, on_host);
        case 7: return ilv_launch<7, T>(a, d, s, st, on_host);
        case 8: return ilv_launch<8, T>(a, d, s, st, on_host);
        }
    } else if constexpr (E == 2) {
        switch (K) {
        case 2: return ilv_launch<2, T>(a, d, s, st, on_host);
        case 3: return ilv_launch<3, T>(a, d, s, st, on_host);
        case 4: return ilv_launch<4, T>(a, d, s, st, on_host);
        }
    } else if constexpr (E == 4) {
        if (K == 2) return ilv_launch<2, T>(a, d, s, st, on_host);
    }
    return fdx_fail(FDX_ERR_INTERNAL, "interleave: K %d of %d-byte elements", K, E);
}
