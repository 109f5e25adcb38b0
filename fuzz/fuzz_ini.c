/* fuzz_ini: libFuzzer target for the INI parser and the simulation config
   keys it feeds (every value checked as it is set). */
#include "fdx.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* The first byte picks the kind, so all three key tables are reached. */
    if (size == 0) return 0;
    fdx_sim_config *c = NULL;
    if (fdx_sim_config_create((fdx_sim_kind)(data[0] % 3), &c) != FDX_OK) return 0;
    fdx_sim_config_parse(c, (const char *)data + 1, size - 1, "fuzz.ini");
    char *text = fdx_sim_config_text(c);
    /* What was accepted must read back the same way. */
    if (text) {
        fdx_sim_config *d = NULL;
        if (fdx_sim_config_create((fdx_sim_kind)(data[0] % 3), &d) == FDX_OK) {
            if (fdx_sim_config_parse(d, text, strlen(text), "round-trip") != FDX_OK) __builtin_trap();
            fdx_sim_config_destroy(&d);
        }
        free(text);
    }
    fdx_sim_config_destroy(&c);
    return 0;
}
