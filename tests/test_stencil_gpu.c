/* The stencil engine on CUDA equals the reference loop on random inputs with
   poisoned outputs: every order in 1-3D and both precisions, all strategies,
   every vector width and some block shapes, on shapes that are not block
   multiples.  Small, so it runs under compute-sanitizer.  Skipped without a
   device. */
#include "stencil/fdx_stencil_impl.h"
#include "test_stencil_check.h"

static void force(fdx_stencil *s, const void *cfg) { fdx_stencil_force_cfg(s, (const fdx_stencil_cfg *)cfg); }

static fdx_ctx *ctx;

/* Small, odd and even shapes (even widths allow every vector width). */
static void default_case(const fdx_stencil_desc *d, fdx_dtype dt, void *seed)
{
    int r = d->order / 2, rank = d->rank;
    int64_t small[3] = {2 * r + 1, 2 * r + 2, 2 * r + 3};
    int64_t odd[3] = {rank == 1 ? 3001 : 67 + 2 * r, rank == 2 ? 53 : 19 + r, 13 + 2 * r};
    int64_t even[3] = {rank == 1 ? 4000 : 136, rank == 2 ? 40 : 2 * r + 12, 2 * r + 6};
    sc_case(ctx, d, dt, small, seed, NULL, NULL);
    sc_case(ctx, d, dt, odd, seed, NULL, NULL);
    sc_case(ctx, d, dt, even, seed, NULL, NULL);
}

int main(void)
{
    if (fdx_cuda_device_count() == 0) return fdx_test_skip("test_stencil_gpu", "no CUDA device");
    ctx = sc_ctx("cuda", "off");
    if (!ctx) return fdx_test_finish("test_stencil_gpu");
    uint64_t seed = 0x69e;
    /* Every order, rank and precision with the default configuration. */
    sc_each_desc(default_case, &seed);
    /* Forced configurations: every strategy, every vector width, block
       shapes, chunks (unrolled columns) that split the marching axis
       unevenly, both block orders of the unrolled column. */
    static const int blocks3[][2] = {{32, 8}, {64, 4}, {32, 16}, {128, 2}};
    for (int p = 0; p < 2; p++)
        for (int variant = 0; variant < 3; variant++)
            for (int vec = 1; vec <= (p ? 4 : 2); vec *= 2)
                for (int order = 2; order <= 8; order += 6) {
                    fdx_stencil_desc d;
                    int bi = (vec + variant + order) % 4;
                    int unroll = variant == FDX_SV_UNROLL, zf = unroll && order == 2;
                    /* Unrolled groups: a single group per block (vec 1), and
                       marches of groups whose last group is partial. */
                    int pd3 = unroll ? (vec == 1 ? 3 + vec : 2 + (order == 2)) : 1 + (order == 8);
                    int pd2 = unroll ? (order == 2 ? 4 : 8) : 1 + (order == 2);
                    fdx_stencil_cfg c3 = {variant, blocks3[bi][0], blocks3[bi][1], vec, 3 + vec, 1, pd3, zf};
                    fdx_stencil_cfg c2 = {variant, 64 << (vec / 2), 1, vec, 5 + order, 1, pd2, !zf};
                    fdx_dtype dt = p ? FDX_FLOAT32 : FDX_FLOAT64;
                    int r = order / 2;
                    int64_t s3[3] = {132, 11 + 2 * r, 29}, s2[2] = {1036, 45};
                    sc_desc(&d, 3, order, (vec + variant) % 3, vec == 2, variant & 1);
                    sc_case(ctx, &d, dt, s3, &seed, force, &c3);
                    sc_desc(&d, 2, order, FDX_UPDATE_WAVE, variant & 1, variant == FDX_SV_UNROLL);
                    sc_case(ctx, &d, dt, s2, &seed, force, &c2);
                }
    fdx_ctx_destroy(&ctx);
    return fdx_test_finish("test_stencil_gpu");
}
