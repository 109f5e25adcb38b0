/* fdx_sim_output_impl: the output writer's state, shared by its files:
   fdx_sim_output.c (the queue and the worker thread), _write.c (what the
   worker writes: pictures, fields, the XDMF index), _dir.c (the files of a
   run in its directory), _resume.c (continuing them after a restart) and
   _receivers.c (receivers.csv and the seismogram).  The worker sees the
   grid's description and the views of the fields it writes, never the
   simulation. */
#ifndef FDX_SIM_OUTPUT_IMPL_H
#define FDX_SIM_OUTPUT_IMPL_H

#include "fdx/io.h"
#include "solvers/fdx_sim_output.h"

#include <pthread.h>

#define FDX_SIM_OUT_QUEUE 4

/* A picture or a field handed to the worker. */
typedef struct fdx_sim_job {
    int kind; /* 1 picture, 2 field */
    int64_t step;
    double time;
    double *slice;     /* picture: nx * ny doubles (owned) */
    const void *field; /* field: where its values are on the device (the spare copy, or the final field) */
} fdx_sim_job;

/* What the worker knows of the run, copied when the writer is made. */
typedef struct fdx_sim_out_grid {
    fdx_sim_kind kind;
    int rank;
    int64_t n[3], count;
    fdx_dtype type;
    double h;
    double range[2]; /* heat pictures' colour range */
} fdx_sim_out_grid;

struct fdx_sim_output {
    fdx_sim_out_grid g;
    const fdx_backend *be;
    fdx_ctx *ctx;
    char dir[512];
    pthread_t thread;
    int started;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    fdx_sim_job q[FDX_SIM_OUT_QUEUE];
    int head, count, stop, busy_field;
    char error[600];
    fdx_status error_status;
    double wait_s;
    /* Pictures. */
    fdx_gif *gif;
    unsigned char palette[768];
    int scale;
    int gif_frames;
    /* receivers.csv: started by this process, and the last step on disk. */
    int csv_started;
    int64_t csv_step;
    /* Fields: spare device copy, pinned host copy, the worker's stream. */
    void *spare, *host, *wstream;
    fdx_xdmf_entry *entries;
    int nentries, capentries;
};

/* ---- fdx_sim_output_write.c: on the worker thread ------------------------ */
FDX_HIDDEN fdx_status fdx_sim_out_picture(fdx_sim_output *o, const fdx_sim_job *j);
/* Copies the field to the pinned buffer, frees the spare, writes HDF5 + XDMF. */
FDX_HIDDEN fdx_status fdx_sim_out_field(fdx_sim_output *o, const fdx_sim_job *j);
/* One more field file in the XDMF time series (listed once). */
FDX_HIDDEN fdx_status fdx_sim_out_add_entry(fdx_sim_output *o, double time, const char *file);

/* ---- fdx_sim_output_dir.c: the files of a run --------------------------- */
/* A numbered series of files: DIR/sub/prefix<step>suffix. */
typedef struct fdx_sim_series {
    const char *sub, *prefix, *suffix;
} fdx_sim_series;
extern const fdx_sim_series FDX_SIM_FIELDS, FDX_SIM_FRAMES;
/* The step of a series file name (prefix, digits, suffix), or -1. */
FDX_HIDDEN int64_t fdx_sim_series_step(const fdx_sim_series *se, const char *name);
/* Calls fn for each entry of dir/sub (sub may be ""); stops at an error. */
FDX_HIDDEN fdx_status fdx_sim_each_entry(const char *dir, const char *sub,
                                         fdx_status (*fn)(const char *path, const char *name, void *arg), void *arg);
FDX_HIDDEN int fdx_sim_same_dir(const char *a, const char *b);
/* Removes the series files of dir above step `after`, temporaries of dead
   processes, and final fields of an earlier run off field_every's schedule. */
FDX_HIDDEN fdx_status fdx_sim_remove_after(const char *dir, int64_t after, int64_t field_every);

/* ---- fdx_sim_output_resume.c -------------------------------------------- */
/* After a restart into its own directory: the XDMF index with the fields
   kept, the GIF with the frames kept, the receivers' rows read back. */
FDX_HIDDEN fdx_status fdx_sim_output_resume(fdx_sim_output *o, fdx_sim *s, int64_t upto);

/* ---- fdx_sim_output_receivers.c ----------------------------------------- */
/* receivers.csv up to the current step, and with `picture` the seismogram. */
FDX_HIDDEN fdx_status fdx_sim_out_receivers(fdx_sim_output *o, fdx_sim *s, int picture);

#endif
