/* fuzz_h5: libFuzzer target for the HDF5 field reader through a file, as a
   run reads velocity models and initial fields.  fdx_h5_read_field runs
   libhdf5 in a child process, so a crash inside libhdf5 (it has them on
   garbled superblocks) must come back as FDX_ERR_IO, never bring this
   process down; the count of such caught crashes is printed at exit. */
#include "fdx.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static long runs, ok, refused, caught;

static void report(void)
{
    fprintf(stderr, "fuzz_h5: %ld inputs: %ld read, %ld refused, %ld reader crashes caught\n", runs, ok, refused,
            caught);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (runs++ == 0) atexit(report);
    char path[64];
    snprintf(path, sizeof path, "/tmp/fdx_fuzz_h5.%ld.h5", (long)getpid());
    if (fdx_file_write_atomic(path, data, size) != FDX_OK) return 0;
    double *v = NULL;
    int rank;
    int64_t shape[3];
    fdx_status st = fdx_h5_read_field(path, NULL, &v, &rank, shape);
    if (st == FDX_OK) {
        ok++;
        free(v);
    } else if (st == FDX_ERR_IO && strstr(fdx_last_error(), "reader")) {
        caught++;
    } else {
        refused++;
    }
    unlink(path);
    return 0;
}
