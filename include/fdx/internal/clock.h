/* fdx clock (internal, for friends: see fdx/internal/error.h): the one
   monotonic clock, for intervals (the library's timers, the CPU backend's
   events, the CLI's wall times). */
#ifndef FDX_INTERNAL_CLOCK_H
#define FDX_INTERNAL_CLOCK_H

#include "fdx/internal/error.h"

/* Seconds on the monotonic clock (CLOCK_MONOTONIC). */
FDX_HIDDEN double fdx_now_s(void);

#endif
