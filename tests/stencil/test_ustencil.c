/* User stencils on the CPU backend: every case of ustencil_ref.h (box, star,
   mixed derivatives, several inputs, coefficients, div(k grad u),
   components, every update, ranks 1-3, odd shapes) in double and float
   against plain reference loops on random inputs with random weights and a
   NaN-poisoned output; div(k grad u) against its analytic value on a smooth
   field (second-order convergence); the description's checks; the
   generated source (readable names, each point loaded once) and the kernel
   key (every field of the description changes the source, the weights do
   not). */
#include "fdx_test.h"
#include "stencil/fdx_ustencil_impl.h"
#include "ustencil_ref.h"

#include <math.h>
#include <string.h>

static void run_cases(fdx_ctx *ctx)
{
    static us_case cases[32];
    int n = us_cases(cases, 32, 0);
    for (int i = 0; i < n; i++) {
        us_run(ctx, &cases[i], FDX_FLOAT64, 100 + i, 0, "cpu double", NULL, NULL, NULL);
        us_run(ctx, &cases[i], FDX_FLOAT32, 200 + i, 0, "cpu float", NULL, NULL, NULL);
    }
    printf("test_ustencil: %d cases x 2 precisions\n", n);
}

/* u = sin(x + 2y + z/2), k = 1 + cos(x - y + z)/2 on [0,1]^3:
   div(k grad u) = -5.25 k sin(phi) + 0.25 sin(psi) cos(phi). */
static double div_error(fdx_ctx *ctx, int64_t n)
{
    const double h = 1.0 / (double)(n - 1);
    const int64_t shape[3] = {n, n, n};
    fdx_array *u = NULL, *k = NULL, *out = NULL;
    CHECK_OK(fdx_array_create(ctx, FDX_FLOAT64, 3, shape, FDX_ON_HOST, &u));
    CHECK_OK(fdx_array_create(ctx, FDX_FLOAT64, 3, shape, FDX_ON_HOST, &k));
    CHECK_OK(fdx_array_create(ctx, FDX_FLOAT64, 3, shape, FDX_ON_HOST, &out));
    double err = INFINITY;
    if (!u || !k || !out) goto done;
    double *pu = fdx_array_host(u), *pk = fdx_array_host(k), *po = fdx_array_host(out);
    for (int64_t z = 0; z < n; z++)
        for (int64_t y = 0; y < n; y++)
            for (int64_t x = 0; x < n; x++) {
                double X = x * h, Y = y * h, Z = z * h;
                pu[x + n * (y + n * z)] = sin(X + 2 * Y + 0.5 * Z);
                pk[x + n * (y + n * z)] = 1 + 0.5 * cos(X - Y + Z);
            }
    CHECK_OK(fdx_array_fill_host(out, NAN));
    fdx_ustencil_desc *d = NULL;
    fdx_ustencil *s = NULL;
    const double hh[3] = {h, h, h};
    CHECK_OK(fdx_ustencil_desc_create(3, 1, 1, 1, &d));
    CHECK_OK(fdx_ustencil_desc_add_div_k_grad(d, 0, 0, 0, hh, 1.0));
    CHECK_OK(fdx_ustencil_create(ctx, d, FDX_FLOAT64, &s));
    fdx_ustencil_desc_destroy(&d);
    if (s) CHECK_OK(fdx_ustencil_apply(s, out, &u, &k, NULL));
    fdx_ustencil_destroy(&s);
    err = 0;
    for (int64_t z = 1; z < n - 1; z++)
        for (int64_t y = 1; y < n - 1; y++)
            for (int64_t x = 1; x < n - 1; x++) {
                double X = x * h, Y = y * h, Z = z * h, phi = X + 2 * Y + 0.5 * Z, psi = X - Y + Z;
                double exact = -5.25 * (1 + 0.5 * cos(psi)) * sin(phi) + 0.25 * sin(psi) * cos(phi);
                double e = fabs(po[x + n * (y + n * z)] - exact);
                if (!(e <= err)) err = e; /* NaN (unwritten) makes it NaN */
            }
done:
    fdx_array_destroy(&u), fdx_array_destroy(&k), fdx_array_destroy(&out);
    return err;
}

static void convergence(fdx_ctx *ctx)
{
    double e1 = div_error(ctx, 17), e2 = div_error(ctx, 33), e3 = div_error(ctx, 65);
    printf("test_ustencil: div(k grad u) max error %.3e, %.3e, %.3e (ratios %.2f, %.2f)\n", e1, e2, e3, e1 / e2,
           e2 / e3);
    CHECK(e1 / e2 > 3.5 && e1 / e2 < 4.6 && e2 / e3 > 3.7 && e2 / e3 < 4.4,
          "div(k grad u) is not second order: errors %g, %g, %g", e1, e2, e3);
}

static void bad_descriptions(fdx_ctx *ctx)
{
    fdx_ustencil_desc *d = NULL;
    CHECK_FAILS(fdx_ustencil_desc_create(4, 1, 1, 0, &d), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_ustencil_desc_create(3, 0, 1, 0, &d), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_ustencil_desc_create(3, 1, 0, 0, &d), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_ustencil_desc_create(3, 1, 1, FDX_USTENCIL_MAX_COEFS + 1, &d), FDX_ERR_INVALID);
    CHECK_OK(fdx_ustencil_desc_create(2, 2, 1, 1, &d));
    if (!d) return;
    fdx_ustencil_term t = {1.0, 0, 0, 0, {1, 0, 0}, FDX_USTENCIL_NO_COEF, {0, 0, 0}};
    t.offset[2] = 1; /* beyond rank 2 */
    CHECK_FAILS(fdx_ustencil_desc_add_term(d, &t), FDX_ERR_INVALID);
    t.offset[2] = 0, t.offset[0] = FDX_USTENCIL_MAX_RADIUS + 1;
    CHECK_FAILS(fdx_ustencil_desc_add_term(d, &t), FDX_ERR_INVALID);
    t.offset[0] = 1, t.input = 1;
    CHECK_FAILS(fdx_ustencil_desc_add_term(d, &t), FDX_ERR_INVALID);
    t.input = 0, t.input_comp = 2;
    CHECK_FAILS(fdx_ustencil_desc_add_term(d, &t), FDX_ERR_INVALID);
    t.input_comp = 0, t.coef = 1;
    CHECK_FAILS(fdx_ustencil_desc_add_term(d, &t), FDX_ERR_INVALID);
    t.coef = FDX_USTENCIL_NO_COEF, t.weight = NAN;
    CHECK_FAILS(fdx_ustencil_desc_add_term(d, &t), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_ustencil_desc_set_update(d, FDX_UPDATE_WAVE, 1.0), FDX_ERR_INVALID); /* one input */
    CHECK_FAILS(fdx_ustencil_desc_add_div_k_grad(d, 0, 0, 1, NULL, 1.0), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_ustencil_desc_add_mixed(d, 0, 0, 0, 0, 1, 1, 1), FDX_ERR_INVALID);
    fdx_ustencil *s = NULL;
    CHECK_FAILS(fdx_ustencil_create(ctx, d, FDX_FLOAT64, &s), FDX_ERR_INVALID); /* no terms */
    t.weight = 1.0;
    CHECK_OK(fdx_ustencil_desc_add_term(d, &t));
    CHECK_FAILS(fdx_ustencil_create(ctx, d, FDX_INT32, &s), FDX_ERR_INVALID);
    CHECK_OK(fdx_ustencil_create(ctx, d, FDX_FLOAT64, &s));
    fdx_ustencil_desc_destroy(&d);
    if (!s) return;
    /* Wrong arrays: a scalar field for a 2-component stencil, a float
       output, too few points, the output as an input. */
    const int64_t good[3] = {2, 8, 6}, scalar[2] = {8, 6}, small[3] = {2, 2, 6};
    fdx_array *u = NULL, *k = NULL, *out = NULL, *bad = NULL, *fl = NULL, *tiny = NULL, *tk = NULL, *tout = NULL;
    CHECK_OK(fdx_array_create(ctx, FDX_FLOAT64, 3, good, FDX_ON_HOST, &u));
    CHECK_OK(fdx_array_create(ctx, FDX_FLOAT64, 3, good, FDX_ON_HOST, &out));
    CHECK_OK(fdx_array_create(ctx, FDX_FLOAT64, 2, scalar, FDX_ON_HOST, &k));
    CHECK_OK(fdx_array_create(ctx, FDX_FLOAT64, 2, scalar, FDX_ON_HOST, &bad));
    CHECK_OK(fdx_array_create(ctx, FDX_FLOAT32, 3, good, FDX_ON_HOST, &fl));
    CHECK_OK(fdx_array_create(ctx, FDX_FLOAT64, 3, small, FDX_ON_HOST, &tiny));
    CHECK_OK(fdx_array_create(ctx, FDX_FLOAT64, 3, small, FDX_ON_HOST, &tout));
    const int64_t tks[2] = {2, 6};
    CHECK_OK(fdx_array_create(ctx, FDX_FLOAT64, 2, tks, FDX_ON_HOST, &tk));
    if (u && k && out && bad && fl && tiny && tout && tk) {
        CHECK_OK(fdx_ustencil_apply(s, out, &u, &k, NULL));
        CHECK_FAILS(fdx_ustencil_apply(s, out, &bad, &k, NULL), FDX_ERR_INVALID);
        CHECK_FAILS(fdx_ustencil_apply(s, fl, &u, &k, NULL), FDX_ERR_INVALID);
        CHECK_FAILS(fdx_ustencil_apply(s, out, &u, NULL, NULL), FDX_ERR_INVALID);
        CHECK_FAILS(fdx_ustencil_apply(s, out, &out, &k, NULL), FDX_ERR_INVALID);
        CHECK_FAILS(fdx_ustencil_apply(s, out, &u, &u, NULL), FDX_ERR_INVALID);
        CHECK_FAILS(fdx_ustencil_apply(s, tout, &tiny, &tk, NULL), FDX_ERR_INVALID);
    }
    fdx_array_destroy(&u), fdx_array_destroy(&k), fdx_array_destroy(&out), fdx_array_destroy(&bad);
    fdx_array_destroy(&fl), fdx_array_destroy(&tiny), fdx_array_destroy(&tout), fdx_array_destroy(&tk);
    fdx_ustencil_destroy(&s);
}

/* The source of a case for a target (the default configuration). */
static char *source_of(fdx_ctx *ctx, const us_case *c, int cuda)
{
    fdx_ustencil_desc *d = us_desc(c);
    fdx_ustencil *s = NULL;
    char *src = NULL;
    if (d) CHECK_OK(fdx_ustencil_create(ctx, d, FDX_FLOAT64, &s));
    if (s) CHECK_OK(fdx_ustencil_source(s, cuda, c->grid, &src));
    fdx_ustencil_destroy(&s);
    fdx_ustencil_desc_destroy(&d);
    return src;
}

static int count(const char *text, const char *what)
{
    int n = 0;
    for (const char *p = strstr(text, what); p; p = strstr(p + 1, what)) n++;
    return n;
}

static void sources(fdx_ctx *ctx)
{
    uint64_t seed = 7;
    us_case c;
    us_init(&c, "box", 3, 1, 1, 0, 16, 16, 16);
    us_box(&c, 1, &seed);
    char *cpu = source_of(ctx, &c, 0), *gpu = source_of(ctx, &c, 1);
    if (cpu && gpu) {
        /* The CPU kernel loads each of the 27 points once, by name. */
        CHECK(count(cpu, "const double u0_m1_p1_0 = ") == 0 && count(cpu, "const real u0_m1_p1_0 = ") == 1 &&
                  count(cpu, "const real u0_") == 27,
              "the CPU box kernel does not load each point once by name:\n%s", cpu);
        /* The march loads a plane's 3x3 neighbourhood of its two lanes (4 x
           positions, 3 rows) once a step, and names terms in a comment. */
        CHECK(strstr(gpu, "u0_xm1_ym1") && count(gpu, "const real u0_x") == 12 && strstr(gpu, "term 26: out += w[26] * u0(+1,+1,+1)"),
              "the CUDA box march is not as expected:\n%s", gpu);
    }
    free(cpu), free(gpu);
    /* div(k grad u): the march reads the z neighbours' products from the
       register columns. */
    us_init(&c, "div", 3, 1, 1, 1, 16, 16, 16);
    c.build = US_DIV;
    gpu = source_of(ctx, &c, 1);
    CHECK(gpu && strstr(gpu, "k0_col1_0") && strstr(gpu, "u0_col1_0") && strstr(gpu, "fdx_ustencil_kernel"),
          "the div(k grad u) march has no register columns:\n%s", gpu ? gpu : "");
    free(gpu);
    /* The key is the source: every field changes it; the weights do not. */
    us_case a, b;
    seed = 11;
    us_init(&a, "key", 3, 2, 2, 1, 10, 10, 10);
    us_random_terms(&a, 6, 1, &seed);
    char *base = source_of(ctx, &a, 1);
    for (int f = 0; f < 9 && base; f++) {
        b = a;
        fdx_ustencil_term *t = &b.terms[2];
        switch (f) {
        case 0: t->weight += 1; break; /* the only change that keeps the source */
        case 1: t->input = 1 - t->input; break;
        case 2: t->input_comp = 1 - t->input_comp; break;
        case 3: t->output_comp = 1 - t->output_comp; break;
        case 4: t->offset[1] = t->offset[1] == 1 ? 0 : 1; break;
        case 5: t->coef = t->coef == 0 ? FDX_USTENCIL_NO_COEF : 0; t->coef_offset[0] = 1; break;
        case 6: b.update = FDX_UPDATE_HEAT; break;
        case 7: b.rank = 2, b.terms[0].offset[2] = b.terms[1].offset[2] = b.terms[2].offset[2] = 0;
            for (int i = 0; i < b.nterms; i++) b.terms[i].offset[2] = b.terms[i].coef_offset[2] = 0;
            break;
        case 8: b.ninputs = 3; break;
        }
        char *other = source_of(ctx, &b, 1);
        CHECK(other && (strcmp(base, other) == 0) == (f == 0), "changing field %d %s the kernel source", f,
              f == 0 ? "changed" : "kept");
        free(other);
    }
    free(base);
}

int main(void)
{
    fdx_ctx *ctx = fdx_test_ctx("cpu");
    if (!ctx) return fdx_test_skip("test_ustencil", "no CPU context");
    bad_descriptions(ctx);
    sources(ctx);
    run_cases(ctx);
    convergence(ctx);
    fdx_ctx_destroy(&ctx);
    return fdx_test_finish("test_ustencil");
}
