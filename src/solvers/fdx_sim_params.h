/* fdx_sim_params: a run's configuration parsed once into typed values (the
   key table of fdx_sim_config.c has checked every value when it was set);
   the solvers read these, never the config's strings.  The strings stay for
   the checkpoint's text, the restart comparison and messages. */
#ifndef FDX_SIM_PARAMS_H
#define FDX_SIM_PARAMS_H

#include "core/fdx_error.h"
#include "fdx/boundary.h"
#include "fdx/solvers.h"

#define FDX_SIM_MAX_REC 64

typedef enum fdx_sim_init { FDX_SIM_INIT_LETTERS, FDX_SIM_INIT_GAUSSIAN, FDX_SIM_INIT_SINE, FDX_SIM_INIT_RANDOM, FDX_SIM_INIT_FILE } fdx_sim_init;
typedef enum fdx_sim_model { FDX_SIM_MODEL_CONSTANT, FDX_SIM_MODEL_LAYERED, FDX_SIM_MODEL_GRADIENT, FDX_SIM_MODEL_FILE } fdx_sim_model;
typedef enum fdx_sim_absorb { FDX_SIM_ABSORB_SPONGE, FDX_SIM_ABSORB_PML, FDX_SIM_ABSORB_NONE } fdx_sim_absorb;
typedef enum fdx_sim_progress { FDX_SIM_PROGRESS_AUTO, FDX_SIM_PROGRESS_BAR, FDX_SIM_PROGRESS_LINES, FDX_SIM_PROGRESS_OFF } fdx_sim_progress;

typedef struct fdx_sim_params {
    fdx_sim_kind kind;
    /* The grid and the run. */
    int rank;
    int64_t n[3]; /* n[2] = 1 in 2D */
    int order;
    fdx_dtype type;
    double length, cfl;
    int64_t steps;
    /* Outputs and their schedule. */
    char output[512], restart[512];
    int64_t snapshot_every, field_every, checkpoint_every;
    int overwrite, scale;
    fdx_sim_progress progress;
    /* Boundary (heat, wave): heat's insulated mirror, a fixed frame (the
       outer r layers keep their initial values), or conditions (has_bc: the
       stencil's generated boundary pass, fdx_stencil_set_boundary). */
    int insulated, has_bc, periodic;
    fdx_bc_desc bc;
    /* Heat. */
    double kappa;
    int temporal; /* heat, wave: fdx_stencil_steps' argument: 0 off, -1 auto, K */
    fdx_sim_init init;
    char text[512], input[512];
    int text_is_default;
    /* Wave. */
    double velocity, f0, amplitude;
    fdx_sim_model model;
    char model_file[512], model_shape[512];
    int nsource, source_dims;          /* 0: the centre */
    int64_t source[3];
    int nrec, rec_dims;                /* 0: the default line */
    int no_receivers;                  /* receivers = none: nothing recorded */
    int64_t rec[FDX_SIM_MAX_REC][3];
    int sponge, sponge_is_default;
    int absorb;                        /* what fills the sponge cells: FDX_SIM_ABSORB_* */
    /* Distribution (heat, wave). */
    int gpus, overlap;
    /* Poisson. */
    double tol;
} fdx_sim_params;

/* Parses c into p (shape, points and enums); FDX_ERR_INVALID naming the key
   for what the table cannot check alone (a malformed point list). */
FDX_HIDDEN fdx_status fdx_sim_params_parse(const fdx_sim_config *c, fdx_sim_params *p);

/* The temporal key against the rest of the run: an explicit depth K > 1
   needs a fixed frame and one array, the wave also no absorbing layer and
   no receivers (FDX_ERR_INVALID naming the key); auto becomes off where
   blocking cannot apply (said at the info level).  Sets p->temporal to what
   the run uses.  (Conditions go with every layout: one array or units.) */
FDX_HIDDEN fdx_status fdx_sim_params_check_boundary(fdx_sim_params *p);

#endif
