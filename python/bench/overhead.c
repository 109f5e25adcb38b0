/* The C side of the per-call overhead measurement (python/bench/gpu_check.py):
   host wall time per fdx_stencil_apply of a 7-point Laplacian on a small
   array, calls issued back to back on the default stream, synchronised at
   the end.
   - As a program: prints one number, microseconds per call, for arrays of
     its own (cc overhead.c -I include -L build-gpu/lib -lfdx).
   - As a shared object (cc -shared -fPIC ...): fdx_overhead_loop(s, out, u,
     calls) times the same loop on the caller's stencil and arrays, so that
     gpu_check.py measures the C call in its own process on the very arrays
     its Python calls use, interleaved with them (drift and another process's
     state then cancel out). */
#include <fdx.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* Microseconds per fdx_stencil_apply(s, out, u) over `calls` calls, or a
   negative number when a call failed (fdx_last_error says why). */
double fdx_overhead_loop(fdx_stencil *s, fdx_array *out, fdx_array *u, int calls);

double fdx_overhead_loop(fdx_stencil *s, fdx_array *out, fdx_array *u, int calls)
{
    fdx_ctx *ctx = fdx_array_ctx(u);
    fdx_status st = fdx_ctx_sync(ctx);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int i = 0; i < calls && !st; i++) st = fdx_stencil_apply(s, out, u, NULL, NULL, NULL);
    if (!st) st = fdx_ctx_sync(ctx);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (st) return -1.0;
    return ((double)(t1.tv_sec - t0.tv_sec) * 1e6 + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-3) / calls;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 32, calls = argc > 2 ? atoi(argv[2]) : 20000;
    fdx_ctx *ctx = NULL;
    fdx_array *u = NULL, *o = NULL;
    fdx_stencil *s = NULL;
    fdx_stencil_desc d;
    const int64_t shape[3] = {n, n, n};
    fdx_stencil_desc_laplacian(&d, 3, 2, NULL);
    fdx_status st = fdx_ctx_create(NULL, &ctx);
    if (!st) st = fdx_array_create(ctx, FDX_FLOAT64, 3, shape, FDX_ON_HOST | FDX_ON_DEVICE, &u);
    if (!st) st = fdx_array_create(ctx, FDX_FLOAT64, 3, shape, FDX_ON_HOST | FDX_ON_DEVICE, &o);
    if (!st) st = fdx_stencil_create(ctx, &d, FDX_FLOAT64, &s);
    for (int i = 0; i < 100 && !st; i++) st = fdx_stencil_apply(s, o, u, NULL, NULL, NULL); /* compile, tune, warm */
    double us = st ? -1.0 : fdx_overhead_loop(s, o, u, calls);
    if (us < 0) {
        fprintf(stderr, "overhead: %s\n", fdx_last_error());
        return 3;
    }
    printf("%.4f\n", us);
    fdx_stencil_destroy(&s);
    fdx_array_destroy(&u);
    fdx_array_destroy(&o);
    fdx_ctx_destroy(&ctx);
    return 0;
}
