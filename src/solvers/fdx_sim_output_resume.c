/* fdx_sim_output_resume: a run restarted into its own directory continues
   its outputs: the XDMF index from the field files kept, the GIF from the
   PNG frames kept (mapped back to palette indices), the receivers' rows
   from receivers.csv (into the device trace buffer). */
#include "solvers/fdx_sim_output_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct index_scan {
    fdx_sim_output *o;
    int64_t upto;
    double dt;
} index_scan;

static fdx_status on_field(const char *path, const char *name, void *arg)
{
    (void)path;
    index_scan *x = arg;
    int64_t k = fdx_sim_series_step(&FDX_SIM_FIELDS, name);
    if (k < 0 || k > x->upto) return FDX_OK;
    char file[300];
    snprintf(file, sizeof file, "fields/%s", name);
    return fdx_sim_out_add_entry(x->o, (double)k * x->dt, file);
}

static int by_time(const void *a, const void *b)
{
    double x = ((const fdx_xdmf_entry *)a)->time, y = ((const fdx_xdmf_entry *)b)->time;
    return x < y ? -1 : x > y;
}

/* The fields already written up to `upto` stay in the XDMF index, in step order. */
static fdx_status index_kept_fields(fdx_sim_output *o, int64_t upto, double dt)
{
    index_scan x = {o, upto, dt};
    FDX_TRY(fdx_sim_each_entry(o->dir, "fields", on_field, &x));
    if (o->nentries > 1) qsort(o->entries, (size_t)o->nentries, sizeof *o->entries, by_time);
    return FDX_OK;
}

/* The animation restarts with the frames kept as PNGs (steps 0, E, 2E, ...
   up to `upto`), mapped back to the palette's indices. */
static fdx_status gif_kept_frames(fdx_sim_output *o, int64_t upto, int64_t every)
{
    /* Colour -> index: an open-addressed table of the 256 palette colours. */
    int32_t key[1024];
    unsigned char val[1024];
    memset(key, 0xff, sizeof key);
    for (int i = 255; i >= 0; i--) {
        int32_t c = o->palette[3 * i] << 16 | o->palette[3 * i + 1] << 8 | o->palette[3 * i + 2];
        unsigned h = ((uint32_t)c * 2654435761u) >> 22;
        while (key[h] != -1 && key[h] != c) h = (h + 1) & 1023;
        key[h] = c;
        val[h] = (unsigned char)i;
    }
    fdx_status st = FDX_OK;
    for (int64_t k = 0; st == FDX_OK && k <= upto; k += every) {
        char path[700];
        snprintf(path, sizeof path, "%s/frames/frame_%08lld.png", o->dir, (long long)k);
        if (access(path, R_OK) != 0) continue; /* removed by the user: nothing to continue from */
        fdx_image rgb, idx;
        FDX_TRY(fdx_png_read(path, &rgb));
        st = fdx_image_create(rgb.width, rgb.height, 1, &idx);
        for (size_t p = 0; st == FDX_OK && p < (size_t)rgb.width * (size_t)rgb.height; p++) {
            const unsigned char *q = rgb.pixels + 3 * p;
            int32_t c = q[0] << 16 | q[1] << 8 | q[2];
            unsigned h = ((uint32_t)c * 2654435761u) >> 22;
            while (key[h] != -1 && key[h] != c) h = (h + 1) & 1023;
            if (key[h] != c) st = fdx_fail(FDX_ERR_INVALID, "restart: '%s' has colours that are not the run's palette", path);
            else idx.pixels[p] = val[h];
        }
        if (st == FDX_OK && !o->gif) {
            char gif[700];
            snprintf(gif, sizeof gif, "%s/animation.gif", o->dir);
            st = fdx_gif_open(gif, idx.width, idx.height, o->palette, 8, &o->gif);
        }
        if (st == FDX_OK) st = fdx_gif_add(o->gif, &idx);
        if (st == FDX_OK) o->gif_frames++;
        fdx_image_free(&idx);
        fdx_image_free(&rgb);
    }
    return st;
}

/* The receivers' rows 1..upto come back from receivers.csv into the device
   buffer (the same text is written again: %.9g reads back to a value that
   prints the same); steps missing from the file are NaN. */
static fdx_status receivers_kept_rows(fdx_sim_output *o, fdx_sim *s, int64_t upto)
{
    if (s->nrec == 0 || upto == 0) return FDX_OK;
    char path[700], *text;
    size_t size;
    snprintf(path, sizeof path, "%s/receivers.csv", o->dir);
    if (access(path, F_OK) != 0) return FDX_OK; /* this run's rows start after the checkpoint */
    FDX_TRY(fdx_file_read(path, (size_t)1 << 40, &text, &size));
    size_t es = fdx_dtype_size(s->type), rows = (size_t)upto, nrec = (size_t)s->nrec;
    char *vals = malloc(rows * nrec * es);
    fdx_status st = vals ? FDX_OK : fdx_fail(FDX_ERR_NOMEM, "no memory for the receivers' rows");
    for (size_t q = 0; st == FDX_OK && q < rows * nrec; q++) {
        if (es == 8) ((double *)vals)[q] = NAN;
        else ((float *)vals)[q] = NAN;
    }
    char *line = text, *next;
    int header = 1;
    for (; st == FDX_OK && line < text + size && *line; line = next) {
        next = strchr(line, '\n');
        if (!next) break; /* a last line without its newline was cut short */
        *next++ = '\0';
        if (header) {
            int cols = 1;
            for (char *c = line; *c; c++) cols += *c == ',';
            if (strncmp(line, "step,time", 9) != 0 || cols != s->nrec + 2)
                st = fdx_fail(FDX_ERR_INVALID, "restart: '%s' has %d columns, not step, time and %d receivers", path,
                              cols, s->nrec);
            header = 0;
            continue;
        }
        char *p = line, *end;
        long long step = strtoll(p, &end, 10);
        if (end == p || *end != ',' || step < 1 || step > (long long)upto) continue;
        p = strchr(end + 1, ',');
        double row[FDX_SIM_MAX_REC];
        int i = 0;
        while (p && i < s->nrec) {
            row[i] = strtod(p + 1, &end);
            if (end == p + 1) break;
            i++;
            p = *end == ',' ? end : NULL;
        }
        if (i != s->nrec) continue; /* a damaged row stays unknown (NaN) */
        for (i = 0; i < s->nrec; i++) {
            size_t q = (size_t)(step - 1) * nrec + (size_t)i;
            if (es == 8) ((double *)vals)[q] = row[i];
            else ((float *)vals)[q] = (float)row[i];
        }
    }
    free(text);
    /* Device layout: step-major, step k at k * nrec. */
    if (st == FDX_OK)
        st = s->be->copy((char *)s->rec_buf_dev + nrec * es, vals, rows * nrec * es, FDX_COPY_H2D, s->stream);
    if (st == FDX_OK) st = s->be->stream_sync(s->stream);
    if (st == FDX_OK) s->rec_first = 0;
    free(vals);
    return st;
}

fdx_status fdx_sim_output_resume(fdx_sim_output *o, fdx_sim *s, int64_t upto)
{
    FDX_TRY(fdx_sim_remove_after(o->dir, upto, s->field_every));
    FDX_TRY(index_kept_fields(o, upto, s->dt));
    if (s->snapshot_every > 0) FDX_TRY(gif_kept_frames(o, upto, s->snapshot_every));
    return receivers_kept_rows(o, s, upto);
}
