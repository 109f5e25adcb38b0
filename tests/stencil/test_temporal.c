/* fdx_stencil_steps on the CPU backend: temporally blocked passes (the
   generated C kernels) bit-identical to single applies for orders 2-8,
   ranks 2 and 3, float and double, odd shapes, depths 2-4 with step counts
   that leave a shallower last pass (depth 1 included), tiles of several
   tasks along every axis, auto on a tuned size, and argument errors.
   (test_temporal_emu covers every order, precision and depth of the CUDA
   kernels.) */
#include "stencil/fdx_temporal.h"
#include "temporal_check.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static fdx_ctx *ctx;

static void test_depths(void)
{
    uint64_t seed = 0x7e3;
    for (int rank = 2; rank <= 3; rank++)
        for (int order = 2; order <= 8; order += 2)
            for (int dbl = 0; dbl < 2; dbl++) {
                int r = order / 2;
                int64_t shape[3] = {rank == 3 ? 29 + r : 67 + r, 23 + 2 * r, 19 + 3 * r};
                fdx_dtype dt = dbl ? FDX_FLOAT64 : FDX_FLOAT32;
                /* Orders 2 and 8 (see below); 4 (float) and 6 (double) at
                   depth 3: each depth and precision is a kernel to compile,
                   and CI's cold cache pays for each. */
                int mid = order == 4 || order == 6;
                if (mid && dbl != (order == 6)) continue;
                /* Orders 2 and 8 at every depth in one precision (float for
                   2, double for 8), at depth 3 in the other; every pair
                   under FDX_TEST_FULL=1. */
                const char *full = getenv("FDX_TEST_FULL");
                int every_depth = !mid && ((full && strcmp(full, "1") == 0) || dbl == (order == 8));
                for (int k = every_depth ? 2 : 3; k <= (every_depth ? 4 : 3); k++) {
                    char what[96];
                    /* Tiles smaller than the shape: several tasks along each
                       axis, halos crossing tiles and frames. */
                    fdx_temporal_cfg tile = {k, 0, 0, 5 + k, 7 + r, rank == 3 ? 4 + k : 1, 0, 0};
                    fdx_temporal_force_tile(&tile);
                    int64_t nsteps = k == 2 ? 5 : k == 3 ? 7 : 4;
                    snprintf(what, sizeof what, "rank %d order %d %s k %d, %lld steps, small tiles", rank, order,
                             dbl ? "double" : "float", k, (long long)nsteps);
                    tc_case(ctx, rank, order, dt, shape, nsteps, k, &seed, what);
                    /* Level 1 reading the input in place (session 8): depth 3. */
                    if (k == 3) {
                        tile.direct = 1;
                        fdx_temporal_force_tile(&tile);
                        snprintf(what, sizeof what, "rank %d order %d %s k %d, %lld steps, small tiles direct", rank,
                                 order, dbl ? "double" : "float", k, (long long)nsteps);
                        tc_case(ctx, rank, order, dt, shape, nsteps, k, &seed, what);
                    }
                    /* The candidates' own tiles. */
                    fdx_temporal_force_tile(NULL);
                    snprintf(what, sizeof what, "rank %d order %d %s k %d, 6 steps", rank, order,
                             dbl ? "double" : "float", k);
                    tc_case(ctx, rank, order, dt, shape, 6, k, &seed, what);
                }
            }
}

/* The smallest shapes (every point of a tile within r of a frame), one and
   zero steps, one step a pass asked for. */
static void test_edges(void)
{
    uint64_t seed = 0xed9e;
    for (int rank = 2; rank <= 3; rank++) {
        int64_t tiny[3] = {3, 4, 5};
        tc_case(ctx, rank, 2, FDX_FLOAT64, tiny, 3, 3, &seed, "smallest shape, k 3");
        int64_t small[3] = {9, 10, 11};
        tc_case(ctx, rank, 8, FDX_FLOAT32, small, 5, 4, &seed, "order 8 on 9x10x11, k 4");
        int64_t shape[3] = {20, 21, 22};
        tc_case(ctx, rank, 4, FDX_FLOAT64, shape, 1, 4, &seed, "one step, k 4");
        tc_case(ctx, rank, 4, FDX_FLOAT64, shape, 0, 4, &seed, "no step");
        tc_case(ctx, rank, 4, FDX_FLOAT64, shape, 3, 0, &seed, "temporal off");
        tc_case(ctx, rank, 4, FDX_FLOAT64, shape, 3, 1, &seed, "temporal 1");
    }
}

/* Auto on a size that is tuned (at least 2^22 points): whatever it picks
   must be exact, and it reports a depth. */
static void test_auto(void)
{
    uint64_t seed = 0xa470;
    int64_t shape[2] = {2048, 2049};
    tc_case(ctx, 2, 2, FDX_FLOAT32, shape, 6, -1, &seed, "auto, 2048x2049 float");
}

static void test_errors(void)
{
    fdx_stencil_desc d;
    fdx_stencil_desc_laplacian(&d, 2, 2, NULL);
    fdx_stencil *s = NULL;
    fdx_array *u = NULL, *t = NULL, *w = NULL;
    int64_t shape[2] = {16, 16}, other[2] = {16, 17};
    CHECK_OK(fdx_array_create(ctx, FDX_FLOAT64, 2, shape, FDX_ON_HOST, &u));
    CHECK_OK(fdx_array_create(ctx, FDX_FLOAT64, 2, shape, FDX_ON_HOST, &t));
    CHECK_OK(fdx_array_create(ctx, FDX_FLOAT64, 2, other, FDX_ON_HOST, &w));
    CHECK_OK(fdx_stencil_create(ctx, &d, FDX_FLOAT64, &s));
    CHECK_FAILS(fdx_stencil_steps(s, u, t, 4, 2, NULL), FDX_ERR_INVALID); /* apply, not heat */
    fdx_stencil_destroy(&s);
    d.update = FDX_UPDATE_HEAT;
    d.alpha = 0.1;
    CHECK_OK(fdx_stencil_create(ctx, &d, FDX_FLOAT64, &s));
    CHECK_FAILS(fdx_stencil_steps(s, u, t, 4, 9, NULL), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_stencil_steps(s, u, t, 4, -2, NULL), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_stencil_steps(s, u, t, -1, 2, NULL), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_stencil_steps(s, u, u, 4, 2, NULL), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_stencil_steps(s, u, w, 4, 2, NULL), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_stencil_steps(NULL, u, t, 4, 2, NULL), FDX_ERR_INVALID);
    fdx_stencil_destroy(&s);
    /* Rank 1 has no marching axis: one step a pass only. */
    fdx_stencil_desc_laplacian(&d, 1, 2, NULL);
    d.update = FDX_UPDATE_HEAT;
    CHECK_OK(fdx_stencil_create(ctx, &d, FDX_FLOAT64, &s));
    fdx_array *l = NULL, *lt = NULL;
    int64_t n1[1] = {64};
    CHECK_OK(fdx_array_create(ctx, FDX_FLOAT64, 1, n1, FDX_ON_HOST, &l));
    CHECK_OK(fdx_array_create(ctx, FDX_FLOAT64, 1, n1, FDX_ON_HOST, &lt));
    CHECK_FAILS(fdx_stencil_steps(s, l, lt, 4, 2, NULL), FDX_ERR_UNSUPPORTED);
    CHECK_OK(fdx_stencil_steps(s, l, lt, 4, -1, NULL));
    fdx_array_destroy(&l);
    fdx_array_destroy(&lt);
    fdx_stencil_destroy(&s);
    fdx_array_destroy(&u);
    fdx_array_destroy(&t);
    fdx_array_destroy(&w);
}

/* Rank 3 heat double steps of depth k on `shape` (2 k steps): the
   configuration used must contain `want`. */
static void config_used(fdx_ctx *c, int order, const int64_t *shape, int k, const char *want, const char *what)
{
    fdx_stencil_desc d;
    fdx_stencil_desc_laplacian(&d, 3, order, NULL);
    d.update = FDX_UPDATE_HEAT, d.alpha = 0.05;
    fdx_stencil *s = NULL;
    fdx_array *u = NULL, *t = NULL;
    CHECK_OK(fdx_stencil_create(c, &d, FDX_FLOAT64, &s));
    CHECK_OK(fdx_array_create(c, FDX_FLOAT64, 3, shape, FDX_ON_HOST, &u));
    CHECK_OK(fdx_array_create(c, FDX_FLOAT64, 3, shape, FDX_ON_HOST, &t));
    if (s && u && t) {
        CHECK_OK(fdx_stencil_steps(s, u, t, 2 * k, k, NULL));
        char config[128];
        CHECK(fdx_stencil_steps_depth(s, shape, config, sizeof config) == k && strstr(config, want),
              "%s did not run: '%s'", what, config);
    }
    fdx_array_destroy(&u);
    fdx_array_destroy(&t);
    fdx_stencil_destroy(&s);
}

/* Session 8: the CPU configuration words (FDX_TEMPORAL_CFG "k4 cpu 510x34
   chunk 170", the text fdx_temporal_cfg_text prints), a forced CPU tile
   through the knob (exact, and the one used), the cache budget and its
   knob, auto's candidates (half-budget tiles, no duplicates, chunks in
   range), and the kept scratch across calls of other sizes. */
static void test_cpu_config(void)
{
    fdx_temporal_cfg c, back;
    CHECK_OK(fdx_temporal_cfg_parse("k4 cpu 510x34 chunk 170", &c));
    CHECK(c.k == 4 && c.bx == 510 && c.by == 34 && c.chunk == 170 && c.tx == 0 && c.ty == 0,
          "parsed k%d bx %d by %d chunk %d tx %d", c.k, c.bx, c.by, c.chunk, c.tx);
    char text[96];
    fdx_temporal_cfg_text(&c, 0, text, sizeof text);
    CHECK_OK(fdx_temporal_cfg_parse(text, &back));
    CHECK(memcmp(&c, &back, sizeof c) == 0, "'%s' does not read back as itself", text);
    fdx_temporal_cfg g = {4, 64, 8, 85, 0, 0, 4, 1, 3, 1, 0};
    fdx_temporal_cfg_text(&g, 1, text, sizeof text);
    CHECK_OK(fdx_temporal_cfg_parse(text, &back));
    CHECK(memcmp(&g, &back, sizeof g) == 0, "'%s' does not read back as itself", text);
    CHECK_FAILS(fdx_temporal_cfg_parse("k4 64x32", &c), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_temporal_cfg_parse("k4 cpu", &c), FDX_ERR_INVALID);
    CHECK_OK(fdx_temporal_cfg_parse("k4 cpu 4096x1", &c)); /* no thread limit on a CPU tile */
    CHECK_OK(fdx_temporal_cfg_parse("temporal k3 cpu 256x33 direct chunk 64", &c));
    CHECK(c.direct == 1 && c.bx == 256, "direct not read");
    fdx_temporal_cfg_text(&c, 0, text, sizeof text);
    CHECK(strstr(text, " direct") != NULL, "'%s' does not say direct", text);

    /* The rotated loop takes un = 2r + 1 only. */
    fdx_stencil_kspec k3 = {1, 3, 2, FDX_UPDATE_HEAT, 0, 0, 0};
    int64_t n3[3] = {512, 512, 512};
    fdx_temporal_cfg rot = {2, 32, 8, 64, 0, 0, 4, 1, 5};
    CHECK(fdx_temporal_fits(&k3, &rot, 1, n3), "u5 at radius 2 refused");
    rot.un = 3;
    CHECK(!fdx_temporal_fits(&k3, &rot, 1, n3), "u3 at radius 2 (the #pragma loop) taken");

    /* The budget: the knob, else a share of an L2. */
    setenv("FDX_TEMPORAL_CPU_CACHE", "65536", 1);
    CHECK(fdx_temporal_cpu_budget(4) == 65536, "FDX_TEMPORAL_CPU_CACHE ignored: %lld",
          (long long)fdx_temporal_cpu_budget(4));
    unsetenv("FDX_TEMPORAL_CPU_CACHE");
    int64_t b1 = fdx_temporal_cpu_budget(1), bmany = fdx_temporal_cpu_budget(4096);
    CHECK(b1 >= 128 << 10 && b1 <= 16 << 20 && bmany >= 1 && bmany <= b1, "budgets %lld / %lld", (long long)b1,
          (long long)bmany);

    /* Auto's CPU candidates on 512^3 double for 16 threads, 1 MiB a thread. */
    setenv("FDX_TEMPORAL_CPU_CACHE", "1048576", 1);
    fdx_stencil_kspec kd = {1, 3, 1, FDX_UPDATE_HEAT, 0, 0, 0};
    fdx_device_info dev;
    memset(&dev, 0, sizeof dev);
    dev.sm_count = 16;
    fdx_temporal_cfg cand[40];
    int n = fdx_temporal_candidates(&kd, &dev, 0, n3, 0, cand, 40), halves = 0;
    CHECK(n >= 6, "%d CPU candidates", n);
    for (int i = 0; i < n; i++) {
        CHECK(cand[i].chunk >= 1 && cand[i].chunk <= 510, "chunk %d", cand[i].chunk);
        for (int j = 0; j < i; j++) {
            CHECK(memcmp(&cand[i], &cand[j], sizeof cand[i]) != 0, "candidate %d repeats %d", i, j);
            halves += cand[i].k == cand[j].k && cand[i].bx == cand[j].bx && cand[i].by < cand[j].by;
        }
    }
    CHECK(halves >= 1, "no half-budget tile among %d candidates", n);
    /* Skew first; x blocks where its rings outgrow half the budget (k 8:
       7 x 3 planes x 32 rows x 8 bytes = 5376 a column, 512 KiB / 5376 =
       97 columns less 2 k r = 81: 7 blocks of 73). */
    int xblocks = 0;
    CHECK(n > 0 && cand[0].skew && cand[0].k == 8 && cand[0].bx == 510 && cand[0].by == 32, "first candidate k%d %dx%d%s",
          cand[0].k, cand[0].bx, cand[0].by, cand[0].skew ? " skew" : "");
    for (int i = 0; i < n; i++) xblocks += cand[i].skew && cand[i].k == 8 && cand[i].bx == 73;
    CHECK(xblocks == 2, "%d k8 skew candidates in x blocks of 73 (plain and nt)", xblocks);
    unsetenv("FDX_TEMPORAL_CPU_CACHE");

    /* A forced CPU tile through the knob: exact, and the one that ran. */
    uint64_t seed = 0xc9u;
    setenv("FDX_TEMPORAL_CFG", "k3 cpu 9x4 chunk 3", 1);
    int64_t shape[3] = {31, 23, 19};
    tc_case(ctx, 3, 4, FDX_FLOAT64, shape, 7, 3, &seed, "FDX_TEMPORAL_CFG cpu 9x4 chunk 3");
    config_used(ctx, 4, shape, 3, "cpu 9x4 chunk 3", "the forced tile");
    unsetenv("FDX_TEMPORAL_CFG");

    /* The kept scratch: a large tile's block, then a smaller one (lent),
       then a larger one again (a new block, kept in its place). */
    int64_t big[3] = {61, 57, 21}, small[3] = {13, 11, 12};
    tc_case(ctx, 3, 2, FDX_FLOAT64, big, 4, 4, &seed, "kept scratch: large");
    tc_case(ctx, 3, 2, FDX_FLOAT32, small, 4, 4, &seed, "kept scratch: small");
    int64_t bigger[3] = {97, 83, 17};
    tc_case(ctx, 3, 6, FDX_FLOAT64, bigger, 5, 2, &seed, "kept scratch: larger");
    tc_case(ctx, 2, 2, FDX_FLOAT64, big, 4, 3, &seed, "kept scratch: rank 2");
    setenv("FDX_TEMPORAL_CPU_FRESH", "1", 1); /* a block a call, the kept one untouched */
    tc_case(ctx, 3, 2, FDX_FLOAT64, bigger, 4, 4, &seed, "fresh scratch");
    unsetenv("FDX_TEMPORAL_CPU_FRESH");
    tc_case(ctx, 3, 2, FDX_FLOAT64, big, 4, 4, &seed, "kept scratch after a fresh one");
}

/* Session 9: the skewed slabs (fdx_temporal_cfg.skew, rank 3 heat): every
   order, both precisions, odd shapes, slabs of 2r rows (the least: the rows
   below a slab's own are all its neighbour's) up to one slab, depths 2-5
   with a shallower last pass; on this context's threads and on 5 threads
   (several slabs a thread and chains of threads waiting on each other;
   more threads than CPUs here, so the waits also yield).  A ninth of the
   matrix by default (8 of 64 cases), all of it under FDX_TEST_FULL=1. */
static void skew_cases(fdx_ctx *c, const char *label, uint64_t *seed)
{
    unsigned sample = 0; /* the same cases on both contexts: kernels compiled once */
    for (int order = 2; order <= 8; order += 2)
        for (int dbl = 0; dbl < 2; dbl++) {
            int r = order / 2;
            if ((order == 4 || order == 6) && dbl != (order == 6)) continue;
            int64_t shape[3] = {19 + 2 * r, 27 + 3 * r, 17 + 2 * r};
            fdx_dtype dt = dbl ? FDX_FLOAT64 : FDX_FLOAT32;
            const int rows[] = {2 * r, 2 * r + 1, 9, 27 + r};
            for (int i = 0; i < 4; i++)
                for (int k = 2; k <= 5; k += (order == 2 ? 1 : 3)) {
                    if (!fdx_test_sampled(&sample, 9)) continue;
                    /* x blocks too: the whole interior, 7 and 10 columns */
                    const int cols[] = {(int)shape[0] - 2 * r, 7, (int)shape[0] - 2 * r, 10};
                    fdx_temporal_cfg tile = {k, 0, 0, 1, cols[i], rows[i], 0, 0};
                    tile.skew = 1;
                    tile.nt = i % 2; /* streaming stores of the last level */
                    tile.v512 = i == 2;
                    fdx_temporal_force_tile(&tile);
                    int64_t nsteps = k + 1 + i % 2 * (k - 2);
                    char what[128];
                    snprintf(what, sizeof what, "%s: skew%s%s order %d %s k %d, slabs of %d rows, x blocks of %d, %lld steps",
                             label, tile.nt ? " nt" : "", tile.v512 ? " v512" : "", order, dbl ? "double" : "float", k,
                             rows[i], cols[i], (long long)nsteps);
                    tc_case(c, 3, order, dt, shape, nsteps, k, seed, what);
                }
        }
    fdx_temporal_force_tile(NULL);
    /* The candidates' slabs (a slab a thread) at depth 4: skew comes first. */
    int64_t shape[3] = {40, 33, 21};
    tc_case(c, 3, 2, FDX_FLOAT64, shape, 9, 4, seed, "skew: the candidates' slabs, k 4");
    char what[96];
    snprintf(what, sizeof what, "%s: skew first at depth 4", label);
    config_used(c, 2, shape, 4, " skew", what);
}

/* Session 10: the skewed slabs' rows on cache lines (FDX_TEMPORAL_CPU_ALIGN,
   default on; emit_row_points).  skew_cases' odd widths have the input's
   rows off the lines and 7-column x blocks shorter than a line (the plain
   loop); here widths that are a multiple of both precisions' lines (every
   stream aligned), x blocks of 17 (a head and a tail overlapping a short
   middle), level 2 rows of exactly a line (blocks of a line - 2r: head =
   middle = tail), the plain loops again with the knob at 0, level 1
   prefetching the next input plane (FDX_TEMPORAL_CPU_PREFETCH=1), and two
   rows a loop (FDX_TEMPORAL_CPU_ROWS2=1; slabs of 2r, 2r + 1 and 2r + 2
   rows: levels with odd and even row counts, the odd last row alone).
   A fifth of the matrix by default (each case compiles its own kernels:
   two minutes on a cold cache); FDX_TEST_FULL=1 runs all of it. */
static void skew_align_cases(fdx_ctx *c, uint64_t *seed)
{
    for (int pass = 0; pass < 5; pass++) {
        unsigned sample = 2 * pass; /* each pass keeps a case, a different one */
        /* 1: the plain loops; 2: aligned, level 1 prefetching; 3: two rows a
           loop, aligned and prefetching; 4: two rows, plain loops */
        if (pass == 1) setenv("FDX_TEMPORAL_CPU_ALIGN", "0", 1);
        if (pass == 2) unsetenv("FDX_TEMPORAL_CPU_ALIGN"), setenv("FDX_TEMPORAL_CPU_PREFETCH", "1", 1);
        if (pass == 3) setenv("FDX_TEMPORAL_CPU_ROWS2", "1", 1);
        if (pass == 4) unsetenv("FDX_TEMPORAL_CPU_PREFETCH"), setenv("FDX_TEMPORAL_CPU_ALIGN", "0", 1);
        for (int order = 2; order <= 8; order += 6)
            for (int dbl = 0; dbl < 2; dbl++) {
                int r = order / 2;
                if (pass && pass != 3 && dbl != (order == 8)) continue;
                int64_t shape[3] = {48, 21 + 2 * r, 13 + 2 * r};
                const int cols[] = {48 - 2 * r, 17, (dbl ? 8 : 16) - 2 * r};
                for (int i = 0; i < 3; i++) {
                    if (cols[i] < 1 || (pass && pass != 3 && i == 2)) continue;
                    if (!fdx_test_sampled(&sample, 5)) continue;
                    fdx_temporal_cfg tile = {3, 0, 0, 1, cols[i], 2 * r + i, 0, 0};
                    tile.skew = 1;
                    tile.nt = i == 1;
                    fdx_temporal_force_tile(&tile);
                    char what[128];
                    snprintf(what, sizeof what, "skew rows%s on lines%s: order %d %s k 3, x blocks of %d", tile.nt ? " nt" : "",
                             pass == 1 ? " off" : pass == 2 ? ", prefetching" : pass == 3 ? ", two rows, prefetching" : pass == 4 ? " off, two rows" : "",
                             order, dbl ? "double" : "float", cols[i]);
                    tc_case(c, 3, order, dbl ? FDX_FLOAT64 : FDX_FLOAT32, shape, 5, 3, seed, what);
                }
            }
    }
    unsetenv("FDX_TEMPORAL_CPU_ALIGN");
    unsetenv("FDX_TEMPORAL_CPU_ROWS2");
    fdx_temporal_force_tile(NULL);
}

/* Session 11: the skewed slabs' spread variants.  FDX_TEMPORAL_CPU_PREFETCH=2
   (every level prefetches a piece of the next input plane: hints only, so
   the result must not move), FDX_TEMPORAL_CPU_STREAM=1 (the last level's
   plane buffered and streamed out in k column segments over the next
   iteration, the march's ends and last plane flushed whole: a segment or
   row left out or sent from the wrong plane shows in `out`) and both (with
   the threads' time stamps, FDX_TEMPORAL_CPU_STATS=1); order
   2 double at depth 4, order 8 float at depth 3 (both only); x
   blocks of the whole interior, 17 and 7 columns (segments narrower than a
   line: all but the last empty), slabs of 2r and 2r + 3 rows; a shallower
   last pass once; on this context's threads and on 5 (slabs a thread, the
   waits).  Then FDX_CPU_HUGEPAGES=1: a 2 MiB block is 2 MiB aligned and a
   case on such arrays is exact.  Each (variant, order, precision, depth)
   is one kernel to compile (1-5 s each on a loaded 2-core machine; two
   rows a loop, 15-25 s at order 8, is skew_align_cases'): 5 here. */
static void skew_spread_cases(fdx_ctx *c, const char *label, uint64_t *seed)
{
    for (int v = 0; v < 3; v++) {
        /* 0: spread prefetching, each row streamed at once, even slabs
           without the balanced slabs' table; 1: spread streaming; 2: both */
        if (v != 1) setenv("FDX_TEMPORAL_CPU_PREFETCH", "2", 1);
        else unsetenv("FDX_TEMPORAL_CPU_PREFETCH");
        setenv("FDX_TEMPORAL_CPU_STREAM", v ? "1" : "0", 1); /* 0: a row at once */
        setenv("FDX_TEMPORAL_CPU_BALANCE", v ? "1" : "0", 1); /* 0: even slabs, no table */
        if (v == 2) setenv("FDX_TEMPORAL_CPU_STATS", "1", 1); /* time stamps: the result must not move */
        for (int o = 0; o < 2; o++) {
            if (o && v != 2) continue; /* order 8 with everything on only */
            const int order = o ? 8 : 2, r = order / 2, k = o ? 3 : 4, dbl = !o;
            int64_t shape[3] = {44 + r, 23 + 3 * r, 15 + 2 * r};
            const int cols[] = {(int)shape[0] - 2 * r, 17, 7};
            for (int i = 0; i < 3; i++) {
                fdx_temporal_cfg tile = {k, 0, 0, 1, cols[i], 2 * r + 3 * (i % 2), 0, 0};
                tile.skew = 1;
                tile.nt = 1;
                fdx_temporal_force_tile(&tile);
                /* two whole passes; the first block also a shallower last one */
                int64_t nsteps = 2 * k + (i == 0 && v == 2);
                char what[160];
                snprintf(what, sizeof what, "%s: skew nt%s%s order %d %s k %d, x blocks of %d, slabs of %d, %lld steps",
                         label, v != 1 ? ", spread prefetching" : "", v != 0 ? ", spread streaming" : "",
                         order, dbl ? "double" : "float", k, cols[i], tile.by, (long long)nsteps);
                tc_case(c, 3, order, dbl ? FDX_FLOAT64 : FDX_FLOAT32, shape, nsteps, k, seed, what);
            }
        }
    }
    unsetenv("FDX_TEMPORAL_CPU_PREFETCH");
    unsetenv("FDX_TEMPORAL_CPU_STREAM");
    unsetenv("FDX_TEMPORAL_CPU_STATS");
    unsetenv("FDX_TEMPORAL_CPU_BALANCE");
    fdx_temporal_force_tile(NULL);
}

/* A CPU context of 5 threads: more threads than CPUs here, several slabs a
   thread and chains of threads waiting on each other. */
static fdx_ctx *five_threads(void)
{
    fdx_options *o = NULL;
    fdx_ctx *five = NULL;
    CHECK_OK(fdx_options_create(&o));
    if (o) {
        CHECK_OK(fdx_options_set(o, "backend", "cpu"));
        CHECK_OK(fdx_options_set(o, "threads", "5"));
        CHECK_OK(fdx_ctx_create(o, &five));
    }
    fdx_options_destroy(&o);
    return five;
}

static void test_skew_spread(void)
{
    uint64_t seed = 0x5e11;
    skew_spread_cases(ctx, "context threads", &seed);
    fdx_ctx *five = five_threads();
    if (five) skew_spread_cases(five, "5 threads", &seed);

    /* Balanced slabs (FDX_TEMPORAL_CPU_BALANCE=1), a slab a thread (the
       candidates' tile): the first pass from an uneven split seeded here
       (12, 6, 15, 4, 12 of 49 rows: 4 = 2r at order 4), the later ones from
       the threads' time stamps; at depths 3 and 2, spread streaming on. */
    if (five) {
        setenv("FDX_TEMPORAL_CPU_BALANCE", "1", 1);
        setenv("FDX_TEMPORAL_CPU_STREAM", "1", 1);
        int64_t bshape[3] = {37, 53, 19};
        const long long first[5] = {2, 14, 20, 35, 39};
        for (int k = 3; k >= 2; k--) {
            fdx_temporal_balance_seed(bshape[1], 5, first);
            char what[96];
            snprintf(what, sizeof what, "balanced slabs, 5 threads, k %d, 4 passes", k);
            tc_case(five, 3, 4, FDX_FLOAT64, bshape, 4 * k, k, &seed, what);
        }
        unsetenv("FDX_TEMPORAL_CPU_BALANCE");
        unsetenv("FDX_TEMPORAL_CPU_STREAM");
    }
    fdx_ctx_destroy(&five);
    /* Huge pages asked for: 2 MiB blocks on 2 MiB, the steps exact on them. */
    setenv("FDX_CPU_HUGEPAGES", "1", 1);
    int64_t shape[3] = {66, 66, 66}; /* 2.2 MiB of doubles */
    fdx_array *a = NULL;
    CHECK_OK(fdx_array_create(ctx, FDX_FLOAT64, 3, shape, FDX_ON_HOST, &a));
    if (a) CHECK(((uintptr_t)fdx_array_host(a) & ((2u << 20) - 1)) == 0, "huge pages: a 2.2 MiB block at %p", fdx_array_host(a));
    fdx_array_destroy(&a);
    fdx_temporal_cfg tile = {4, 0, 0, 1, 64, 32, 0, 0};
    tile.skew = 1, tile.nt = 1;
    fdx_temporal_force_tile(&tile);
    tc_case(ctx, 3, 2, FDX_FLOAT64, shape, 8, 4, &seed, "huge pages: skew nt k 4 on 66^3");
    fdx_temporal_force_tile(NULL);
    unsetenv("FDX_CPU_HUGEPAGES");
}

/* Session 12: dynamic slabs (FDX_TEMPORAL_CPU_DYN): a slab's iteration
   claimed by whichever thread, home ranges that move when a thread waits
   N = 1 iteration's time on a neighbour (on this loaded 2-core machine
   with 5 threads they move all the time), the edge rings' slack at its
   least (FDX_TEMPORAL_CPU_SLACK=1: a slab at most one iteration ahead of
   the one above) and at 7.  Order 2 double k4 nt on slabs of 2 and 3 rows
   (12 and 8 slabs), x blocks of the interior and of 7 (the ranges carry
   over between blocks), uneven seeded ranges (one slab, then five); order
   8 float k3 nt with spread streaming and the time stamps on 4 slabs (5
   threads: one with no home).  Two whole passes each (the second starts
   from the ranges the first left). */
static void test_skew_dyn(void)
{
    uint64_t seed = 0xd12;
    fdx_ctx *five = five_threads();
    setenv("FDX_TEMPORAL_CPU_DYN", "1", 1);
    for (int v = 0; v < 2; v++) {
        const int order = v ? 8 : 2, r = order / 2, k = v ? 3 : 4, dbl = !v;
        setenv("FDX_TEMPORAL_CPU_SLACK", v ? "7" : "1", 1);
        if (v) setenv("FDX_TEMPORAL_CPU_STREAM", "1", 1), setenv("FDX_TEMPORAL_CPU_STATS", "1", 1);
        int64_t shape[3] = {44 + r, 23 + 3 * r, 15 + 2 * r};
        const int64_t rows = shape[1] - 2 * r;
        for (int i = 0; i < (v ? 1 : 3); i++) {
            fdx_ctx *c = i == 1 || !five ? ctx : five;
            fdx_temporal_cfg tile = {k, 0, 0, 1, i == 2 ? 7 : (int)shape[0] - 2 * r, v ? 2 * r : 2 + (i == 1), 0, 0};
            tile.skew = 1, tile.nt = 1;
            fdx_temporal_force_tile(&tile);
            const long long uneven[6] = {0, 1, 6, 7, 11, 12};
            if (i == 0 && c == five && (rows + tile.by - 1) / tile.by == 12) fdx_temporal_dyn_seed(shape[1], 12, 5, uneven);
            char what[160];
            snprintf(what, sizeof what, "dynamic slabs%s: order %d %s k %d, slabs of %d rows, x blocks of %d, %s", v ? ", spread streaming" : "",
                     order, dbl ? "double" : "float", k, tile.by, tile.bx, c == five ? "5 threads" : "context threads");
            tc_case(c, 3, order, dbl ? FDX_FLOAT64 : FDX_FLOAT32, shape, 2 * k, k, &seed, what);
        }
    }
    unsetenv("FDX_TEMPORAL_CPU_DYN");
    unsetenv("FDX_TEMPORAL_CPU_SLACK");
    unsetenv("FDX_TEMPORAL_CPU_STREAM");
    unsetenv("FDX_TEMPORAL_CPU_STATS");
    fdx_temporal_force_tile(NULL);
    fdx_ctx_destroy(&five);
}

static void test_skew(void)
{
    uint64_t seed = 0x5c3e;
    skew_align_cases(ctx, &seed);
    skew_cases(ctx, "context threads", &seed);
    fdx_ctx *five = five_threads();
    if (five) skew_cases(five, "5 threads", &seed);
    fdx_ctx_destroy(&five);

    /* The words: "skew" read and printed; refused off rank 3 heat and
       below 2r rows a slab. */
    fdx_temporal_cfg c;
    CHECK_OK(fdx_temporal_cfg_parse("k6 cpu 510x32 skew nt v512 chunk 510", &c));
    CHECK(c.skew && c.nt && c.v512 && c.k == 6 && c.bx == 510 && c.by == 32 && c.chunk == 510,
          "skew parse: k%d %dx%d skew %d nt %d v512 %d chunk %d", c.k, c.bx, c.by, c.skew, c.nt, c.v512, c.chunk);
    char text[96];
    fdx_temporal_cfg_text(&c, 0, text, sizeof text);
    CHECK(strcmp(text, "temporal k6 cpu 510x32 skew nt v512 chunk 510") == 0, "skew text '%s'", text);
    c.v512 = 0;
    fdx_temporal_cfg plain = c;
    plain.skew = 0;
    CHECK(!fdx_temporal_fits(&(fdx_stencil_kspec){1, 3, 1, FDX_UPDATE_HEAT, 0, 0, 0}, &plain, 0,
                             (int64_t[3]){64, 64, 64}),
          "nt taken without skew");
    c.nt = 0;
    fdx_stencil_kspec k3 = {1, 3, 2, FDX_UPDATE_HEAT, 0, 0, 0}, k2 = {1, 2, 1, FDX_UPDATE_HEAT, 0, 0, 0};
    int64_t n3[3] = {64, 64, 64};
    c.by = 4;
    CHECK(fdx_temporal_fits(&k3, &c, 0, n3), "skew slabs of 2r rows refused");
    c.by = 3;
    CHECK(!fdx_temporal_fits(&k3, &c, 0, n3), "skew slabs under 2r rows taken");
    c.by = 8;
    CHECK(!fdx_temporal_fits(&k2, &c, 0, n3), "skew taken in rank 2");
    k3.update = FDX_UPDATE_WAVE;
    CHECK(!fdx_temporal_fits(&k3, &c, 0, n3), "skew taken for the wave");
}

/* Each part's wall time on stdout: the test's cost in CI is kernel compiles. */
static void timed(const char *name, void (*part)(void))
{
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    part();
    clock_gettime(CLOCK_MONOTONIC, &b);
    printf("test_temporal: %s %.1f s\n", name, (double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec));
}

int main(void)
{
    ctx = fdx_test_ctx("cpu");
    if (!ctx) return fdx_test_skip("test_temporal", "no CPU context");
    timed("test_errors", test_errors);
    timed("test_edges", test_edges);
    timed("test_depths", test_depths);
    timed("test_auto", test_auto);
    timed("test_cpu_config", test_cpu_config);
    timed("test_skew", test_skew);
    timed("test_skew_spread", test_skew_spread);
    timed("test_skew_dyn", test_skew_dyn);
    fdx_ctx_destroy(&ctx);
    return fdx_test_finish("test_temporal");
}
