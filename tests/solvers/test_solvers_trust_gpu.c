/* test_solvers_trust_gpu: the finiteness check on CUDA (the reduction kernel
   against a plain loop, float and double, fields with 0..3 poisoned points)
   and a CUDA run that blows up stopping with FDX_ERR_VERIFY naming the step.
   Skips (77) without a device. */
#include "solvers_trust_check.h"

#include <string.h>

int main(void)
{
    fdx_ctx *gpu = fdx_test_ctx("cuda");
    if (!gpu) return fdx_test_skip("test_solvers_trust_gpu", "no CUDA device");
    first_nonfinite(gpu, "cuda");
    /* +-FLT_MAX stripes overflow at the first step; found on the device. */
    fdx_sim_config *c = NULL;
    fdx_sim *s = NULL;
    CHECK_OK(fdx_sim_config_create(FDX_SIM_HEAT, &c));
    CHECK_OK(fdx_sim_config_set(c, "size", "64x48"));
    CHECK_OK(fdx_sim_config_set(c, "steps", "40"));
    if (c) CHECK_OK(fdx_sim_create(gpu, c, &s));
    if (s) {
        double *u = malloc(64 * 48 * sizeof(double));
        for (int i = 0; i < 64 * 48; i++) u[i] = (i % 2 ? 1 : -1) * 3.4e38;
        CHECK_OK(fdx_sim_set_field(s, u, NULL));
        fdx_sim_result r;
        CHECK_FAILS(fdx_sim_run(s, NULL, &r), FDX_ERR_VERIFY);
        CHECK(strstr(fdx_last_error(), "at step 4,") != NULL, "blow-up message: %s", fdx_last_error());
        free(u);
    }
    fdx_sim_destroy(&s);
    fdx_sim_config_destroy(&c);
    fdx_ctx_destroy(&gpu);
    return fdx_test_finish("test_solvers_trust_gpu");
}
