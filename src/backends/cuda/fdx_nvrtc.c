/* fdx_nvrtc: NVRTC opened with dlopen on first use.  fdx starts and runs its
   CPU backend on machines without the CUDA toolkit; only run-time compilation
   for the GPU needs libnvrtc. */
#include "backends/cuda/fdx_cuda.h"
#include "core/fdx_log.h"

#include <dlfcn.h>
#include <nvrtc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct {
    void *lib;
    char error[512];
    const char *(*GetErrorString)(nvrtcResult);
    nvrtcResult (*Version)(int *, int *);
    nvrtcResult (*CreateProgram)(nvrtcProgram *, const char *, const char *, int,
                                 const char *const *, const char *const *);
    nvrtcResult (*CompileProgram)(nvrtcProgram, int, const char *const *);
    nvrtcResult (*GetProgramLogSize)(nvrtcProgram, size_t *);
    nvrtcResult (*GetProgramLog)(nvrtcProgram, char *);
    nvrtcResult (*GetCUBINSize)(nvrtcProgram, size_t *);
    nvrtcResult (*GetCUBIN)(nvrtcProgram, char *);
    nvrtcResult (*DestroyProgram)(nvrtcProgram *);
} nv;

static pthread_once_t nv_once = PTHREAD_ONCE_INIT;

static void open_nvrtc(void)
{
    static const char *names[] = {FDX_NVRTC_SONAME, "libnvrtc.so", FDX_CUDA_LIBDIR "/" FDX_NVRTC_SONAME};
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !nv.lib; i++)
        nv.lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!nv.lib) {
        snprintf(nv.error, sizeof nv.error, "cannot load NVRTC (libnvrtc.so): %s", dlerror());
        return;
    }
#define LOAD(field, sym)                                                       \
    if (!(*(void **)&nv.field = dlsym(nv.lib, sym))) {                         \
        snprintf(nv.error, sizeof nv.error, "NVRTC has no symbol %s", sym);    \
        return;                                                                \
    }
    LOAD(GetErrorString, "nvrtcGetErrorString");
    LOAD(Version, "nvrtcVersion");
    LOAD(CreateProgram, "nvrtcCreateProgram");
    LOAD(CompileProgram, "nvrtcCompileProgram");
    LOAD(GetProgramLogSize, "nvrtcGetProgramLogSize");
    LOAD(GetProgramLog, "nvrtcGetProgramLog");
    LOAD(GetCUBINSize, "nvrtcGetCUBINSize");
    LOAD(GetCUBIN, "nvrtcGetCUBIN");
    LOAD(DestroyProgram, "nvrtcDestroyProgram");
#undef LOAD
}

static void *preload_main(void *arg)
{
    (void)arg;
    pthread_once(&nv_once, open_nvrtc);
    return NULL;
}

/* A fork() while the preload thread is inside dlopen would leave the
   child with the loader's lock held by a thread it does not have (the HDF5
   reader's child process): fork waits for the preload to finish first.
   (posix_spawn, which the CPU compiler and popen use, runs no fork
   handlers and execs at once.) */
static void finish_preload(void) { pthread_once(&nv_once, open_nvrtc); }

void fdx_nvrtc_preload(void)
{
    static int started;
    if (__atomic_exchange_n(&started, 1, __ATOMIC_ACQ_REL)) return;
    if (pthread_atfork(finish_preload, NULL, NULL) != 0) return; /* NVRTC loads on first use */
    pthread_attr_t a;
    pthread_t t;
    if (pthread_attr_init(&a) != 0) return;
    pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&t, &a, preload_main, NULL) != 0)
        FDX_DEBUG("NVRTC preload thread not started: NVRTC loads on first use");
    pthread_attr_destroy(&a);
}

static fdx_status ensure_nvrtc(void)
{
    pthread_once(&nv_once, open_nvrtc);
    FDX_CHECK(nv.error[0] == '\0', FDX_ERR_COMPILE, "%s", nv.error);
    return FDX_OK;
}

fdx_status fdx_nvrtc_version(int *major, int *minor)
{
    FDX_TRY(ensure_nvrtc());
    nvrtcResult r = nv.Version(major, minor);
    FDX_CHECK(r == NVRTC_SUCCESS, FDX_ERR_COMPILE, "nvrtcVersion failed: %s", nv.GetErrorString(r));
    return FDX_OK;
}

fdx_status fdx_nvrtc_compile(const char *source, int arch, const char *what, void **cubin, size_t *size)
{
    *cubin = NULL;
    *size = 0;
    FDX_TRY(ensure_nvrtc());
    FDX_CHECK(arch >= 50 && arch < 1000, FDX_ERR_INVALID, "bad GPU architecture sm_%d for %s", arch, what);
    nvrtcProgram prog;
    nvrtcResult r = nv.CreateProgram(&prog, source, what, 0, NULL, NULL);
    FDX_CHECK(r == NVRTC_SUCCESS, FDX_ERR_COMPILE, "nvrtcCreateProgram(%s) failed: %s", what,
              nv.GetErrorString(r));
    char arch_opt[64];
    snprintf(arch_opt, sizeof arch_opt, "--gpu-architecture=sm_%d", arch);
    const char *opts[] = {arch_opt, "--std=c++17", "--extra-device-vectorization", "-lineinfo"};
    r = nv.CompileProgram(prog, (int)(sizeof opts / sizeof opts[0]), opts);
    fdx_status st = FDX_OK;
    if (r != NVRTC_SUCCESS) {
        size_t log_size = 0;
        char *log = NULL;
        if (nv.GetProgramLogSize(prog, &log_size) == NVRTC_SUCCESS && (log = malloc(log_size + 1)))
            if (nv.GetProgramLog(prog, log) != NVRTC_SUCCESS) log[0] = '\0';
        st = fdx_fail(FDX_ERR_COMPILE, "NVRTC could not compile %s for sm_%d (%s):\n%.1500s", what, arch,
                      nv.GetErrorString(r), log ? log : "(no log)");
        free(log);
        nv.DestroyProgram(&prog);
        return st;
    }
    size_t n = 0;
    r = nv.GetCUBINSize(prog, &n);
    char *buf = r == NVRTC_SUCCESS ? malloc(n) : NULL;
    if (!buf || nv.GetCUBIN(prog, buf) != NVRTC_SUCCESS) {
        free(buf);
        nv.DestroyProgram(&prog);
        return fdx_fail(FDX_ERR_COMPILE, "NVRTC produced no cubin for %s (%zu bytes)", what, n);
    }
    nv.DestroyProgram(&prog);
    *cubin = buf;
    *size = n;
    return FDX_OK;
}
