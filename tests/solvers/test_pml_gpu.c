/* test_pml_gpu: the wave's perfectly matched layer on CUDA (skips without a
   GPU): the library's step against the plain-loop reference of pml_check.h
   (poisoned outputs), the same runs compared with the CPU's, the fused pass
   against the two passes (FDX_PML_TWOPASS=1) bit for bit, and a whole wave
   run with absorb = pml on CUDA against the CPU. */
#include "pml_check.h"

#include <string.h>

/* A whole run on both backends: the fields agree to the precision's rounding. */
static void sim_gpu_vs_cpu(fdx_ctx *gpu, fdx_ctx *cpu, const char *size, const char *precision, double tol)
{
    const char *kv[] = {"size", size, "order", "8", "precision", precision, "steps", "300", "absorb", "pml",
                        "sponge", "10", "progress", "off", NULL};
    fdx_sim *g = pc_sim(gpu, kv), *c = pc_sim(cpu, kv);
    if (g && c) {
        for (int s = 0; s < 300; s++) {
            CHECK_OK(fdx_sim_step(g));
            CHECK_OK(fdx_sim_step(c));
        }
        int64_t cnt = 1;
        for (int d = 0; d < fdx_sim_rank(c); d++) cnt *= fdx_sim_shape(c)[d];
        double *ug = malloc((size_t)cnt * sizeof(double)), *uc = malloc((size_t)cnt * sizeof(double));
        CHECK_OK(fdx_sim_get_field(g, ug));
        CHECK_OK(fdx_sim_get_field(c, uc));
        double mx = 0, err = 0;
        for (int64_t q = 0; q < cnt; q++) {
            if (fabs(uc[q]) > mx) mx = fabs(uc[q]);
            if (!(fabs(ug[q] - uc[q]) <= err)) err = fabs(ug[q] - uc[q]);
        }
        printf("sim %s %s, absorb = pml, 300 steps: max |gpu - cpu| / max |u| = %.3g\n", size, precision, err / mx);
        CHECK(mx > 0 && err / mx < tol, "sim %s %s: GPU and CPU differ by %.3g of max |u|", size, precision, err / mx);
        free(ug);
        free(uc);
    }
    fdx_sim_destroy(&g);
    fdx_sim_destroy(&c);
}

int main(void)
{
    fdx_ctx *gpu = fdx_test_ctx("cuda");
    if (!gpu) return fdx_test_skip("test_pml_gpu", "no CUDA device");
    fdx_ctx *cpu = fdx_test_ctx("cpu");
    CHECK(cpu != NULL, "no CPU context: %s", fdx_last_error());
    if (!cpu) return fdx_test_finish("test_pml_gpu");
    for (int i = 0; i < PC_NCASES; i++) {
        const pc_case *pc = &PC_CASES[i];
        int64_t cnt = pc->n[0] * pc->n[1] * (pc->rank == 3 ? pc->n[2] : 1);
        double *g = calloc((size_t)cnt, sizeof(double)), *c = calloc((size_t)cnt, sizeof(double));
        for (int t = 0; t < 2; t++) {
            fdx_dtype type = t ? FDX_FLOAT32 : FDX_FLOAT64;
            double tol = t ? 5e-5 : 1e-11;
            double eg = pc_run(gpu, "cuda", pc, type, 12, 0x5151ULL + i, g);
            double ec = pc_run(cpu, "cpu", pc, type, 12, 0x5151ULL + i, c);
            CHECK(eg < tol && ec < tol, "case %d %s: reference differences %.3g (GPU), %.3g (CPU)", i,
                  t ? "float" : "double", eg, ec);
            double mx = 0, err = 0;
            for (int64_t q = 0; q < cnt; q++) {
                if (fabs(c[q]) > mx) mx = fabs(c[q]);
                if (!(fabs(g[q] - c[q]) <= err)) err = fabs(g[q] - c[q]);
            }
            CHECK(err <= tol * mx, "case %d %s: GPU and CPU differ by %.3g of max |u|", i, t ? "float" : "double",
                  err / mx);
        }
        free(g);
        free(c);
    }
    /* The fused pass and the two passes round alike (fdx_pml_cuda.cu is
       built without FMA contraction, so the shared point code cannot be
       contracted differently in the two kernels). */
    pc_fused_vs_twopass(gpu, "cuda", 0x77ULL, 0);
    sim_gpu_vs_cpu(gpu, cpu, "96x80", "double", 1e-10);
    sim_gpu_vs_cpu(gpu, cpu, "48x40x36", "float", 1e-3);
    fdx_ctx_destroy(&cpu);
    fdx_ctx_destroy(&gpu);
    return fdx_test_finish("test_pml_gpu");
}
