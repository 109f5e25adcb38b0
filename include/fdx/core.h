/* fdx core: status codes, element types, the context and its options. */
#ifndef FDX_CORE_H
#define FDX_CORE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define FDX_API __attribute__((visibility("default")))
#else
#define FDX_API
#endif

#define FDX_VERSION_MAJOR 0
#define FDX_VERSION_MINOR 1
#define FDX_VERSION_PATCH 0
#define FDX_VERSION_STRING "0.1.0"
/* FDX_VERSION_MAJOR * 10000 + FDX_VERSION_MINOR * 100 + FDX_VERSION_PATCH */
#define FDX_VERSION (FDX_VERSION_MAJOR * 10000 + FDX_VERSION_MINOR * 100 + FDX_VERSION_PATCH)

/* The version of the library loaded at run time (the macros above are the
   headers' version): fdx_version() in the FDX_VERSION encoding, and the text
   "MAJOR.MINOR.PATCH". */
FDX_API int fdx_version(void);
FDX_API const char *fdx_version_string(void);

/* Every public function returns one of these; FDX_OK is 0.  The message that
   names the bad value is kept per thread: read it with fdx_last_error(). */
typedef enum fdx_status {
    FDX_OK = 0,
    FDX_ERR_INVALID,     /* an argument is out of range or malformed */
    FDX_ERR_NOMEM,       /* host or device memory exhausted, or size overflow */
    FDX_ERR_NO_DEVICE,   /* the requested backend or device is not available */
    FDX_ERR_CUDA,        /* a CUDA runtime call failed */
    FDX_ERR_COMPILE,     /* run-time compilation (NVRTC or the C compiler) failed */
    FDX_ERR_IO,          /* a file or directory operation failed */
    FDX_ERR_UNSUPPORTED, /* valid request this build or device cannot do */
    FDX_ERR_MPI,         /* an MPI call failed */
    FDX_ERR_VERIFY,      /* a computed result failed its check */
    FDX_ERR_INTERNAL     /* a bug in fdx */
} fdx_status;

FDX_API const char *fdx_strerror(fdx_status status);
/* The last error message recorded on this thread ("" if none). */
FDX_API const char *fdx_last_error(void);
FDX_API void fdx_clear_error(void);

/* Element types of arrays. */
typedef enum fdx_dtype {
    FDX_FLOAT32 = 0,
    FDX_FLOAT64,
    FDX_INT32,
    FDX_INT64,
    FDX_UINT8
} fdx_dtype;

FDX_API size_t fdx_dtype_size(fdx_dtype t);
FDX_API const char *fdx_dtype_name(fdx_dtype t);           /* "float", "double", ... */
FDX_API fdx_status fdx_dtype_parse(const char *s, fdx_dtype *out); /* float|double|f32|f64|... */

typedef enum fdx_backend_kind {
    FDX_BACKEND_AUTO = 0,
    FDX_BACKEND_CPU,
    FDX_BACKEND_CUDA
} fdx_backend_kind;

FDX_API const char *fdx_backend_kind_name(fdx_backend_kind k);
FDX_API fdx_status fdx_backend_kind_parse(const char *s, fdx_backend_kind *out);

typedef enum fdx_log_level {
    FDX_LOG_DEBUG = 0,
    FDX_LOG_INFO,
    FDX_LOG_WARN,
    FDX_LOG_ERROR,
    FDX_LOG_OFF
} fdx_log_level;

FDX_API void fdx_log_set_level(fdx_log_level level);
FDX_API fdx_log_level fdx_log_get_level(void);
FDX_API fdx_status fdx_log_level_parse(const char *s, fdx_log_level *out);

/* ---- options -------------------------------------------------------------
   Every tunable is registered once in a table (src/core/fdx_options.c) with its
   CLI flag (--name), environment variable (FDX_NAME), help text and default.
   A context reads them in this order: defaults, environment, explicit sets. */
typedef struct fdx_options fdx_options;

FDX_API fdx_status fdx_options_create(fdx_options **out);      /* defaults + FDX_* environment */
FDX_API void fdx_options_destroy(fdx_options **opts);
/* Set by option name ("backend", "device", "log", "cache-dir", ...). */
FDX_API fdx_status fdx_options_set(fdx_options *opts, const char *name, const char *value);
FDX_API const char *fdx_options_get(const fdx_options *opts, const char *name);
/* Number of registered options and their descriptions (for --help). */
FDX_API int fdx_options_count(void);
FDX_API void fdx_options_describe(int i, const char **name, const char **env,
                                  const char **def, const char **help);
/* The expert environment variables (FDX_LAYOUT_TILE, FDX_STENCIL_CFG, ...;
   src/core/fdx_knobs.def): measurement switches that change speed, never
   results.  value: the variable's value now, NULL when unset. */
FDX_API int fdx_knob_count(void);
FDX_API void fdx_knob_describe(int i, const char **env, const char **help, const char **value);

/* ---- context -------------------------------------------------------------- */
typedef struct fdx_ctx fdx_ctx;

/* opts may be NULL (defaults + environment).  With backend auto, CUDA is used
   when a device is present and CPU otherwise. */
FDX_API fdx_status fdx_ctx_create(const fdx_options *opts, fdx_ctx **out);
FDX_API void fdx_ctx_destroy(fdx_ctx **ctx);
FDX_API fdx_backend_kind fdx_ctx_backend(const fdx_ctx *ctx);
FDX_API const char *fdx_ctx_device_name(const fdx_ctx *ctx);
FDX_API const fdx_options *fdx_ctx_options(const fdx_ctx *ctx);
/* Bytes of memory of the context's device (host RAM on the CPU backend). */
FDX_API size_t fdx_ctx_memory(const fdx_ctx *ctx);
/* Bytes of host memory this process can still take (MemAvailable, lowered to
   a cgroup's limit); *what, if not NULL, names the source for messages. */
FDX_API double fdx_host_memory_available(const char **what);
/* The stream (a cudaStream_t on CUDA, possibly another library's) that every
   operation given a NULL stream runs on: stencil and Laplacian applies,
   loops, transforms, array copies.  NULL (the default) is CUDA's default
   stream.  The caller keeps the stream alive while the context uses it.
   Synchronous calls wait for it before they return. */
FDX_API fdx_status fdx_ctx_set_stream(fdx_ctx *ctx, void *stream);
FDX_API void *fdx_ctx_get_stream(const fdx_ctx *ctx);
/* Waits until the work queued on the context's stream has finished (for
   handing results to another library that knows nothing of the stream). */
FDX_API fdx_status fdx_ctx_sync(fdx_ctx *ctx);

/* Devices visible to a backend (0 for CUDA without a driver or device). */
FDX_API int fdx_cuda_device_count(void);
/* 1 if this build of fdx has the CUDA backend. */
FDX_API int fdx_built_with_cuda(void);

#ifdef __cplusplus
}
#endif
#endif
