/* fdx_io_progress: a progress bar (step, rate, ETA) redrawn in place on a
   terminal; on a file or pipe, a plain log line every tenth of the run. */
#include "core/fdx_error.h"
#include "fdx/io.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct fdx_progress {
    FILE *out;
    char what[64];
    int64_t total, last_tenth;
    int tty;
    double t0, last_draw;
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

fdx_status fdx_progress_create(FILE *out, const char *what, int64_t total, fdx_progress **p)
{
    *p = calloc(1, sizeof **p);
    FDX_CHECK(*p, FDX_ERR_NOMEM, "no memory for a progress bar");
    (*p)->out = out;
    snprintf((*p)->what, sizeof (*p)->what, "%s", what);
    (*p)->total = total > 0 ? total : 1;
    (*p)->tty = out && isatty(fileno(out)) && !getenv("FDX_NO_TTY");
    (*p)->t0 = (*p)->last_draw = now_s();
    (*p)->last_tenth = -1;
    return FDX_OK;
}

static void eta_text(double s, char *buf, size_t cap)
{
    if (!(s >= 0) || s > 1e7) snprintf(buf, cap, "--:--");
    else if (s >= 3600) snprintf(buf, cap, "%d:%02d:%02d", (int)s / 3600, (int)s / 60 % 60, (int)s % 60);
    else snprintf(buf, cap, "%02d:%02d", (int)s / 60, (int)s % 60);
}

static void draw(fdx_progress *p, int64_t done, int final)
{
    double t = now_s(), el = t - p->t0, rate = el > 0 ? (double)done / el : 0;
    char eta[32];
    eta_text(rate > 0 ? (double)(p->total - done) / rate : -1, eta, sizeof eta);
    double f = (double)done / (double)p->total;
    if (p->tty) {
        char bar[31];
        int fill = (int)(f * 30);
        for (int i = 0; i < 30; i++) bar[i] = i < fill ? '#' : '.';
        bar[30] = '\0';
        fprintf(p->out, "\r%s [%s] %3.0f%% step %lld/%lld %.1f steps/s ETA %s%s", p->what, bar, 100 * f,
                (long long)done, (long long)p->total, rate, eta, final ? "\n" : "  ");
    } else {
        fprintf(p->out, "%s: step %lld/%lld (%.0f%%), %.1f steps/s, ETA %s\n", p->what, (long long)done,
                (long long)p->total, 100 * f, rate, eta);
    }
    fflush(p->out);
    p->last_draw = t;
}

void fdx_progress_update(fdx_progress *p, int64_t done)
{
    if (!p || !p->out) return;
    if (p->tty) {
        if (now_s() - p->last_draw >= 0.1) draw(p, done, 0);
        return;
    }
    int64_t tenth = done * 10 / p->total;
    if (tenth != p->last_tenth && done < p->total) {
        p->last_tenth = tenth;
        draw(p, done, 0);
    }
}

void fdx_progress_finish(fdx_progress *p, int64_t done)
{
    if (p && p->out) draw(p, done, 1);
}

void fdx_progress_destroy(fdx_progress **p)
{
    if (!p) return;
    free(*p);
    *p = NULL;
}
