/* cmd_stencil: one stencil case (random inputs, poisoned output, verified
   against a CPU loop, timed, compared with the copy bandwidth), shared by
   `fdx stencil` and `fdx bench stencil`. */
#ifndef FDX_CMD_STENCIL_H
#define FDX_CMD_STENCIL_H

#include "cli.h"
#include "fdx/internal/json.h"

typedef struct stencil_case {
    const char *name; /* "case" field of the record */
    int rank;
    int64_t shape[3];
    int order;
    fdx_stencil_update update;
    int coef;
    fdx_dtype dtype;
    int reps;
    const char *suite; /* the record's "suite" ("random-stencil"), NULL: none */
    long seed;         /* the suite's seed, recorded with it */
} stencil_case;

/* "laplacian", "wave", "heat" <-> update. */
fdx_status stencil_parse_op(const char *s, fdx_stencil_update *out);
const char *stencil_op_name(fdx_stencil_update u);

/* Device bytes the case needs (its arrays). */
double stencil_case_bytes(const stencil_case *c);

/* Runs the case and prints a table row (after stencil_table_header) or one
   JSON record.  bc: boundary conditions the stencil applies before each
   apply (fdx_stencil_set_boundary; NULL: interior only); the ghosts are
   verified too, and the record names them ("boundary").  Returns a CLI exit status; errors are printed as
   "fdx CMD: error: ...". */
int stencil_case_run(fdx_ctx *ctx, const char *cmd, const stencil_case *c, const fdx_bc_desc *bc, int json,
                     double copy_gbps);
void stencil_table_header(void);

/* Fills the host copy with deterministic random values in [-1, 1) (salt:
   which sequence), in parallel. */
void stencil_fill_random(fdx_array *a, uint64_t salt);

/* A benchmark record's timing part: "time_ms", "bytes" (fetch, write),
   "effective_gbps", "copy_gbps", "ratio_to_copy", "copy_same_size_gbps",
   "ratio_same_size". */
void stencil_json_rates(fdx_json *j, const fdx_time_stats *t, double fetch, double write, double copy_gbps,
                        double same_gbps);

/* Whether `name` is in the comma-separated list (NULL: every case). */
int bench_selected(const char *list, const char *name);

/* A benchmark suite (fdx bench stencil, fdx bench ustencil): its case
   tables by backend (quick: the small set for tests), each an array of
   structs of `elem` bytes whose first member is the case's name (const char
   *), and how to run one. */
typedef struct bench_suite {
    const char *cmd;       /* "bench stencil" */
    const char *reps_help; /* --reps's help, with the default */
    const void *gpu, *cpu, *quick;
    size_t ngpu, ncpu, nquick, elem;
    /* One case with `reps` timed repetitions (0: its own); an exit status. */
    int (*run)(fdx_ctx *ctx, const char *cmd, const void *c, int json, int reps, double copy_gbps);
    void (*header)(void); /* the table's header */
    /* Optional (NULL: none): the seeded random suite, `count` cases (at
       most max_random, default_count without --count) written to `out`
       (room for count cases of `elem` bytes) for --suite random; describe
       prints a case's parameters after its name in --list; random_help
       says what the suite samples. */
    void (*random)(void *out, long count, long seed);
    long max_random, default_count;
    void (*describe)(const void *c);
    const char *random_help;
} bench_suite;

/* The suite's command line (--json, --quick, --cases, --reps, --list, and
   --suite/--seed/--count where it has a random suite), the copy probe and
   every selected case; returns the exit status. */
int bench_suite_main(const bench_suite *s, int argc, char **argv);

/* The case's stencil description (laplacian, or a stable explicit step of
   the wave / heat update on the unit cube). */
void stencil_case_desc(const stencil_case *c, fdx_stencil_desc *d);

/* `fdx stencil --steps N`: nsteps heat steps with temporal blocking
   (0 off, -1 auto, K), verified bit for bit against single steps and timed
   per step (tools/fdx/cmd_stencil_steps.c). */
int stencil_steps_run(fdx_ctx *ctx, const char *cmd, const stencil_case *c, int64_t nsteps, int temporal,
                      int json, double copy_gbps);

/* The copy bandwidth probe sized for a problem of `bytes` per array. */
fdx_status stencil_copy_gbps(fdx_ctx *ctx, double bytes, double *gbps);

#endif
