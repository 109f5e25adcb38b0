/* fdx_loop_graph: stand-ins in a build without CUDA (no loop runs on CUDA
   there, so none of these is reached). */
#include "loops/fdx_loop_graph.h"

fdx_status fdx_loop_graph_begin(void **stream)
{
    (void)stream;
    return fdx_fail(FDX_ERR_UNSUPPORTED, "loop graphs: this build has no CUDA");
}

fdx_status fdx_loop_graph_end(void *stream, int ok, void **exec)
{
    (void)stream, (void)ok;
    *exec = NULL;
    return fdx_fail(FDX_ERR_UNSUPPORTED, "loop graphs: this build has no CUDA");
}

fdx_status fdx_loop_graph_launch(void *exec, void *stream)
{
    (void)exec, (void)stream;
    return fdx_fail(FDX_ERR_UNSUPPORTED, "loop graphs: this build has no CUDA");
}

void fdx_loop_graph_free(void *exec, void *stream) { (void)exec, (void)stream; }
