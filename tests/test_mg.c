/* test_mg: the multigrid solver on manufactured solutions: convergence
   factor per cycle (h-independent), discretization order, every boundary
   kind, every smoother and cycle, CG preconditioned by MG, FMG to the
   discretization error, odd and even sizes, the transfers' adjointness,
   and the errors.  The residual of every answer is recomputed here with a
   reference operator, independent of the solver's kernels. */
#include "fdx_test.h"
#include "mg/fdx_mg_impl.h"

#include <string.h>

static fdx_ctx *ctx;

typedef struct problem {
    int rank;
    int64_t n[3];
    fdx_solver_bc bc[3];
    double h[3];
    fdx_array *f, *u;
    double *exact;
    int64_t count;
} problem;

/* Position of point i on axis a (the solver's conventions). */
static double pos(const problem *p, int a, int64_t i)
{
    return p->bc[a] == FDX_BC_NEUMANN ? ((double)i + 0.5) * p->h[a] : (double)i * p->h[a];
}

static double wave(fdx_solver_bc bc) { return bc == FDX_BC_PERIODIC ? 2 * M_PI : M_PI; }

/* u* = prod phi_a(x_a) (+ x y z when every axis is Dirichlet: harmonic, it
   puts non-zero values on the boundary); phi: sin(pi x) (Dirichlet),
   cos(pi x) (Neumann), sin(2 pi x) + cos(2 pi x) (periodic).  f = k^2 u*
   (k^2 = sum of the wave numbers squared) for the product part. */
static double phi(fdx_solver_bc bc, double x)
{
    return bc == FDX_BC_DIRICHLET ? sin(M_PI * x) : bc == FDX_BC_NEUMANN ? cos(M_PI * x)
                                                                          : sin(2 * M_PI * x) + cos(2 * M_PI * x);
}

/* seed 0: the initial guess is 0 inside. */
static void problem_make(problem *p, int rank, int64_t nx, int64_t ny, int64_t nz, const fdx_solver_bc *bc,
                         uint64_t seed)
{
    memset(p, 0, sizeof *p);
    p->rank = rank;
    int64_t n[3] = {nx, ny, rank == 3 ? nz : 1};
    int alld = 1;
    double k2 = 0;
    for (int a = 0; a < 3; a++) {
        p->n[a] = n[a];
        p->bc[a] = a < rank ? bc[a] : FDX_BC_DIRICHLET;
        p->h[a] = 1.0 / (double)(p->bc[a] == FDX_BC_DIRICHLET ? n[a] - 1 : n[a]);
        if (a < rank && bc[a] != FDX_BC_DIRICHLET) alld = 0;
        if (a < rank) k2 += wave(bc[a]) * wave(bc[a]);
    }
    p->count = n[0] * n[1] * n[2];
    CHECK_OK(fdx_array_create(ctx, FDX_FLOAT64, rank, n, FDX_ON_HOST, &p->f));
    CHECK_OK(fdx_array_create(ctx, FDX_FLOAT64, rank, n, FDX_ON_HOST, &p->u));
    p->exact = malloc((size_t)p->count * sizeof(double));
    double *f = fdx_array_host(p->f), *u = fdx_array_host(p->u);
    for (int64_t k = 0; k < n[2]; k++)
        for (int64_t j = 0; j < n[1]; j++)
            for (int64_t i = 0; i < n[0]; i++) {
                int64_t q = i + n[0] * (j + n[1] * k);
                double x = pos(p, 0, i), y = pos(p, 1, j), z = rank == 3 ? pos(p, 2, k) : 0;
                double prod = phi(p->bc[0], x) * phi(p->bc[1], y) * (rank == 3 ? phi(p->bc[2], z) : 1.0);
                double e = prod + (alld ? x * y * (rank == 3 ? z : 1.0) : 0.0);
                p->exact[q] = e;
                f[q] = k2 * prod;
                int boundary = 0;
                int64_t idx[3] = {i, j, k};
                for (int a = 0; a < rank; a++)
                    if (p->bc[a] == FDX_BC_DIRICHLET && (idx[a] == 0 || idx[a] == n[a] - 1)) boundary = 1;
                /* A random initial guess inside; the exact values on the boundary. */
                u[q] = boundary ? e : seed ? fdx_test_rand(&seed) : 0.0;
            }
}

static void problem_free(problem *p)
{
    fdx_array_destroy(&p->f);
    fdx_array_destroy(&p->u);
    free(p->exact);
}

/* Reference residual norm ||f - A u||_2 over the unknowns, with the solver's
   boundary conventions written out point by point. */
static double ref_residual(const problem *p, const double *u, const double *f)
{
    double sum = 0;
    const int64_t *n = p->n;
    for (int64_t k = 0; k < n[2]; k++)
        for (int64_t j = 0; j < n[1]; j++)
            for (int64_t i = 0; i < n[0]; i++) {
                int64_t idx[3] = {i, j, k}, q = i + n[0] * (j + n[1] * k);
                int boundary = 0;
                for (int a = 0; a < p->rank; a++)
                    if (p->bc[a] == FDX_BC_DIRICHLET && (idx[a] == 0 || idx[a] == n[a] - 1)) boundary = 1;
                if (boundary) continue;
                double au = 0;
                for (int a = 0; a < p->rank; a++) {
                    int64_t lo = idx[a] - 1, hi = idx[a] + 1;
                    if (p->bc[a] == FDX_BC_NEUMANN) {
                        if (lo < 0) lo = 0;
                        if (hi >= n[a]) hi = n[a] - 1;
                    } else if (p->bc[a] == FDX_BC_PERIODIC) {
                        lo = (lo + n[a]) % n[a];
                        hi = hi % n[a];
                    }
                    int64_t il[3] = {i, j, k}, ih[3] = {i, j, k};
                    il[a] = lo;
                    ih[a] = hi;
                    double ul = u[il[0] + n[0] * (il[1] + n[1] * il[2])], uh = u[ih[0] + n[0] * (ih[1] + n[1] * ih[2])];
                    au += (2 * u[q] - ul - uh) / (p->h[a] * p->h[a]);
                }
                double r = f[q] - au;
                sum += r * r;
            }
    return sqrt(sum);
}

/* Max error against u*, after removing the means when singular. */
static double max_error(const problem *p, const double *u, int singular)
{
    double mu = 0, me = 0;
    if (singular) {
        for (int64_t q = 0; q < p->count; q++) mu += u[q], me += p->exact[q];
        mu /= (double)p->count;
        me /= (double)p->count;
    }
    double e = 0;
    for (int64_t q = 0; q < p->count; q++) e = fmax(e, fabs((u[q] - mu) - (p->exact[q] - me)));
    return e;
}

typedef struct outcome {
    int iters, converged, levels;
    double factor;     /* geometric mean reduction per cycle */
    double worst;      /* largest reduction of one cycle after the first */
    double error;      /* max |u - u*| */
    double ref_rel;    /* reference residual / reference initial residual */
    double work;
} outcome;

typedef struct setup {
    fdx_solver_method method;
    fdx_solver_cycle cycle;
    fdx_solver_smoother sm;
    int pre, post, maxc;
    double tol;
    int order;
} setup;

static const setup DEFAULT = {FDX_SOLVER_MG, FDX_CYCLE_V, FDX_SMOOTH_RBGS, 2, 2, 40, 1e-10, 2};

static outcome run(problem *p, const setup *c)
{
    outcome o = {0};
    fdx_solver *s = NULL;
    CHECK_OK(fdx_solver_create(ctx, p->rank, p->n, &s));
    if (!s) return o;
    for (int a = 0; a < p->rank; a++) CHECK_OK(fdx_solver_set_bc(s, a, p->bc[a]));
    CHECK_OK(fdx_solver_set_method(s, c->method));
    CHECK_OK(fdx_solver_set_cycle(s, c->cycle));
    CHECK_OK(fdx_solver_set_smoother(s, c->sm, c->pre, c->post));
    CHECK_OK(fdx_solver_set_tolerance(s, c->tol));
    CHECK_OK(fdx_solver_set_max_cycles(s, c->maxc));
    CHECK_OK(fdx_solver_set_order(s, c->order));
    CHECK_OK(fdx_solver_setup(s));
    double *u = fdx_array_host(p->u), *f = fdx_array_host(p->f);
    const double r0 = ref_residual(p, u, f);
    CHECK_OK(fdx_solver_solve(s, p->f, p->u));
    o.iters = fdx_solver_iterations(s);
    o.converged = fdx_solver_converged(s);
    o.levels = fdx_solver_levels(s);
    o.work = fdx_solver_work_units(s);
    const double *hist = NULL;
    int nh = 0;
    CHECK_OK(fdx_solver_residual_history(s, &hist, &nh));
    CHECK(nh == o.iters + 1, "history has %d entries for %d cycles", nh, o.iters);
    o.factor = o.iters ? pow(hist[o.iters] / hist[0], 1.0 / o.iters) : 0;
    for (int i = 2; i < nh; i++) o.worst = fmax(o.worst, hist[i] / hist[i - 1]);
    o.error = max_error(p, u, s->singular);
    o.ref_rel = ref_residual(p, u, f) / r0;
    /* Singular problems: the solver removed f's rounding-level mean, the
       reference did not: compare loosely. */
    if (!s->singular && c->order == 2)
        CHECK(fabs(o.ref_rel - hist[o.iters]) <= 1e-3 * hist[o.iters] + 1e-14,
              "reference residual %.3e, solver's %.3e", o.ref_rel, hist[o.iters]);
    fdx_solver_destroy(&s);
    CHECK(s == NULL, "destroy left the pointer");
    return o;
}

static const fdx_solver_bc DDD[3] = {FDX_BC_DIRICHLET, FDX_BC_DIRICHLET, FDX_BC_DIRICHLET};

/* V(2,2) with red-black GS on the 7-point operator: factor <= 0.1 on odd
   and even sizes, about the same on each (h-independent). */
static void test_factor(void)
{
    const int64_t sizes[] = {33, 40, 65};
    double fac[3];
    for (int t = 0; t < 3; t++) {
        problem p;
        problem_make(&p, 3, sizes[t], sizes[t], sizes[t], DDD, 7 + t);
        outcome o = run(&p, &DEFAULT);
        fac[t] = o.factor;
        printf("3D %lld^3 V(2,2) rbgs: %d cycles, factor %.4f (worst %.4f), levels %d, error %.3e\n",
               (long long)sizes[t], o.iters, o.factor, o.worst, o.levels, o.error);
        /* Nested sizes: <= 0.1 every cycle.  The even 40^3 coarsens onto a
           non-nested grid: mean <= 0.12, every cycle <= 0.2. */
        const int nested = sizes[t] % 2 == 1;
        CHECK(o.converged && o.iters <= (nested ? 10 : 12), "%lld^3: %d cycles", (long long)sizes[t], o.iters);
        CHECK(o.factor <= (nested ? 0.1 : 0.12) && o.worst <= (nested ? 0.1 : 0.2), "%lld^3: factor %.4f, worst %.4f",
              (long long)sizes[t], o.factor, o.worst);
        problem_free(&p);
    }
    CHECK(fac[2] <= 1.5 * fac[0] + 0.01, "factor grows with n: %.4f (33^3) -> %.4f (65^3)", fac[0], fac[2]);
    const int64_t sizes2[] = {65, 100, 257};
    for (int t = 0; t < 3; t++) {
        problem p;
        problem_make(&p, 2, sizes2[t], sizes2[t], 1, DDD, 17 + t);
        outcome o = run(&p, &DEFAULT);
        printf("2D %lld^2 V(2,2) rbgs: %d cycles, factor %.4f (worst %.4f)\n", (long long)sizes2[t], o.iters,
               o.factor, o.worst);
        CHECK(o.converged && o.factor <= 0.1 && o.worst <= (sizes2[t] % 2 ? 0.1 : 0.12), "2D %lld^2: factor %.4f, worst %.4f",
              (long long)sizes2[t], o.factor, o.worst);
        problem_free(&p);
    }
}

/* Error ratio when h halves: ~4 for a second-order discretization. */
static void test_order(int rank, const fdx_solver_bc *bc, const int64_t *sizes, const char *what)
{
    double err[3], hh[3];
    setup c = DEFAULT;
    c.tol = 1e-12;
    for (int t = 0; t < 3; t++) {
        problem p;
        int64_t n = sizes[t];
        problem_make(&p, rank, n, n + (rank == 2 ? 1 : 0), n, bc, 3 + t);
        outcome o = run(&p, &c);
        err[t] = o.error;
        hh[t] = p.h[0];
        CHECK(o.converged, "%s n=%lld: not converged in %d cycles", what, (long long)n, o.iters);
        CHECK(o.iters <= 16, "%s n=%lld: %d cycles to 1e-12", what, (long long)n, o.iters);
        problem_free(&p);
    }
    for (int t = 1; t < 3; t++) {
        double want = (hh[t - 1] / hh[t]) * (hh[t - 1] / hh[t]), got = err[t - 1] / err[t];
        printf("%s: error %.3e -> %.3e, ratio %.3f (h^2 ratio %.3f)\n", what, err[t - 1], err[t], got, want);
        CHECK(got > 0.85 * want && got < 1.15 * want, "%s: error ratio %.3f, expected %.3f", what, got, want);
    }
}

static void test_orders(void)
{
    const fdx_solver_bc NNN[3] = {FDX_BC_NEUMANN, FDX_BC_NEUMANN, FDX_BC_NEUMANN};
    const fdx_solver_bc PPP[3] = {FDX_BC_PERIODIC, FDX_BC_PERIODIC, FDX_BC_PERIODIC};
    const fdx_solver_bc DPN[3] = {FDX_BC_DIRICHLET, FDX_BC_PERIODIC, FDX_BC_NEUMANN};
    test_order(3, DDD, (const int64_t[]){17, 33, 65}, "3D Dirichlet odd");
    test_order(3, DDD, (const int64_t[]){12, 24, 48}, "3D Dirichlet even");
    test_order(2, DDD, (const int64_t[]){33, 65, 129}, "2D Dirichlet");
    test_order(3, NNN, (const int64_t[]){16, 32, 64}, "3D Neumann even");
    test_order(2, NNN, (const int64_t[]){25, 51, 103}, "2D Neumann odd");
    test_order(3, PPP, (const int64_t[]){16, 32, 64}, "3D periodic even");
    test_order(2, PPP, (const int64_t[]){21, 43, 87}, "2D periodic odd");
    test_order(3, DPN, (const int64_t[]){17, 33, 65}, "3D mixed D/P/N");
}

/* Every smoother with every cycle, MG and CG-MG: converges, and the answer
   is the same discrete solution. */
static void test_combinations(void)
{
    const fdx_solver_smoother sms[] = {FDX_SMOOTH_JACOBI, FDX_SMOOTH_CHEBY, FDX_SMOOTH_RBGS};
    const fdx_solver_cycle cys[] = {FDX_CYCLE_V, FDX_CYCLE_W, FDX_CYCLE_F, FDX_CYCLE_FMG};
    for (int rank = 2; rank <= 3; rank++)
        for (int m = 0; m < 2; m++)
            for (int a = 0; a < 3; a++)
                for (int b = 0; b < 4; b++) {
                    problem p;
                    int64_t n = rank == 3 ? 31 : 90;
                    problem_make(&p, rank, n, n - 3, n + 2, DDD, 11);
                    setup c = DEFAULT;
                    c.method = m ? FDX_SOLVER_CG_MG : FDX_SOLVER_MG;
                    c.sm = sms[a];
                    c.cycle = cys[b];
                    outcome o = run(&p, &c);
                    printf("%dD %s %s-cycle %s: %d cycles, factor %.4f, error %.3e, work %.1f\n", rank,
                           m ? "cg" : "mg", fdx_solver_cycle_name(c.cycle), fdx_solver_smoother_name(c.sm), o.iters,
                           o.factor, o.error, o.work);
                    CHECK(o.converged && o.iters <= (a == 2 ? 12 : 20), "%dD %s %s %s: %d cycles, factor %.3f", rank,
                          m ? "cg" : "mg", fdx_solver_cycle_name(c.cycle), fdx_solver_smoother_name(c.sm), o.iters,
                          o.factor);
                    CHECK(o.error < 3e-3, "%dD: error %.3e", rank, o.error);
                    problem_free(&p);
                }
}

/* FMG(2,2): one cycle reaches the discretization error (within 2x) in at
   most 10 work units. */
static void test_fmg(void)
{
    const int64_t sizes[] = {33, 65, 40};
    for (int t = 0; t < 3; t++) {
        problem p;
        problem_make(&p, 3, sizes[t], sizes[t], sizes[t], DDD, 5);
        setup c = DEFAULT;
        c.tol = 1e-13;
        outcome conv = run(&p, &c);
        problem_free(&p);
        problem_make(&p, 3, sizes[t], sizes[t], sizes[t], DDD, 0);
        c.cycle = FDX_CYCLE_FMG;
        c.pre = 2;
        c.post = 2;
        c.maxc = 1;
        outcome o = run(&p, &c);
        printf("FMG %lld^3: error %.3e (discretization %.3e, ratio %.3f), work %.2f units\n", (long long)sizes[t],
               o.error, conv.error, o.error / conv.error, o.work);
        /* Nested sizes (2^k+1): within 2x of the discretization error.  The
           non-nested 40^3 is ~9x (documented in docs/notes/mg.md): bounded
           here so that it cannot get worse unnoticed. */
        const double bound = sizes[t] == 40 ? 12.0 : 2.0;
        CHECK(o.error <= bound * conv.error, "FMG %lld^3: error %.3e vs discretization %.3e", (long long)sizes[t],
              o.error, conv.error);
        CHECK(o.work <= 10, "FMG %lld^3: %.2f work units", (long long)sizes[t], o.work);
        problem_free(&p);
    }
}

/* R = prod(h/H) P^T on every pair of levels, for every boundary kind. */
static void test_transfers(void)
{
    const fdx_solver_bc kinds[3] = {FDX_BC_DIRICHLET, FDX_BC_NEUMANN, FDX_BC_PERIODIC};
    const int64_t shapes[][3] = {{33, 20, 17}, {40, 41, 9}, {7, 64, 23}};
    uint64_t seed = 99;
    for (int t = 0; t < 3; t++) {
        fdx_solver *s = NULL;
        CHECK_OK(fdx_solver_create(ctx, 3, shapes[t], &s));
        for (int a = 0; a < 3; a++) CHECK_OK(fdx_solver_set_bc(s, a, kinds[(a + t) % 3]));
        CHECK_OK(fdx_solver_setup(s));
        for (int l = 0; l + 1 < s->nlev; l++) {
            mg_level *F = &s->lev[l], *C = &s->lev[l + 1];
            for (int64_t q = 0; q < F->count; q++) F->t[q] = fdx_test_rand(&seed);
            mg_zero(C, C->u); /* Dirichlet boundaries stay 0: corrections vanish there */
            for (int64_t k = C->lo[2]; k < C->hi[2]; k++)
                for (int64_t j = C->lo[1]; j < C->hi[1]; j++)
                    for (int64_t i = C->lo[0]; i < C->hi[0]; i++) C->u[i + j * C->sy + k * C->sz] = fdx_test_rand(&seed);
            for (int64_t q = 0; q < C->count; q++) C->f[q] = 1e300; /* poison */
            mg_ghosts(s, C, C->u);
            mg_zero(F, F->f);
            mg_prolong(F, C, C->u, F->f, 1);
            mg_restrict(s, F, C, F->t, C->f);
            double scale = 1;
            for (int a = 0; a < 3; a++) scale *= F->h[a] / C->h[a];
            double lhs = scale * mg_dot(F, F->t, F->f), rhs = mg_dot(C, C->f, C->u);
            CHECK(fabs(lhs - rhs) <= 1e-10 * fabs(rhs) + 1e-12, "shape %d level %d: <Pb,a> h/H %.12g, <b,Ra> %.12g",
                  t, l, lhs, rhs);
            /* Linear functions are interpolated exactly away from Dirichlet
               boundaries (whose zero the correction must take): P 1 = 1 on
               every fine point whose coarse neighbours are all unknowns or
               ghosts of other kinds. */
            for (int64_t q = 0; q < C->count; q++) C->u[q] = 1;
            mg_ghosts(s, C, C->u);
            mg_prolong(F, C, C->u, F->f, 0);
            int bad = 0;
            for (int64_t k = F->lo[2]; k < F->hi[2]; k++)
                for (int64_t j = F->lo[1]; j < F->hi[1]; j++)
                    for (int64_t i = F->lo[0]; i < F->hi[0]; i++)
                        if (fabs(F->f[i + j * F->sy + k * F->sz] - 1) > 1e-14) bad++;
            CHECK(bad == 0, "shape %d level %d: P 1 != 1 at %d points", t, l, bad);
        }
        fdx_solver_destroy(&s);
    }
}

static void test_errors(void)
{
    fdx_solver *s = NULL;
    CHECK_FAILS(fdx_solver_create(ctx, 4, (const int64_t[]){9, 9, 9, 9}, &s), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_solver_create(ctx, 2, (const int64_t[]){9, 2}, &s), FDX_ERR_INVALID);
    CHECK_OK(fdx_solver_create(ctx, 2, (const int64_t[]){9, 9}, &s));
    CHECK_FAILS(fdx_solver_set_tolerance(s, 0), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_solver_set_tolerance(s, NAN), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_solver_set_smoother(s, FDX_SMOOTH_RBGS, 0, 0), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_solver_set_smoother(s, (fdx_solver_smoother)7, 1, 1), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_solver_set_max_cycles(s, 0), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_solver_set_bc(s, 2, FDX_BC_NEUMANN), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_solver_set_spacing(s, (const double[]){0.1, -1}), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_solver_set_coarse(s, FDX_COARSE_SWEEPS, 0), FDX_ERR_INVALID);
    fdx_solver_cycle cy;
    CHECK_FAILS(fdx_solver_cycle_parse("x", &cy), FDX_ERR_INVALID);
    CHECK_OK(fdx_solver_cycle_parse("fmg", &cy));
    CHECK(cy == FDX_CYCLE_FMG, "fmg parsed as %d", (int)cy);
    fdx_array *a = NULL, *b = NULL, *i32 = NULL;
    CHECK_OK(fdx_array_create(ctx, FDX_FLOAT64, 2, (const int64_t[]){9, 8}, FDX_ON_HOST, &a));
    CHECK_OK(fdx_array_create(ctx, FDX_FLOAT64, 2, (const int64_t[]){9, 9}, FDX_ON_HOST, &b));
    CHECK_OK(fdx_array_create(ctx, FDX_INT32, 2, (const int64_t[]){9, 9}, FDX_ON_HOST, &i32));
    CHECK_FAILS(fdx_solver_solve(s, a, b), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_solver_solve(s, i32, b), FDX_ERR_INVALID);
    /* Neumann with f = 1: incompatible. */
    CHECK_OK(fdx_solver_set_bc(s, -1, FDX_BC_NEUMANN));
    CHECK_OK(fdx_array_fill_host(b, 0));
    fdx_array *f1 = NULL;
    CHECK_OK(fdx_array_create(ctx, FDX_FLOAT64, 2, (const int64_t[]){9, 9}, FDX_ON_HOST, &f1));
    CHECK_OK(fdx_array_fill_host(f1, 1));
    CHECK_FAILS(fdx_solver_solve(s, f1, b), FDX_ERR_INVALID);
    /* Zero right-hand side and zero guess: converged at once. */
    CHECK_OK(fdx_array_fill_host(f1, 0));
    CHECK_OK(fdx_solver_solve(s, f1, b));
    CHECK(fdx_solver_converged(s) && fdx_solver_iterations(s) == 0, "zero problem: %d cycles",
          fdx_solver_iterations(s));
    fdx_array_destroy(&a);
    fdx_array_destroy(&b);
    fdx_array_destroy(&i32);
    fdx_array_destroy(&f1);
    fdx_solver_destroy(&s);
    fdx_solver_destroy(&s); /* twice: harmless */
}

/* Shapes that coarsen unevenly: long thin, semi-coarsened axes, tiny. */
static void test_shapes(void)
{
    const int64_t shapes[][3] = {{200, 5, 6}, {3, 3, 3}, {4, 70, 4}, {129, 17, 9}, {11, 13, 15}};
    for (int t = 0; t < 5; t++) {
        problem p;
        problem_make(&p, 3, shapes[t][0], shapes[t][1], shapes[t][2], DDD, 21);
        outcome o = run(&p, &DEFAULT);
        printf("shape %lldx%lldx%lld: %d levels, %d cycles, factor %.4f\n", (long long)shapes[t][0],
               (long long)shapes[t][1], (long long)shapes[t][2], o.levels, o.iters, o.factor);
        CHECK(o.converged && o.iters <= 12, "shape %d: %d cycles, factor %.4f", t, o.iters, o.factor);
        problem_free(&p);
    }
}

/* Order 4 (defect correction): the error falls 16x when h halves, the
   fourth-order residual reaches the tolerance, and the answer beats the
   second-order one by far. */
static void test_order4(void)
{
    const int64_t sizes3[] = {17, 33, 65}, sizes2[] = {33, 65, 129};
    for (int rank = 2; rank <= 3; rank++) {
        double err[3];
        for (int t = 0; t < 3; t++) {
            const int64_t n = rank == 3 ? sizes3[t] : sizes2[t];
            problem p;
            problem_make(&p, rank, n, n, n, DDD, 0);
            setup c = DEFAULT;
            c.order = 4;
            c.tol = 1e-12;
            c.maxc = 60;
            outcome o = run(&p, &c);
            err[t] = o.error;
            printf("order 4 %dD n=%lld: %d cycles, factor %.3f, error %.3e\n", rank, (long long)n, o.iters, o.factor,
                   o.error);
            CHECK(o.converged && o.iters <= 40, "order 4 %dD n=%lld: %d cycles", rank, (long long)n, o.iters);
            problem_free(&p);
        }
        for (int t = 1; t < 3; t++) {
            const double r = err[t - 1] / err[t];
            printf("order 4 %dD: error ratio %.2f\n", rank, r);
            CHECK(r > 12 && r < 24, "order 4 %dD: error ratio %.2f, expected ~16 (18-22 seen: pre-asymptotic)", rank, r);
        }
    }
    fdx_solver *s = NULL;
    CHECK_OK(fdx_solver_create(ctx, 2, (const int64_t[]){9, 9}, &s));
    CHECK_FAILS(fdx_solver_set_order(s, 3), FDX_ERR_INVALID);
    CHECK_OK(fdx_solver_set_order(s, 4));
    CHECK_OK(fdx_solver_set_bc(s, 1, FDX_BC_PERIODIC));
    CHECK_FAILS(fdx_solver_setup(s), FDX_ERR_UNSUPPORTED);
    fdx_solver_destroy(&s);
}

/* The one-pass red-black sweep gives the two-pass result bit for bit, with
   and without threads splitting the planes unevenly (odd plane counts). */
static void test_fused_gs(void)
{
    const int64_t shapes[][3] = {{33, 20, 17}, {12, 9, 40}};
    for (int t = 0; t < 2; t++) {
        double *sol[2] = {NULL, NULL};
        for (int fused = 0; fused < 2; fused++) {
            problem p;
            problem_make(&p, 3, shapes[t][0], shapes[t][1], shapes[t][2], DDD, 31);
            fdx_solver *s = NULL;
            CHECK_OK(fdx_solver_create(ctx, 3, p.n, &s));
            CHECK_OK(fdx_solver_set_max_cycles(s, 3));
            CHECK_OK(fdx_solver_setup(s));
            CHECK(s->fused_gs == 1, "3D Dirichlet: the fused sweep is not chosen");
            s->fused_gs = fused;
            CHECK_OK(fdx_solver_solve(s, p.f, p.u));
            sol[fused] = malloc((size_t)p.count * sizeof(double));
            memcpy(sol[fused], fdx_array_host(p.u), (size_t)p.count * sizeof(double));
            CHECK(fdx_solver_iterations(s) == 3, "3 cycles expected");
            fdx_solver_destroy(&s);
            if (fused) CHECK(memcmp(sol[0], sol[1], (size_t)p.count * sizeof(double)) == 0,
                             "shape %d: fused and two-pass red-black differ", t);
            problem_free(&p);
        }
        free(sol[0]);
        free(sol[1]);
    }
}

int main(int argc, char **argv)
{
    ctx = fdx_test_ctx("cpu");
    if (!ctx) return fdx_test_skip("test_mg", "no cpu context");
    const char *only = argc > 1 ? argv[1] : "";
    if (!*only || !strcmp(only, "transfers")) test_transfers();
    if (!*only || !strcmp(only, "errors")) test_errors();
    if (!*only || !strcmp(only, "fused")) test_fused_gs();
    if (!*only || !strcmp(only, "order4")) test_order4();
    if (!*only || !strcmp(only, "factor")) test_factor();
    if (!*only || !strcmp(only, "order")) test_orders();
    if (!*only || !strcmp(only, "shapes")) test_shapes();
    if (!*only || !strcmp(only, "combos")) test_combinations();
    if (!*only || !strcmp(only, "fmg")) test_fmg();
    fdx_ctx_destroy(&ctx);
    return fdx_test_finish("test_mg");
}
