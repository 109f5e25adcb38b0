/* fdx_layout_cuda_nk: the narrow-K register transpose (plan->vnk = K; the
   planner's choose_nk says when).  Included by fdx_layout_cuda_vec.cuh
   (vec_load16, vec_shift, vec_transpose, VecCount come from there).

   Why: dst's fastest axis K holds one 4- or 8-byte word (K e = 4 or 8:
   4 or 8 x 1-byte, 2 or 4 x 2-byte elements) and dst's next axis B is not src's contiguous axis
   A (that case is the interleave, fdx_layout_cuda_ilv.cuh).  rt1-171
   (1-byte 16 x 172 x 61 x 4 x 8 x 131, perm 3,1,0,5,4,2: K = 4, B = 172 at
   src stride 16, A = 16) took the gather tiles at 0.59 of a same-size copy
   (H100, s13a): 16-byte dst runs of K x B bytes gathered element by
   element from a shared buffer.  But the dst word of (b, a) is K elements
   of one A index from K src rows, and B's consecutive indices are
   consecutive dst words: a thread can read 16 bytes of A from each of the
   K rows of its b, transpose the K x 16 bytes in registers (byte permutes,
   vec_transpose) into 16 / e words, one per A index, and store each as one
   4-byte word; the warp's 32 consecutive b make each store 128 contiguous
   bytes.  No buffer, no barrier.

   Threads: g = (line c, b) flat, b fastest; c = A chunk (16 bytes of A)
   and the batch axes.  A chunk past A's end stores only its A indices
   below nA (its loads stay inside the array: vec_load16). */

struct NkSpec {
    uint32_t na, nb;               /* A extent, B extent (elements) */
    int64_t ks, bs, bd, ad;        /* src stride of K, src and dst strides of B, dst stride of A */
    FastDiv fb, fc;                /* B extent, A chunks */
    uint32_t total;                /* threads' items in all */
    VecAxes batch;                 /* the batch axes */
    uint64_t src_lo, src_hi;       /* the src array's bytes [lo, hi) */
};

/* KW: the dst word, 4 or 8 bytes (K = KW / sizeof(T) elements: rows 0-3
   of an 8-byte word's K are transposed apart from rows 4-7). */
template <typename T, int KW, bool CHECK>
__host__ __device__ __forceinline__ bool nk_item(const NkSpec &s, uint32_t g, T *dst, const T *src, const VecCount *count)
{
    constexpr uint32_t E = 4 / sizeof(T), K = KW / sizeof(T), H = KW / 4; /* K rows in H groups of E */
    if (g >= s.total) return true;
    uint32_t rest = hqdiv(g, s.fb);
    const uint32_t b = g - rest * s.fb.d;
    uint32_t x = hqdiv(rest, s.fc);
    const uint32_t c = rest - x * s.fc.d;
    int64_t sb = (int64_t)b * s.bs, db = (int64_t)b * s.bd;
    vec_axes_offsets(s.batch, x, sb, db);
    const uint32_t a0 = c * (16 / (uint32_t)sizeof(T));
    uint32_t v[K][4];
    DEVICE_UNROLL
    for (uint32_t k = 0; k < K; k++) {
        vec_load_at((uint64_t)(uintptr_t)(src + sb + (int64_t)k * s.ks + a0), s.src_lo, s.src_hi, v[k]);
    }
    DEVICE_UNROLL
    for (uint32_t i = 0; i < 4; i++) {
        uint32_t w[H][E];
        DEVICE_UNROLL
        for (uint32_t h = 0; h < H; h++) vec_transpose<T>(v + h * E, i, w[h]); /* w[h][m]: K elements h E.. of A index a0 + 4 i / sizeof(T) + m */
        DEVICE_UNROLL
        for (uint32_t m = 0; m < E; m++) {
            const uint32_t a = a0 + 4 * i / (uint32_t)sizeof(T) + m;
            if (a >= s.na) continue;
            uint32_t *p = (uint32_t *)(dst + db + (int64_t)a * s.ad);
#ifndef __CUDA_ARCH__
            vec_misaligned += ((uintptr_t)p & (KW - 1)) != 0;
            if (CHECK && !vec_count(*count, (uint64_t)(uintptr_t)p, 0, KW)) return false;
#endif
            if constexpr (H == 2) *(uint2 *)p = make_uint2(w[0][m], w[1][m]);
            else *p = w[0][m];
        }
    }
    return true;
}

template <typename T, int KW>
__global__ void __launch_bounds__(THREADS) nk_kernel(T *__restrict__ dst, const T *__restrict__ src, NkSpec s)
{
    nk_item<T, KW, false>(s, blockIdx.x * (uint32_t)THREADS + threadIdx.x, dst, src, nullptr);
}

/* A narrow-K plan (plan->vnk = K, K sizeof(T) = 4 or 8: dst axis s[0], B =
   s[1], A = src axis 0, the rest batch axes) on the device or emulated. */
template <typename T>
fdx_status run_nk(void *dst, const void *src, const fdx_perm_plan *p, cudaStream_t st, bool on_host)
{
    if constexpr (sizeof(T) > 2) return fdx_fail(FDX_ERR_INTERNAL, "narrow-K transpose of %d-byte words", p->word);
    else {
        const int K = p->s[0], B = p->s[1], kw = p->vnk * (int)sizeof(T);
        FDX_CHECK(p->kind == FDX_PLAN_TILED && p->rank >= 3 && (kw == 4 || kw == 8) && K != 0 && B != 0 &&
                      p->n[K] == p->vnk && p->ss[0] == 1 && p->ds[K] == 1 && p->ds[B] == p->vnk,
                  FDX_ERR_INTERNAL, "narrow-K transpose: plan of rank %d, K %d", p->rank, p->vnk);
        NkSpec a;
        memset(&a, 0, sizeof a);
        a.na = (uint32_t)p->n[0], a.nb = (uint32_t)p->n[B];
        a.ks = p->ss[K], a.bs = p->ss[B], a.bd = p->ds[B], a.ad = p->ds[0];
        const int64_t chunks = (p->n[0] * (int64_t)sizeof(T) + 15) / 16;
        const int64_t lines = vec_axes_make(&a.batch, p, 1, K, B);
        const int64_t total = lines * chunks * p->n[B];
        FDX_CHECK(p->n[0] < ((int64_t)1 << 31) && total + THREADS < ((int64_t)1 << 31), FDX_ERR_INTERNAL,
                  "narrow-K transpose: %lld items", (long long)total);
        a.fb = fd(p->n[B]), a.fc = fd(chunks);
        a.total = (uint32_t)total;
        a.src_lo = (uint64_t)(uintptr_t)src, a.src_hi = a.src_lo + (uint64_t)p->count * sizeof(T);
        if (!on_host) {
            if (kw == 8) nk_kernel<T, 8><<<blocks_of(total, THREADS), THREADS, 0, st>>>((T *)dst, (const T *)src, a);
            else nk_kernel<T, 4><<<blocks_of(total, THREADS), THREADS, 0, st>>>((T *)dst, (const T *)src, a);
            FDX_CUDA_CHECK_LAUNCH("nk_kernel");
            return FDX_OK;
        }
        VecCount cnt;
        FDX_TRY(vec_count_open(&cnt, dst, (size_t)p->count * sizeof(T), "narrow-K transpose"));
        fdx_status r = FDX_OK;
        for (uint32_t g = 0; g < a.total && r == FDX_OK; g++)
            if (!(kw == 8 ? nk_item<T, 8, true>(a, g, (T *)dst, (const T *)src, &cnt)
                          : nk_item<T, 4, true>(a, g, (T *)dst, (const T *)src, &cnt)))
                r = fdx_fail(FDX_ERR_INTERNAL, "narrow-K transpose: item %u stores outside dst", g);
        if (r == FDX_OK && vec_misaligned)
            r = fdx_fail(FDX_ERR_INTERNAL, "narrow-K transpose: %lu stores off their size", vec_misaligned);
        return vec_count_close(&cnt, r, "narrow-K transpose");
    }
}
