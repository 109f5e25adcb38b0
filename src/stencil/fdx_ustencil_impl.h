/* fdx_ustencil (internal): the canonical form of a user stencil, the
   configurations of its kernels, their parameter block and the generator. */
#ifndef FDX_USTENCIL_IMPL_H
#define FDX_USTENCIL_IMPL_H

#include "backends/fdx_backend.h"
#include "fdx/ustencil.h"

/* A factor of a term: field f (inputs 0 .. ninputs-1, then coefficient j as
   ninputs + j), its component, and its offset in the generated axes (x, y,
   m: x fastest, y the second in-plane axis of rank 3, m the marching axis,
   the slowest; as the star stencil maps them). */
typedef struct fdx_us_factor {
    int field, comp;
    int off[3];
} fdx_us_factor;

/* A merged term: out component, the input factor and (nf 2) the coefficient
   factor.  Its weight is w[i] of the spec's weights, a run-time parameter. */
typedef struct fdx_us_term {
    int out_comp, nf;
    fdx_us_factor f[2];
} fdx_us_term;

/* Everything the generated source depends on besides its configuration. */
typedef struct fdx_us_spec {
    int is_double, rank, radius, ncomp, ninputs, ncoefs, nterms;
    int rx, ry, rm; /* reach along x, y, m (0 where the axis is absent) */
    fdx_us_term terms[FDX_USTENCIL_MAX_TERMS];
} fdx_us_spec;

/* Strategies.  POINT: one thread (CUDA) or one loop iteration (C) per point,
   every distinct input point loaded once into a named value (the general
   path; the CPU always runs it).  MARCH (CUDA, rank 2 and 3): 2D blocks over
   the plane, each thread marches its column along m through a chunk of
   planes; at step s it loads plane s's distinct points once and adds every
   term whose latest factor lies in plane s into the accumulator of its
   output plane (2 r + 1 accumulators in registers), then stores plane s - r.
   A term whose factors lie in two planes takes the earlier one from a
   register column of the thread's own (x, y), so the march needs those
   factors at in-plane offset (0, 0) (fdx_us_march_ok). */
/* FDX_US_TILE: the march with each plane's block tile (its x-y halo
   included) copied once into shared memory by cp.async, pf planes ahead
   (fdx_ustencil_march.c), every in-plane neighbour read from there. */
typedef enum fdx_us_variant { FDX_US_POINT = 0, FDX_US_MARCH = 1, FDX_US_TILE = 2 } fdx_us_variant;
/* The most shared memory a tile march may ask for (sm_80's opt-in limit). */
#define FDX_US_MAX_SMEM (160 * 1024)

typedef struct fdx_us_cfg {
    int variant;
    int tx, ty;  /* CUDA block */
    int vec;     /* march: consecutive x points a thread (lanes) */
    int unroll;  /* march: #pragma unroll of the step loop (1, 2, 4) */
    int chunk;   /* march: planes a block (run-time) */
    int vload;   /* march: a row's points as aligned vectors of vec values (needs
                    nx and 2 rx multiples of vec, one component, aligned arrays) */
    int pf;      /* march: each step prefetches the thread's points pf planes
                    ahead into L2 (0: none); tile: planes in flight (1..4) */
    int rows;    /* march, rank 3: consecutive rows a thread (0 or 1: one); the
                    rows share the loads of the rows between them */
    int pipe;    /* march: the next plane's loads are issued before this plane's
                    sums (software pipelining in registers: a plane's values in
                    flight per thread while it computes) */
    int minb;    /* CUDA: __launch_bounds__ minimum blocks a multiprocessor (0:
                    none): caps the registers so that more warps are resident
                    (the box's march at 112 registers ran 2 blocks of 256) */
} fdx_us_cfg;

/* The parameter block: struct fdx_up { long long n[3]; long long chunk;
   real w[nterms]; } in the kernel's precision. */
typedef struct fdx_us_params {
    unsigned char bytes[32 + 8 * FDX_USTENCIL_MAX_TERMS];
    size_t size;
} fdx_us_params;

#define FDX_USTENCIL_ENTRY "fdx_ustencil_kernel"

/* The canonical spec and weights (alpha applied, the update's terms added,
   equal terms merged) of a description, for an element type. */
FDX_HIDDEN fdx_status fdx_us_spec_build(const fdx_ustencil_desc *d, int is_double, fdx_us_spec *ks, double *w);

/* Whether the march can run the spec (rank >= 2, every two-plane term's
   earlier factor at in-plane offset (0, 0)). */
FDX_HIDDEN int fdx_us_march_ok(const fdx_us_spec *ks);
/* Whether a configuration can run the grid n3 (march: vec interior points). */
FDX_HIDDEN int fdx_us_cfg_fits(const fdx_us_spec *ks, const fdx_us_cfg *cfg, const int64_t n3[3]);
/* The tile march's dynamic shared memory in bytes. */
FDX_HIDDEN size_t fdx_us_tile_bytes(const fdx_us_spec *ks, const fdx_us_cfg *cfg);
/* A configuration that runs well without tuning. */
FDX_HIDDEN void fdx_us_default_cfg(const fdx_us_spec *ks, int cuda, const int64_t n3[3], fdx_us_cfg *cfg);
/* The candidates the tuner times in stage 0 (block shapes, lanes, vector
   loads, the point kernel; the other knobs from `base`), stage 1 (unroll,
   prefetch and chunk around `base`, the winner of stage 0) or stage 2
   (`base` with register caps for 768, 1024 and 1536 resident threads); at
   most `max`, returns their count. */
FDX_HIDDEN int fdx_us_candidates(const fdx_us_spec *ks, const int64_t n3[3], int stage, const fdx_us_cfg *base,
                                 fdx_us_cfg *cfgs, int max);
/* "march 32x8 vec2 chunk 64 unroll 2". */
FDX_HIDDEN void fdx_us_cfg_text(const fdx_us_cfg *cfg, int cuda, char *buf, size_t n);

FDX_HIDDEN void fdx_us_params_build(const fdx_us_spec *ks, const fdx_us_cfg *cfg, const int64_t n3[3],
                                    const double *w, fdx_us_params *p);
FDX_HIDDEN fdx_status fdx_us_launch_dims(const fdx_us_spec *ks, const fdx_us_cfg *cfg, const int64_t n3[3],
                                         fdx_launch_dims *dims);

/* The kernel's source (malloc'ed): C with OpenMP (entry void
   fdx_ustencil_kernel(void **args), pointers in args) or CUDA C (extern "C"
   __global__ fdx_ustencil_kernel(out, u0.., k0.., p)). */
FDX_HIDDEN fdx_status fdx_us_generate(const fdx_us_spec *ks, const fdx_us_cfg *cfg, int cuda, char **source);

#endif
