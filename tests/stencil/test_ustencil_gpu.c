/* User stencils on the GPU (skipped without one): every case of
   ustencil_ref.h in both precisions with the default configuration, then
   with forced configurations (the march with each lane count, unroll and
   vector loads, small blocks and chunks that leave partial blocks; the point
   kernel), each against the CPU reference on random inputs with random
   weights and a NaN-poisoned output; in double the CUDA output and the CPU
   path's on the same inputs agree within 1e-12 relative and in their frames;
   a tuned box at 162^3. */
#include "fdx_test.h"
#include "stencil/fdx_ustencil_impl.h"
#include "ustencil_ref.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void force(fdx_ustencil *s, const void *arg) { fdx_ustencil_force_cfg(s, (const fdx_us_cfg *)arg); }

int main(void)
{
    if (fdx_cuda_device_count() == 0) return fdx_test_skip("test_ustencil_gpu", "no CUDA device");
    fdx_ctx *gpu = fdx_test_ctx("cuda");
    CHECK(gpu != NULL, "cuda context: %s", fdx_last_error());
    if (!gpu) return fdx_test_finish("test_ustencil_gpu");
    fdx_ctx *cpu = fdx_test_ctx("cpu");
    CHECK(cpu != NULL, "cpu context: %s", fdx_last_error());
    static us_case cases[32];
    int n = us_cases(cases, 32, 0);
    static const fdx_us_cfg cfgs[] = {
        {FDX_US_MARCH, 32, 4, 1, 1, 3, 0, 0, 1}, {FDX_US_MARCH, 16, 8, 2, 2, 5, 0, 2, 2},
        {FDX_US_MARCH, 32, 8, 2, 2, 64, 1, 2, 1}, {FDX_US_MARCH, 8, 4, 4, 4, 7, 1, 4, 3},
        {FDX_US_MARCH, 64, 2, 4, 2, 2, 0, 1, 2},  {FDX_US_POINT, 32, 8, 1, 1, 1, 0, 0, 1},
        {FDX_US_POINT, 7, 3, 1, 1, 1, 0, 0, 1},   {FDX_US_MARCH, 32, 2, 2, 1, 9, 1, 2, 4},
        {FDX_US_MARCH, 32, 4, 2, 2, 5, 1, 2, 2, 1}, {FDX_US_MARCH, 16, 4, 1, 1, 3, 0, 0, 3, 1}, /* pipelined */
        {FDX_US_MARCH, 32, 8, 2, 1, 8, 0, 0, 2, 1, 4}, {FDX_US_POINT, 32, 8, 1, 1, 1, 0, 0, 1, 0, 6}, /* register caps */
        /* the shared-memory tile (cp.async stages, pf planes in flight) */
        {FDX_US_TILE, 32, 4, 1, 1, 3, 0, 2, 1}, {FDX_US_TILE, 16, 8, 2, 2, 5, 0, 1, 2},
        {FDX_US_TILE, 32, 8, 2, 1, 16, 0, 3, 1}, {FDX_US_TILE, 7, 3, 1, 1, 4, 0, 4, 3},
    };
    const int ncfgs = sizeof cfgs / sizeof *cfgs;
    /* racecheck needs minutes a kernel (the whole test did not finish in
       200 s): FDX_TEST_USTENCIL_TILE=1 forces only the tile's configurations
       (the kernels with shared stages and barriers) and leaves out the tuned
       case (~80 candidates). */
    const char *only_tile = getenv("FDX_TEST_USTENCIL_TILE");
    const int tile_only = only_tile && strcmp(only_tile, "1") == 0;
    for (int i = 0; i < n; i++) {
        /* CUDA and the CPU path on the same inputs (the same seed): both
           within rounding of the reference and of each other. */
        double *on_gpu = NULL, *on_cpu = NULL;
        us_run(gpu, &cases[i], FDX_FLOAT64, 300 + i, 1, "cuda double", NULL, NULL, &on_gpu);
        if (cpu) us_run(cpu, &cases[i], FDX_FLOAT64, 300 + i, 0, "cpu double", NULL, NULL, &on_cpu);
        if (on_gpu && on_cpu) {
            int64_t differ = 0, m = us_points(&cases[i]) * cases[i].ncomp;
            for (int64_t e = 0; e < m; e++) {
                double a = on_gpu[e], b = on_cpu[e];
                if (isnan(a) != isnan(b) || (!isnan(a) && !(fabs(a - b) <= 1e-12 * (1 + fabs(a) + fabs(b))))) differ++;
            }
            CHECK(differ == 0, "%s: CUDA and the CPU path differ at %lld of %lld values", cases[i].name,
                  (long long)differ, (long long)m);
        }
        free(on_gpu), free(on_cpu);
        us_run(gpu, &cases[i], FDX_FLOAT32, 400 + i, 1, "cuda float", NULL, NULL, NULL);
        for (int k = 0; k < ncfgs; k++) {
            fdx_us_cfg c = cfgs[k];
            if (tile_only && c.variant != FDX_US_TILE) continue;
            int is_double = (i + k) % 2;
            if (c.vec == 4 && is_double) c.vec = 2;
            if (cases[i].rank < 3) c.tx *= c.ty, c.ty = 1, c.rows = 1;
            /* Vector loads need 2 rx and nx multiples of vec: the width is
               rounded up to one. */
            static us_case u;
            u = cases[i];
            if (c.vload && 2 * us_radius(&u) % c.vec) c.vec = 2;
            if (c.vload && u.grid[0] % c.vec) u.grid[0] += c.vec - u.grid[0] % c.vec;
            /* the tile: rows of whole lanes */
            const int rx = us_radius(&u);
            if (c.variant == FDX_US_TILE && (u.grid[0] - 2 * rx) % c.vec) u.grid[0] += c.vec - (u.grid[0] - 2 * rx) % c.vec;
            char where[64];
            snprintf(where, sizeof where, "cuda %s forced %d", is_double ? "double" : "float", k);
            us_run(gpu, &u, is_double ? FDX_FLOAT64 : FDX_FLOAT32, 500 + 10 * i + k, 1, where, force, &c, NULL);
        }
    }
    printf("test_ustencil_gpu: %d cases, %d forced configurations\n", n, ncfgs);
    /* Tuned (every candidate timed) at a size the tuner takes. */
    fdx_options *o = NULL;
    fdx_ctx *tuned = NULL;
    CHECK_OK(fdx_options_create(&o));
    if (o) CHECK_OK(fdx_options_set(o, "backend", "cuda"));
    if (o) CHECK_OK(fdx_options_set(o, "tune", "on"));
    if (o && !tile_only) CHECK_OK(fdx_ctx_create(o, &tuned));
    fdx_options_destroy(&o);
    if (tuned) {
        /* One case (the tuner times ~80 candidates; compute-sanitizer runs
           this test too): the box, just above the size the tuner takes. */
        uint64_t s = 9;
        static us_case c;
        us_init(&c, "tuned box 162^3", 3, 1, 1, 0, 162, 162, 162);
        us_box(&c, 1, &s);
        us_run(tuned, &c, FDX_FLOAT64, 77, 1, "cuda tuned", NULL, NULL, NULL);
        fdx_ctx_destroy(&tuned);
    }
    fdx_ctx_destroy(&gpu);
    fdx_ctx_destroy(&cpu);
    return fdx_test_finish("test_ustencil_gpu");
}
