/* fdx_stencil_cache (internal): kernels loaded once per process, and tuned
   configurations kept in memory and in files beside the kernel cache. */
#ifndef FDX_STENCIL_CACHE_H
#define FDX_STENCIL_CACHE_H

#include "stencil/fdx_stencil_tune.h"

/* The kernel for (backend, device, spec, configuration): loaded from this
   process's table, else generated and loaded through the backend's JIT (which
   keeps compiled objects on disk).  Kernels live until the process ends. */
FDX_HIDDEN fdx_status fdx_stencil_kernel_get(const fdx_backend *be, const fdx_device_info *dev,
                                             const fdx_stencil_kspec *ks, const fdx_stencil_cfg *cfg,
                                             fdx_kernel **out);

/* Compiles the kernels of a batch of configurations into the kernel cache
   in parallel threads (those this process has not loaded, each once), so
   their trials only load them.  Errors are left for the trials. */
FDX_HIDDEN void fdx_stencil_kernels_prepare(const fdx_backend *be, const fdx_device_info *dev,
                                            const fdx_stencil_kspec *ks, const fdx_stencil_cfg *cfgs, int n);

/* Tuned configuration under `key` (32 hex digits): from memory (what this
   process chose), or unless `memory_only` from the file <cache>/<key>.tune
   when its search is complete.  Returns 1 when found; otherwise, when the
   file holds a search still under way, *partial (if not NULL) receives its
   journal (else an empty one). */
FDX_HIDDEN int fdx_stencil_tuned_find(const char *key, int memory_only, fdx_stencil_cfg *cfg,
                                      fdx_stencil_journal *partial);
/* Remembers the chosen configuration in memory (this process does not tune
   that key again) and writes the file with the journal (NULL: a complete
   search without one).  A failure to write is logged, not fatal: the cache
   is an optimisation. */
FDX_HIDDEN void fdx_stencil_tuned_store(const char *key, const fdx_stencil_cfg *cfg, const fdx_stencil_journal *j);

#endif
