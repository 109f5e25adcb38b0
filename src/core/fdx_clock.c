/* fdx_clock: the one monotonic clock (include/fdx/internal/clock.h). */
#include "fdx/internal/clock.h"

#include <time.h>

double fdx_now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
