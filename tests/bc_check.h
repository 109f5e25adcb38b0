/* Boundary conditions against a CPU reference (test_bc on the CPU backend,
   test_bc_gpu on CUDA): random unknowns, a poisoned frame, every kind on
   every face over four configurations; the pass must write each ghost a
   star stencil reads exactly as the formulas of include/fdx/boundary.h say
   and leave every other point alone, bit for bit.  With a stencil attached
   (fdx_stencil_set_boundary) the interior must equal the reference ghosts
   followed by the plain interior kernel. */
#ifndef BC_CHECK_H
#define BC_CHECK_H

#include "fdx_test.h"

#include <string.h>

#define BC_POISON 1.0e30

static inline fdx_ctx *bc_ctx(const char *backend)
{
    fdx_options *o = NULL;
    fdx_ctx *ctx = NULL;
    CHECK_OK(fdx_options_create(&o));
    if (o && fdx_options_set(o, "backend", backend) == FDX_OK && fdx_options_set(o, "tune", "off") == FDX_OK)
        CHECK_OK(fdx_ctx_create(o, &ctx));
    fdx_options_destroy(&o);
    return ctx;
}

static inline double bc_get(const void *b, int dbl, int64_t i)
{
    return dbl ? ((const double *)b)[i] : (double)((const float *)b)[i];
}
static inline void bc_set(void *b, int dbl, int64_t i, double v)
{
    if (dbl) ((double *)b)[i] = v;
    else ((float *)b)[i] = (float)v;
}

/* Configuration c of the faces of `rank` axes: every kind on every face
   over c = 0..3 (A: Dirichlet low, Neumann high; B: Neumann low, Dirichlet
   values high; C: all periodic; D: none low / Dirichlet high on x, periodic
   y, Dirichlet values low / Neumann high on z). */
static inline void bc_config(int c, int rank, uint64_t *seed, fdx_bc_desc *bc)
{
    memset(bc, 0, sizeof *bc);
    for (int a = 0; a < rank; a++) {
        fdx_bc_face *lo = &bc->face[a][0], *hi = &bc->face[a][1];
        int k = c == 3 ? a : c; /* D: x as A-like, y periodic, z as B */
        if (c == 3 && a == 0) {
            lo->kind = FDX_FACE_NONE, hi->kind = FDX_FACE_DIRICHLET, hi->value = fdx_test_rand(seed);
            continue;
        }
        if (c == 3) k = a == 1 ? 2 : 1;
        if (k == 0) {
            lo->kind = FDX_FACE_DIRICHLET, lo->value = fdx_test_rand(seed);
            hi->kind = FDX_FACE_NEUMANN, hi->value = fdx_test_rand(seed);
        } else if (k == 1) {
            lo->kind = FDX_FACE_NEUMANN, lo->value = fdx_test_rand(seed);
            hi->kind = FDX_FACE_DIRICHLET, hi->value = 0; /* values from an array (bc_case) */
        } else {
            lo->kind = hi->kind = FDX_FACE_PERIODIC;
        }
    }
}

/* The reference pass on a host copy (element type `dbl`). */
static inline void bc_reference(const fdx_bc_desc *bc, int rank, int r, const int64_t *n, const double *h, int dbl,
                                void *const *gv, void *u)
{
    int64_t n3[3] = {1, 1, 1}, st[3];
    for (int a = 0; a < rank; a++) n3[a] = n[a];
    st[0] = 1, st[1] = n3[0], st[2] = n3[0] * n3[1];
    for (int a = 0; a < rank; a++)
        for (int s = 0; s < 2; s++) {
            const fdx_bc_face *f = &bc->face[a][s];
            if (f->kind == FDX_FACE_NONE) continue;
            int64_t lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
            for (int b = 0; b < rank; b++) lo[b] = b == a ? 0 : r, hi[b] = b == a ? r : n3[b] - r;
            int64_t x[3];
            for (x[2] = lo[2]; x[2] < hi[2]; x[2]++)
                for (x[1] = lo[1]; x[1] < hi[1]; x[1]++)
                    for (x[0] = lo[0]; x[0] < hi[0]; x[0]++) {
                        int64_t k = x[a], y[3] = {x[0], x[1], x[2]}, m[3] = {x[0], x[1], x[2]};
                        y[a] = s ? n3[a] - r + k : r - 1 - k;
                        if (f->kind == FDX_FACE_PERIODIC) m[a] = s ? y[a] - (n3[a] - 2 * r) : y[a] + (n3[a] - 2 * r);
                        else m[a] = s ? n3[a] - r - 1 - k : r + k;
                        int64_t ig = y[0] + y[1] * st[1] + y[2] * st[2], im = m[0] + m[1] * st[1] + m[2] * st[2];
                        double um = bc_get(u, dbl, im), v;
                        if (f->kind == FDX_FACE_PERIODIC) v = um;
                        else if (f->kind == FDX_FACE_NEUMANN) {
                            double d = (2 * k + 1) * h[a] * f->value;
                            if (!dbl) d = (float)d;
                            v = dbl ? um + d : (double)((float)um + (float)d);
                        } else {
                            double g;
                            if (f->values) {
                                int64_t gi = 0, gs = 1;
                                for (int b = 0; b < rank; b++) {
                                    if (b != a) gi += y[b] * gs;
                                    gs *= b == a ? 1 : n3[b];
                                }
                                g = bc_get(gv[2 * a + s], dbl, gi);
                            } else {
                                g = dbl ? f->value : (double)(float)f->value;
                            }
                            v = dbl ? (g + g) - um : (double)(((float)g + (float)g) - (float)um);
                        }
                        bc_set(u, dbl, ig, v);
                    }
        }
}

/* u's host copy = input, out poisoned, one apply of s; out's result into
   `result` (when not NULL; it stays in out's host copy). */
static inline void bc_stencil_once(fdx_ctx *ctx, fdx_stencil *s, fdx_array *out, fdx_array *u, const void *input,
                                   void *result)
{
    size_t bytes = fdx_array_bytes(u);
    int dbl = fdx_array_dtype(u) == FDX_FLOAT64;
    memcpy(fdx_array_host(u), input, bytes);
    CHECK_OK(fdx_array_to_device(u));
    for (int64_t i = 0; i < fdx_array_count(out); i++) bc_set(fdx_array_host(out), dbl, i, BC_POISON);
    CHECK_OK(fdx_array_to_device(out));
    CHECK_OK(fdx_stencil_apply(s, out, u, NULL, NULL, NULL));
    CHECK_OK(fdx_ctx_sync(ctx));
    CHECK_OK(fdx_array_to_host(out));
    if (result) memcpy(result, fdx_array_host(out), bytes);
}

/* One case: the pass (and with_stencil, the stencil with the pass) on ctx. */
static inline void bc_case(fdx_ctx *ctx, fdx_dtype dt, int rank, int order, int config, uint64_t seed,
                           int with_stencil)
{
    int dbl = dt == FDX_FLOAT64, r = order / 2;
    size_t e = dbl ? 8 : 4;
    int64_t n[3] = {3 * r + 5, 3 * r + 2, 3 * r + 1};
    if (rank == 1) n[0] = 3 * r + 40;
    double h[3] = {0.5, 0.25, 2.0};
    int64_t count = 1;
    for (int a = 0; a < rank; a++) count *= n[a];
    char what[96];
    snprintf(what, sizeof what, "%s rank %d order %d config %c", dbl ? "double" : "float", rank, order, 'A' + config);
    fdx_bc_desc bc;
    bc_config(config, rank, &seed, &bc);
    fdx_array *u = NULL, *g[6] = {0}, *out = NULL;
    void *gv[6] = {0};
    CHECK_OK(fdx_array_create(ctx, dt, rank, n, FDX_ON_HOST | FDX_ON_DEVICE, &u));
    if (!u) return;
    for (int f = 0; f < 2 * rank; f++) {
        fdx_bc_face *face = &bc.face[f / 2][f % 2];
        if (face->kind != FDX_FACE_DIRICHLET || !(config == 1 || (config == 3 && f == 4))) continue;
        int64_t gs[3] = {n[0], n[1], n[2]};
        gs[f / 2] = 1;
        CHECK_OK(fdx_array_create(ctx, dt, rank, gs, FDX_ON_HOST | FDX_ON_DEVICE, &g[f]));
        if (!g[f]) continue;
        gv[f] = fdx_array_host(g[f]);
        for (int64_t i = 0; i < fdx_array_count(g[f]); i++) bc_set(gv[f], dbl, i, fdx_test_rand(&seed));
        CHECK_OK(fdx_array_to_device(g[f]));
        face->values = g[f];
    }
    /* unknowns random, the whole frame poisoned */
    void *hu = fdx_array_host(u), *ref = malloc((size_t)count * e), *in = malloc((size_t)count * e);
    for (int64_t i = 0; i < count; i++) {
        int64_t x[3] = {i % n[0], rank > 1 ? i / n[0] % n[1] : 0, rank > 2 ? i / (n[0] * n[1]) : 0};
        int frame = 0;
        for (int a = 0; a < rank; a++) frame |= x[a] < r || x[a] >= n[a] - r;
        bc_set(hu, dbl, i, frame ? BC_POISON : fdx_test_rand(&seed));
    }
    memcpy(ref, hu, (size_t)count * e);
    memcpy(in, hu, (size_t)count * e);
    bc_reference(&bc, rank, r, n, h, dbl, gv, ref);
    CHECK_OK(fdx_array_to_device(u));
    fdx_bc *pass = NULL;
    CHECK_OK(fdx_bc_create(ctx, &bc, rank, r, h, dt, &pass));
    CHECK_OK(fdx_bc_apply(pass, u, NULL));
    CHECK_OK(fdx_ctx_sync(ctx));
    CHECK_OK(fdx_array_to_host(u));
    int64_t bad = 0, first = -1;
    for (int64_t i = 0; i < count; i++)
        if (memcmp((char *)hu + i * e, (char *)ref + i * e, e) != 0) bad++, first = first < 0 ? i : first;
    CHECK(bad == 0, "%s: %lld points differ from the reference, first at %lld (%g, expected %g)", what, (long long)bad,
          (long long)first, first >= 0 ? bc_get(hu, dbl, first) : 0.0, first >= 0 ? bc_get(ref, dbl, first) : 0.0);
    fdx_bc_destroy(&pass);
    if (with_stencil) {
        /* the stencil with the pass attached on the poisoned input, against
           the reference ghosts then the plain stencil */
        fdx_stencil_desc d;
        fdx_stencil_desc_laplacian(&d, rank, order, h);
        d.update = FDX_UPDATE_HEAT, d.alpha = 0.1;
        fdx_stencil *with = NULL, *plain = NULL;
        CHECK_OK(fdx_stencil_create(ctx, &d, dt, &with));
        CHECK_OK(fdx_stencil_create(ctx, &d, dt, &plain));
        CHECK_OK(fdx_stencil_set_boundary(with, &bc));
        CHECK_OK(fdx_array_create(ctx, dt, rank, n, FDX_ON_HOST | FDX_ON_DEVICE, &out));
        if (with && plain && out) {
            void *ho = fdx_array_host(out), *got = malloc((size_t)count * e);
            bc_stencil_once(ctx, with, out, u, in, got);  /* poisoned ghosts, the pass attached */
            bc_stencil_once(ctx, plain, out, u, ref, NULL); /* reference ghosts, no pass */
            bad = 0;
            for (int64_t i = 0; i < count; i++) bad += memcmp((char *)ho + i * e, (char *)got + i * e, e) != 0;
            CHECK(bad == 0, "%s: stencil with the pass differs from reference ghosts + stencil at %lld points", what,
                  (long long)bad);
            /* and the interior is finite: no poisoned ghost was read */
            int64_t poisoned = 0;
            for (int64_t i = 0; i < count; i++) {
                int64_t x[3] = {i % n[0], rank > 1 ? i / n[0] % n[1] : 0, rank > 2 ? i / (n[0] * n[1]) : 0};
                int frame = 0;
                for (int a = 0; a < rank; a++) frame |= x[a] < r || x[a] >= n[a] - r;
                double v = bc_get(got, dbl, i);
                if (!frame && !(fabs(v) < 1e20)) poisoned++;
            }
            CHECK(poisoned == 0 || config == 3, "%s: %lld interior outputs read a poisoned ghost", what, (long long)poisoned);
            free(got);
        }
        fdx_stencil_destroy(&with);
        fdx_stencil_destroy(&plain);
        fdx_array_destroy(&out);
    }
    for (int f = 0; f < 6; f++) fdx_array_destroy(&g[f]);
    fdx_array_destroy(&u);
    free(ref);
    free(in);
}

#endif
