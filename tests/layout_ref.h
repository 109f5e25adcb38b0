/* layout_ref: what the layout tests share: reference loops through the index
   function, random shapes (1, 2, 3, primes), random permutations, buffers in
   a context's memory, and round-trip cases that return their converted bytes
   so CPU and GPU results can be compared bit for bit. */
#ifndef LAYOUT_REF_H
#define LAYOUT_REF_H

#include "backends/fdx_backend.h"
#include "fdx_test.h"

#include <string.h>

static const size_t lt_elems[] = {1, 2, 4, 8, 16};

/* The random suite's worst sub-word permutations (session 8 records): their
   ranks' perms, padded with fixed axes to rank 6, for the gather tests on
   the CPU (shapes scaled down) and the GPU (near full size): rt1-120 kept
   7-element rows, rt1-171 16 x 4 fastest sides, rt1-149 and rt1-049 K = 3,
   rt1-147 A = 4, rt1-004 5-element kept rows, rt1-088, rt1-092, rt1-175,
   rt1-100. */
enum { LT_WORST = 10 };
/* The rank of a shape padded to 6 axes with trailing 1s. */
static int lt_rank6(const int64_t *sh)
{
    int rank = 6;
    while (rank > 1 && sh[rank - 1] == 1) rank--;
    return rank;
}
static const int lt_worst_perm[LT_WORST][6] = {{0, 3, 1, 2, 4, 5}, {3, 1, 0, 5, 4, 2}, {2, 0, 1, 3, 4, 5},
                                               {3, 0, 1, 4, 2, 5}, {2, 0, 4, 1, 3, 5}, {0, 2, 3, 1, 4, 5},
                                               {0, 4, 1, 2, 3, 5}, {0, 3, 2, 1, 4, 5}, {0, 2, 4, 1, 3, 5},
                                               {0, 4, 3, 1, 5, 2}};

static uint64_t lt_next(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1DULL;
}

static void lt_fill(unsigned char *p, size_t bytes, uint64_t *seed)
{
    for (size_t i = 0; i < bytes; i++) p[i] = (unsigned char)(lt_next(seed) >> 56);
}

/* Extents from a list with 1, 2, 3 and primes; total kept under max_count. */
static int64_t lt_shape(int rank, int64_t *shape, int64_t max_count, uint64_t *seed)
{
    static const int64_t pick[] = {1, 2, 3, 5, 7, 11, 13, 17, 31, 37, 64, 67, 97, 128, 131};
    int64_t n;
    do {
        n = 1;
        for (int a = 0; a < rank; a++) shape[a] = pick[lt_next(seed) % (sizeof pick / sizeof pick[0])], n *= shape[a];
    } while (n > max_count);
    return n;
}

static void lt_perm(int rank, int *perm, uint64_t *seed)
{
    for (int a = 0; a < rank; a++) perm[a] = a;
    for (int a = rank - 1; a > 0; a--) {
        int b = (int)(lt_next(seed) % (uint64_t)(a + 1)), t = perm[a];
        perm[a] = perm[b];
        perm[b] = t;
    }
}

static void lt_coords(int64_t q, int rank, const int64_t *shape, int64_t *c)
{
    for (int a = 0; a < rank; a++) c[a] = q % shape[a], q /= shape[a];
}

/* Points q = 0..n-1 (first index fastest) whose offset o[q] differs from
   fdx_layout_offset: checks an emitted index expression. */
static int lt_offsets_wrong(const fdx_layout *l, int rank, const int64_t *shape, const long long *o, int64_t n)
{
    int bad = 0;
    for (int64_t q = 0; q < n; q++) {
        int64_t c[FDX_MAX_RANK];
        lt_coords(q, rank, shape, c);
        bad += o[q] != fdx_layout_offset(l, shape, c);
    }
    return bad;
}

/* dst (layout l) from plain src, through fdx_layout_offset. */
static void lt_ref_layout(unsigned char *dst, const unsigned char *src, const fdx_layout *l, size_t elem, int rank,
                          const int64_t *shape, int64_t count)
{
    int64_t c[FDX_MAX_RANK];
    for (int64_t q = 0; q < count; q++) {
        lt_coords(q, rank, shape, c);
        memcpy(dst + (size_t)fdx_layout_offset(l, shape, c) * elem, src + (size_t)q * elem, elem);
    }
}

/* ---- buffers in the context's memory ---- */
static void *lt_alloc(fdx_ctx *ctx, size_t bytes)
{
    void *p = NULL;
    CHECK_OK(fdx_ctx_ops(ctx)->alloc(bytes, &p));
    return p;
}
static void lt_put(fdx_ctx *ctx, void *dev, const void *host, size_t bytes)
{
    CHECK_OK(fdx_ctx_ops(ctx)->copy(dev, host, bytes, FDX_COPY_H2D, NULL));
    CHECK_OK(fdx_ctx_ops(ctx)->stream_sync(NULL));
}
static void lt_get(fdx_ctx *ctx, void *host, const void *dev, size_t bytes)
{
    CHECK_OK(fdx_ctx_ops(ctx)->stream_sync(NULL));
    CHECK_OK(fdx_ctx_ops(ctx)->copy(host, dev, bytes, FDX_COPY_D2H, NULL));
    CHECK_OK(fdx_ctx_ops(ctx)->stream_sync(NULL));
}
static void lt_poison(fdx_ctx *ctx, void *dev, size_t bytes)
{
    CHECK_OK(fdx_ctx_ops(ctx)->memset(dev, 0xFF, bytes, NULL));
    CHECK_OK(fdx_ctx_ops(ctx)->stream_sync(NULL));
}

/* Plain -> l -> plain on ctx: the middle must equal the reference, the end
   must equal the input bit for bit.  Returns the middle (malloc'ed). */
static unsigned char *lt_layout_case(fdx_ctx *ctx, size_t elem, int rank, const int64_t *shape, const fdx_layout *l,
                                     uint64_t seed)
{
    int64_t count = 1;
    for (int a = 0; a < rank; a++) count *= shape[a];
    size_t bytes = (size_t)count * elem;
    unsigned char *in = malloc(bytes), *mid = malloc(bytes), *ref = malloc(bytes), *back = malloc(bytes);
    lt_fill(in, bytes, &seed);
    lt_ref_layout(ref, in, l, elem, rank, shape, count);
    void *d0 = lt_alloc(ctx, bytes), *d1 = lt_alloc(ctx, bytes);
    fdx_layout id;
    fdx_layout_identity(rank, &id);
    lt_put(ctx, d0, in, bytes);
    lt_poison(ctx, d1, bytes);
    CHECK_OK(fdx_layout_convert(ctx, d1, l, d0, &id, elem, rank, shape, NULL));
    lt_get(ctx, mid, d1, bytes);
    char desc[160];
    int o = snprintf(desc, sizeof desc, "elem %zu shape", elem);
    for (int a = 0; a < rank; a++) o += snprintf(desc + o, sizeof desc - (size_t)o, "%s%lld", a ? "x" : " ", (long long)shape[a]);
    o += snprintf(desc + o, sizeof desc - (size_t)o, " perm");
    for (int a = 0; a < rank; a++) o += snprintf(desc + o, sizeof desc - (size_t)o, "%s%d", a ? "," : " ", l->perm[a]);
    snprintf(desc + o, sizeof desc - (size_t)o, " diag %s", fdx_diag_name(l->diag));
    CHECK(memcmp(mid, ref, bytes) == 0, "%s on %s: layout differs from the reference", desc,
          fdx_backend_kind_name(fdx_ctx_backend(ctx)));
    lt_poison(ctx, d0, bytes);
    CHECK_OK(fdx_layout_convert(ctx, d0, &id, d1, l, elem, rank, shape, NULL));
    lt_get(ctx, back, d0, bytes);
    CHECK(memcmp(back, in, bytes) == 0, "%s on %s: round trip not bit-identical", desc,
          fdx_backend_kind_name(fdx_ctx_backend(ctx)));
    fdx_ctx_ops(ctx)->free(d0);
    fdx_ctx_ops(ctx)->free(d1);
    free(in);
    free(ref);
    free(back);
    return mid;
}

/* fdx_permute then the inverse permutation; returns the permuted bytes. */
static unsigned char *lt_permute_case(fdx_ctx *ctx, size_t elem, int rank, const int64_t *shape, const int *perm,
                                      uint64_t seed)
{
    fdx_layout l;
    fdx_layout_make(rank, perm, FDX_DIAG_NONE, &l);
    int64_t count = 1, dshape[FDX_MAX_RANK];
    int inv[FDX_MAX_RANK];
    for (int a = 0; a < rank; a++) count *= shape[a], dshape[a] = shape[perm[a]], inv[perm[a]] = a;
    size_t bytes = (size_t)count * elem;
    unsigned char *in = malloc(bytes), *mid = malloc(bytes), *ref = malloc(bytes), *back = malloc(bytes);
    lt_fill(in, bytes, &seed);
    lt_ref_layout(ref, in, &l, elem, rank, shape, count); /* a permuted layout is the transposed array */
    void *d0 = lt_alloc(ctx, bytes), *d1 = lt_alloc(ctx, bytes);
    lt_put(ctx, d0, in, bytes);
    lt_poison(ctx, d1, bytes);
    CHECK_OK(fdx_permute(ctx, d1, d0, elem, rank, shape, perm, NULL));
    lt_get(ctx, mid, d1, bytes);
    CHECK(memcmp(mid, ref, bytes) == 0, "permute elem %zu rank %d (%lld..) perm %d,%d..: differs from reference", elem,
          rank, (long long)shape[0], perm[0], rank > 1 ? perm[1] : -1);
    lt_poison(ctx, d0, bytes);
    CHECK_OK(fdx_permute(ctx, d0, d1, elem, rank, dshape, inv, NULL));
    lt_get(ctx, back, d0, bytes);
    CHECK(memcmp(back, in, bytes) == 0, "permute elem %zu rank %d: round trip not bit-identical", elem, rank);
    fdx_ctx_ops(ctx)->free(d0);
    fdx_ctx_ops(ctx)->free(d1);
    free(in);
    free(ref);
    free(back);
    return mid;
}

#endif
