/* User stencil test cases and their CPU reference (shared by test_ustencil,
   test_ustencil_emu and test_ustencil_gpu): a case lists its terms as the
   user writes them; the reference applies them with plain loops in double
   precision, straight from that list (div(k grad u) cases from the face
   formula itself, not from terms), and the check compares every interior
   point within a tolerance scaled by the sum of the magnitudes of its terms
   and requires every frame point to keep its NaN poison. */
#ifndef USTENCIL_REF_H
#define USTENCIL_REF_H

#include "fdx_test.h"
#include "fdx/ustencil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define US_MAX_TERMS 1024

typedef enum us_build { US_TERMS = 0, US_BOX, US_MIXED, US_DIV } us_build;

typedef struct us_case {
    char name[96];
    int rank, ncomp, ninputs, ncoefs;
    int64_t grid[3];
    fdx_stencil_update update;
    double alpha;
    us_build build;
    int box_r;                 /* US_BOX: radius; weights in terms[].weight, x fastest */
    int mixed_a, mixed_b;      /* US_MIXED: axes */
    double h[3], scale;        /* US_MIXED / US_DIV */
    int nterms;
    fdx_ustencil_term terms[US_MAX_TERMS];
} us_case;

static inline void us_init(us_case *c, const char *name, int rank, int ncomp, int ninputs, int ncoefs, int64_t nx,
                           int64_t ny, int64_t nz)
{
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "%s", name);
    c->rank = rank, c->ncomp = ncomp, c->ninputs = ninputs, c->ncoefs = ncoefs;
    c->grid[0] = nx, c->grid[1] = rank > 1 ? ny : 1, c->grid[2] = rank > 2 ? nz : 1;
    c->update = FDX_UPDATE_APPLY, c->alpha = 1;
    c->h[0] = c->h[1] = c->h[2] = 1, c->scale = 1;
}

static inline void us_add(us_case *c, double w, int in, int ic, int oc, int ox, int oy, int oz, int coef, int kx,
                          int ky, int kz)
{
    if (c->nterms >= US_MAX_TERMS) return;
    fdx_ustencil_term t = {w, in, ic, oc, {ox, oy, oz}, coef, {kx, ky, kz}};
    if (coef < 0) t.coef = FDX_USTENCIL_NO_COEF, memset(t.coef_offset, 0, sizeof t.coef_offset);
    c->terms[c->nterms++] = t;
}

static inline int us_roff(uint64_t *s, int r) { return (int)floor((fdx_test_rand(s) + 1) * 0.5 * (2 * r + 1)) - r; }

/* nterms random terms within radius r (offsets only on the rank's axes). */
static inline void us_random_terms(us_case *c, int nterms, int r, uint64_t *s)
{
    for (int i = 0; i < nterms; i++) {
        int o[3] = {0, 0, 0}, k[3] = {0, 0, 0};
        for (int a = 0; a < c->rank; a++) o[a] = us_roff(s, r), k[a] = us_roff(s, r);
        int in = (int)((fdx_test_rand(s) + 1) * 0.5 * c->ninputs) % c->ninputs;
        int ic = (int)((fdx_test_rand(s) + 1) * 0.5 * c->ncomp) % c->ncomp;
        int oc = (int)((fdx_test_rand(s) + 1) * 0.5 * c->ncomp) % c->ncomp;
        int coef = c->ncoefs ? (int)((fdx_test_rand(s) + 1) * 0.5 * (c->ncoefs + 1)) % (c->ncoefs + 1) - 1 : -1;
        us_add(c, fdx_test_rand(s), in, ic, oc, o[0], o[1], o[2], coef, k[0], k[1], k[2]);
    }
}

/* A box of radius r with random weights (built with fdx_ustencil_desc_add_box). */
static inline void us_box(us_case *c, int r, uint64_t *s)
{
    c->build = US_BOX, c->box_r = r;
    int w = 2 * r + 1, n = c->rank == 1 ? w : c->rank == 2 ? w * w : w * w * w;
    for (int i = 0; i < n; i++)
        us_add(c, fdx_test_rand(s), 0, 0, 0, i % w - r, c->rank > 1 ? (i / w) % w - r : 0,
               c->rank > 2 ? i / (w * w) - r : 0, -1, 0, 0, 0);
}

/* A mixed derivative d2/(da db) (fdx_ustencil_desc_add_mixed). */
static inline void us_mixed(us_case *c, int a, int b, double ha, double hb, double scale)
{
    c->build = US_MIXED, c->mixed_a = a, c->mixed_b = b, c->h[a] = ha, c->h[b] = hb, c->scale = scale;
    for (int sa = -1; sa <= 1; sa += 2)
        for (int sb = -1; sb <= 1; sb += 2) {
            int o[3] = {0, 0, 0};
            o[a] = sa, o[b] = sb;
            us_add(c, scale * sa * sb / (4 * ha * hb), 0, 0, 0, o[0], o[1], o[2], -1, 0, 0, 0);
        }
}

/* The description of a case (NULL on failure, with the check failed). */
static inline fdx_ustencil_desc *us_desc(const us_case *c)
{
    fdx_ustencil_desc *d = NULL;
    CHECK_OK(fdx_ustencil_desc_create(c->rank, c->ncomp, c->ninputs, c->ncoefs, &d));
    if (!d) return NULL;
    fdx_status st = FDX_OK;
    if (c->build == US_BOX) {
        double w[729];
        for (int i = 0; i < c->nterms; i++) w[i] = c->terms[i].weight;
        st = fdx_ustencil_desc_add_box(d, 0, 0, c->box_r, w);
    } else if (c->build == US_MIXED) {
        st = fdx_ustencil_desc_add_mixed(d, 0, 0, c->mixed_a, c->mixed_b, c->h[c->mixed_a], c->h[c->mixed_b], c->scale);
    } else if (c->build == US_DIV) {
        for (int comp = 0; comp < c->ncomp && st == FDX_OK; comp++)
            st = fdx_ustencil_desc_add_div_k_grad(d, 0, comp, 0, c->h, c->scale);
    }
    for (int i = 0; i < c->nterms && st == FDX_OK && c->build == US_TERMS; i++)
        st = fdx_ustencil_desc_add_term(d, &c->terms[i]);
    if (st == FDX_OK) st = fdx_ustencil_desc_set_update(d, c->update, c->alpha);
    CHECK(st == FDX_OK, "%s: building the description: %s", c->name, fdx_last_error());
    if (st != FDX_OK) fdx_ustencil_desc_destroy(&d);
    return d;
}

static inline int64_t us_points(const us_case *c) { return c->grid[0] * c->grid[1] * c->grid[2]; }
static inline int us_radius(const us_case *c)
{
    if (c->build == US_DIV) return 1;
    int r = 0;
    for (int i = 0; i < c->nterms; i++)
        for (int a = 0; a < 3; a++) {
            int o = abs(c->terms[i].offset[a]), k = c->terms[i].coef == FDX_USTENCIL_NO_COEF ? 0 : abs(c->terms[i].coef_offset[a]);
            r = o > r ? o : r, r = k > r ? k : r;
        }
    return r;
}

/* Reference at every interior point: ref[p * ncomp + c] and mag (the sum of
   the terms' magnitudes).  in[i] / cf[j] are the fields in double. */
static inline void us_reference(const us_case *c, double *const *in, double *const *cf, double *ref, double *mag)
{
    const int64_t nx = c->grid[0], ny = c->grid[1], nz = c->grid[2], nc = c->ncomp;
    const int r = us_radius(c);
    const int64_t st[3] = {1, nx, nx * ny};
    for (int64_t z = c->rank > 2 ? r : 0; z < (c->rank > 2 ? nz - r : 1); z++)
        for (int64_t y = c->rank > 1 ? r : 0; y < (c->rank > 1 ? ny - r : 1); y++)
            for (int64_t x = r; x < nx - r; x++) {
                const int64_t p = x + nx * (y + ny * z);
                for (int oc = 0; oc < nc; oc++) {
                    double s = 0, m = 0;
                    if (c->build == US_DIV) {
                        const double *u = in[0], *k = cf[0];
                        for (int a = 0; a < c->rank; a++) {
                            double up = u[(p + st[a]) * nc + oc], u0 = u[p * nc + oc], um = u[(p - st[a]) * nc + oc];
                            double kp = 0.5 * (k[p] + k[p + st[a]]), km = 0.5 * (k[p - st[a]] + k[p]);
                            double h2 = c->h[a] * c->h[a];
                            s += c->scale * (kp * (up - u0) - km * (u0 - um)) / h2;
                            m += fabs(c->scale) * (fabs(kp) + fabs(km)) * (fabs(up) + 2 * fabs(u0) + fabs(um)) / h2;
                        }
                    }
                    for (int t = 0; t < c->nterms && c->build != US_DIV; t++) {
                        const fdx_ustencil_term *e = &c->terms[t];
                        if (e->output_comp != oc) continue;
                        int64_t q = p + e->offset[0] * st[0] + e->offset[1] * st[1] + e->offset[2] * st[2];
                        double v = e->weight * in[e->input][q * nc + e->input_comp];
                        if (e->coef != FDX_USTENCIL_NO_COEF)
                            v *= cf[e->coef][p + e->coef_offset[0] * st[0] + e->coef_offset[1] * st[1] +
                                             e->coef_offset[2] * st[2]];
                        s += v, m += fabs(v);
                    }
                    s *= c->alpha, m *= fabs(c->alpha);
                    double u = in[0][p * nc + oc];
                    if (c->update == FDX_UPDATE_HEAT) s += u, m += fabs(u);
                    if (c->update == FDX_UPDATE_WAVE) {
                        double up = in[1][p * nc + oc];
                        s += 2 * u - up, m += 2 * fabs(u) + fabs(up);
                    }
                    ref[p * nc + oc] = s, mag[p * nc + oc] = m;
                }
            }
}

/* Compares out (poisoned with NaN before the apply) with the reference;
   returns the number of bad points (reported once). */
static inline int64_t us_compare(const us_case *c, const double *out, const double *ref, const double *mag, double eps,
                                 const char *where)
{
    const int64_t nx = c->grid[0], ny = c->grid[1], nz = c->grid[2], nc = c->ncomp;
    const int r = us_radius(c);
    int64_t bad = 0, checked = 0, frame = 0;
    for (int64_t z = 0; z < nz; z++)
        for (int64_t y = 0; y < ny; y++)
            for (int64_t x = 0; x < nx; x++) {
                int in = x >= r && x < nx - r && (c->rank < 2 || (y >= r && y < ny - r)) &&
                         (c->rank < 3 || (z >= r && z < nz - r));
                for (int oc = 0; oc < nc; oc++) {
                    const int64_t e = (x + nx * (y + ny * z)) * nc + oc;
                    if (!in) {
                        if (!isnan(out[e])) {
                            if (!frame++) fprintf(stderr, "%s %s: frame point (%lld,%lld,%lld) c%d written: %g\n", where, c->name, (long long)x, (long long)y, (long long)z, oc, out[e]);
                            bad++;
                        }
                        continue;
                    }
                    checked++;
                    double tol = 64 * eps * (mag[e] + 1e-300) * (1 + c->nterms / 16.0);
                    if (!(fabs(out[e] - ref[e]) <= tol)) {
                        if (bad - frame < 3)
                            fprintf(stderr, "%s %s: (%lld,%lld,%lld) c%d: %.17g, expected %.17g (tolerance %.3g)\n",
                                    where, c->name, (long long)x, (long long)y, (long long)z, oc, out[e], ref[e], tol);
                        bad++;
                    }
                }
            }
    CHECK(bad == 0 && checked > 0, "%s %s: %lld of %lld interior values wrong or frame values written (%lld frame)",
          where, c->name, (long long)bad, (long long)checked, (long long)frame);
    return bad;
}

/* Random fields in double (and rounded to float for float cases, so the
   reference sees exactly what the kernel reads). */
static inline double *us_field(int64_t n, int is_double, uint64_t *s, int positive)
{
    double *f = malloc((size_t)n * sizeof *f);
    if (!f) return NULL;
    for (int64_t i = 0; i < n; i++) {
        double v = positive ? 1.0 + 0.5 * fdx_test_rand(s) : fdx_test_rand(s);
        f[i] = is_double ? v : (double)(float)v;
    }
    return f;
}

/* An array of the case's field shape: components first when ncomp > 1. */
static inline fdx_array *us_array(fdx_ctx *ctx, const us_case *c, fdx_dtype type, int comps, const double *values)
{
    int64_t shape[4];
    int rank = 0;
    if (comps > 1) shape[rank++] = comps;
    for (int a = 0; a < c->rank; a++) shape[rank++] = c->grid[a];
    fdx_array *a = NULL;
    CHECK_OK(fdx_array_create(ctx, type, rank, shape, FDX_ON_HOST, &a));
    if (!a) return NULL;
    int64_t n = fdx_array_count(a);
    void *h = fdx_array_host(a);
    for (int64_t i = 0; i < n; i++) {
        double v = values ? values[i] : NAN;
        if (type == FDX_FLOAT64) ((double *)h)[i] = v;
        else ((float *)h)[i] = (float)v;
    }
    return a;
}

/* Runs a case on ctx (cuda: through the device copies) against the
   reference; returns the number of bad points (-1: could not run).
   prepare (may be NULL) is called with the stencil before the apply; with
   `result`, *result is the output in double (malloc'ed; NaN in the frame). */
typedef void (*us_prepare_fn)(fdx_ustencil *s, const void *arg);
static inline int64_t us_run(fdx_ctx *ctx, const us_case *c, fdx_dtype type, uint64_t seed, int cuda, const char *where,
                             us_prepare_fn prepare, const void *arg, double **result)
{
    const int is_double = type == FDX_FLOAT64, nc = c->ncomp;
    const int64_t n = us_points(c);
    double *in[FDX_USTENCIL_MAX_INPUTS] = {0}, *cf[FDX_USTENCIL_MAX_COEFS] = {0};
    fdx_array *ain[FDX_USTENCIL_MAX_INPUTS] = {0}, *acf[FDX_USTENCIL_MAX_COEFS] = {0}, *out = NULL;
    double *ref = malloc((size_t)(n * nc) * sizeof *ref), *mag = malloc((size_t)(n * nc) * sizeof *mag);
    double *got = malloc((size_t)(n * nc) * sizeof *got);
    int64_t bad = -1;
    fdx_ustencil_desc *d = us_desc(c);
    fdx_ustencil *s = NULL;
    if (!ref || !mag || !got || !d) goto done;
    CHECK_OK(fdx_ustencil_create(ctx, d, type, &s));
    if (!s) goto done;
    CHECK(fdx_ustencil_radius(s) == us_radius(c), "%s: radius %d, expected %d", c->name, fdx_ustencil_radius(s),
          us_radius(c));
    for (int i = 0; i < c->ninputs; i++) {
        in[i] = us_field(n * nc, is_double, &seed, 0);
        ain[i] = in[i] ? us_array(ctx, c, type, nc, in[i]) : NULL;
        if (!ain[i]) goto done;
    }
    for (int j = 0; j < c->ncoefs; j++) {
        cf[j] = us_field(n, is_double, &seed, c->build == US_DIV);
        acf[j] = cf[j] ? us_array(ctx, c, type, 1, cf[j]) : NULL;
        if (!acf[j]) goto done;
    }
    out = us_array(ctx, c, type, nc, NULL);
    if (!out) goto done;
    if (cuda) {
        for (int i = 0; i < c->ninputs; i++) CHECK_OK(fdx_array_to_device(ain[i]));
        for (int j = 0; j < c->ncoefs; j++) CHECK_OK(fdx_array_to_device(acf[j]));
        CHECK_OK(fdx_array_to_device(out));
    }
    if (prepare) prepare(s, arg);
    fdx_status st = fdx_ustencil_apply(s, out, ain, c->ncoefs ? acf : NULL, NULL);
    CHECK(st == FDX_OK, "%s %s: apply: %s", where, c->name, fdx_last_error());
    if (st != FDX_OK) goto done;
    if (cuda) CHECK_OK(fdx_array_to_host(out));
    const void *h = fdx_array_host(out);
    for (int64_t i = 0; i < n * nc; i++) got[i] = is_double ? ((const double *)h)[i] : ((const float *)h)[i];
    us_reference(c, in, cf, ref, mag);
    bad = us_compare(c, got, ref, mag, is_double ? 2.2e-16 : 1.2e-7, where);
    if (result) *result = got, got = NULL;
done:
    for (int i = 0; i < FDX_USTENCIL_MAX_INPUTS; i++) free(in[i]), fdx_array_destroy(&ain[i]);
    for (int j = 0; j < FDX_USTENCIL_MAX_COEFS; j++) free(cf[j]), fdx_array_destroy(&acf[j]);
    fdx_array_destroy(&out);
    fdx_ustencil_destroy(&s);
    fdx_ustencil_desc_destroy(&d);
    free(ref), free(mag), free(got);
    return bad;
}

/* The cases every backend runs: box, star, mixed derivative, several
   inputs, variable coefficients, div(k grad u), components, every update,
   ranks 1-3, odd shapes.  Returns their count (at most max). */
static inline int us_cases(us_case *cases, int max, int small)
{
    uint64_t s = 0xC0FFEE;
    int n = 0;
    const int64_t b = small ? 0 : 1; /* 1: larger grids */
#define NEXT(...) if (n < max) us_init(&cases[n++], __VA_ARGS__); us_case *c = &cases[n - 1]
    { NEXT("box 3x3x3", 3, 1, 1, 0, 13 + 20 * b, 9 + 8 * b, 11 + 5 * b); us_box(c, 1, &s); }
    { NEXT("box 5x5x5 heat", 3, 1, 1, 0, 11, 10, 9); us_box(c, 2, &s); c->update = FDX_UPDATE_HEAT, c->alpha = 0.3; }
    { NEXT("box 3x3 2D", 2, 1, 1, 0, 17 + 30 * b, 9 + 11 * b, 1); us_box(c, 1, &s); }
    { NEXT("box 1D r3", 1, 1, 1, 0, 29 + 100 * b, 1, 1); us_box(c, 3, &s); }
    {
        NEXT("star order 4", 3, 1, 1, 0, 15, 12 + 4 * b, 10);
        for (int a = 0; a < 3; a++)
            for (int o = -2; o <= 2; o++) {
                int off[3] = {0, 0, 0};
                off[a] = o;
                if (o || !a) us_add(c, fdx_test_rand(&s), 0, 0, 0, off[0], off[1], off[2], -1, 0, 0, 0);
            }
    }
    { NEXT("mixed d2/dxdz", 3, 1, 1, 0, 9, 8, 13); us_mixed(c, 0, 2, 0.5, 0.25, 1.5); }
    { NEXT("mixed d2/dxdy 2D", 2, 1, 1, 0, 21, 14, 1); us_mixed(c, 0, 1, 0.1, 0.2, -1.0); }
    { NEXT("three inputs", 3, 1, 3, 0, 12, 9, 10); us_random_terms(c, 30, 2, &s); }
    { NEXT("coefficients", 3, 1, 2, 2, 10 + 9 * b, 11, 9); us_random_terms(c, 40, 2, &s); }
    { NEXT("coefficients 2D", 2, 1, 1, 3, 23, 19, 1); us_random_terms(c, 25, 3, &s); }
    { NEXT("coefficients 1D wave", 1, 1, 2, 1, 41, 1, 1); us_random_terms(c, 12, 2, &s); c->update = FDX_UPDATE_WAVE, c->alpha = 0.7; }
    { NEXT("div(k grad u)", 3, 1, 1, 1, 14 + 20 * b, 13 + 6 * b, 12 + 3 * b); c->build = US_DIV, c->h[0] = 0.5, c->h[1] = 0.25, c->h[2] = 1.5, c->scale = 0.75; }
    { NEXT("div(k grad u) 2D heat", 2, 1, 1, 1, 31, 17, 1); c->build = US_DIV, c->h[1] = 0.5; c->update = FDX_UPDATE_HEAT, c->alpha = 0.1; }
    { NEXT("div(k grad u) 3 components", 3, 3, 1, 1, 9, 8, 7); c->build = US_DIV; }
    { NEXT("components 3", 3, 3, 2, 1, 10, 9, 8); us_random_terms(c, 36, 1, &s); }
    { NEXT("components 2 heat", 2, 2, 1, 1, 19, 12, 1); us_random_terms(c, 20, 2, &s); c->update = FDX_UPDATE_HEAT, c->alpha = 0.5; }
    { NEXT("components 4 wave 3D", 3, 4, 2, 0, 8, 7, 9); us_random_terms(c, 24, 1, &s); c->update = FDX_UPDATE_WAVE, c->alpha = -0.4; }
    { NEXT("radius 4 random", 3, 1, 1, 1, 11, 10, 12); us_random_terms(c, 20, 4, &s); }
    { NEXT("pointwise", 3, 2, 1, 1, 5, 4, 3); us_add(c, 2.0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0); us_add(c, -1.0, 0, 0, 1, 0, 0, 0, -1, 0, 0, 0); }
#undef NEXT
    return n;
}

#endif
