/* fdx_io_xdmf: the XDMF index over HDF5 field files: one temporal collection
   of uniform grids (3DCoRectMesh; 2D fields one point thick in z), which
   ParaView and VisIt open as a time series. */
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
    /* XDMF lists dimensions slowest first (z y x), as HDF5 stores them.  A
       2D field is a 3D mesh one point thick in z, its dataset 1 x NY x NX:
       ParaView's XDMF readers map a 2DCoRectMesh's two dimensions to VTK's
       k and j axes (the YZ plane), and select the attribute's hyperslab with
       the topology's rank, so "1 NY NX" in both puts the field in the XY
       plane with x along the fastest index. */
    char dims[96], spacing[96];
    int64_t nz = rank == 3 ? shape[2] : 1;
    double hz = rank == 3 ? h[2] : h[0];
    snprintf(dims, sizeof dims, "%lld %lld %lld", (long long)nz, (long long)shape[1], (long long)shape[0]);
    snprintf(spacing, sizeof spacing, "%.17g %.17g %.17g", hz, h[1], h[0]);
    const char *origin = "0 0 0", *topo = "3DCoRectMesh", *geo = "ORIGIN_DXDYDZ";
    int prec = type == FDX_FLOAT64 ? 8 : 4;
    OUT("<?xml version=\"1.0\" ?>\n<Xdmf Version=\"3.0\">\n <Domain>\n");
    OUT("  <Grid Name=\"%s\" GridType=\"Collection\" CollectionType=\"Temporal\">\n", field);
    for (int i = 0; i < n; i++) {
        OUT("   <Grid Name=\"%s_%d\" GridType=\"Uniform\">\n", field, i);
        OUT("    <Time Value=\"%.17g\"/>\n", e[i].time);
        OUT("    <Topology TopologyType=\"%s\" Dimensions=\"%s\"/>\n", topo, dims);
        OUT("    <Geometry GeometryType=\"%s\">\n", geo);
        OUT("     <DataItem Dimensions=\"3\" Format=\"XML\">%s</DataItem>\n", origin);
        OUT("     <DataItem Dimensions=\"3\" Format=\"XML\">%s</DataItem>\n", spacing);
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
