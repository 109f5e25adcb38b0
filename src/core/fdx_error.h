/* The library's name for status messages and FDX_TRY / FDX_CHECK /
   FDX_TRY_GOTO: declared once in include/fdx/internal/error.h, which the
   CLI, the tests and the fuzzers include as a friend (they do not see src/). */
#include "fdx/internal/error.h"
