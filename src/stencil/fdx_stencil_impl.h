/* fdx_stencil (internal): what a generated kernel depends on, its tunable
   configuration, and the parameter block shared by the host and the
   generated code. */
#ifndef FDX_STENCIL_IMPL_H
#define FDX_STENCIL_IMPL_H

#include "backends/fdx_backend.h"
#include "fdx/stencil.h"

#define FDX_STENCIL_MAX_RADIUS (FDX_STENCIL_MAX_ORDER / 2)

/* Everything the kernel source depends on besides its configuration.  The
   weights and the shape are run-time parameters, so one kernel serves every
   grid spacing and every shape. */
typedef struct fdx_stencil_kspec {
    int is_double;
    int rank;
    int radius;
    int update;  /* fdx_stencil_update */
    int coef;    /* pointwise coefficient array */
    int d1;      /* first-derivative (antisymmetric) terms present */
    int sponge;  /* fused sponge (WAVE): damping factors in the parameters */
    /* CUDA: boundary conditions the kernel applies itself as it reads, by
       face (axis * 2 + side, the array's axes; fdx_bc codes: Dirichlet,
       Neumann, periodic; 0 none), so the boundary pass skips those faces;
       fval the values in the element type (Dirichlet: 2g at [0]; Neumann:
       the ghost offsets (2k+1) h q by layer k).  Two forms (FDX_BC_FOLD):
       fstore 1, the x faces only, their ghosts also stored into u's frame
       as the pass would; fstore 0, every face, nothing stored (u's frame is
       left as it was), only in the unrolled column (other strategies leave
       every face to the pass).  Set by fdx_stencil_set_boundary. */
    int fbc[6];
    double fval[6][FDX_STENCIL_MAX_RADIUS];
    int fstore;
    /* FDX_BC_FOLD=3, the unrolled column with faces folded (fstore 0): the
       grid in two launches, so that the blocks away from every face run the
       plain kernel's code and registers (fdx_stencil_split_box): 1 this
       kernel runs the blocks that touch a folded face (the shell; its code
       as with fpart 0), 2 it runs the others (the plain code, fbc / fval
       only say where the shell is).  0: the whole grid. */
    int fpart;
    /* FDX_BC_FOLD=4 (fstore 0, fpart 0): the unrolled column applies its
       folded faces by fixing up the column's registers after a group's
       loads (the marching faces always, the x faces where the lanes hold
       every ghost a written lane reads: aligned rows, vec >= 2r), then runs
       the plain point code; the y faces stay with the pass (coalesced rows).
       No selects in the point code: the plain kernel's registers. */
    int ffix;
    unsigned fixmask; /* FDX_BC_FIX (A/B): the faces the fix-ups may take; 0, every one they can */
    int fixat;        /* FDX_BC_FIXAT (A/B): where the fix-ups sit (fdx_stencil_gen_unroll.c, emit_fixups) */
} fdx_stencil_kspec;


/* GPU strategies.  All march along the slowest axis keeping the column of
   values in registers.  The first two hold 2r+1 planes and differ in where
   the in-plane neighbours come from; the third advances `pd` planes at a
   time (a compile-time constant) and issues every load of a group before its
   first use, so many independent loads are in flight. */
typedef enum fdx_stencil_variant {
    FDX_SV_SMEM = 0,   /* plane tile with halo in shared memory */
    FDX_SV_DIRECT = 1, /* in-plane neighbours read through L1 / read-only cache */
    FDX_SV_UNROLL = 2, /* groups of pd planes, all their loads issued up front */
    FDX_SV_ASYNC = 3,  /* rank 2-3: every plane once into a ring of shared-memory
                          stages through cp.async, pd planes ahead in flight */
    FDX_SV_PLANE = 4   /* rank 2-3, high orders: one plane tile in shared memory
                          (pd + 1 stages), its centre stored from the column's
                          registers, only its halo copied by cp.async; the
                          column's newest planes loaded pd ahead into registers
                          (fdx_stencil_gen_plane.c) */
} fdx_stencil_variant;

/* The most planes an asynchronous march keeps in flight beyond the newest
   plane of its column (cfg->pd), and the most copy slots a thread issues per
   plane (bounds the registers that hold their offsets). */
#define FDX_STENCIL_MAX_ASYNC_AHEAD 3
#define FDX_STENCIL_MAX_ASYNC_SLOTS 8
/* Dynamic shared memory an asynchronous march may ask for: what sm_80 (A100)
   allows a block after opting in, so a tuned choice also runs there. */
#define FDX_STENCIL_MAX_ASYNC_SMEM (160 * 1024)

/* The most planes an unrolled group may hold (registers). */
#define FDX_STENCIL_MAX_UNROLL 16

/* A kernel configuration: the fields of fdx_stencil_cfg.def, in its order
   (that file says what each means). */
typedef struct fdx_stencil_cfg {
#define FDX_STENCIL_CFG_FIELD(name, def, lo, hi, kernel, shown, text) int name;
#include "stencil/fdx_stencil_cfg.def"
#undef FDX_STENCIL_CFG_FIELD
} fdx_stencil_cfg;

/* Shape of an asynchronous march's shared memory (FDX_SV_ASYNC).  A stage
   holds one plane of the block's tile: ty rows of tx * vec points with x halo
   rx (the radius rounded up to whole copies of vec values, so every copy is
   aligned) and r halo rows above and below (their centre part only: a star
   never reads corners).  Planes k .. k + r of the march are resident and pd
   more in flight: stages = r + 1 + pd (with cfg->zs planes k - r .. k + r:
   2r + 1 + pd).  A copy moves cw values: vec (4, 8 or 16 bytes), or one
   with cfg->win (rows not aligned to the vector: the tile keeps its own
   alignment, so the lanes still read whole vectors from it); hx is the x
   halo copied (rx, or r with single values).  slots is the number of copies
   a plane needs, per_thread each thread's share.  FDX_SV_PLANE uses the same
   tile with pd + 1 stages (plane k resident, pd in flight) and copies only
   its halo (slots: the x halo of the centre rows and the y halo rows). */
typedef struct fdx_stencil_async_geom {
    int rx, width, height, stages, slots, per_thread, cw, hx;
    int period; /* cfg->uz: the plane loop's unrolled steps (the column's names rotate with it; the stages
                   with it too where it is their count, else from a base set once a round); 0 otherwise */
    size_t stage_elems, bytes;
} fdx_stencil_async_geom;

FDX_HIDDEN void fdx_stencil_async_geom_of(const fdx_stencil_kspec *ks, const fdx_stencil_cfg *cfg,
                                          fdx_stencil_async_geom *a);

/* Rows per thread of a configuration (cfg->ry, 0 read as 1). */
static inline int fdx_stencil_rows(const fdx_stencil_cfg *c) { return c->ry > 1 ? c->ry : 1; }

/* The generated code sees every problem as (nx, ny, nm): x fastest, y the
   second in-plane axis (1 unless rank 3), m the marching axis (the slowest;
   1 for rank 1).  Weights: ws (symmetric part) and wa (antisymmetric part)
   for offsets o = 1..r, per axis x, y, m at [axis * r + o - 1]; c0 is the
   centre weight.  The host writes this block in the kernel's precision. */
typedef struct fdx_stencil_params {
    _Alignas(64) unsigned char bytes[64 + 8 * (2 + 6 * FDX_STENCIL_MAX_RADIUS + FDX_STENCIL_MAX_SPONGE) + 40 + 192];
    size_t size;
    size_t tm_at; /* cfg->tm: where u's tensor map goes (128 bytes, 64-byte aligned); 0 without */
} fdx_stencil_params;

/* Maps a shape of the stencil's rank to (nx, ny, nm). */
FDX_HIDDEN void fdx_stencil_shape3(int rank, const int64_t *shape, int64_t n3[3]);

/* Builds the parameter block: n3, the configuration's chunk and by, the
   sponge width, weights (already scaled by alpha and 1/h^m) in [axis][o]
   order, and with ks->sponge the damping factor per distance 0..sw-1. */
FDX_HIDDEN void fdx_stencil_params_build(const fdx_stencil_kspec *ks, const fdx_stencil_cfg *cfg,
                                         const int64_t n3[3], double c0, const double *ws,
                                         const double *wa, int sw, const double *damp,
                                         fdx_stencil_params *p);

/* Generated source of the kernel (malloc'ed, NUL-terminated), for the CPU
   (C, entry void fdx_stencil_kernel(void **args)) or CUDA (extern "C"
   __global__ fdx_stencil_kernel(out, u, u_prev, coef, params)). */
FDX_HIDDEN fdx_status fdx_stencil_generate(const fdx_stencil_kspec *ks, const fdx_stencil_cfg *cfg, int cuda,
                                           char **source);
#define FDX_STENCIL_ENTRY "fdx_stencil_kernel"

/* CUDA launch geometry for a configuration and shape; fails when a grid
   dimension would exceed the hardware's limit. */
FDX_HIDDEN fdx_status fdx_stencil_launch_dims(const fdx_stencil_kspec *ks, const fdx_stencil_cfg *cfg,
                                              const int64_t n3[3], fdx_launch_dims *dims);

/* Whether a configuration can run this shape (vector width divides nx, the
   halo fits the block). */
FDX_HIDDEN int fdx_stencil_cfg_fits(const fdx_stencil_kspec *ks, const fdx_stencil_cfg *cfg, const int64_t n3[3]);

/* Text such as "unroll 32x8 vec2 chunk 64 pd4 pipe" (buf of at least 96 bytes). */
FDX_HIDDEN void fdx_stencil_cfg_text(const fdx_stencil_cfg *cfg, int cuda, char *buf, size_t n);

/* The tuning file's text of a configuration: every field in the table's
   order as integers, e.g. "3 64 8 2 112 3 2 0 0 0 3 0 0 2 1". */
FDX_HIDDEN void fdx_stencil_cfg_format(const fdx_stencil_cfg *cfg, char *buf, size_t n);
/* Parses that text (FDX_STENCIL_CFG takes it too).  Returns 1 when every
   field is there (the last may be missing: files written before it existed)
   and the configuration is valid (fdx_stencil_cfg_valid). */
FDX_HIDDEN int fdx_stencil_cfg_parse(const char *text, fdx_stencil_cfg *cfg);
/* Each field within its range and the fields consistent with each other
   (whatever the spec and shape; fdx_stencil_cfg_fits adds those). */
FDX_HIDDEN int fdx_stencil_cfg_valid(const fdx_stencil_cfg *cfg);
/* The part of a kernel's key the configuration gives: every field the
   generator builds into the source (run-time fields left out; none for the
   CPU, whose kernel depends on the spec only), normalized so that two
   configurations with one source share one key. */
FDX_HIDDEN void fdx_stencil_cfg_key(const fdx_stencil_cfg *cfg, int cuda, char *buf, size_t n);

/* A short text key of the kernel spec, e.g. "d3r1u0c0a0". */
FDX_HIDDEN void fdx_stencil_kspec_text(const fdx_stencil_kspec *ks, char *buf, size_t n);

/* The faces (bit axis * 2 + side) a kernel of this spec and configuration
   applies itself (fbc): with fstore the x faces, storing u's ghosts as the
   pass would, on every CUDA strategy but the async march (its rows are in
   shared memory); without, every face with a code, in the unrolled column
   only (with ffix its marching faces and, with aligned lanes of vec >= 2r,
   its x faces).  The pass fills the others (fdx_stencil_pass_faces). */
FDX_HIDDEN unsigned fdx_stencil_fold_faces(const fdx_stencil_kspec *ks, const fdx_stencil_cfg *cfg, int cuda);
FDX_HIDDEN unsigned fdx_stencil_pass_faces(const fdx_stencil_kspec *ks, const fdx_stencil_cfg *cfg, int cuda);
/* Whether the kernel of ks (fpart 1 or 2) runs part of the grid: the
   unrolled column with folded faces; otherwise ks->fpart is ignored (the
   whole grid, as fpart 0). */
FDX_HIDDEN int fdx_stencil_split(const fdx_stencil_kspec *ks, const fdx_stencil_cfg *cfg);
/* The split's geometry (struct fdx_p's bb): the whole grid's blocks
   bb[0..2] (x, y, chunks; launch order zfast / band not used) and the inner
   box [bb[3..5], bb[6..8]) of blocks none of whose groups reaches within r
   of a folded face (the kernel's edge / bnd flags false throughout);
   returns the shell's block count (the rest). */
FDX_HIDDEN int64_t fdx_stencil_split_box(const fdx_stencil_kspec *ks, const fdx_stencil_cfg *cfg, const int64_t n3[3],
                                         int bb[9]);

/* The storage a kernel reads of an array: the device copy on CUDA, the host
   copy on the CPU; the message names `what` and the call that makes it. */
FDX_HIDDEN fdx_status fdx_stencil_storage(const fdx_array *a, int cuda, const char *what, void **ptr);

/* What the temporal blocker (fdx_temporal.c) needs of a stencil: its
   context, kernel spec and weights in the generated code's axis order. */
typedef struct fdx_stencil_view {
    fdx_ctx *ctx;
    const fdx_stencil_desc *desc;
    const fdx_stencil_kspec *ks;
    fdx_dtype type;
    double c0;
    const double *ws, *wa;
} fdx_stencil_view;
FDX_HIDDEN void fdx_stencil_view_of(const fdx_stencil *s, fdx_stencil_view *v);

#endif
