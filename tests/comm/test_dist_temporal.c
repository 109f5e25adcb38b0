/* Deep halos (fdx_dstencil_set_temporal): distributed heat and wave runs of
   k steps a pass on grids of CPU units in one process (the slowest axis
   split, two axes split with corners, three units along an axis), shadows
   of k r exchanged once a pass, bit-identical to the same run on one unit
   one step a pass, at every point (the current field and the wave's
   previous), for depths 2-4 with a shallower last pass, orders 2 and 4,
   float and double, a wave with and without coefficients.  Also the
   refusals: shadows narrower than k r, two split axes without corners.
   (A GPU split into units: test_dist_temporal_gpu, the same with CUDA.) */
#include "fdx_test.h"

#include <string.h>

#ifndef DIST_TEMPORAL_BACKEND
#define DIST_TEMPORAL_BACKEND "cpu"
#define DIST_TEMPORAL_NAME "test_dist_temporal"
#endif

static uint64_t mix(uint64_t x)
{
    x = (x ^ (x >> 31)) * 0x7FB5D329728EA185ULL;
    x = (x ^ (x >> 27)) * 0x81DADEF4BC2DD44DULL;
    return x ^ (x >> 33);
}

/* arg: n[0..2] the global extents, n[3] a seed, n[4] the radius, n[5] 1 for
   coefficients (positive).  Points within r of a face (the global frame)
   take seed 0's values, so every field of a ring shares its frame. */
static double field_value(const int64_t *g, void *arg)
{
    const int64_t *n = arg;
    int frame = 0;
    for (int a = 0; a < 3; a++) frame |= n[a] > 1 && (g[a] < n[4] || g[a] >= n[a] - n[4]);
    uint64_t seed = frame && !n[5] ? 0 : (uint64_t)n[3];
    uint64_t q = (uint64_t)(g[0] + n[0] * (g[1] + n[1] * g[2]));
    double v = (double)(mix(q * 2654435761ULL + seed) % (1u << 20)) / (1 << 20) - 0.5;
    return n[5] ? 0.75 + 0.25 * v : v;
}

typedef struct trun {
    int rank, order, nf, coef; /* nf 3: wave, 2: heat */
    int64_t shape[3];
    fdx_dtype type;
    int steps, k;
} trun;

/* The fields after the run: cur, then (wave) prev, gathered; NULL on failure. */
static void *run(const trun *c, const int *grid, int k, int corners)
{
    fdx_dist_desc dd = {0};
    fdx_stencil_desc sd;
    double h[3] = {0.5, 1, 2};
    fdx_stencil_desc_laplacian(&sd, c->rank, c->order, h);
    sd.update = c->nf == 3 ? FDX_UPDATE_WAVE : FDX_UPDATE_HEAT;
    sd.alpha = c->nf == 3 ? 0.05 : 0.02;
    sd.coef = c->coef;
    int r = c->order / 2;
    dd.rank = c->rank;
    dd.units_per_proc = 1;
    dd.corners = corners;
    for (int a = 0; a < c->rank; a++) {
        dd.shape[a] = c->shape[a], dd.grid[a] = grid[a], dd.shadow[a] = grid[a] > 1 ? (k > 1 ? k : 1) * r : 0;
        dd.units_per_proc *= grid[a];
    }
    fdx_options *o = NULL;
    CHECK_OK(fdx_options_create(&o));
    if (!o) return NULL;
    fdx_options_set(o, "backend", DIST_TEMPORAL_BACKEND);
    fdx_options_set(o, "tune", "off");
    fdx_dist *d = NULL;
    CHECK_OK(fdx_dist_create(o, &dd, &d));
    fdx_options_destroy(&o);
    if (!d) return NULL;
    fdx_dstencil *s = NULL;
    fdx_darray *b[3] = {NULL, NULL, NULL}, *cf = NULL;
    CHECK_OK(fdx_dstencil_create(d, &sd, c->type, &s));
    if (s) CHECK_OK(fdx_dstencil_set_temporal(s, k));
    int64_t n[6] = {c->shape[0], c->rank > 1 ? c->shape[1] : 1, c->rank > 2 ? c->shape[2] : 1, 0, r, 0};
    int ok = s != NULL;
    for (int f = 0; f < c->nf; f++) {
        CHECK_OK(fdx_darray_create(d, c->type, &b[f]));
        n[3] = 11 + f;
        if (b[f]) CHECK_OK(fdx_darray_fill(b[f], field_value, n));
        ok = ok && b[f];
    }
    if (c->coef) {
        CHECK_OK(fdx_darray_create(d, c->type, &cf));
        n[3] = 5, n[5] = 1;
        if (cf) CHECK_OK(fdx_darray_fill(cf, field_value, n));
        ok = ok && cf;
    }
    void *out = NULL;
    size_t bytes = (size_t)(n[0] * n[1] * n[2]) * fdx_dtype_size(c->type);
    if (ok) {
        CHECK_OK(fdx_dstencil_run(s, b, c->nf, cf, c->steps, 0, 0));
        out = calloc(2, bytes);
        if (out) {
            CHECK_OK(fdx_darray_gather(b[c->nf - 2], out, 1));
            if (c->nf == 3) CHECK_OK(fdx_darray_gather(b[0], (char *)out + bytes, 1));
        }
    }
    fdx_dstencil_destroy(&s);
    for (int f = 0; f < 3; f++) fdx_darray_destroy(&b[f]);
    fdx_darray_destroy(&cf);
    fdx_dist_destroy(&d);
    return out;
}

static void check_case(const trun *c, const int (*grids)[3], int ngrids)
{
    static const int one[3] = {1, 1, 1};
    void *ref = run(c, one, 0, 0);
    if (!ref) return;
    size_t bytes = (size_t)(c->shape[0] * (c->rank > 1 ? c->shape[1] : 1) * (c->rank > 2 ? c->shape[2] : 1)) *
                   fdx_dtype_size(c->type);
    for (int g = 0; g < ngrids; g++) {
        void *got = run(c, grids[g], c->k, 1);
        if (!got) continue;
        for (int f = 0; f < (c->nf == 3 ? 2 : 1); f++) {
            size_t bad = 0;
            const unsigned char *x = (const unsigned char *)got + f * bytes, *y = (const unsigned char *)ref + f * bytes;
            for (size_t i = 0; i < bytes; i++) bad += x[i] != y[i];
            CHECK(bad == 0, "%dD %s%s order %d %s k %d, %d steps on %dx%dx%d units: %s: %zu bytes differ from one unit, "
                  "one step a pass", c->rank, c->nf == 3 ? "wave" : "heat", c->coef ? " coef" : "", c->order,
                  fdx_dtype_name(c->type), c->k, c->steps, grids[g][0], grids[g][1], grids[g][2], f ? "u_prev" : "u",
                  bad);
        }
        free(got);
    }
    free(ref);
}

static void refusals(void)
{
    fdx_dist_desc dd = {0};
    dd.rank = 2, dd.shape[0] = 40, dd.shape[1] = 30, dd.grid[0] = 2, dd.grid[1] = 2;
    dd.shadow[0] = dd.shadow[1] = 2, dd.units_per_proc = 4;
    fdx_options *o = NULL;
    CHECK_OK(fdx_options_create(&o));
    if (!o) return;
    fdx_options_set(o, "backend", DIST_TEMPORAL_BACKEND);
    fdx_dist *d = NULL;
    CHECK_OK(fdx_dist_create(o, &dd, &d));
    fdx_options_destroy(&o);
    if (!d) return;
    fdx_stencil_desc sd;
    fdx_stencil_desc_laplacian(&sd, 2, 2, NULL);
    sd.update = FDX_UPDATE_HEAT, sd.alpha = 0.1;
    fdx_dstencil *s = NULL;
    CHECK_OK(fdx_dstencil_create(d, &sd, FDX_FLOAT64, &s));
    if (s) {
        CHECK_FAILS(fdx_dstencil_set_temporal(s, 3), FDX_ERR_INVALID);     /* shadows 2 < 3 x 1 */
        CHECK_FAILS(fdx_dstencil_set_temporal(s, 2), FDX_ERR_UNSUPPORTED); /* two split axes, no corners */
        CHECK_FAILS(fdx_dstencil_set_temporal(s, 9), FDX_ERR_INVALID);
        CHECK_OK(fdx_dstencil_set_temporal(s, 1));
    }
    fdx_dstencil_destroy(&s);
    fdx_dist_destroy(&d);
}

int main(void)
{
    if (strcmp(DIST_TEMPORAL_BACKEND, "cuda") == 0 && fdx_cuda_device_count() == 0)
        return fdx_test_skip(DIST_TEMPORAL_NAME, "no CUDA device");
    refusals();
    static const int g2[][3] = {{1, 2, 1}, {2, 2, 1}, {1, 3, 1}}, g3[][3] = {{1, 1, 2}, {2, 1, 2}, {1, 1, 3}};
    static const trun cases[] = {
        {2, 2, 2, 0, {41, 37, 1}, FDX_FLOAT64, 7, 3},  {2, 4, 2, 0, {43, 39, 1}, FDX_FLOAT32, 6, 2},
        {2, 2, 3, 0, {41, 37, 1}, FDX_FLOAT32, 9, 4},  {2, 4, 3, 1, {45, 40, 1}, FDX_FLOAT64, 5, 2},
        {3, 2, 2, 0, {19, 17, 23}, FDX_FLOAT32, 5, 2}, {3, 2, 3, 1, {19, 17, 25}, FDX_FLOAT64, 7, 3},
        {3, 4, 3, 0, {21, 18, 27}, FDX_FLOAT32, 4, 2},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_case(&cases[i], cases[i].rank == 3 ? g3 : g2, 3);
    return fdx_test_finish(DIST_TEMPORAL_NAME);
}
