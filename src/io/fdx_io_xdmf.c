/* fdx_io_xdmf: the XDMF index over HDF5 field files: one temporal collection
   of uniform grids (3DCoRectMesh / 2DCoRectMesh), which ParaView and VisIt
   open as a time series. */
#include "core/fdx_error.h"
#include "fdx/io.h"

#include <stdlib.h>
#include <string.h>

fdx_status fdx_xdmf_write(const char *path, const char *field, fdx_dtype type, int rank, const int64_t *shape,
                          const double *h, const fdx_xdmf_entry *e, int n)
{
    FDX_CHECK(rank == 2 || rank == 3, FDX_ERR_INVALID, "XDMF grids are 2D or 3D, not rank %d", rank);
    size_t cap = 1024 + (size_t)n * 800;
    char *buf = malloc(cap);
    FDX_CHECK(buf, FDX_ERR_NOMEM, "no memory for '%s'", path);
    size_t k = 0;
#define OUT(...) k += (size_t)snprintf(buf + k, cap - k, __VA_ARGS__)
    /* XDMF lists dimensions slowest first (z y x), as HDF5 stores them. */
    char dims[96], origin[96], spacing[96];
    if (rank == 3) {
        snprintf(dims, sizeof dims, "%lld %lld %lld", (long long)shape[2], (long long)shape[1], (long long)shape[0]);
        snprintf(origin, sizeof origin, "0 0 0");
        snprintf(spacing, sizeof spacing, "%.17g %.17g %.17g", h[2], h[1], h[0]);
    } else {
        snprintf(dims, sizeof dims, "%lld %lld", (long long)shape[1], (long long)shape[0]);
        snprintf(origin, sizeof origin, "0 0");
        snprintf(spacing, sizeof spacing, "%.17g %.17g", h[1], h[0]);
    }
    const char *topo = rank == 3 ? "3DCoRectMesh" : "2DCoRectMesh";
    const char *geo = rank == 3 ? "ORIGIN_DXDYDZ" : "ORIGIN_DXDY";
    int prec = type == FDX_FLOAT64 ? 8 : 4;
    OUT("<?xml version=\"1.0\" ?>\n<Xdmf Version=\"3.0\">\n <Domain>\n");
    OUT("  <Grid Name=\"%s\" GridType=\"Collection\" CollectionType=\"Temporal\">\n", field);
    for (int i = 0; i < n; i++) {
        OUT("   <Grid Name=\"%s_%d\" GridType=\"Uniform\">\n", field, i);
        OUT("    <Time Value=\"%.17g\"/>\n", e[i].time);
        OUT("    <Topology TopologyType=\"%s\" Dimensions=\"%s\"/>\n", topo, dims);
        OUT("    <Geometry GeometryType=\"%s\">\n", geo);
        OUT("     <DataItem Dimensions=\"%d\" Format=\"XML\">%s</DataItem>\n", rank, origin);
        OUT("     <DataItem Dimensions=\"%d\" Format=\"XML\">%s</DataItem>\n", rank, spacing);
        OUT("    </Geometry>\n");
        OUT("    <Attribute Name=\"%s\" AttributeType=\"Scalar\" Center=\"Node\">\n", field);
        OUT("     <DataItem Dimensions=\"%s\" NumberType=\"Float\" Precision=\"%d\" Format=\"HDF\">%s:/%s</DataItem>\n",
            dims, prec, e[i].file, e[i].dataset);
        OUT("    </Attribute>\n   </Grid>\n");
    }
    OUT("  </Grid>\n </Domain>\n</Xdmf>\n");
#undef OUT
    fdx_status st = k < cap ? fdx_file_write_atomic(path, buf, k) : fdx_fail(FDX_ERR_INTERNAL, "XDMF text overflow");
    free(buf);
    return st;
}
