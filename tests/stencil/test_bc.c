/* Boundary conditions on the CPU backend (bc_check.h): every kind on every
   face, orders 2-8, ranks 1-3, odd shapes, float and double, against the
   reference formulas with a poisoned frame; the pass attached to a stencil;
   the command-line syntax; and the errors. */
#include "bc_check.h"

static void parse_cases(void)
{
    fdx_bc_desc bc;
    CHECK_OK(fdx_bc_parse("x=periodic,y=dirichlet:0.5,z+=neumann:-2,z-=none", 3, &bc));
    CHECK(bc.face[0][0].kind == FDX_FACE_PERIODIC && bc.face[0][1].kind == FDX_FACE_PERIODIC, "x periodic");
    CHECK(bc.face[1][0].kind == FDX_FACE_DIRICHLET && bc.face[1][1].value == 0.5, "y dirichlet 0.5");
    CHECK(bc.face[2][1].kind == FDX_FACE_NEUMANN && bc.face[2][1].value == -2, "z+ neumann -2");
    CHECK(bc.face[2][0].kind == FDX_FACE_NONE, "z- none");
    CHECK_OK(fdx_bc_parse("all=neumann,x-=dirichlet:1e-3", 2, &bc));
    CHECK(bc.face[0][0].kind == FDX_FACE_DIRICHLET && bc.face[0][0].value == 1e-3 && bc.face[1][1].kind == FDX_FACE_NEUMANN,
          "all then x-");
    char text[256];
    fdx_bc_text(&bc, 2, text, sizeof text);
    CHECK(strcmp(text, "x-=dirichlet:0.001,x+=neumann:0,y-=neumann:0,y+=neumann:0") == 0, "text '%s'", text);
    fdx_bc_desc back;
    CHECK_OK(fdx_bc_parse(text, 2, &back));
    CHECK(memcmp(&back, &bc, sizeof bc) == 0, "text parses back to the same conditions");
    CHECK_OK(fdx_bc_parse("", 1, &bc));
    CHECK(!bc.face[0][0].kind && !bc.face[0][1].kind, "empty text: no conditions");
    const char *bad[] = {"x=periodic,", "w=dirichlet", "z=dirichlet", "x=dirichlet:abc", "x-=periodic", "x=periodic:1",
                         "x=robin", "x", "x=dirichlet:", "x=neumann:inf"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        int rank = 2;
        fdx_clear_error();
        fdx_status st = fdx_bc_parse(bad[i], rank, &bc);
        /* "x=periodic," is fine (a trailing comma); the rest fail */
        if (i == 0) CHECK(st == FDX_OK, "'%s': %s", bad[i], fdx_last_error());
        else CHECK(st == FDX_ERR_INVALID && fdx_last_error()[0], "'%s' must fail", bad[i]);
    }
}

static void error_cases(fdx_ctx *ctx)
{
    fdx_bc_desc bc = {0};
    fdx_bc *b = NULL;
    bc.face[0][0].kind = FDX_FACE_PERIODIC;
    CHECK_FAILS(fdx_bc_create(ctx, &bc, 1, 1, NULL, FDX_FLOAT64, &b), FDX_ERR_INVALID);
    bc.face[0][1].kind = FDX_FACE_PERIODIC;
    CHECK_FAILS(fdx_bc_create(ctx, &bc, 1, 7, NULL, FDX_FLOAT64, &b), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_bc_create(ctx, &bc, 1, 1, NULL, FDX_INT32, &b), FDX_ERR_INVALID);
    double h0 = 0;
    CHECK_FAILS(fdx_bc_create(ctx, &bc, 1, 1, &h0, FDX_FLOAT64, &b), FDX_ERR_INVALID);
    bc.face[0][0].kind = bc.face[0][1].kind = FDX_FACE_NEUMANN;
    bc.face[0][0].value = NAN;
    CHECK_FAILS(fdx_bc_create(ctx, &bc, 1, 1, NULL, FDX_FLOAT64, &b), FDX_ERR_INVALID);
    bc.face[0][0].value = 0;
    int64_t n = 8, one = 1, bad2[2] = {9, 1};
    fdx_array *u = NULL, *g = NULL, *gbad = NULL, *uf = NULL;
    CHECK_OK(fdx_array_create(ctx, FDX_FLOAT64, 1, &one, FDX_ON_HOST, &g));
    bc.face[0][0].values = g; /* values on a Neumann face */
    CHECK_FAILS(fdx_bc_create(ctx, &bc, 1, 1, NULL, FDX_FLOAT64, &b), FDX_ERR_INVALID);
    bc.face[0][0].values = NULL;
    CHECK_OK(fdx_bc_create(ctx, &bc, 1, 3, NULL, FDX_FLOAT64, &b));
    CHECK_OK(fdx_array_create(ctx, FDX_FLOAT64, 1, &n, FDX_ON_HOST, &u));
    CHECK_FAILS(fdx_bc_apply(b, u, NULL), FDX_ERR_INVALID); /* 8 points < 3 radius 9 */
    CHECK_OK(fdx_array_create(ctx, FDX_FLOAT32, 1, &n, FDX_ON_HOST, &uf));
    CHECK_FAILS(fdx_bc_apply(b, uf, NULL), FDX_ERR_INVALID); /* float array, double pass */
    fdx_bc_destroy(&b);
    /* a values array of the wrong shape */
    int64_t n2[2] = {9, 9};
    fdx_array *u2 = NULL;
    CHECK_OK(fdx_array_create(ctx, FDX_FLOAT64, 2, n2, FDX_ON_HOST, &u2));
    CHECK_OK(fdx_array_create(ctx, FDX_FLOAT64, 2, bad2, FDX_ON_HOST, &gbad));
    memset(&bc, 0, sizeof bc);
    bc.face[1][0].kind = FDX_FACE_DIRICHLET, bc.face[1][0].values = gbad; /* y face needs 9 x 1: is 9 x 1 */
    CHECK_OK(fdx_bc_create(ctx, &bc, 2, 1, NULL, FDX_FLOAT64, &b));
    fdx_array_fill_host(u2, 0);
    fdx_array_fill_host(gbad, 0);
    CHECK_OK(fdx_bc_apply(b, u2, NULL));
    fdx_bc_destroy(&b);
    bc.face[1][0].kind = FDX_FACE_NONE, bc.face[1][0].values = NULL;
    bc.face[0][0].kind = FDX_FACE_DIRICHLET, bc.face[0][0].values = gbad; /* x face needs 1 x 9 */
    CHECK_OK(fdx_bc_create(ctx, &bc, 2, 1, NULL, FDX_FLOAT64, &b));
    CHECK_FAILS(fdx_bc_apply(b, u2, NULL), FDX_ERR_INVALID);
    fdx_bc_destroy(&b);
    CHECK_FAILS(fdx_bc_apply(NULL, u2, NULL), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_stencil_set_boundary(NULL, &bc), FDX_ERR_INVALID);
    fdx_array_destroy(&u);
    fdx_array_destroy(&uf);
    fdx_array_destroy(&u2);
    fdx_array_destroy(&g);
    fdx_array_destroy(&gbad);
}

/* fdx_stencil_steps with conditions: one apply a step (the pass between
   steps), the same as the applies by hand; a temporal depth is refused. */
static void steps_case(fdx_ctx *ctx)
{
    int64_t n[2] = {37, 29};
    fdx_stencil_desc d;
    fdx_stencil_desc_laplacian(&d, 2, 4, NULL);
    d.update = FDX_UPDATE_HEAT, d.alpha = 0.05;
    fdx_bc_desc bc;
    CHECK_OK(fdx_bc_parse("x=periodic,y-=dirichlet:1,y+=neumann:0.5", 2, &bc));
    fdx_stencil *s = NULL;
    fdx_array *a[4] = {NULL};
    CHECK_OK(fdx_stencil_create(ctx, &d, FDX_FLOAT64, &s));
    for (int k = 0; k < 4; k++) CHECK_OK(fdx_array_create(ctx, FDX_FLOAT64, 2, n, FDX_ON_HOST, &a[k]));
    if (!s || !a[0] || !a[1] || !a[2] || !a[3]) return;
    CHECK_OK(fdx_stencil_set_boundary(s, &bc));
    uint64_t seed = 5;
    size_t bytes = fdx_array_bytes(a[0]);
    for (int64_t i = 0; i < n[0] * n[1]; i++) ((double *)fdx_array_host(a[0]))[i] = fdx_test_rand(&seed);
    memcpy(fdx_array_host(a[1]), fdx_array_host(a[0]), bytes);
    memcpy(fdx_array_host(a[2]), fdx_array_host(a[0]), bytes);
    memcpy(fdx_array_host(a[3]), fdx_array_host(a[0]), bytes);
    CHECK_OK(fdx_stencil_steps(s, a[0], a[1], 5, -1, NULL));
    fdx_array *u = a[2], *v = a[3];
    for (int k = 0; k < 5; k++) {
        CHECK_OK(fdx_stencil_apply(s, v, u, NULL, NULL, NULL));
        fdx_array *t = u;
        u = v, v = t;
    }
    /* the unknowns agree bit for bit */
    int64_t bad = 0;
    for (int64_t y = 2; y < n[1] - 2; y++)
        for (int64_t x = 2; x < n[0] - 2; x++)
            bad += ((double *)fdx_array_host(a[0]))[x + n[0] * y] != ((double *)fdx_array_host(u))[x + n[0] * y];
    CHECK(bad == 0, "fdx_stencil_steps with conditions differs from 5 applies at %lld unknowns", (long long)bad);
    CHECK_FAILS(fdx_stencil_steps(s, a[0], a[1], 4, 2, NULL), FDX_ERR_UNSUPPORTED);
    fdx_stencil_destroy(&s);
    for (int k = 0; k < 4; k++) fdx_array_destroy(&a[k]);
}

int main(void)
{
    fdx_ctx *ctx = bc_ctx("cpu");
    if (!ctx) return fdx_test_finish("test_bc");
    parse_cases();
    error_cases(ctx);
    steps_case(ctx);
    uint64_t seed = 0xbc17;
    for (int dbl = 0; dbl < 2; dbl++)
        for (int rank = 1; rank <= 3; rank++)
            for (int order = 2; order <= 8; order += 2)
                for (int c = 0; c < 4; c++)
                    bc_case(ctx, dbl ? FDX_FLOAT64 : FDX_FLOAT32, rank, order, c, seed++, c == 0 || c == 2 || rank == 3);
    fdx_ctx_destroy(&ctx);
    return fdx_test_finish("test_bc");
}
