/* test_solvers_gpu: the solvers on CUDA agree with the CPU: heat with
   insulated walls (ghost mirror kernel), wave with source, sponge and
   receivers (point, slab and gather kernels), Poisson (axpy kernel), in 2D
   and 3D, float and double.  Small, for compute-sanitizer. */
#include "fdx_test.h"

#include <string.h>

static void compare(fdx_ctx *cpu, fdx_ctx *gpu, fdx_sim_kind kind, const char *size, const char *prec)
{
    fdx_sim *s[2] = {NULL, NULL};
    fdx_ctx *ctx[2] = {cpu, gpu};
    for (int b = 0; b < 2; b++) {
        fdx_sim_config *c = NULL;
        CHECK_OK(fdx_sim_config_create(kind, &c));
        CHECK_OK(fdx_sim_config_set(c, "size", size));
        CHECK_OK(fdx_sim_config_set(c, "precision", prec));
        CHECK_OK(fdx_sim_config_set(c, "order", "4"));
        if (kind == FDX_SIM_HEAT) CHECK_OK(fdx_sim_config_set(c, "init", "random"));
        if (kind == FDX_SIM_WAVE) {
            CHECK_OK(fdx_sim_config_set(c, "sponge", "4"));
            CHECK_OK(fdx_sim_config_set(c, "f0", "3"));
        }
        CHECK_OK(fdx_sim_create(ctx[b], c, &s[b]));
        fdx_sim_config_destroy(&c);
        for (int k = 0; s[b] && k < 30; k++) CHECK_OK(fdx_sim_step(s[b]));
    }
    if (s[0] && s[1]) {
        int64_t n = 1;
        for (int d = 0; d < fdx_sim_rank(s[0]); d++) n *= fdx_sim_shape(s[0])[d];
        double *u0 = malloc((size_t)n * sizeof(double)), *u1 = malloc((size_t)n * sizeof(double));
        for (int64_t i = 0; i < n; i++) u1[i] = NAN;
        CHECK_OK(fdx_sim_get_field(s[0], u0));
        CHECK_OK(fdx_sim_get_field(s[1], u1));
        double diff = 0, mx = 1e-300;
        for (int64_t i = 0; i < n; i++) {
            diff = fmax(diff, fabs(u0[i] - u1[i]));
            if (isnan(u1[i])) diff = INFINITY;
            mx = fmax(mx, fabs(u0[i]));
        }
        double tol = strcmp(prec, "float") == 0 ? 1e-4 : 1e-10;
        CHECK(diff <= tol * mx, "%s %s %s: CUDA differs from CPU by %.3g (max |u| %.3g)", fdx_sim_kind_name(kind), size,
              prec, diff, mx);
        if (kind == FDX_SIM_WAVE) {
            int n0, n1;
            int64_t t0, t1;
            const double *r0, *r1;
            CHECK_OK(fdx_sim_receivers(s[0], &n0, &t0, &r0));
            CHECK_OK(fdx_sim_receivers(s[1], &n1, &t1, &r1));
            double rd = 0, rm = 1e-300;
            for (int64_t i = 0; r0 && r1 && n0 == n1 && t0 == t1 && i < (int64_t)n0 * t0; i++) {
                rd = fmax(rd, fabs(r0[i] - r1[i]));
                rm = fmax(rm, fabs(r0[i]));
            }
            CHECK(n0 == n1 && t0 == t1 && rd <= tol * rm, "receivers differ: %d/%d x %lld/%lld, %.3g", n0, n1,
                  (long long)t0, (long long)t1, rd);
        }
        free(u0);
        free(u1);
    }
    fdx_sim_destroy(&s[0]);
    fdx_sim_destroy(&s[1]);
}

int main(void)
{
    if (fdx_cuda_device_count() == 0) return fdx_test_skip("test_solvers_gpu", "no CUDA device");
    fdx_ctx *cpu = fdx_test_ctx("cpu"), *gpu = fdx_test_ctx("cuda");
    if (!cpu || !gpu) return fdx_test_skip("test_solvers_gpu", "no CPU or CUDA context");
    const char *sizes[] = {"40x36", "20x18x16"}, *precs[] = {"float", "double"};
    for (int i = 0; i < 2; i++)
        for (int p = 0; p < 2; p++) {
            compare(cpu, gpu, FDX_SIM_HEAT, sizes[i], precs[p]);
            compare(cpu, gpu, FDX_SIM_WAVE, sizes[i], precs[p]);
            compare(cpu, gpu, FDX_SIM_POISSON, sizes[i], precs[p]);
        }
    fdx_ctx_destroy(&cpu);
    fdx_ctx_destroy(&gpu);
    return fdx_test_finish("test_solvers_gpu");
}
