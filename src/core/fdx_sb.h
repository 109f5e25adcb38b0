/* The library's name for the string builder (fdx_sb): declared once in
   include/fdx/internal/sb.h, which the CLI and the tests include too. */
#include "fdx/internal/sb.h"
