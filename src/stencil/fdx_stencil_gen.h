/* fdx_stencil_gen (internal to the generator's files): the generator's
   state and the pieces the strategies share. */
#ifndef FDX_STENCIL_GEN_H
#define FDX_STENCIL_GEN_H

#include "codegen/fdx_cg.h"
#include "stencil/fdx_stencil_impl.h"

/* The shape of the generated code: r the radius, rm / ry the reach along the
   marching axis and the second in-plane axis (0 where the axis is absent). */
typedef struct gen {
    const fdx_stencil_kspec *ks;
    const fdx_stencil_cfg *cfg;
    fdx_cg *cg;
    int cuda, r, rm, ry, vec;
    const char *real;
    int plane; /* unroll: the column plane being computed */
    int win;   /* vectors cut from two aligned ones (cfg->win) */
    int xv;    /* unroll: x neighbours beyond the lanes as aligned vectors */
    int nr;    /* rows per thread (cfg->ry) */
    int row;   /* unroll, async with shared y rows (zh, ys): the thread's row being computed, 0..nr-1 */
    int aw;    /* async, temporal: a shared-memory row's length (values) */
    int zs;    /* async: the column read from the stages (cfg->zs), not carried */
    int zh;    /* async: the column's upper half read from the stages (cfg->zh) */
    int ys;    /* async, carried column: the rows' y-neighbour tile rows read once a plane (cfg->ys) */
    int zu;    /* async with cfg->uz: the unrolled loop's period (the stages); 0 otherwise */
    int tm;    /* async: tile rows copied by the tensor memory accelerator (cfg->tm) */
    int zj;    /* async with cfg->uz: the unrolled step being emitted, 0..zu-1 (the column's names rotate by it) */
    const char *store; /* where a row's points are stored (emit_points_store_shift): NULL, out + q */
    unsigned fold; /* CUDA: the x faces (bit side) whose conditions the kernel applies as it reads
                       (fdx_stencil_xfold_faces); 0 in kernels that do not */
    unsigned fix;  /* unroll, ks->ffix: the faces applied by fixing up the column's registers after a
                       group's loads (fdx_stencil_emit_fixups); the point code is the plain one */
} gen;

/* The register of lane v's column entry t (plane k - rm + t): q<v>_<t>, or
   in an unrolled plane loop (g->zu) the name that entry has at step g->zj,
   q<v>_<(t + zj) mod zu>, so that the column never shifts (zs: the
   column's values are the plane's locals, never rotated). */
FDX_HIDDEN const char *fdx_stencil_col(const gen *g, int v, int t);
FDX_HIDDEN int fdx_stencil_col_slot(const gen *g, int t);

/* Vector components by lane. */
FDX_HIDDEN extern const char fdx_stencil_comp[4];

/* Appends the neighbour of the current point at `off` along axis a (0 x,
   1 y, 2 marching) for lane v, as an expression. */
typedef void (*fdx_stencil_neighbour_fn)(fdx_sb *b, const gen *g, int a, int off, int v);

/* The lanes <pre>0<suf> .. <pre>{vec-1}<suf>. */
FDX_HIDDEN fdx_cg_lanes fdx_stencil_lanes(const gen *g, const char *pre, const char *suf);
/* Loads vec consecutive values at ptr + idx into those lanes (one vector
   access; with windows from any alignment). */
FDX_HIDDEN void fdx_stencil_vload(fdx_cg_node *at, const gen *g, const char *pre, const char *suf, const char *ptr,
                                  const char *idx, fdx_cg_hint hint);
/* The source's first lines: the element type real (and realv), struct fdx_p
   (the parameter block), the window and sponge helpers the spec needs. */
FDX_HIDDEN void fdx_stencil_emit_prelude(fdx_cg_node *at, const gen *g);
/* The kernel and its parameters (out, u, up, cf, p); returns the body. */
FDX_HIDDEN fdx_cg_node *fdx_stencil_emit_kernel(fdx_cg_node *at, const gen *g);
/* s<v> = the weighted sum, then the update into `result` (with a sponge,
   `prev` is the damped u_prev and `damp` the factor). */
FDX_HIDDEN void fdx_stencil_emit_point(fdx_cg_node *at, const gen *g, fdx_stencil_neighbour_fn nb, const char *w,
                                       int v, const char *centre, const char *prev, const char *coef,
                                       const char *damp, const char *result);
/* CUDA, fused sponge: the factor f<v> of lane v at (x + v, y, k) and the
   damped u_prev g<v>. */
FDX_HIDDEN void fdx_stencil_emit_damp(fdx_cg_node *at, int v, const char *y, const char *k, const char *prev);
/* Declares name0..name{vec-1} = 0. */
FDX_HIDDEN void fdx_stencil_emit_lanes(fdx_cg_node *at, const gen *g, const char *name);
/* Declares <pre><lane>_<i> = 0 for every lane and i < n. */
FDX_HIDDEN void fdx_stencil_emit_lane_array(fdx_cg_node *at, const gen *g, const char *pre, int n);
/* Streaming stores of the lanes r0.. at `dst` (x the thread's first point),
   whole vectors where every lane is interior. */
FDX_HIDDEN void fdx_stencil_emit_store(fdx_cg_node *at, const gen *g, const char *dst);
/* The end of a march's plane at `kv`: into `rowin` (the body of "if
   (rowin)") every lane's point from the column q and the stores; then into
   `at` the column shifted down a plane (registers, no memory traffic). */
FDX_HIDDEN void fdx_stencil_emit_points_store_shift(fdx_cg_node *at, fdx_cg_node *rowin, const gen *g,
                                                    const char *kv);
/* The neighbour expression of every CUDA strategy. */
FDX_HIDDEN void fdx_stencil_cuda_neighbour(fdx_sb *b, const gen *g, int a, int off, int v);
FDX_HIDDEN void fdx_stencil_unroll_neighbour(fdx_sb *b, const gen *g, int a, int off, int v);
FDX_HIDDEN void fdx_stencil_async_neighbour(fdx_sb *b, const gen *g, int a, int off, int v);

/* The ghost value of layer k of face f (fbc code Dirichlet or Neumann)
   from its mirror's value m, as the pass computes it: one exactly rounded
   operation. */
FDX_HIDDEN const char *fdx_stencil_ghost_of(const gen *g, int f, int k, const char *m);
/* The strategies in files of their own. */
FDX_HIDDEN void fdx_stencil_emit_unroll(fdx_cg_node *at, gen *g);
FDX_HIDDEN void fdx_stencil_emit_async(fdx_cg_node *at, gen *g);
FDX_HIDDEN void fdx_stencil_emit_plane(fdx_cg_node *at, gen *g);

/* The tile pieces the asynchronous march (fdx_stencil_gen_async.c) shares
   with the plane tile (fdx_stencil_gen_plane.c): the kernel's head (shared
   memory, the block's place, its copy slots), the copies of one plane into
   a stage, a row's scope (tiles: its tile pointers), and a row's plane k
   (points, stores, the column's shift). */
FDX_HIDDEN fdx_cg_node *fdx_stencil_async_head(fdx_cg_node *at, gen *g, const fdx_stencil_async_geom *a);
FDX_HIDDEN void fdx_stencil_async_slots(fdx_cg_node *k, const gen *g, const fdx_stencil_async_geom *a);
FDX_HIDDEN void fdx_stencil_async_issue(fdx_cg_node *at, const gen *g, const fdx_stencil_async_geom *a,
                                        const char *src, const char *stage, int unrolled);
FDX_HIDDEN fdx_cg_node *fdx_stencil_async_row_open(fdx_cg_node *at, const gen *g, const fdx_stencil_async_geom *a,
                                                   int i, int tiles);
FDX_HIDDEN int fdx_stencil_async_column_len(const gen *g);
/* tm: the helpers (mbarrier and tensor-copy PTX; tests/cuda_emu.h has its
   own where FDX_CUDA_EMU is defined). */
FDX_HIDDEN void fdx_stencil_emit_tm_helpers(fdx_cg_node *at, const gen *g);
FDX_HIDDEN void fdx_stencil_async_columns(fdx_cg_node *k, const gen *g, const fdx_stencil_async_geom *a);
FDX_HIDDEN void fdx_stencil_async_row_plane(fdx_cg_node *rs, const gen *g, const fdx_stencil_async_geom *a);

#endif
