/* fdx_version: the library's version at run time, so a program can check the
   libfdx it loaded against the headers it was compiled with. */
#include "fdx/core.h"

int fdx_version(void) { return FDX_VERSION; }
const char *fdx_version_string(void) { return FDX_VERSION_STRING; }
