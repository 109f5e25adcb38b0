/* Periodic advection-diffusion u_t + c u_x = D lap u on a 2D grid the
   program allocated itself, stepped by fdx's stencil engine (a 4th-order
   heat-type update with a first-derivative term) with periodic boundary
   conditions on both axes: before each step a generated boundary pass
   fills the ghost frame (2 points wide at order 4) from the opposite side,
   so the arrays are NXxNY unknowns inside a frame and nothing is copied in
   or out (fdx_array_wrap).  Runs on the CPU backend, where the malloc'ed
   buffers are the working copies; on a GPU the same calls take
   cudaMalloc'ed pointers as the device pointer of fdx_array_wrap.  Checked
   against a plain C loop with periodic index arithmetic, and the tracer's
   total stays 1.  Prints "periodic_advdiff: ok ..." on success.
   Build: cc periodic_advdiff.c $(pkg-config --cflags --libs fdx) */
#include <fdx.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define NX 60 /* unknowns per axis (the period) */
#define NY 45
#define R 2   /* ghost frame: the stencil's radius at order 4 */
#define MX (NX + 2 * R)
#define MY (NY + 2 * R)
#define DT 0.1
#define DIFF 0.3
#define VEL 0.7

/* The same step in plain C on the unknowns only, neighbours wrapped. */
static void ref_step(const double *f, double *t)
{
    static const double d1[3] = {0, 2.0 / 3.0, -1.0 / 12.0}, d2[3] = {-5.0 / 2.0, 4.0 / 3.0, -1.0 / 12.0};
    for (int j = 0; j < NY; j++)
        for (int i = 0; i < NX; i++) {
            double lap = 2 * d2[0] * f[i + NX * j], ux = 0;
            for (int o = 1; o <= R; o++) {
                int ip = (i + o) % NX, im = (i - o + NX) % NX, jp = (j + o) % NY, jm = (j - o + NY) % NY;
                lap += d2[o] * (f[ip + NX * j] + f[im + NX * j] + f[i + NX * jp] + f[i + NX * jm]);
                ux += d1[o] * (f[ip + NX * j] - f[im + NX * j]);
            }
            t[i + NX * j] = f[i + NX * j] + DT * (DIFF * lap - VEL * ux);
        }
}

int main(void)
{
    fdx_options *o = NULL;
    fdx_ctx *ctx = NULL;
    fdx_array *U = NULL, *V = NULL;
    fdx_stencil *s = NULL;
    const int64_t n[2] = {MX, MY};
    double *u = calloc(MX * MY, sizeof *u), *v = calloc(MX * MY, sizeof *v); /* the program's memory */
    double *ru = calloc(NX * NY, sizeof *ru), *rv = calloc(NX * NY, sizeof *rv);
    fdx_status st = u && v && ru && rv ? fdx_options_create(&o) : FDX_ERR_NOMEM;
    if (!st) st = fdx_options_set(o, "backend", "cpu");
    if (!st) st = fdx_ctx_create(o, &ctx);
    if (!st) st = fdx_array_wrap(ctx, FDX_FLOAT64, 2, n, NULL, u, NULL, 0, &U);
    if (!st) st = fdx_array_wrap(ctx, FDX_FLOAT64, 2, n, NULL, v, NULL, 0, &V);
    /* out = u + DT (DIFF lap u - VEL du/dx), unit spacing */
    fdx_stencil_desc d;
    fdx_stencil_desc_laplacian(&d, 2, 2 * R, NULL);
    d.update = FDX_UPDATE_HEAT, d.alpha = DT;
    d.d2[0] = d.d2[1] = DIFF, d.d1[0] = -VEL;
    if (!st) st = fdx_stencil_create(ctx, &d, FDX_FLOAT64, &s);
    fdx_bc_desc bc;
    if (!st) st = fdx_bc_parse("all=periodic", 2, &bc);
    if (!st) st = fdx_stencil_set_boundary(s, &bc);
    /* a smooth bump of tracer with total 1 */
    double mass = 0;
    for (int j = 0; j < NY; j++)
        for (int i = 0; i < NX; i++) {
            double x = (i - NX / 3.0) / 5.0, y = (j - NY / 2.0) / 4.0;
            ru[i + NX * j] = exp(-x * x - y * y), mass += ru[i + NX * j];
        }
    for (int j = 0; j < NY; j++)
        for (int i = 0; i < NX; i++) u[(i + R) + MX * (j + R)] = ru[i + NX * j] /= mass;
    /* 600 steps: the bump crosses the periodic x boundary */
    for (int step = 0; step < 600 && !st; step += 2) { /* u -> v -> u */
        st = fdx_stencil_apply(s, V, U, NULL, NULL, NULL);
        if (!st) st = fdx_stencil_apply(s, U, V, NULL, NULL, NULL);
        ref_step(ru, rv);
        ref_step(rv, ru);
    }
    double total = 0, diff = 0;
    for (int j = 0; j < NY && !st; j++) /* fdx wrote the program's array: read it directly */
        for (int i = 0; i < NX; i++) {
            double a = u[(i + R) + MX * (j + R)], b = ru[i + NX * j];
            total += a;
            diff = fabs(a - b) > diff ? fabs(a - b) : diff;
        }
    if (!st && (diff > 1e-12 || fabs(total - 1) > 1e-12)) {
        fprintf(stderr, "periodic_advdiff: fdx and the plain C loop differ by %g; total %.15f\n", diff, total);
        st = FDX_ERR_VERIFY;
    } else if (!st) {
        printf("periodic_advdiff: ok: 600 periodic steps on the program's own %dx%d array (frame %d): total %.12f, "
               "max difference from plain C %.1e\n", MX, MY, R, total, diff);
    } else {
        fprintf(stderr, "periodic_advdiff: %s\n", fdx_last_error());
    }
    fdx_stencil_destroy(&s);
    fdx_array_destroy(&U); /* the wrappers only: u and v are still ours */
    fdx_array_destroy(&V);
    fdx_ctx_destroy(&ctx);
    fdx_options_destroy(&o);
    free(u);
    free(v);
    free(ru);
    free(rv);
    return st ? 1 : 0;
}
