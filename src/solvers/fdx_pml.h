/* fdx_pml: a convolutional perfectly matched layer (CPML, Pasalic & McGarry
   2010) for the acoustic wave u_tt = c^2 lap u in second-order form, stepped
   by leapfrog (docs/notes/apps.md, PML section, has the equations).

   Per axis a the stretched derivative d/dx~ = (1/s) d/dx, s = 1 + d/(alpha + i w),
   is a derivative plus a memory variable updated by recursive convolution:
       psi_a  = b psi_a  + a D+_a u               (half points, a first derivative)
       zeta_a = b zeta_a + a (D2_a u + D-_a psi_a) (grid points)
       u_tt   = c^2 sum_a (D2_a u + D-_a psi_a + zeta_a)
   D2 is the stencil's centred second derivative, D+/D- the staggered first
   derivatives of the same order.  The stencil writes the plain update
   everywhere; fdx_pml_step then adds dt^2 c^2 (D-psi + zeta) in the layer's
   strips, on CUDA in one pass: each point recomputes the new psi of its 2r
   neighbours from the old psi (two buffers, read one, write the other), so
   no pass has to finish psi first; on the CPU in two passes, psi in place
   then the terms (FDX_PML_TWOPASS=0 or 1 takes either anywhere; both give
   the same bits).

   The layer takes the sponge's footprint: the outer `width` points of each
   face, the r fixed frame layers included (the wall, u = 0, is the frame's
   innermost layer, r - 1).  psi_a and zeta_a are stored only in the two
   slabs of axis a (2 (width - r) points thick, full extent across).

   A PML may cover a block of the grid (a unit of a distributed run, shadows
   included): positions are global, every point of the block that is an
   unknown of the grid is stepped (shadows too, as the neighbour steps them),
   and the memory is the block's part.  Along a split axis the layer and its
   reach must lie in the unit holding the face (checked): then nothing of
   the layer crosses units and no memory is exchanged. */
#ifndef FDX_PML_H
#define FDX_PML_H

#include "core/fdx_error.h"
#include "fdx/array.h"

#define FDX_PML_MAX_R 6 /* radius of order 12 */

typedef struct fdx_pml_desc {
    int rank;         /* 2 or 3 */
    int64_t n[3];     /* grid points per axis (1 beyond rank) */
    int r;            /* stencil radius (order / 2), 1..FDX_PML_MAX_R */
    int width;        /* points per face, frame included; the damped part is m = width - r cells */
    double h, dt;     /* spacing, time step */
    double cmax;      /* fastest wave speed: the damping's scale */
    double r0;        /* target reflection of the continuous layer at normal incidence */
    int power;        /* damping profile d = d0 xi^power */
    double alpha_max; /* CFS frequency shift at the interface (pi f0), falling to 0 at the wall */
    /* The block this PML steps: global index of its element 0 and its
       extents (all 0: the whole grid). */
    int64_t origin[3], extent[3];
} fdx_pml_desc;

/* The defaults, chosen by the reflection measurements of docs/notes/apps.md
   (PML section): a cubic profile, and a target reflection that falls with
   the layer's thickness, R0 = 10^-(2 + m/3) for m damped cells (a thin
   layer cannot take a steep profile: the discrete reflection of the
   profile's gradient wins). */
#define FDX_PML_POWER 3
FDX_HIDDEN double fdx_pml_default_r0(int m);

/* What one kernel launch needs: the block's geometry in local indices, the
   weights (already divided by h and h^2) and where each axis's memory lives
   in the state buffer. */
typedef struct fdx_pml_job {
    int rank, r, m;
    int fused;              /* 1: one pass (psi recomputed, two psi buffers); 0: the two passes */
    long long n[3], st[3];  /* the block's extents and strides */
    long long pos[3][2];    /* local position of axis a's slab point 0 (lower side) and m (upper side) */
    long long zone[3][2];   /* local [lo, hi) of axis a where it adds no term (D-psi reaches r - 1 past psi) */
    long long sst[3][3];    /* strides of axis a's slab arrays (extent 2m along a) */
    long long psi[3];       /* offset of psi_a that pass 2 / the fused pass reads (pass 1 updates it in place) */
    long long psi_out[3];   /* fused pass: offset of the psi_a it writes (the other buffer) */
    long long zeta[3];      /* offset of zeta_a */
    long long npsi[3];      /* pass 1: points of axis a (2m x the unknowns across) */
    long long ulo[3], uhi[3]; /* local range of the grid's unknowns */
    long long box_lo[6][3], box_hi[6][3], box_end[6]; /* the strips as disjoint boxes, prefix counts */
    int nbox;
    int i32;                        /* every index of the grid and the memory fits an int: the 32-bit variant */
    double w2[FDX_PML_MAX_R + 1];   /* centred second derivative / h^2, offsets 0..r */
    double ws[FDX_PML_MAX_R + 1];   /* staggered first derivative / h, ws[k] for k = 1..r */
    double alpha;                   /* dt^2 */
} fdx_pml_job;

typedef struct fdx_pml fdx_pml;

/* FDX_ERR_INVALID naming the first bad value of d (fdx_pml_create's checks). */
FDX_HIDDEN fdx_status fdx_pml_check(const fdx_pml_desc *d);
/* Validates d (FDX_ERR_INVALID naming the bad value) and allocates the
   zeroed memory variables and the coefficient tables on ctx's backend. */
FDX_HIDDEN fdx_status fdx_pml_create(fdx_ctx *ctx, fdx_dtype type, const fdx_pml_desc *d, fdx_pml **out);
FDX_HIDDEN void fdx_pml_destroy(fdx_pml **p);
/* The layer's part of a step: next already holds 2u - u_prev + dt^2 c2 L u
   at every unknown (cur = u, c2 = c^2, all of the grid's shape); updates the
   memory variables and adds dt^2 c2 (D-psi + zeta) to next in the layer. */
FDX_HIDDEN fdx_status fdx_pml_step(fdx_pml *p, fdx_array *next, const fdx_array *cur, const fdx_array *c2,
                                   void *stream);
/* The memory variables, for checkpoints: their count in elements of the
   run's type, and raw copies to and from host bytes (synchronous). */
FDX_HIDDEN int64_t fdx_pml_state_count(const fdx_pml *p);
FDX_HIDDEN fdx_status fdx_pml_state_get(fdx_pml *p, void *bytes, void *stream);
FDX_HIDDEN fdx_status fdx_pml_state_put(fdx_pml *p, const void *bytes, void *stream);
/* Elements of the memory variables of a layer `width` points wide (on each
   axis at most half of it), for the memory checks before a run: psi (two
   buffers) and zeta in each slab. */
FDX_HIDDEN double fdx_pml_elements(int rank, const int64_t *n, int r, int width);
/* The damping and frequency shift at position x (grid units, half-integer
   for psi) of axis a: 0 outside the layer. */
FDX_HIDDEN void fdx_pml_profile(const fdx_pml_desc *d, int a, double x, double *damp, double *shift);

/* CUDA launchers (fdx_pml_cuda.cu): tab is the coefficient table, aux the state. */
#ifdef FDX_HAVE_CUDA
#ifdef __cplusplus
extern "C" {
#endif
FDX_HIDDEN int fdx_pml_cuda_step(const fdx_pml_job *J, int is_double, const void *tab, void *aux, void *next,
                                 const void *cur, const void *c2, void *stream);
#ifdef __cplusplus
}
#endif
#endif

#endif
