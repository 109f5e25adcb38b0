/* fake_device: an H100-like device description (132 SMs, sm_90, 50 MiB L2,
   227 KiB of opt-in shared memory a block) for tests that drive the tuner
   or the generators without a GPU. */
#ifndef FDX_TEST_FAKE_DEVICE_H
#define FDX_TEST_FAKE_DEVICE_H

#include "backends/fdx_backend.h"

#include <stdio.h>
#include <string.h>

static inline fdx_device_info fake_h100(const char *name)
{
    fdx_device_info d;
    memset(&d, 0, sizeof d);
    snprintf(d.name, sizeof d.name, "%s", name);
    d.sm_count = 132, d.cc_major = 9, d.cc_minor = 0;
    d.l2_bytes = 50u << 20, d.smem_per_block = 48 << 10, d.smem_per_block_optin = 227 << 10;
    d.max_threads_per_block = 1024, d.mem_total = (size_t)80 << 30;
    return d;
}

#endif
