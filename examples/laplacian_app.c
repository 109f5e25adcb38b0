/* A minimal program using the installed libfdx: the Laplacian of a parabola
   on the best backend.  Build: cc laplacian_app.c $(pkg-config --cflags --libs fdx) */
#include <fdx.h>

#include <stdio.h>

int main(void)
{
    fdx_ctx *ctx = NULL;
    fdx_array *u = NULL, *f = NULL;
    int64_t n[3] = {32, 32, 32};
    double h[3] = {1, 1, 1};
    fdx_status st = fdx_ctx_create(NULL, &ctx);
    if (st == FDX_OK) st = fdx_array_create(ctx, FDX_FLOAT64, 3, n, FDX_ON_HOST | FDX_ON_DEVICE, &u);
    if (st == FDX_OK) st = fdx_array_create(ctx, FDX_FLOAT64, 3, n, FDX_ON_HOST | FDX_ON_DEVICE, &f);
    if (st == FDX_OK) {
        double *p = fdx_array_host(u);
        for (int64_t k = 0; k < n[2]; k++)
            for (int64_t j = 0; j < n[1]; j++)
                for (int64_t i = 0; i < n[0]; i++) p[i + n[0] * (j + n[1] * k)] = (double)(i * i + j * j + k * k);
        st = fdx_array_to_device(u);
    }
    if (st == FDX_OK) st = fdx_laplacian_apply(f, u, h, NULL);
    if (st == FDX_OK) st = fdx_array_to_host(f);
    if (st == FDX_OK) printf("L(i^2+j^2+k^2) at the centre = %g (expect 6) on %s\n",
                            ((double *)fdx_array_host(f))[16 + 32 * (16 + 32 * 16)], fdx_ctx_device_name(ctx));
    else fprintf(stderr, "laplacian_app: %s\n", fdx_last_error());
    fdx_array_destroy(&u);
    fdx_array_destroy(&f);
    fdx_ctx_destroy(&ctx);
    return st == FDX_OK ? 0 : 1;
}
