/* The progress display: a phase before stepping is shown by name with its
   time, and the ETA counts stepping only (a 1 s phase must not inflate it). */
#include "fdx_test.h"
#include "fdx/internal/io.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static void sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}

int main(void)
{
    setenv("FDX_NO_TTY", "1", 1);
    FILE *f = tmpfile();
    CHECK(f != NULL, "no temporary file");
    if (!f) return fdx_test_finish("test_progress");
    fdx_progress *p = NULL;
    CHECK_OK(fdx_progress_create(f, "fdx test", 1000, &p));
    fdx_progress_phase(p, "compiling/tuning");
    sleep_s(1.0); /* the phase: before it, a rate counted from creation */
    for (int64_t i = 1; i <= 1000; i++) {
        sleep_s(0.001); /* about 1000 steps/s, slower on a loaded machine */
        fdx_progress_update(p, i);
    }
    fdx_progress_finish(p, 1000);
    fdx_progress_destroy(&p);
    CHECK(p == NULL, "destroy did not clear the pointer");
    rewind(f);
    char line[256];
    int phase = 0, took = 0, steps = 0, order_ok = 1;
    while (fgets(line, sizeof line, f)) {
        if (strcmp(line, "fdx test: compiling/tuning\n") == 0) phase = 1, order_ok &= steps == 0;
        double s;
        if (sscanf(line, "fdx test: compiling/tuning took %lf s", &s) == 1) {
            took = 1;
            CHECK(s >= 0.95 && s < 30, "phase took %.3f s, slept 1 s", s);
        }
        long long at;
        int mm, ss;
        const char *eta = strstr(line, "ETA ");
        if (sscanf(line, "fdx test: step %lld/", &at) == 1 && eta) {
            steps++;
            /* From step 100 on: about 0.9 s left at 1 ms a step; counting the
               1 s phase (the old rate) would say 9 s or more. */
            if (at >= 100 && sscanf(eta, "ETA %d:%d", &mm, &ss) == 2)
                CHECK(mm * 60 + ss < 6, "ETA %02d:%02d at step %lld counts the phase: %s", mm, ss, at, line);
            if (at == 1) CHECK(strstr(line, "ETA --:--") != NULL, "an ETA from one step: %s", line);
        }
    }
    CHECK(phase && took && order_ok, "phase line %d, time line %d, before the steps %d", phase, took, order_ok);
    CHECK(steps >= 10, "only %d step lines", steps);
    fclose(f);
    /* NULL and no output are accepted. */
    fdx_progress_phase(NULL, "x");
    fdx_progress_update(NULL, 1);
    return fdx_test_finish("test_progress");
}
