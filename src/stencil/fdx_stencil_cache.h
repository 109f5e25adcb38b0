/* fdx_stencil_cache (internal): kernels loaded once per process, and tuned
   configurations kept in memory and in files beside the kernel cache. */
#ifndef FDX_STENCIL_CACHE_H
#define FDX_STENCIL_CACHE_H

#include "stencil/fdx_stencil_impl.h"

/* The kernel for (backend, device, spec, configuration): loaded from this
   process's table, else generated and loaded through the backend's JIT (which
   keeps compiled objects on disk).  Kernels live until the process ends. */
FDX_HIDDEN fdx_status fdx_stencil_kernel_get(const fdx_backend *be, const fdx_device_info *dev,
                                             const fdx_stencil_kspec *ks, const fdx_stencil_cfg *cfg,
                                             fdx_kernel **out);

/* Tuned configuration under `key` (32 hex digits): from memory, or unless
   `memory_only` from the file <cache>/<key>.tune.  Returns 1 when found. */
FDX_HIDDEN int fdx_stencil_tuned_find(const char *key, int memory_only, fdx_stencil_cfg *cfg);
/* Remembers a tuned configuration in memory and writes its file (a failure
   to write is logged, not fatal: the cache is an optimisation). */
FDX_HIDDEN void fdx_stencil_tuned_store(const char *key, const fdx_stencil_cfg *cfg);

#endif
