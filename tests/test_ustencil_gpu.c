/* User stencils on the GPU (skipped without one): every case of
   ustencil_ref.h in both precisions with the default configuration, then
   with forced configurations (the march with each lane count, unroll and
   vector loads, small blocks and chunks that leave partial blocks; the point
   kernel), each against the CPU reference on random inputs with random
   weights and a NaN-poisoned output (the CPU path is held to the same
   reference by test_ustencil); a tuned box and div(k grad u) at 168^3. */
#include "fdx_test.h"
#include "stencil/fdx_ustencil_impl.h"
#include "ustencil_ref.h"

#include <string.h>

static void force(fdx_ustencil *s, const void *arg) { fdx_ustencil_force_cfg(s, (const fdx_us_cfg *)arg); }

int main(void)
{
    if (fdx_cuda_device_count() == 0) return fdx_test_skip("test_ustencil_gpu", "no CUDA device");
    fdx_ctx *gpu = fdx_test_ctx("cuda");
    CHECK(gpu != NULL, "cuda context: %s", fdx_last_error());
    if (!gpu) return fdx_test_finish("test_ustencil_gpu");
    static us_case cases[32];
    int n = us_cases(cases, 32, 0);
    static const fdx_us_cfg cfgs[] = {
        {FDX_US_MARCH, 32, 4, 1, 1, 3, 0, 0, 1}, {FDX_US_MARCH, 16, 8, 2, 2, 5, 0, 2, 2},
        {FDX_US_MARCH, 32, 8, 2, 2, 64, 1, 2, 1}, {FDX_US_MARCH, 8, 4, 4, 4, 7, 1, 4, 3},
        {FDX_US_MARCH, 64, 2, 4, 2, 2, 0, 1, 2},  {FDX_US_POINT, 32, 8, 1, 1, 1, 0, 0, 1},
        {FDX_US_POINT, 7, 3, 1, 1, 1, 0, 0, 1},   {FDX_US_MARCH, 32, 2, 2, 1, 9, 1, 2, 4},
    };
    const int ncfgs = sizeof cfgs / sizeof *cfgs;
    for (int i = 0; i < n; i++) {
        us_run(gpu, &cases[i], FDX_FLOAT64, 300 + i, 1, "cuda double", NULL, NULL);
        us_run(gpu, &cases[i], FDX_FLOAT32, 400 + i, 1, "cuda float", NULL, NULL);
        for (int k = 0; k < ncfgs; k++) {
            fdx_us_cfg c = cfgs[k];
            int is_double = (i + k) % 2;
            if (c.vec == 4 && is_double) c.vec = 2;
            if (cases[i].rank < 3) c.tx *= c.ty, c.ty = 1, c.rows = 1;
            /* Vector loads need 2 rx and nx multiples of vec: the width is
               rounded up to one. */
            static us_case u;
            u = cases[i];
            if (c.vload && 2 * us_radius(&u) % c.vec) c.vec = 2;
            if (c.vload && u.grid[0] % c.vec) u.grid[0] += c.vec - u.grid[0] % c.vec;
            char where[64];
            snprintf(where, sizeof where, "cuda %s forced %d", is_double ? "double" : "float", k);
            us_run(gpu, &u, is_double ? FDX_FLOAT64 : FDX_FLOAT32, 500 + 10 * i + k, 1, where, force, &c);
        }
    }
    printf("test_ustencil_gpu: %d cases, %d forced configurations\n", n, ncfgs);
    /* Tuned (every candidate timed) at a size the tuner takes. */
    fdx_options *o = NULL;
    fdx_ctx *tuned = NULL;
    CHECK_OK(fdx_options_create(&o));
    if (o) CHECK_OK(fdx_options_set(o, "backend", "cuda"));
    if (o) CHECK_OK(fdx_options_set(o, "tune", "on"));
    if (o) CHECK_OK(fdx_ctx_create(o, &tuned));
    fdx_options_destroy(&o);
    if (tuned) {
        uint64_t s = 9;
        static us_case c;
        us_init(&c, "tuned box 168^3", 3, 1, 1, 0, 168, 168, 168);
        us_box(&c, 1, &s);
        us_run(tuned, &c, FDX_FLOAT64, 77, 1, "cuda tuned", NULL, NULL);
        us_init(&c, "tuned div 168^3", 3, 1, 1, 1, 168, 168, 168);
        c.build = US_DIV;
        us_run(tuned, &c, FDX_FLOAT32, 78, 1, "cuda tuned", NULL, NULL);
        fdx_ctx_destroy(&tuned);
    }
    fdx_ctx_destroy(&gpu);
    return fdx_test_finish("test_ustencil_gpu");
}
