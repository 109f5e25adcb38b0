/* Shared by the stencil tests: one case on random inputs with a poisoned
   output, checked point by point against a plain double-precision loop that
   applies the description directly (its own weights from fdx_fd_weights,
   the update written out), with a rounding bound per point. */
#ifndef TEST_STENCIL_CHECK_H
#define TEST_STENCIL_CHECK_H

#include "fdx_test.h"

#include <float.h>
#include <string.h>

static double sc_get(fdx_array *a, int64_t q)
{
    void *p = fdx_array_host(a);
    return fdx_array_dtype(a) == FDX_FLOAT64 ? ((double *)p)[q] : (double)((float *)p)[q];
}

/* Random values in [-1, 1), rounded to the array's type; returns them in double. */
static double *sc_fill(fdx_array *a, uint64_t *seed)
{
    int64_t n = fdx_array_count(a);
    double *copy = malloc(sizeof(double) * (size_t)n);
    for (int64_t q = 0; q < n; q++) {
        double v = fdx_test_rand(seed);
        if (fdx_array_dtype(a) == FDX_FLOAT64) ((double *)fdx_array_host(a))[q] = v;
        else ((float *)fdx_array_host(a))[q] = (float)v, v = (float)v;
        copy[q] = v;
    }
    return copy;
}

/* Runs `d` on `shape` and checks it; cfg_text receives the configuration.
   force: an internal configuration to use (NULL: the engine's choice). */
static void sc_case(fdx_ctx *ctx, const fdx_stencil_desc *d, fdx_dtype dt, const int64_t *shape, uint64_t *seed,
                    void (*force)(fdx_stencil *, const void *), const void *force_arg)
{
    int rank = d->rank, r = d->order / 2, cuda = fdx_ctx_backend(ctx) == FDX_BACKEND_CUDA;
    fdx_stencil *s = NULL;
    fdx_array *u = NULL, *up = NULL, *cf = NULL, *out = NULL;
    double *hu = NULL, *hup = NULL, *hcf = NULL;
    char label[160];
    snprintf(label, sizeof label, "%s rank %d order %d update %d coef %d sponge %d shape %lldx%lldx%lld",
             fdx_dtype_name(dt), rank, d->order, (int)d->update, d->coef, d->sponge, (long long)shape[0],
             (long long)(rank > 1 ? shape[1] : 1),
             (long long)(rank > 2 ? shape[2] : 1));
    CHECK_OK(fdx_stencil_create(ctx, d, dt, &s));
    if (!s) return;
    if (force) force(s, force_arg);
    unsigned places = FDX_ON_HOST | FDX_ON_DEVICE;
    CHECK_OK(fdx_array_create(ctx, dt, rank, shape, places, &u));
    CHECK_OK(fdx_array_create(ctx, dt, rank, shape, places, &out));
    if (d->update == FDX_UPDATE_WAVE) CHECK_OK(fdx_array_create(ctx, dt, rank, shape, places, &up));
    if (d->coef) CHECK_OK(fdx_array_create(ctx, dt, rank, shape, places, &cf));
    if (!u || !out || (d->update == FDX_UPDATE_WAVE && !up) || (d->coef && !cf)) goto done;
    hu = sc_fill(u, seed);
    if (up) hup = sc_fill(up, seed);
    if (cf) hcf = sc_fill(cf, seed);
    CHECK_OK(fdx_array_to_device(u));
    if (up) CHECK_OK(fdx_array_to_device(up));
    if (cf) CHECK_OK(fdx_array_to_device(cf));
    /* Poison: NaN on the host, and 0xFF bytes (NaN in both precisions) on the device. */
    CHECK_OK(fdx_array_fill_host(out, NAN));
    CHECK_OK(fdx_array_to_device(out));
    if (cuda) CHECK_OK(fdx_array_fill_device_bytes(out, 0xFF));
    CHECK_OK(fdx_stencil_apply(s, out, u, up, cf, NULL));
    CHECK_OK(fdx_array_to_host(out));

    double w1[2 * FDX_STENCIL_MAX_ORDER + 1], w2[2 * FDX_STENCIL_MAX_ORDER + 1];
    fdx_fd_weights(1, d->order, w1);
    fdx_fd_weights(2, d->order, w2);
    int64_t n[3] = {shape[0], rank > 1 ? shape[1] : 1, rank > 2 ? shape[2] : 1}, stride[3] = {1, n[0], n[0] * n[1]};
    double eps = dt == FDX_FLOAT64 ? DBL_EPSILON : FLT_EPSILON, worst = 0;
    int64_t unwritten = 0, clobbered = 0, wrong = 0;
    for (int64_t k = 0; k < n[2]; k++)
        for (int64_t j = 0; j < n[1]; j++)
            for (int64_t i = 0; i < n[0]; i++) {
                int64_t q = i + n[0] * (j + n[1] * k), idx[3] = {i, j, k};
                double v = sc_get(out, q);
                int interior = 1;
                for (int a = 0; a < rank; a++) interior &= idx[a] >= r && idx[a] < n[a] - r;
                if (!interior) {
                    clobbered += !isnan(v);
                    continue;
                }
                double lu = d->d0 * hu[q], mag = fabs(d->d0 * hu[q]);
                for (int a = 0; a < rank; a++)
                    for (int o = -r; o <= r; o++) {
                        double w = d->d2[a] * w2[r + o] / (d->h[a] * d->h[a]) + d->d1[a] * w1[r + o] / d->h[a];
                        lu += w * hu[q + o * stride[a]];
                        mag += fabs(w * hu[q + o * stride[a]]);
                    }
                lu *= d->alpha, mag *= fabs(d->alpha);
                if (cf) lu *= hcf[q], mag *= fabs(hcf[q]);
                double ref = lu;
                /* The fused sponge: factor g from the distance to the nearest
                   face, rounded to the element type like a separate pass. */
                double g = 1;
                int64_t dist = INT64_MAX;
                for (int a = 0; a < rank; a++) {
                    int64_t e = idx[a] < n[a] - 1 - idx[a] ? idx[a] : n[a] - 1 - idx[a];
                    if (e < dist) dist = e;
                }
                if (dist < d->sponge) {
                    double x = d->sponge_strength * (double)(d->sponge - dist) / d->sponge;
                    g = dt == FDX_FLOAT64 ? exp(-x * x) : (double)(float)exp(-x * x);
                }
                if (d->update == FDX_UPDATE_WAVE) {
                    ref = g * (ref + 2 * hu[q] - g * hup[q]);
                    mag = g * (mag + 2 * fabs(hu[q]) + g * fabs(hup[q]));
                }
                if (d->update == FDX_UPDATE_HEAT) ref += hu[q], mag += fabs(hu[q]);
                if (isnan(v)) {
                    unwritten++;
                    continue;
                }
                /* Rounding of the weights and of each term: a few eps of the
                   sum of magnitudes (the terms cancel, the errors do not). */
                double err = fabs(v - ref), tol = 8 * (2 * r + 2) * eps * mag + 1e-300;
                if (err / tol > worst) worst = err / tol;
                wrong += err > tol;
            }
    CHECK(unwritten == 0 && clobbered == 0 && wrong == 0,
          "%s (%s): %lld unwritten, %lld boundary points written, %lld wrong (worst error/tolerance %.3g)", label,
          fdx_stencil_config(s, shape), (long long)unwritten, (long long)clobbered, (long long)wrong, worst);
done:
    free(hu), free(hup), free(hcf);
    fdx_array_destroy(&u), fdx_array_destroy(&up), fdx_array_destroy(&cf), fdx_array_destroy(&out);
    fdx_stencil_destroy(&s);
}

/* A description exercising everything: d2 and (some) d1 per axis, d0, the
   update and the coefficient; unequal spacings. */
static void sc_desc(fdx_stencil_desc *d, int rank, int order, int update, int coef, int d1)
{
    static const double h[3] = {0.5, 0.25, 0.75};
    fdx_stencil_desc_laplacian(d, rank, order, h);
    for (int a = 0; a < rank; a++) {
        d->d2[a] = 1.0 + 0.5 * a;
        d->d1[a] = d1 ? 0.3 - 0.2 * a : 0.0;
    }
    d->d0 = d1 ? -0.7 : 0.0;
    d->update = (fdx_stencil_update)update;
    d->coef = coef;
    d->alpha = update == FDX_UPDATE_APPLY ? 1.0 : 0.01;
    /* Half the wave cases in 2D and 3D carry the fused sponge, wider than
       the radius so that written points are damped. */
    d->sponge = update == FDX_UPDATE_WAVE && rank >= 2 && (order / 2) % 2 ? order / 2 + 3 : 0;
    d->sponge_strength = 0.8;
}

/* Calls fn for every precision x rank x order (2..12), with the update, the
   coefficient and the first-derivative terms rotating through their
   combinations, so each appears with every rank and precision. */
static inline void sc_each_desc(void (*fn)(const fdx_stencil_desc *d, fdx_dtype dt, void *arg), void *arg)
{
    int combo = 0;
    for (int p = 0; p < 2; p++)
        for (int rank = 1; rank <= 3; rank++)
            for (int order = 2; order <= 12; order += 2) {
                fdx_stencil_desc d;
                sc_desc(&d, rank, order, combo % 3, (combo / 3) % 2, (combo / 2) % 2);
                combo++;
                fn(&d, p ? FDX_FLOAT32 : FDX_FLOAT64, arg);
            }
}

/* A context on `backend` with the given tuning mode (NULL on failure). */
static inline fdx_ctx *sc_ctx(const char *backend, const char *tune)
{
    fdx_options *o = NULL;
    fdx_ctx *ctx = NULL;
    CHECK_OK(fdx_options_create(&o));
    if (o && fdx_options_set(o, "backend", backend) == FDX_OK && fdx_options_set(o, "tune", tune) == FDX_OK)
        CHECK_OK(fdx_ctx_create(o, &ctx));
    fdx_options_destroy(&o);
    return ctx;
}

#endif
