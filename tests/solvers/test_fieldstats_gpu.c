/* test_fieldstats_gpu: the solvers' reduction and generator kernels on CUDA
   against their definitions (fieldstats_check.h), and the reductions bit
   for bit against the CPU's on the same fields: the checksum a run prints
   is the same on either backend and for any split.  Skips (77) without a
   device. */
#include "fieldstats_check.h"

int main(void)
{
    fdx_ctx *gpu = fdx_test_ctx("cuda");
    if (!gpu) return fdx_test_skip("test_fieldstats_gpu", "no CUDA device");
    fdx_ctx *cpu = fdx_test_ctx("cpu");
    CHECK(cpu != NULL, "no CPU context: %s", fdx_last_error());
    double got[2][4 * 64];
    int n[2] = {0, 0};
    fc_stats(gpu, "cuda", got[0], &n[0]);
    if (cpu) fc_stats(cpu, "cpu", got[1], &n[1]);
    CHECK(n[0] == n[1] && memcmp(got[0], got[1], sizeof(double) * 4 * (size_t)n[0]) == 0,
          "CUDA reductions differ from the CPU's (%d, %d cases)", n[0], n[1]);
    /* exp and sin of CUDA are within 2 ulp of glibc's; a few more after the products. */
    fc_gen(gpu, "cuda", 8);
    fdx_ctx_destroy(&cpu);
    fdx_ctx_destroy(&gpu);
    return fdx_test_finish("test_fieldstats_gpu");
}
