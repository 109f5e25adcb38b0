/* fdx_cpu_jit: C source -> shared object (system compiler) -> dlopen. */
#ifndef FDX_CPU_JIT_H
#define FDX_CPU_JIT_H

#include "backends/fdx_backend.h"

FDX_HIDDEN fdx_status fdx_cpu_jit_load(const fdx_device_info *dev, const char *source,
                                       const char *entry, const char *what, fdx_kernel **out);
/* Compiles into the kernel cache only (no load): safe from any thread. */
FDX_HIDDEN fdx_status fdx_cpu_jit_compile(const fdx_device_info *dev, const char *source, const char *what);
FDX_HIDDEN void fdx_cpu_kernel_release(fdx_kernel *k);
FDX_HIDDEN fdx_status fdx_cpu_launch(fdx_kernel *k, const fdx_launch_dims *dims, void **args,
                                     void *stream);

/* Runs a program with arguments, stderr and stdout captured into `log_path`;
   returns its exit status in *code (-1 if it could not start). */
FDX_HIDDEN fdx_status fdx_run_program(char *const argv[], const char *log_path, int *code);

#endif
