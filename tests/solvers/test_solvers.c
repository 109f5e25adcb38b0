/* test_solvers: the physics of the heat, wave and Poisson solvers on the CPU:
   conservation, the analytic decay of a sine mode, the analytic field of a
   point source in 2D and 3D, conserved (and absorbed) wave energy, Poisson's
   order of convergence, and bit-identical restart from a checkpoint. */
#include "fdx_test.h"
#include "sim_make.h"

#include <string.h>
#include <unistd.h>

static fdx_ctx *ctx;

static void run_steps(fdx_sim *s, int n)
{
    for (int i = 0; i < n; i++) CHECK_OK(fdx_sim_step(s));
}

static void heat_conserves(void)
{
    const char *kv[] = {"size", "40x30", "precision", "double", "init", "random", "boundary", "insulated", NULL};
    fdx_sim *s = sim_make(ctx, FDX_SIM_HEAT, kv);
    if (!s) return;
    fdx_sim_diag d0, d1;
    CHECK_OK(fdx_sim_diagnose(s, &d0));
    run_steps(s, 300);
    CHECK_OK(fdx_sim_diagnose(s, &d1));
    double rel = fabs(d1.integral - d0.integral) / d0.integral;
    CHECK(rel < 1e-12, "insulated heat: integral %.15g -> %.15g (relative %.3g)", d0.integral, d1.integral, rel);
    CHECK(d1.max_abs < d0.max_abs, "heat must smooth: max %g -> %g", d0.max_abs, d1.max_abs);
    fdx_sim_destroy(&s);
}

/* sin(pi x) sin(pi y) with fixed walls: each step multiplies it by
   1 - kappa dt lambda_h, lambda_h = 2 (4/h^2) sin^2(pi h / 2), and over time
   it decays like exp(-2 pi^2 kappa t). */
static void heat_sine_decay(void)
{
    const char *kv[] = {"size", "65x65", "precision", "double", "init", "sine", "boundary", "fixed", "kappa", "0.5", NULL};
    fdx_sim *s = sim_make(ctx, FDX_SIM_HEAT, kv);
    if (!s) return;
    int n = 400;
    run_steps(s, n);
    double *u = malloc(65 * 65 * sizeof(double));
    CHECK_OK(fdx_sim_get_field(s, u));
    double h = 1.0 / 64, dt = fdx_sim_dt(s), kappa = 0.5;
    double lam = 2 * 4 / (h * h) * pow(sin(M_PI * h / 2), 2);
    double discrete = pow(1 - kappa * dt * lam, n), exact = exp(-2 * M_PI * M_PI * kappa * n * dt);
    double centre = u[32 + 65 * 32];
    CHECK(fabs(centre - discrete) < 1e-12, "sine mode: %.15g, discrete decay %.15g", centre, discrete);
    CHECK(fabs(centre / exact - 1) < 2e-3, "sine mode: %.9g, analytic %.9g", centre, exact);
    free(u);
    fdx_sim_destroy(&s);
}

static double ricker(double t, double f0, double t0)
{
    double a = M_PI * f0 * (t - t0);
    return (1 - 2 * a * a) * exp(-a * a);
}

/* 2D: u = 1/(2 pi) int_0^acosh(t/r) f(t - r cosh s) ds for t > r (c = 1);
   3D: u = f(t - r) / (4 pi r). */
static double analytic(int rank, double r, double t, double f0, double t0)
{
    if (rank == 3) return ricker(t - r, f0, t0) / (4 * M_PI * r);
    if (t <= r) return 0;
    double smax = acosh(t / r), sum = 0;
    int m = 4000;
    for (int i = 0; i < m; i++) {
        double sm = (i + 0.5) * smax / m;
        sum += ricker(t - r * cosh(sm), f0, t0);
    }
    return sum * smax / m / (2 * M_PI);
}

static void wave_point_source(int rank)
{
    /* Receiver 0.15 from the source; the window ends before the walls echo. */
    int n = rank == 2 ? 301 : 97;
    char size[64], src[64], rec[64];
    int c = n / 2, off = (int)lround(0.15 * (n - 1));
    snprintf(size, sizeof size, rank == 2 ? "%dx%d" : "%dx%dx%d", n, n, n);
    snprintf(src, sizeof src, rank == 2 ? "%d,%d" : "%d,%d,%d", c, c, c);
    snprintf(rec, sizeof rec, rank == 2 ? "%d,%d" : "%d,%d,%d", c + off, c, c);
    double f0 = rank == 2 ? 25 : 8, t0 = 1.2 / f0;
    char f0s[32];
    snprintf(f0s, sizeof f0s, "%g", f0);
    int steps_guess = 0;
    const char *kv[] = {"size", size, "precision", "double", "order", "8", "sponge", "0", "f0", f0s, "source", src,
                        "receivers", rec, "steps", rank == 2 ? "400" : "260", NULL};
    fdx_sim *s = sim_make(ctx, FDX_SIM_WAVE, kv);
    if (!s) return;
    double dt = fdx_sim_dt(s), r = off / (double)(n - 1), tend = r + 2 * t0 + 0.02;
    steps_guess = (int)(tend / dt);
    CHECK(steps_guess < (rank == 2 ? 400 : 260), "window needs %d steps", steps_guess);
    run_steps(s, steps_guess);
    int nrec;
    int64_t nst;
    const double *tr;
    CHECK_OK(fdx_sim_receivers(s, &nrec, &nst, &tr));
    double num = 0, den = 0, peak = 0;
    for (int64_t k = 0; tr && k < nst; k++) {
        double t = (k + 1) * dt, a = analytic(rank, r, t, f0, t0);
        num += (tr[k] - a) * (tr[k] - a);
        den += a * a;
        peak = fmax(peak, fabs(a));
    }
    double rel = sqrt(num / den);
    printf("wave %dD point source: relative L2 error %.4f over %lld steps (peak %.4g)\n", rank, rel, (long long)nst, peak);
    CHECK(rel < 0.05, "wave %dD: relative L2 error %.4f against the analytic point source", rank, rel);
    fdx_sim_destroy(&s);
}

static void wave_energy(void)
{
    const char *kv[] = {"size", "101x101", "precision", "double", "order", "4", "sponge", "0", "amplitude", "0", NULL};
    fdx_sim *s = sim_make(ctx, FDX_SIM_WAVE, kv);
    if (!s) return;
    double *u = malloc(101 * 101 * sizeof(double));
    for (int j = 0; j < 101; j++)
        for (int i = 0; i < 101; i++) {
            double x = i / 100.0 - 0.5, y = j / 100.0 - 0.5;
            u[i + 101 * j] = exp(-(x * x + y * y) / (2 * 0.05 * 0.05));
        }
    CHECK_OK(fdx_sim_set_field(s, u, u));
    fdx_sim_diag d0, d;
    CHECK_OK(fdx_sim_diagnose(s, &d0));
    double lo = d0.energy, hi = d0.energy;
    for (int k = 0; k < 10; k++) {
        run_steps(s, 60);
        CHECK_OK(fdx_sim_diagnose(s, &d));
        lo = fmin(lo, d.energy);
        hi = fmax(hi, d.energy);
    }
    CHECK(d0.energy > 0 && (hi - lo) / d0.energy < 1e-9, "wave energy drifts: %.12g .. %.12g", lo, hi);
    fdx_sim_destroy(&s);

    /* With the sponge, the pulse leaves the domain. */
    const char *kv2[] = {"size", "101x101", "precision", "double", "order", "4", "sponge", "20", "amplitude", "0", NULL};
    s = sim_make(ctx, FDX_SIM_WAVE, kv2);
    if (!s) return;
    CHECK_OK(fdx_sim_set_field(s, u, u));
    CHECK_OK(fdx_sim_diagnose(s, &d0));
    run_steps(s, 1200);
    CHECK_OK(fdx_sim_diagnose(s, &d));
    CHECK(d.energy < 0.02 * d0.energy, "sponge keeps %.3g of the energy", d.energy / d0.energy);
    free(u);
    fdx_sim_destroy(&s);
}

static double poisson_error(int n, int order)
{
    char size[32], ord[8];
    snprintf(size, sizeof size, "%dx%d", n, n);
    snprintf(ord, sizeof ord, "%d", order);
    const char *kv[] = {"size", size, "order", ord, "tol", "1e-14", "steps", "400000", NULL};
    fdx_sim *s = sim_make(ctx, FDX_SIM_POISSON, kv);
    if (!s) return NAN;
    fdx_sim_result res;
    CHECK_OK(fdx_sim_run(s, NULL, &res));
    double *u = malloc((size_t)n * n * sizeof(double)), err = 0, h = 1.0 / (n - 1);
    CHECK_OK(fdx_sim_get_field(s, u));
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) err = fmax(err, fabs(u[i + n * j] - sin(M_PI * i * h) * sin(M_PI * j * h)));
    free(u);
    fdx_sim_destroy(&s);
    return err;
}

static void poisson_order(int order)
{
    double e1 = poisson_error(17, order), e2 = poisson_error(33, order);
    double p = log2(e1 / e2);
    printf("poisson order %d: errors %.3g, %.3g, observed order %.2f\n", order, e1, e2, p);
    CHECK(p > order - 0.3, "Poisson order %d converges at order %.2f", order, p);
}

/* Run to N; run to N/2 with a checkpoint and resume: the fields match bit
   for bit.  absorb (NULL: the default) with `width` cells; a PML run must
   have put non-zero memory in the checkpoint. */
static void restart_bit_identical(fdx_sim_kind kind, const char *size, const char *absorb, const char *width)
{
    char dir[128];
    snprintf(dir, sizeof dir, "/tmp/fdx_test_restart.%ld", (long)getpid());
    const char *N = absorb ? "160" : "60", *half = absorb ? "80" : "30";
    const char *kv[] = {"size", size, "steps", N, "order", "4", "progress", "off", absorb ? "absorb" : NULL, absorb, "sponge", width, NULL};
    fdx_sim *a = sim_make(ctx, kind, kv);
    const char *kv2[] = {"size", size, "steps", half, "order", "4", "output", dir, "checkpoint-every", half, "progress", "off",
                         absorb ? "absorb" : NULL, absorb, "sponge", width, NULL};
    fdx_sim *b = sim_make(ctx, kind, kv2);
    if (!a || !b) return;
    fdx_sim_result r;
    CHECK_OK(fdx_sim_run(a, NULL, &r));
    CHECK_OK(fdx_sim_run(b, NULL, &r));
    fdx_sim_destroy(&b);
    fdx_sim_config *c = NULL;
    CHECK_OK(fdx_sim_config_create(kind, &c));
    CHECK_OK(fdx_sim_config_from_checkpoint(c, dir));
    CHECK_OK(fdx_sim_config_set(c, "steps", N));
    CHECK_OK(fdx_sim_create(ctx, c, &b));
    if (absorb && strcmp(absorb, "pml") == 0) {
        char path[200];
        snprintf(path, sizeof path, "%s/checkpoint.fdx", dir);
        fdx_ckpt *ck = NULL;
        CHECK_OK(fdx_ckpt_read(path, &ck));
        const unsigned char *m = ck ? fdx_ckpt_get_field(ck, "pml0") : NULL;
        size_t nz = 0, bytes = sizeof(float);
        for (int d = 0; d < fdx_sim_rank(a); d++) bytes *= (size_t)fdx_sim_shape(a)[d];
        for (size_t i = 0; m && i < bytes; i++) nz += m[i] != 0;
        CHECK(m && nz > 0, "the checkpoint holds no PML memory (pml0 %s)", m ? "all zero" : "missing");
        fdx_ckpt_free(&ck);
    }
    fdx_sim_config_destroy(&c);
    if (!b) return;
    CHECK_OK(fdx_sim_run(b, NULL, &r));
    CHECK(r.steps == atoll(N) && r.steps_this_run == atoll(half), "restart ran %lld steps, %lld in this run", (long long)r.steps,
          (long long)r.steps_this_run);
    int64_t cnt = 1;
    for (int d = 0; d < fdx_sim_rank(a); d++) cnt *= fdx_sim_shape(a)[d];
    double *ua = malloc((size_t)cnt * sizeof(double)), *ub = malloc((size_t)cnt * sizeof(double));
    CHECK_OK(fdx_sim_get_field(a, ua));
    CHECK_OK(fdx_sim_get_field(b, ub));
    CHECK(memcmp(ua, ub, (size_t)cnt * sizeof(double)) == 0, "%s: restarted field differs from the uninterrupted run",
          fdx_sim_kind_name(kind));
    free(ua);
    free(ub);
    fdx_sim_destroy(&a);
    fdx_sim_destroy(&b);
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
}

int main(void)
{
    ctx = fdx_test_ctx("cpu");
    if (!ctx) return fdx_test_skip("test_solvers", "no CPU context");
    heat_conserves();
    heat_sine_decay();
    wave_energy();
    poisson_order(2);
    poisson_order(4);
    restart_bit_identical(FDX_SIM_HEAT, "48x40", NULL, NULL);
    restart_bit_identical(FDX_SIM_WAVE, "64x56", NULL, NULL);
    restart_bit_identical(FDX_SIM_WAVE, "48x40", "pml", "16");
    restart_bit_identical(FDX_SIM_WAVE, "36x32x30", "pml", "12");
    wave_point_source(2);
    wave_point_source(3);
    fdx_ctx_destroy(&ctx);
    return fdx_test_finish("test_solvers");
}
