/* fdx_io_hdf5: fields as HDF5 datasets (serial HDF5 C API), built in memory
   and written atomically; reads checked for type, rank and extents before
   any data is read (run in a child process: fdx_io_h5child_hdf5.c). */
#include "core/fdx_error.h"
#include "fdx/array.h"
#include "fdx/io.h"
#include "io/fdx_afile.h"
#include "io/fdx_h5read.h"

#include <hdf5.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* HDF5 prints its error stack by default; fdx reports its own line instead. */
static void quiet(void) { H5Eset_auto2(H5E_DEFAULT, NULL, NULL); }

static fdx_status attr_write(hid_t obj, const char *name, hid_t type, const void *v)
{
    hid_t sp = H5Screate(H5S_SCALAR);
    hid_t at = sp < 0 ? -1 : H5Acreate2(obj, name, type, sp, H5P_DEFAULT, H5P_DEFAULT);
    herr_t e = at < 0 ? -1 : H5Awrite(at, type, v);
    if (at >= 0) H5Aclose(at);
    if (sp >= 0) H5Sclose(sp);
    return e < 0 ? fdx_fail(FDX_ERR_IO, "cannot write HDF5 attribute '%s'", name) : FDX_OK;
}

fdx_status fdx_h5_write_field(const char *path, const char *name, const void *data, fdx_dtype type, int rank,
                              const int64_t *shape, double time, int64_t step)
{
    FDX_CHECK(type == FDX_FLOAT32 || type == FDX_FLOAT64, FDX_ERR_INVALID, "HDF5 fields are float or double, not %s",
              fdx_dtype_name(type));
    FDX_CHECK(rank >= 1 && rank <= 3, FDX_ERR_INVALID, "HDF5 field rank %d must be 1..3", rank);
    quiet();
    hsize_t dims[3];
    size_t bytes = type == FDX_FLOAT64 ? 8 : 4;
    for (int d = 0; d < rank; d++) {
        dims[d] = (hsize_t)shape[rank - 1 - d];
        bytes *= (size_t)shape[d];
    }
    hid_t mt = type == FDX_FLOAT64 ? H5T_NATIVE_DOUBLE : H5T_NATIVE_FLOAT;
    hid_t ft = type == FDX_FLOAT64 ? H5T_IEEE_F64LE : H5T_IEEE_F32LE;
    fdx_status st = FDX_OK;
    /* The file is built in memory (the core driver, no backing store) and
       written by fdx's atomic writer: libhdf5 never touches the disk, so a
       full disk or a file-size limit is one clean I/O error with the
       temporary removed (libhdf5 1.10 crashes at exit after a failed close). */
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl < 0 || H5Pset_fapl_core(fapl, bytes + 65536, 0) < 0) {
        if (fapl >= 0) H5Pclose(fapl);
        return fdx_fail(FDX_ERR_IO, "cannot set up an in-memory HDF5 file for '%s'", path);
    }
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    H5Pclose(fapl);
    if (f < 0) return fdx_fail(FDX_ERR_IO, "cannot create HDF5 file '%s' in memory", path);
    hid_t sp = H5Screate_simple(rank, dims, NULL);
    /* No modification times in the object header: the same field gives the
       same bytes, so runs (and restarts) compare file for file. */
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    if (dcpl >= 0) H5Pset_obj_track_times(dcpl, 0);
    hid_t ds = sp < 0 ? -1 : H5Dcreate2(f, name, ft, sp, H5P_DEFAULT, dcpl >= 0 ? dcpl : H5P_DEFAULT, H5P_DEFAULT);
    if (dcpl >= 0) H5Pclose(dcpl);
    if (ds < 0 || H5Dwrite(ds, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0)
        st = fdx_fail(FDX_ERR_IO, "cannot write dataset '%s' to '%s'", name, path);
    long long s = (long long)step;
    if (st == FDX_OK) st = attr_write(ds, "time", H5T_NATIVE_DOUBLE, &time);
    if (st == FDX_OK) st = attr_write(ds, "step", H5T_NATIVE_LLONG, &s);
    if (ds >= 0) H5Dclose(ds);
    if (sp >= 0) H5Sclose(sp);
    void *image = NULL;
    ssize_t size = 0;
    if (st == FDX_OK && H5Fflush(f, H5F_SCOPE_GLOBAL) < 0) st = fdx_fail(FDX_ERR_IO, "cannot finish HDF5 file '%s'", path);
    if (st == FDX_OK && (size = H5Fget_file_image(f, NULL, 0)) <= 0)
        st = fdx_fail(FDX_ERR_IO, "cannot get the image of HDF5 file '%s'", path);
    if (st == FDX_OK && !(image = malloc((size_t)size)))
        st = fdx_fail(FDX_ERR_NOMEM, "no memory for HDF5 file '%s' (%zd bytes)", path, size);
    if (st == FDX_OK && H5Fget_file_image(f, image, (size_t)size) != size)
        st = fdx_fail(FDX_ERR_IO, "cannot get the image of HDF5 file '%s'", path);
    if (H5Fclose(f) < 0 && st == FDX_OK) st = fdx_fail(FDX_ERR_IO, "cannot close HDF5 file '%s'", path);
    if (st == FDX_OK) st = fdx_file_write_atomic(path, image, (size_t)size);
    free(image);
    return st;
}

typedef struct first_name {
    char name[256];
    int found;
} first_name;

static herr_t find_dataset(hid_t g, const char *name, const H5L_info_t *info, void *op)
{
    (void)info;
    first_name *fn = op;
    H5O_info_t oi;
    if (H5Oget_info_by_name(g, name, &oi, H5P_DEFAULT) >= 0 && oi.type == H5O_TYPE_DATASET) {
        snprintf(fn->name, sizeof fn->name, "%s", name);
        fn->found = 1;
        return 1;
    }
    return 0;
}

static void shape_text(int rank, const int64_t *shape, char *buf, size_t cap)
{
    int k = snprintf(buf, cap, "%lld", (long long)shape[0]);
    for (int d = 1; d < rank && k > 0 && (size_t)k < cap; d++)
        k += snprintf(buf + k, cap - (size_t)k, "x%lld", (long long)shape[d]);
}

fdx_status fdx_h5_read_local(const char *path, const char *name, const fdx_h5_want *want, double **data, int *rank,
                             int64_t *shape)
{
    *data = NULL;
    quiet();
    /* A file libhdf5 cannot read is an I/O failure (exit 3); a readable
       dataset of the wrong kind or size is bad input (exit 2). */
    FDX_CHECK(H5Fis_hdf5(path) > 0, FDX_ERR_IO, "'%s' is not an HDF5 file (or is damaged)", path);
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    FDX_CHECK(f >= 0, FDX_ERR_IO, "cannot open HDF5 file '%s' (damaged or truncated?)", path);
    first_name fn = {{0}, 0};
    if (name) {
        snprintf(fn.name, sizeof fn.name, "%s", name);
        fn.found = H5Lexists(f, name, H5P_DEFAULT) > 0;
    } else {
        hsize_t idx = 0;
        H5Literate(f, H5_INDEX_NAME, H5_ITER_NATIVE, &idx, find_dataset, &fn);
    }
    fdx_status st = FDX_OK;
    hid_t ds = -1, sp = -1, ty = -1;
    if (!fn.found) {
        st = fdx_fail(FDX_ERR_INVALID, "'%s' has no dataset%s%s", path, name ? " named " : "", name ? name : "");
        goto done;
    }
    ds = H5Dopen2(f, fn.name, H5P_DEFAULT);
    sp = ds < 0 ? -1 : H5Dget_space(ds);
    ty = ds < 0 ? -1 : H5Dget_type(ds);
    if (sp < 0 || ty < 0) {
        st = fdx_fail(FDX_ERR_IO, "cannot open dataset '%s' in '%s' (damaged?)", fn.name, path);
        goto done;
    }
    H5T_class_t cl = H5Tget_class(ty);
    int r = H5Sget_simple_extent_ndims(sp);
    if (cl != H5T_FLOAT && cl != H5T_INTEGER) {
        st = fdx_fail(FDX_ERR_INVALID, "dataset '%s' in '%s' is not numeric", fn.name, path);
        goto done;
    }
    if (r < 1 || r > 3) {
        st = fdx_fail(FDX_ERR_INVALID, "dataset '%s' in '%s' has rank %d, not 1..3", fn.name, path, r);
        goto done;
    }
    hsize_t dims[3];
    if (H5Sget_simple_extent_dims(sp, dims, NULL) != r) {
        st = fdx_fail(FDX_ERR_IO, "cannot read the extents of dataset '%s' in '%s' (damaged?)", fn.name, path);
        goto done;
    }
    /* Extents first: an oversized or mismatched field is refused before
       anything is allocated or read. */
    uint64_t n = 1;
    for (int d = 0; d < r; d++) {
        hsize_t e = dims[r - 1 - d];
        if (e < 1 || e > ((uint64_t)1 << 40) || n > ((uint64_t)1 << 60) / e) {
            st = fdx_fail(FDX_ERR_INVALID, "dataset '%s' in '%s' has extent %llu on axis %d: out of range", fn.name,
                          path, (unsigned long long)e, d);
            goto done;
        }
        shape[d] = (int64_t)e;
        n *= e;
    }
    char got[96], need[96];
    shape_text(r, shape, got, sizeof got);
    if (want && want->rank) {
        int same = r == want->rank;
        for (int d = 0; same && d < r; d++) same = shape[d] == want->shape[d];
        if (!same) {
            shape_text(want->rank, want->shape, need, sizeof need);
            st = fdx_fail(FDX_ERR_INVALID, "'%s' holds a %s grid, the run's size is %s", path, got, need);
            goto done;
        }
    }
    if (want && want->max_bytes && n * sizeof(double) > want->max_bytes) {
        st = fdx_fail(FDX_ERR_INVALID, "dataset '%s' in '%s' is a %s grid: %.2f GiB as doubles, more than the %.2f GiB allowed",
                      fn.name, path, got, (double)n * sizeof(double) / (1 << 30), (double)want->max_bytes / (1 << 30));
        goto done;
    }
    if ((st = fdx_shape_check(r, shape, 1, sizeof(double))) != FDX_OK) goto done;
    /* A contiguous dataset must hold all its values: a truncated or garbled
       file is refused before anything is allocated for it. */
    hid_t dcpl = H5Dget_create_plist(ds);
    int contiguous = dcpl >= 0 && H5Pget_layout(dcpl) == H5D_CONTIGUOUS;
    if (dcpl >= 0) H5Pclose(dcpl);
    size_t esize = H5Tget_size(ty);
    if (contiguous && (double)H5Dget_storage_size(ds) < (double)n * (double)esize) {
        st = fdx_fail(FDX_ERR_IO, "dataset '%s' in '%s' declares %llu values but stores %llu bytes (truncated?)",
                      fn.name, path, (unsigned long long)n, (unsigned long long)H5Dget_storage_size(ds));
        goto done;
    }
    double *buf = malloc((size_t)n * sizeof(double));
    if (!buf) {
        st = fdx_fail(FDX_ERR_NOMEM, "no memory for dataset '%s' (%llu values)", fn.name, (unsigned long long)n);
        goto done;
    }
    if (H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0) {
        free(buf);
        st = fdx_fail(FDX_ERR_IO, "cannot read dataset '%s' of '%s' (truncated or damaged file?)", fn.name, path);
        goto done;
    }
    *data = buf;
    *rank = r;
done:
    if (ty >= 0) H5Tclose(ty);
    if (sp >= 0) H5Sclose(sp);
    if (ds >= 0) H5Dclose(ds);
    H5Fclose(f);
    return st;
}
