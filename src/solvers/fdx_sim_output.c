/* fdx_sim_output: pictures, fields and traces written by a worker thread. */
#include "solvers/fdx_sim_output.h"

#include "fdx/io.h"
#include "solvers/fdx_pinned.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define QUEUE 4

typedef struct job {
    int kind; /* 1 picture, 2 field */
    int64_t step;
    double time;
    double *slice; /* picture: nx * ny doubles (owned) */
} job;

struct fdx_sim_output {
    fdx_sim *s;
    char dir[512];
    pthread_t thread;
    int started;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    job q[QUEUE];
    int head, count, stop, busy_field;
    char error[600];
    fdx_status error_status;
    double wait_s;
    /* Pictures. */
    fdx_gif *gif;
    unsigned char palette[768];
    int scale;
    /* Fields: spare device copy, pinned host copy, the worker's stream. */
    void *spare, *host, *wstream;
    fdx_xdmf_entry *entries;
    int nentries, capentries;
};

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int64_t fdx_sim_slice_k(const fdx_sim *s)
{
    if (s->rank < 3) return 0;
    if (s->kind == FDX_SIM_WAVE) return s->src / (s->n[0] * s->n[1]);
    return s->n[2] / 2;
}

static void record_error(fdx_sim_output *o, fdx_status st)
{
    pthread_mutex_lock(&o->mu);
    if (o->error_status == FDX_OK) {
        o->error_status = st;
        snprintf(o->error, sizeof o->error, "%s", fdx_last_error());
    }
    pthread_mutex_unlock(&o->mu);
}

static fdx_status write_picture(fdx_sim_output *o, const job *j)
{
    fdx_sim *s = o->s;
    int nx = (int)s->n[0], ny = (int)s->n[1];
    double lo = s->range[0], hi = s->range[1];
    if (s->kind != FDX_SIM_HEAT) {
        double mn = INFINITY, mx = -INFINITY;
        for (int64_t i = 0; i < (int64_t)nx * ny; i++) {
            if (j->slice[i] < mn) mn = j->slice[i];
            if (j->slice[i] > mx) mx = j->slice[i];
        }
        if (s->kind == FDX_SIM_WAVE) {
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

/* One more field file in the XDMF time series. */
static fdx_status add_entry(fdx_sim_output *o, double time, const char *file)
{
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

static fdx_status write_field(fdx_sim_output *o, const job *j)
{
    fdx_sim *s = o->s;
    size_t bytes = (size_t)s->count * fdx_dtype_size(s->type);
    FDX_TRY(s->be->copy(o->host, o->spare, bytes, FDX_COPY_D2H, o->wstream));
    FDX_TRY(s->be->stream_sync(o->wstream));
    pthread_mutex_lock(&o->mu);
    o->busy_field = 0; /* the spare device buffer may take the next field */
    pthread_cond_broadcast(&o->cv);
    pthread_mutex_unlock(&o->mu);
    char name[64], path[700];
    snprintf(name, sizeof name, "fields/u_%08lld.h5", (long long)j->step);
    snprintf(path, sizeof path, "%s/%s", o->dir, name);
    FDX_TRY(fdx_h5_write_field(path, "u", o->host, s->type, s->rank, s->n, j->time, j->step));
    FDX_TRY(add_entry(o, j->time, name));
    double h[3] = {s->h, s->h, s->h};
    snprintf(path, sizeof path, "%s/fields.xdmf", o->dir);
    return fdx_xdmf_write(path, "u", s->type, s->rank, s->n, h, o->entries, o->nentries);
}

static void *worker(void *arg)
{
    fdx_sim_output *o = arg;
    const fdx_device_info *dev = fdx_ctx_device(o->s->ctx);
    if (o->s->be->set_device) o->s->be->set_device(dev->ordinal);
    for (;;) {
        pthread_mutex_lock(&o->mu);
        while (o->count == 0 && !o->stop) pthread_cond_wait(&o->cv, &o->mu);
        if (o->count == 0 && o->stop) {
            pthread_mutex_unlock(&o->mu);
            return NULL;
        }
        job j = o->q[o->head];
        pthread_mutex_unlock(&o->mu);
        fdx_status st = j.kind == 1 ? write_picture(o, &j) : write_field(o, &j);
        if (st != FDX_OK) record_error(o, st);
        free(j.slice);
        pthread_mutex_lock(&o->mu);
        if (j.kind == 2) o->busy_field = 0;
        o->head = (o->head + 1) % QUEUE;
        o->count--;
        pthread_cond_broadcast(&o->cv);
        pthread_mutex_unlock(&o->mu);
    }
}

/* Waits (timed) until the queue has room and, for fields, the spare is free. */
static fdx_status submit(fdx_sim_output *o, job *j)
{
    double t0 = now_s();
    pthread_mutex_lock(&o->mu);
    while (o->count == QUEUE || (j->kind == 2 && o->busy_field)) pthread_cond_wait(&o->cv, &o->mu);
    o->q[(o->head + o->count) % QUEUE] = *j;
    o->count++;
    if (j->kind == 2) o->busy_field = 1;
    fdx_status st = o->error_status;
    char msg[600];
    snprintf(msg, sizeof msg, "%s", o->error);
    pthread_cond_broadcast(&o->cv);
    pthread_mutex_unlock(&o->mu);
    o->wait_s += now_s() - t0;
    return st == FDX_OK ? FDX_OK : fdx_fail(st, "%s", msg);
}

/* The spare device buffer, the pinned host buffer and the worker's stream:
   pinning half a gigabyte takes a tenth of a second, so runs that write
   fields during the loop get them before it starts. */
static fdx_status field_buffers(fdx_sim_output *o)
{
    fdx_sim *s = o->s;
    if (o->spare) return FDX_OK;
    size_t bytes = (size_t)s->count * fdx_dtype_size(s->type);
    FDX_TRY(s->be->alloc(bytes, &o->spare));
    FDX_TRY(fdx_pinned_alloc(s->ctx, bytes, &o->host));
    if (s->stream) FDX_TRY(s->be->stream_create(&o->wstream));
    return FDX_OK;
}

fdx_status fdx_sim_output_create(fdx_sim *s, const char *dir, int64_t first_step, fdx_sim_output **out)
{
    *out = NULL;
    fdx_sim_output *o = calloc(1, sizeof *o);
    FDX_CHECK(o, FDX_ERR_NOMEM, "no memory for the output writer");
    o->s = s;
    snprintf(o->dir, sizeof o->dir, "%s", dir);
    pthread_mutex_init(&o->mu, NULL);
    pthread_cond_init(&o->cv, NULL);
    fdx_cmap_palette(s->kind == FDX_SIM_WAVE ? FDX_CMAP_DIVERGING : FDX_CMAP_SEQUENTIAL, o->palette);
    o->scale = (int)atoi(fdx_sim_config_get(s->cfg, "scale"));
    if (o->scale == 0) {
        /* About 512 pixels wide, at most 8 per cell. */
        int64_t big = s->n[0] > s->n[1] ? s->n[0] : s->n[1];
        o->scale = big >= 512 ? 1 : (int)(512 / big) > 8 ? 8 : (int)(512 / big);
    }
    fdx_status st = FDX_OK;
    char sub[700];
    if (s->snapshot_every > 0) {
        snprintf(sub, sizeof sub, "%s/frames", dir);
        st = fdx_dir_prepare(sub);
    }
    if (st == FDX_OK) {
        snprintf(sub, sizeof sub, "%s/fields", dir);
        st = fdx_dir_prepare(sub);
    }
    /* Fields already written before a restart stay in the index. */
    for (int64_t k = s->field_every; st == FDX_OK && s->field_every > 0 && k <= first_step; k += s->field_every) {
        char name[64], path[700];
        snprintf(name, sizeof name, "fields/u_%08lld.h5", (long long)k);
        snprintf(path, sizeof path, "%s/%s", dir, name);
        if (access(path, R_OK) == 0) st = add_entry(o, (double)k * s->dt, name);
    }
    if (st == FDX_OK && s->field_every > 0 && s->field_every < s->steps) st = field_buffers(o);
    if (st == FDX_OK && pthread_create(&o->thread, NULL, worker, o) != 0)
        st = fdx_fail(FDX_ERR_INTERNAL, "cannot start the output thread");
    if (st != FDX_OK) {
        fdx_sim_output_destroy(&o);
        return st;
    }
    o->started = 1;
    *out = o;
    return FDX_OK;
}

fdx_status fdx_sim_output_snapshot(fdx_sim_output *o)
{
    fdx_sim *s = o->s;
    size_t plane = (size_t)s->n[0] * (size_t)s->n[1], es = fdx_dtype_size(s->type);
    void *raw = malloc(plane * es);
    double *slice = malloc(plane * sizeof(double));
    if (!raw || !slice) {
        free(raw);
        free(slice);
        return fdx_fail(FDX_ERR_NOMEM, "no memory for a picture");
    }
    /* Only the drawn plane leaves the device: contiguous, small. */
    const char *src = (const char *)fdx_array_device(s->cur) + (size_t)fdx_sim_slice_k(s) * plane * es;
    fdx_status st = s->be->copy(raw, src, plane * es, FDX_COPY_D2H, s->stream);
    if (st == FDX_OK) st = s->be->stream_sync(s->stream);
    for (size_t i = 0; st == FDX_OK && i < plane; i++) slice[i] = es == 8 ? ((double *)raw)[i] : ((float *)raw)[i];
    free(raw);
    if (st != FDX_OK) {
        free(slice);
        return st;
    }
    job j = {1, s->step, fdx_sim_time(s), slice};
    return submit(o, &j);
}

fdx_status fdx_sim_output_field(fdx_sim_output *o)
{
    fdx_sim *s = o->s;
    /* Wait for the spare, copy on the compute stream, then hand it over. */
    double t0 = now_s();
    pthread_mutex_lock(&o->mu);
    while (o->busy_field) pthread_cond_wait(&o->cv, &o->mu);
    pthread_mutex_unlock(&o->mu);
    o->wait_s += now_s() - t0;
    size_t bytes = (size_t)s->count * fdx_dtype_size(s->type);
    FDX_TRY(field_buffers(o));
    FDX_TRY(s->be->copy(o->spare, fdx_array_device(s->cur), bytes, FDX_COPY_D2D, s->stream));
    FDX_TRY(s->be->stream_sync(s->stream));
    job j = {2, s->step, fdx_sim_time(s), NULL};
    return submit(o, &j);
}

static fdx_status write_receivers(fdx_sim_output *o)
{
    fdx_sim *s = o->s;
    int nrec;
    int64_t nsteps;
    const double *t;
    FDX_TRY(fdx_sim_receivers(s, &nrec, &nsteps, &t));
    if (nrec == 0 || nsteps == 0) return FDX_OK;
    size_t cap = 64 + (size_t)nsteps * (size_t)(nrec + 1) * 26, k = 0;
    char *csv = malloc(cap);
    FDX_CHECK(csv, FDX_ERR_NOMEM, "no memory for receivers.csv");
    k += (size_t)snprintf(csv + k, cap - k, "step,time");
    for (int i = 0; i < nrec; i++) k += (size_t)snprintf(csv + k, cap - k, ",r%d", i);
    k += (size_t)snprintf(csv + k, cap - k, "\n");
    double m = 1e-30;
    for (int64_t n = 0; n < nsteps; n++) {
        int64_t step = s->rec_first + 1 + n;
        k += (size_t)snprintf(csv + k, cap - k, "%lld,%.9g", (long long)step, (double)step * s->dt);
        for (int i = 0; i < nrec; i++) {
            double v = t[(size_t)i * (size_t)nsteps + (size_t)n];
            k += (size_t)snprintf(csv + k, cap - k, ",%.9g", v);
            if (fabs(v) > m) m = fabs(v);
        }
        k += (size_t)snprintf(csv + k, cap - k, "\n");
    }
    char path[700];
    snprintf(path, sizeof path, "%s/receivers.csv", o->dir);
    fdx_status st = fdx_file_write_atomic(path, csv, k);
    free(csv);
    FDX_TRY(st);
    /* Seismogram: receivers across, time downward, diverging map; clipped
       at a third of the peak so late, weaker arrivals show. */
    int w = nrec * 8, h = nsteps > 1024 ? 1024 : (int)nsteps;
    double *img = malloc((size_t)nrec * (size_t)h * sizeof(double));
    FDX_CHECK(img, FDX_ERR_NOMEM, "no memory for the seismogram");
    for (int y = 0; y < h; y++)
        for (int i = 0; i < nrec; i++) {
            int64_t n = (int64_t)y * nsteps / h;
            img[i + (size_t)nrec * (size_t)(h - 1 - y)] = t[(size_t)i * (size_t)nsteps + (size_t)n];
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

fdx_status fdx_sim_output_finish(fdx_sim_output *o, int abort)
{
    pthread_mutex_lock(&o->mu);
    o->stop = 1;
    pthread_cond_broadcast(&o->cv);
    pthread_mutex_unlock(&o->mu);
    if (o->started) pthread_join(o->thread, NULL);
    o->started = 0;
    if (o->error_status != FDX_OK) {
        fdx_gif_abort(&o->gif);
        return fdx_fail(o->error_status, "%s", o->error);
    }
    if (abort) {
        fdx_gif_abort(&o->gif);
        return FDX_OK;
    }
    FDX_TRY(fdx_gif_close(&o->gif));
    return write_receivers(o);
}

double fdx_sim_output_wait_s(const fdx_sim_output *o) { return o->wait_s; }

void fdx_sim_output_destroy(fdx_sim_output **po)
{
    fdx_sim_output *o = po ? *po : NULL;
    if (!o) return;
    if (o->started) fdx_sim_output_finish(o, 1);
    fdx_gif_abort(&o->gif);
    if (o->spare) o->s->be->free(o->spare);
    fdx_pinned_free(o->s->ctx, o->host);
    if (o->wstream) o->s->be->stream_destroy(o->wstream);
    free(o->entries);
    pthread_mutex_destroy(&o->mu);
    pthread_cond_destroy(&o->cv);
    free(o);
    *po = NULL;
}
