/* Direct transposes (plan->direct, see choose_direct in fdx_layout_plan.c):
   no tile, no shared memory.  Thread t of block b takes DIRECT_UNROLL
   groups of P consecutive dst words, groups b * THREADS * DIRECT_UNROLL + k *
   THREADS + t (k = 0 .. DIRECT_UNROLL - 1): each of its P * DIRECT_UNROLL
   words is found in src by decomposing the dst index over the merged dst
   axes with fast divisions, all loads are issued before any store (ILP), and
   each group is stored as one P-word access, so a warp's stores are
   contiguous.  Why: arrays that fit in the 50 MB L2 (the bench's repetitions
   keep them there) are latency- and instruction-bound, and the tile paths'
   fixed costs (buffers, tables, cp.async, barriers) made them take ~19 us
   where a same-size copy takes ~10 us (s12k: PyTorch's one-thread-an-element
   permute 0.95-1.04 of a copy on rt1-120 / -100 / -175 / -168 against fdx's
   0.55-0.65).  The reads are gathered: it pays only where consecutive dst
   words sit close together in src (short kept rows, small strides), which
   the planner estimates. */

/* Loop depth: groups a thread moves, loads in flight before the stores. */
constexpr int DIRECT_UNROLL = 4;

/* The dst axes in dst order (fastest first): extent and src stride in words. */
struct DirectSpec {
    int nr;
    uint32_t count; /* words in the array */
    FastDiv m[FDX_MAX_RANK];
    uint32_t st[FDX_MAX_RANK];
};

/* The src word of dst word i. */
__host__ __device__ __forceinline__ uint32_t direct_src(const DirectSpec &a, uint32_t i)
{
    uint32_t off = 0;
    DEVICE_UNROLL
    for (int q = 0; q < FDX_MAX_RANK; q++) {
        if (q + 1 >= a.nr) {
            off += i * a.st[q];
            break;
        }
        const uint32_t d = hqdiv(i, a.m[q]);
        off += (i - d * a.m[q].d) * a.st[q];
        i = d;
    }
    return off;
}

/* P words of T stored as one access. */
template <typename T, int P> struct DirectPack;
template <typename T> struct DirectPack<T, 1> { typedef T type; };
template <typename T> struct DirectPack<T, 2> {
    typedef typename Word<2 * sizeof(T)>::type type;
};
template <typename T> struct DirectPack<T, 4> {
    typedef typename Word<4 * sizeof(T)>::type type;
};

/* The host emulation's bookkeeping (CHECK): seen[i] counts the stores of dst
   word i; an access outside the array's `count` words sets seen[count]
   instead of taking place (loads read word 0). */
template <bool CHECK>
__host__ __device__ __forceinline__ uint32_t direct_load_at(uint32_t i, uint32_t count, unsigned char *seen)
{
    if (CHECK && i >= count) return seen[count] = 1, 0;
    return i;
}
template <bool CHECK, int P>
__host__ __device__ __forceinline__ bool direct_store_ok(uint32_t i, uint32_t count, unsigned char *seen)
{
    if (!CHECK) return true;
    if (i + P > count) return seen[count] = 1, false;
    for (int j = 0; j < P; j++) seen[i + j]++;
    return true;
}

/* One thread's groups (group g0 + k * THREADS, k < DIRECT_UNROLL); CHECK: the
   host emulation (see direct_load_at). */
template <typename T, int P, bool CHECK>
__host__ __device__ __forceinline__ void direct_thread(const DirectSpec &a, uint32_t g0, T *__restrict__ dst,
                                                       const T *__restrict__ src, unsigned char *seen)
{
    typedef typename DirectPack<T, P>::type W;
    union Pk {
        W w;
        T e[P];
    };
    if ((g0 + (uint32_t)(DIRECT_UNROLL - 1) * THREADS + 1) * (uint32_t)P <= a.count) {
        Pk v[DIRECT_UNROLL];
        DEVICE_UNROLL
        for (int k = 0; k < DIRECT_UNROLL; k++)
            DEVICE_UNROLL
            for (int j = 0; j < P; j++)
                v[k].e[j] = src[direct_load_at<CHECK>(direct_src(a, (g0 + (uint32_t)k * THREADS) * P + j), a.count, seen)];
        DEVICE_UNROLL
        for (int k = 0; k < DIRECT_UNROLL; k++) {
            const uint32_t g = g0 + (uint32_t)k * THREADS;
            if (direct_store_ok<CHECK, P>(g * P, a.count, seen)) ((W *)dst)[g] = v[k].w;
        }
        return;
    }
    /* the array's last block: word by word, inside the array */
    for (int k = 0; k < DIRECT_UNROLL; k++)
        for (int j = 0; j < P; j++) {
            const uint32_t i = (g0 + (uint32_t)k * THREADS) * P + j;
            if (i < a.count && direct_store_ok<CHECK, 1>(i, a.count, seen))
                dst[i] = src[direct_load_at<CHECK>(direct_src(a, i), a.count, seen)];
        }
}

template <typename T, int P>
__global__ void __launch_bounds__(THREADS) direct_kernel(T *__restrict__ dst, const T *__restrict__ src, DirectSpec a)
{
    direct_thread<T, P, false>(a, blockIdx.x * (uint32_t)(THREADS * DIRECT_UNROLL) + threadIdx.x, dst, src, nullptr);
}

template <typename T>
fdx_status direct_spec(const fdx_perm_plan *p, DirectSpec *out, int64_t *blocks)
{
    DirectSpec a;
    memset(&a, 0, sizeof a);
    FDX_CHECK(p->rank >= 1 && p->count < ((int64_t)1 << 31) && (p->direct == 1 || p->direct == 2 || p->direct == 4) &&
                  (size_t)p->direct * sizeof(T) <= 16,
              FDX_ERR_INTERNAL, "direct transpose: %lld words of %zu bytes, groups of %d", (long long)p->count,
              sizeof(T), p->direct);
    a.nr = p->rank;
    a.count = (uint32_t)p->count;
    for (int q = 0; q < p->rank; q++) {
        const int ax = p->s[q];
        a.m[q] = fd(p->n[ax]);
        a.st[q] = (uint32_t)p->ss[ax];
    }
    *blocks = blocks_of(p->count, (int64_t)THREADS * DIRECT_UNROLL * p->direct);
    *out = a;
    return FDX_OK;
}

/* Host emulation: every block and thread through direct_thread; each dst
   word stored exactly once. */
template <typename T, int P>
fdx_status emulate_direct(T *dst, const T *src, const DirectSpec &a, int64_t blocks)
{
    unsigned char *seen = (unsigned char *)calloc((size_t)a.count + 1, 1);
    if (!seen) return fdx_fail(FDX_ERR_NOMEM, "emulated direct transpose of %u words", a.count);
    for (int64_t b = 0; b < blocks; b++)
        for (uint32_t t = 0; t < (uint32_t)THREADS; t++)
            direct_thread<T, P, true>(a, (uint32_t)b * (uint32_t)(THREADS * DIRECT_UNROLL) + t, dst, src, seen);
    fdx_status st = seen[a.count] ? fdx_fail(FDX_ERR_INTERNAL, "direct transpose: an access outside the array") : FDX_OK;
    for (uint32_t i = 0; i < a.count && st == FDX_OK; i++)
        if (seen[i] != 1) st = fdx_fail(FDX_ERR_INTERNAL, "direct transpose: dst word %u stored %d times", i, seen[i]);
    free(seen);
    return st;
}

template <typename T, int P>
fdx_status run_direct_p(void *dst, const void *src, const fdx_perm_plan *p, cudaStream_t st, bool on_host)
{
    if constexpr (P * sizeof(T) > 16) return fdx_fail(FDX_ERR_INTERNAL, "direct groups of %d %zu-byte words", P, sizeof(T));
    else {
        static thread_local SpecMemo<DirectSpec> memo; /* see SpecMemo */
        if (on_host || !memo_hit(memo, p, nullptr)) {
            DirectSpec a;
            int64_t blocks;
            FDX_TRY(direct_spec<T>(p, &a, &blocks));
            if (on_host) return emulate_direct<T, P>((T *)dst, (const T *)src, a, blocks);
            memo_keep(memo, p, nullptr, a, blocks, 0);
        }
        direct_kernel<T, P><<<(unsigned)memo.ntiles, THREADS, 0, st>>>((T *)dst, (const T *)src, memo.spec);
        FDX_CUDA_CHECK_LAUNCH("direct_kernel");
        return FDX_OK;
    }
}

/* Stepped direct transposes (plan->dstep = q >= 1, the dst position of src
   axis 0): thread j takes DIRECT_UNROLL consecutive indices of dst axis q
   (consecutive src words: one sector for 8-byte words) times P consecutive
   indices of dst axis 0 (one P-word store each), lanes consecutive along dst
   axis 0: a warp's stores are contiguous and its DIRECT_UNROLL loads of one
   dst column hit the same src sectors (the L1 keeps them).  Why: the flat
   kernel's warp loads touch 32 lines where the dst-contiguous axis strides
   through src (plain 2D transposes); here each thread decomposes one index
   for DIRECT_UNROLL * P words and reads each sector once. */
struct StepSpec {
    int nr, kq;       /* dst axes; the stepped one (dst position of src axis 0) */
    uint32_t threads; /* threads with work: the product of e */
    FastDiv e[FDX_MAX_RANK];        /* per dst axis: thread extents (axis 0 / P, axis kq / DIRECT_UNROLL rounded up) */
    uint32_t st[FDX_MAX_RANK];      /*   src stride of one thread step */
    uint32_t dt[FDX_MAX_RANK];      /*   dst stride of one thread step */
    uint32_t mk;                    /* extent of axis kq */
    uint32_t s0, sk, dk;            /* src stride along dst axis 0; src and dst strides along axis kq */
    /* Warp tiles (plan->dlanes = LB > 0): a warp's lanes are LA = 32 / LB
       threads along dst axis 0 times LB along axis kq (e, st, dt above then
       count warps), so that LB lanes read neighbouring src words; e0, ek:
       the thread extents along axes 0 and kq. */
    uint32_t lb, la_shift, e0, ek;
    uint32_t count; /* words in the array */
};

template <typename T, int P, bool CHECK>
__host__ __device__ __forceinline__ void step_thread(const StepSpec &a, uint32_t j, T *__restrict__ dst,
                                                     const T *__restrict__ src, unsigned char *seen)
{
    typedef typename DirectPack<T, P>::type W;
    union Pk {
        W w;
        T e[P];
    };
    if (j >= a.threads) return;
    const uint32_t lane = j & 31, la = lane & ((1u << a.la_shift) - 1), lb = lane >> a.la_shift;
    if (a.lb) j >>= 5;
    uint32_t soff = 0, doff = 0, ck = 0, c0 = 0;
    DEVICE_UNROLL
    for (int q = 0; q < FDX_MAX_RANK; q++) {
        if (q >= a.nr) break;
        const uint32_t d = q + 1 < a.nr ? hqdiv(j, a.e[q]) : 0, c = j - d * a.e[q].d;
        soff += c * a.st[q];
        doff += c * a.dt[q];
        if (q == a.kq) ck = c;
        if (q == 0) c0 = c;
        j = d;
    }
    if (a.lb) { /* the lane's place in its warp tile */
        c0 = (c0 << a.la_shift) + la;
        ck = ck * a.lb + lb;
        if (c0 >= a.e0 || ck >= a.ek) return;
        soff += la * (uint32_t)P * a.s0 + lb * (uint32_t)DIRECT_UNROLL * a.sk;
        doff += la * (uint32_t)P + lb * (uint32_t)DIRECT_UNROLL * a.dk;
    }
    const uint32_t rem = a.mk - ck * (uint32_t)DIRECT_UNROLL; /* indices left along axis kq */
    if (rem >= (uint32_t)DIRECT_UNROLL) {
        Pk v[DIRECT_UNROLL];
        DEVICE_UNROLL
        for (int k = 0; k < DIRECT_UNROLL; k++)
            DEVICE_UNROLL
            for (int i = 0; i < P; i++)
                v[k].e[i] = src[direct_load_at<CHECK>(soff + (uint32_t)k * a.sk + (uint32_t)i * a.s0, a.count, seen)];
        DEVICE_UNROLL
        for (int k = 0; k < DIRECT_UNROLL; k++)
            if (direct_store_ok<CHECK, P>(doff + (uint32_t)k * a.dk, a.count, seen))
                *(W *)(dst + doff + (uint32_t)k * a.dk) = v[k].w;
        return;
    }
    /* the axis' last indices (or all of a short axis): the same, predicated,
       loads still all in flight (v zeroed: the host compiler cannot see
       that the stores take only what the loads set) */
    Pk v[DIRECT_UNROLL] = {};
    DEVICE_UNROLL
    for (int k = 0; k < DIRECT_UNROLL; k++)
        if ((uint32_t)k < rem)
            DEVICE_UNROLL
            for (int i = 0; i < P; i++)
                v[k].e[i] = src[direct_load_at<CHECK>(soff + (uint32_t)k * a.sk + (uint32_t)i * a.s0, a.count, seen)];
    DEVICE_UNROLL
    for (int k = 0; k < DIRECT_UNROLL; k++)
        if ((uint32_t)k < rem && direct_store_ok<CHECK, P>(doff + (uint32_t)k * a.dk, a.count, seen))
            *(W *)(dst + doff + (uint32_t)k * a.dk) = v[k].w;
}

template <typename T, int P>
__global__ void __launch_bounds__(THREADS) step_kernel(T *__restrict__ dst, const T *__restrict__ src, StepSpec a)
{
    step_thread<T, P, false>(a, blockIdx.x * (uint32_t)THREADS + threadIdx.x, dst, src, nullptr);
}

inline fdx_status step_spec(const fdx_perm_plan *p, size_t elem, StepSpec *out, int64_t *blocks)
{
    StepSpec a;
    memset(&a, 0, sizeof a);
    const int P = p->direct, q = p->dstep;
    FDX_CHECK(p->rank >= 2 && q >= 1 && q < p->rank && p->s[q] == 0 && p->count < ((int64_t)1 << 31) &&
                  (P == 1 || P == 2 || P == 4) && (size_t)P * elem <= 16 && p->n[p->s[0]] % P == 0,
              FDX_ERR_INTERNAL, "stepped direct transpose: rank %d, step axis %d, groups of %d, %zu-byte words",
              p->rank, q, P, elem);
    FDX_CHECK(p->dlanes >= 0 && p->dlanes <= 32 && (p->dlanes & (p->dlanes - 1)) == 0, FDX_ERR_INTERNAL,
              "stepped direct transpose: %d lanes along the stepped axis", p->dlanes);
    a.nr = p->rank;
    a.kq = q;
    a.lb = (uint32_t)p->dlanes;
    const uint32_t LA = a.lb ? 32 / a.lb : 1;
    while ((1u << a.la_shift) < LA) a.la_shift++;
    int64_t threads = 1, dstride = 1;
    for (int r = 0; r < p->rank; r++) {
        const int ax = p->s[r];
        int64_t m = p->n[ax], e = r == 0 ? m / P : r == q ? (m + DIRECT_UNROLL - 1) / DIRECT_UNROLL : m,
                f = r == 0 ? P : r == q ? DIRECT_UNROLL : 1;
        if (r == 0) a.e0 = (uint32_t)e;
        if (r == q) a.ek = (uint32_t)e;
        if (a.lb && r == 0) e = (e + LA - 1) / LA, f *= LA; /* warp tiles along axis 0 */
        if (a.lb && r == q) e = (e + a.lb - 1) / a.lb, f *= a.lb; /* and along axis q */
        a.e[r] = fd(e);
        a.st[r] = (uint32_t)(p->ss[ax] * f);
        a.dt[r] = (uint32_t)(dstride * f);
        if (r == q) a.mk = (uint32_t)m, a.sk = (uint32_t)p->ss[ax], a.dk = (uint32_t)dstride;
        if (r == 0) a.s0 = (uint32_t)p->ss[ax];
        threads *= e;
        dstride *= m;
    }
    if (a.lb) threads *= 32; /* e counts warps */
    FDX_CHECK(threads < ((int64_t)1 << 32), FDX_ERR_INTERNAL, "stepped direct transpose: %lld threads", (long long)threads);
    a.threads = (uint32_t)threads;
    a.count = (uint32_t)p->count;
    *blocks = blocks_of(threads, THREADS);
    *out = a;
    return FDX_OK;
}

template <typename T, int P>
fdx_status emulate_step(T *dst, const T *src, const StepSpec &a, int64_t blocks, int64_t count)
{
    unsigned char *seen = (unsigned char *)calloc((size_t)count + 1, 1);
    if (!seen) return fdx_fail(FDX_ERR_NOMEM, "emulated stepped direct transpose of %lld words", (long long)count);
    for (int64_t j = 0; j < blocks * THREADS; j++) step_thread<T, P, true>(a, (uint32_t)j, dst, src, seen);
    fdx_status st = seen[count] ? fdx_fail(FDX_ERR_INTERNAL, "stepped direct transpose: an access outside the array") : FDX_OK;
    for (int64_t i = 0; i < count && st == FDX_OK; i++)
        if (seen[i] != 1)
            st = fdx_fail(FDX_ERR_INTERNAL, "stepped direct transpose: dst word %lld stored %d times", (long long)i, seen[i]);
    free(seen);
    return st;
}

template <typename T, int P>
fdx_status run_step_p(void *dst, const void *src, const fdx_perm_plan *p, cudaStream_t st, bool on_host)
{
    if constexpr (P * sizeof(T) > 16) return fdx_fail(FDX_ERR_INTERNAL, "direct groups of %d %zu-byte words", P, sizeof(T));
    else {
        static thread_local SpecMemo<StepSpec> memo; /* see SpecMemo */
        if (on_host || !memo_hit(memo, p, nullptr)) {
            StepSpec a;
            int64_t blocks;
            FDX_TRY(step_spec(p, sizeof(T), &a, &blocks));
            if (on_host) return emulate_step<T, P>((T *)dst, (const T *)src, a, blocks, p->count);
            memo_keep(memo, p, nullptr, a, blocks, 0);
        }
        step_kernel<T, P><<<(unsigned)memo.ntiles, THREADS, 0, st>>>((T *)dst, (const T *)src, memo.spec);
        FDX_CUDA_CHECK_LAUNCH("step_kernel");
        return FDX_OK;
    }
}

/* A direct plan (plan->direct = P, the words a store moves) on the device or
   emulated on the host. */
template <typename T>
fdx_status run_direct(void *dst, const void *src, const fdx_perm_plan *p, cudaStream_t st, bool on_host)
{
    if (p->dstep) switch (p->direct) {
        case 1: return run_step_p<T, 1>(dst, src, p, st, on_host);
        case 2: return run_step_p<T, 2>(dst, src, p, st, on_host);
        case 4: return run_step_p<T, 4>(dst, src, p, st, on_host);
        default: return fdx_fail(FDX_ERR_INTERNAL, "direct transpose: groups of %d words", p->direct);
        }
    switch (p->direct) {
    case 1: return run_direct_p<T, 1>(dst, src, p, st, on_host);
    case 2: return run_direct_p<T, 2>(dst, src, p, st, on_host);
    case 4: return run_direct_p<T, 4>(dst, src, p, st, on_host);
    default: return fdx_fail(FDX_ERR_INTERNAL, "direct transpose: groups of %d words", p->direct);
    }
}
