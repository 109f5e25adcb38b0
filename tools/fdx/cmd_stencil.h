/* cmd_stencil: one stencil case (random inputs, poisoned output, verified
   against a CPU loop, timed, compared with the copy bandwidth), shared by
   `fdx stencil` and `fdx bench stencil`. */
#ifndef FDX_CMD_STENCIL_H
#define FDX_CMD_STENCIL_H

#include "cli.h"

typedef struct stencil_case {
    const char *name; /* "case" field of the record */
    int rank;
    int64_t shape[3];
    int order;
    fdx_stencil_update update;
    int coef;
    fdx_dtype dtype;
    int reps;
} stencil_case;

/* "laplacian", "wave", "heat" <-> update. */
fdx_status stencil_parse_op(const char *s, fdx_stencil_update *out);
const char *stencil_op_name(fdx_stencil_update u);

/* Device bytes the case needs (its arrays). */
double stencil_case_bytes(const stencil_case *c);

/* Runs the case and prints a table row (after stencil_table_header) or one
   JSON record.  Returns a CLI exit status; errors are printed as
   "fdx CMD: error: ...". */
int stencil_case_run(fdx_ctx *ctx, const char *cmd, const stencil_case *c, int json, double copy_gbps);
void stencil_table_header(void);

/* The case's stencil description (laplacian, or a stable explicit step of
   the wave / heat update on the unit cube). */
void stencil_case_desc(const stencil_case *c, fdx_stencil_desc *d);
/* Deterministic random values in [-1, 1) on the host, from the index and salt. */
void stencil_fill_random(fdx_array *a, uint64_t salt);

/* `fdx stencil --steps N`: nsteps heat steps with temporal blocking
   (0 off, -1 auto, K), verified bit for bit against single steps and timed
   per step (tools/fdx/cmd_stencil_steps.c). */
int stencil_steps_run(fdx_ctx *ctx, const char *cmd, const stencil_case *c, int64_t nsteps, int temporal,
                      int json, double copy_gbps);

/* The copy bandwidth probe sized for a problem of `bytes` per array. */
fdx_status stencil_copy_gbps(fdx_ctx *ctx, double bytes, double *gbps);

#endif
