/* The stencil engine on the CPU backend: Fornberg's weights against known
   values, every order, rank, precision and update against the reference loop
   on random inputs and odd shapes, the convergence order on refinement, the
   tuning cache, and argument errors. */
#include "test_stencil_check.h"

static fdx_ctx *ctx;

static void test_weights(void)
{
    double w[25];
    static const double d2o2[] = {1, -2, 1}, d2o4[] = {-1.0 / 12, 4.0 / 3, -2.5, 4.0 / 3, -1.0 / 12};
    static const double d1o2[] = {-0.5, 0, 0.5}, d1o4[] = {1.0 / 12, -2.0 / 3, 0, 2.0 / 3, -1.0 / 12};
    CHECK_OK(fdx_fd_weights(2, 2, w));
    for (int i = 0; i < 3; i++) CHECK(fabs(w[i] - d2o2[i]) < 1e-15, "d2 order 2 w[%d] = %.17g", i, w[i]);
    CHECK_OK(fdx_fd_weights(2, 4, w));
    for (int i = 0; i < 5; i++) CHECK(fabs(w[i] - d2o4[i]) < 1e-14, "d2 order 4 w[%d] = %.17g", i, w[i]);
    CHECK_OK(fdx_fd_weights(1, 2, w));
    for (int i = 0; i < 3; i++) CHECK(fabs(w[i] - d1o2[i]) < 1e-15, "d1 order 2 w[%d] = %.17g", i, w[i]);
    CHECK_OK(fdx_fd_weights(1, 4, w));
    for (int i = 0; i < 5; i++) CHECK(fabs(w[i] - d1o4[i]) < 1e-14, "d1 order 4 w[%d] = %.17g", i, w[i]);
    /* One-sided first derivative on 0, 1, 2: -3/2, 2, -1/2. */
    double x[3] = {0, 1, 2};
    CHECK_OK(fdx_fornberg_weights(1, 0.0, 3, x, w));
    CHECK(fabs(w[0] + 1.5) < 1e-15 && fabs(w[1] - 2) < 1e-15 && fabs(w[2] + 0.5) < 1e-15, "one-sided %g %g %g", w[0],
          w[1], w[2]);
    /* Every order: the weights differentiate polynomials up to degree order+1 exactly. */
    for (int order = 2; order <= FDX_STENCIL_MAX_ORDER; order += 2) {
        int r = order / 2;
        for (int m = 1; m <= 2; m++) {
            CHECK_OK(fdx_fd_weights(m, order, w));
            for (int deg = 0; deg <= order + (m == 2 ? 1 : 0); deg++) {
                double s = 0, exact = deg == m ? (m == 1 ? 1.0 : 2.0) : 0.0;
                for (int o = -r; o <= r; o++) s += w[r + o] * pow(o, deg);
                CHECK(fabs(s - exact) < 1e-8 * pow(r, deg), "order %d d%d on x^%d: %.3g, want %g", order, m, deg, s,
                      exact);
            }
        }
    }
    CHECK_FAILS(fdx_fd_weights(3, 4, w), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_fd_weights(2, 5, w), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_fd_weights(2, 14, w), FDX_ERR_INVALID);
    double same[2] = {1, 1};
    CHECK_FAILS(fdx_fornberg_weights(1, 0.0, 2, same, w), FDX_ERR_INVALID);
}

/* The smallest legal shape and an odd, unequal one. */
static void reference_case(const fdx_stencil_desc *d, fdx_dtype dt, void *seed)
{
    int r = d->order / 2;
    int64_t small[3] = {2 * r + 1, 2 * r + 2, 2 * r + 3};
    int64_t odd[3] = {d->rank == 1 ? 1001 : 37 + r, 23 + r, 17 + 2 * r};
    sc_case(ctx, d, dt, small, seed, NULL, NULL);
    sc_case(ctx, d, dt, odd, seed, NULL, NULL);
}

static void test_reference(void)
{
    uint64_t seed = 0x57e9c11;
    sc_each_desc(reference_case, &seed);
    /* The three updates with and without a coefficient, on one stencil. */
    for (int update = 0; update < 3; update++)
        for (int coef = 0; coef < 2; coef++) {
            fdx_stencil_desc d;
            sc_desc(&d, 3, 4, update, coef, 1);
            int64_t shape[3] = {19, 13, 11};
            sc_case(ctx, &d, FDX_FLOAT64, shape, &seed, NULL, NULL);
        }
}

/* Max error of the m-th derivative of sin(3x) on [0, 1] with n intervals. */
static double derivative_error(int m, int order, int n)
{
    int64_t shape[1] = {n + 1};
    double h = 1.0 / n, err = 0;
    fdx_stencil_desc d;
    fdx_stencil_desc_laplacian(&d, 1, order, &h);
    d.d2[0] = m == 2, d.d1[0] = m == 1;
    fdx_stencil *s = NULL;
    fdx_array *u = NULL, *f = NULL;
    fdx_stencil_create(ctx, &d, FDX_FLOAT64, &s);
    fdx_array_create(ctx, FDX_FLOAT64, 1, shape, FDX_ON_HOST, &u);
    fdx_array_create(ctx, FDX_FLOAT64, 1, shape, FDX_ON_HOST, &f);
    if (!s || !u || !f) {
        err = NAN;
        goto done;
    }
    double *hu = fdx_array_host(u), *hf = fdx_array_host(f);
    for (int i = 0; i <= n; i++) hu[i] = sin(3 * i * h);
    if (fdx_stencil_apply(s, f, u, NULL, NULL, NULL) != FDX_OK) {
        err = NAN;
        goto done;
    }
    for (int i = order / 2; i <= n - order / 2; i++) {
        double exact = m == 1 ? 3 * cos(3 * i * h) : -9 * sin(3 * i * h);
        err = fmax(err, fabs(hf[i] - exact));
    }
done:
    fdx_stencil_destroy(&s);
    fdx_array_destroy(&u);
    fdx_array_destroy(&f);
    return err;
}

/* Halving h divides the error by about 2^order. */
static void test_convergence(void)
{
    for (int m = 1; m <= 2; m++)
        for (int order = 2; order <= 8; order += 2) {
            int n = order <= 4 ? 32 : m == 1 ? 24 : 16; /* d2 at 48 points is rounding-limited */
            double e1 = derivative_error(m, order, n), e2 = derivative_error(m, order, 2 * n);
            double ratio = e1 / e2, want = pow(2, order);
            printf("convergence d%d order %2d: errors %.3g %.3g, ratio %.1f (2^%d = %.0f)\n", m, order, e1, e2, ratio,
                   order, want);
            CHECK(ratio > 0.75 * want && ratio < 1.3 * want, "d%d order %d: ratio %.2f not near %.0f", m, order, ratio,
                  want);
        }
}

static void test_errors(void)
{
    fdx_stencil_desc d;
    fdx_stencil *s = NULL;
    fdx_stencil_desc_laplacian(&d, 3, 3, NULL);
    CHECK_FAILS(fdx_stencil_create(ctx, &d, FDX_FLOAT64, &s), FDX_ERR_INVALID);
    CHECK(strstr(fdx_last_error(), "order 3") != NULL, "names the order: %s", fdx_last_error());
    fdx_stencil_desc_laplacian(&d, 4, 2, NULL);
    CHECK_FAILS(fdx_stencil_create(ctx, &d, FDX_FLOAT64, &s), FDX_ERR_INVALID);
    fdx_stencil_desc_laplacian(&d, 2, 2, NULL);
    d.h[1] = 0;
    CHECK_FAILS(fdx_stencil_create(ctx, &d, FDX_FLOAT64, &s), FDX_ERR_INVALID);
    CHECK(strstr(fdx_last_error(), "h[1]") != NULL, "names the spacing: %s", fdx_last_error());
    fdx_stencil_desc_laplacian(&d, 2, 2, NULL);
    CHECK_FAILS(fdx_stencil_create(ctx, &d, FDX_INT32, &s), FDX_ERR_INVALID);
    /* The fused sponge: WAVE in 2D/3D only, a bounded width, a sane strength. */
    d.sponge = 4, d.sponge_strength = 0.3;
    CHECK_FAILS(fdx_stencil_create(ctx, &d, FDX_FLOAT64, &s), FDX_ERR_INVALID);
    CHECK(strstr(fdx_last_error(), "WAVE") != NULL, "names the update: %s", fdx_last_error());
    d.update = FDX_UPDATE_WAVE, d.sponge = FDX_STENCIL_MAX_SPONGE + 1;
    CHECK_FAILS(fdx_stencil_create(ctx, &d, FDX_FLOAT64, &s), FDX_ERR_INVALID);
    d.sponge = 4, d.sponge_strength = -1;
    CHECK_FAILS(fdx_stencil_create(ctx, &d, FDX_FLOAT64, &s), FDX_ERR_INVALID);
    fdx_stencil_desc_laplacian(&d, 1, 2, NULL);
    d.update = FDX_UPDATE_WAVE, d.sponge = 2, d.sponge_strength = 0.3;
    CHECK_FAILS(fdx_stencil_create(ctx, &d, FDX_FLOAT64, &s), FDX_ERR_INVALID);

    fdx_stencil_desc_laplacian(&d, 2, 8, NULL);
    d.update = FDX_UPDATE_WAVE;
    CHECK_OK(fdx_stencil_create(ctx, &d, FDX_FLOAT32, &s));
    int64_t n[2] = {20, 8}, m[2] = {20, 9};
    fdx_array *a = NULL, *b = NULL, *c = NULL, *e = NULL, *f = NULL;
    fdx_array_create(ctx, FDX_FLOAT32, 2, n, FDX_ON_HOST, &a);
    fdx_array_create(ctx, FDX_FLOAT32, 2, n, FDX_ON_HOST, &b);
    fdx_array_create(ctx, FDX_FLOAT32, 2, n, FDX_ON_HOST, &c);
    fdx_array_create(ctx, FDX_FLOAT64, 2, n, FDX_ON_HOST, &e);
    fdx_array_create(ctx, FDX_FLOAT32, 2, m, FDX_ON_HOST, &f);
    CHECK_FAILS(fdx_stencil_apply(s, a, b, NULL, NULL, NULL), FDX_ERR_INVALID); /* wave needs u_prev */
    CHECK_FAILS(fdx_stencil_apply(s, a, b, c, c, NULL), FDX_ERR_INVALID);       /* no coef wanted */
    CHECK_FAILS(fdx_stencil_apply(s, a, a, c, NULL, NULL), FDX_ERR_INVALID);    /* out aliases u */
    CHECK_FAILS(fdx_stencil_apply(s, e, b, c, NULL, NULL), FDX_ERR_INVALID);    /* type */
    CHECK_FAILS(fdx_stencil_apply(s, f, b, c, NULL, NULL), FDX_ERR_INVALID);    /* shape */
    CHECK(strstr(fdx_last_error(), "axis 1") != NULL, "names the axis: %s", fdx_last_error());
    /* Order 8 needs 9 points per axis: 8 rows are too few. */
    CHECK_FAILS(fdx_stencil_apply(s, a, b, c, NULL, NULL), FDX_ERR_INVALID);
    CHECK(strstr(fdx_last_error(), "9 points") != NULL, "names the minimum: %s", fdx_last_error());
    fdx_array_destroy(&a), fdx_array_destroy(&b), fdx_array_destroy(&c), fdx_array_destroy(&e);
    fdx_array_destroy(&f);
    fdx_stencil_destroy(&s);
    fdx_stencil_destroy(&s); /* NULL is fine */
}

int main(void)
{
    ctx = fdx_test_ctx("cpu");
    if (!ctx) return fdx_test_skip("test_stencil", "no CPU context");
    test_weights();
    test_reference();
    test_convergence();
    test_errors();
    fdx_ctx_destroy(&ctx);
    return fdx_test_finish("test_stencil");
}
