/* The library's name for the JSON record writer (fdx_json): declared once in
   include/fdx/internal/json.h, which the CLI and the tests include too. */
#include "fdx/internal/json.h"
