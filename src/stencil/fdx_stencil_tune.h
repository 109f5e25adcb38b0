/* fdx_stencil_tune (internal): default configurations, the search over
   block shape, vector width, strategy and chunk, and the tuning-cache key. */
#ifndef FDX_STENCIL_TUNE_H
#define FDX_STENCIL_TUNE_H

#include "stencil/fdx_stencil_impl.h"

/* Times one configuration (median ms); fails when it cannot run. */
typedef fdx_status (*fdx_stencil_trial_fn)(void *arg, const fdx_stencil_cfg *cfg, double *ms);

/* A configuration that runs well without tuning. */
FDX_HIDDEN void fdx_stencil_default_cfg(const fdx_stencil_kspec *ks, const fdx_device_info *dev, int cuda,
                                        const int64_t n3[3], fdx_stencil_cfg *cfg);

/* Compiles a batch of configurations ahead of their trials (in parallel
   threads); failures are left for the trial to report. */
typedef void (*fdx_stencil_prepare_fn)(void *arg, const fdx_stencil_cfg *cfgs, int n);

/* How the tuner measures: the trial (the stencil engine's times a launch;
   tests give a deterministic fake timer here, the documented way to drive
   the search without a device), an optional batch compiler, and the budget:
   at most this many configurations measured per call (0: no limit, the
   whole search at once). */
typedef struct fdx_stencil_tuner {
    fdx_stencil_trial_fn trial;
    fdx_stencil_prepare_fn prepare;
    void *arg;
    int budget;
} fdx_stencil_tuner;

/* Everything measured for one tuning key, kept in its .tune file so a search
   spread over several runs resumes where it stopped. */
#define FDX_STENCIL_JOURNAL_MAX 256
typedef struct fdx_stencil_journal {
    int n;
    int complete;         /* the whole search has run; best is its choice */
    fdx_stencil_cfg best;
    fdx_stencil_cfg cfg[FDX_STENCIL_JOURNAL_MAX];
    double ms[FDX_STENCIL_JOURNAL_MAX]; /* INFINITY: could not run */
} fdx_stencil_journal;

/* One run's share of the search.  With an empty journal and a budget, the
   model's first candidates (the default first) are measured in one batch.
   Then the coordinate search (strategy and vector width, block shape, group
   length, chunk, bands, rows a thread, the asynchronous march, register
   caps; each stage keeps the fastest) is replayed against the journal:
   configurations it has timed cost nothing, new ones are measured in
   batches (a stage's candidates at once) until the budget is spent.  When
   the replay meets no unmeasured configuration the journal is complete and
   *best is the search's choice, the same as one unlimited run would make
   with these times; until then *best is the fastest measured so far.
   *measured: configurations timed in this call (each trial once, plus one
   warm-up of the first). */
FDX_HIDDEN fdx_status fdx_stencil_tune_step(const fdx_stencil_kspec *ks, const fdx_device_info *dev, int cuda,
                                            const int64_t n3[3], const fdx_stencil_tuner *t,
                                            fdx_stencil_journal *j, fdx_stencil_cfg *best, int *measured);

/* The whole search in one call (no budget, a fresh journal). */
FDX_HIDDEN fdx_status fdx_stencil_tune(const fdx_stencil_kspec *ks, const fdx_device_info *dev, int cuda,
                                       const int64_t n3[3], fdx_stencil_trial_fn trial, void *arg,
                                       fdx_stencil_cfg *best);

/* Key of the tuning cache: backend, device, spec and shape class (the log2
   bucket of each extent and the vector widths nx allows). */
FDX_HIDDEN void fdx_stencil_tune_key(const char *backend, const fdx_device_info *dev, const fdx_stencil_kspec *ks,
                                     const int64_t n3[3], char key[33]);

/* Problems smaller than this run the default: tuning them costs more than it
   can save, and their timings are mostly launch overhead. */
#define FDX_STENCIL_TUNE_MIN_POINTS ((int64_t)1 << 22)

/* The stencil engine's line (FDX_STENCIL_TUNE_MIN overrides it): 2^20
   points for high orders on CUDA (rank 3, radius >= 3), whose default
   configuration is far from their best (H100, session 7, the suite's
   small cases tuned from 2^18 points against the default: f64 order 8
   0.734 -> 0.779, order 10 0.607 -> 0.636, order 6 0.809 -> 0.870, f32
   order 12 0.740 -> 0.774 and 0.454 -> 0.434), FDX_STENCIL_TUNE_MIN_POINTS
   for the rest. */
static inline int64_t fdx_stencil_tune_min_default(const fdx_stencil_kspec *ks, int cuda)
{
    return cuda && ks->rank == 3 && ks->radius >= 3 ? (int64_t)1 << 20 : FDX_STENCIL_TUNE_MIN_POINTS;
}

#endif
