/* fdx_sim_output_write: what the output worker writes, from the grid's
   description and the job's view of its data: PNG frames and the GIF, HDF5
   fields and their XDMF index. */
#include "solvers/fdx_sim_output_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

fdx_status fdx_sim_out_picture(fdx_sim_output *o, const fdx_sim_job *j)
{
    const fdx_sim_out_grid *g = &o->g;
    int nx = (int)g->n[0], ny = (int)g->n[1];
    double lo = g->range[0], hi = g->range[1];
    if (g->kind != FDX_SIM_HEAT) {
        double mn = INFINITY, mx = -INFINITY;
        for (int64_t i = 0; i < (int64_t)nx * ny; i++) {
            if (j->slice[i] < mn) mn = j->slice[i];
            if (j->slice[i] > mx) mx = j->slice[i];
        }
        if (g->kind == FDX_SIM_WAVE) {
            /* Symmetric about zero so the diverging map's white is u = 0. */
            double m = fmax(fabs(mn), fabs(mx));
            if (!(m > 1e-30)) m = 1e-30;
            lo = -m;
            hi = m;
        } else {
            lo = mn;
            hi = mx > mn ? mx : mn + 1;
        }
    }
    if (!(hi > lo)) hi = lo + 1;
    fdx_image idx, rgb;
    FDX_TRY(fdx_image_from_field(j->slice, nx, ny, lo, hi, o->scale, &idx));
    fdx_status st = FDX_OK;
    if (!o->gif) {
        char path[700];
        snprintf(path, sizeof path, "%s/animation.gif", o->dir);
        st = fdx_gif_open(path, idx.width, idx.height, o->palette, 8, &o->gif);
    }
    if (st == FDX_OK) st = fdx_gif_add(o->gif, &idx);
    if (st == FDX_OK) st = fdx_image_to_rgb(&idx, o->palette, &rgb);
    if (st == FDX_OK) {
        char path[700];
        snprintf(path, sizeof path, "%s/frames/frame_%08lld.png", o->dir, (long long)j->step);
        st = fdx_png_write(path, &rgb);
        fdx_image_free(&rgb);
    }
    fdx_image_free(&idx);
    return st;
}

/* A file already listed (the final field of a run restarted after it
   finished) is listed once. */
fdx_status fdx_sim_out_add_entry(fdx_sim_output *o, double time, const char *file)
{
    for (int i = 0; i < o->nentries; i++)
        if (strcmp(o->entries[i].file, file) == 0) {
            o->entries[i].time = time;
            return FDX_OK;
        }
    if (o->nentries == o->capentries) {
        int cap = o->capentries ? 2 * o->capentries : 16;
        fdx_xdmf_entry *e = realloc(o->entries, (size_t)cap * sizeof *e);
        FDX_CHECK(e, FDX_ERR_NOMEM, "no memory for the XDMF index");
        o->entries = e;
        o->capentries = cap;
    }
    fdx_xdmf_entry *e = &o->entries[o->nentries++];
    memset(e, 0, sizeof *e);
    e->time = time;
    snprintf(e->file, sizeof e->file, "%s", file);
    snprintf(e->dataset, sizeof e->dataset, "u");
    return FDX_OK;
}

fdx_status fdx_sim_out_field(fdx_sim_output *o, const fdx_sim_job *j)
{
    const fdx_sim_out_grid *g = &o->g;
    size_t bytes = (size_t)g->count * fdx_dtype_size(g->type);
    FDX_TRY(o->be->copy(o->host, j->field, bytes, FDX_COPY_D2H, o->wstream));
    FDX_TRY(o->be->stream_sync(o->wstream));
    pthread_mutex_lock(&o->mu);
    o->busy_field = 0; /* the spare device buffer may take the next field */
    pthread_cond_broadcast(&o->cv);
    pthread_mutex_unlock(&o->mu);
    char name[64], path[700];
    snprintf(name, sizeof name, "fields/u_%08lld.h5", (long long)j->step);
    snprintf(path, sizeof path, "%s/%s", o->dir, name);
    /* Always 3D (a 2D field is 1 x NY x NX): the layout the XDMF index
       needs for ParaView to show a 2D field in the XY plane. */
    FDX_TRY(fdx_h5_write_field(path, "u", o->host, g->type, 3, g->n, j->time, j->step));
    FDX_TRY(fdx_sim_out_add_entry(o, j->time, name));
    double h[3] = {g->h, g->h, g->h};
    snprintf(path, sizeof path, "%s/fields.xdmf", o->dir);
    return fdx_xdmf_write(path, "u", g->type, g->rank, g->n, h, o->entries, o->nentries);
}
