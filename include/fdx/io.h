/* fdx io: pictures (colour maps, PNG, animated GIF, captions), field files
   (HDF5 + an XDMF time-series index) and atomic checkpoints: what a
   simulation needs to be seen and resumed.  The parts only fdx itself uses
   (the bitmap font, the GIF decoder, the INI parser, the progress bar) are
   in fdx/internal/io.h. */
#ifndef FDX_IO_H
#define FDX_IO_H

#include "core.h"

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- colour maps and images ---------------------------------------------- */
typedef enum fdx_cmap {
    FDX_CMAP_SEQUENTIAL = 0, /* perceptual, luminance rises monotonically (cubehelix) */
    FDX_CMAP_DIVERGING       /* blue - white - red, symmetric about the middle */
} fdx_cmap;

/* Colour of t in [0, 1] (clamped; NaN maps to 0). */
FDX_API void fdx_cmap_rgb(fdx_cmap map, double t, unsigned char rgb[3]);
/* The map sampled at 256 levels: palette[3*i .. 3*i+2]. */
FDX_API void fdx_cmap_palette(fdx_cmap map, unsigned char palette[768]);

/* An 8-bit image: either RGB (channels 3) or palette indices (channels 1). */
typedef struct fdx_image {
    int width, height, channels;
    unsigned char *pixels; /* width * height * channels bytes, row 0 at the top */
} fdx_image;

FDX_API fdx_status fdx_image_create(int width, int height, int channels, fdx_image *out);
FDX_API void fdx_image_free(fdx_image *img);

/* Maps a 2D field (v[i + nx*j], i along x to the right, j upward) onto an
   indexed image of scale x scale pixels per cell, values lo..hi to levels
   0..255.  The image's row 0 is the field's last j (y points up). */
FDX_API fdx_status fdx_image_from_field(const double *v, int nx, int ny, double lo, double hi, int scale,
                                        fdx_image *out);
/* A field picture that reads on its own: `field` (indexed) with a caption
   band on top (e.g. "step 200  t 0.125"; cut to the width, none if NULL or
   "") and, on the right, a colour bar of the palette from hi (top) to lo
   (bottom) labelled with both values; the size depends on the field's only,
   so every frame of a run has the same.  Drawn with the palette's lightest
   colour as paper and its darkest as ink, so *out (a new indexed image) uses
   palette colours only.  Free with fdx_image_free. */
FDX_API fdx_status fdx_image_annotate(const fdx_image *field, const unsigned char palette[768], double lo, double hi,
                                      const char *caption, fdx_image *out);
/* Expands an indexed image to RGB through a 256-entry palette. */
FDX_API fdx_status fdx_image_to_rgb(const fdx_image *indexed, const unsigned char palette[768], fdx_image *out);

/* PNG through libpng (FDX_ERR_UNSUPPORTED without it).  The write is atomic:
   a temporary file, fsync, rename. */
FDX_API fdx_status fdx_png_write(const char *path, const fdx_image *rgb);
/* Reads an 8-bit RGB/RGBA/grey PNG as RGB. */
FDX_API fdx_status fdx_png_read(const char *path, fdx_image *out);

/* Animated GIF (own encoder: LZW, one global 256-colour palette, a looping
   NETSCAPE2.0 extension).  The file appears under its name at close. */
typedef struct fdx_gif fdx_gif;
FDX_API fdx_status fdx_gif_open(const char *path, int width, int height, const unsigned char palette[768],
                                int delay_cs, fdx_gif **out);
FDX_API fdx_status fdx_gif_add(fdx_gif *g, const fdx_image *indexed);
FDX_API fdx_status fdx_gif_close(fdx_gif **g);   /* finishes and publishes the file */
FDX_API void fdx_gif_abort(fdx_gif **g);         /* removes the partial file */

/* ---- field files ------------------------------------------------------------
   HDF5 datasets are written in C order, so the dataset's dimensions are the
   shape reversed (nz, ny, nx).  XDMF is the index ParaView and VisIt open. */
FDX_API fdx_status fdx_h5_write_field(const char *path, const char *name, const void *data, fdx_dtype type,
                                      int rank, const int64_t *shape, double time, int64_t step);
/* Reads dataset `name` (NULL: the only or first dataset) as doubles into a
   new buffer (free with free()); shape in fdx order (x first).  The file is
   untrusted: libhdf5 reads it in a child process, the extents are checked
   (and a field over half the machine's memory refused) before any data is
   read.  A FIFO, device or directory, a bad rank or type: FDX_ERR_INVALID;
   a missing, unreadable or damaged file, or a reader that crashes or hangs:
   FDX_ERR_IO. */
FDX_API fdx_status fdx_h5_read_field(const char *path, const char *name, double **data, int *rank,
                                     int64_t *shape);
/* The same for a field that must have this rank and shape: any other is
   refused (FDX_ERR_INVALID, naming both) before its data is read. */
FDX_API fdx_status fdx_h5_read_field_shaped(const char *path, const char *name, int rank, const int64_t *shape,
                                            double **data);

typedef struct fdx_xdmf_entry {
    double time;
    char file[256];    /* HDF5 file name relative to the XDMF file */
    char dataset[64];
} fdx_xdmf_entry;
/* Writes (atomically) the time series of fields on a uniform grid, always as
   a 3DCoRectMesh: a 2D field (rank 2) is one point thick in z and its
   dataset must be 1 x NY x NX (fdx_h5_write_field with rank 3 and shape
   NX, NY, 1), the layout ParaView needs to show it in the XY plane. */
FDX_API fdx_status fdx_xdmf_write(const char *path, const char *field, fdx_dtype type, int rank,
                                  const int64_t *shape, const double *h, const fdx_xdmf_entry *entries, int n);

/* ---- files written whole or not at all ------------------------------------- */
/* Writes bytes to path through a temporary path.tmp.PID.N in the same directory
   (O_EXCL, no symlink followed), fsync, rename, fsync of the directory. */
FDX_API fdx_status fdx_file_write_atomic(const char *path, const void *data, size_t size);
/* Reads a whole regular file (at most max_bytes) into a new buffer, NUL-terminated.
   FIFOs, devices and directories are refused without blocking; these, and a
   file that is missing, unreadable or fails to read, are FDX_ERR_INVALID
   (bad input: exit 2). */
FDX_API fdx_status fdx_file_read(const char *path, size_t max_bytes, char **data, size_t *size);
/* Creates a directory (and parents) and checks that it can be written to. */
FDX_API fdx_status fdx_dir_prepare(const char *path);

/* ---- checkpoints ------------------------------------------------------------
   One file: a header (magic, step, time, element type, shape, the run's
   config text), named fields, and a checksum over all of it. */
typedef struct fdx_ckpt_field {
    const char *name;
    const void *data;
} fdx_ckpt_field;

typedef struct fdx_ckpt_info {
    int64_t step;
    double time;
    fdx_dtype type;
    int rank;
    int64_t shape[3];
    const char *config; /* key = value lines */
} fdx_ckpt_info;

FDX_API fdx_status fdx_ckpt_write(const char *path, const fdx_ckpt_info *info, const fdx_ckpt_field *fields,
                                  int nfields);
/* Opens and verifies a checkpoint (magic, sizes, checksum).  *blob owns all
   memory; info->config and field pointers point into it.  NULL or out-of-range
   arguments (and a NULL field name or data) give FDX_ERR_INVALID. */
typedef struct fdx_ckpt fdx_ckpt;
FDX_API fdx_status fdx_ckpt_read(const char *path, fdx_ckpt **out);
FDX_API fdx_status fdx_ckpt_parse(const void *data, size_t size, fdx_ckpt **out);
FDX_API const fdx_ckpt_info *fdx_ckpt_get_info(const fdx_ckpt *c);
/* The field `name` (count * element size bytes), or NULL. */
FDX_API const void *fdx_ckpt_get_field(const fdx_ckpt *c, const char *name);
FDX_API void fdx_ckpt_free(fdx_ckpt **c);

#ifdef __cplusplus
}
#endif
#endif
