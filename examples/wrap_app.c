/* fdx on the program's own memory: a periodic advection-diffusion
   u_t + c u_x = D lap u on a 2D grid the program allocated itself, stepped by
   fdx loops over arrays that wrap that memory (no copies in or out; the
   periodic neighbours come from index arithmetic in the loop body), on the
   CPU backend so the malloc'ed buffers are the working copies.  On a GPU the
   same calls take cudaMalloc'ed pointers as the device pointer of
   fdx_array_wrap, and fdx_ctx_set_stream puts the work on the program's own
   stream.  Also checks that the libfdx it runs with is the one it was
   compiled for.  Mass is conserved: the total stays 1.
   Build: cc wrap_app.c $(pkg-config --cflags --libs fdx) */
#include <fdx.h>

#include <stdio.h>
#include <stdlib.h>

#define NX 64
#define NY 48

/* One explicit step from array `from` to array `to`, periodic on both axes. */
static const char *BODY = "long long nx = (long long)NX, ny = (long long)NY; /* scalars are doubles */\n"
                          "long long ip = (i + 1) % nx, im = (i + nx - 1) % nx;\n"
                          "long long jp = (j + 1) % ny, jm = (j + ny - 1) % ny;\n"
                          "T(i,j) = F(i,j) + dt * (D * (F(ip,j) + F(im,j) + F(i,jp) + F(i,jm) - 4 * F(i,j))\n"
                          "                      - c * 0.5 * (F(ip,j) - F(im,j)));\n"
                          "total = T(i,j);";

/* The same step as plain C, to check fdx's result against. */
static void ref_step(const double *f, double *t)
{
    for (int j = 0; j < NY; j++)
        for (int i = 0; i < NX; i++) {
            int ip = (i + 1) % NX, im = (i + NX - 1) % NX, jp = (j + 1) % NY, jm = (j + NY - 1) % NY;
            t[i + NX * j] = f[i + NX * j] + 0.2 * (0.5 * (f[ip + NX * j] + f[im + NX * j] + f[i + NX * jp] +
                                                          f[i + NX * jm] - 4 * f[i + NX * j]) -
                                                   0.8 * 0.5 * (f[ip + NX * j] - f[im + NX * j]));
        }
}

static fdx_status make_step(fdx_ctx *ctx, fdx_array *from, fdx_array *to, fdx_loop **out)
{
    fdx_status st = fdx_loop_create(ctx, "i,j", out);
    if (!st) st = fdx_loop_on(*out, from, NULL);
    if (!st) st = fdx_loop_array(*out, "F", from, FDX_READ);
    if (!st) st = fdx_loop_array(*out, "T", to, FDX_WRITE);
    if (!st) st = fdx_loop_scalar(*out, "NX", NX);
    if (!st) st = fdx_loop_scalar(*out, "NY", NY);
    if (!st) st = fdx_loop_scalar(*out, "dt", 0.2);
    if (!st) st = fdx_loop_scalar(*out, "D", 0.5);
    if (!st) st = fdx_loop_scalar(*out, "c", 0.8);
    if (!st) st = fdx_loop_reduction(*out, "total", FDX_REDUCE_SUM);
    if (!st) st = fdx_loop_body(*out, BODY);
    return st;
}

int main(void)
{
    if (fdx_version() != FDX_VERSION) {
        fprintf(stderr, "wrap_app: compiled against fdx %s, running with %s\n", FDX_VERSION_STRING,
                fdx_version_string());
        return 1;
    }
    fdx_options *o = NULL;
    fdx_ctx *ctx = NULL;
    fdx_array *U = NULL, *V = NULL;
    fdx_loop *uv = NULL, *vu = NULL;
    const int64_t n[2] = {NX, NY};
    double *u = calloc(NX * NY, sizeof *u), *v = calloc(NX * NY, sizeof *v); /* the program's memory */
    double *ru = calloc(NX * NY, sizeof *u), *rv = calloc(NX * NY, sizeof *v);   /* the reference's */
    fdx_status st = u && v && ru && rv ? fdx_options_create(&o) : FDX_ERR_NOMEM;
    if (!st) st = fdx_options_set(o, "backend", "cpu");
    if (!st) st = fdx_ctx_create(o, &ctx);
    if (!st) st = fdx_array_wrap(ctx, FDX_FLOAT64, 2, n, NULL, u, NULL, 0, &U);
    if (!st) st = fdx_array_wrap(ctx, FDX_FLOAT64, 2, n, NULL, v, NULL, 0, &V);
    if (!st) st = make_step(ctx, U, V, &uv);
    if (!st) st = make_step(ctx, V, U, &vu);
    if (!st) u[NX / 2 + NX * (NY / 2)] = ru[NX / 2 + NX * (NY / 2)] = 1; /* a unit of tracer in the middle */
    double total = 0;
    /* 400 steps carry the tracer once around the periodic x axis */
    for (int step = 0; step < 400 && !st; step += 2) { /* u -> v -> u */
        st = fdx_loop_run(uv, NULL);
        if (!st) st = fdx_loop_run(vu, NULL);
        ref_step(ru, rv);
        ref_step(rv, ru);
    }
    if (!st) st = fdx_loop_result(vu, "total", &total, NULL);
    double sum = 0, diff = 0;
    for (int q = 0; q < NX * NY && !st; q++) { /* fdx wrote the program's arrays: read them directly */
        sum += u[q];
        double d = u[q] > ru[q] ? u[q] - ru[q] : ru[q] - u[q];
        diff = d > diff ? d : diff;
    }
    if (!st && diff > 1e-12) {
        fprintf(stderr, "wrap_app: fdx and the plain C loop differ by %g\n", diff);
        st = FDX_ERR_VERIFY;
    } else if (!st) {
        printf("fdx %s: advection-diffusion, 400 periodic steps on the program's own arrays: total %.6f "
               "(expect 1.000000; the loop's sum %.6f), max difference from plain C %.1e\n",
               fdx_version_string(), sum, total, diff);
    } else {
        fprintf(stderr, "wrap_app: %s\n", fdx_last_error());
    }
    fdx_loop_destroy(&uv);
    fdx_loop_destroy(&vu);
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
