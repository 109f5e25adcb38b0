/* transform_case: one layout transform, set up, verified and timed; shared by
   `fdx transform` and `fdx bench transform`. */
#ifndef FDX_TRANSFORM_CASE_H
#define FDX_TRANSFORM_CASE_H

#include "cli.h"

typedef struct transform_case {
    char name[64];
    size_t elem;
    int rank;
    int64_t shape[FDX_MAX_RANK]; /* logical extents, first fastest */
    fdx_layout from, to;         /* the timed conversion: from -> to */
    const char *suite;           /* the record's "suite" ("random-transform"), NULL: none */
    long seed;                   /* the suite's seed, recorded with it */
    /* A/B variants timed on the same data (measurements; NULL: one run as
       the environment says): a comma-separated list, each "default" or
       FDX_NAME=VALUE settings joined by '+', set for that variant's
       verified run and timing and restored afterwards; each record carries
       its "variant".  Checked by transform_variants_check. */
    const char *variants;
} transform_case;

/* A --variants list as transform_case.variants takes it; the message names
   the bad entry. */
fdx_status transform_variants_check(const char *list);

/* Fills the case's name, layouts (from identity to perm + diag, or the
   reverse when undiag) after checking them; messages name the bad value. */
fdx_status transform_case_make(transform_case *c, const char *name, size_t elem, int rank, const int64_t *shape,
                               const int *perm, fdx_diag diag, int undiag);

/* Bytes one case needs on the device (buffers) and the host. */
size_t transform_case_bytes(const transform_case *c);

/* Runs c on ctx: random input, poisoned output, one verified run (checked in
   full against the CPU transform on `cpu` and at sampled points against the
   index function), then the median of `reps` timed runs, and a copy of the
   same size (ratio_same_size: small arrays are judged against what a copy
   of their size reaches, not against a 1 GiB copy).  Prints a table row
   (table_header once before) or one JSON record; *verified tells the check. */
void transform_table_header(void);
fdx_status transform_case_run(fdx_ctx *ctx, fdx_ctx *cpu, const transform_case *c, int reps, double copy_gbps,
                              int json, int *verified);

/* A CPU context for the reference transform (the CPU backend always exists). */
fdx_status transform_cpu_ctx(fdx_ctx **out);

#endif
