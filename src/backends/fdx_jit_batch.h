/* fdx_jit_batch (internal): compiles a batch of kernel sources into the
   kernel cache in parallel threads, through the backend's jit_compile. */
#ifndef FDX_JIT_BATCH_H
#define FDX_JIT_BATCH_H

#include "backends/fdx_backend.h"

#define FDX_JIT_BATCH_MAX_THREADS 16

/* Threads a batch of n sources uses: one a source, at most the online CPUs
   and FDX_JIT_BATCH_MAX_THREADS. */
FDX_HIDDEN int fdx_jit_batch_threads(int n);

/* Compiles every source (the calling thread works too) and returns how many
   failed; failures are only logged (debug), since the jit_load that follows
   compiles such a source again and reports the error there. */
FDX_HIDDEN int fdx_jit_compile_batch(const fdx_backend *be, const fdx_device_info *dev, const char *const *sources,
                                     int n, const char *what);

#endif
