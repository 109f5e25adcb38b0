/* fuzz_h5: libFuzzer target for the HDF5 field reader (through a file, as a
   run reads velocity models and initial fields). */
#include "fdx.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/fdx_fuzz_h5.%ld.h5", (long)getpid());
    if (fdx_file_write_atomic(path, data, size) != FDX_OK) return 0;
    double *v = NULL;
    int rank;
    int64_t shape[3];
    if (fdx_h5_read_field(path, NULL, &v, &rank, shape) == FDX_OK) free(v);
    unlink(path);
    return 0;
}
