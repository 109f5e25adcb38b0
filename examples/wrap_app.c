/* fdx on the program's own memory: the heat equation du/dt = L u on a 2D
   grid the program allocated itself, stepped with fdx_laplacian_apply on
   arrays that wrap that memory (no copies in or out), on the CPU backend so
   the program's malloc'ed buffers are the working copies.  On a GPU the same
   calls take cudaMalloc'ed pointers as the device pointer of fdx_array_wrap,
   and fdx_ctx_set_stream puts the work on the program's own stream.
   Also checks that the libfdx it runs with is the one it was compiled for.
   Build: cc wrap_app.c $(pkg-config --cflags --libs fdx) */
#include <fdx.h>

#include <stdio.h>
#include <stdlib.h>

#define NX 64
#define NY 48

int main(void)
{
    if (fdx_version() != FDX_VERSION) {
        fprintf(stderr, "wrap_app: compiled against fdx %s, running with %s\n", FDX_VERSION_STRING,
                fdx_version_string());
        return 1;
    }
    fdx_options *o = NULL;
    fdx_ctx *ctx = NULL;
    fdx_array *U = NULL, *L = NULL;
    const int64_t n[2] = {NX, NY};
    const double h[2] = {1, 1}, dt = 0.2;
    double *u = calloc(NX * NY, sizeof *u), *lap = calloc(NX * NY, sizeof *lap); /* the program's memory */
    fdx_status st = u && lap ? fdx_options_create(&o) : FDX_ERR_NOMEM;
    if (st == FDX_OK) st = fdx_options_set(o, "backend", "cpu");
    if (st == FDX_OK) st = fdx_ctx_create(o, &ctx);
    if (st == FDX_OK) st = fdx_array_wrap(ctx, FDX_FLOAT64, 2, n, NULL, u, NULL, 0, &U);
    if (st == FDX_OK) st = fdx_array_wrap(ctx, FDX_FLOAT64, 2, n, NULL, lap, NULL, 0, &L);
    u[NX / 2 + NX * (NY / 2)] = 1; /* a unit of heat in the middle */
    for (int step = 0; step < 50 && st == FDX_OK; step++) {
        st = fdx_laplacian_apply(L, U, h, NULL); /* writes lap[] directly */
        for (int j = 1; j < NY - 1; j++)
            for (int i = 1; i < NX - 1; i++) u[i + NX * j] += dt * lap[i + NX * j];
    }
    double total = 0;
    for (int q = 0; q < NX * NY; q++) total += u[q];
    if (st == FDX_OK)
        printf("fdx %s: heat after 50 steps on the program's own arrays: total %.6f (expect 1.000000), centre %.6f\n",
               fdx_version_string(), total, u[NX / 2 + NX * (NY / 2)]);
    else
        fprintf(stderr, "wrap_app: %s\n", fdx_last_error());
    fdx_array_destroy(&U); /* the wrappers only: u and lap are still ours */
    fdx_array_destroy(&L);
    fdx_ctx_destroy(&ctx);
    fdx_options_destroy(&o);
    free(u);
    free(lap);
    return st == FDX_OK ? 0 : 1;
}
