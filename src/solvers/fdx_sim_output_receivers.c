/* fdx_sim_output_receivers: receivers.csv, grown by the new rows before
   each checkpoint and at the end, and the seismogram drawn from all the
   traces at the end (on the main thread: the traces live with the run). */
#include "solvers/fdx_sim_output_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Appends to an existing file, then flushes it to the disk. */
static fdx_status append_synced(const char *path, const char *data, size_t size)
{
    int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
    FDX_CHECK(fd >= 0, FDX_ERR_IO, "cannot open '%s' to append: %s", path, strerror(errno));
    while (size > 0) {
        ssize_t n = write(fd, data, size);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            int e = n < 0 ? errno : EIO;
            close(fd);
            return fdx_fail(FDX_ERR_IO, "cannot append to '%s': %s", path, strerror(e));
        }
        data += n;
        size -= (size_t)n;
    }
    int ok = fsync(fd) == 0, e = errno;
    close(fd);
    FDX_CHECK(ok, FDX_ERR_IO, "cannot flush '%s' to the disk: %s", path, strerror(e));
    return FDX_OK;
}

/* receivers.csv grows with the run: before each checkpoint and at the end
   the rows not on disk yet are appended (and fsynced), so the cost is the
   new rows only.  A process's first write (a new file, or the rows read
   back after a restart) replaces the file atomically; a row cut short by a
   crash is dropped when the next restart reads the file back. */
static fdx_status csv_update(fdx_sim_output *o, fdx_sim *s)
{
    int64_t to = s->step < s->steps ? s->step : s->steps, from = o->csv_started ? o->csv_step : s->rec_first;
    if (s->nrec == 0 || to <= from) return FDX_OK;
    FDX_TRY(fdx_sim_pull(s));
    size_t es = fdx_dtype_size(s->type), nrec = (size_t)s->nrec, rows = (size_t)(to - from);
    size_t cap = 64 + nrec * 12 + rows * (nrec + 1) * 26, k = 0;
    char *raw = malloc(rows * nrec * es), *csv = malloc(cap);
    fdx_status st = raw && csv ? FDX_OK : fdx_fail(FDX_ERR_NOMEM, "no memory for receivers.csv");
    /* Device layout: step-major, step k at k * nrec. */
    if (st == FDX_OK)
        st = s->be->copy(raw, (char *)s->rec_buf_dev + (size_t)(from + 1) * nrec * es, rows * nrec * es, FDX_COPY_D2H,
                         s->stream);
    if (st == FDX_OK) st = s->be->stream_sync(s->stream);
    if (st == FDX_OK && !o->csv_started) {
        k += (size_t)snprintf(csv + k, cap - k, "step,time");
        for (int i = 0; i < s->nrec; i++) k += (size_t)snprintf(csv + k, cap - k, ",r%d", i);
        k += (size_t)snprintf(csv + k, cap - k, "\n");
    }
    for (size_t r = 0; st == FDX_OK && r < rows; r++) {
        int64_t step = from + 1 + (int64_t)r;
        k += (size_t)snprintf(csv + k, cap - k, "%lld,%.9g", (long long)step, (double)step * s->dt);
        for (size_t i = 0; i < nrec; i++) {
            size_t q = r * nrec + i;
            k += (size_t)snprintf(csv + k, cap - k, ",%.9g", es == 8 ? ((double *)raw)[q] : (double)((float *)raw)[q]);
        }
        k += (size_t)snprintf(csv + k, cap - k, "\n");
    }
    char path[700];
    snprintf(path, sizeof path, "%s/receivers.csv", o->dir);
    if (st == FDX_OK) st = o->csv_started ? append_synced(path, csv, k) : fdx_file_write_atomic(path, csv, k);
    if (st == FDX_OK) {
        o->csv_started = 1;
        o->csv_step = to;
    }
    free(raw);
    free(csv);
    return st;
}

fdx_status fdx_sim_out_receivers(fdx_sim_output *o, fdx_sim *s, int picture)
{
    FDX_TRY(csv_update(o, s));
    if (!picture) return FDX_OK;
    int nrec;
    int64_t nsteps;
    const double *t;
    FDX_TRY(fdx_sim_receivers(s, &nrec, &nsteps, &t));
    if (nrec == 0 || nsteps == 0) return FDX_OK;
    double m = 1e-30;
    for (size_t q = 0; q < (size_t)nrec * (size_t)nsteps; q++)
        if (fabs(t[q]) > m) m = fabs(t[q]); /* false for NaN: rows lost before a restart */
    char path[700];
    fdx_status st;
    /* Seismogram: receivers across, time downward, diverging map; clipped
       at a third of the peak so late, weaker arrivals show. */
    int w = nrec * 8, h = nsteps > 1024 ? 1024 : (int)nsteps;
    double *img = malloc((size_t)nrec * (size_t)h * sizeof(double));
    FDX_CHECK(img, FDX_ERR_NOMEM, "no memory for the seismogram");
    for (int y = 0; y < h; y++)
        for (int i = 0; i < nrec; i++) {
            int64_t n = (int64_t)y * nsteps / h;
            double v = t[(size_t)i * (size_t)nsteps + (size_t)n];
            img[i + (size_t)nrec * (size_t)(h - 1 - y)] = isfinite(v) ? v : 0;
        }
    fdx_image idx, rgb;
    unsigned char pal[768];
    fdx_cmap_palette(FDX_CMAP_DIVERGING, pal);
    st = fdx_image_from_field(img, nrec, h, -m / 3, m / 3, 1, &idx);
    free(img);
    FDX_TRY(st);
    /* Widen each receiver column to 8 pixels. */
    fdx_image wide;
    st = fdx_image_create(w, h, 1, &wide);
    for (int y = 0; st == FDX_OK && y < h; y++)
        for (int x = 0; x < w; x++) wide.pixels[(size_t)y * w + x] = idx.pixels[(size_t)y * nrec + x / 8];
    fdx_image_free(&idx);
    if (st == FDX_OK) st = fdx_image_to_rgb(&wide, pal, &rgb);
    fdx_image_free(&wide);
    if (st == FDX_OK) {
        snprintf(path, sizeof path, "%s/seismogram.png", o->dir);
        st = fdx_png_write(path, &rgb);
        fdx_image_free(&rgb);
    }
    return st;
}
