/* fdx_error: status names and the per-thread message naming the bad value. */
#include "fdx_error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static _Thread_local char last_message[1024];

const char *fdx_strerror(fdx_status status)
{
    switch (status) {
    case FDX_OK: return "success";
    case FDX_ERR_INVALID: return "invalid argument";
    case FDX_ERR_NOMEM: return "out of memory";
    case FDX_ERR_NO_DEVICE: return "no such backend or device";
    case FDX_ERR_CUDA: return "CUDA error";
    case FDX_ERR_COMPILE: return "run-time compilation failed";
    case FDX_ERR_IO: return "I/O error";
    case FDX_ERR_UNSUPPORTED: return "not supported";
    case FDX_ERR_MPI: return "MPI error";
    case FDX_ERR_VERIFY: return "verification failed";
    case FDX_ERR_INTERNAL: return "internal error";
    }
    return "unknown status";
}

const char *fdx_last_error(void) { return last_message; }

void fdx_clear_error(void) { last_message[0] = '\0'; }

/* Formatted into a scratch buffer first: a message may quote the previous
   one (fdx_fail(st, "reading x: %s", fdx_last_error())), and formatting into
   the buffer being read would garble it. */
fdx_status fdx_fail(fdx_status status, const char *fmt, ...)
{
    char msg[sizeof last_message];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt ? fmt : "(no message)", ap);
    va_end(ap);
    memcpy(last_message, msg, sizeof msg);
    return status;
}
