/* Boundary conditions on CUDA (bc_check.h): the generated CUDA pass against
   the reference formulas, which test_bc holds the CPU pass to bit for bit,
   so the CUDA and CPU passes agree bit for bit; every kind on every face,
   orders 2-8, ranks 1-3, odd shapes, float and double, and the pass
   attached to a stencil.  Then one 512x256x128 case compared directly with
   the CPU pass.  Small otherwise, so it runs under compute-sanitizer.
   Skipped without a device. */
#include "bc_check.h"

/* One larger case: the CUDA pass and the CPU pass on the same input. */
static void cuda_vs_cpu(fdx_ctx *gpu, fdx_ctx *cpu, fdx_dtype dt)
{
    int64_t n[3] = {515, 257, 131};
    int64_t count = n[0] * n[1] * n[2];
    size_t e = dt == FDX_FLOAT64 ? 8 : 4;
    fdx_bc_desc bc;
    CHECK_OK(fdx_bc_parse("x=periodic,y-=dirichlet:0.25,y+=neumann:-1,z-=neumann:0.5,z+=dirichlet:-3", 3, &bc));
    fdx_array *a = NULL, *b = NULL;
    fdx_bc *pa = NULL, *pb = NULL;
    double h[3] = {0.1, 0.2, 0.3};
    CHECK_OK(fdx_array_create(gpu, dt, 3, n, FDX_ON_HOST | FDX_ON_DEVICE, &a));
    CHECK_OK(fdx_array_create(cpu, dt, 3, n, FDX_ON_HOST, &b));
    CHECK_OK(fdx_bc_create(gpu, &bc, 3, 2, h, dt, &pa));
    CHECK_OK(fdx_bc_create(cpu, &bc, 3, 2, h, dt, &pb));
    if (!a || !b || !pa || !pb) return;
    uint64_t seed = 99;
    void *ha = fdx_array_host(a), *hb = fdx_array_host(b);
    for (int64_t i = 0; i < count; i++) bc_set(ha, dt == FDX_FLOAT64, i, fdx_test_rand(&seed));
    memcpy(hb, ha, (size_t)count * e);
    CHECK_OK(fdx_array_to_device(a));
    CHECK_OK(fdx_bc_apply(pa, a, NULL));
    CHECK_OK(fdx_ctx_sync(gpu));
    CHECK_OK(fdx_array_to_host(a));
    CHECK_OK(fdx_bc_apply(pb, b, NULL));
    CHECK(memcmp(ha, hb, (size_t)count * e) == 0, "515x257x131 %s: the CUDA and CPU passes differ",
          fdx_dtype_name(dt));
    fdx_bc_destroy(&pa);
    fdx_bc_destroy(&pb);
    fdx_array_destroy(&a);
    fdx_array_destroy(&b);
}

int main(void)
{
    if (fdx_cuda_device_count() == 0) return fdx_test_skip("test_bc_gpu", "no CUDA device");
    fdx_ctx *ctx = bc_ctx("cuda"), *cpu = bc_ctx("cpu");
    if (!ctx || !cpu) return fdx_test_finish("test_bc_gpu");
    uint64_t seed = 0xbc17;
    for (int dbl = 0; dbl < 2; dbl++)
        for (int rank = 1; rank <= 3; rank++)
            for (int order = 2; order <= 8; order += 2)
                for (int c = 0; c < 4; c++) bc_case(ctx, dbl ? FDX_FLOAT64 : FDX_FLOAT32, rank, order, c, seed++, 1);
    cuda_vs_cpu(ctx, cpu, FDX_FLOAT32);
    cuda_vs_cpu(ctx, cpu, FDX_FLOAT64);
    fdx_ctx_destroy(&ctx);
    fdx_ctx_destroy(&cpu);
    return fdx_test_finish("test_bc_gpu");
}
