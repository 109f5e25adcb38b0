/* fdx_io_nohdf5: stand-ins when fdx is built without HDF5. */
#include "core/fdx_error.h"
#include "fdx/io.h"

fdx_status fdx_h5_write_field(const char *path, const char *name, const void *data, fdx_dtype type, int rank,
                              const int64_t *shape, double time, int64_t step)
{
    (void)name, (void)data, (void)type, (void)rank, (void)shape, (void)time, (void)step;
    return fdx_fail(FDX_ERR_UNSUPPORTED, "cannot write '%s': fdx was built without HDF5", path);
}

fdx_status fdx_h5_read_field(const char *path, const char *name, double **data, int *rank, int64_t *shape)
{
    (void)name, (void)rank, (void)shape;
    *data = NULL;
    return fdx_fail(FDX_ERR_UNSUPPORTED, "cannot read '%s': fdx was built without HDF5", path);
}

fdx_status fdx_h5_read_field_shaped(const char *path, const char *name, int rank, const int64_t *shape,
                                    double **data)
{
    (void)name, (void)rank, (void)shape;
    if (data) *data = NULL;
    return fdx_fail(FDX_ERR_UNSUPPORTED, "cannot read '%s': fdx was built without HDF5", path);
}
