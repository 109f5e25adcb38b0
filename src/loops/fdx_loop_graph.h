/* fdx_loop_graph (internal): CUDA graphs of a run's launches
   (fdx_loop_graph_cuda.c; stand-ins without CUDA). */
#ifndef FDX_LOOP_GRAPH_H
#define FDX_LOOP_GRAPH_H

#include "core/fdx_error.h"

/* Starts capturing on *stream (created on first use: a private
   non-blocking stream of the current device). */
FDX_HIDDEN fdx_status fdx_loop_graph_begin(void **stream);
/* Ends the capture; when ok, instantiates it into *exec (else discards). */
FDX_HIDDEN fdx_status fdx_loop_graph_end(void *stream, int ok, void **exec);
FDX_HIDDEN fdx_status fdx_loop_graph_launch(void *exec, void *stream);
/* Releases a graph and a capture stream (either may be NULL). */
FDX_HIDDEN void fdx_loop_graph_free(void *exec, void *stream);

#endif
