/* fdx_sim_impl: the simulation object shared by the solver files. */
#ifndef FDX_SIM_IMPL_H
#define FDX_SIM_IMPL_H

#include "backends/fdx_backend.h"
#include "fdx/boundary.h"
#include "fdx/solvers.h"
#include "fdx/stencil.h"
#include "solvers/fdx_fieldgen.h"
#include "solvers/fdx_pml.h"
#include "solvers/fdx_sim_params.h"

/* Another owner of the state (the distributed driver, fdx_sim_dist.c): the
   run steps through it, and pulls the fields into cur/prev (and the traces
   into rec_buf_dev) before anything reads them. */
typedef struct fdx_sim_driver {
    fdx_status (*push)(fdx_sim *s); /* cur/prev -> the driver's fields (start, restart) */
    fdx_status (*step)(fdx_sim *s); /* one step; advances s->step */
    fdx_status (*pull)(fdx_sim *s); /* the driver's fields -> cur/prev, traces */
    fdx_status (*sync)(fdx_sim *s); /* waits for all queued work */
    void *arg;
    fdx_ctx *ctx;                   /* what the summary names (backend, device) */
    int units, procs, quiet;        /* quiet: another MPI rank writes the output */
    int64_t pulled;                 /* the step cur/prev hold (-1: stale) */
} fdx_sim_driver;

/* Where an array sits in the grid: the whole grid, or a block of a
   distributed one (fdx_sim_dist.c); the physics' terms and boundary step
   act on either alike. */
typedef struct fdx_sim_block {
    int64_t origin[3]; /* global index of the array's element 0 */
    unsigned faces;    /* faces of the whole grid it holds: bit 2a the lower, 2a+1 the upper face of axis a */
    int64_t src;       /* local index of the wave's source, -1: not in this array */
    int whole;         /* 1: the one-array run (a fused sponge, Poisson's right-hand side) */
    fdx_pml *pml;      /* the block's PML (a unit of a distributed wave with absorb = pml); NULL: the sim's */
    fdx_array *coef;   /* with pml: the block's c^2 */
} fdx_sim_block;

/* One set of operations per physics (fdx_sim_heat.c, _wave.c, _poisson.c);
   the core (fdx_sim.c, fdx_sim_run.c) knows the grid, the time levels, the
   fields and the schedule, and calls these. */
typedef struct fdx_sim_physics {
    fdx_sim_kind kind;
    int levels; /* time levels: 2, or 3 for the wave's leapfrog */
    /* After cur and next exist: the time step and update factor (from lam,
       the largest eigenvalue of -L), the number checks, the physics' own
       arrays, the initial state in cur, and the stencil's update in desc. */
    fdx_status (*setup)(fdx_sim *s, double lam, fdx_stencil_desc *desc);
    /* What the step adds after the stencil update of step `step`: sources,
       the sponge, a right-hand side (NULL: nothing). */
    fdx_status (*terms)(fdx_sim *s, const fdx_sim_block *b, fdx_array *next, fdx_array *cur, int64_t step,
                        void *stream);
    /* The boundary step, last in a step: the walls' ghost layers (heat's
       insulated mirror; NULL: the stencil never writes the outer layers,
       which keep their values).  Boundary conditions of a --boundary key
       go here, per physics. */
    fdx_status (*boundary)(fdx_sim *s, const fdx_sim_block *b, fdx_array *next, void *stream);
    /* After a step of the run: *stop = 1 ends it early (Poisson's
       convergence; NULL: the run takes all its steps). */
    fdx_status (*converged)(fdx_sim *s, int *stop);
    /* n steps between two looks at the field at depth p.temporal
       (temporal blocking, bit for bit as n single steps; NULL: none), the
       result in cur (and prev); advances s->step. */
    fdx_status (*steps)(fdx_sim *s, int64_t n);
} fdx_sim_physics;

FDX_HIDDEN extern const fdx_sim_physics fdx_sim_heat_ops, fdx_sim_wave_ops, fdx_sim_poisson_ops;

struct fdx_sim {
    fdx_ctx *ctx;
    const fdx_backend *be;
    fdx_sim_config *cfg;  /* the strings: checkpoint text, restart comparison, messages */
    fdx_sim_params p;     /* the same, parsed once: what the code reads */
    const fdx_sim_physics *ops;
    fdx_sim_kind kind;
    int rank, order, r;
    int64_t n[3], count;
    fdx_dtype type;
    double h, dt, alpha;
    int64_t steps, step, snapshot_every, field_every, checkpoint_every;
    char output[512];
    fdx_stencil *stencil;
    fdx_bc *frame_bc;             /* conditions of the boundary key: fills cur's frame when it is looked at */
    fdx_stencil_desc desc;        /* the stencil's, for the distributed driver */
    fdx_array *cur, *prev, *next; /* rotated each step */
    fdx_array *coef;              /* wave: c^2 */
    fdx_array *rhs;               /* Poisson: f */
    fdx_array *spare;             /* wave, temporal blocking: a pass's fourth array (fdx_sim_temporal.c) */
    int frames_same;              /* wave, temporal: cur/prev/next frames 1 equal, -1 not, 0 not yet compared */
    int depth_used;               /* temporal: steps a pass of the last block (0: none yet) */
    void *stream;
    int insulated;                /* heat */
    double cmin, cmax, f0, t0, amp; /* wave */
    fdx_gen model_gen;              /* wave: the generated model (when model_c2 is NULL) */
    double *model_c2;               /* wave: a model file's c^2, until it is uploaded */
    int model_c2_file;              /* wave: the model came from a file (else model_gen) */
    int64_t src;
    int sponge;
    int sponge_fused;               /* the sponge is in the stencil's wave update */
    fdx_pml *pml;                   /* wave, absorb = pml: the layer's memory (fdx_pml.h); NULL otherwise */
    int pml_width;                  /* wave, absorb = pml: the layer's cells (a distributed run's units make their own) */
    int nrec;
    int64_t rec[FDX_SIM_MAX_REC];
    void *rec_idx_dev, *rec_buf_dev; /* device: indices, nrec x (steps + 1) values */
    double *traces;                  /* host copy, receiver-major */
    int64_t rec_first;               /* first step recorded by this process */
    int64_t rec_kept;                /* restart step: trace steps up to it are not this process's */
    double tol, change;              /* Poisson */
    double range[2];                 /* colour range of heat pictures */
    /* How the initial state was made, so the distributed driver makes its
       blocks the same way where they live (fdx_sim_dist.c). */
    int fresh;                       /* cur/next/prev hold the state fdx_sim_create made */
    int init_generated;              /* heat: init_gen (with init_mask) made cur; 0: a file */
    fdx_gen init_gen;
    unsigned char *init_mask;        /* heat, init = letters: N0 x N1 bytes on the host */
    fdx_sim_driver *drv;             /* NULL: the step runs here on cur/prev/next */
    void *check_dev;                 /* 8 bytes: the finiteness check's result */
};

/* The terms and the boundary step of physics after a stencil update of
   next (from cur) on an array placed by b. */
FDX_HIDDEN fdx_status fdx_sim_after_update(fdx_sim *s, const fdx_sim_block *b, fdx_array *next, fdx_array *cur,
                                           int64_t step, void *stream);
/* A zeroed array of the grid's shape where the stencil reads it. */
FDX_HIDDEN fdx_status fdx_sim_make_array(fdx_sim *s, fdx_array **a);
/* Heat: n steps through fdx_stencil_steps at depth p.temporal (the
   result in cur); advances s->step. */
FDX_HIDDEN fdx_status fdx_sim_heat_steps(fdx_sim *s, int64_t n);
/* Wave: n steps in temporally blocked passes where they are exact (no
   source inside a pass, equal frames), else one at a time (fdx_sim_temporal.c). */
FDX_HIDDEN fdx_status fdx_sim_wave_steps(fdx_sim *s, int64_t n);
/* The heat pictures' colour range: the initial field's. */
FDX_HIDDEN fdx_status fdx_sim_heat_range(fdx_sim *s);

/* Brings cur/prev up to date when a driver owns the state. */
FDX_HIDDEN fdx_status fdx_sim_pull(fdx_sim *s);
/* The PML of a unit's block (global index of its element 0, its extents)
   on ctx, for a distributed wave with absorb = pml (fdx_sim_wave.c). */
FDX_HIDDEN fdx_status fdx_sim_wave_pml(const fdx_sim *s, fdx_ctx *ctx, const int64_t *origin, const int64_t *extent,
                                       fdx_pml **out);
/* Source term added at grid point src by the step numbered `step`. */
FDX_HIDDEN double fdx_sim_source_value(const fdx_sim *s, int64_t step);

/* Parsing helpers shared with the config table. */
FDX_HIDDEN fdx_status fdx_sim_parse_shape(const char *key, const char *s, int *rank, int64_t *shape);
FDX_HIDDEN fdx_status fdx_sim_parse_points(const char *key, const char *s, int max, int *n, int64_t (*pts)[3],
                                           int *dims);
FDX_HIDDEN fdx_sim_kind fdx_sim_config_kind(const fdx_sim_config *c);
/* 1 when key holds its default value for the config's kind. */
FDX_HIDDEN int fdx_sim_config_is_default(const fdx_sim_config *c, const char *key);
FDX_HIDDEN fdx_status fdx_sim_config_copy(const fdx_sim_config *c, fdx_sim_config **out);
/* The first key a restart may not change whose value differs between the
   run's config and the checkpoint's (NULL: none), with both values. */
FDX_HIDDEN const char *fdx_sim_config_restart_diff(const fdx_sim_config *run, const fdx_sim_config *ckpt,
                                                   const char **run_value, const char **ckpt_value);

/* Initial fields and models (fdx_sim_init.c), generated where the arrays
   live; only files are read on the host and copied. */
FDX_HIDDEN void fdx_sim_gen_base(const fdx_sim *s, fdx_gen_kind kind, fdx_gen *g);
FDX_HIDDEN fdx_status fdx_sim_init_heat(fdx_sim *s, fdx_array *u);
/* The letters' field from a host mask of N0 x N1 bytes (copied where u lives). */
FDX_HIDDEN fdx_status fdx_sim_fill_letters(const fdx_backend *be, fdx_array *u, const fdx_gen *g,
                                           const unsigned char *mask, void *stream);
FDX_HIDDEN fdx_status fdx_sim_init_poisson(fdx_sim *s, fdx_array *u, fdx_array *f);
/* Sets cmin and cmax of the velocity model (a file is read here and kept
   as c^2 until fdx_sim_velocity_fill). */
FDX_HIDDEN fdx_status fdx_sim_velocity_range(fdx_sim *s);
/* Writes c^2 into coef. */
FDX_HIDDEN fdx_status fdx_sim_velocity_fill(fdx_sim *s, fdx_array *coef);
/* Ricker wavelet of peak frequency f0 delayed by t0. */
FDX_HIDDEN double fdx_sim_ricker(double t, double f0, double t0);

/* Host <-> array transfers through doubles. */
/* Converts to the run's precision and refuses values that are not finite
   there; `what` names the input in the message. */
FDX_HIDDEN fdx_status fdx_sim_upload(fdx_sim *s, fdx_array *a, const double *v, const char *what);
FDX_HIDDEN fdx_status fdx_sim_download(fdx_sim *s, fdx_array *a, double *v);
/* Copies of the state for checkpoints (raw element bytes). */
FDX_HIDDEN fdx_status fdx_sim_download_raw(fdx_sim *s, fdx_array *a, void *bytes);
FDX_HIDDEN fdx_status fdx_sim_upload_raw(fdx_sim *s, fdx_array *a, const void *bytes);
/* FDX_ERR_VERIFY naming the step and the first bad point when `a` holds a
   NaN or Inf (checked where the array lives; 8 bytes come back). */
FDX_HIDDEN fdx_status fdx_sim_check_finite(fdx_sim *s, fdx_array *a, const char *what);
/* Refuses numbers the run's precision cannot hold (spacing, dt, c^2, f0). */
FDX_HIDDEN fdx_status fdx_sim_check_numbers(const fdx_sim *s);
/* Refuses a run whose buffers do not fit the host or the device. */
FDX_HIDDEN fdx_status fdx_sim_check_memory(const fdx_sim *s, int nrec, int distributed);
/* The physics' own state beyond the fields (the wave's PML memory) in a
   checkpoint (fdx_sim_state.c): save appends up to FDX_SIM_MAX_STATE fields
   of `count` elements to f[*nf..] (their bytes in *buf, the caller frees
   it); load puts them back, FDX_ERR_INVALID naming path when they lack. */
#define FDX_SIM_MAX_STATE 6
struct fdx_ckpt_field;
struct fdx_ckpt;
FDX_HIDDEN fdx_status fdx_sim_state_save(fdx_sim *s, struct fdx_ckpt_field *f, int *nf, void **buf);
FDX_HIDDEN fdx_status fdx_sim_state_load(fdx_sim *s, const struct fdx_ckpt *c, const char *path);
/* Sets the step counter (restart). */
FDX_HIDDEN void fdx_sim_set_step(fdx_sim *s, int64_t step);

#endif
