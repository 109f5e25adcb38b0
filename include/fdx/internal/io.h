/* fdx io (internal, for friends: see fdx/internal/error.h): the parts of io
   that only fdx itself uses: the GIF decoder (tests, fuzzer), the bitmap
   font (captions, the letters initial field, `fdx mg` plots), the INI parser
   (simulation configs) and the progress bar (simulation runs).  Public io
   is include/fdx/io.h. */
#ifndef FDX_INTERNAL_IO_H
#define FDX_INTERNAL_IO_H

#include "fdx/internal/error.h"
#include "fdx/io.h"

#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Decodes a GIF in memory (for the tests and the fuzzer): frame count,
   size, and the pixels of the last frame as indices (may be NULL). */
FDX_HIDDEN fdx_status fdx_gif_decode(const unsigned char *data, size_t size, int *width, int *height, int *frames,
                                     fdx_image *last);

/* Draws text with the built-in 5x7 bitmap font into a byte mask of
   width x height (1 inside a letter), each font pixel `scale` cells wide,
   centred.  Fails if the text does not fit. */
FDX_HIDDEN fdx_status fdx_font_render(const char *text, int scale, unsigned char *mask, int width, int height);
FDX_HIDDEN int fdx_font_text_width(const char *text, int scale);
FDX_HIDDEN int fdx_font_height(int scale);

/* ---- INI config files -------------------------------------------------------
   "key = value" lines, '#' or ';' comments (at the start or after a blank),
   optional [section] headers, values optionally quoted ("..." or '...'; a
   value that opens a quote must close it, else an error naming file:line;
   quotes inside a value are literal).  The callback sees each pair with its
   line number; a non-OK status stops. */
typedef fdx_status (*fdx_ini_fn)(void *user, const char *section, const char *key, const char *value, int line);
FDX_HIDDEN fdx_status fdx_ini_parse(const char *text, size_t size, const char *what, fdx_ini_fn fn, void *user);

/* ---- progress -----------------------------------------------------------------
   A bar with step, rate and ETA on a terminal, plain log lines otherwise.
   The rate (and so the ETA) counts from the first step reported: work
   before it is not stepping.  fdx_progress_phase names such work before the
   first step ("compiling/tuning", "initialising"): it is shown on its own
   line, and its time is said when the next step is reported. */
typedef struct fdx_progress fdx_progress;
FDX_HIDDEN fdx_status fdx_progress_create(FILE *out, const char *what, int64_t total, fdx_progress **p);
FDX_HIDDEN void fdx_progress_phase(fdx_progress *p, const char *phase);
/* Lines only, never a redrawn bar (a log file, --progress lines). */
FDX_HIDDEN void fdx_progress_lines(fdx_progress *p);
FDX_HIDDEN void fdx_progress_update(fdx_progress *p, int64_t done);
FDX_HIDDEN void fdx_progress_finish(fdx_progress *p, int64_t done);
FDX_HIDDEN void fdx_progress_destroy(fdx_progress **p);

#ifdef __cplusplus
}
#endif
#endif
