/* fdx_cpu_jit: compiles generated C with the system compiler into a shared
   object kept (signed) in the cache directory, keyed by the source, the flags
   and the compiler's version, then loads the verified bytes with dlopen. */
#include "backends/cpu/fdx_cpu_jit.h"
#include "core/fdx_cache.h"
#include "core/fdx_log.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <sys/mman.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

typedef void (*cpu_entry)(void **args);

struct fdx_kernel {
    void *handle;
    cpu_entry fn;
    int fd; /* the memfd it was loaded from (-1: none), open while loaded */
};

static const char *compiler(void)
{
    const char *cc = getenv("CC");
    return cc && *cc ? cc : "cc";
}

#define CPU_FLAGS "-O3", "-march=native", "-fopenmp", "-shared", "-fPIC", "-std=gnu11", "-w"
static const char *flags_text = "-O3 -march=native -fopenmp -shared -fPIC -std=gnu11 -w";

fdx_status fdx_run_program(char *const argv[], const char *log_path, int *code)
{
    *code = -1;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    /* No symlink is followed: the log lives in the cache directory. */
    posix_spawn_file_actions_addopen(&fa, 1, log_path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0600);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0)
        return fdx_fail(FDX_ERR_COMPILE, "cannot run '%s': %s", argv[0], strerror(rc));
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) return fdx_fail(FDX_ERR_COMPILE, "waiting for '%s': %s", argv[0], strerror(errno));
    *code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    return FDX_OK;
}

/* The compiler's first version line, read once: part of every cache key so a
   compiler upgrade never loads stale objects. */
static char cc_version[256];
static pthread_once_t version_once = PTHREAD_ONCE_INIT;

static void read_version(void)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s --version 2>/dev/null", compiler());
    FILE *p = popen(cmd, "r");
    if (!p) return;
    if (!fgets(cc_version, sizeof cc_version, p)) cc_version[0] = '\0';
    pclose(p);
    cc_version[strcspn(cc_version, "\n")] = '\0';
}

/* First `max` bytes of the compiler log, for the error message. */
static void log_excerpt(const char *path, char *buf, size_t max)
{
    void *data = NULL;
    size_t n = 0;
    buf[0] = '\0';
    if (fdx_read_file_at(AT_FDCWD, path, FDX_OPEN_NOFOLLOW, 1 << 20, &data, &n) == FDX_OK) {
        snprintf(buf, max, "%s", (char *)data);
        free(data);
    }
    fdx_clear_error();
}

/* Compiles the source into a shared object and returns its bytes. */
static fdx_status compile(const char *key, const char *source, const char *what, void **so, size_t *size)
{
    char src_path[4096], tmp_so[4200], log_path[4096];
    FDX_TRY(fdx_cache_path(key, ".c", src_path, sizeof src_path));
    FDX_TRY(fdx_cache_path(key, ".log", log_path, sizeof log_path));
    FDX_TRY(fdx_cache_tmp_path(key, ".so", tmp_so, sizeof tmp_so));
    FDX_TRY(fdx_write_atomic(src_path, source, strlen(source)));
    unlink(log_path); /* whatever is there (a planted symlink included) is replaced, not followed */
    char *argv[] = {(char *)compiler(), CPU_FLAGS, "-o", tmp_so, src_path, "-lm", NULL};
    int code;
    FDX_TRY(fdx_run_program(argv, log_path, &code));
    if (code != 0) {
        char excerpt[1500];
        log_excerpt(log_path, excerpt, sizeof excerpt);
        unlink(tmp_so);
        return fdx_fail(FDX_ERR_COMPILE, "compiling %s with '%s' failed (exit %d; source %s):\n%s", what,
                        compiler(), code, src_path, excerpt);
    }
    /* The compiler's output is read back (no symlink) and removed; what gets
       signed, cached and loaded is these bytes. */
    fdx_status st = fdx_cache_take(tmp_so, so, size);
    if (st != FDX_OK) return fdx_fail(st, "compiled %s: %s", what, fdx_last_error());
    return FDX_OK;
}

/* dlopen of exactly these bytes: copied into an anonymous memory file
   (memfd) and opened as /proc/self/fd/N, so nothing on disk can change them
   between the check and the load.  dlopen matches names before files, so
   the memfd stays open while the kernel is loaded (*keep_fd), which keeps
   its name unique; when a library of that name is still loaded anyway (one
   that could not be unloaded), or without memfd or /proc, the bytes go to a
   0600 temporary with a name never used before in the checked cache
   directory, removed once loaded. */
static fdx_status load_bytes(const char *key, const void *so, size_t size, const char *what, void **handle,
                             int *keep_fd)
{
    *handle = NULL;
    *keep_fd = -1;
    char path[4200];
    int fd = memfd_create("fdx-kernel", MFD_CLOEXEC);
    if (fd >= 0) {
        const char *p = so;
        size_t left = size;
        while (left > 0) {
            ssize_t w = write(fd, p, left);
            if (w < 0 && errno == EINTR) continue;
            if (w <= 0) break;
            p += w;
            left -= (size_t)w;
        }
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
        void *taken = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
        if (taken) dlclose(taken);
        else if (left == 0) *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (*handle) {
            *keep_fd = fd;
            return FDX_OK;
        }
        close(fd);
    }
    FDX_DEBUG("%s: loading %s from a temporary file", what, key);
    char final[4096];
    FDX_TRY(fdx_cache_path(key, ".so", final, sizeof final));
    fdx_atomic a;
    FDX_TRY(fdx_atomic_open(&a, AT_FDCWD, final, 0600));
    fdx_atomic_write(&a, so, size);
    if (!a.failed && (fflush(a.f) != 0 || ferror(a.f))) a.failed = 1, a.err = errno;
    if (!a.failed) *handle = dlopen(a.tmp, RTLD_NOW | RTLD_LOCAL);
    const char *err = *handle ? NULL : a.failed ? strerror(a.err) : dlerror();
    fdx_atomic_abort(&a); /* the temporary is never published */
    FDX_CHECK(*handle, FDX_ERR_COMPILE, "cannot load compiled %s (%s): %s", what, key, err ? err : "unknown error");
    return FDX_OK;
}

/* The shared object of `source`: from the cache (verified), else compiled
   and stored.  Touches nothing but the cache: any thread may call it. */
static fdx_status shared_object(const char *source, const char *what, char key[33], void **so, size_t *size)
{
    pthread_once(&version_once, read_version);
    fdx_hash h;
    fdx_hash_init(&h);
    fdx_hash_add_str(&h, "cpu");
    fdx_hash_add_str(&h, source);
    fdx_hash_add_str(&h, flags_text);
    fdx_hash_add_str(&h, compiler());
    fdx_hash_add_str(&h, cc_version);
    fdx_hash_hex(&h, key);
    if (fdx_cache_load(key, ".so", so, size) == FDX_OK) {
        FDX_DEBUG("%s: CPU kernel cache hit %s", what, key);
        return FDX_OK;
    }
    fdx_clear_error();
    FDX_INFO("compiling %s for the CPU (%s)", what, key);
    FDX_TRY(compile(key, source, what, so, size));
    if (fdx_cache_store(key, ".so", *so, *size) != FDX_OK) {
        FDX_WARN("not caching %s: %s", what, fdx_last_error());
        fdx_clear_error();
    }
    return FDX_OK;
}

fdx_status fdx_cpu_jit_compile(const fdx_device_info *dev, const char *source, const char *what)
{
    (void)dev;
    FDX_CHECK(source, FDX_ERR_INVALID, "fdx_cpu_jit_compile: NULL source");
    char key[33];
    void *so = NULL;
    size_t size = 0;
    fdx_status st = shared_object(source, what ? what : "a kernel", key, &so, &size);
    free(so);
    return st;
}

fdx_status fdx_cpu_jit_load(const fdx_device_info *dev, const char *source, const char *entry,
                            const char *what, fdx_kernel **out)
{
    (void)dev;
    FDX_CHECK(out && source && entry, FDX_ERR_INVALID, "fdx_cpu_jit_load: NULL argument");
    if (!what) what = "a kernel";
    *out = NULL;
    char key[33];
    void *so = NULL;
    size_t size = 0;
    FDX_TRY(shared_object(source, what, key, &so, &size));
    void *handle = NULL;
    int fd = -1;
    fdx_status st = load_bytes(key, so, size, what, &handle, &fd);
    free(so);
    FDX_TRY(st);
    cpu_entry fn = (cpu_entry)dlsym(handle, entry);
    fdx_kernel *k = fn ? malloc(sizeof *k) : NULL;
    if (!k) {
        dlclose(handle);
        if (fd >= 0) close(fd);
        return fn ? fdx_fail(FDX_ERR_NOMEM, "out of memory loading %s", what)
                  : fdx_fail(FDX_ERR_COMPILE, "compiled %s has no function '%s' (%s)", what, entry, key);
    }
    k->handle = handle;
    k->fn = fn;
    k->fd = fd;
    *out = k;
    return FDX_OK;
}

void fdx_cpu_kernel_release(fdx_kernel *k)
{
    if (!k) return;
    dlclose(k->handle);
    if (k->fd >= 0) close(k->fd);
    free(k);
}

fdx_status fdx_cpu_launch(fdx_kernel *k, const fdx_launch_dims *dims, void **args, void *stream)
{
    (void)dims;
    (void)stream;
    FDX_CHECK(k, FDX_ERR_INVALID, "launch of a NULL CPU kernel");
    k->fn(args);
    return FDX_OK;
}
