/* The layout engine on the CPU: descriptor checks, the diagonal index against
   enumeration, emitted index expressions compiled and run, permutations and
   diagonal layouts against reference loops with bit-identical round trips
   (every rank and element size, shapes with 1, 2, 3 and primes, Rx != Ry),
   in-place square transposes, boxes, fdx_array_set_layout, and errors that
   leave the data untouched. */
#include "layout/fdx_layout_emit.h"
#include "layout/fdx_layout_plan.h"
#include "layout/fdx_layout_plan_cache.h"
#include "layout_ref.h"

#include <stdint.h>
#include <string.h>

static void test_descriptor(void)
{
    fdx_layout l;
    int dup[3] = {0, 1, 1}, out[3] = {0, 3, 1}, neg[3] = {-1, 0, 1}, ok[3] = {2, 0, 1};
    CHECK_FAILS(fdx_layout_make(3, dup, FDX_DIAG_NONE, &l), FDX_ERR_INVALID);
    CHECK(strstr(fdx_last_error(), "twice") != NULL, "duplicate named: %s", fdx_last_error());
    CHECK_FAILS(fdx_layout_make(3, out, FDX_DIAG_NONE, &l), FDX_ERR_INVALID);
    CHECK(strstr(fdx_last_error(), "axis 3") != NULL, "bad axis named: %s", fdx_last_error());
    CHECK_FAILS(fdx_layout_make(3, neg, FDX_DIAG_NONE, &l), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_layout_make(7, NULL, FDX_DIAG_NONE, &l), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_layout_make(1, NULL, FDX_DIAG_MAIN, &l), FDX_ERR_INVALID);
    CHECK_OK(fdx_layout_make(3, ok, FDX_DIAG_ANTI, &l));
    CHECK_FAILS(fdx_layout_check(&l, 4), FDX_ERR_INVALID);
    CHECK(strstr(fdx_last_error(), "rank") != NULL, "rank mismatch named: %s", fdx_last_error());
    int rank, perm[FDX_MAX_RANK];
    CHECK_OK(fdx_perm_parse("3,0,1,2", &rank, perm));
    CHECK(rank == 4 && perm[0] == 3 && perm[3] == 2, "parsed rank %d", rank);
    CHECK_FAILS(fdx_perm_parse("3,,1", &rank, perm), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_perm_parse("0,1,", &rank, perm), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_perm_parse("0,1,2,3,4,5,6", &rank, perm), FDX_ERR_INVALID);
    fdx_diag d;
    CHECK_OK(fdx_diag_parse("main", &d));
    CHECK(d == FDX_DIAG_MAIN, "main parsed");
    CHECK_FAILS(fdx_diag_parse("sideways", &d), FDX_ERR_INVALID);
}

/* Enumerating lines d = 0, 1, ... and x ascending inside each gives offsets
   0, 1, 2, ...: the closed form must agree for Rx = Ry, Rx < Ry, Rx > Ry. */
static void test_diag_index(void)
{
    static const int64_t ext[] = {1, 2, 3, 5, 8, 13};
    for (int u = 0; u < 6; u++)
        for (int v = 0; v < 6; v++) {
            int64_t rx = ext[u], ry = ext[v], shape[2] = {rx, ry}, want = 0;
            for (int main_ = 0; main_ < 2; main_++) {
                fdx_layout l;
                fdx_layout_make(2, NULL, main_ ? FDX_DIAG_MAIN : FDX_DIAG_ANTI, &l);
                int bad = 0;
                want = 0;
                for (int64_t d = 0; d < rx + ry - 1; d++)
                    for (int64_t x = 0; x < rx; x++) {
                        int64_t y = d - x;
                        if (y < 0 || y >= ry) continue;
                        int64_t idx[2] = {x, main_ ? ry - 1 - y : y};
                        bad += fdx_layout_offset(&l, shape, idx) != want++;
                    }
                CHECK(bad == 0 && want == rx * ry, "%s diagonal %lldx%lld: %d offsets wrong", main_ ? "main" : "anti",
                      (long long)rx, (long long)ry, bad);
            }
        }
}

/* The emitted expression, compiled by the CPU JIT, gives fdx_layout_offset. */
static void test_emit(fdx_ctx *ctx)
{
    const int64_t shape[3] = {5, 3, 4};
    int perm[3] = {1, 0, 2};
    fdx_layout l;
    fdx_layout_make(3, perm, FDX_DIAG_MAIN, &l);
    const char *names[3] = {"i", "j", "k"};
    char expr[512], src[4096];
    CHECK_OK(fdx_layout_emit_index(&l, shape, names, expr, sizeof expr));
    char tiny[8];
    CHECK_FAILS(fdx_layout_emit_index(&l, shape, names, tiny, sizeof tiny), FDX_ERR_INVALID);
    /* The generators' form appends the same text to their string builder. */
    fdx_sb b = FDX_SB_INIT;
    fdx_sb_puts(&b, "o = ");
    CHECK_OK(fdx_layout_emit_index_sb(&l, shape, names, &b));
    CHECK(strncmp(fdx_sb_str(&b), "o = ", 4) == 0 && strcmp(fdx_sb_str(&b) + 4, expr) == 0, "appended index: %s",
          fdx_sb_str(&b));
    fdx_sb_free(&b);
    snprintf(src, sizeof src,
             "%s\nvoid offsets(void **args) {\n  long long *o = *(long long **)args[0];\n"
             "  for (int k = 0; k < 4; k++) for (int j = 0; j < 3; j++) for (int i = 0; i < 5; i++)\n"
             "    o[i + 5 * (j + 3 * k)] = %s;\n}\n",
             fdx_layout_emit_helpers(), expr);
    const fdx_backend *be = fdx_ctx_ops(ctx);
    fdx_kernel *k = NULL;
    CHECK_OK(be->jit_load(fdx_ctx_device(ctx), src, "offsets", "layout index test", &k));
    if (!k) return;
    long long o[60], *op = o;
    void *args[] = {&op};
    fdx_launch_dims dims = {{1, 1, 1}, {1, 1, 1}, 0};
    CHECK_OK(be->launch(k, &dims, args, NULL));
    int bad = lt_offsets_wrong(&l, 3, shape, o, 60);
    CHECK(bad == 0, "emitted index differs at %d points: %s", bad, expr);
    be->kernel_release(k);
}

static void test_permutations(fdx_ctx *ctx, uint64_t seed)
{
    for (int rank = 1; rank <= FDX_MAX_RANK; rank++)
        for (int e = 0; e < 5; e++)
            for (int rep = 0; rep < 4; rep++) {
                int64_t shape[FDX_MAX_RANK];
                int perm[FDX_MAX_RANK];
                lt_shape(rank, shape, 60000, &seed);
                lt_perm(rank, perm, &seed);
                free(lt_permute_case(ctx, lt_elems[e], rank, shape, perm, seed++));
            }
    /* the five benchmark shapes, small */
    const int64_t aos[4] = {5, 9, 10, 11}, cube[3] = {33, 34, 35}, mat[2] = {129, 65};
    const int p_aos[4] = {1, 2, 3, 0}, p_rev[3] = {2, 1, 0}, p_fast[3] = {1, 0, 2}, p_slow[3] = {0, 2, 1}, p_t[2] = {1, 0};
    for (int e = 0; e < 5; e++) {
        free(lt_permute_case(ctx, lt_elems[e], 4, aos, p_aos, seed++));
        free(lt_permute_case(ctx, lt_elems[e], 3, cube, p_rev, seed++));
        free(lt_permute_case(ctx, lt_elems[e], 3, cube, p_fast, seed++));
        free(lt_permute_case(ctx, lt_elems[e], 3, cube, p_slow, seed++));
        free(lt_permute_case(ctx, lt_elems[e], 2, mat, p_t, seed++));
    }
}

static void test_layouts(fdx_ctx *ctx, uint64_t seed)
{
    for (int rank = 2; rank <= FDX_MAX_RANK; rank++)
        for (int e = 0; e < 5; e++)
            for (int rep = 0; rep < 4; rep++) {
                int64_t shape[FDX_MAX_RANK];
                int perm[FDX_MAX_RANK];
                lt_shape(rank, shape, 40000, &seed);
                lt_perm(rank, perm, &seed);
                fdx_layout l;
                fdx_layout_make(rank, perm, (fdx_diag)(rep % 3), &l);
                free(lt_layout_case(ctx, lt_elems[e], rank, shape, &l, seed++));
            }
    /* Rx = Ry, Rx < Ry, Rx > Ry, both diagonals, sizes around the GPU tiles */
    static const int64_t planes[][3] = {{64, 64, 2}, {37, 131, 3}, {131, 37, 3}, {1, 7, 2}, {7, 1, 2}, {200, 65, 1}};
    for (size_t s = 0; s < sizeof planes / sizeof planes[0]; s++)
        for (int d = 1; d <= 2; d++) {
            fdx_layout l;
            fdx_layout_make(3, NULL, (fdx_diag)d, &l);
            free(lt_layout_case(ctx, 8, 3, planes[s], &l, seed++));
        }
    /* the CPU's sheared tiles (64 lines x 128 rows diagonalizing 8-byte
       words, 128 x 64 back): several of each along both axes, clipped at
       every edge, for the 2 x 2 register path (8 bytes) and the plain one */
    const int64_t big[3] = {300, 263, 2};
    for (int e = 2; e < 5; e++)
        for (int d = 1; d <= 2; d++) {
            fdx_layout l;
            fdx_layout_make(3, NULL, (fdx_diag)d, &l);
            free(lt_layout_case(ctx, lt_elems[e], 3, big, &l, seed++));
        }
}

/* Undiagonalize through the CPU's rectangles (L = 1 KiB of words, at least
   64, wide x 64 rows; whole lines of the rows out by movnti for 4- and
   8-byte words): x extents just under, at and past L, prime and odd ones
   (rows off the 64-byte lines: partial lines by plain stores at both ends),
   rows across several bands, every element size and both diagonals; each
   also through the sheared tiles and without movnti (the measurement
   switches). */
static void test_undiag_rects(fdx_ctx *ctx, uint64_t seed)
{
    static const char *sw[3] = {NULL, "FDX_LAYOUT_UNDIAG_SHEARED", "FDX_LAYOUT_NO_NT"};
    for (int e = 0; e < 5; e++) {
        const int64_t L = 1024 / (int64_t)lt_elems[e] > 64 ? 1024 / (int64_t)lt_elems[e] : 64;
        const int64_t shapes[5][3] = {{L - 1, 65, 2}, {L, 64, 2}, {2 * L + 3, 131, 1}, {61, 257, 2}, {L + 1, 1, 2}};
        for (int k = 0; k < 5; k++)
            for (int d = 1; d <= 2; d++)
                for (int v = 0; v < 3; v++) {
                    if (sw[v]) setenv(sw[v], "1", 1);
                    fdx_layout l;
                    fdx_layout_make(3, NULL, (fdx_diag)d, &l);
                    free(lt_layout_case(ctx, lt_elems[e], 3, shapes[k], &l, seed++));
                    if (sw[v]) unsetenv(sw[v]);
                }
    }
}

/* Diagonal to diagonal conversions, through every planner path. */
static void test_conversions(fdx_ctx *ctx, uint64_t seed)
{
    const int64_t shape[4] = {13, 7, 5, 3};
    static const int perms[][4] = {{0, 1, 2, 3}, {0, 1, 3, 2}, {1, 0, 2, 3}, {3, 2, 1, 0}};
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 4; b++)
            for (int da = 0; da < 3; da++)
                for (int db = 0; db < 3; db++) {
                    fdx_layout la, lb;
                    fdx_layout_make(4, perms[a], (fdx_diag)da, &la);
                    fdx_layout_make(4, perms[b], (fdx_diag)db, &lb);
                    size_t bytes = 13 * 7 * 5 * 3 * 4;
                    unsigned char *in = malloc(bytes), *x = malloc(bytes), *y = malloc(bytes), *r = malloc(bytes);
                    lt_fill(in, bytes, &seed);
                    lt_ref_layout(x, in, &la, 4, 4, shape, 1365);
                    lt_ref_layout(r, in, &lb, 4, 4, shape, 1365);
                    memset(y, 0xFF, bytes);
                    CHECK_OK(fdx_layout_convert(ctx, y, &lb, x, &la, 4, 4, shape, NULL));
                    CHECK(memcmp(y, r, bytes) == 0, "convert perm %d diag %d -> perm %d diag %d wrong", a, da, b, db);
                    free(in), free(x), free(y), free(r);
                }
}

static void test_inplace(fdx_ctx *ctx, uint64_t seed)
{
    const int64_t sq[3] = {67, 67, 3}, rect[2] = {6, 4};
    const int swap[3] = {1, 0, 2};
    for (int e = 0; e < 5; e++) {
        size_t elem = lt_elems[e], bytes = 67 * 67 * 3 * elem;
        unsigned char *in = malloc(bytes), *buf = malloc(bytes), *ref = malloc(bytes);
        lt_fill(in, bytes, &seed);
        memcpy(buf, in, bytes);
        fdx_layout l;
        fdx_layout_make(3, swap, FDX_DIAG_NONE, &l);
        lt_ref_layout(ref, in, &l, elem, 3, sq, 67 * 67 * 3);
        CHECK_OK(fdx_permute(ctx, buf, buf, elem, 3, sq, swap, NULL));
        CHECK(memcmp(buf, ref, bytes) == 0, "in-place square transpose elem %zu wrong", elem);
        CHECK_FAILS(fdx_permute(ctx, buf, buf, elem, 2, rect, swap, NULL), FDX_ERR_INVALID);
        CHECK(memcmp(buf, ref, bytes) == 0, "failed in-place call changed the buffer");
        free(in), free(buf), free(ref);
    }
}

static void test_boxes(fdx_ctx *ctx, uint64_t seed)
{
    const int64_t shape[3] = {19, 23, 6}, lo[3] = {3, 0, 2}, box[3] = {11, 23, 1};
    static const int perms[][3] = {{0, 1, 2}, {2, 0, 1}, {1, 2, 0}};
    for (int p = 0; p < 3; p++)
        for (int d = 0; d < 3; d++) {
            fdx_layout l;
            fdx_layout_make(3, perms[p], (fdx_diag)d, &l);
            size_t n = 19 * 23 * 6, nb = 11 * 23;
            double *in = malloc(n * 8), *arr = malloc(n * 8), *plain = malloc(nb * 8), *put = malloc(nb * 8);
            lt_fill((unsigned char *)in, n * 8, &seed);
            lt_fill((unsigned char *)put, nb * 8, &seed);
            lt_ref_layout((unsigned char *)arr, (unsigned char *)in, &l, 8, 3, shape, (int64_t)n);
            memset(plain, 0xFF, nb * 8);
            CHECK_OK(fdx_layout_box_get(ctx, plain, arr, &l, 8, 3, shape, lo, box, NULL));
            int bad = 0;
            for (int64_t q = 0; q < (int64_t)nb; q++) {
                int64_t c[3];
                lt_coords(q, 3, box, c);
                int64_t g = (lo[0] + c[0]) + 19 * ((lo[1] + c[1]) + 23 * (lo[2] + c[2]));
                bad += memcmp(&plain[q], &in[g], 8) != 0;
            }
            CHECK(bad == 0, "box get perm %d diag %d: %d wrong", p, d, bad);
            CHECK_OK(fdx_layout_box_put(ctx, arr, put, &l, 8, 3, shape, lo, box, NULL));
            bad = 0;
            for (int64_t q = 0; q < (int64_t)n; q++) {
                int64_t c[3];
                lt_coords(q, 3, shape, c);
                int inside = c[0] >= lo[0] && c[0] < lo[0] + box[0] && c[2] >= lo[2] && c[2] < lo[2] + box[2];
                int64_t bq = (c[0] - lo[0]) + box[0] * (c[1] + box[1] * (c[2] - lo[2]));
                const double *want = inside ? &put[bq] : &in[q];
                bad += memcmp(&arr[fdx_layout_offset(&l, shape, c)], want, 8) != 0;
            }
            CHECK(bad == 0, "box put perm %d diag %d: %d wrong", p, d, bad);
            int64_t far[3] = {9, 0, 2};
            CHECK_FAILS(fdx_layout_box_get(ctx, plain, arr, &l, 8, 3, shape, far, box, NULL), FDX_ERR_INVALID);
            free(in), free(arr), free(plain), free(put);
        }
}

static void test_array(fdx_ctx *ctx, uint64_t seed)
{
    const int64_t shape[4] = {5, 12, 7, 3};
    fdx_array *a = NULL;
    CHECK_OK(fdx_array_create(ctx, FDX_FLOAT64, 4, shape, FDX_ON_HOST | FDX_ON_DEVICE, &a));
    if (!a) return;
    size_t bytes = fdx_array_bytes(a);
    unsigned char *in = malloc(bytes), *ref = malloc(bytes);
    lt_fill(in, bytes, &seed);
    memcpy(fdx_array_host(a), in, bytes);
    fdx_layout l, got;
    const int perm[4] = {3, 0, 1, 2};
    fdx_layout_make(4, perm, FDX_DIAG_ANTI, &l);
    CHECK_OK(fdx_array_set_layout(a, &l));
    CHECK_OK(fdx_array_layout(a, &got));
    CHECK(memcmp(&got, &l, sizeof l) == 0, "layout recorded");
    lt_ref_layout(ref, in, &l, 8, 4, shape, 1260);
    CHECK(memcmp(fdx_array_host(a), ref, bytes) == 0, "set_layout data wrong");
    /* errors leave data and layout alone */
    fdx_layout bad = l;
    bad.perm[1] = 3;
    CHECK_FAILS(fdx_array_set_layout(a, &bad), FDX_ERR_INVALID);
    bad = l;
    bad.perm[2] = 9;
    CHECK_FAILS(fdx_array_set_layout(a, &bad), FDX_ERR_INVALID);
    fdx_layout r3;
    fdx_layout_identity(3, &r3);
    CHECK_FAILS(fdx_array_set_layout(a, &r3), FDX_ERR_INVALID);
    CHECK_OK(fdx_array_layout(a, &got));
    CHECK(memcmp(&got, &l, sizeof l) == 0 && memcmp(fdx_array_host(a), ref, bytes) == 0,
          "failed set_layout changed the array");
    fdx_layout id;
    fdx_layout_identity(4, &id);
    CHECK_OK(fdx_array_set_layout(a, &id));
    CHECK(memcmp(fdx_array_host(a), in, bytes) == 0, "set_layout round trip not bit-identical");
    fdx_array_destroy(&a);
    /* in place, square */
    const int64_t sq[2] = {40, 40};
    const int sw[2] = {1, 0};
    CHECK_OK(fdx_array_create(ctx, FDX_FLOAT32, 2, sq, FDX_ON_HOST, &a));
    if (!a) goto out;
    lt_fill(fdx_array_host(a), 6400, &seed);
    memcpy(in, fdx_array_host(a), 6400);
    fdx_layout_make(2, sw, FDX_DIAG_NONE, &l);
    CHECK_OK(fdx_array_set_layout(a, &l));
    lt_ref_layout(ref, in, &l, 4, 2, sq, 1600);
    CHECK(memcmp(fdx_array_host(a), ref, 6400) == 0, "square set_layout wrong");
    fdx_array_destroy(&a);
out:
    free(in);
    free(ref);
}

/* Largest power of two <= 16 dividing both addresses (what fdx_permute gives the planner). */
static size_t common_align_of(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t)a | (uintptr_t)b;
    size_t al = 16;
    while (al > 1 && x % al) al /= 2;
    return al;
}

/* One permutation through the CUDA tile kernel's index math run on the host
   (fdx_layout_cuda_emulate), dst `shift` words past a 64-byte boundary,
   against the CPU transform; returns the plan's skew (-1: emulation not in
   this build). */
static int emulate_case(fdx_ctx *ctx, size_t elem, int rank, const int64_t *shape, const int *perm, int shift,
                        uint64_t seed)
{
    int64_t count = 1;
    for (int a = 0; a < rank; a++) count *= shape[a];
    size_t bytes = (size_t)count * elem, pad = 64, rawbytes = (bytes + pad + 63) & ~(size_t)63;
    /* aligned_alloc's size must be a multiple of the alignment (ASan checks) */
    unsigned char *in = malloc(bytes), *ref = malloc(bytes), *raw = aligned_alloc(64, rawbytes);
    unsigned char *out = raw + (size_t)shift * elem;
    lt_fill(in, bytes, &seed);
    memset(ref, 0xA5, bytes);
    memset(raw, 0x5A, bytes + pad);
    CHECK_OK(fdx_permute(ctx, ref, in, elem, rank, shape, perm, NULL));
    fdx_perm_plan p;
    CHECK_OK(fdx_perm_plan_make(elem, rank, shape, perm, common_align_of(out, in), 0, &p));
    int skew = p.skew;
    if (p.kind == FDX_PLAN_TILED || p.kind == FDX_PLAN_ROWS) {
        fdx_status st = fdx_layout_cuda_emulate(out, in, &p);
        if (st == FDX_ERR_UNSUPPORTED) skew = -1;
        else {
            CHECK(st == FDX_OK, "emulated tile kernel: %s", fdx_last_error());
            CHECK(memcmp(out, ref, bytes) == 0,
                  "emulated tile kernel elem %zu rank %d (%lld x %lld ..) perm %d,%d.. shift %d skew %d: differs from CPU",
                  elem, rank, (long long)shape[0], (long long)shape[1], perm[0], perm[1], shift, p.skew);
        }
    }
    free(in);
    free(ref);
    free(raw);
    return skew;
}

/* The CUDA tile kernel's slots, on any machine with nvcc: random
   permutations (plain, packed and kept-row tiles), and the sector-skewed
   2D tiles: dst row strides of every residue mod the sector's words (8, 4, 2
   for 4-, 8- and 16-byte words), A cut (100 -> 4 x 25) or whole (37), a
   batch axis, dst base shifted by every residue; each also with
   FDX_LAYOUT_SKEW=0 (the plain tile).  The skewed shapes run with
   FDX_LAYOUT_SUBWORD=0: 4-byte elements take the sub-word tile otherwise. */
static void test_tile_emulation(fdx_ctx *ctx, uint64_t seed)
{
    int skewed = 0, plain = 0;
    /* random permutations of rank 2-6, every element size, with the default
       plans and with 16-byte sub-word words for every narrower element */
    for (int v = 0; v < 3; v++) { /* default (walked 2D tiles), 16-byte sub-word words, no walks */
        if (v == 1) setenv("FDX_LAYOUT_SUBWORD", "16", 1);
        if (v == 2) setenv("FDX_LAYOUT_TILE_WALK", "0", 1);
        for (int rank = 2; rank <= 6; rank++)
            for (int e = 0; e < 5; e++) {
                int64_t shape[FDX_MAX_RANK];
                int perm[FDX_MAX_RANK];
                lt_shape(rank, shape, 20000, &seed);
                lt_perm(rank, perm, &seed);
                if (emulate_case(ctx, lt_elems[e], rank, shape, perm, (int)(seed % 4), seed) < 0) {
                    printf("test_layout: tile kernel emulation skipped (built without CUDA)\n");
                    unsetenv("FDX_LAYOUT_SUBWORD");
                    return;
                }
                seed++;
            }
        unsetenv("FDX_LAYOUT_SUBWORD");
        unsetenv("FDX_LAYOUT_TILE_WALK");
    }
    /* tiny 2D tiles (the axis after the fastest short; kept rows too) become
       packed tiles; FDX_LAYOUT_KERNEL=small2d keeps the 2D tile */
    static const int64_t tiny[][6] = {{3, 5, 4, 16, 12, 8}, {8, 4, 41, 12, 1, 1}, {18, 3, 31, 32, 1, 1},
                                      {29, 7, 4, 13, 6, 4}};
    static const int tpm[][6] = {{5, 4, 3, 2, 1, 0}, {0, 2, 1, 3, 4, 5}, {0, 3, 2, 1, 4, 5}, {0, 5, 4, 3, 2, 1}};
    for (int v = 0; v < 2; v++) {
        if (v) setenv("FDX_LAYOUT_KERNEL", "small2d", 1);
        for (int c = 0; c < 4; c++) {
            int rank = 6;
            while (tiny[c][rank - 1] == 1) rank--;
            fdx_perm_plan p;
            CHECK_OK(fdx_perm_plan_make(16, rank, tiny[c], tpm[c], 16, 0, &p));
            CHECK(p.packed == !v, "tiny tile case %d, small2d %d: packed %d", c, v, p.packed);
            emulate_case(ctx, 16, rank, tiny[c], tpm[c], c, seed++);
        }
        unsetenv("FDX_LAYOUT_KERNEL");
    }
    setenv("FDX_LAYOUT_SUBWORD", "0", 1);
    setenv("FDX_LAYOUT_VEC", "0", 1);
    setenv("FDX_LAYOUT_TILE_WORDS", "2048", 1); /* the large arrays' tiles (small ones take 1024 words) */
    /* each plain and skewed, with walked tiles (the default) and without (FDX_LAYOUT_TILE_WALK=0) */
    for (int off = 0; off < 4; off++) {
        if (off & 1) setenv("FDX_LAYOUT_SKEW", "0", 1);
        if (off & 2) setenv("FDX_LAYOUT_TILE_WALK", "0", 1);
        for (int e = 2; e < 5; e++)
            for (int r = 0; r < 8; r++)
                for (int c = 0; c < 3; c++) {
                    const int64_t nK = 300 + r, nA = c == 1 ? 37 : 100;
                    const int64_t s2[2] = {nA, nK}, s3[3] = {nA, 3, nK};
                    const int p2[2] = {1, 0}, p3[3] = {2, 1, 0};
                    const int shift = (r + c) % (int)(32 / lt_elems[e]);
                    int k = c == 2 ? emulate_case(ctx, lt_elems[e], 3, s3, p3, shift, seed++)
                                   : emulate_case(ctx, lt_elems[e], 2, s2, p2, shift, seed++);
                    skewed += k > 0, plain += k == 0;
                }
        unsetenv("FDX_LAYOUT_SKEW");
        unsetenv("FDX_LAYOUT_TILE_WALK");
    }
    unsetenv("FDX_LAYOUT_SUBWORD");
    unsetenv("FDX_LAYOUT_VEC");
    unsetenv("FDX_LAYOUT_TILE_WORDS");
    /* 3 word sizes x 8 residues x 3 shapes: skewed unless the dst row stride is sector-aligned */
    CHECK(skewed == 2 * (3 * 3 * 8 - 3 * (1 + 2 + 4)), "skewed plans: %d", skewed);
    CHECK(plain == 2 * (3 * 3 * 8 + 3 * (1 + 2 + 4)), "plain plans: %d", plain);
    /* word-kernel tiles of 1024 words for arrays under 8 MiB, 2048 above */
    const int64_t small2[2] = {509, 263}, large2[2] = {2048, 1024};
    const int t2[2] = {1, 0};
    for (int e = 3; e < 5; e++) {
        fdx_perm_plan ps, pl;
        CHECK_OK(fdx_perm_plan_make(lt_elems[e], 2, small2, t2, 16, 0, &ps));
        CHECK_OK(fdx_perm_plan_make(lt_elems[e], 2, large2, t2, 16, 0, &pl));
        /* 8-byte words: the dst rows of 263 start off the sectors: 64 x 32 */
        CHECK(lt_elems[e] == 8 ? ps.TA == 64 && ps.TB == 32 && ps.skew == 4
                               : ps.TA * ps.TB > 512 && ps.TA * ps.TB <= 1024 && pl.TA * pl.TB == 2048,
              "elem %zu: tiles %dx%d (small array, skew %d), %dx%d (large)", lt_elems[e], ps.TA, ps.TB, ps.skew, pl.TA,
              pl.TB);
        emulate_case(ctx, lt_elems[e], 2, small2, t2, e, seed++);
    }
}

/* One permutation through the emulated CUDA kernels with both buffers
   moved off their alignment (src `sshift`, dst `dshift` elements past a
   64-byte boundary: rows start at any byte), poisoned guards before and
   after dst that must stay untouched; returns the plan's subword flag. */
static int emulate_shifted(fdx_ctx *ctx, size_t elem, int rank, const int64_t *shape, const int *perm, int sshift,
                           int dshift, uint64_t seed, fdx_perm_plan *plan)
{
    int64_t count = 1;
    for (int a = 0; a < rank; a++) count *= shape[a];
    const size_t bytes = (size_t)count * elem, guard = 64, rawbytes = (bytes + 2 * guard + 63) & ~(size_t)63;
    unsigned char *sraw = aligned_alloc(64, rawbytes), *draw = aligned_alloc(64, rawbytes), *ref = malloc(bytes);
    unsigned char *in = sraw + (size_t)sshift * elem, *out = draw + guard + (size_t)dshift * elem;
    lt_fill(sraw, rawbytes, &seed);
    memset(draw, 0x5A, rawbytes);
    memset(ref, 0xA5, bytes);
    CHECK_OK(fdx_permute(ctx, ref, in, elem, rank, shape, perm, NULL));
    fdx_perm_plan p;
    CHECK_OK(fdx_perm_plan_make(elem, rank, shape, perm, common_align_of(out, in), 0, &p));
    int ret = p.subword;
    if (plan) *plan = p;
    fdx_status st = p.kind == FDX_PLAN_TILED || p.kind == FDX_PLAN_ROWS ? fdx_layout_cuda_emulate(out, in, &p) : FDX_OK;
    if (st == FDX_ERR_UNSUPPORTED) ret = -1; /* built without CUDA */
    else if (p.kind == FDX_PLAN_TILED || p.kind == FDX_PLAN_ROWS) {
        CHECK(st == FDX_OK, "emulated kernel: %s", fdx_last_error());
        CHECK(memcmp(out, ref, bytes) == 0,
              "emulated kernel (subword %d, vec %d, direct %d, tile %d x %d) elem %zu rank %d (%lld x %lld ..) perm %d,%d.. "
              "shifts %d/%d: differs from CPU",
              p.subword, p.vec, p.direct, p.TA, p.TB, elem, rank, (long long)shape[0], (long long)shape[1], perm[0], perm[1],
              sshift, dshift);
        int bad = 0;
        for (unsigned char *g = draw; g < out; g++) bad += *g != 0x5A;
        for (unsigned char *g = out + bytes; g < draw + rawbytes; g++) bad += *g != 0x5A;
        CHECK(bad == 0, "emulated kernel (subword %d, direct %d) elem %zu shifts %d/%d: %d guard bytes written", p.subword, p.direct, elem,
              sshift, dshift, bad);
    }
    free(sraw);
    free(draw);
    free(ref);
    return ret;
}

/* The sub-word tile (transposes of the fastest axis and kept rows whose
   bytes leave the element narrower than the access word): 2D transposes
   with prime and odd extents (both cut, one whole, one short: 45 x many),
   batch axes before, between and after, kept odd rows (509, 3001: cut,
   131), src and dst starting at every residue mod 16 bytes (paired: src
   residue s with dst residue 5 s + case), elements of 1, 2, 4 and 8 bytes,
   under every FDX_LAYOUT_SUBWORD value: unset (16-byte words for 1-, 2-,
   4-byte elements), 4 (session 5's path: 1- and 2-byte elements), 16
   (every narrower element, 8-byte ones too) and 0 (the word kernel).  It
   checks which access word each plan gets: a planner change shows.
   want[v][e] has one bit per case: the shapes that take the sub-word tile
   with that switch and element.  Then the short fastest axes (3, 4, 5
   elements on either side, kept rows of 3-13 elements, ranks 3-6) as
   packed sub-word tiles over several axes, with 8- and 16-byte words. */
static void subword_emulation(fdx_ctx *ctx, uint64_t seed)
{
    static const int64_t sh[][4] = {{509, 263, 1, 1}, {45, 2003, 1, 1}, {1021, 9, 1, 1}, {127, 131, 1, 1},
                                    {257, 3, 131, 1}, {61, 17, 3, 131}, {8, 257, 1, 1},  {131, 7, 61, 1},
                                    {33, 64, 5, 1},   {4, 157, 1, 1},   {16, 4, 1, 1},   {509, 263, 3, 1},
                                    {3001, 3, 5, 1},  {131, 7, 61, 1},  {64, 5, 7, 1}};
    static const int pm[][4] = {{1, 0, 2, 3}, {1, 0, 2, 3}, {1, 0, 2, 3}, {1, 0, 2, 3}, {2, 1, 0, 3},
                                {3, 2, 1, 0}, {1, 0, 2, 3}, {2, 0, 1, 3}, {1, 2, 0, 3}, {1, 0, 2, 3},
                                {1, 0, 2, 3}, {0, 2, 1, 3}, {0, 2, 1, 3}, {0, 2, 1, 3}, {0, 2, 1, 3}};
    static const char *const variant[] = {NULL, "4", "16", "0"};
    static const int aw_of[4][4] = {{16, 16, 16, 0}, {4, 4, 0, 0}, {16, 16, 16, 16}, {0, 0, 0, 0}};
    /* 8- and 16-byte words: all but 13 and 14 for 1-byte elements, all but
       14 for wider ones (4 x 157 and 16 x 4 as packed tiles); 4-byte words
       (2D tiles only): 1 byte all but 9, 10, 13, 14, 2 bytes all but 10, 14 */
    static const unsigned want[4][4] = {{0x1fff, 0x3fff, 0x3fff, 0},
                                        {0x19ff, 0x3bff, 0, 0},
                                        {0x1fff, 0x3fff, 0x3fff, 0x3fff},
                                        {0, 0, 0, 0}};
    const int ncase = (int)(sizeof sh / sizeof sh[0]);
    for (int v = 0; v < 4; v++) {
        if (variant[v]) setenv("FDX_LAYOUT_SUBWORD", variant[v], 1);
        for (int c = 0; c < ncase; c++)
            for (int e = 0; e < 4; e++) {
                const size_t el = (size_t)1 << e; /* 1, 2, 4, 8 bytes */
                const int shifts = (int)(16 / el), rank = sh[c][3] > 1 ? 4 : sh[c][2] > 1 ? 3 : 2;
                const int expect = want[v][e] >> c & 1 ? aw_of[v][e] : 0;
                for (int ss = 0; ss < shifts; ss++) {
                    int k = emulate_shifted(ctx, el, rank, sh[c], pm[c], ss, (5 * ss + c) % shifts, seed++, NULL);
                    if (k < 0) {
                        printf("test_layout: sub-word emulation skipped (built without CUDA)\n");
                        unsetenv("FDX_LAYOUT_SUBWORD");
                        return;
                    }
                    /* case 14's 64-element rows widen to 16-byte words when both buffers allow */
                    CHECK(k == expect || (c == 14 && k == aw_of[v][e] && ((ss * el) % 16 || ((5 * ss + c) % shifts * el) % 16)),
                          "case %d (%lldx%lld..) elem %zu FDX_LAYOUT_SUBWORD=%s: sub-word plan %d, expected %d",
                          c, (long long)sh[c][0], (long long)sh[c][1], el, variant[v] ? variant[v] : "(unset)", k, expect);
                }
            }
        unsetenv("FDX_LAYOUT_SUBWORD");
    }
    /* arrays large enough for full-size tiles (over 528 tiles of 16 KB): a
       1-byte and a 4-byte 2D transpose, a 1-byte packed reversal */
    static const int64_t big[][5] = {{2903, 3001, 1, 1, 1}, {1499, 1511, 1, 1, 1}, {3, 5, 4, 211, 701}};
    static const int bpm[][5] = {{1, 0, 2, 3, 4}, {1, 0, 2, 3, 4}, {4, 3, 2, 1, 0}};
    static const size_t bel[] = {1, 4, 1};
    for (int c = 0; c < 3; c++) {
        const int rank = big[c][2] > 1 ? 5 : 2;
        int64_t tile = 1;
        fdx_perm_plan p;
        CHECK_OK(fdx_perm_plan_make(bel[c], rank, big[c], bpm[c], 16, 0, &p));
        for (int a = 0; a < p.rank; a++) tile *= p.te[a];
        CHECK(p.subword == 16 && p.packed == (c == 2) && tile * (int64_t)bel[c] > 8192,
              "large case %d: sub-word %d packed %d tile of %lld bytes", c, p.subword, p.packed,
              (long long)(tile * (int64_t)bel[c]));
        int k = emulate_shifted(ctx, bel[c], rank, big[c], bpm[c], 1, 3, seed++, NULL);
        CHECK(k == 16 || k == 8 || k < 0, "large case %d: sub-word plan %d with shifted buffers", c, k);
    }
    /* short fastest axes: the suite's worst shapes, scaled down */
    static const int64_t ssh[][6] = {{16, 17, 6, 4, 8, 13}, {4, 4, 15, 16, 13, 1}, {23, 33, 4, 3, 6, 7},
                                     {3, 5, 4, 25, 20, 8},  {5, 37, 23, 1, 1, 1},  {3, 8, 17, 51, 5, 1},
                                     {3, 251, 11, 4, 1, 1}, {13, 27, 17, 23, 1, 1}, {7, 4, 9, 14, 29, 3}};
    static const int spm[][6] = {{3, 1, 0, 5, 4, 2}, {2, 0, 4, 1, 3, 5}, {3, 0, 1, 4, 2, 5},
                                 {5, 4, 3, 2, 1, 0}, {0, 2, 1, 3, 4, 5}, {3, 0, 2, 4, 1, 5},
                                 {0, 3, 1, 2, 4, 5}, {0, 3, 2, 1, 4, 5}, {0, 4, 3, 1, 5, 2}};
    const int nshort = (int)(sizeof ssh / sizeof ssh[0]);
    /* unset (16-byte words), 16 (8-byte elements too), 8 (the 8-byte word) */
    static const char *const svar[] = {NULL, "16", "8"};
    for (int v = 0; v < 3; v++) {
        if (svar[v]) setenv("FDX_LAYOUT_SUBWORD", svar[v], 1);
        for (int c = 0; c < nshort; c++)
            for (int e = 0; e < (v == 1 ? 4 : 3); e++) {
                const size_t el = (size_t)1 << e;
                int rank = 6;
                while (ssh[c][rank - 1] == 1) rank--;
                for (int ss = 0; ss < 4; ss++) {
                    fdx_perm_plan q;
                    int k = emulate_shifted(ctx, el, rank, ssh[c], spm[c], ss, (3 * ss + c) % 4, seed++, &q),
                        packed = q.packed;
                    if (k < 0) break;
                    CHECK(k == (v == 2 ? 8 : 16) && packed, "short axes %d (%lldx%lld..) elem %zu: sub-word %d packed %d", c,
                          (long long)ssh[c][0], (long long)ssh[c][1], el, k, packed);
                }
            }
        unsetenv("FDX_LAYOUT_SUBWORD");
    }
}

/* The vector tile (1-, 2-, 4-byte elements, 16-byte accesses; A and K
   sides flat over several axes): odd and prime 2D transposes (rows on no
   16-byte boundary on either side), an aligned one, the suite's worst
   1-byte shapes scaled down (rt1-155: K over two dst axes; rt1-094: A over
   two src axes; rt1-054: unaligned both ways, K over two axes), batch
   axes before, between and after, sides too short for it (45 bytes, 9
   elements, 16 x 4, a 2-element dst-fastest axis), src and dst moved off 16 bytes by several residues,
   guards around dst.  want[c] bit e: case c takes it for elements of
   1 << e bytes (sides of 32 bytes or more); FDX_LAYOUT_VEC=1 keeps it to
   1-byte elements, =0 off, =4:64 asks for sides of 64 bytes (want64),
   =4:32:1024:a and :k force either block order, =4:32:1024::32 takes K
   sides of 32 bytes again (wantk32: the 9-element K side of case 8 in
   4-byte elements, and rt1-181 scaled down, case 12, K = 22 elements, in
   2-byte ones; by default K sides under 64 bytes go to the gather tiles,
   emulated here too). */
static void test_vec_emulation(fdx_ctx *ctx, uint64_t seed)
{
    static const int64_t sh[][6] = {{509, 263, 1, 1, 1, 1}, {64, 64, 1, 1, 1, 1},    {128, 5, 8, 283, 1, 1},
                                    {9, 64, 3, 16, 32, 1},  {1771, 89, 37, 1, 1, 1}, {45, 2003, 1, 1, 1, 1},
                                    {100, 3, 130, 1, 1, 1}, {61, 17, 3, 131, 1, 1},  {1021, 9, 1, 1, 1, 1},
                                    {16, 17, 6, 4, 8, 13},  {3, 7, 16, 5, 77, 1},    {130, 257, 2, 1, 1, 1},
                                    {7, 64, 8, 22, 5, 4}};
    static const int pm[][6] = {{1, 0, 2, 3, 4, 5}, {1, 0, 2, 3, 4, 5}, {3, 2, 0, 1, 4, 5}, {4, 3, 2, 1, 0, 5},
                                {2, 1, 0, 3, 4, 5}, {1, 0, 2, 3, 4, 5}, {2, 1, 0, 3, 4, 5}, {3, 2, 1, 0, 4, 5},
                                {1, 0, 2, 3, 4, 5}, {3, 1, 0, 5, 4, 2}, {4, 2, 0, 1, 3, 5}, {2, 0, 1, 3, 4, 5},
                                {3, 1, 5, 4, 2, 0}};
    static const unsigned want[] = {7, 7, 7, 7, 7, 7, 7, 7, 0, 6, 7, 0, 4},
                          want64[] = {7, 7, 7, 7, 7, 6, 7, 7, 0, 4, 7, 0, 4},
                          wantk32[] = {7, 7, 7, 7, 7, 7, 7, 7, 4, 6, 7, 0, 6};
    static const int sft[4][2] = {{0, 0}, {1, 3}, {7, 12}, {15, 9}};
    /* skewed tiles where dst rows are off 16 bytes by default; v = 7: FDX_LAYOUT_VEC_SKEW=0, none */
    static const char *const variant[] = {NULL, "1", "0", "4:64", "4:32:1024:a", "4:32:1024:k", "4:32:1024::32", NULL};
    const int ncase = (int)(sizeof sh / sizeof sh[0]);
    /* the vector tiles: 130 x 257 x 2 (K = 2) would take the interleave, 16 x 17 x 6 x 4 (K = 4) the
       narrow-K transpose */
    setenv("FDX_LAYOUT_ILV", "0", 1), setenv("FDX_LAYOUT_NK", "0", 1), setenv("FDX_LAYOUT_UG", "0", 1);
    for (int v = 0; v < 8; v++) {
        if (variant[v]) setenv("FDX_LAYOUT_VEC", variant[v], 1);
        if (v == 7) setenv("FDX_LAYOUT_VEC_SKEW", "0", 1);
        for (int c = 0; c < ncase; c++)
            for (int e = 0; e < 3; e++) {
                const size_t el = (size_t)1 << e;
                const int shifts = (int)(16 / el);
                int rank = 6;
                while (sh[c][rank - 1] == 1) rank--;
                const int expect = v == 3   ? (int)(want64[c] >> e & 1)
                                   : v == 6 ? (int)(wantk32[c] >> e & 1)
                                            : (int)(want[c] >> e & 1) && (v == 0 || v >= 4 || (v == 1 && e == 0));
                for (int k = 0; k < (v && v < 7 ? 2 : 4); k++) {
                    fdx_perm_plan q;
                    int r = emulate_shifted(ctx, el, rank, sh[c], pm[c], sft[k][0] % shifts, sft[k][1] % shifts,
                                            seed++, &q);
                    if (r < 0) {
                        printf("test_layout: vector tile emulation skipped (built without CUDA)\n");
                        unsetenv("FDX_LAYOUT_VEC");
                        unsetenv("FDX_LAYOUT_ILV"), unsetenv("FDX_LAYOUT_NK"), unsetenv("FDX_LAYOUT_UG");
                        return;
                    }
                    if (v == 4 || v == 5) CHECK(!q.vec || q.vkfast == (v == 5), "vec case %d: block order %d", c, q.vkfast);
                    if (q.vec) { /* skewed exactly where dst rows are (or may be) off 16 bytes, unless turned off */
                        int64_t nk = 1;
                        for (int i = 0; i < q.vgk; i++) nk *= q.n[q.s[i]];
                        const int off16 = (nk * (int64_t)el) % 16 != 0 || ((sft[k][0] % shifts) * el) % 16 != 0 ||
                                          ((sft[k][1] % shifts) * el) % 16 != 0;
                        CHECK(q.vskew == (v != 7 && off16), "vec case %d elem %zu shifts %d/%d: skew %d", c, el,
                              sft[k][0] % shifts, sft[k][1] % shifts, q.vskew);
                    }
                    CHECK(q.vec == expect, "vec case %d (%lldx%lld..) elem %zu FDX_LAYOUT_VEC=%s: vec %d (sides %d/%d), expected %d",
                          c, (long long)sh[c][0], (long long)sh[c][1], el, variant[v] ? variant[v] : "(unset)", q.vec,
                          q.vga, q.vgk, expect);
                }
            }
        unsetenv("FDX_LAYOUT_VEC");
        unsetenv("FDX_LAYOUT_VEC_SKEW");
    }
    unsetenv("FDX_LAYOUT_ILV"), unsetenv("FDX_LAYOUT_NK"), unsetenv("FDX_LAYOUT_UG");
}

/* FDX_LAYOUT_VEC_FILL=1..3 (session 13): the vector tile's sides scored by
   the tiles they take (skewed K's extra tile), two A groups (M = 2: 64
   bytes of A by 256 K elements) for A sides of at most 64 bytes, A tiles
   first where the A side takes at most 8 tiles.  Shapes: rt1-122 / rt1-177
   (full 3D reversals with a K side off 16 bytes) and rt1-131 (A = 45
   bytes) scaled down, short A sides of 16-64 bytes with K sides on and off
   16 bytes, nk past one and two 256-element tiles; src/dst residues, so
   that skewed and plain M = 2 tiles (and the skewed previous-chunk slot)
   all run.  Each plan emulated against the CPU loops with poisoned dst and
   guards; the M = 2 plans counted (the case list must reach them). */
static void test_vec_fill_emulation(fdx_ctx *ctx, uint64_t seed)
{
    static const int64_t sh[][4] = {{409, 23, 254, 1}, {154, 13, 269, 1}, {45, 700, 1, 1}, {45, 97, 7, 1},
                                    {32, 61, 37, 1},   {16, 80, 58, 3},   {11, 563, 1, 1}, {60, 300, 1, 1},
                                    {64, 517, 1, 1},   {33, 5, 131, 1}};
    static const int pm[][4] = {{2, 1, 0, 3}, {2, 1, 0, 3}, {1, 0, 2, 3}, {1, 2, 0, 3}, {2, 1, 0, 3},
                                {2, 1, 0, 3}, {1, 0, 2, 3}, {1, 0, 2, 3}, {1, 0, 2, 3}, {2, 0, 1, 3}};
    static const int sft[4][2] = {{0, 0}, {1, 3}, {7, 12}, {0, 9}};
    int groups2 = 0, vecs = 0;
    for (int v = 1; v <= 3; v++) {
        char val[2] = {(char)('0' + v), 0};
        setenv("FDX_LAYOUT_VEC_FILL", val, 1);
        for (int c = 0; c < (int)(sizeof sh / sizeof sh[0]); c++)
            for (int e = 0; e < 3; e++) {
                const size_t el = (size_t)1 << e;
                const int shifts = (int)(16 / el);
                int rank = 4;
                while (sh[c][rank - 1] == 1) rank--;
                for (int k = 0; k < 4; k++) {
                    fdx_perm_plan q;
                    int r = emulate_shifted(ctx, el, rank, sh[c], pm[c], sft[k][0] % shifts, sft[k][1] % shifts, seed++, &q);
                    if (r < 0) {
                        printf("test_layout: vector fill emulation skipped (built without CUDA)\n");
                        unsetenv("FDX_LAYOUT_VEC_FILL");
                        return;
                    }
                    vecs += q.vec;
                    groups2 += q.vec && q.vgroups == 2;
                    CHECK(!q.vec || q.vgroups == 1 || (v >= 2 && q.n[0] * (int64_t)el <= 64),
                          "vec fill case %d elem %zu FILL=%d: %d groups for an A side of %lld elements", c, el, v,
                          q.vgroups, (long long)q.n[0]);
                }
            }
        unsetenv("FDX_LAYOUT_VEC_FILL");
    }
    CHECK(vecs >= 150 && groups2 >= 40, "vec fill emulation: %d vector plans, %d with two A groups", vecs, groups2);
    printf("test_layout: vector fill emulation: %d vector plans, %d with two A groups\n", vecs, groups2);
}

/* FDX_LAYOUT_ILV=1 (session 13): the interleave kernel, dst[k + K i] =
   src_k[i] line by line, for K = 2..8 bytes of 1-, 2-, 4-byte elements
   (rt1-049 / rt1-149: 1-byte K = 3), A sides from shorter than a 16 K-byte
   chunk to 1001, line axes before and after K, src/dst residues (lines
   and rows at every phase); plans with K e > 8 must not take it. */
static void test_ilv_emulation(fdx_ctx *ctx, uint64_t seed)
{
    static const int64_t sh[][4] = {{75, 3, 7, 1},  {1001, 5, 3, 1}, {37, 4, 2, 9},  {16, 6, 11, 1}, {333, 7, 2, 1},
                                    {64, 8, 3, 1},  {5, 3, 41, 1},   {203, 13, 3, 5}, {2, 2, 33, 1}};
    static const int pm[][4] = {{1, 0, 2, 3}, {1, 0, 2, 3}, {2, 0, 3, 1}, {1, 0, 2, 3}, {1, 0, 2, 3},
                                {1, 0, 2, 3}, {1, 0, 2, 3}, {2, 0, 1, 3}, {1, 0, 2, 3}};
    static const int kax[] = {1, 1, 2, 1, 1, 1, 1, 2, 1}; /* the K axis */
    static const int sft[4][2] = {{0, 0}, {1, 3}, {7, 12}, {15, 5}};
    int taken = 0;
    setenv("FDX_LAYOUT_ILV", "1", 1);
    for (int c = 0; c < (int)(sizeof sh / sizeof sh[0]); c++)
        for (int e = 0; e < 3; e++) {
            const size_t el = (size_t)1 << e;
            const int shifts = (int)(16 / el);
            int rank = 4;
            while (sh[c][rank - 1] == 1) rank--;
            for (int k = 0; k < 4; k++) {
                fdx_perm_plan q;
                int r = emulate_shifted(ctx, el, rank, sh[c], pm[c], sft[k][0] % shifts, sft[k][1] % shifts, seed++, &q);
                if (r < 0) {
                    printf("test_layout: interleave emulation skipped (built without CUDA)\n");
                    unsetenv("FDX_LAYOUT_ILV");
                    return;
                }
                const int want = sh[c][kax[c]] * (int64_t)el <= 8;
                CHECK(!!q.vilv == want && (!want || q.vilv == sh[c][kax[c]]),
                      "interleave case %d elem %zu: vilv %d, want K %lld", c, el, q.vilv, (long long)sh[c][kax[c]]);
                taken += q.vilv != 0;
            }
        }
    unsetenv("FDX_LAYOUT_ILV");
    printf("test_layout: interleave emulation: %d plans\n", taken);
}

/* FDX_LAYOUT_NK=1 (session 13): the narrow-K register transpose, dst's
   fastest axis one 4- or 8-byte word (K = 4 or 8 bytes, 2 or 4 halves),
   its next axis B any src axis but 0 (rt1-065's 509 x 8 x 13 x 6 x 512,
   perm 1,3,0,4,2, scaled down: K = 8): rt1-171 (16 x 172 x 61 x 4 x 8 x 131, perm
   3,1,0,5,4,2) scaled down, A sides of 16 bytes, odd (partial last
   chunk), long; B strided and contiguous-after-A; src and dst residues
   (the plan needs both buffers on 4 bytes: it knows their common
   alignment only; src residues of 4, 8, 12 bytes realign the loads). */
static void test_nk_emulation(fdx_ctx *ctx, uint64_t seed)
{
    static const int64_t sh[][6] = {{16, 37, 5, 4, 3, 7}, {13, 41, 3, 4, 1, 1}, {16, 9, 4, 1, 1, 1},
                                    {45, 4, 11, 2, 1, 1}, {7, 4, 6, 5, 1, 1},  {100, 2, 33, 3, 1, 1},
                                    {61, 8, 13, 6, 5, 1}, {27, 8, 3, 4, 1, 1}};
    static const int pm[][6] = {{3, 1, 0, 5, 4, 2}, {3, 1, 0, 2, 4, 5}, {2, 1, 0, 3, 4, 5},
                                {1, 3, 0, 2, 4, 5}, {1, 3, 0, 2, 4, 5}, {1, 3, 0, 2, 4, 5},
                                {1, 3, 0, 4, 2, 5}, {3, 2, 0, 1, 4, 5}};
    static const int kax[] = {3, 3, 2, 1, 1, 1, 1, 3}; /* the K axis (dst's fastest) */
    static const int sft[6][2] = {{0, 0}, {4, 4}, {12, 8}, {1, 4}, {8, 6}, {8, 8}};
    int taken = 0;
    setenv("FDX_LAYOUT_NK", "2", 1); /* 4- and 8-byte words (the default, 1: 4-byte ones) */
    for (int c = 0; c < (int)(sizeof sh / sizeof sh[0]); c++)
        for (int e = 0; e < 2; e++) {
            const size_t el = (size_t)1 << e;
            const int shifts = (int)(16 / el);
            int rank = 6;
            while (sh[c][rank - 1] == 1) rank--;
            for (int k = 0; k < 6; k++) {
                const int ss = (sft[k][0] / (int)el) % shifts, ds = (sft[k][1] / (int)el) % shifts; /* bytes -> elements */
                fdx_perm_plan q;
                int r = emulate_shifted(ctx, el, rank, sh[c], pm[c], ss, ds, seed++, &q);
                if (r < 0) {
                    printf("test_layout: narrow-K emulation skipped (built without CUDA)\n");
                    unsetenv("FDX_LAYOUT_NK");
                    return;
                }
                const int64_t kw = sh[c][kax[c]] * (int64_t)el;
                const int want = (kw == 4 || kw == 8) && (ds * el) % (size_t)kw == 0 && (ss * el) % (size_t)kw == 0;
                CHECK(!!q.vnk == want, "narrow-K case %d elem %zu shifts %d/%d: vnk %d, want %d", c, el, ss, ds, q.vnk,
                      want);
                taken += q.vnk != 0;
            }
        }
    unsetenv("FDX_LAYOUT_NK");
    printf("test_layout: narrow-K emulation: %d plans\n", taken);
}

/* FDX_LAYOUT_UG=1 (session 13): the unit gather, 2D transposes of short
   kept rows (units of 2-7 elements, at most 8 bytes): rt1-088 (3 x 259 x
   11 x 4 x 1277 x 11, perm 0,4,5,1,2,3: 2-byte units of 3) and rt1-004 (5
   x 374 x 239 x 64, perm 0,2,3,1: 1-byte units of 5) scaled down, A sides
   shorter than a 16-unit chunk and odd, batch axes, residues; units over
   8 bytes must not take it. */
static void test_ug_emulation(fdx_ctx *ctx, uint64_t seed)
{
    static const int64_t sh[][6] = {{3, 37, 5, 4, 41, 3}, {5, 74, 19, 6, 1, 1}, {2, 9, 33, 1, 1, 1},
                                    {7, 100, 3, 5, 1, 1},  {4, 16, 17, 2, 1, 1}, {6, 5, 23, 3, 1, 1}};
    static const int pm[][6] = {{0, 4, 5, 1, 2, 3}, {0, 2, 3, 1, 4, 5}, {0, 2, 1, 3, 4, 5},
                                {0, 3, 1, 2, 4, 5}, {0, 2, 3, 1, 4, 5}, {0, 3, 1, 2, 4, 5}};
    static const int sft[4][2] = {{0, 0}, {1, 3}, {7, 12}, {15, 5}};
    int taken = 0;
    setenv("FDX_LAYOUT_UG", "1", 1);
    for (int c = 0; c < (int)(sizeof sh / sizeof sh[0]); c++)
        for (int e = 0; e < 3; e++) {
            const size_t el = (size_t)1 << e;
            const int shifts = (int)(16 / el);
            int rank = 6;
            while (sh[c][rank - 1] == 1) rank--;
            for (int k = 0; k < 4; k++) {
                fdx_perm_plan q;
                int r = emulate_shifted(ctx, el, rank, sh[c], pm[c], sft[k][0] % shifts, sft[k][1] % shifts, seed++, &q);
                if (r < 0) {
                    printf("test_layout: unit gather emulation skipped (built without CUDA)\n");
                    unsetenv("FDX_LAYOUT_UG");
                    return;
                }
                CHECK(!q.vug || (q.vug == q.R && q.R * (int64_t)el <= 8), "unit gather case %d elem %zu: vug %d R %lld", c,
                      el, q.vug, (long long)q.R);
                taken += q.vug != 0;
            }
        }
    unsetenv("FDX_LAYOUT_UG");
    CHECK(taken >= 30, "unit gather emulation: %d plans", taken); /* units of 4 and 8 bytes may widen to one word */
    printf("test_layout: unit gather emulation: %d plans\n", taken);
}

/* Kept rows through the vector row copy: rows of 509, 3001, 131, 344,
   128 elements of 1-8 bytes (odd, prime, 8-byte multiples; several rows a
   block, or several blocks a row) with batch axes swapped, src and dst off
   16 bytes by several residues; it takes every plan whose row bytes leave
   a word under 16 bytes (odd rows, or the buffers' residues differ) and
   whose rows reach 128 bytes (FDX_LAYOUT_VEC=4:32:1024: 1024 bytes, the
   rule before session 11), the word kernel's 16-byte rows the rest.
   FDX_LAYOUT_VEC=0: none. */
static void test_vec_rows_emulation(fdx_ctx *ctx, uint64_t seed)
{
    static const int64_t sh[][3] = {{509, 7, 13}, {3001, 3, 5}, {131, 61, 7}, {344, 15, 16}, {128, 9, 2}};
    static const int pm[][3] = {{0, 2, 1}, {0, 2, 1}, {0, 2, 1}, {0, 2, 1}, {0, 2, 1}};
    static const int sft[4][2] = {{0, 0}, {1, 3}, {4, 4}, {15, 9}};
    /* v = 3..5: FDX_LAYOUT_VEC_ROWS=1, 4, 8 (the flat layout; session 13) */
    static const char *const variant[] = {NULL, "0", "4:32:1024", NULL, NULL, NULL};
    static const char *const flat[] = {NULL, NULL, NULL, "1", "4", "8"};
    for (int v = 0; v < 6; v++) {
        if (variant[v]) setenv("FDX_LAYOUT_VEC", variant[v], 1);
        if (flat[v]) setenv("FDX_LAYOUT_VEC_ROWS", flat[v], 1);
        if (v == 1 || v == 5) setenv("FDX_LAYOUT_VEC_ROWS_DST", "0", 1); /* rows in src order (default: dst order) */
        for (int c = 0; c < (int)(sizeof sh / sizeof sh[0]); c++)
            for (int e = 0; e < 4; e++) {
                const size_t el = (size_t)1 << e;
                const int n = (int)(16 / el);
                for (int k = 0; k < 4; k++) {
                    const int ss = sft[k][0] % n, ds = sft[k][1] % n;
                    const int wide = (sh[c][0] * (int64_t)el) % 16 == 0 && (ss * el) % 16 == 0 && (ds * el) % 16 == 0;
                    fdx_perm_plan q;
                    if (emulate_shifted(ctx, el, 3, sh[c], pm[c], ss, ds, seed++, &q) < 0) {
                        printf("test_layout: vector rows emulation skipped (built without CUDA)\n");
                        unsetenv("FDX_LAYOUT_VEC");
                        return;
                    }
                    const int64_t len = sh[c][0] * (int64_t)el;
                    CHECK(q.kind == FDX_PLAN_ROWS && q.vec == (v != 1 && !wide && len >= (v == 2 ? 1024 : 128)),
                          "rows case %d (%lld..) elem %zu shifts %d/%d FDX_LAYOUT_VEC=%s: kind %d vec %d word %d", c,
                          (long long)sh[c][0], el, ss, ds, variant[v] ? variant[v] : "(unset)", (int)q.kind, q.vec,
                          q.word);
                    CHECK(!q.vec || q.vrows == (flat[v] ? atoi(flat[v]) : 0), "rows case %d: %d words a thread", c, q.vrows);
                }
            }
        unsetenv("FDX_LAYOUT_VEC");
        unsetenv("FDX_LAYOUT_VEC_ROWS");
        unsetenv("FDX_LAYOUT_VEC_ROWS_DST");
    }
}

/* The sub-word cases above with the vector tile off (it takes most of them
   otherwise: test_vec_emulation): 16-byte access words through the gather
   path (16-byte slots into the buffer, aligned pieces at run ends), 4- and
   8-byte ones through the element path (FDX_LAYOUT_GATHER=0 on 16-byte
   words: test_gather_emulation). */
static void test_subword_emulation(fdx_ctx *ctx, uint64_t seed)
{
    setenv("FDX_LAYOUT_VEC", "0", 1);
    subword_emulation(ctx, seed);
    unsetenv("FDX_LAYOUT_VEC");
}

/* The gather path on the suite's worst sub-word shapes, scaled down (the
   GPU test runs them near full size): narrow fastest sides (rt1-171 16 x 4,
   rt1-149 and rt1-049 K = 3, rt1-147 A = 4) and short kept rows (rt1-120
   7-element rows of 4 bytes, rt1-004 5, rt1-088 3, rt1-092 11, rt1-175 11,
   rt1-100 7), elements of 1, 2, 4 bytes, src/dst residues, with the vector
   tile on (it declines them all for 1-byte elements, takes a few with
   wider ones): the rest take the sub-word tile with 16-byte words and the
   gather path, FDX_LAYOUT_GATHER=0 the element path, =2 the gather path
   with the write side's offset table, =3 the table with unswizzled rows
   of an odd number of words, =5 the table with rows of an odd number of
   16-byte slots (session 10; one residue pair each); unset is =4, which
   picks one of 1-3. */
static void test_gather_emulation(fdx_ctx *ctx, uint64_t seed)
{
    static const int64_t sh[LT_WORST][6] = {{7, 8, 46, 37, 1, 1}, {16, 13, 11, 4, 8, 3}, {64, 32, 3, 16, 2, 1},
                                    {37, 13, 4, 3, 6, 5}, {4, 4, 57, 41, 3, 1},  {5, 74, 19, 64, 1, 1},
                                    {3, 59, 11, 4, 17, 1}, {11, 32, 16, 27, 1, 1}, {11, 28, 37, 8, 3, 1},
                                    {7, 4, 16, 14, 9, 3}};
    const int (*pm)[6] = lt_worst_perm;
    static const int sft[3][2] = {{0, 0}, {1, 6}, {13, 3}};
    static const char *const knob[5] = {NULL, "0", "2", "3", "5"};
    static const int want[5] = {-1, 0, 2, 3, 5}; /* -1: 1, 2 or 3 (the default, 4) */
    /* the gather path's shapes: K = 3 (rt1-149, -049) would take the interleave, 16 x 4 (rt1-171) the
       narrow-K transpose, units of 3 and 5 (rt1-088, -004) the unit gather */
    setenv("FDX_LAYOUT_ILV", "0", 1), setenv("FDX_LAYOUT_NK", "0", 1), setenv("FDX_LAYOUT_UG", "0", 1);
    for (int v = 0; v < 5; v++) {
        if (knob[v]) setenv("FDX_LAYOUT_GATHER", knob[v], 1);
        for (int c = 0; c < (int)(sizeof sh / sizeof sh[0]); c++) {
            const int rank = lt_rank6(sh[c]);
            for (int e = 0; e < 4; e++) { /* 8-byte elements: the sub-word path asked for (FDX_LAYOUT_SUBWORD=16) */
                const size_t el = (size_t)1 << e;
                const int n = (int)(16 / el);
                if (e == 3) setenv("FDX_LAYOUT_SUBWORD", "16", 1);
                for (int k = v < 2 ? 0 : 1; k < (v < 2 ? 3 : 2); k++) { /* the measurement knobs: one residue pair */
                    fdx_perm_plan q;
                    int r = emulate_shifted(ctx, el, rank, sh[c], pm[c], sft[k][0] % n, sft[k][1] % n, seed++, &q);
                    if (r < 0) {
                        printf("test_layout: gather emulation skipped (built without CUDA)\n");
                        unsetenv("FDX_LAYOUT_GATHER");
                        unsetenv("FDX_LAYOUT_ILV"), unsetenv("FDX_LAYOUT_NK"), unsetenv("FDX_LAYOUT_UG");
                        unsetenv("FDX_LAYOUT_SUBWORD");
                        return;
                    }
                    CHECK((q.vec && e > 0) || (q.subword == 16 && (q.gather == want[v] || (want[v] < 0 && q.gather >= 1)) && !q.vec),
                          "gather case %d (%lldx%lld..) elem %zu FDX_LAYOUT_GATHER=%s: sub-word %d gather %d vec %d", c,
                          (long long)sh[c][0], (long long)sh[c][1], el, knob[v] ? knob[v] : "(unset)", q.subword,
                          q.gather, q.vec);
                }
                unsetenv("FDX_LAYOUT_SUBWORD");
            }
        }
        unsetenv("FDX_LAYOUT_GATHER");
    }
    unsetenv("FDX_LAYOUT_ILV"), unsetenv("FDX_LAYOUT_NK"), unsetenv("FDX_LAYOUT_UG");
}

/* One transform of a 4D shape with dst `shift` bytes past a 16-byte
   boundary, checked against the reference loops (poisoned output). */
static void cache_case(fdx_ctx *ctx, size_t elem, const int64_t *shape, const int *perm, size_t shift, uint64_t *seed)
{
    const int64_t count = shape[0] * shape[1] * shape[2] * shape[3];
    const size_t bytes = (size_t)count * elem;
    unsigned char *in = malloc(bytes), *ref = malloc(bytes), *raw = aligned_alloc(16, (bytes + 32 + 15) / 16 * 16);
    unsigned char *out = raw + shift;
    lt_fill(in, bytes, seed);
    fdx_layout l, id;
    fdx_layout_make(4, perm, FDX_DIAG_NONE, &l);
    fdx_layout_identity(4, &id);
    lt_ref_layout(ref, in, &l, elem, 4, shape, count);
    memset(out, 0xA5, bytes);
    CHECK_OK(fdx_layout_convert(ctx, out, &l, in, &id, elem, 4, shape, NULL));
    CHECK(memcmp(out, ref, bytes) == 0, "convert elem %zu %lldx%lldx%lldx%lld perm %d%d%d%d dst +%zu: wrong", elem,
          (long long)shape[0], (long long)shape[1], (long long)shape[2], (long long)shape[3], perm[0], perm[1], perm[2],
          perm[3], shift);
    memset(out, 0x5A, bytes);
    CHECK_OK(fdx_permute(ctx, out, in, elem, 4, shape, perm, NULL));
    CHECK(memcmp(out, ref, bytes) == 0, "permute elem %zu perm %d%d%d%d dst +%zu: wrong", elem, perm[0], perm[1],
          perm[2], perm[3], shift);
    free(in), free(ref), free(raw);
}

/* The plan cache (fdx_layout_plan_cache.c): calls that differ in one thing
   the plan depends on (element size, permutation, shape, in place or not),
   alternated so that each would find the other's plan if the key missed
   that field, every result checked (mutations shown to fail: the key
   without the element size, 1471 checks; without in place, 2; without the
   shape, a crash; the alignment is in the key too, but CPU results do not
   depend on it: dst shifted by the element size is checked); more shapes than
   the table holds, twice over (evictions, then hits); the table's own
   order (least recently used out) through its API; the knob part of the
   key, and FDX_LAYOUT_PLAN_CACHE=0. */
static void test_plan_cache(fdx_ctx *ctx, uint64_t seed)
{
    const int64_t shape[4] = {37, 5, 24, 3}, other[4] = {37, 5, 3, 24};
    const int p1[4] = {2, 0, 1, 3}, p2[4] = {1, 2, 0, 3};
    for (int round = 0; round < 2; round++) {
        for (int e = 0; e < 5; e++) cache_case(ctx, lt_elems[e], shape, p1, 0, &seed);
        for (int e = 0; e < 4; e++) cache_case(ctx, lt_elems[e], shape, p1, lt_elems[e], &seed); /* alignment */
        cache_case(ctx, 4, shape, p2, 0, &seed);
        cache_case(ctx, 4, other, p1, 0, &seed);
    }
    for (int round = 0; round < 2; round++) /* 20 shapes: more than the table's 16 */
        for (int i = 0; i < 20; i++) {
            const int64_t sh[4] = {3 + i, 7, 2 + i % 3, 5};
            cache_case(ctx, 2, sh, p1, 0, &seed);
        }
    /* in place after out of place on the same shape: the square plan */
    const int64_t sq[3] = {33, 33, 2};
    const int swap[3] = {1, 0, 2};
    for (int round = 0; round < 2; round++) {
        const size_t bytes = 33 * 33 * 2 * 8;
        unsigned char *in = malloc(bytes), *buf = malloc(bytes), *ref = malloc(bytes);
        lt_fill(in, bytes, &seed);
        fdx_layout l;
        fdx_layout_make(3, swap, FDX_DIAG_NONE, &l);
        lt_ref_layout(ref, in, &l, 8, 3, sq, 33 * 33 * 2);
        memset(buf, 0xA5, bytes);
        CHECK_OK(fdx_permute(ctx, buf, in, 8, 3, sq, swap, NULL));
        CHECK(memcmp(buf, ref, bytes) == 0, "square transpose out of place wrong (round %d)", round);
        memcpy(buf, in, bytes);
        CHECK_OK(fdx_permute(ctx, buf, buf, 8, 3, sq, swap, NULL));
        CHECK(memcmp(buf, ref, bytes) == 0, "square transpose in place wrong (round %d)", round);
        free(in), free(buf), free(ref);
    }
    /* the table: 17 keys into 16 entries, key 0 found first (so key 1 is the oldest) */
    for (int i = 0; i < 17; i++) {
        char key[24] = "plan-cache-test-key";
        int v = 1000 + i, got = -1;
        key[20] = (char)('A' + i);
        if (i == 16) {
            char k0[24] = "plan-cache-test-key";
            k0[20] = 'A';
            CHECK(fdx_layout_plan_cache_find(k0, sizeof k0, &got, sizeof got) && got == 1000, "key 0 not found: %d", got);
        }
        fdx_layout_plan_cache_put(key, sizeof key, &v, sizeof v);
    }
    for (int i = 0; i < 17; i++) {
        char key[24] = "plan-cache-test-key";
        int got = -1;
        key[20] = (char)('A' + i);
        const int hit = fdx_layout_plan_cache_find(key, sizeof key, &got, sizeof got);
        CHECK(i == 1 ? !hit : hit && got == 1000 + i, "key %d: hit %d value %d (key 1 should be the one evicted)", i, hit,
              got);
        long long wrong_size;
        CHECK(!fdx_layout_plan_cache_find(key, sizeof key, &wrong_size, sizeof wrong_size), "key %d found with another value size", i);
    }
    /* the knobs in the key */
    char a[448], b[448];
    unsetenv("FDX_LAYOUT_GATHER");
    CHECK(fdx_layout_plan_knobs(a, sizeof a), "knob key does not fit");
    setenv("FDX_LAYOUT_GATHER", "2", 1);
    CHECK(fdx_layout_plan_knobs(b, sizeof b) && memcmp(a, b, sizeof a) != 0, "FDX_LAYOUT_GATHER=2 leaves the knob key as it was");
    unsetenv("FDX_LAYOUT_GATHER");
    setenv("FDX_LAYOUT_PLAN_CACHE", "0", 1);
    CHECK(!fdx_layout_plan_knobs(b, sizeof b), "FDX_LAYOUT_PLAN_CACHE=0 does not turn the cache off");
    cache_case(ctx, 4, shape, p1, 0, &seed);
    unsetenv("FDX_LAYOUT_PLAN_CACHE");
    char tiny[16];
    setenv("FDX_LAYOUT_GATHER", "4", 1); /* the default: "FDX_LAYOUT_GATHER=4\n" needs 20 bytes */
    CHECK(!fdx_layout_plan_knobs(tiny, sizeof tiny), "a knob key that does not fit is used");
    CHECK(fdx_layout_plan_knobs(a, sizeof a) && strstr(a, "FDX_LAYOUT_GATHER=4\n"), "knob key: %.60s", a);
    cache_case(ctx, 4, shape, p1, 0, &seed); /* a plan under a knob set to its default value */
    unsetenv("FDX_LAYOUT_GATHER");
}

/* Direct transposes (FDX_LAYOUT_DIRECT; fdx_layout_cuda_direct.cuh),
   emulated: random permutations of rank 2-6, every element size, the flat
   and the stepped kernel, stores of 1, 2 and 4 words (where the element fits 16 bytes), src and dst shifted
   off their alignment (then the plan keeps the widest store both allow),
   guards around dst, each dst word stored exactly once (the emulation
   counts).  Arrays up to 20000 elements: the full blocks' unrolled path
   and the last block's word-by-word one.  Then the auto rule (MODE 2) on
   two shapes it must tell apart. */
static void test_direct_emulation(fdx_ctx *ctx, uint64_t seed)
{
    /* flat (MODE 1) and stepped (MODE 3) kernels, 1, 2, 4 words a store */
    /* then warp tiles of the stepped kernel: 4, 8, 32 lanes along its axis */
    static const char *modes[9] = {"1", "1:2", "1:4", "3", "3:2", "3:4", "3:1:8:64:4", "3:2:8:64:8", "3:1:8:64:32"};
    static const int mp[9] = {1, 2, 4, 1, 2, 4, 1, 2, 1}, mlanes[9] = {0, 0, 0, 0, 0, 0, 4, 8, 32};
    int direct[5] = {0}, stepped = 0;
    for (int m = 0; m < 9; m++) {
        setenv("FDX_LAYOUT_DIRECT", modes[m], 1);
        for (int rank = 2; rank <= 6; rank++)
            for (int e = 0; e < 5; e++) {
                int64_t shape[FDX_MAX_RANK];
                int perm[FDX_MAX_RANK];
                lt_shape(rank, shape, 20000, &seed);
                lt_perm(rank, perm, &seed);
                fdx_perm_plan q;
                const int sh = (int)(seed % 3) == 2 ? 1 : 0; /* a third of them off the alignment */
                if (emulate_shifted(ctx, lt_elems[e], rank, shape, perm, sh, sh, seed++, &q) < 0) {
                    printf("test_layout: direct emulation skipped (built without CUDA)\n");
                    setenv("FDX_LAYOUT_DIRECT", "0", 1);
                    return;
                }
                if (q.kind == FDX_PLAN_TILED || q.kind == FDX_PLAN_ROWS) {
                    const int want = mp[m]; /* the store the knob asks for, where the word and alignment allow it */
                    int ok = want * q.word <= 16 && (!sh || want == 1), kq = 0;
                    if (m >= 3) { /* stepped: src axis 0 moves, dst axis 0 in groups of want */
                        while (kq < q.rank && q.s[kq] != 0) kq++;
                        ok = ok && kq >= 1 && kq < q.rank && q.n[q.s[0]] % want == 0;
                    }
                    CHECK(q.direct == (ok ? want : 0) && q.dstep == (ok && m >= 3 ? kq : 0) &&
                              q.dlanes == (ok && m >= 3 ? mlanes[m] : 0),
                          "direct %s elem %zu rank %d: plan direct %d step %d (word %d)", modes[m], lt_elems[e], rank,
                          q.direct, q.dstep, q.word);
                    direct[e] += q.direct > 0, stepped += q.dstep > 0;
                }
            }
    }
    CHECK(stepped >= 20, "stepped direct plans: %d", stepped);
    for (int e = 0; e < 5; e++) CHECK(direct[e] >= 3, "direct plans for %zu-byte elements: %d", lt_elems[e], direct[e]);
    /* the rule (MODE 2, the default): short kept rows (rt1-120 scaled down:
       28-byte units) take the flat kernel; a plain 8-byte 2D transpose
       (every lane its own line) the stepped kernel in 8 x 4 warp tiles
       (none under MODE 4, the flat part alone), with 3 words along dst axis
       0 the plain stepped kernel; 4-byte 2D and 1-byte words from 16 MiB
       nothing.  Plans only above a few MiB. */
    unsetenv("FDX_LAYOUT_DIRECT");
    const int64_t units[4] = {7, 8, 46, 37}, flat[2] = {1001, 517}, big[2] = {1001, 2048}, bytes1[2] = {4096, 4096 + 64},
                  rev[3] = {13, 419, 3};
    const int pu[4] = {0, 3, 1, 2}, pf[2] = {1, 0}, pr[3] = {2, 1, 0};
    fdx_perm_plan q;
    CHECK(emulate_shifted(ctx, 4, 4, units, pu, 0, 0, seed++, &q) >= 0 && q.direct == 1 && q.dstep == 0,
          "default rule: units plan direct %d step %d", q.direct, q.dstep);
    CHECK(emulate_shifted(ctx, 8, 2, flat, pf, 0, 0, seed++, &q) >= 0 && q.direct == 1 && q.dstep == 1 && q.dlanes == 4,
          "default rule: 8-byte 2D plan direct %d step %d lanes %d", q.direct, q.dstep, q.dlanes);
    CHECK(emulate_shifted(ctx, 8, 3, rev, pr, 0, 0, seed++, &q) >= 0 && q.direct == 1 && q.dstep == 2 && q.dlanes == 0,
          "default rule: 8-byte reversal plan direct %d step %d lanes %d", q.direct, q.dstep, q.dlanes);
    CHECK(emulate_shifted(ctx, 4, 2, flat, pf, 0, 0, seed++, &q) >= 0 && q.direct == 0,
          "default rule: 4-byte 2D plan direct %d", q.direct);
    CHECK_OK(fdx_perm_plan_make(8, 2, big, pf, 16, 0, &q));
    CHECK(q.direct == 1 && q.dstep == 1 && q.dlanes == 4, "default rule: 16 MiB 8-byte 2D plan direct %d step %d lanes %d",
          q.direct, q.dstep, q.dlanes);
    CHECK_OK(fdx_perm_plan_make(1, 2, bytes1, pf, 16, 0, &q));
    CHECK(q.direct == 0, "default rule: 16 MiB 1-byte plan direct %d", q.direct);
    /* the 8 x 4 warp tiles lost from 24 MiB (s13d): a 24 MiB 8-byte 2D transpose keeps the tile kernel */
    const int64_t big24[2] = {1536, 2048};
    CHECK_OK(fdx_perm_plan_make(8, 2, big24, pf, 16, 0, &q));
    CHECK(q.direct == 0, "default rule: 24 MiB 8-byte 2D plan direct %d step %d", q.direct, q.dstep);
    /* rt1-147 (1-byte, 51 MiB: too large for the flat kernel): the plain
       stepped kernel, whose loads touch 5 lines */
    const int64_t s147[5] = {4, 4, 157, 161, 133};
    const int p147[5] = {2, 0, 4, 1, 3};
    CHECK_OK(fdx_perm_plan_make(1, 5, s147, p147, 16, 0, &q));
    CHECK(q.direct == 1 && q.dstep > 0 && q.dlanes == 0, "default rule: rt1-147 plan direct %d step %d lanes %d", q.direct,
          q.dstep, q.dlanes);
    setenv("FDX_LAYOUT_DIRECT", "4", 1);
    CHECK_OK(fdx_perm_plan_make(8, 2, big, pf, 16, 0, &q));
    CHECK(q.direct == 0, "MODE 4: 16 MiB 8-byte 2D plan direct %d", q.direct);
    CHECK_OK(fdx_perm_plan_make(4, 4, units, pu, 16, 0, &q));
    CHECK(q.direct == 1 && q.dstep == 0, "MODE 4: units plan direct %d step %d", q.direct, q.dstep);
    setenv("FDX_LAYOUT_DIRECT", "0", 1); /* the other emulation tests' kernels */
    CHECK_OK(fdx_perm_plan_make(4, 4, units, pu, 16, 0, &q));
    CHECK(q.direct == 0, "FDX_LAYOUT_DIRECT=0: plan direct %d", q.direct);
}

static void test_errors(fdx_ctx *ctx)
{
    const int64_t shape[3] = {4, 5, 6};
    unsigned char src[4 * 5 * 6 * 16], dst[sizeof src], keep[sizeof src];
    memset(src, 1, sizeof src);
    memset(dst, 0xAB, sizeof dst);
    memcpy(keep, dst, sizeof dst);
    const int dup[3] = {0, 0, 1}, out[3] = {0, 1, 3}, ok[3] = {2, 1, 0};
    CHECK_FAILS(fdx_permute(ctx, dst, src, 8, 3, shape, dup, NULL), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_permute(ctx, dst, src, 8, 3, shape, out, NULL), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_permute(ctx, dst, src, 3, 3, shape, ok, NULL), FDX_ERR_INVALID);
    CHECK(strstr(fdx_last_error(), "element size 3") != NULL, "element size named: %s", fdx_last_error());
    CHECK_FAILS(fdx_permute(ctx, dst, src, 32, 3, shape, ok, NULL), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_permute(ctx, dst + 1, src, 8, 3, shape, ok, NULL), FDX_ERR_INVALID);
    fdx_layout l2, l3;
    fdx_layout_identity(2, &l2);
    fdx_layout_identity(3, &l3);
    CHECK_FAILS(fdx_layout_convert(ctx, dst, &l2, src, &l3, 8, 3, shape, NULL), FDX_ERR_INVALID);
    CHECK(memcmp(dst, keep, sizeof dst) == 0, "failed calls wrote the destination");
}

int main(void)
{
    fdx_ctx *ctx = fdx_test_ctx("cpu");
    CHECK(ctx != NULL, "cpu context: %s", fdx_last_error());
    if (!ctx) return fdx_test_finish("test_layout");
    test_descriptor();
    test_diag_index();
    test_emit(ctx);
    test_permutations(ctx, 11);
    test_layouts(ctx, 12);
    test_undiag_rects(ctx, 18);
    test_conversions(ctx, 13);
    test_inplace(ctx, 14);
    test_boxes(ctx, 15);
    test_array(ctx, 16);
    /* the emulation tests below pin their kernels: the direct kernels (the
       default for most small arrays) only in test_direct_emulation */
    setenv("FDX_LAYOUT_DIRECT", "0", 1);
    test_tile_emulation(ctx, 17);
    test_subword_emulation(ctx, 19);
    test_gather_emulation(ctx, 23);
    test_vec_emulation(ctx, 20);
    test_vec_rows_emulation(ctx, 22);
    test_vec_fill_emulation(ctx, 23);
    test_ilv_emulation(ctx, 24);
    test_nk_emulation(ctx, 25);
    test_ug_emulation(ctx, 26);
    test_plan_cache(ctx, 24);
    test_direct_emulation(ctx, 25);
    test_errors(ctx);
    fdx_ctx_destroy(&ctx);
    return fdx_test_finish("test_layout");
}
