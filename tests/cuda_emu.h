/* Running generated CUDA kernels on the CPU (test_stencil_emu,
   test_ustencil_emu): the stand-ins for the CUDA built-ins, and compiling a
   kernel with them as C++ (under AddressSanitizer where the compiler has
   it).  Kernels without shared memory and barriers may run one thread at a
   time, in an order a GPU may choose. */
#ifndef CUDA_EMU_H
#define CUDA_EMU_H

#include "backends/cpu/fdx_cpu_jit.h"
#include "core/fdx_cache.h"
#include "fdx_test.h"

#include <stdio.h>

/* CUDA built-ins for a sequential run.  Vector types carry CUDA's alignment;
   loads and stores check it, as the GPU faults on a misaligned access. */
static const char emu_shim[] =
    "#include <cmath>\n#include <cstdint>\n#include <cstdio>\n#include <cstdlib>\n#include <cstring>\n"
    "struct fdx_idx { unsigned x, y, z; };\n"
    /* Inline PTX (cache hints such as prefetch) does nothing here:
       asm volatile(...) becomes a no-op statement. */
    "static int fdx_emu_asm_;\n#define asm fdx_emu_asm_\n#define volatile(...)\n"
    "static fdx_idx threadIdx, blockIdx, gridDim;\n"
    "#define __global__\n#define __device__\n#define __forceinline__ inline\n"
    "#define __launch_bounds__(...)\n#define __restrict__ __restrict\n"
    "struct alignas(8) float2 { float x, y; };\n"
    "struct alignas(16) float4 { float x, y, z, w; };\n"
    "struct alignas(16) double2 { double x, y; };\n"
    "template <class T> static const T *fdx_aligned(const T *p)\n"
    "{ if ((uintptr_t)p % sizeof(T)) { fprintf(stderr, \"misaligned %zu-byte access\\n\", sizeof(T)); abort(); }\n"
    "  return p; }\n"
    "template <class T> static T __ldg(const T *p) { return *fdx_aligned(p); }\n"
    "template <class T> static T __ldcs(const T *p) { return *fdx_aligned(p); }\n"
    "template <class T> static void __stcs(T *p, T v) { *(T *)fdx_aligned(p) = v; }\n"
    "static float __fmul_rn(float a, float b) { return a * b; }\n"
    "static double __dmul_rn(double a, double b) { return a * b; }\n";

static char emu_dir[256];
static const char *emu_sanitize = "-fsanitize=address";

static fdx_status emu_compile(const char *src, const char *exe, const char *log, int *code)
{
    char *argv[] = {"c++", "-std=c++14", "-O1", "-g", "-w", "-ffp-contract=off", (char *)emu_sanitize,
                    "-fno-omit-frame-pointer", "-o", (char *)exe, (char *)src, NULL};
    if (!emu_sanitize[0]) argv[6] = "-DFDX_NO_SANITIZER", argv[7] = "-DFDX_NO_SANITIZER";
    return fdx_run_program(argv, log, code);
}

/* Whether a trivial program compiles (and with AddressSanitizer). */
static int emu_probe(void)
{
    char src[300], exe[300], log[300];
    snprintf(src, sizeof src, "%s/probe.cpp", emu_dir);
    snprintf(exe, sizeof exe, "%s/probe", emu_dir);
    snprintf(log, sizeof log, "%s/probe.log", emu_dir);
    FILE *f = fopen(src, "w");
    if (!f) return 0;
    fputs("int main() { return 0; }\n", f);
    fclose(f);
    int code = -1;
    if (emu_compile(src, exe, log, &code) == FDX_OK && code == 0) return 1;
    fdx_clear_error();
    emu_sanitize = "";
    return emu_compile(src, exe, log, &code) == FDX_OK && code == 0;
}

#endif
