/* A 3x3x3 box smoother with fdx user stencils: the separable weights
   (1 2 1)/4 on each axis, 27 terms, applied as sweeps to a noisy field with
   a fixed boundary.  Each sweep writes every point at least one cell from
   the faces; the frame keeps its values (both buffers start with the same
   frame), so the ping-pong sweeps smooth the interior towards the boundary
   data.  Prints the roughness (mean squared difference of neighbours)
   before and after, and checks one point against the formula by hand.
   Runs on the best backend (FDX_BACKEND=cpu or cuda to choose).
   Build: cc box_smoother.c $(pkg-config --cflags --libs fdx) */
#include <fdx.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define N 48

static double roughness(const double *u)
{
    double s = 0;
    for (int64_t k = 0; k < N; k++)
        for (int64_t j = 0; j < N; j++)
            for (int64_t i = 0; i + 1 < N; i++) {
                double d = u[i + 1 + N * (j + N * k)] - u[i + N * (j + N * k)];
                s += d * d;
            }
    return s / ((double)N * N * (N - 1));
}

int main(void)
{
    fdx_ctx *ctx = NULL;
    fdx_array *a = NULL, *b = NULL;
    fdx_ustencil_desc *d = NULL;
    fdx_ustencil *smooth = NULL;
    const int64_t n[3] = {N, N, N};
    double w[27];
    for (int i = 0; i < 27; i++) /* (1 2 1)/4 on each axis, x fastest */
        w[i] = (i % 3 == 1 ? 0.5 : 0.25) * (i / 3 % 3 == 1 ? 0.5 : 0.25) * (i / 9 == 1 ? 0.5 : 0.25);
    fdx_status st = fdx_ctx_create(NULL, &ctx);
    if (st == FDX_OK) st = fdx_ustencil_desc_create(3, 1, 1, 0, &d); /* rank 3, 1 component, 1 input, no coefficients */
    if (st == FDX_OK) st = fdx_ustencil_desc_add_box(d, 0, 0, 1, w);
    if (st == FDX_OK) st = fdx_ustencil_create(ctx, d, FDX_FLOAT64, &smooth);
    if (st == FDX_OK) st = fdx_array_create(ctx, FDX_FLOAT64, 3, n, FDX_ON_HOST | FDX_ON_DEVICE, &a);
    if (st == FDX_OK) st = fdx_array_create(ctx, FDX_FLOAT64, 3, n, FDX_ON_HOST | FDX_ON_DEVICE, &b);
    double before = 0, after = 0, by_hand = 0, got = 0;
    double *noisy = malloc(sizeof(double) * N * N * N);
    if (st == FDX_OK && noisy) {
        /* A smooth wave plus noise; the same data in both buffers. */
        unsigned s = 12345;
        double *pa = fdx_array_host(a), *pb = fdx_array_host(b);
        for (int64_t q = 0; q < N * N * N; q++) {
            s = s * 1103515245u + 12345u;
            double x = (double)(q % N) / N;
            noisy[q] = pa[q] = pb[q] = sin(6.283 * x) + 0.5 * ((double)(s >> 8) / (1 << 24) - 0.5);
        }
        before = roughness(pa);
        /* One point of the first sweep by hand. */
        const int64_t c = 10 + N * (20 + N * 30);
        for (int i = 0; i < 27; i++) by_hand += w[i] * noisy[c + (i % 3 - 1) + N * ((i / 3 % 3 - 1) + N * (i / 9 - 1))];
        st = fdx_array_to_device(a);
        if (st == FDX_OK) st = fdx_array_to_device(b);
        fdx_array *bufs[2] = {a, b};
        for (int sweep = 0; sweep < 10 && st == FDX_OK; sweep++) {
            st = fdx_ustencil_apply(smooth, bufs[1 - sweep % 2], &bufs[sweep % 2], NULL, NULL);
            if (st == FDX_OK && sweep == 0) {
                st = fdx_array_to_host(b);
                got = ((double *)fdx_array_host(b))[c];
            }
        }
        if (st == FDX_OK) st = fdx_array_to_host(a); /* after an even number of sweeps */
        if (st == FDX_OK) after = roughness(fdx_array_host(a));
    }
    int ok = st == FDX_OK && fabs(got - by_hand) <= 1e-12 && after < 0.3 * before; /* the noise goes, the wave stays */
    if (st != FDX_OK) fprintf(stderr, "box_smoother: %s\n", fdx_last_error());
    else printf("box_smoother on %s: roughness %.4g -> %.4g after 10 sweeps; point by hand %.12f, fdx %.12f: %s\n",
                fdx_ctx_device_name(ctx), before, after, by_hand, got, ok ? "ok" : "WRONG");
    free(noisy);
    fdx_array_destroy(&a);
    fdx_array_destroy(&b);
    fdx_ustencil_destroy(&smooth);
    fdx_ustencil_desc_destroy(&d);
    fdx_ctx_destroy(&ctx);
    return ok ? 0 : 1;
}
