/* fdx_stencil_steps on the CPU backend: temporally blocked passes (the
   generated C kernels) bit-identical to single applies for orders 2-8,
   ranks 2 and 3, float and double, odd shapes, depths 2-4 with step counts
   that leave a shallower last pass (depth 1 included), tiles of several
   tasks along every axis, auto on a tuned size, and argument errors.
   (test_temporal_emu covers every order, precision and depth of the CUDA
   kernels.) */
#include "stencil/fdx_temporal.h"
#include "temporal_check.h"

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
                /* Orders 2 and 8 at every depth and precision; 4 (float) and 6
                   (double) at depth 3: each depth and precision is a kernel to
                   compile, and CI's cold cache pays for each. */
                int mid = order == 4 || order == 6;
                if (mid && dbl != (order == 6)) continue;
                for (int k = mid ? 3 : 2; k <= (mid ? 3 : 4); k++) {
                    char what[96];
                    /* Tiles smaller than the shape: several tasks along each
                       axis, halos crossing tiles and frames. */
                    fdx_temporal_cfg tile = {k, 0, 0, 5 + k, 7 + r, rank == 3 ? 4 + k : 1, 0, 0};
                    fdx_temporal_force_tile(&tile);
                    int64_t nsteps = k == 2 ? 5 : k == 3 ? 7 : 4;
                    snprintf(what, sizeof what, "rank %d order %d %s k %d, %lld steps, small tiles", rank, order,
                             dbl ? "double" : "float", k, (long long)nsteps);
                    tc_case(ctx, rank, order, dt, shape, nsteps, k, &seed, what);
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

int main(void)
{
    ctx = fdx_test_ctx("cpu");
    if (!ctx) return fdx_test_skip("test_temporal", "no CPU context");
    test_errors();
    test_edges();
    test_depths();
    test_auto();
    fdx_ctx_destroy(&ctx);
    return fdx_test_finish("test_temporal");
}
