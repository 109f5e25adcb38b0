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

/* Coordinate search from the default: strategy and vector width, then block
   shape, then chunk; each stage keeps the fastest.  *best is the winner. */
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

#endif
