/* fdx_fieldgen: initial fields and velocity models generated where the array
   lives (OpenMP on the CPU, a CUDA kernel on the device), point by point in
   global indices, so a block of a distributed grid (shadows included) gets
   exactly the values of the same points of the whole grid.  Nothing is
   computed on the host and copied. */
#ifndef FDX_FIELDGEN_H
#define FDX_FIELDGEN_H

#include "core/fdx_error.h"
#include "fdx/array.h"

#include <stdint.h>

typedef enum fdx_gen_kind {
    FDX_GEN_GAUSSIAN,  /* exp(-r^2 / (2 0.1^2)) around the centre of the unit box */
    FDX_GEN_SINE,      /* prod sin(pi x_a), x_a = i / (N_a - 1) */
    FDX_GEN_RANDOM,    /* uniform in [0, 1) from a hash of the global index */
    FDX_GEN_LETTERS,   /* 1 where mask[i + N0 j] is set (3D: the middle third in z), else 0 */
    FDX_GEN_DEPTH,     /* c^2 of a velocity model that depends on the last axis only */
    FDX_GEN_POISSON_U, /* the exact solution prod sin(pi i h) on the r outer layers, 0 inside */
    FDX_GEN_POISSON_F  /* -lap of it, rank pi^2 u, inside; 0 on the outer layers */
} fdx_gen_kind;

/* DEPTH models: the velocity at depth x = d / (N_last - 1) is v times this. */
typedef enum fdx_gen_model { FDX_GEN_CONSTANT, FDX_GEN_LAYERED, FDX_GEN_GRADIENT } fdx_gen_model;

typedef struct fdx_gen {
    fdx_gen_kind kind;
    int rank;                  /* of the global grid */
    int64_t N[3];              /* global extents (1 beyond rank) */
    int64_t origin[3];         /* global index of the array's element 0 */
    double h;                  /* Poisson: the spacing */
    int r;                     /* Poisson: the Dirichlet layers */
    fdx_gen_model model;       /* DEPTH */
    double v;                  /* DEPTH: the velocity at the top */
    const unsigned char *mask; /* LETTERS: N0 x N1 bytes where the array lives */
} fdx_gen;

/* Fills a (rank and extents of a block of the global grid) from g; the
   element type is a's. */
FDX_HIDDEN fdx_status fdx_fieldgen_fill(fdx_array *a, const fdx_gen *g, void *stream);
/* The velocity (not squared) of a DEPTH model at depth index d: for the
   model's range (cmin, cmax) without visiting the grid. */
FDX_HIDDEN double fdx_fieldgen_velocity(const fdx_gen *g, int64_t d);

#ifdef FDX_HAVE_CUDA
#ifdef __cplusplus
extern "C" {
#endif
/* Returns a cudaError_t as int. */
FDX_HIDDEN int fdx_fieldgen_cuda_fill(void *a, int is_double, const int64_t *n3, const fdx_gen *g, void *stream);
#ifdef __cplusplus
}
#endif
#endif

#endif
