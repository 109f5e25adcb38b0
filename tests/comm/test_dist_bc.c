/* Boundary conditions on distributed stencils (CPU units in one process):
   periodic axes through the exchange (first and last units, or one unit
   with itself), Dirichlet and Neumann faces filled only on the units at the
   global boundary; wave and heat steps, step by step and in runs, on grids
   of 1 to 4 units, equal the whole-grid stencil with the same conditions
   (fdx_stencil_set_boundary) bit for bit at every unknown.  Also the
   errors: conditions that disagree with the distribution's periodic axes,
   a frame other than the radius, values arrays.  Under mpirun (Open MPI:
   OMPI_COMM_WORLD_SIZE) the units are spread over the ranks (grids whose
   unit count the ranks do not divide are left out) and the periodic end
   faces cross processes; cli_dist_bc_mpi runs it so. */
#include "fdx_test.h"

#include <string.h>

/* MPI ranks of the job this test runs in (1 without mpirun). */
static int job_procs(void)
{
    const char *v = getenv("OMPI_COMM_WORLD_SIZE");
    int n = v ? atoi(v) : 1;
    return n > 0 ? n : 1;
}

static uint64_t mix(uint64_t x)
{
    x = (x ^ (x >> 31)) * 0x7FB5D329728EA185ULL;
    x = (x ^ (x >> 27)) * 0x81DADEF4BC2DD44DULL;
    return x ^ (x >> 33);
}

/* Random values in [-0.5, 0.5) with 20 bits (exact in float), from the
   global index and a seed. */
static double field_value(const int64_t *g, void *arg)
{
    const int64_t *n = arg;
    uint64_t q = (uint64_t)(g[0] + n[0] * (g[1] + n[1] * g[2]));
    return (double)(mix(q * 2654435761ULL + (uint64_t)n[3]) % (1u << 20)) / (1 << 20) - 0.5;
}

static fdx_options *cpu_options(void)
{
    fdx_options *o = NULL;
    if (fdx_options_create(&o) != FDX_OK) return NULL;
    fdx_options_set(o, "backend", "cpu");
    fdx_options_set(o, "tune", "off");
    return o;
}

typedef struct bc_run {
    int rank, order, nf; /* nf 3: wave, 2: heat */
    int64_t shape[3];
    const char *spec;
    fdx_dtype type;
    int steps;
} bc_run;

static void describe(const bc_run *c, fdx_stencil_desc *sd, fdx_bc_desc *bc)
{
    double h[3] = {0.5, 1, 2};
    fdx_stencil_desc_laplacian(sd, c->rank, c->order, h);
    sd->update = c->nf == 3 ? FDX_UPDATE_WAVE : FDX_UPDATE_HEAT;
    sd->alpha = 0.05;
    sd->d1[0] = 0.3;
    CHECK_OK(fdx_bc_parse(c->spec, c->rank, bc));
}

/* The whole grid: b[nf-2] after the steps, host copy (malloc'ed). */
static void *run_whole(const bc_run *c)
{
    fdx_options *o = cpu_options();
    fdx_ctx *ctx = NULL;
    CHECK_OK(fdx_ctx_create(o, &ctx));
    fdx_options_destroy(&o);
    if (!ctx) return NULL;
    fdx_stencil_desc sd;
    fdx_bc_desc bc;
    describe(c, &sd, &bc);
    fdx_stencil *s = NULL;
    CHECK_OK(fdx_stencil_create(ctx, &sd, c->type, &s));
    CHECK_OK(fdx_stencil_set_boundary(s, &bc));
    fdx_array *b[3] = {NULL, NULL, NULL};
    int64_t n[4] = {c->shape[0], c->rank > 1 ? c->shape[1] : 1, c->rank > 2 ? c->shape[2] : 1, 0};
    for (int k = 0; k < c->nf; k++) {
        CHECK_OK(fdx_array_create(ctx, c->type, c->rank, c->shape, FDX_ON_HOST, &b[k]));
        if (!b[k]) continue;
        n[3] = 11 + k;
        void *hp = fdx_array_host(b[k]);
        for (int64_t q = 0; q < n[0] * n[1] * n[2]; q++) {
            int64_t g[3] = {q % n[0], q / n[0] % n[1], q / (n[0] * n[1])};
            double v = field_value(g, n);
            if (c->type == FDX_FLOAT64) ((double *)hp)[q] = v;
            else ((float *)hp)[q] = (float)v;
        }
    }
    void *out = NULL;
    if (s && b[0] && b[1] && (c->nf == 2 || b[2])) {
        for (int step = 0; step < c->steps; step++) {
            CHECK_OK(fdx_stencil_apply(s, b[c->nf - 1], b[c->nf - 2], c->nf == 3 ? b[0] : NULL, NULL, NULL));
            fdx_array *t = b[0];
            for (int k = 0; k < c->nf - 1; k++) b[k] = b[k + 1];
            b[c->nf - 1] = t;
        }
        size_t bytes = fdx_array_bytes(b[c->nf - 2]);
        out = malloc(bytes);
        memcpy(out, fdx_array_host(b[c->nf - 2]), bytes);
    }
    for (int k = 0; k < 3; k++) fdx_array_destroy(&b[k]);
    fdx_stencil_destroy(&s);
    fdx_ctx_destroy(&ctx);
    return out;
}

/* The same on a grid of units, step by step (how 0) or in a run (how 1). */
static void *run_dist(const bc_run *c, const int *grid, int how, int overlap)
{
    fdx_dist_desc dd = {0};
    fdx_stencil_desc sd;
    fdx_bc_desc bc;
    describe(c, &sd, &bc);
    dd.rank = c->rank;
    dd.units_per_proc = 1;
    for (int a = 0; a < c->rank; a++) {
        dd.shape[a] = c->shape[a], dd.grid[a] = grid[a], dd.shadow[a] = grid[a] > 1 ? c->order / 2 : 0;
        dd.periodic[a] = bc.face[a][0].kind == FDX_FACE_PERIODIC ? c->order / 2 : 0;
        dd.units_per_proc *= grid[a];
    }
    dd.units_per_proc /= job_procs();
    fdx_options *o = cpu_options();
    fdx_dist *d = NULL;
    CHECK_OK(fdx_dist_create(o, &dd, &d));
    fdx_options_destroy(&o);
    if (!d) return NULL;
    fdx_dstencil *s = NULL;
    fdx_darray *b[3] = {NULL, NULL, NULL};
    CHECK_OK(fdx_dstencil_create(d, &sd, c->type, &s));
    if (s) CHECK_OK(fdx_dstencil_set_boundary(s, &bc));
    int64_t n[4] = {c->shape[0], c->rank > 1 ? c->shape[1] : 1, c->rank > 2 ? c->shape[2] : 1, 0};
    for (int k = 0; k < c->nf; k++) {
        CHECK_OK(fdx_darray_create(d, c->type, &b[k]));
        n[3] = 11 + k;
        if (b[k]) CHECK_OK(fdx_darray_fill(b[k], field_value, n));
    }
    void *out = NULL;
    if (s && b[0] && b[1] && (c->nf == 2 || b[2])) {
        if (how) CHECK_OK(fdx_dstencil_run(s, b, c->nf, NULL, c->steps, overlap, 0));
        for (int step = 0; !how && step < c->steps; step++) {
            CHECK_OK(fdx_dstencil_step(s, b[c->nf - 1], b[c->nf - 2], c->nf == 3 ? b[0] : NULL, NULL, overlap));
            fdx_darray *t = b[0];
            for (int k = 0; k < c->nf - 1; k++) b[k] = b[k + 1];
            b[c->nf - 1] = t;
        }
        out = malloc((size_t)(n[0] * n[1] * n[2]) * fdx_dtype_size(c->type));
        CHECK_OK(fdx_darray_gather(b[c->nf - 2], out, 1)); /* every rank gets the whole field */
    }
    fdx_dstencil_destroy(&s);
    for (int k = 0; k < 3; k++) fdx_darray_destroy(&b[k]);
    fdx_dist_destroy(&d);
    return out;
}

/* Unknowns (every axis in [r, n - r)) that differ, bit for bit. */
static int64_t differing(const bc_run *c, const void *x, const void *y)
{
    int r = c->order / 2;
    size_t e = fdx_dtype_size(c->type);
    int64_t n[3] = {c->shape[0], c->rank > 1 ? c->shape[1] : 1, c->rank > 2 ? c->shape[2] : 1}, bad = 0;
    for (int64_t q = 0; q < n[0] * n[1] * n[2]; q++) {
        int64_t g[3] = {q % n[0], q / n[0] % n[1], q / (n[0] * n[1])};
        int unknown = 1;
        for (int a = 0; a < c->rank; a++) unknown &= g[a] >= r && g[a] < n[a] - r;
        bad += unknown && memcmp((const char *)x + q * e, (const char *)y + q * e, e) != 0;
    }
    return bad;
}

static void check_case(const bc_run *c, const int (*grids)[3], int ngrids)
{
    void *ref = run_whole(c);
    if (!ref) return;
    for (int g = 0; g < ngrids; g++)
        for (int how = 0; how < 2 && (grids[g][0] * grids[g][1] * grids[g][2]) % job_procs() == 0; how++) {
            void *got = run_dist(c, grids[g], how, how);
            if (!got) continue;
            int64_t bad = differing(c, got, ref);
            CHECK(bad == 0, "%dD %s order %d %s '%s' on %dx%dx%d units %s: %lld unknowns differ from the whole grid",
                  c->rank, c->nf == 3 ? "wave" : "heat", c->order, fdx_dtype_name(c->type), c->spec, grids[g][0],
                  grids[g][1], grids[g][2], how ? "in a run (overlap asked)" : "step by step", (long long)bad);
            free(got);
        }
    free(ref);
}

static void errors(void)
{
    fdx_dist_desc dd = {0};
    dd.rank = 2, dd.shape[0] = 20, dd.shape[1] = 12, dd.grid[0] = 2, dd.grid[1] = 1, dd.shadow[0] = 2;
    dd.units_per_proc = 2, dd.periodic[0] = 2;
    fdx_options *o = cpu_options();
    fdx_dist *d = NULL;
    CHECK_OK(fdx_dist_create(o, &dd, &d));
    fdx_stencil_desc sd;
    fdx_stencil_desc_laplacian(&sd, 2, 4, NULL);
    fdx_dstencil *s = NULL;
    if (d) CHECK_OK(fdx_dstencil_create(d, &sd, FDX_FLOAT64, &s));
    fdx_bc_desc bc;
    if (s) {
        CHECK_OK(fdx_bc_parse("y=periodic", 2, &bc)); /* y is not periodic in the distribution, x is */
        CHECK_FAILS(fdx_dstencil_set_boundary(s, &bc), FDX_ERR_INVALID);
        CHECK_OK(fdx_bc_parse("x=periodic,y=dirichlet:1", 2, &bc));
        CHECK_OK(fdx_dstencil_set_boundary(s, &bc));
        CHECK_OK(fdx_dstencil_set_boundary(s, NULL));
        fdx_array *g = NULL;
        int64_t gs[2] = {20, 1};
        fdx_ctx *ctx = fdx_dist_ctx(d, 0);
        CHECK_OK(fdx_array_create(ctx, FDX_FLOAT64, 2, gs, FDX_ON_HOST, &g));
        bc.face[1][0].values = g;
        CHECK_FAILS(fdx_dstencil_set_boundary(s, &bc), FDX_ERR_UNSUPPORTED);
        fdx_array_destroy(&g);
    }
    fdx_dstencil_destroy(&s);
    /* a frame of 2 against a stencil of radius 1 */
    fdx_stencil_desc_laplacian(&sd, 2, 2, NULL);
    if (d) CHECK_OK(fdx_dstencil_create(d, &sd, FDX_FLOAT64, &s));
    CHECK_OK(fdx_bc_parse("x=periodic", 2, &bc));
    if (s) CHECK_FAILS(fdx_dstencil_set_boundary(s, &bc), FDX_ERR_INVALID);
    fdx_dstencil_destroy(&s);
    fdx_dist_destroy(&d);
    /* parts thinner than twice the periodic frame */
    dd.periodic[0] = 6;
    CHECK_FAILS(fdx_dist_create(o, &dd, &d), FDX_ERR_INVALID);
    fdx_options_destroy(&o);
}

int main(void)
{
    if (job_procs() == 1) errors(); /* its distributions are sized for one process */
    const int g2[][3] = {{1, 1, 1}, {2, 1, 1}, {1, 3, 1}, {2, 2, 1}};
    const int g3[][3] = {{1, 1, 1}, {2, 1, 1}, {1, 2, 2}, {1, 1, 3}};
    const bc_run cases2[] = {
        {2, 4, 3, {41, 33}, "x=periodic,y-=dirichlet:0.5,y+=neumann:-1", FDX_FLOAT64, 7},
        {2, 2, 2, {41, 33}, "all=periodic", FDX_FLOAT32, 6},
        {2, 4, 2, {41, 33}, "all=dirichlet:1,y+=neumann:0.25", FDX_FLOAT32, 5},
    };
    const bc_run cases3[] = {
        {3, 2, 3, {13, 11, 17}, "x=periodic,y=dirichlet:0.25,z=periodic", FDX_FLOAT64, 6},
        {3, 4, 2, {13, 11, 17}, "all=periodic", FDX_FLOAT64, 5},
        {3, 2, 2, {13, 11, 17}, "x-=neumann:1,x+=dirichlet:-0.5,y=periodic,z-=none,z+=neumann", FDX_FLOAT32, 5},
    };
    for (size_t i = 0; i < sizeof cases2 / sizeof *cases2; i++) check_case(&cases2[i], g2, 4);
    for (size_t i = 0; i < sizeof cases3 / sizeof *cases3; i++) check_case(&cases3[i], g3, 4);
    fdx_dist_finalize();
    return fdx_test_finish("test_dist_bc");
}
