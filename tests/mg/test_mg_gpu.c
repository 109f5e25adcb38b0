/* test_mg_gpu: the multigrid solver on CUDA against the CPU: the same
   problems (every boundary kind, smoother, cycle, MG and CG-MG, odd and
   even sizes, 2D and 3D, constant and variable coefficients) give the same
   cycle counts (+-1), residual histories and solutions; the one-pass
   residual+restriction kernel against the two-pass one (FDX_MG_FUSE=0),
   the one-pass out-of-place red-black sweeps (the default z-marching one;
   FDX_MG_PSMOOTH=1 with the prolongation folded in; FDX_MG_GS2=1
   the shared-ring one; FDX_MG_NORMFUSE=1 with the convergence check's norm
   in the next cycle's first sweep) against the two colour kernels
   (FDX_MG_GS2=0), and replayed graphs against plain launches.  FDX_MG_GS2_EVERY=1 throughout,
   so that the one-pass sweeps run on the small levels of these small
   grids too.  Skips (77) without a CUDA device.  FDX_TEST_SANITIZER=1 (set
   by tools/gpu-check.d/mg.sh under compute-sanitizer, which makes every
   launch ~ms): the grids shrink to <= 20000 points, the tolerance is 1e-6,
   and each variant runs on the first case that has it (still every kernel:
   both sweeps' four instantiations, the two-pass restriction, the graph). */
#include "fdx_test.h"

#include <stdlib.h>
#include <string.h>

typedef struct config {
    int rank;
    int64_t n[3];
    fdx_solver_bc bc;
    fdx_solver_method method;
    fdx_solver_cycle cycle;
    fdx_solver_smoother sm;
    int order;
    int coef; /* 0: -lap; 1: smooth k (0.2..5); 2: a jump of 1e3 across x = 1/2 */
} config;

/* The coefficient of case c at every point (NULL for coef 0). */
static double *coefficient(const config *c, int64_t count)
{
    if (!c->coef) return NULL;
    double *k = malloc((size_t)count * sizeof(double));
    for (int64_t q = 0; q < count && k; q++) {
        const int64_t i = q % c->n[0], j = q / c->n[0] % c->n[1], l = q / (c->n[0] * c->n[1]);
        const double x = (double)i / (double)c->n[0], y = (double)j / (double)c->n[1], z = (double)l / (double)c->n[2];
        k[q] = c->coef == 1 ? exp(1.6 * sin(6.0 * x + 1) * cos(5.0 * y) * cos(3.0 * z + 0.5)) : (x < 0.5 ? 1.0 : 1e3);
    }
    return k;
}

/* Solves on ctx; returns the solution (malloc) and the history. */
static double tolerance = 1e-10;

static double *solve(fdx_ctx *ctx, const config *c, const double *f0, const double *u0, const double *k0, int *iters,
                     double *last)
{
    const int64_t count = c->n[0] * c->n[1] * (c->rank == 3 ? c->n[2] : 1);
    fdx_array *f = NULL, *u = NULL;
    fdx_solver *s = NULL;
    double *out = malloc((size_t)count * sizeof(double));
    CHECK_OK(fdx_array_create(ctx, FDX_FLOAT64, c->rank, c->n, FDX_ON_HOST | FDX_ON_DEVICE, &f));
    CHECK_OK(fdx_array_create(ctx, FDX_FLOAT64, c->rank, c->n, FDX_ON_HOST | FDX_ON_DEVICE, &u));
    if (!f || !u || !out) return out;
    memcpy(fdx_array_host(f), f0, (size_t)count * sizeof(double));
    memcpy(fdx_array_host(u), u0, (size_t)count * sizeof(double));
    CHECK_OK(fdx_array_to_device(f));
    CHECK_OK(fdx_array_to_device(u));
    CHECK_OK(fdx_solver_create(ctx, c->rank, c->n, &s));
    CHECK_OK(fdx_solver_set_bc(s, -1, c->bc));
    CHECK_OK(fdx_solver_set_method(s, c->method));
    CHECK_OK(fdx_solver_set_cycle(s, c->cycle));
    CHECK_OK(fdx_solver_set_smoother(s, c->sm, 2, 2));
    CHECK_OK(fdx_solver_set_order(s, c->order ? c->order : 2));
    if (k0) {
        fdx_array *k = NULL;
        CHECK_OK(fdx_array_create(ctx, FDX_FLOAT64, c->rank, c->n, FDX_ON_HOST, &k));
        if (k) memcpy(fdx_array_host(k), k0, (size_t)count * sizeof(double));
        CHECK_OK(fdx_solver_set_coefficient(s, k));
        fdx_array_destroy(&k); /* the solver keeps its own copy */
    }
    CHECK_OK(fdx_solver_set_max_cycles(s, 100));
    CHECK_OK(fdx_solver_set_tolerance(s, tolerance));
    CHECK_OK(fdx_solver_solve(s, f, u));
    CHECK_OK(fdx_array_to_host(u));
    memcpy(out, fdx_array_host(u), (size_t)count * sizeof(double));
    *iters = fdx_solver_iterations(s);
    const double *h = NULL;
    int nh = 0;
    CHECK_OK(fdx_solver_residual_history(s, &h, &nh));
    *last = h ? h[nh - 1] : -1;
    CHECK(fdx_solver_converged(s), "not converged: %d cycles", *iters);
    fdx_solver_destroy(&s);
    fdx_array_destroy(&f);
    fdx_array_destroy(&u);
    return out;
}

int main(void)
{
    fdx_ctx *gpu = fdx_test_ctx("cuda");
    if (!gpu) return fdx_test_skip("test_mg_gpu", "no CUDA device");
    fdx_ctx *cpu = fdx_test_ctx("cpu");
    const char *san = getenv("FDX_TEST_SANITIZER");
    const int small = san && strcmp(san, "1") == 0; /* racecheck: ~ms a launch */
    if (small) tolerance = 1e-6;
    setenv("FDX_MG_GS2_EVERY", "1", 1);
    const config cases[] = {
        {3, {33, 33, 33}, FDX_BC_DIRICHLET, FDX_SOLVER_MG, FDX_CYCLE_V, FDX_SMOOTH_RBGS, 2, 0},
        {3, {40, 37, 21}, FDX_BC_DIRICHLET, FDX_SOLVER_MG, FDX_CYCLE_W, FDX_SMOOTH_JACOBI, 2, 0},
        {3, {24, 24, 24}, FDX_BC_PERIODIC, FDX_SOLVER_CG_MG, FDX_CYCLE_V, FDX_SMOOTH_CHEBY, 2, 0},
        {3, {20, 30, 17}, FDX_BC_NEUMANN, FDX_SOLVER_MG, FDX_CYCLE_F, FDX_SMOOTH_RBGS, 2, 0},
        {2, {129, 100, 1}, FDX_BC_DIRICHLET, FDX_SOLVER_MG, FDX_CYCLE_FMG, FDX_SMOOTH_RBGS, 2, 0},
        {2, {64, 64, 1}, FDX_BC_NEUMANN, FDX_SOLVER_CG_MG, FDX_CYCLE_V, FDX_SMOOTH_JACOBI, 2, 0},
        {3, {65, 65, 65}, FDX_BC_DIRICHLET, FDX_SOLVER_CG_MG, FDX_CYCLE_V, FDX_SMOOTH_RBGS, 2, 0},
        {3, {33, 40, 29}, FDX_BC_DIRICHLET, FDX_SOLVER_MG, FDX_CYCLE_V, FDX_SMOOTH_RBGS, 4, 0},
        {2, {100, 77, 1}, FDX_BC_DIRICHLET, FDX_SOLVER_MG, FDX_CYCLE_V, FDX_SMOOTH_CHEBY, 4, 0},
        /* a coarsest level of more than 64 unknowns (periodic axes stop
           coarsening at 3-4 points): the GPU's direct solve once refused it */
        {3, {200, 300, 100}, FDX_BC_PERIODIC, FDX_SOLVER_MG, FDX_CYCLE_V, FDX_SMOOTH_RBGS, 2, 0},
        /* variable coefficients: every smoother, cycle, boundary kind, CG */
        {3, {33, 33, 33}, FDX_BC_DIRICHLET, FDX_SOLVER_MG, FDX_CYCLE_V, FDX_SMOOTH_RBGS, 2, 1},
        {3, {40, 37, 21}, FDX_BC_DIRICHLET, FDX_SOLVER_MG, FDX_CYCLE_W, FDX_SMOOTH_JACOBI, 2, 1},
        {3, {24, 24, 24}, FDX_BC_PERIODIC, FDX_SOLVER_CG_MG, FDX_CYCLE_V, FDX_SMOOTH_CHEBY, 2, 1},
        {3, {20, 30, 17}, FDX_BC_NEUMANN, FDX_SOLVER_MG, FDX_CYCLE_F, FDX_SMOOTH_RBGS, 2, 1},
        {2, {129, 100, 1}, FDX_BC_DIRICHLET, FDX_SOLVER_MG, FDX_CYCLE_FMG, FDX_SMOOTH_RBGS, 2, 1},
        {3, {48, 48, 48}, FDX_BC_DIRICHLET, FDX_SOLVER_CG_MG, FDX_CYCLE_V, FDX_SMOOTH_RBGS, 2, 2},
        {3, {65, 65, 65}, FDX_BC_DIRICHLET, FDX_SOLVER_MG, FDX_CYCLE_V, FDX_SMOOTH_RBGS, 2, 2},
        /* 3D FMG with the out-of-place sweeps against the colour kernels:
           its coarse levels once swapped in the problem's boundary values */
        {3, {65, 65, 65}, FDX_BC_DIRICHLET, FDX_SOLVER_MG, FDX_CYCLE_FMG, FDX_SMOOTH_RBGS, 2, 0},
    };
    /* under the sanitizer: 3D grids of more than 20000 points become
       17^3-ish, the 2D ones 40x31, the periodic 200x300x100 case 36x54x18
       (it keeps its coarsest level of > 64 unknowns) */
    uint64_t seed = 5;
    int graph_done = 0, fuse_done = 0, gs2_done[2] = {0, 0};
    for (size_t t = 0; t < sizeof cases / sizeof cases[0]; t++) {
        config cs = cases[t];
        const config *c = &cs;
        if (small && cs.n[0] * cs.n[1] * cs.n[2] > 20000) {
            const int64_t shrunk[3] = {cs.n[0] == 200 ? 36 : cs.rank == 2 ? 40 : 17,
                                       cs.n[0] == 200 ? 54 : cs.rank == 2 ? 31 : 17,
                                       cs.n[0] == 200 ? 18 : cs.rank == 2 ? 1 : 15};
            for (int a = 0; a < 3; a++) cs.n[a] = shrunk[a];
        }
        const int64_t count = c->n[0] * c->n[1] * (c->rank == 3 ? c->n[2] : 1);
        double *f = malloc((size_t)count * sizeof(double)), *u = malloc((size_t)count * sizeof(double));
        /* A smooth right-hand side of mean zero (compatible for every kind)
           plus noise whose mean is removed, random guess and boundary. */
        double mean = 0;
        for (int64_t q = 0; q < count; q++) {
            f[q] = sin(0.1 * (double)(q % 97)) + 0.1 * fdx_test_rand(&seed);
            mean += f[q];
            u[q] = fdx_test_rand(&seed);
        }
        mean /= (double)count;
        for (int64_t q = 0; q < count; q++) f[q] -= mean;
        double *k = coefficient(c, count);
        int ic = 0, ig = 0;
        double rc = 0, rg = 0;
        double *sc = solve(cpu, c, f, u, k, &ic, &rc), *sg = solve(gpu, c, f, u, k, &ig, &rg);
        double diff = 0, scale = 0;
        for (int64_t q = 0; q < count; q++) {
            diff = fmax(diff, fabs(sc[q] - sg[q]));
            scale = fmax(scale, fabs(sc[q]));
        }
        printf("case %zu (%lldx%lldx%lld, coef %d): cpu %d cycles (%.3e), gpu %d cycles (%.3e), max diff %.3e of %.3e\n",
               t, (long long)c->n[0], (long long)c->n[1], (long long)c->n[2], c->coef, ic, rc, ig, rg, diff, scale);
        CHECK(abs(ic - ig) <= 1, "case %zu: cpu %d cycles, gpu %d", t, ic, ig);
        if (c->sm == FDX_SMOOTH_RBGS && c->cycle != FDX_CYCLE_FMG && !(small && graph_done++)) {
            /* The replayed graph of a cycle runs the same kernels as plain
               launches: the same answer bit for bit. */
            int ip = 0;
            double rp = 0;
            setenv("FDX_MG_GRAPH", "0", 1);
            double *sp = solve(gpu, c, f, u, k, &ip, &rp);
            unsetenv("FDX_MG_GRAPH");
            CHECK(ip == ig && memcmp(sp, sg, (size_t)count * sizeof(double)) == 0,
                  "case %zu: graph and plain launches differ (%d vs %d cycles)", t, ig, ip);
            free(sp);
        }
        CHECK(diff <= 1e-8 * scale, "case %zu: solutions differ by %.3e (scale %.3e)", t, diff, scale);
        if (!(small && fuse_done++)) {
            /* One-pass residual+restriction (the default on CUDA) against
               residual then restriction: the same terms in the same order,
               so at most an FMA contraction apart (~1 ulp a residual); to
               the tolerance 1e-10 that leaves differences of ~1e-14 of the
               solution's scale: bounded by 1e-11 here, the same cycles. */
            int iu = 0;
            double ru = 0;
            setenv("FDX_MG_FUSE", "0", 1);
            double *su = solve(gpu, c, f, u, k, &iu, &ru);
            unsetenv("FDX_MG_FUSE");
            double d2 = 0;
            for (int64_t q = 0; q < count; q++) d2 = fmax(d2, fabs(su[q] - sg[q]));
            printf("case %zu: fused %d cycles, two-pass %d cycles, max diff %.3e (%s)\n", t, ig, iu, d2,
                   memcmp(su, sg, (size_t)count * sizeof(double)) ? "not bitwise" : "bitwise");
            CHECK(iu == ig && d2 <= 1e-11 * scale, "case %zu: fused vs two-pass: %d vs %d cycles, diff %.3e", t, ig,
                  iu, d2);
            free(su);
        }
        if (c->rank == 3 && c->bc == FDX_BC_DIRICHLET && c->sm == FDX_SMOOTH_RBGS && c->order != 4 &&
            !(small && gs2_done[c->coef != 0]++)) {
            /* The default (z-marching one-pass red-black with the
               prolongation folded in) against the z-marching sweep alone,
               the shared-ring one (gs2_kernel), the two colour kernels,
               and the residual norm in the next cycle's first sweep: one
               expression (gs_value, prolong_value), so bit for bit
               expected (the norm in the sweep sums in another order: the
               same cycles); bounded like the fused restriction in case
               the compiler contracts the inlined copies differently. */
            const char *variant[][2] = {
                {"FDX_MG_GS2", "0"}, {"FDX_MG_GS2", "1"}, {"FDX_MG_PSMOOTH", "1"}, {"FDX_MG_NORMFUSE", "1"}};
            for (int v = 0; v < 4; v++) {
                int i2 = 0;
                double r2 = 0;
                setenv(variant[v][0], variant[v][1], 1);
                double *s2 = solve(gpu, c, f, u, k, &i2, &r2);
                unsetenv(variant[v][0]);
                double d2 = 0;
                for (int64_t q = 0; q < count; q++) d2 = fmax(d2, fabs(s2[q] - sg[q]));
                printf("case %zu: %s=%s %d cycles, default %d cycles, max diff %.3e (%s)\n", t, variant[v][0],
                       variant[v][1], i2, ig, d2, memcmp(s2, sg, (size_t)count * sizeof(double)) ? "not bitwise" : "bitwise");
                CHECK(i2 == ig && d2 <= 1e-11 * scale, "case %zu: %s=%s vs the default red-black: %d vs %d cycles, diff %.3e",
                      t, variant[v][0], variant[v][1], i2, ig, d2);
                free(s2);
            }
        }
        free(k);
        free(sc);
        free(sg);
        free(f);
        free(u);
    }
    fdx_ctx_destroy(&cpu);
    fdx_ctx_destroy(&gpu);
    return fdx_test_finish("test_mg_gpu");
}
