/* fdx solvers: heat, wave and Poisson time loops built on the stencil engine,
   configured by key = value pairs (the same keys as the fdx heat / wave /
   poisson flags), with pictures, HDF5/XDMF fields, receivers, checkpoints and
   restart.  One call advances one step, so other drivers (several GPUs) can
   run the same physics. */
#ifndef FDX_SOLVERS_H
#define FDX_SOLVERS_H

#include "array.h"

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum fdx_sim_kind {
    FDX_SIM_HEAT = 0, /* u_t = kappa lap u, explicit Euler */
    FDX_SIM_WAVE,     /* u_tt = c(x)^2 lap u + source, leapfrog */
    FDX_SIM_POISSON   /* -lap u = f with Dirichlet data, Jacobi/Richardson sweeps */
} fdx_sim_kind;

FDX_API const char *fdx_sim_kind_name(fdx_sim_kind k);

/* ---- configuration ------------------------------------------------------- */
typedef struct fdx_sim_config fdx_sim_config;

FDX_API fdx_status fdx_sim_config_create(fdx_sim_kind kind, fdx_sim_config **out);
FDX_API void fdx_sim_config_destroy(fdx_sim_config **c);
/* Sets a key (dashes or underscores) after checking its value; the message
   names the key and the value.  FDX_ERR_INVALID for unknown keys. */
FDX_API fdx_status fdx_sim_config_set(fdx_sim_config *c, const char *key, const char *value);
FDX_API const char *fdx_sim_config_get(const fdx_sim_config *c, const char *key);
/* Reads an INI file of the same keys ([heat]/[wave]/[poisson] sections are
   allowed; other sections are errors).  Messages carry file:line. */
FDX_API fdx_status fdx_sim_config_load(fdx_sim_config *c, const char *path);
FDX_API fdx_status fdx_sim_config_parse(fdx_sim_config *c, const char *text, size_t size, const char *what);
/* The keys that differ from their defaults as "key = value" lines (malloc). */
FDX_API char *fdx_sim_config_text(const fdx_sim_config *c);
/* The keys of a kind, for --help: i = 0, 1, ... until it returns 0. */
FDX_API int fdx_sim_config_key(fdx_sim_kind kind, int i, const char **name, const char **metavar,
                               const char **def, const char **help);

/* ---- a simulation ---------------------------------------------------------- */
typedef struct fdx_sim fdx_sim;

/* Validates everything before anything is written (nothing is created on
   disk here): the shape; every host and device buffer the run will hold
   against MemAvailable / cudaMemGetInfo (FDX_ERR_INVALID giving the need and
   the limit); numbers the run's precision cannot hold (1/h^2, c^2, dt^2, an
   aliased source, a stable dt outside 1e-30..1e30); input fields and
   models, finite after conversion to the run's precision; keys the chosen
   mode never reads (text without init = letters, ...); the output directory
   (fdx_sim_check_output). */
FDX_API fdx_status fdx_sim_create(fdx_ctx *ctx, const fdx_sim_config *cfg, fdx_sim **out);
FDX_API void fdx_sim_destroy(fdx_sim **s);

/* Advances one step on the simulation's own arrays and stream. */
FDX_API fdx_status fdx_sim_step(fdx_sim *s);
/* The same physics on caller-owned arrays (for distributed drivers): heat
   and Poisson write next from cur; wave also reads prev.  step numbers the
   step being taken (it fixes the source time).  A wave with absorb = pml
   keeps the layer's memory in the simulation: each call advances it, so
   call once per step, in order, on arrays of the whole grid. */
FDX_API fdx_status fdx_sim_step_arrays(fdx_sim *s, fdx_array *next, fdx_array *cur, fdx_array *prev,
                                       int64_t step, void *stream);

/* Every status-returning function here answers FDX_ERR_INVALID to NULL or
   out-of-range arguments; the getters give -1, NaN, 0 or NULL for NULL. */
FDX_API int64_t fdx_sim_steps_done(const fdx_sim *s);
FDX_API double fdx_sim_time(const fdx_sim *s);
FDX_API double fdx_sim_dt(const fdx_sim *s);
FDX_API int fdx_sim_rank(const fdx_sim *s);
FDX_API const int64_t *fdx_sim_shape(const fdx_sim *s);
/* The current field copied to the host as doubles (n = product of shape). */
FDX_API fdx_status fdx_sim_get_field(fdx_sim *s, double *out);
/* The current field itself, no copy: the simulation's array (its
   precision, device memory on CUDA, the plain layout), valid until the next
   step, set_field or destroy, which may write or replace it; the work queued
   on it is finished when this returns.  The caller must not destroy it. */
FDX_API fdx_status fdx_sim_field_view(fdx_sim *s, fdx_array **field);
/* Replaces the current (and, for wave, previous) field. */
FDX_API fdx_status fdx_sim_set_field(fdx_sim *s, const double *cur, const double *prev);

/* Diagnostics: heat and Poisson: integral (sum * cell volume) and max |u|;
   wave: the discrete energy that leapfrog conserves; Poisson: max change of
   the last sweep. */
typedef struct fdx_sim_diag {
    double integral, max_abs, energy, change;
    /* Checksum of the final field: the sum and L2 norm of all its points,
       summed in index order, so runs on any decomposition compare bit for
       bit. */
    double sum, l2;
} fdx_sim_diag;
FDX_API fdx_status fdx_sim_diagnose(fdx_sim *s, fdx_sim_diag *d);

/* Receivers (wave): trace values at each step run so far, receiver-major
   count x steps; *count receivers. */
FDX_API fdx_status fdx_sim_receivers(fdx_sim *s, int *count, int64_t *steps, const double **traces);

/* ---- the whole run ----------------------------------------------------------
   Runs to the configured number of steps (or Poisson's tolerance) writing the
   configured outputs; with `restart` set, first loads DIR/checkpoint.fdx
   (refused, naming the key, when the run's config differs from the
   checkpoint's in anything but steps, output, progress, checkpoint-every,
   gpus, overlap, tol) and, into its own directory, continues its outputs:
   receivers.csv, the seismogram, the GIF and the field series.  An output
   directory holding another run's files is refused unless overwrite = yes.
   The field is checked for NaN/Inf where it lives at every tenth of the run
   (at most 1000 steps apart) and before every output: FDX_ERR_VERIFY naming
   the step, no checkpoint written from it.
   progress: where progress goes (NULL: none).  Stops early, after writing a
   checkpoint, when fdx_sim_interrupt() was called (signal-safe). */
typedef struct fdx_sim_result {
    int64_t steps;          /* steps done in total (restart included) */
    int64_t steps_this_run; /* steps done by this call */
    int interrupted;        /* 1: stopped by fdx_sim_interrupt */
    double wall_s, step_s, output_wait_s;
    double mcells_per_s, effective_gbps;
    fdx_sim_diag diag;
    int units, procs, proc; /* distributed: units of the job, MPI ranks, this rank */
    char summary[4096];     /* the JSON summary (also DIR/summary.json) */
} fdx_sim_result;

FDX_API fdx_status fdx_sim_run(fdx_sim *s, FILE *progress, fdx_sim_result *res);
/* The same run distributed: the grid split along its slowest axis over
   `units` local units per process, built from opts (GPUs, or CPU units with
   backend cpu), and over all MPI ranks when started by mpirun; each step is
   fdx_dstencil_step (overlap as there) plus the boundary, source, sponge and
   receivers on each block.  s must live on a CPU context: it keeps the
   global fields, gathered for pictures, fields, checkpoints and diagnostics.
   Results are bit-identical for any number of units; only rank 0 writes
   output and progress. */
FDX_API fdx_status fdx_sim_run_dist(fdx_sim *s, const fdx_options *opts, int units, int overlap, FILE *progress,
                                    fdx_sim_result *res);
/* The same run, then (fdx dist) its steps timed: the final field's digest
   (fdx_darray_checksum's, the same for any decomposition), `reps`
   batches of `batch` steps after the run, each followed by a sync of every
   unit, the median a step reported, and the digest after them.  The
   batches (and a first untimed one) move the field on; the
   sim keeps the run's final fields.  With `graph` (CUDA, one process) a
   batch replays CUDA graphs of 24 steps: the source's values come from a
   table on the device indexed by a device counter, so a captured step adds
   the value of the step it replays.  The timed steps are the steps a
   longer run would take (receivers aside): the digest after them is the
   final digest of a run of steps + (reps + 1) x batch steps.  t may be
   NULL (fdx_sim_run_dist). */
typedef struct fdx_sim_timing {
    int reps, batch, graph;                    /* in */
    double median_ms, min_ms, max_ms, mean_ms; /* out: a step */
    double fetch_bytes, write_bytes;           /* a step's traffic over the whole grid */
    int graph_used, local_units;
    uint64_t digest;       /* the run's final field */
    uint64_t digest_timed; /* the field after the timed batches */
    char transport[32];
    char note[256]; /* why no graph ran when one could (empty: none) */
} fdx_sim_timing;
FDX_API fdx_status fdx_sim_run_dist_timed(fdx_sim *s, const fdx_options *opts, int units, int overlap,
                                          FILE *progress, fdx_sim_result *res, fdx_sim_timing *t);
/* Loads a checkpoint's config and state: cfg is filled from the checkpoint
   first, then `overrides` (may be NULL) is applied on top. */
FDX_API fdx_status fdx_sim_config_from_checkpoint(fdx_sim_config *cfg, const char *dir);
/* Refuses (FDX_ERR_INVALID) an output directory that cannot be one (empty
   or over-long name, an existing file, FIFO or device, no writable parent)
   or that holds another run's files, unless it is the restart's own
   directory (restart may be NULL) or overwrite is set.  Writes nothing. */
FDX_API fdx_status fdx_sim_check_output(const char *dir, const char *restart, int overwrite);
FDX_API void fdx_sim_interrupt(void);
/* Installs a SIGINT/SIGTERM handler (for tools): before a run has written
   anything (config, device start, the first kernel compile and tuning) the
   run stops, with nothing written, as soon as that compile returns, and the
   process ends with status 130 (_exit) if it has not within 2 s or at a
   second signal; afterwards the handler calls fdx_sim_interrupt.  Also ignores SIGXFSZ, so a file-size limit is an I/O
   error (exit 3) with the temporary file removed. */
FDX_API fdx_status fdx_sim_install_signals(void);

#ifdef __cplusplus
}
#endif
#endif
