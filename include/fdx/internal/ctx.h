/* fdx ctx (internal, for friends: see fdx/internal/error.h): streams of a
   context's own backend, for a friend that sets one with fdx_ctx_set_stream
   without knowing the backend (the fdx CLI's `lu`). */
#ifndef FDX_INTERNAL_CTX_H
#define FDX_INTERNAL_CTX_H

#include "fdx/internal/error.h"

/* A new stream on the context's device (NULL on the CPU, whose work is
   synchronous). */
FDX_HIDDEN fdx_status fdx_ctx_stream_create(fdx_ctx *ctx, void **stream);
/* Destroys a stream of fdx_ctx_stream_create (NULL: nothing); set the
   context's stream back first. */
FDX_HIDDEN void fdx_ctx_stream_destroy(fdx_ctx *ctx, void *stream);

#endif
