/* temporal_check: fdx_stencil_steps against nsteps single applies on one
   backend (test_temporal.c on the CPU, test_temporal_gpu.c on CUDA).  A
   heat stencil with random weights per axis (first-derivative terms on some
   axes) on random inputs; the stepped array's tmp is poisoned with NaN in
   its interior (its frame is u's, as the API asks).  The result must be
   bit-identical to the applies alternating between two arrays, the frame
   untouched, and differ from the input (so a no-op cannot pass). */
#ifndef TEMPORAL_CHECK_H
#define TEMPORAL_CHECK_H

#include "fdx_test.h"

#include <string.h>

#define FDX_TEST_UNUSED __attribute__((unused))

FDX_TEST_UNUSED static fdx_status tc_fill(fdx_array *a, const fdx_array *from, uint64_t *seed, int poison_interior, int r)
{
    int64_t n = fdx_array_count(a), ext[3] = {1, 1, 1};
    int rank = fdx_array_rank(a), dbl = fdx_array_dtype(a) == FDX_FLOAT64;
    for (int d = 0; d < rank; d++) ext[d] = fdx_array_extent(a, d);
    void *p = fdx_array_host(a);
    const void *q = from ? fdx_array_host((fdx_array *)from) : NULL;
    for (int64_t i = 0; i < n; i++) {
        int64_t c[3] = {i % ext[0], (i / ext[0]) % ext[1], i / (ext[0] * ext[1])};
        int interior = 1;
        for (int d = 0; d < rank; d++) interior &= c[d] >= r && c[d] < ext[d] - r;
        double v = q ? (dbl ? ((const double *)q)[i] : ((const float *)q)[i]) : fdx_test_rand(seed);
        if (poison_interior && interior) v = NAN;
        if (dbl) ((double *)p)[i] = v;
        else ((float *)p)[i] = (float)v;
    }
    return fdx_array_to_device(a);
}

/* One case; `what` names it in failures. */
FDX_TEST_UNUSED static void tc_case(fdx_ctx *ctx, int rank, int order, fdx_dtype dt, const int64_t *shape, int64_t nsteps,
                    int temporal, uint64_t *seed, const char *what)
{
    fdx_stencil_desc d;
    double h[3] = {1, 1, 1};
    fdx_stencil_desc_laplacian(&d, rank, order, h);
    d.update = FDX_UPDATE_HEAT;
    for (int a = 0; a < rank; a++) {
        d.d2[a] = 0.5 + 0.25 * fdx_test_rand(seed);
        d.d1[a] = a == 1 ? 0.1 * fdx_test_rand(seed) : 0;
    }
    d.d0 = 0.01 * fdx_test_rand(seed);
    d.alpha = 0.05;
    int r = order / 2;
    fdx_stencil *s = NULL;
    fdx_array *u = NULL, *tmp = NULL, *ru = NULL, *rt = NULL;
    unsigned places = FDX_ON_HOST | FDX_ON_DEVICE;
    CHECK_OK(fdx_stencil_create(ctx, &d, dt, &s));
    CHECK_OK(fdx_array_create(ctx, dt, rank, shape, places, &u));
    CHECK_OK(fdx_array_create(ctx, dt, rank, shape, places, &tmp));
    CHECK_OK(fdx_array_create(ctx, dt, rank, shape, places, &ru));
    CHECK_OK(fdx_array_create(ctx, dt, rank, shape, places, &rt));
    if (!s || !u || !tmp || !ru || !rt) goto done;
    CHECK_OK(tc_fill(u, NULL, seed, 0, r));
    CHECK_OK(tc_fill(tmp, u, seed, 1, r));
    CHECK_OK(tc_fill(ru, u, seed, 0, r));
    CHECK_OK(tc_fill(rt, u, seed, 0, r));
    size_t bytes = fdx_array_bytes(u), esize = dt == FDX_FLOAT64 ? 8 : 4;
    unsigned char *in = malloc(bytes);
    if (!in) goto done;
    memcpy(in, fdx_array_host(u), bytes);
    /* The reference: single applies between ru and rt. */
    fdx_array *src = ru, *dst = rt;
    for (int64_t i = 0; i < nsteps; i++) {
        CHECK_OK(fdx_stencil_apply(s, dst, src, NULL, NULL, NULL));
        fdx_array *t = src;
        src = dst, dst = t;
    }
    CHECK_OK(fdx_stencil_steps(s, u, tmp, nsteps, temporal, NULL));
    CHECK_OK(fdx_array_to_host(u));
    CHECK_OK(fdx_array_to_host(src));
    const unsigned char *a = fdx_array_host(u), *b = fdx_array_host(src);
    size_t differ = 0, first = 0, moved = 0;
    for (size_t i = 0; i < bytes; i++) {
        if (a[i] != b[i] && !differ++) first = i / esize;
        moved += a[i] != in[i];
    }
    char cfg[96];
    int depth = fdx_stencil_steps_depth(s, shape, cfg, sizeof cfg);
    CHECK(differ == 0, "%s (%s): %zu bytes differ from %lld single steps, the first in element %zu", what, cfg,
          differ, (long long)nsteps, first);
    CHECK(temporal < 2 || depth == temporal, "%s: depth %d used, %d asked", what, depth, temporal);
    CHECK(nsteps == 0 || moved > 0, "%s: the steps left u as it was", what);
    /* The frame is the input's. */
    int64_t n = fdx_array_count(u), ext[3] = {1, 1, 1};
    for (int k = 0; k < rank; k++) ext[k] = shape[k];
    size_t frame_changed = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t c[3] = {i % ext[0], (i / ext[0]) % ext[1], i / (ext[0] * ext[1])};
        int interior = 1;
        for (int k = 0; k < rank; k++) interior &= c[k] >= r && c[k] < ext[k] - r;
        if (!interior) frame_changed += memcmp(a + i * esize, in + i * esize, esize) != 0;
    }
    CHECK(frame_changed == 0, "%s: %zu frame points changed", what, frame_changed);
    free(in);
done:
    fdx_array_destroy(&u);
    fdx_array_destroy(&tmp);
    fdx_array_destroy(&ru);
    fdx_array_destroy(&rt);
    fdx_stencil_destroy(&s);
}

/* Copies from's frame (points within r of a face) into a. */
FDX_TEST_UNUSED static void tc_copy_frame(fdx_array *a, const fdx_array *from, int r)
{
    int64_t n = fdx_array_count(a), ext[3] = {1, 1, 1};
    int rank = fdx_array_rank(a);
    size_t es = fdx_array_dtype(a) == FDX_FLOAT64 ? 8 : 4;
    for (int d = 0; d < rank; d++) ext[d] = fdx_array_extent(a, d);
    unsigned char *p = fdx_array_host(a);
    const unsigned char *q = fdx_array_host((fdx_array *)from);
    for (int64_t i = 0; i < n; i++) {
        int64_t c[3] = {i % ext[0], (i / ext[0]) % ext[1], i / (ext[0] * ext[1])};
        int interior = 1;
        for (int d = 0; d < rank; d++) interior &= c[d] >= r && c[d] < ext[d] - r;
        if (!interior) memcpy(p + i * es, q + i * es, es);
    }
}

/* The wave stepper: fdx_stencil_wave_steps against nsteps applies rotating
   three arrays (u_prev <- u <- next), with a coefficient array or none;
   u_prev random inside, u's frame (as every scratch array's); the scratch
   arrays' interiors NaN.  u and u_prev must both match bit for bit. */
FDX_TEST_UNUSED static void tc_wave_case(fdx_ctx *ctx, int rank, int order, fdx_dtype dt, const int64_t *shape, int64_t nsteps,
                         int temporal, int coef, uint64_t *seed, const char *what)
{
    fdx_stencil_desc d;
    fdx_stencil_desc_laplacian(&d, rank, order, NULL);
    d.update = FDX_UPDATE_WAVE;
    for (int a = 0; a < rank; a++) d.d2[a] = 0.5 + 0.25 * fdx_test_rand(seed);
    d.alpha = 0.05;
    d.coef = coef;
    int r = order / 2;
    fdx_stencil *s = NULL;
    enum { U, UP, T1, T2, CF, RU, RP, RN, NA };
    fdx_array *a[NA] = {NULL};
    unsigned places = FDX_ON_HOST | FDX_ON_DEVICE;
    CHECK_OK(fdx_stencil_create(ctx, &d, dt, &s));
    int ok = s != NULL;
    for (int i = 0; i < NA; i++) {
        CHECK_OK(fdx_array_create(ctx, dt, rank, shape, places, &a[i]));
        ok = ok && a[i];
    }
    if (!ok) goto done;
    CHECK_OK(tc_fill(a[U], NULL, seed, 0, r));
    CHECK_OK(tc_fill(a[UP], NULL, seed, 0, r));
    tc_copy_frame(a[UP], a[U], r);
    CHECK_OK(fdx_array_to_device(a[UP]));
    CHECK_OK(tc_fill(a[CF], NULL, seed, 0, r));
    CHECK_OK(tc_fill(a[T1], a[U], seed, 1, r));
    CHECK_OK(tc_fill(a[T2], a[U], seed, 1, r));
    CHECK_OK(tc_fill(a[RU], a[U], seed, 0, r));
    CHECK_OK(tc_fill(a[RP], a[UP], seed, 0, r));
    CHECK_OK(tc_fill(a[RN], a[U], seed, 1, r));
    size_t bytes = fdx_array_bytes(a[U]);
    unsigned char *in = malloc(bytes);
    if (!in) goto done;
    memcpy(in, fdx_array_host(a[U]), bytes);
    fdx_array *cf = coef ? a[CF] : NULL, *cur = a[RU], *prv = a[RP], *nxt = a[RN];
    for (int64_t i = 0; i < nsteps; i++) {
        CHECK_OK(fdx_stencil_apply(s, nxt, cur, prv, cf, NULL));
        fdx_array *t = prv;
        prv = cur, cur = nxt, nxt = t;
    }
    CHECK_OK(fdx_stencil_wave_steps(s, a[U], a[UP], cf, a[T1], a[T2], nsteps, temporal, NULL));
    CHECK_OK(fdx_array_to_host(a[U]));
    CHECK_OK(fdx_array_to_host(a[UP]));
    CHECK_OK(fdx_array_to_host(cur));
    CHECK_OK(fdx_array_to_host(prv));
    char cfg[96];
    int depth = fdx_stencil_steps_depth(s, shape, cfg, sizeof cfg);
    const fdx_array *got[2] = {a[U], a[UP]}, *want[2] = {cur, prv};
    for (int w = 0; w < 2; w++) {
        const unsigned char *x = fdx_array_host((fdx_array *)got[w]), *y = fdx_array_host((fdx_array *)want[w]);
        size_t differ = 0, first = 0;
        for (size_t i = 0; i < bytes; i++)
            if (x[i] != y[i] && !differ++) first = i / (dt == FDX_FLOAT64 ? 8 : 4);
        CHECK(differ == 0, "%s (%s): %s: %zu bytes differ from %lld single steps, the first in element %zu", what, cfg,
              w ? "u_prev" : "u", differ, (long long)nsteps, first);
    }
    CHECK(temporal < 2 || nsteps == 0 || depth == temporal, "%s: depth %d used, %d asked", what, depth, temporal);
    CHECK(nsteps == 0 || memcmp(in, fdx_array_host(a[U]), bytes) != 0, "%s: the steps left u as it was", what);
    free(in);
done:
    for (int i = 0; i < NA; i++) fdx_array_destroy(&a[i]);
    fdx_stencil_destroy(&s);
}

#endif
