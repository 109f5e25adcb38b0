/* The layout engine on CUDA: every transform bit-identical to the CPU's
   (permutations of every rank and element size, diagonal layouts in all six
   variants, in-place square transposes, boxes, fdx_array_set_layout on device
   and host storage) and round trips bit-identical to the input.  Small sizes:
   this test also runs under compute-sanitizer.  Skipped without a device. */
#include "arrays/fdx_array_impl.h"
#include "layout_ref.h"

static fdx_ctx *cpu, *gpu;
static int reps = 2; /* FDX_TEST_QUICK=1 (under compute-sanitizer): 1 */

static void same(unsigned char *a, unsigned char *b, size_t bytes, const char *what, int rank, size_t elem)
{
    CHECK(memcmp(a, b, bytes) == 0, "%s rank %d elem %zu: CUDA differs from CPU", what, rank, elem);
    free(a);
    free(b);
}

static size_t count_bytes(int rank, const int64_t *shape, size_t elem)
{
    size_t n = elem;
    for (int a = 0; a < rank; a++) n *= (size_t)shape[a];
    return n;
}

static void permutations(uint64_t seed)
{
    for (int rank = 1; rank <= FDX_MAX_RANK; rank++)
        for (int e = 0; e < 5; e++)
            for (int rep = 0; rep < reps; rep++) {
                int64_t shape[FDX_MAX_RANK];
                int perm[FDX_MAX_RANK];
                lt_shape(rank, shape, 20000, &seed);
                lt_perm(rank, perm, &seed);
                size_t b = count_bytes(rank, shape, lt_elems[e]);
                same(lt_permute_case(cpu, lt_elems[e], rank, shape, perm, seed),
                     lt_permute_case(gpu, lt_elems[e], rank, shape, perm, seed), b, "permute", rank, lt_elems[e]);
                seed++;
            }
    const int64_t aos[4] = {5, 9, 10, 11}, soa[4] = {9, 10, 11, 5}, cube[3] = {33, 70, 35}, mat[2] = {129, 65};
    const int p_aos[4] = {1, 2, 3, 0}, p_soa[4] = {3, 0, 1, 2}, p_rev[3] = {2, 1, 0}, p_fast[3] = {1, 0, 2},
              p_slow[3] = {0, 2, 1}, p_t[2] = {1, 0}, p_keep[4] = {0, 3, 2, 1};
    for (int e = 0; e < 5; e++) {
        size_t el = lt_elems[e];
        same(lt_permute_case(cpu, el, 4, aos, p_aos, seed), lt_permute_case(gpu, el, 4, aos, p_aos, seed),
             count_bytes(4, aos, el), "aos-to-soa", 4, el);
        same(lt_permute_case(cpu, el, 4, soa, p_soa, seed), lt_permute_case(gpu, el, 4, soa, p_soa, seed),
             count_bytes(4, soa, el), "soa-to-aos", 4, el);
        same(lt_permute_case(cpu, el, 4, aos, p_keep, seed), lt_permute_case(gpu, el, 4, aos, p_keep, seed),
             count_bytes(4, aos, el), "short kept rows", 4, el);
        same(lt_permute_case(cpu, el, 3, cube, p_rev, seed), lt_permute_case(gpu, el, 3, cube, p_rev, seed),
             count_bytes(3, cube, el), "3d-reverse", 3, el);
        same(lt_permute_case(cpu, el, 3, cube, p_fast, seed), lt_permute_case(gpu, el, 3, cube, p_fast, seed),
             count_bytes(3, cube, el), "swap-fastest", 3, el);
        same(lt_permute_case(cpu, el, 3, cube, p_slow, seed), lt_permute_case(gpu, el, 3, cube, p_slow, seed),
             count_bytes(3, cube, el), "swap-slowest", 3, el);
        same(lt_permute_case(cpu, el, 2, mat, p_t, seed), lt_permute_case(gpu, el, 2, mat, p_t, seed),
             count_bytes(2, mat, el), "2d-transpose", 2, el);
        seed++;
    }
    /* The tile kernel's variants (the measurement switches too), each on
       packed tiles (short fastest axes extended by the next axes, cut axes
       with partial tiles), kept rows and a large odd transpose (partial tiles along both axes, thousands of blocks). */
    /* then two sector-skewed 2D tiles (dst row strides 1929 and 1027,
       off the sectors for 4-, 8- and 16-byte words; A cut and whole; a batch
       axis), and three whose 2D tile would be tiny (kept rows of 8 and 18
       with K = 4, 3; a 3 x 5 x 4 reversal): packed tiles unless
       FDX_LAYOUT_KERNEL=small2d.  FDX_LAYOUT_SUBWORD=0: the word kernel for
       1-, 2- and 4-byte elements too (they take the sub-word tile otherwise). */
    static const int64_t pk[][5] = {{67, 7, 5, 7, 30}, {5, 13, 50, 29, 1}, {127, 5000, 1, 1, 1}, {7, 17, 40, 11, 5},
                                    {64, 30, 20, 3, 1},  {1601, 1699, 1, 1, 1}, {100, 3, 643, 1, 1},
                                    {37, 1027, 1, 1, 1}, {8, 4, 41, 12, 1},    {18, 3, 31, 32, 1},
                                    {3, 5, 4, 16, 24}};
    static const int pkp[][5] = {{3, 1, 0, 4, 2}, {3, 1, 0, 2, 4}, {1, 0, 2, 3, 4}, {2, 3, 1, 4, 0},
                                 {0, 2, 1, 3, 4}, {1, 0, 2, 3, 4}, {2, 1, 0, 3, 4}, {1, 0, 2, 3, 4},
                                 {0, 2, 1, 3, 4}, {0, 3, 2, 1, 4}, {4, 3, 2, 1, 0}};
    static const char *variants[][2] = {{NULL, NULL},
                                        {"FDX_LAYOUT_KERNEL", "packed"},
                                        {"FDX_LAYOUT_KERNEL", "2d"},
                                        {"FDX_LAYOUT_ASYNC", "0"},
                                        {"FDX_LAYOUT_ASYNC", "1"},
                                        {"FDX_LAYOUT_TILE", "64x64"},
                                        {"FDX_LAYOUT_SKEW", "0"},
                                        {"FDX_LAYOUT_TILE_WALK", "0"},
                                        {"FDX_LAYOUT_KERNEL", "small2d"},
                                        {"FDX_LAYOUT_SUBWORD", "0"},
                                        {"FDX_LAYOUT_DIRECT", "1"},
                                        {"FDX_LAYOUT_DIRECT", "1:4"},
                                        {"FDX_LAYOUT_DIRECT", "3"},
                                        {"FDX_LAYOUT_DIRECT", "3:2"},
                                        {"FDX_LAYOUT_DIRECT", "3:1:8:64:4"}};
    for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
        setenv("FDX_LAYOUT_DIRECT", "0", 1); /* the tile kernels (the direct ones take most small arrays) */
        if (variants[v][0]) setenv(variants[v][0], variants[v][1], 1);
        char what[64];
        snprintf(what, sizeof what, "tile kernel %s=%s", variants[v][0] ? variants[v][0] : "default",
                 variants[v][1] ? variants[v][1] : "");
        for (int c = 0; c < (int)(sizeof pk / sizeof pk[0]); c++) {
            const int large = c == 5;
            /* under compute-sanitizer the large one runs with the default and the register path */
            if (large && reps == 1 && v != 0 && !(variants[v][0] && strcmp(variants[v][0], "FDX_LAYOUT_ASYNC") == 0))
                continue;
            for (int e = large; e < 5; e += large || reps == 1 ? 2 : 1) {
                if (large && e > 3) break; /* the large one: 2 bytes (register path) and 8 (cp.async) */
                /* the 64x64 override needs the cp.async path (4-, 8-, 16-byte words) */
                if (variants[v][1] && strcmp(variants[v][1], "64x64") == 0 && lt_elems[e] < 4) continue;
                same(lt_permute_case(cpu, lt_elems[e], 5, pk[c], pkp[c], seed),
                     lt_permute_case(gpu, lt_elems[e], 5, pk[c], pkp[c], seed), count_bytes(5, pk[c], lt_elems[e]),
                     what, 5, lt_elems[e]);
            }
        }
        if (variants[v][0]) unsetenv(variants[v][0]);
        unsetenv("FDX_LAYOUT_DIRECT");
    }
}

/* One permutation on the device with both buffers off their alignment
   (src `sshift`, dst `shift` elements into their allocations: rows start
   at any byte mod 16), guards around dst that must keep their poison,
   against the CPU. */
static void shifted_case(const char *what, size_t el, int rank, const int64_t *shape, const int *perm, int sshift,
                         int shift, uint64_t *seed)
{
    const size_t guard = 256, bytes = count_bytes(rank, shape, el), raw = bytes + 2 * guard;
    unsigned char *in = malloc(bytes), *ref = malloc(bytes), *got = malloc(raw);
    lt_fill(in, bytes, seed);
    CHECK_OK(fdx_permute(cpu, ref, in, el, rank, shape, perm, NULL));
    unsigned char *d0 = lt_alloc(gpu, raw), *d1 = lt_alloc(gpu, raw);
    lt_put(gpu, d0 + (size_t)sshift * el, in, bytes);
    lt_poison(gpu, d1, raw);
    CHECK_OK(fdx_permute(gpu, d1 + guard + (size_t)shift * el, d0 + (size_t)sshift * el, el, rank, shape, perm, NULL));
    lt_get(gpu, got, d1, raw);
    const unsigned char *out = got + guard + (size_t)shift * el;
    CHECK(memcmp(out, ref, bytes) == 0, "%s elem %zu %lldx%lld.. shifts %d/%d: CUDA differs from CPU", what, el,
          (long long)shape[0], (long long)shape[1], sshift, shift);
    int bad = 0;
    for (const unsigned char *g = got; g < out; g++) bad += *g != 0xFF;
    for (const unsigned char *g = out + bytes; g < got + raw; g++) bad += *g != 0xFF;
    CHECK(bad == 0, "%s elem %zu %lldx%lld..: %d guard bytes written", what, el, (long long)shape[0],
          (long long)shape[1], bad);
    fdx_ctx_ops(gpu)->free(d0);
    fdx_ctx_ops(gpu)->free(d1);
    free(in);
    free(ref);
    free(got);
}

/* The sub-word tiles (transposes of the fastest axis, kept odd rows; elements
   narrower than the access word; FDX_LAYOUT_VEC=0, else the vector tile
   takes most of them) through shifted_case, elements of 1, 2, 4 and 8
   bytes under every FDX_LAYOUT_SUBWORD value: unset (16-byte words for 1-,
   2-, 4-byte elements), 4 (session 5's 4-byte words), 16 (every narrower
   element) and 0 (the word kernel).  The last shape is large: partial
   tiles on both axes, thousands of blocks. */
static void subword(uint64_t seed)
{
    static const int64_t sh[][4] = {{509, 263, 1, 1}, {45, 2003, 1, 1}, {1021, 9, 1, 1}, {61, 17, 3, 131},
                                    {131, 7, 61, 1},  {8, 257, 1, 1},   {33, 64, 5, 1},   {509, 263, 3, 1},
                                    {3001, 3, 5, 1},  {1601, 1699, 1, 1}};
    static const int pm[][4] = {{1, 0, 2, 3}, {1, 0, 2, 3}, {1, 0, 2, 3}, {3, 2, 1, 0}, {2, 0, 1, 3},
                                {1, 0, 2, 3}, {1, 2, 0, 3}, {0, 2, 1, 3}, {0, 2, 1, 3}, {1, 0, 2, 3}};
    static const char *const variant[] = {NULL, "4", "16", "0"};
    setenv("FDX_LAYOUT_VEC", "0", 1);
    for (int v = 0; v < 4; v++) {
        char what[64];
        snprintf(what, sizeof what, "sub-word FDX_LAYOUT_SUBWORD=%s", variant[v] ? variant[v] : "(unset)");
        if (variant[v]) setenv("FDX_LAYOUT_SUBWORD", variant[v], 1);
        for (int c = 0; c < (int)(sizeof sh / sizeof sh[0]); c++)
            for (int e = 0; e < 4; e++) {
                const size_t el = (size_t)1 << e;
                const int rank = sh[c][3] > 1 ? 4 : sh[c][2] > 1 ? 3 : 2, shift = (int)((seed + c) % (16 / el)),
                          sshift = (shift * 5 + 1 + v) % (int)(16 / el);
                shifted_case(what, el, rank, sh[c], pm[c], sshift, shift, &seed);
            }
        unsetenv("FDX_LAYOUT_SUBWORD");
    }
    unsetenv("FDX_LAYOUT_VEC");
}

/* The sub-word gather path (session 9: src runs into the buffer as 16-byte
   slots, dst run ends as aligned pieces) on the suite's worst sub-word
   shapes, full size where small (rt1-120 7x32x246x37, 4 bytes) and scaled
   down otherwise: narrow fastest sides (rt1-171 16x4, rt1-149 and rt1-049
   K = 3, rt1-147 A = 4), short kept rows (rt1-004 5-element rows, rt1-088,
   rt1-092, rt1-175, rt1-100), elements of 1, 2, 4 bytes (and 8 with
   FDX_LAYOUT_SUBWORD=16), src/dst residue
   pairs, FDX_LAYOUT_GATHER unset (the path), 0 (the element path), 2
   (the write side through the offset table, session 10), 3 (the table,
   unswizzled rows of an odd number of words) and 5 (rows of an odd number
   of 16-byte slots). */
static void gather(uint64_t seed)
{
    static const int64_t sh[LT_WORST][6] = {{7, 32, 246, 37, 1, 1}, {16, 43, 61, 4, 8, 13}, {128, 64, 3, 16, 8, 1},
                                    {37, 33, 4, 3, 6, 7},   {4, 4, 157, 41, 13, 1}, {5, 374, 59, 64, 1, 1},
                                    {3, 259, 11, 4, 77, 1}, {11, 32, 64, 127, 1, 1}, {11, 28, 37, 48, 3, 1},
                                    {7, 4, 64, 14, 29, 3}};
    const int (*pm)[6] = lt_worst_perm;
    static const char *const variant[] = {NULL, "0", "2", "3", "5"};
    /* the gather path itself: the K = 3, 16 x 4 and short-unit shapes would take the interleave, the
       narrow-K transpose and the unit gather (vec(): their own variants) */
    setenv("FDX_LAYOUT_ILV", "0", 1), setenv("FDX_LAYOUT_NK", "0", 1), setenv("FDX_LAYOUT_UG", "0", 1);
    for (int v = 0; v < 5; v++) {
        char what[64];
        snprintf(what, sizeof what, "sub-word FDX_LAYOUT_GATHER=%s", variant[v] ? variant[v] : "(unset)");
        if (variant[v]) setenv("FDX_LAYOUT_GATHER", variant[v], 1);
        for (int c = 0; c < (int)(sizeof sh / sizeof sh[0]); c++) {
            const int rank = lt_rank6(sh[c]);
            for (int e = 0; e < 4; e++) { /* 8-byte elements: the sub-word path asked for (FDX_LAYOUT_SUBWORD=16) */
                const size_t el = (size_t)1 << e;
                const int n = (int)(16 / el);
                if (e == 3) setenv("FDX_LAYOUT_SUBWORD", "16", 1);
                for (int k = 0; k < (reps == 1 ? 1 : 2); k++) {
                    const int ss = (int)((seed + (uint64_t)k * 7) % (uint64_t)n), ds = (3 * ss + c + 1) % n;
                    shifted_case(what, el, rank, sh[c], pm[c], ss, ds, &seed);
                }
                if (e == 3) unsetenv("FDX_LAYOUT_SUBWORD");
            }
        }
        if (variant[v]) unsetenv("FDX_LAYOUT_GATHER");
    }
    unsetenv("FDX_LAYOUT_ILV"), unsetenv("FDX_LAYOUT_NK"), unsetenv("FDX_LAYOUT_UG");
}

/* The vector tiles (1-, 2-, 4-byte elements) through shifted_case: the
   emulation's shapes (test_layout's test_vec_emulation: odd, prime and
   aligned 2D transposes, A and K sides over several axes, batch axes,
   rows on no 16-byte boundary; kept rows of 509, 3001, 131 elements: the row
   copy from 128 bytes by default; rt1-181 scaled down, its 2-byte K side
   of 44 bytes on the gather tiles by default), the suite's worst 1-byte shapes near full
   size (rt1-155 as 128x311x4x283, rt1-054 17707x89x37, 1-byte elements
   only: thousands of blocks, partial tiles everywhere), under FDX_LAYOUT_VEC unset, 1 and 0
   (the sub-word path on the same shapes), every src/dst residue pair
   (s, 5 s + c + 1) mod 16 bytes. */
static void vec(uint64_t seed)
{
    static const int64_t sh[][6] = {{509, 263, 1, 1, 1, 1}, {64, 64, 1, 1, 1, 1},    {128, 5, 8, 283, 1, 1},
                                    {9, 64, 3, 16, 32, 1},  {1771, 89, 37, 1, 1, 1}, {45, 2003, 1, 1, 1, 1},
                                    {100, 3, 130, 1, 1, 1}, {61, 17, 3, 131, 1, 1},  {16, 17, 6, 4, 8, 13},
                                    {3, 7, 16, 5, 77, 1},   {509, 7, 13, 1, 1, 1},   {3001, 3, 5, 1, 1, 1},
                                    {131, 61, 7, 1, 1, 1},  {1601, 1699, 1, 1, 1, 1}, {7, 64, 8, 22, 5, 4},
                                    {45, 100003, 1, 1, 1, 1}, {409, 97, 254, 1, 1, 1}, {154, 61, 269, 1, 1, 1},
                                    {524, 394, 29, 1, 1, 1},  {4099, 3, 37, 1, 1, 1},  {757, 4, 3, 6, 5, 1},
                                    {16, 172, 11, 4, 8, 3},   {3, 259, 11, 4, 17, 3},  {5, 374, 23, 64, 1, 1},
                                    {128, 311, 4, 283, 1, 1}, {17707, 89, 37, 1, 1, 1}};
    static const int pm[][6] = {{1, 0, 2, 3, 4, 5}, {1, 0, 2, 3, 4, 5}, {3, 2, 0, 1, 4, 5}, {4, 3, 2, 1, 0, 5},
                                {2, 1, 0, 3, 4, 5}, {1, 0, 2, 3, 4, 5}, {2, 1, 0, 3, 4, 5}, {3, 2, 1, 0, 4, 5},
                                {3, 1, 0, 5, 4, 2}, {4, 2, 0, 1, 3, 5}, {0, 2, 1, 3, 4, 5}, {0, 2, 1, 3, 4, 5},
                                {0, 2, 1, 3, 4, 5}, {1, 0, 2, 3, 4, 5}, {3, 1, 5, 4, 2, 0}, {1, 0, 2, 3, 4, 5},
                                {2, 1, 0, 3, 4, 5}, {2, 1, 0, 3, 4, 5}, {0, 2, 1, 3, 4, 5}, {1, 0, 2, 3, 4, 5},
                                {2, 0, 3, 1, 4, 5}, {3, 1, 0, 5, 4, 2}, {0, 4, 5, 1, 2, 3}, {0, 2, 3, 1, 4, 5},
                                {3, 2, 0, 1, 4, 5}, {2, 1, 0, 3, 4, 5}};
    /* v = 4: FDX_LAYOUT_VEC_SKEW=0 (the plain tiles where dst rows are off 16 bytes; skewed by default);
       v = 5: session 13's FDX_LAYOUT_VEC_FILL=3 (two A groups for rt1-131's 45-byte A side scaled down, the
       reversals rt1-122 / rt1-177 scaled down scored by the tiles they take, A tiles first) and
       FDX_LAYOUT_VEC_ROWS=4 (the flat row copy: 509-, 3001-, 131-, 524-element rows) and FDX_LAYOUT_ILV=1
       (the interleave: 4099 x 3 x 37 and rt1-049's 75151 x 4 x 3 x 6 x 61 scaled down, K = 3) and
       FDX_LAYOUT_NK=1 (rt1-171 scaled down: K = 4, B = 172 at src stride 16) and FDX_LAYOUT_UG=1 (rt1-088's
       2-byte units of 3 and rt1-004's 1-byte units of 5, scaled down) */
    static const char *const variant[] = {NULL, "1", "0", "4:16:128", NULL, NULL};
    const int ncase = (int)(sizeof sh / sizeof sh[0]);
    for (int v = 0; v < 6; v++) {
        char what[96];
        snprintf(what, sizeof what, "vector tile FDX_LAYOUT_VEC=%s%s", variant[v] ? variant[v] : "(unset)",
                 v == 4 ? " FDX_LAYOUT_VEC_SKEW=0" : v == 5 ?   " FDX_LAYOUT_VEC_FILL=3 VEC_ROWS=4 ILV=1 NK=2 UG=1" : "");
        if (variant[v]) setenv("FDX_LAYOUT_VEC", variant[v], 1);
        if (v == 4) setenv("FDX_LAYOUT_VEC_SKEW", "0", 1);
        if (v == 5) setenv("FDX_LAYOUT_VEC_FILL", "3", 1), setenv("FDX_LAYOUT_VEC_ROWS", "4", 1), setenv("FDX_LAYOUT_ILV", "1", 1),
                    setenv("FDX_LAYOUT_NK", "2", 1), setenv("FDX_LAYOUT_UG", "1", 1);
        for (int c = 0; c < ncase; c++) {
            const int large = c >= ncase - 2;
            if (large && ((v && v != 4) || reps == 1)) continue; /* the full-size shapes: skewed and plain, not under the sanitizer */
            int rank = 6;
            while (sh[c][rank - 1] == 1) rank--;
            for (int e = 0; e < (large ? 1 : 3); e++) {
                const size_t el = (size_t)1 << e;
                const int n = (int)(16 / el);
                for (int k = 0; k < (large || reps == 1 ? 1 : 3); k++) {
                    const int ss = (int)((seed + (uint64_t)k * 7) % (uint64_t)n), ds = (5 * ss + c + 1) % n;
                    shifted_case(what, el, rank, sh[c], pm[c], ss, ds, &seed);
                }
            }
        }
        unsetenv("FDX_LAYOUT_VEC");
        unsetenv("FDX_LAYOUT_VEC_SKEW");
        unsetenv("FDX_LAYOUT_VEC_FILL");
        unsetenv("FDX_LAYOUT_VEC_ROWS");
        unsetenv("FDX_LAYOUT_ILV");
        unsetenv("FDX_LAYOUT_NK");
        unsetenv("FDX_LAYOUT_UG");
    }
}

static void layouts(uint64_t seed)
{
    for (int rank = 2; rank <= 5; rank++)
        for (int e = 0; e < 5; e++)
            for (int rep = 0; rep < reps + 1; rep++) {
                int64_t shape[FDX_MAX_RANK];
                int perm[FDX_MAX_RANK];
                lt_shape(rank, shape, 20000, &seed);
                lt_perm(rank, perm, &seed);
                fdx_layout l;
                fdx_layout_make(rank, perm, (fdx_diag)rep, &l);
                same(lt_layout_case(cpu, lt_elems[e], rank, shape, &l, seed),
                     lt_layout_case(gpu, lt_elems[e], rank, shape, &l, seed), count_bytes(rank, shape, lt_elems[e]),
                     "layout", rank, lt_elems[e]);
                seed++;
            }
    /* six variants: main/anti x (Rx = Ry, Rx < Ry, Rx > Ry), around the tile sizes */
    static const int64_t planes[][3] = {{64, 64, 2}, {37, 131, 1}, {131, 37, 2}, {1, 7, 2}, {7, 1, 2}, {65, 33, 1}};
    for (size_t s = 0; s < sizeof planes / sizeof planes[0]; s++)
        for (int d = 1; d <= 2; d++)
            for (int e = 0; e < 5; e += 2) {
                fdx_layout l;
                fdx_layout_make(3, NULL, (fdx_diag)d, &l);
                same(lt_layout_case(cpu, lt_elems[e], 3, planes[s], &l, seed),
                     lt_layout_case(gpu, lt_elems[e], 3, planes[s], &l, seed), count_bytes(3, planes[s], lt_elems[e]),
                     "diagonal", 3, lt_elems[e]);
                seed++;
            }
}

static void inplace(uint64_t seed)
{
    const int64_t sq[3] = {67, 67, 2};
    const int swap[3] = {1, 0, 2};
    for (int e = 0; e < 5; e++) {
        size_t bytes = count_bytes(3, sq, lt_elems[e]);
        unsigned char *in = malloc(bytes), *c = malloc(bytes), *g = malloc(bytes);
        lt_fill(in, bytes, &seed);
        memcpy(c, in, bytes);
        CHECK_OK(fdx_permute(cpu, c, c, lt_elems[e], 3, sq, swap, NULL));
        void *d = lt_alloc(gpu, bytes);
        lt_put(gpu, d, in, bytes);
        CHECK_OK(fdx_permute(gpu, d, d, lt_elems[e], 3, sq, swap, NULL));
        lt_get(gpu, g, d, bytes);
        CHECK(memcmp(c, g, bytes) == 0, "in-place square elem %zu: CUDA differs from CPU", lt_elems[e]);
        fdx_ctx_ops(gpu)->free(d);
        free(in), free(c), free(g);
    }
}

static void boxes(uint64_t seed)
{
    const int64_t shape[3] = {19, 23, 6}, lo[3] = {3, 5, 2}, box[3] = {11, 1, 3};
    const int perm[3] = {1, 0, 2};
    for (int d = 0; d < 3; d++) {
        fdx_layout l;
        fdx_layout_make(3, perm, (fdx_diag)d, &l);
        size_t n = 19 * 23 * 6 * 8, nb = 11 * 3 * 8;
        unsigned char *arr = malloc(n), *pc = malloc(nb), *pg = malloc(nb), *put = malloc(nb), *ac = malloc(n),
                      *ag = malloc(n);
        lt_fill(arr, n, &seed);
        lt_fill(put, nb, &seed);
        void *da = lt_alloc(gpu, n), *dp = lt_alloc(gpu, nb);
        lt_put(gpu, da, arr, n);
        lt_poison(gpu, dp, nb);
        CHECK_OK(fdx_layout_box_get(cpu, pc, arr, &l, 8, 3, shape, lo, box, NULL));
        CHECK_OK(fdx_layout_box_get(gpu, dp, da, &l, 8, 3, shape, lo, box, NULL));
        lt_get(gpu, pg, dp, nb);
        CHECK(memcmp(pc, pg, nb) == 0, "box get diag %d: CUDA differs from CPU", d);
        memcpy(ac, arr, n);
        lt_put(gpu, dp, put, nb);
        CHECK_OK(fdx_layout_box_put(cpu, ac, put, &l, 8, 3, shape, lo, box, NULL));
        CHECK_OK(fdx_layout_box_put(gpu, da, dp, &l, 8, 3, shape, lo, box, NULL));
        lt_get(gpu, ag, da, n);
        CHECK(memcmp(ac, ag, n) == 0, "box put diag %d: CUDA differs from CPU", d);
        fdx_ctx_ops(gpu)->free(da);
        fdx_ctx_ops(gpu)->free(dp);
        free(arr), free(pc), free(pg), free(put), free(ac), free(ag);
    }
}

static void arrays(uint64_t seed)
{
    const int64_t shape[4] = {5, 12, 7, 3};
    const int perm[4] = {3, 0, 1, 2};
    fdx_array *a = NULL;
    CHECK_OK(fdx_array_create(gpu, FDX_FLOAT64, 4, shape, FDX_ON_HOST | FDX_ON_DEVICE, &a));
    if (!a) return;
    size_t bytes = fdx_array_bytes(a);
    unsigned char *in = malloc(bytes), *ref = malloc(bytes);
    lt_fill(in, bytes, &seed);
    memcpy(fdx_array_host(a), in, bytes);
    CHECK_OK(fdx_array_to_device(a));
    fdx_layout l, r3;
    fdx_layout_make(4, perm, FDX_DIAG_MAIN, &l);
    lt_ref_layout(ref, in, &l, 8, 4, shape, 1260);
    fdx_layout_identity(3, &r3);
    CHECK_FAILS(fdx_array_set_layout(a, &r3), FDX_ERR_INVALID);
    CHECK_OK(fdx_array_set_layout(a, &l));
    CHECK(memcmp(fdx_array_host(a), ref, bytes) == 0, "host storage converted");
    memset(fdx_array_host(a), 0xFF, bytes);
    CHECK_OK(fdx_array_to_host(a));
    CHECK(memcmp(fdx_array_host(a), ref, bytes) == 0, "device storage converted");
    fdx_layout id;
    fdx_layout_identity(4, &id);
    CHECK_OK(fdx_array_set_layout(a, &id));
    CHECK_OK(fdx_array_to_host(a));
    CHECK(memcmp(fdx_array_host(a), in, bytes) == 0, "device round trip bit-identical");
    fdx_array_destroy(&a);
    free(in), free(ref);
}

/* Only the current copies convert: a stale host copy (after fdx_array_put
   the device holds the values) keeps its bytes and stays stale, and so does
   a stale device copy; fdx_array_get reads the values back in either case. */
static void stale_copies(uint64_t seed)
{
    const int64_t shape[3] = {6, 11, 4};
    const int perm[3] = {2, 0, 1};
    for (int side = 0; side < 2; side++) { /* 0: the device is current, 1: the host is */
        fdx_array *a = NULL;
        CHECK_OK(fdx_array_create(gpu, FDX_FLOAT64, 3, shape, FDX_ON_HOST | FDX_ON_DEVICE, &a));
        if (!a) return;
        size_t bytes = fdx_array_bytes(a);
        unsigned char *in = malloc(bytes), *stale = malloc(bytes), *back = malloc(bytes);
        lt_fill(in, bytes, &seed);
        lt_fill(stale, bytes, &seed);
        CHECK_OK(fdx_array_put(a, in));
        if (side == 1) { /* the host copy current, the device one stale */
            memcpy(fdx_array_host(a), in, bytes);
            CHECK_OK(fdx_array_fill_device_bytes(a, 0x5A));
            a->valid = FDX_ON_HOST;
        } else {
            CHECK(fdx_array_valid(a) == FDX_ON_DEVICE, "fdx_array_put leaves the device copy current, not %u",
                  fdx_array_valid(a));
            memcpy(fdx_array_host(a), stale, bytes);
        }
        void *host_before = fdx_array_host(a), *dev_before = fdx_array_device(a);
        unsigned valid = fdx_array_valid(a);
        fdx_layout l;
        fdx_layout_make(3, perm, FDX_DIAG_NONE, &l);
        CHECK_OK(fdx_array_set_layout(a, &l));
        CHECK(fdx_array_valid(a) == valid, "set_layout changed the valid mask %u to %u", valid, fdx_array_valid(a));
        if (side == 0) {
            CHECK(fdx_array_host(a) == host_before && memcmp(fdx_array_host(a), stale, bytes) == 0,
                  "set_layout converted the stale host copy");
        } else {
            CHECK(fdx_array_device(a) == dev_before, "set_layout replaced the stale device copy");
            lt_get(gpu, back, fdx_array_device(a), bytes);
            int untouched = 1;
            for (size_t i = 0; i < bytes; i++) untouched &= back[i] == 0x5A;
            CHECK(untouched, "set_layout converted the stale device copy");
        }
        memset(back, 0xFF, bytes);
        CHECK_OK(fdx_array_get(a, back));
        CHECK(memcmp(back, in, bytes) == 0, "values after set_layout with a stale %s copy", side ? "device" : "host");
        fdx_array_destroy(&a);
        free(in), free(stale), free(back);
    }
}

/* The emitted helpers and index expression compile under NVRTC (device
   code: no plain "static inline") and agree with fdx_layout_offset. */
static void emit_nvrtc(void)
{
    const int64_t shape[3] = {5, 3, 4};
    const int perm[3] = {1, 0, 2};
    const char *names[3] = {"i", "j", "k"};
    char expr[512], src[4096];
    for (int dg = FDX_DIAG_NONE; dg <= FDX_DIAG_ANTI; dg++) {
        fdx_layout l;
        CHECK_OK(fdx_layout_make(3, perm, (fdx_diag)dg, &l));
        CHECK_OK(fdx_layout_emit_index(&l, shape, names, expr, sizeof expr));
        snprintf(src, sizeof src,
                 "%s\nextern \"C\" __global__ void offsets(long long *o) {\n  int q = threadIdx.x;\n"
                 "  int i = q %% 5, j = q / 5 %% 3, k = q / 15;\n  if (q < 60) o[q] = %s;\n}\n",
                 fdx_layout_emit_helpers(), expr);
        const fdx_backend *be = fdx_ctx_ops(gpu);
        fdx_kernel *k = NULL;
        CHECK_OK(be->jit_load(fdx_ctx_device(gpu), src, "offsets", "layout index test (NVRTC)", &k));
        if (!k) return;
        void *d = NULL;
        long long o[60];
        memset(o, 0xFF, sizeof o);
        CHECK_OK(be->alloc(sizeof o, &d));
        CHECK_OK(be->memset(d, 0xFF, sizeof o, NULL));
        void *args[] = {&d};
        fdx_launch_dims dims = {{1, 1, 1}, {64, 1, 1}, 0};
        CHECK_OK(be->launch(k, &dims, args, NULL));
        CHECK_OK(be->copy(o, d, sizeof o, FDX_COPY_D2H, NULL));
        CHECK_OK(be->stream_sync(NULL));
        int bad = lt_offsets_wrong(&l, 3, shape, o, 60);
        CHECK(bad == 0, "NVRTC emitted index (diag %s) differs at %d points: %s", fdx_diag_name((fdx_diag)dg), bad, expr);
        be->free(d);
        be->kernel_release(k);
    }
}

/* Direct transposes (FDX_LAYOUT_DIRECT: every plan, flat and stepped
   kernels, 1, 2, 4 words a store, warp tiles; the rule with the stepped
   kernel) on random shapes of rank 2-6 up to 300000 elements (hundreds of
   blocks, the last one partial), every element size, both buffers aligned
   and shifted by one element (then single-word stores), guards around dst;
   then two stepped plans of the default rule.  The default rule also runs
   in permutations() and the tests after vec(). */
static void direct(uint64_t seed)
{
    static const char *const variant[] = {"1", "1:2", "1:4", "3", "3:2", "3:4", "3:1:8:64:4", "3:2:8:64:8", "4"};
    for (int v = 0; v < 9; v++) {
        char what[64];
        snprintf(what, sizeof what, "direct FDX_LAYOUT_DIRECT=%s", variant[v]);
        setenv("FDX_LAYOUT_DIRECT", variant[v], 1);
        for (int rank = 2; rank <= 6; rank++)
            for (int e = 0; e < 5; e++) {
                int64_t shape[FDX_MAX_RANK];
                int perm[FDX_MAX_RANK];
                lt_shape(rank, shape, reps == 1 ? 20000 : 300000, &seed); /* FDX_TEST_QUICK (sanitizers): small */
                lt_perm(rank, perm, &seed);
                const int sh = (rank + e + v) % 3 == 0;
                shifted_case(what, lt_elems[e], rank, shape, perm, sh, sh, &seed);
            }
        unsetenv("FDX_LAYOUT_DIRECT");
    }
    /* the default rule on a 16 MiB 8-byte 2D transpose (the stepped kernel
       in 8 x 4 warp tiles) and an 8-byte reversal with 3 words along dst
       axis 0 and 13 along the stepped one (plain stepped, predicated ends) */
    const int64_t big[2] = {1001, 2100}, rev[3] = {13, 4190, 3};
    const int t2[2] = {1, 0}, r3[3] = {2, 1, 0};
    shifted_case("direct, default rule (stepped warp tiles)", 8, 2, big, t2, 0, 0, &seed);
    shifted_case("direct, default rule (stepped)", 8, 3, rev, r3, 0, 0, &seed);
}

int main(void)
{
    if (fdx_cuda_device_count() == 0) return fdx_test_skip("test_layout_gpu", "no CUDA device");
    if (getenv("FDX_TEST_QUICK")) reps = 1;
    cpu = fdx_test_ctx("cpu");
    gpu = fdx_test_ctx("cuda");
    CHECK(cpu && gpu, "contexts: %s", fdx_last_error());
    if (cpu && gpu) {
        emit_nvrtc();
        permutations(21);
        setenv("FDX_LAYOUT_DIRECT", "0", 1); /* these pin the tile kernels' variants */
        subword(27);
        gather(29);
        vec(28);
        unsetenv("FDX_LAYOUT_DIRECT");
        direct(30);
        layouts(22);
        inplace(23);
        boxes(24);
        arrays(25);
        stale_copies(26);
    }
    fdx_ctx_destroy(&cpu);
    fdx_ctx_destroy(&gpu);
    return fdx_test_finish("test_layout_gpu");
}
