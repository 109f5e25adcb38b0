/* cuda_emu: generated CUDA kernels run on the CPU (no GPU in CI).  A kernel
   is compiled as C++ after cuda_emu_shim, stand-ins for the CUDA built-ins
   it uses (vector types, __ldg/__ldcs/__stcs that abort on a misaligned
   access, block and thread indices), under AddressSanitizer where the
   compiler has it.  Kernels without barriers may run their grid one thread
   at a time (cuda_emu_grid without barriers); with barriers each block's
   threads are fibers that run phase by phase: every thread up to its next
   __syncthreads, then the next phase, __shared__ arrays shared by the
   block (blocks one after another), dynamic shared memory given to the grid
   (cuda_emu_dynamic_shared rewrites its declaration).  A barrier that some
   threads reach after others returned (divergent) aborts the run.  Used by test_stencil_emu.c, test_temporal_emu.c, test_ustencil_emu.c and test_loop_emu.c;
   cuda_emu_async_kernel runs cp.async kernels (the asynchronous march, the
   user stencils' tile). */
#ifndef CUDA_EMU_H
#define CUDA_EMU_H

#include "backends/cpu/fdx_cpu_jit.h"
#include "core/fdx_cache.h"
#include "core/fdx_file.h"
#include "fdx/internal/sb.h"
#include "fdx_test.h"

#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Vector types carry CUDA's alignment; loads and stores check it, as the
   GPU faults on a misaligned access. */
static const char cuda_emu_shim[] =
    "#include <cmath>\n#include <cstdint>\n#include <cstdio>\n#include <cstdlib>\n#include <cstring>\n"
    "#include <functional>\n#include <utility>\n#include <vector>\n"
    "struct fdx_idx { unsigned x, y, z; };\n"
    "static fdx_idx threadIdx, blockIdx, gridDim, blockDim;\n"
    /* Inline PTX (cache hints such as prefetch) does nothing here:
       asm volatile(...) becomes a no-op statement. */
    "static int fdx_emu_asm_;\n#define asm fdx_emu_asm_\n#define volatile(...)\n"
    "#define __global__\n#define __device__\n#define __forceinline__ inline\n#define __shared__ static\n"
    "#define __launch_bounds__(...)\n#define __restrict__ __restrict\n#define __grid_constant__\n"
    /* Dynamic shared memory: the block's bytes (see cuda_emu_dynamic_shared). */
    "static unsigned char *fdx_dynamic_smem;\n"
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
    "static double __dmul_rn(double a, double b) { return a * b; }\n"
    /* The other exactly rounded intrinsics (never contracted on the GPU):
       one operation each here, fma exact (std::fma).  Inlined, a compiler
       with contraction on could still fuse a __dmul_rn into a following
       __dadd_rn: programs that compare roundings use -ffp-contract=off. */
    "static float __fadd_rn(float a, float b) { return a + b; }\n"
    "static double __dadd_rn(double a, double b) { return a + b; }\n"
    "static float __fsub_rn(float a, float b) { return a - b; }\n"
    "static double __dsub_rn(double a, double b) { return a - b; }\n"
    "static float __fmaf_rn(float a, float b, float c) { return std::fma(a, b, c); }\n"
    "static double __fma_rn(double a, double b, double c) { return std::fma(a, b, c); }\n"
    /* A block's threads are fibers (ucontext) on this thread: each runs
       until its next barrier or its end, then the next; a phase ends when
       every thread has reached the barrier, and a barrier some threads
       reach while others have returned is divergent. */
    "#include <ucontext.h>\n"
    "struct fdx_fiber { ucontext_t ctx; int state; unsigned x, y; };\n"
    "static ucontext_t fdx_sched;\nstatic fdx_fiber *fdx_cur;\nstatic const std::function<void()> *fdx_fn;\n"
    "static void __syncthreads()\n"
    "{ if (!fdx_cur) { fprintf(stderr, \"__syncthreads in a run without barriers\\n\"); abort(); }\n"
    "  fdx_cur->state = 1; swapcontext(&fdx_cur->ctx, &fdx_sched); }\n"
    "static void fdx_fiber_main() { (*fdx_fn)(); fdx_cur->state = 2; }\n"
    /* mbarriers (the temporal kernels' neighbour barriers, fdx_nb_*: the
       generated code takes these where FDX_CUDA_EMU is defined): a 64-bit
       word in shared memory, the expected arrivals a phase above the
       arrivals so far; a thread waiting on a phase that has not completed
       yields (state 3) to the others.  try_wait.parity semantics: the phase
       of that parity is over when the completed phases' parity differs. */
    "#define FDX_CUDA_EMU 1\n"
    "static unsigned long fdx_emu_arrivals;\n"
    "static unsigned long long fdx_emu_order_seed = 0x9e3779b97f4a7c15ULL;\n"
    "static bool cuda_emu_shuffle;\n"
    "static unsigned fdx_nb_addr(const unsigned long long *b) { return (unsigned)((const unsigned char *)b - fdx_dynamic_smem); }\n"
    "static unsigned long long *fdx_nb_at(unsigned b)\n"
    "{ if (b % 8) { fprintf(stderr, \"misaligned mbarrier\\n\"); abort(); } return (unsigned long long *)(fdx_dynamic_smem + b); }\n"
    "static void fdx_nb_init(unsigned b, unsigned n) { *fdx_nb_at(b) = (unsigned long long)n << 32; }\n"
    "static void fdx_nb_arrive(unsigned b) { (*fdx_nb_at(b))++; fdx_emu_arrivals++; }\n"
    "static void fdx_nb_wait(unsigned b, unsigned parity)\n"
    "{ for (;;) { const unsigned long long v = *fdx_nb_at(b); const unsigned n = (unsigned)(v >> 32), a = (unsigned)v;\n"
    "    if (!n) { fprintf(stderr, \"wait on an mbarrier never set\\n\"); abort(); }\n"
    "    if (((a / n) & 1u) != parity) return;\n"
    "    if (!fdx_cur) { fprintf(stderr, \"mbarrier wait in a run without barriers\\n\"); abort(); }\n"
    "    fdx_cur->state = 3; swapcontext(&fdx_cur->ctx, &fdx_sched); } }\n"
    /* Named barriers (bar.arrive / bar.sync with a thread count; fdx_nr_*):
       arrivals a barrier until the count, then its generation moves on; a
       thread that syncs yields until it does.  Counts that differ while a
       barrier fills, or a barrier left part-filled by a block, abort. */
    "static unsigned fdx_emu_bar_n[16], fdx_emu_bar_want[16], fdx_emu_bar_gen[16];\n"
    "static void fdx_nr_arrive(unsigned id, unsigned n)\n"
    "{ if (id >= 16 || !n || n % 32) { fprintf(stderr, \"named barrier %u with count %u\\n\", id, n); abort(); }\n"
    "  if (fdx_emu_bar_n[id] && fdx_emu_bar_want[id] != n) { fprintf(stderr, \"named barrier %u: counts %u and %u\\n\", id, fdx_emu_bar_want[id], n); abort(); }\n"
    "  fdx_emu_bar_want[id] = n; fdx_emu_arrivals++;\n"
    "  if (++fdx_emu_bar_n[id] == n) fdx_emu_bar_n[id] = 0, fdx_emu_bar_gen[id]++; }\n"
    "static void fdx_nr_sync(unsigned id, unsigned n)\n"
    "{ const unsigned g = fdx_emu_bar_gen[id % 16]; fdx_nr_arrive(id, n);\n"
    "  while (fdx_emu_bar_gen[id] == g) {\n"
    "    if (!fdx_cur) { fprintf(stderr, \"bar.sync in a run without barriers\\n\"); abort(); }\n"
    "    fdx_cur->state = 3; swapcontext(&fdx_cur->ctx, &fdx_sched); } }\n"
    /* Run after every thread (after every block with barriers) when set:
       a test may undo a kernel's stores there, so that a read of memory
       another thread or block of the launch writes (a race on a GPU)
       cannot see the stored value. */
    "static std::function<void()> cuda_emu_after;\n"
    /* The grid, block after block. */
    "static void cuda_emu_grid(const unsigned g[3], unsigned tx, unsigned ty, size_t shmem, bool barriers,\n"
    "                          const std::function<void()> &f)\n"
    "{ gridDim = fdx_idx{g[0], g[1], g[2]};\n"
    "  blockDim = fdx_idx{tx, ty, 1};\n"
    /* Filled with NaN bytes: a kernel must write what it reads. */
    "  std::vector<double> dyn(shmem / sizeof(double) + 1);\n"
    "  memset(dyn.data(), 0xff, dyn.size() * sizeof(double));\n"
    "  fdx_dynamic_smem = (unsigned char *)dyn.data();\n"
    "  const size_t n = (size_t)tx * ty, stack = 256 << 10;\n"
    "  std::vector<fdx_fiber> fib(barriers ? n : 0);\n"
    "  std::vector<size_t> order(barriers ? n : 0);\n"
    "  for (size_t i = 0; i < order.size(); i++) order[i] = i;\n"
    "  std::vector<char> stacks(barriers ? n * stack : 0);\n"
    "  for (unsigned bz = 0; bz < g[2]; bz++) for (unsigned by = 0; by < g[1]; by++) for (unsigned bx = 0; bx < g[0]; bx++) {\n"
    "    blockIdx = fdx_idx{bx, by, bz};\n"
    "    if (!barriers) {\n"
    "      for (unsigned y = 0; y < ty; y++) for (unsigned x = 0; x < tx; x++) { threadIdx = fdx_idx{x, y, 0}; f(); if (cuda_emu_after) cuda_emu_after(); }\n"
    "      continue;\n"
    "    }\n"
    "    fdx_fn = &f;\n"
    "    for (size_t i = 0; i < n; i++) {\n"
    "      fdx_fiber &t = fib[i];\n"
    "      t.state = 0, t.x = (unsigned)(i % tx), t.y = (unsigned)(i / tx);\n"
    "      getcontext(&t.ctx);\n"
    "      t.ctx.uc_stack.ss_sp = &stacks[i * stack], t.ctx.uc_stack.ss_size = stack, t.ctx.uc_link = &fdx_sched;\n"
    "      makecontext(&t.ctx, fdx_fiber_main, 0);\n"
    "    }\n"
    "    for (;;) {\n"
    "      size_t waiting = 0, done = 0, yielded = 0, moved = 0;\n"
    "      const unsigned long arrivals = fdx_emu_arrivals;\n"
    /* With cuda_emu_shuffle the threads of a pass run in a shuffled order
       (the same every run): a kernel whose threads wait for some of the
       others only (mbarriers, named barriers) then meets orders where a
       thread that should wait for another runs before it. */
    "      for (size_t j = cuda_emu_shuffle ? n : 0; j > 1; j--) { fdx_emu_order_seed ^= fdx_emu_order_seed << 13; fdx_emu_order_seed ^= fdx_emu_order_seed >> 7;\n"
    "        fdx_emu_order_seed ^= fdx_emu_order_seed << 17; std::swap(order[j - 1], order[fdx_emu_order_seed % j]); }\n"
    "      for (size_t o = 0; o < n; o++) {\n"
    "        const size_t i = order[o];\n"
    "        if (fib[i].state == 0) { fdx_cur = &fib[i]; threadIdx = fdx_idx{fib[i].x, fib[i].y, 0};\n"
    "                                 swapcontext(&fdx_sched, &fib[i].ctx); moved += fib[i].state != 3; }\n"
    "        waiting += fib[i].state == 1, done += fib[i].state == 2, yielded += fib[i].state == 3;\n"
    "      }\n"
    "      fdx_cur = nullptr;\n"
    /* Threads waiting on mbarriers run again while anything moved (an
       arrival, a thread reaching a barrier or its end); else a deadlock. */
    "      if (yielded) {\n"
    "        if (!moved && arrivals == fdx_emu_arrivals) { fprintf(stderr, \"mbarrier deadlock: %zu threads wait (block %u %u %u)\\n\",\n"
    "                                                             yielded, bx, by, bz); abort(); }\n"
    "        for (size_t i = 0; i < n; i++) if (fib[i].state == 3) fib[i].state = 0;\n"
    "        continue;\n"
    "      }\n"
    "      if (done == n) break;\n"
    "      if (done) { fprintf(stderr, \"divergent __syncthreads: %zu threads returned, %zu wait (block %u %u %u)\\n\",\n"
    "                          done, waiting, bx, by, bz); abort(); }\n"
    "      for (size_t i = 0; i < n; i++) fib[i].state = 0;\n"
    "    }\n"
    "    for (int id = 0; id < 16; id++) if (fdx_emu_bar_n[id]) {\n"
    "      fprintf(stderr, \"named barrier %d left with %u of %u arrivals (block %u %u %u)\\n\", id, fdx_emu_bar_n[id],\n"
    "              fdx_emu_bar_want[id], bx, by, bz); abort(); }\n"
    "    if (cuda_emu_after) cuda_emu_after();\n"
    "  } }\n";

/* The kernel source with each dynamic shared array ("extern __shared__
   __align__(16) T name[];") made a pointer to the block's bytes. */
static inline void cuda_emu_dynamic_shared(fdx_sb *out, const char *src)
{
    static const char decl[] = "extern __shared__ __align__(16) ";
    for (const char *p = src;;) {
        const char *at = strstr(p, decl), *end = at ? strstr(at, "[];") : NULL;
        if (!at || !end) {
            fdx_sb_puts(out, p);
            return;
        }
        fdx_sb_printf(out, "%.*s", (int)(at - p), p);
        const char *type = at + sizeof decl - 1, *name = end;
        while (name > type && name[-1] != ' ') name--;
        fdx_sb_printf(out, "%.*s *const %.*s = (%.*s *)fdx_dynamic_smem;", (int)(name - 1 - type), type,
                      (int)(end - name), name, (int)(name - 1 - type), type);
        p = end + 3;
    }
}

/* The kernel source with each cp.async (inline PTX: `asm volatile("cp.async.
   ca.shared.global [%0], [%1], N;" :: "r"(DST), "l"(SRC) : "memory");`)
   made a copy of N bytes to the block's shared bytes at DST. */
static inline void cuda_emu_async_copies(fdx_sb *out, const char *src)
{
    static const char head[] = "asm volatile(\"cp.async.c", copy[] = ".shared.global [%0], [%1], ",
                      dst[] = "\"r\"(", mid[] = "), \"l\"(", tail[] = ") : \"memory\");";
    for (const char *p = src;;) {
        const char *nb = strstr(p, copy), *at = nb && nb - p >= (long)strlen(head) + 1 ? nb - strlen(head) - 1 : NULL;
        if (at && strncmp(at, head, strlen(head)) != 0) at = NULL;
        const char *d = at ? strstr(nb, dst) : NULL, *m = d ? strstr(d, mid) : NULL, *t = m ? strstr(m, tail) : NULL;
        if (!t) {
            fdx_sb_puts(out, p);
            return;
        }
        int bytes = atoi(nb + strlen(copy));
        d += strlen(dst);
        fdx_sb_printf(out, "%.*smemcpy(fdx_dynamic_smem + (%.*s), (%.*s), %d);", (int)(at - p), p, (int)(m - d), d,
                      (int)(t - m - strlen(mid)), m + strlen(mid), bytes);
        p = t + strlen(tail);
    }
}

/* A kernel with dynamic shared memory and cp.async copies as the emulator
   runs it: its shared array the block's bytes, its copies plain ones at
   issue (one order a GPU may take: the waits and the barrier after them
   make the copies visible before any read), __cvta_generic_to_shared an
   offset into the block's bytes. */
static inline void cuda_emu_async_kernel(fdx_sb *out, const char *src)
{
    fdx_sb_puts(out, "static unsigned __cvta_generic_to_shared(const void *p)\n"
                     "{ return (unsigned)((const unsigned char *)p - fdx_dynamic_smem); }\n");
    fdx_sb dyn = FDX_SB_INIT;
    cuda_emu_dynamic_shared(&dyn, src);
    cuda_emu_async_copies(out, fdx_sb_str(&dyn));
    fdx_sb_free(&dyn);
    fdx_sb_puts(out, "\n");
}

static char cuda_emu_dir[256];
static const char *cuda_emu_sanitize = "-fsanitize=address";

/* Compiled programs by content.  With FDX_EMU_CACHE naming a directory
   (tests/CMakeLists.txt sets it; make test-asan points the sanitizer build at
   the release build's), a program whose compiler flags and source text were
   compiled before is copied from there instead of compiled again: the kernels
   still run, only the second build's identical compiles (most of the
   emulator tests' time) are saved.  The key has no compiler version: empty
   the directory after a compiler upgrade.  Returns 0 without a cache. */
static int cuda_emu_cache_hits, cuda_emu_cache_lookups;
static int cuda_emu_cache_path(char *const flags[], const char *src, char *path, size_t n)
{
    const char *dir = getenv("FDX_EMU_CACHE");
    void *text = NULL;
    size_t len = 0;
    if (!dir || !dir[0]) return 0;
    if (fdx_read_file(src, &text, &len) != FDX_OK) {
        fdx_clear_error();
        return 0;
    }
    fdx_hash h;
    fdx_hash_init(&h);
    for (int i = 0; flags[i]; i++) fdx_hash_add_str(&h, flags[i]);
    fdx_hash_add(&h, text, len);
    free(text);
    char hex[33];
    fdx_hash_hex(&h, hex);
    snprintf(path, n, "%s/%s", dir, hex);
    cuda_emu_cache_lookups++;
    return 1;
}

/* Copies file `from` to `to` (mode 0700 when exec); 0 when it cannot. */
static int cuda_emu_copy(const char *from, const char *to, int exec)
{
    void *data = NULL;
    size_t n = 0;
    int ok = fdx_read_file(from, &data, &n) == FDX_OK && fdx_write_atomic(to, data, n) == FDX_OK &&
             (!exec || chmod(to, 0700) == 0);
    if (!ok) fdx_clear_error();
    free(data);
    return ok;
}

static void cuda_emu_cache_report(void)
{
    if (cuda_emu_cache_lookups)
        printf("cuda_emu: %d of %d programs from FDX_EMU_CACHE\n", cuda_emu_cache_hits, cuda_emu_cache_lookups);
}

/* Compiles src to exe with the C++ compiler (flags: extra ones, e.g. the
   contraction mode), the log in `log`; from FDX_EMU_CACHE when it has it. */
static fdx_status cuda_emu_compile(const char *src, const char *exe, const char *log, const char *flag1,
                                   const char *flag2, int *code)
{
    char *argv[] = {"c++", "-std=c++14", "-O1", "-g", "-w", "-O1", (char *)flag1, (char *)flag2,
                    (char *)cuda_emu_sanitize, "-fno-omit-frame-pointer", "-o", (char *)exe, (char *)src, NULL};
    if (!cuda_emu_sanitize[0]) argv[8] = "-DFDX_NO_SANITIZER", argv[9] = "-DFDX_NO_SANITIZER";
    char cached[600];
    char *flags[] = {argv[6], argv[7], argv[8], NULL};
    int keyed = cuda_emu_cache_path(flags, src, cached, sizeof cached);
    if (keyed && fdx_file_exists(cached) && cuda_emu_copy(cached, exe, 1)) {
        cuda_emu_cache_hits++;
        *code = 0;
        return FDX_OK;
    }
    fdx_status st = fdx_run_program(argv, log, code);
    if (st == FDX_OK && *code == 0 && keyed) {
        const char *dir = getenv("FDX_EMU_CACHE");
        if (fdx_mkdir_p(dir) != FDX_OK) fdx_clear_error();
        cuda_emu_copy(exe, cached, 0);
    }
    return st;
}

/* Makes the work directory and checks that a trivial program compiles
   (with AddressSanitizer, else without).  0: skip the test. */
static int cuda_emu_start(const char *test)
{
    snprintf(cuda_emu_dir, sizeof cuda_emu_dir, "/tmp/fdx-%s-%ld", test, (long)getpid());
    if (mkdir(cuda_emu_dir, 0700) != 0) return 0;
    /* Programs find their data files here, by a name without the pid. */
    setenv("FDX_EMU_DIR", cuda_emu_dir, 1);
    atexit(cuda_emu_cache_report);
    setenv("ASAN_OPTIONS", "detect_leaks=0:abort_on_error=0", 1);
    char src[300], exe[300], log[300];
    snprintf(src, sizeof src, "%s/probe.cpp", cuda_emu_dir);
    snprintf(exe, sizeof exe, "%s/probe", cuda_emu_dir);
    snprintf(log, sizeof log, "%s/probe.log", cuda_emu_dir);
    FILE *f = fopen(src, "w");
    if (!f) return 0;
    fputs("int main() { return 0; }\n", f);
    fclose(f);
    int code = -1, ok = 0;
    if (cuda_emu_compile(src, exe, log, "-O1", "-O1", &code) == FDX_OK && code == 0) ok = 1;
    if (!ok) {
        fdx_clear_error();
        cuda_emu_sanitize = "";
        ok = cuda_emu_compile(src, exe, log, "-O1", "-O1", &code) == FDX_OK && code == 0;
    }
    unlink(src), unlink(exe), unlink(log);
    if (!ok) rmdir(cuda_emu_dir);
    return ok;
}

/* Compiles and runs the program text (the shim first); `what` names it in
   failures, which show its output.  Removes its files when it passes. */
static inline void cuda_emu_run(const char *program, const char *flag1, const char *flag2, const char *what)
{
    static int runs;
    char src[300], exe[300], log[300];
    snprintf(src, sizeof src, "%s/k%d.cpp", cuda_emu_dir, runs);
    snprintf(exe, sizeof exe, "%s/k%d", cuda_emu_dir, runs);
    snprintf(log, sizeof log, "%s/k%d.log", cuda_emu_dir, runs);
    runs++;
    FILE *f = fopen(src, "w");
    CHECK(f != NULL, "cannot write %s", src);
    if (!f) return;
    fprintf(f, "%s%s", cuda_emu_shim, program);
    fclose(f);
    int code = -1;
    CHECK_OK(cuda_emu_compile(src, exe, log, flag1, flag2, &code));
    CHECK(code == 0, "%s: the C++ compiler failed (exit %d), see %s", what, code, log);
    if (code != 0) return;
    char *argv[] = {exe, NULL};
    CHECK_OK(fdx_run_program(argv, log, &code));
    void *out = NULL;
    size_t n = 0;
    if (fdx_read_file(log, &out, &n) != FDX_OK) fdx_clear_error();
    CHECK(code == 0, "%s: %s", what, out ? (char *)out : "(no output)");
    if (code == 0) unlink(src), unlink(exe), unlink(log);
    free(out);
}

#endif
