/* fdx_stencil_steps on the CUDA backend: the temporally blocked kernels
   against single applies on the device, bit for bit (orders 2-8, ranks 2
   and 3, float and double, odd shapes, depths 2-4 with a shallower last
   pass, the candidates' tiles and small forced tiles of many blocks), and a
   depth no tile takes.  Small shapes, so that compute-sanitizer (memcheck,
   racecheck) runs it in minutes; auto on large shapes is verified by
   tools/gpu-check.d/temporal.sh.  Skipped without a GPU. */
#include "stencil/fdx_temporal.h"
#include "temporal_check.h"

static fdx_ctx *ctx;

int main(void)
{
    if (fdx_cuda_device_count() == 0) return fdx_test_skip("test_temporal_gpu", "no CUDA device");
    ctx = fdx_test_ctx("cuda");
    if (!ctx) return fdx_test_skip("test_temporal_gpu", "no CUDA context");
    uint64_t seed = 0x6e7;
    for (int rank = 2; rank <= 3; rank++)
        for (int order = 2; order <= 8; order += 2)
            for (int dbl = 0; dbl < 2; dbl++) {
                int r = order / 2;
                int64_t shape[3] = {rank == 3 ? 67 + r : 301 + r, rank == 3 ? 45 + r : 173, 39 + 2 * r};
                fdx_dtype dt = dbl ? FDX_FLOAT64 : FDX_FLOAT32;
                for (int k = 2; k <= 4; k++) {
                    char what[96];
                    fdx_temporal_cfg tile = {k, 2 * k * r + (rank == 3 ? 6 : 30), rank == 3 ? 2 * k * r + 4 : 1, 5, 0, 0};
                    int fits = tile.tx * tile.ty <= 1024;
                    if (fits) {
                        fdx_temporal_force_tile(&tile);
                        snprintf(what, sizeof what, "rank %d order %d %s k %d, small tiles", rank, order,
                                 dbl ? "double" : "float", k);
                        tc_case(ctx, rank, order, dt, shape, 2 * k + 1, k, &seed, what);
                        fdx_temporal_force_tile(NULL);
                    }
                    snprintf(what, sizeof what, "rank %d order %d %s k %d", rank, order, dbl ? "double" : "float", k);
                    fdx_temporal_cfg c[1];
                    int64_t n3[3];
                    fdx_stencil_shape3(rank, shape, n3);
                    fdx_stencil_kspec ks = {dbl, rank, r, FDX_UPDATE_HEAT, 0, rank == 3, 0};
                    fdx_device_info dev = {0};
                    dev.sm_count = 132;
                    if (fdx_temporal_candidates(&ks, &dev, 1, n3, k, c, 1) == 1)
                        tc_case(ctx, rank, order, dt, shape, 7, k, &seed, what);
                }
            }
    /* Order 8 in rank 3 at depth 8: a halo of 32 leaves no tile. */
    {
        fdx_stencil_desc d;
        fdx_stencil_desc_laplacian(&d, 3, 8, NULL);
        d.update = FDX_UPDATE_HEAT, d.alpha = 0.01;
        fdx_stencil *s = NULL;
        fdx_array *u = NULL, *t = NULL;
        int64_t shape[3] = {64, 64, 64};
        CHECK_OK(fdx_stencil_create(ctx, &d, FDX_FLOAT64, &s));
        CHECK_OK(fdx_array_create(ctx, FDX_FLOAT64, 3, shape, FDX_ON_DEVICE, &u));
        CHECK_OK(fdx_array_create(ctx, FDX_FLOAT64, 3, shape, FDX_ON_DEVICE, &t));
        if (s && u && t) CHECK_FAILS(fdx_stencil_steps(s, u, t, 8, 8, NULL), FDX_ERR_UNSUPPORTED);
        fdx_array_destroy(&u);
        fdx_array_destroy(&t);
        fdx_stencil_destroy(&s);
    }
    fdx_ctx_destroy(&ctx);
    return fdx_test_finish("test_temporal_gpu");
}
