/* fdx_layout_cuda_ug: the unit gather (plan->vug = R; the planner's
   choose_ug says when).  Included by fdx_layout_cuda_vec.cuh (vec_load16,
   vec_shift, VecCount come from there).

   Why: a 2D transpose of short kept rows ("units" of R elements, U = R e
   bytes: rt1-088, 2-byte units of 3, 11396 x 14047 units, 916 MiB) took
   the sub-word gather tiles at 0.43 of a same-size copy (H100, s13a); ncu
   (s13c, tr13): issue slots 75% busy, DRAM 39%, 19 of 32 threads active a
   warp, shared loads 2.4-way in conflict: instruction-bound.  Here a
   thread takes NU = 16 consecutive units of one src row (one K index:
   16 U contiguous bytes, read as realigned 16-byte words) and stores each
   unit's R elements at their dst places; the warp's 32 consecutive K
   indices make each store cover 32 consecutive units of one dst row (32 U
   contiguous bytes, its R stores a unit filling them).  No buffer.

   Items: g = (k, chunk c of 16 units along A, batch), k fastest. */

constexpr int UG_NU = 16; /* units a thread */

struct UgSpec {
    uint32_t na, nk;               /* A and K extents (units) */
    int64_t ks, ad;                /* src stride of K, dst stride of A (elements) */
    FastDiv fk, fc;                /* K extent, A chunks */
    uint32_t total;
    VecAxes batch;                 /* the batch axes */
    uint64_t src_lo, src_hi;
};

template <typename T, int R, bool CHECK>
__host__ __device__ __forceinline__ bool ug_item(const UgSpec &s, uint32_t g, T *dst, const T *src, const VecCount *count)
{
    constexpr int U = R * (int)sizeof(T), BYTES = UG_NU * U, NW = BYTES / 16; /* NU U is a multiple of 16 */
    static_assert(BYTES % 16 == 0, "ug: whole 16-byte words a chunk");
    if (g >= s.total) return true;
    uint32_t rest = hqdiv(g, s.fk);
    const uint32_t k = g - rest * s.fk.d;
    uint32_t x = hqdiv(rest, s.fc);
    const uint32_t c = rest - x * s.fc.d;
    int64_t sb = (int64_t)k * s.ks, db = (int64_t)k * R;
    vec_axes_offsets(s.batch, x, sb, db);
    const uint32_t a0 = c * UG_NU;
    const uint64_t at = (uint64_t)(uintptr_t)(src + sb + (int64_t)a0 * R);
    const uint32_t sr = (uint32_t)(at & 15);
    uint32_t u[4 * NW + 4], v[4 * NW]; /* the aligned words, the chunk's bytes realigned */
    DEVICE_UNROLL
    for (int i = 0; i <= NW; i++) {
        if (i == NW && !sr) {
            u[4 * i] = u[4 * i + 1] = u[4 * i + 2] = u[4 * i + 3] = 0;
            continue;
        }
        vec_load16(at - sr + 16 * (uint64_t)i, s.src_lo, s.src_hi, u + 4 * i);
    }
    DEVICE_UNROLL
    for (int i = 0; i < NW; i++) {
        if (sr) vec_shift(u + 4 * i, sr, v + 4 * i);
        else v[4 * i] = u[4 * i], v[4 * i + 1] = u[4 * i + 1], v[4 * i + 2] = u[4 * i + 2], v[4 * i + 3] = u[4 * i + 3];
    }
    DEVICE_UNROLL
    for (int j = 0; j < UG_NU; j++) {
        if (a0 + (uint32_t)j >= s.na) break;
        T *d = dst + db + (int64_t)(a0 + j) * s.ad;
        DEVICE_UNROLL
        for (int m = 0; m < R; m++) {
            constexpr int E = (int)sizeof(T);
            const int b = j * U + m * E; /* the element's first byte in v */
            uint32_t val;
            if constexpr (E == 4) val = v[b >> 2];
            else val = v[b >> 2] >> (8 * (b & 3)); /* E = 1, 2: inside one word (elements aligned to their size) */
#ifndef __CUDA_ARCH__
            vec_misaligned += ((uintptr_t)(d + m) % E) != 0;
            if (CHECK && !vec_count(*count, (uint64_t)(uintptr_t)(d + m), 0, E)) return false;
#endif
            d[m] = (T)val;
        }
    }
    return true;
}

template <typename T, int R>
__global__ void __launch_bounds__(THREADS) ug_kernel(T *__restrict__ dst, const T *__restrict__ src, UgSpec s)
{
    ug_item<T, R, false>(s, blockIdx.x * (uint32_t)THREADS + threadIdx.x, dst, src, nullptr);
}

template <typename T, int R> fdx_status ug_launch(const UgSpec &a, T *dst, const T *src, int64_t count, cudaStream_t st, bool on_host)
{
    if (!on_host) {
        ug_kernel<T, R><<<blocks_of(a.total, THREADS), THREADS, 0, st>>>(dst, src, a);
        FDX_CUDA_CHECK_LAUNCH("ug_kernel");
        return FDX_OK;
    }
    VecCount cnt;
    FDX_TRY(vec_count_open(&cnt, dst, (size_t)count * sizeof(T), "unit gather"));
    fdx_status r = FDX_OK;
    for (uint32_t g = 0; g < a.total && r == FDX_OK; g++)
        if (!ug_item<T, R, true>(a, g, dst, src, &cnt)) r = fdx_fail(FDX_ERR_INTERNAL, "unit gather: item %u stores outside dst", g);
    return vec_count_close(&cnt, r, "unit gather");
}

/* Units of at most UG_MAX_BYTES (U 16-byte words of registers a thread). */
constexpr int UG_MAX_BYTES = 8;
template <typename T, int R>
fdx_status ug_pick(const UgSpec &a, T *dst, const T *src, int64_t count, cudaStream_t st, bool on_host)
{
    if constexpr (R * sizeof(T) <= (size_t)UG_MAX_BYTES) return ug_launch<T, R>(a, dst, src, count, st, on_host);
    return fdx_fail(FDX_ERR_INTERNAL, "unit gather: units of %d %zu-byte elements", R, sizeof(T));
}

/* A unit-gather plan (plan->vug = R: units of R elements, axis 0 kept; A =
   axis 1, K = s[1]; the rest batch axes) on the device or emulated. */
template <typename T>
fdx_status run_ug(void *dst, const void *src, const fdx_perm_plan *p, cudaStream_t st, bool on_host)
{
    const int R = p->vug, K = p->rank >= 3 ? p->s[1] : -1;
    FDX_CHECK(p->kind == FDX_PLAN_TILED && p->rank >= 3 && p->s[0] == 0 && p->n[0] == R && K > 1 && p->ss[1] == R &&
                  p->ds[K] == R,
              FDX_ERR_INTERNAL, "unit gather: plan of rank %d, units of %d", p->rank, R);
    UgSpec a;
    memset(&a, 0, sizeof a);
    a.na = (uint32_t)p->n[1], a.nk = (uint32_t)p->n[K];
    a.ks = p->ss[K], a.ad = p->ds[1];
    const int64_t chunks = (p->n[1] + UG_NU - 1) / UG_NU;
    const int64_t lines = vec_axes_make(&a.batch, p, 2, K, -1);
    const int64_t total = lines * chunks * p->n[K];
    FDX_CHECK(p->n[1] < ((int64_t)1 << 31) && total + THREADS < ((int64_t)1 << 31), FDX_ERR_INTERNAL,
              "unit gather: %lld items", (long long)total);
    a.fk = fd(p->n[K]), a.fc = fd(chunks);
    a.total = (uint32_t)total;
    a.src_lo = (uint64_t)(uintptr_t)src, a.src_hi = a.src_lo + (uint64_t)p->count * sizeof(T);
    T *d = (T *)dst;
    const T *s = (const T *)src;
    switch (R) { /* units of U = R sizeof(T) <= 8 bytes */
    case 2: return ug_pick<T, 2>(a, d, s, p->count, st, on_host);
    case 3: return ug_pick<T, 3>(a, d, s, p->count, st, on_host);
    case 4: return ug_pick<T, 4>(a, d, s, p->count, st, on_host);
    case 5: return ug_pick<T, 5>(a, d, s, p->count, st, on_host);
    case 6: return ug_pick<T, 6>(a, d, s, p->count, st, on_host);
    case 7: return ug_pick<T, 7>(a, d, s, p->count, st, on_host);
    }
    return fdx_fail(FDX_ERR_INTERNAL, "unit gather: units of %d %d-byte elements", R, p->word);
}
