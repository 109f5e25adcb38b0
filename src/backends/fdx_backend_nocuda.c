/* fdx_backend_nocuda: compiled instead of src/backends/cuda when fdx is built
   without the CUDA toolkit. */
#include "backends/fdx_backend.h"

const fdx_backend *fdx_backend_cuda(void) { return NULL; }
