/* fdx_log: leveled logging to stderr, level from FDX_LOG or the API. */
#ifndef FDX_LOG_H
#define FDX_LOG_H

#include "fdx_error.h"

FDX_HIDDEN void fdx_log(fdx_log_level level, const char *fmt, ...) FDX_PRINTF(2, 3);

#define FDX_DEBUG(...) fdx_log(FDX_LOG_DEBUG, __VA_ARGS__)
#define FDX_INFO(...) fdx_log(FDX_LOG_INFO, __VA_ARGS__)
#define FDX_WARN(...) fdx_log(FDX_LOG_WARN, __VA_ARGS__)

#endif
