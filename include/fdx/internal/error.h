/* fdx error (internal, for friends): recording a status with a message that
   names the bad value, and the macros every layer uses to propagate it.

   include/fdx/internal/ is the library's API for its friends: the fdx CLI
   (tools/fdx), the tests and the fuzzers.  It is not installed and not part
   of the ABI: its functions are hidden, so only a static link reaches them.
   The library includes them too (error, sb and json also by their old
   names src/core/fdx_error.h, fdx_sb.h, fdx_json.h: one forwarding line
   each); a friend includes "fdx/internal/..." and never reaches into src/. */
#ifndef FDX_INTERNAL_ERROR_H
#define FDX_INTERNAL_ERROR_H

#include "fdx/core.h"

#if defined(__GNUC__)
#define FDX_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define FDX_HIDDEN __attribute__((visibility("hidden")))
#else
#define FDX_PRINTF(a, b)
#define FDX_HIDDEN
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Records status and a formatted message on this thread; returns status. */
FDX_HIDDEN fdx_status fdx_fail(fdx_status status, const char *fmt, ...) FDX_PRINTF(2, 3);

#ifdef __cplusplus
}
#endif

/* Propagate a failed status unchanged (its message is already recorded).
   The one macro that returns: the others below, and every module's own
   (FDX_CUDA_TRY, MPI_TRY), are written through it. */
#define FDX_TRY(expr)                                                          \
    do {                                                                       \
        fdx_status fdx_try_status_ = (expr);                                   \
        if (fdx_try_status_ != FDX_OK) return fdx_try_status_;                 \
    } while (0)

/* Same, but jump to a cleanup label with `st` set. */
#define FDX_TRY_GOTO(st, expr, label)                                          \
    do {                                                                       \
        (st) = (expr);                                                         \
        if ((st) != FDX_OK) goto label;                                        \
    } while (0)

/* Fail with a message unless cond holds. */
#define FDX_CHECK(cond, status, ...) FDX_TRY((cond) ? FDX_OK : fdx_fail((status), __VA_ARGS__))

#endif
