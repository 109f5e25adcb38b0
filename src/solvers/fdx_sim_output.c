/* fdx_sim_output: what a run writes while it computes, handed to a worker
   thread so the device never waits for the disk: a bounded queue of jobs
   (pictures, fields), the spare device buffer a field leaves through, and
   the worker's first error, reported at the next call. */
#include "solvers/fdx_sim_output_impl.h"

#include "core/fdx_file.h"
#include "fdx/internal/clock.h"
#include "solvers/fdx_pinned.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static void *worker(void *arg)
{
    fdx_sim_output *o = arg;
    const fdx_device_info *dev = fdx_ctx_device(o->ctx);
    if (o->be->set_device) o->be->set_device(dev->ordinal);
    for (;;) {
        pthread_mutex_lock(&o->mu);
        while (o->count == 0 && !o->stop) pthread_cond_wait(&o->cv, &o->mu);
        if (o->count == 0 && o->stop) {
            pthread_mutex_unlock(&o->mu);
            return NULL;
        }
        fdx_sim_job j = o->q[o->head];
        pthread_mutex_unlock(&o->mu);
        fdx_status st = j.kind == 1 ? fdx_sim_out_picture(o, &j) : fdx_sim_out_field(o, &j);
        if (st != FDX_OK) record_error(o, st);
        free(j.slice);
        pthread_mutex_lock(&o->mu);
        if (j.kind == 2) o->busy_field = 0;
        o->head = (o->head + 1) % FDX_SIM_OUT_QUEUE;
        o->count--;
        pthread_cond_broadcast(&o->cv);
        pthread_mutex_unlock(&o->mu);
    }
}

/* Waits (timed) until the queue has room and, for fields, the spare is free. */
static fdx_status submit(fdx_sim_output *o, fdx_sim_job *j)
{
    double t0 = fdx_now_s();
    pthread_mutex_lock(&o->mu);
    while (o->count == FDX_SIM_OUT_QUEUE || (j->kind == 2 && o->busy_field)) pthread_cond_wait(&o->cv, &o->mu);
    o->q[(o->head + o->count) % FDX_SIM_OUT_QUEUE] = *j;
    o->count++;
    if (j->kind == 2) o->busy_field = 1;
    fdx_status st = o->error_status;
    char msg[600];
    snprintf(msg, sizeof msg, "%s", o->error);
    pthread_cond_broadcast(&o->cv);
    pthread_mutex_unlock(&o->mu);
    o->wait_s += fdx_now_s() - t0;
    return st == FDX_OK ? FDX_OK : fdx_fail(st, "%s", msg);
}

/* The pinned host buffer and the worker's stream (every field), and the
   spare device buffer (fields during the loop): pinning half a gigabyte
   takes a tenth of a second, so runs that write fields during the loop get
   them before it starts. */
static fdx_status field_buffers(fdx_sim_output *o, int spare, int own_stream)
{
    size_t bytes = (size_t)o->g.count * fdx_dtype_size(o->g.type);
    if (spare && !o->spare) FDX_TRY(o->be->alloc(bytes, &o->spare));
    if (!o->host) FDX_TRY(fdx_pinned_alloc(o->ctx, bytes, &o->host));
    if (own_stream && !o->wstream) FDX_TRY(o->be->stream_create(&o->wstream));
    return FDX_OK;
}

/* Waits until the queue is empty; the worker's first error. */
static fdx_status sync_queue(fdx_sim_output *o)
{
    double t0 = fdx_now_s();
    pthread_mutex_lock(&o->mu);
    while (o->count > 0) pthread_cond_wait(&o->cv, &o->mu);
    fdx_status st = o->error_status;
    char msg[600];
    snprintf(msg, sizeof msg, "%s", o->error);
    pthread_mutex_unlock(&o->mu);
    o->wait_s += fdx_now_s() - t0;
    return st == FDX_OK ? FDX_OK : fdx_fail(st, "%s", msg);
}

fdx_status fdx_sim_output_create(fdx_sim *s, const char *dir, const char *restart, int64_t first_step,
                                 fdx_sim_output **out)
{
    *out = NULL;
    fdx_sim_output *o = calloc(1, sizeof *o);
    FDX_CHECK(o, FDX_ERR_NOMEM, "no memory for the output writer");
    o->g = (fdx_sim_out_grid){s->kind, s->rank, {s->n[0], s->n[1], s->n[2]}, s->count, s->type, s->h,
                              {s->range[0], s->range[1]}};
    o->be = s->be;
    o->ctx = s->ctx;
    snprintf(o->dir, sizeof o->dir, "%s", dir);
    pthread_mutex_init(&o->mu, NULL);
    pthread_cond_init(&o->cv, NULL);
    fdx_cmap_palette(s->kind == FDX_SIM_WAVE ? FDX_CMAP_DIVERGING : FDX_CMAP_SEQUENTIAL, o->palette);
    o->scale = s->p.scale;
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
    if (st == FDX_OK && first_step > 0 && fdx_sim_same_dir(dir, restart)) st = fdx_sim_output_resume(o, s, first_step);
    if (st == FDX_OK && s->field_every > 0 && s->field_every < s->steps) st = field_buffers(o, 1, s->stream != NULL);
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

fdx_status fdx_sim_output_snapshot(fdx_sim_output *o, fdx_sim *s)
{
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
    fdx_sim_job j = {1, s->step, fdx_sim_time(s), slice, NULL};
    return submit(o, &j);
}

fdx_status fdx_sim_output_field(fdx_sim_output *o, fdx_sim *s, int final)
{
    /* The final field: nothing changes it any more, the worker copies it
       from where it is.  During the loop: wait for the spare, copy on the
       compute stream, then hand the spare over. */
    const void *view = fdx_array_device(s->cur);
    if (final) {
        FDX_TRY(field_buffers(o, 0, s->stream != NULL));
        FDX_TRY(s->be->stream_sync(s->stream));
    } else {
        double t0 = fdx_now_s();
        pthread_mutex_lock(&o->mu);
        while (o->busy_field) pthread_cond_wait(&o->cv, &o->mu);
        pthread_mutex_unlock(&o->mu);
        o->wait_s += fdx_now_s() - t0;
        FDX_TRY(field_buffers(o, 1, s->stream != NULL));
        FDX_TRY(s->be->copy(o->spare, view, fdx_array_bytes(s->cur), FDX_COPY_D2D, s->stream));
        FDX_TRY(s->be->stream_sync(s->stream));
        view = o->spare;
    }
    fdx_sim_job j = {2, s->step, fdx_sim_time(s), NULL, view};
    return submit(o, &j);
}

fdx_status fdx_sim_output_finish(fdx_sim_output *o, fdx_sim *s, int abort)
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
    return fdx_sim_out_receivers(o, s, 1);
}

fdx_status fdx_sim_output_sync(fdx_sim_output *o, fdx_sim *s)
{
    if (!o) return FDX_OK;
    FDX_TRY(sync_queue(o));
    return fdx_sim_out_receivers(o, s, 0);
}

double fdx_sim_output_wait_s(const fdx_sim_output *o) { return o->wait_s; }

void fdx_sim_output_destroy(fdx_sim_output **po)
{
    fdx_sim_output *o = po ? *po : NULL;
    if (!o) return;
    if (o->started) fdx_sim_output_finish(o, NULL, 1);
    fdx_gif_abort(&o->gif);
    if (o->spare) o->be->free(o->spare);
    fdx_pinned_free(o->ctx, o->host);
    if (o->wstream) o->be->stream_destroy(o->wstream);
    free(o->entries);
    pthread_mutex_destroy(&o->mu);
    pthread_cond_destroy(&o->cv);
    free(o);
    *po = NULL;
}
