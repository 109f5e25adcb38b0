/* fdx_names: element types and backend kinds, their names and parsers. */
#include "fdx_error.h"

#include <string.h>
#include <strings.h>

static const struct {
    const char *name, *alias;
    size_t size;
} dtypes[] = {
    [FDX_FLOAT32] = {"float", "f32", 4},
    [FDX_FLOAT64] = {"double", "f64", 8},
    [FDX_INT32] = {"int32", "i32", 4},
    [FDX_INT64] = {"int64", "i64", 8},
    [FDX_UINT8] = {"uint8", "u8", 1},
};
#define NDTYPES ((int)(sizeof dtypes / sizeof dtypes[0]))

size_t fdx_dtype_size(fdx_dtype t)
{
    return (int)t >= 0 && (int)t < NDTYPES ? dtypes[t].size : 0;
}

const char *fdx_dtype_name(fdx_dtype t)
{
    return (int)t >= 0 && (int)t < NDTYPES ? dtypes[t].name : "invalid";
}

fdx_status fdx_dtype_parse(const char *s, fdx_dtype *out)
{
    FDX_CHECK(out, FDX_ERR_INVALID, "fdx_dtype_parse: out is NULL");
    for (int i = 0; s && i < NDTYPES; i++)
        if (strcasecmp(s, dtypes[i].name) == 0 || strcasecmp(s, dtypes[i].alias) == 0) {
            *out = (fdx_dtype)i;
            return FDX_OK;
        }
    return fdx_fail(FDX_ERR_INVALID, "unknown precision '%s' (expected float or double)",
                    s ? s : "(null)");
}

static const char *backend_names[] = {"auto", "cpu", "cuda"};

const char *fdx_backend_kind_name(fdx_backend_kind k)
{
    return (int)k >= 0 && (int)k < 3 ? backend_names[k] : "invalid";
}

fdx_status fdx_backend_kind_parse(const char *s, fdx_backend_kind *out)
{
    FDX_CHECK(out, FDX_ERR_INVALID, "fdx_backend_kind_parse: out is NULL");
    for (int i = 0; s && i < 3; i++)
        if (strcasecmp(s, backend_names[i]) == 0) {
            *out = (fdx_backend_kind)i;
            return FDX_OK;
        }
    return fdx_fail(FDX_ERR_INVALID, "unknown backend '%s' (expected auto, cpu or cuda)",
                    s ? s : "(null)");
}
