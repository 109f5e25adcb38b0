/* fdx_stencil_wave_steps on the CPU backend: temporally blocked wave passes
   (two time levels, with and without a coefficient array) bit-identical to
   single applies rotating three arrays, ranks 2 and 3, orders 2-8, float and
   double, depths 2-4 with a shallower last pass, small forced tiles (also
   with level 1 reading the input in place) and the candidates', one step a
   pass, and argument errors.  (test_temporal_emu
   runs the CUDA wave kernels.) */
#include "stencil/fdx_temporal.h"
#include "temporal_check.h"

static fdx_ctx *ctx;

static void test_depths(void)
{
    uint64_t seed = 0x3a7e;
    for (int rank = 2; rank <= 3; rank++)
        for (int order = 2; order <= 8; order += 6)
            for (int dbl = 0; dbl < 2; dbl++) {
                int r = order / 2;
                int64_t shape[3] = {rank == 3 ? 27 + r : 61 + r, 21 + 2 * r, 17 + 3 * r};
                fdx_dtype dt = dbl ? FDX_FLOAT64 : FDX_FLOAT32;
                for (int k = 2; k <= 4; k += dbl ? 2 : 1) {
                    char what[128];
                    int coef = (k + rank + dbl) % 2;
                    fdx_temporal_cfg tile = {k, 0, 0, 4 + k, 6 + r, rank == 3 ? 3 + k : 1, 0, 0};
                    fdx_temporal_force_tile(&tile);
                    int64_t nsteps = k == 2 ? 5 : k == 3 ? 7 : 6;
                    snprintf(what, sizeof what, "wave rank %d order %d %s%s k %d, %lld steps, small tiles", rank, order,
                             dbl ? "double" : "float", coef ? " coef" : "", k, (long long)nsteps);
                    tc_wave_case(ctx, rank, order, dt, shape, nsteps, k, coef, &seed, what);
                    /* Level 1 reading the input in place (session 8): depths
                       2 and 3 (level 2 takes its level before from u). */
                    if (k <= 3) {
                        tile.direct = 1;
                        fdx_temporal_force_tile(&tile);
                        snprintf(what, sizeof what, "wave rank %d order %d %s%s k %d, %lld steps, small tiles direct",
                                 rank, order, dbl ? "double" : "float", coef ? " coef" : "", k, (long long)nsteps);
                        tc_wave_case(ctx, rank, order, dt, shape, nsteps, k, coef, &seed, what);
                    }
                    fdx_temporal_force_tile(NULL);
                    snprintf(what, sizeof what, "wave rank %d order %d %s%s k %d, 6 steps", rank, order,
                             dbl ? "double" : "float", coef ? "" : " coef", k);
                    tc_wave_case(ctx, rank, order, dt, shape, 6, k, !coef, &seed, what);
                }
            }
    /* Orders 4 and 6, one step a pass, an odd count of passes (copies back). */
    int64_t shape[3] = {23, 19, 17};
    tc_wave_case(ctx, 3, 4, FDX_FLOAT32, shape, 7, 3, 1, &seed, "wave order 4 k 3 coef");
    tc_wave_case(ctx, 2, 6, FDX_FLOAT64, shape, 4, 2, 0, &seed, "wave order 6 k 2");
    tc_wave_case(ctx, 2, 2, FDX_FLOAT64, shape, 5, 0, 1, &seed, "wave off, 5 steps");
    tc_wave_case(ctx, 3, 2, FDX_FLOAT64, shape, 4, 0, 0, &seed, "wave off, 4 steps");
    tc_wave_case(ctx, 2, 2, FDX_FLOAT64, shape, 0, 3, 0, &seed, "wave no step");
    tc_wave_case(ctx, 2, 2, FDX_FLOAT64, shape, 2, 4, 0, &seed, "wave 2 steps at k 4");
}

static void test_errors(void)
{
    fdx_stencil_desc d;
    fdx_stencil_desc_laplacian(&d, 2, 2, NULL);
    d.update = FDX_UPDATE_WAVE, d.alpha = 0.1;
    fdx_stencil *s = NULL;
    fdx_array *a[5] = {NULL};
    int64_t shape[2] = {16, 16};
    for (int i = 0; i < 5; i++) CHECK_OK(fdx_array_create(ctx, FDX_FLOAT64, 2, shape, FDX_ON_HOST, &a[i]));
    CHECK_OK(fdx_stencil_create(ctx, &d, FDX_FLOAT64, &s));
    CHECK_FAILS(fdx_stencil_wave_steps(s, a[0], a[1], a[4], a[2], a[3], 4, 2, NULL), FDX_ERR_INVALID); /* coef given, none in the stencil */
    CHECK_FAILS(fdx_stencil_wave_steps(s, a[0], a[0], NULL, a[2], a[3], 4, 2, NULL), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_stencil_wave_steps(s, a[0], a[1], NULL, a[2], a[2], 4, 2, NULL), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_stencil_wave_steps(s, a[0], NULL, NULL, a[2], a[3], 4, 2, NULL), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_stencil_steps(s, a[0], a[1], 4, 2, NULL), FDX_ERR_INVALID); /* wave through the heat stepper */
    fdx_stencil_destroy(&s);
    d.update = FDX_UPDATE_HEAT;
    CHECK_OK(fdx_stencil_create(ctx, &d, FDX_FLOAT64, &s));
    CHECK_FAILS(fdx_stencil_wave_steps(s, a[0], a[1], NULL, a[2], a[3], 4, 2, NULL), FDX_ERR_INVALID);
    fdx_stencil_destroy(&s);
    for (int i = 0; i < 5; i++) fdx_array_destroy(&a[i]);
}

int main(void)
{
    ctx = fdx_test_ctx("cpu");
    if (!ctx) return fdx_test_skip("test_temporal_wave", "no CPU context");
    test_errors();
    test_depths();
    fdx_ctx_destroy(&ctx);
    return fdx_test_finish("test_temporal_wave");
}
