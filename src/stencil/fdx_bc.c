/* fdx_bc: boundary conditions as a pass over an array's ghost frame: the
   description checked and turned into a kernel spec and a parameter block,
   the generated kernel (fdx_bc_gen.c) loaded on first use, one launch per
   apply.  Where the boundary lies and what each condition writes:
   include/fdx/boundary.h. */
#include "stencil/fdx_bc.h"

#include "arrays/fdx_array_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct fdx_bc {
    fdx_ctx *ctx;
    fdx_bc_desc desc;
    fdx_bc_kspec ks;
    double h[3];
    fdx_kernel *kernel[2]; /* loaded on first use: 32-bit and 64-bit face offsets (ks.wide) */
};

static const char *kind_name(int k)
{
    static const char *names[] = {"none", "dirichlet", "neumann", "periodic"};
    return k >= 0 && k <= FDX_FACE_PERIODIC ? names[k] : "?";
}

int fdx_bc_any(const fdx_bc_desc *bc, int rank)
{
    for (int a = 0; bc && a < rank && a < 3; a++)
        if (bc->face[a][0].kind != FDX_FACE_NONE || bc->face[a][1].kind != FDX_FACE_NONE) return 1;
    return 0;
}

unsigned fdx_bc_periodic_axes(const fdx_bc_desc *bc, int rank)
{
    unsigned m = 0;
    for (int a = 0; bc && a < rank && a < 3; a++)
        if (bc->face[a][0].kind == FDX_FACE_PERIODIC) m |= 1u << a;
    return m;
}

fdx_status fdx_bc_check_desc(const fdx_bc_desc *bc, int rank)
{
    for (int a = 0; a < rank; a++)
        for (int s = 0; s < 2; s++) {
            const fdx_bc_face *f = &bc->face[a][s];
            FDX_CHECK(f->kind >= FDX_FACE_NONE && f->kind <= FDX_FACE_PERIODIC, FDX_ERR_INVALID,
                      "boundary kind %d on face %c%c is not none, dirichlet, neumann or periodic", (int)f->kind,
                      "xyz"[a], s ? '+' : '-');
            FDX_CHECK(isfinite(f->value), FDX_ERR_INVALID, "boundary value %g on face %c%c is not finite", f->value,
                      "xyz"[a], s ? '+' : '-');
            FDX_CHECK(!f->values || f->kind == FDX_FACE_DIRICHLET, FDX_ERR_INVALID,
                      "face %c%c has a values array, which only Dirichlet faces take (it is %s)", "xyz"[a],
                      s ? '+' : '-', kind_name(f->kind));
        }
    for (int a = 0; a < rank; a++)
        FDX_CHECK((bc->face[a][0].kind == FDX_FACE_PERIODIC) == (bc->face[a][1].kind == FDX_FACE_PERIODIC),
                  FDX_ERR_INVALID, "axis %c is periodic on one face only (%s / %s): periodic takes both", "xyz"[a],
                  kind_name(bc->face[a][0].kind), kind_name(bc->face[a][1].kind));
    return FDX_OK;
}

fdx_status fdx_bc_create(fdx_ctx *ctx, const fdx_bc_desc *bc, int rank, int radius, const double *h, fdx_dtype type,
                         fdx_bc **out)
{
    FDX_CHECK(ctx && bc && out, FDX_ERR_INVALID, "fdx_bc_create: NULL argument");
    *out = NULL;
    FDX_CHECK(rank >= 1 && rank <= 3, FDX_ERR_INVALID, "boundary conditions for rank %d: 1, 2 or 3", rank);
    FDX_CHECK(radius >= 1 && radius <= FDX_STENCIL_MAX_ORDER / 2, FDX_ERR_INVALID,
              "ghost frame width (stencil radius) %d must be 1..%d", radius, FDX_STENCIL_MAX_ORDER / 2);
    FDX_CHECK(type == FDX_FLOAT32 || type == FDX_FLOAT64, FDX_ERR_INVALID,
              "boundary conditions need float or double, not %s", fdx_dtype_name(type));
    FDX_TRY(fdx_bc_check_desc(bc, rank));
    for (int a = 0; h && a < rank; a++)
        FDX_CHECK(h[a] > 0 && isfinite(h[a]), FDX_ERR_INVALID, "grid spacing h[%d] = %g must be positive", a, h[a]);
    fdx_bc *b = calloc(1, sizeof *b);
    FDX_CHECK(b, FDX_ERR_NOMEM, "out of memory for boundary conditions");
    b->ctx = ctx;
    b->desc = *bc;
    for (int a = rank; a < 3; a++) memset(b->desc.face[a], 0, sizeof b->desc.face[a]);
    b->ks.is_double = type == FDX_FLOAT64, b->ks.rank = rank, b->ks.radius = radius;
    for (int a = 0; a < 3; a++) {
        b->h[a] = h && a < rank ? h[a] : 1.0;
        for (int s = 0; s < 2; s++) {
            const fdx_bc_face *f = &b->desc.face[a][s];
            b->ks.code[2 * a + s] = f->kind == FDX_FACE_DIRICHLET ? (f->values ? FDX_BCC_DIRICHLET_ARRAY : FDX_BCC_DIRICHLET)
                                    : f->kind == FDX_FACE_NEUMANN  ? FDX_BCC_NEUMANN
                                    : f->kind == FDX_FACE_PERIODIC ? FDX_BCC_PERIODIC
                                                                 : FDX_BCC_NONE;
        }
    }
    *out = b;
    return FDX_OK;
}

/* The pass owns its loaded kernels (the JIT keeps the compiled objects on
   disk, so a new pass loads them again without compiling). */
void fdx_bc_destroy(fdx_bc **bc)
{
    if (!bc || !*bc) return;
    const fdx_backend *be = fdx_ctx_ops((*bc)->ctx);
    for (int w = 0; w < 2; w++)
        if ((*bc)->kernel[w]) be->kernel_release((*bc)->kernel[w]);
    free(*bc);
    *bc = NULL;
}

const fdx_bc_desc *fdx_bc_desc_of(const fdx_bc *bc) { return &bc->desc; }

/* The block of fdx_bc_params, in the kernel's element type. */
static void put_real(unsigned char *at, int is_double, double v)
{
    if (is_double) memcpy(at, &v, 8);
    else {
        float f = (float)v;
        memcpy(at, &f, 4);
    }
}

int fdx_bc_face_code(const fdx_bc *b, int face) { return b->ks.code[face]; }

/* Rounded as the kernel's element type holds them: Dirichlet 2g with g
   rounded first, so 2g is exact and the ghost 2g - mirror is one rounding,
   as with a values array; Neumann (2k+1) h q rounded once. */
void fdx_bc_face_values(const fdx_bc *b, int face, double *v)
{
    const fdx_bc_kspec *ks = &b->ks;
    double q = b->desc.face[face / 2][face % 2].value;
    for (int k = 0; k < ks->radius; k++) {
        double d = 0;
        if (ks->code[face] == FDX_BCC_DIRICHLET && k == 0) d = 2 * (ks->is_double ? q : (double)(float)q);
        if (ks->code[face] == FDX_BCC_NEUMANN) d = (2 * k + 1) * b->h[face / 2] * q;
        v[k] = ks->is_double ? d : (double)(float)d;
    }
}

static void build_params(const fdx_bc *b, const int64_t n3[3], const fdx_bc_region *reg, fdx_bc_params *p)
{
    const fdx_bc_kspec *ks = &b->ks;
    int r = ks->radius;
    long long head[15] = {0}, end = 0;
    for (int a = 0; a < 3; a++) head[a] = n3[a], head[3 + a] = reg->lo[a], head[6 + a] = reg->hi[a];
    for (int f = 0; f < 6; f++) {
        int a = f / 2;
        if (ks->code[f] != FDX_BCC_NONE && (reg->faces >> f & 1)) {
            long long count = r;
            for (int c = 0; c < ks->rank; c++)
                if (c != a) count *= reg->hi[c] > reg->lo[c] ? reg->hi[c] - reg->lo[c] : 0;
            end += count;
        }
        head[9 + f] = end;
    }
    memset(p->bytes, 0, sizeof p->bytes);
    memcpy(p->bytes, head, sizeof head);
    size_t e = ks->is_double ? 8 : 4, off = sizeof head;
    double val[6][FDX_STENCIL_MAX_ORDER / 2];
    for (int f = 0; f < 6; f++) fdx_bc_face_values(b, f, val[f]);
    for (int f = 0; f < 6; f++) /* v: 2g per Dirichlet face */
        put_real(p->bytes + off + (size_t)f * e, ks->is_double, ks->code[f] == FDX_BCC_DIRICHLET ? val[f][0] : 0);
    off += 6 * e;
    for (int f = 0; f < 6; f++) /* d: the Neumann offsets by layer */
        for (int k = 0; k < r; k++)
            put_real(p->bytes + off + (size_t)(f * r + k) * e, ks->is_double, ks->code[f] == FDX_BCC_NEUMANN ? val[f][k] : 0);
    p->size = off + (size_t)(6 * r) * e;
}

static fdx_status load_kernel(fdx_bc *b, int wide)
{
    if (b->kernel[wide]) return FDX_OK;
    const fdx_backend *be = fdx_ctx_ops(b->ctx);
    char *src = NULL;
    fdx_bc_kspec ks = b->ks;
    ks.wide = wide;
    FDX_TRY(fdx_bc_generate(&ks, be->kind == FDX_BACKEND_CUDA, &src));
    fdx_status st = be->jit_load(fdx_ctx_device(b->ctx), src, FDX_BC_ENTRY, "boundary kernel", &b->kernel[wide]);
    free(src);
    return st;
}

/* The array's storage the kernel uses, after the checks every array of the
   pass gets (type, plain layout). */
static fdx_status storage_of(const fdx_bc *b, fdx_array *a, int cuda, const char *what, void **ptr)
{
    FDX_CHECK(a->ctx == b->ctx, FDX_ERR_INVALID, "%s belongs to another context than the boundary conditions", what);
    FDX_CHECK(a->dtype == (b->ks.is_double ? FDX_FLOAT64 : FDX_FLOAT32), FDX_ERR_INVALID,
              "%s is %s, the boundary conditions %s", what, fdx_dtype_name(a->dtype), b->ks.is_double ? "double" : "float");
    FDX_CHECK(a->rank == b->ks.rank, FDX_ERR_INVALID, "%s has rank %d, the boundary conditions rank %d", what, a->rank,
              b->ks.rank);
    FDX_CHECK(fdx_layout_is_identity(&a->layout), FDX_ERR_UNSUPPORTED,
              "%s is not stored in the plain layout (first index fastest)", what);
    *ptr = cuda ? a->device : a->host;
    FDX_CHECK(*ptr, FDX_ERR_INVALID, "%s has no %s storage", what, cuda ? "device" : "host");
    return FDX_OK;
}

fdx_status fdx_bc_apply_region(fdx_bc *b, fdx_array *u, const fdx_bc_region *reg, void *stream)
{
    FDX_CHECK(b && u && reg, FDX_ERR_INVALID, "fdx_bc_apply: NULL argument");
    const fdx_backend *be = fdx_ctx_ops(b->ctx);
    int cuda = be->kind == FDX_BACKEND_CUDA, r = b->ks.radius;
    void *ptr[7] = {0};
    FDX_TRY(storage_of(b, u, cuda, "u", &ptr[0]));
    int64_t n3[3] = {1, 1, 1};
    for (int a = 0; a < b->ks.rank; a++) n3[a] = u->shape[a];
    for (int f = 0; f < 2 * b->ks.rank; f++) {
        int a = f / 2;
        if (b->ks.code[f] == FDX_BCC_NONE || !(reg->faces >> f & 1)) continue;
        FDX_CHECK(n3[a] >= 3 * r, FDX_ERR_INVALID,
                  "a boundary condition on axis %d with a ghost frame of %d needs at least %d points there, got %lld", a,
                  r, 3 * r, (long long)n3[a]);
        fdx_array *g = b->desc.face[a][f % 2].values;
        if (!g) continue;
        FDX_TRY(storage_of(b, g, cuda, "a Dirichlet values array", &ptr[1 + f]));
        for (int c = 0; c < b->ks.rank; c++)
            FDX_CHECK(g->shape[c] == (c == a ? 1 : n3[c]), FDX_ERR_INVALID,
                      "the values array of face %c%c has extent %lld on axis %d, expected %lld", "xyz"[a],
                      f % 2 ? '+' : '-', (long long)g->shape[c], c, (long long)(c == a ? 1 : n3[c]));
    }
    fdx_bc_params p;
    build_params(b, n3, reg, &p);
    long long end[6], total, widest = 0;
    memcpy(end, p.bytes + 9 * 8, sizeof end);
    total = end[5];
    if (total == 0) return FDX_OK;
    for (int f = 0; f < 6; f++) widest = end[f] - (f ? end[f - 1] : 0) > widest ? end[f] - (f ? end[f - 1] : 0) : widest;
    int wide = widest >= 0x7fffffffLL;
    FDX_TRY(load_kernel(b, wide));
    fdx_launch_dims dims = {{1, 1, 1}, {1, 1, 1}, 0};
    if (cuda) {
        long long blocks = (total + FDX_BC_THREADS - 1) / FDX_BC_THREADS;
        FDX_CHECK(blocks <= 0x7fffffffLL, FDX_ERR_INVALID, "%lld ghost points are too many for one launch", total);
        dims.grid[0] = (unsigned)blocks, dims.block[0] = FDX_BC_THREADS;
    }
    void *args[8];
    for (int i = 0; i < 7; i++) args[i] = cuda ? (void *)&ptr[i] : ptr[i]; /* the CPU entry takes the pointers */
    args[7] = p.bytes;
    return be->launch(b->kernel[wide], &dims, args, fdx_ctx_stream(b->ctx, stream));
}

fdx_status fdx_bc_apply(fdx_bc *b, fdx_array *u, void *stream) { return fdx_bc_apply_faces(b, u, 0x3f, stream); }

fdx_status fdx_bc_apply_faces(fdx_bc *b, fdx_array *u, unsigned faces, void *stream)
{
    FDX_CHECK(b && u, FDX_ERR_INVALID, "fdx_bc_apply: NULL boundary conditions or array");
    fdx_bc_region reg = {faces & 0x3f, {0, 0, 0}, {1, 1, 1}};
    for (int a = 0; a < b->ks.rank && a < u->rank; a++) reg.lo[a] = b->ks.radius, reg.hi[a] = u->shape[a] - b->ks.radius;
    return fdx_bc_apply_region(b, u, &reg, stream);
}
