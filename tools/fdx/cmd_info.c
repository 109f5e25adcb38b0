/* fdx info: the backends this build has, the devices found and, with
   --bandwidth, their copy bandwidth (buffers four times the last-level
   cache: fdx_copy_bandwidth's default).  Without it nothing is allocated:
   the probe of every device was most of info's time (a 1 GiB CPU copy:
   2.1 GB resident, 5 s of CPU). */
#include "cli.h"
#include "fdx/internal/json.h"

#include <stdio.h>
#include <string.h>

static const char *CMD = "info";

static int describe(fdx_options *opts, const char *backend, int device, int json, int probe)
{
    char dev[16];
    snprintf(dev, sizeof dev, "%d", device);
    fdx_ctx *ctx = NULL;
    fdx_status st;
    if ((st = fdx_options_set(opts, "backend", backend)) != FDX_OK ||
        (st = fdx_options_set(opts, "device", dev)) != FDX_OK || (st = fdx_ctx_create(opts, &ctx)) != FDX_OK)
        return cli_fail(CMD, st);
    double gbps = 0;
    if (probe && (st = fdx_copy_bandwidth(ctx, 0, 10, NULL, &gbps)) != FDX_OK) {
        fdx_ctx_destroy(&ctx);
        return cli_fail(CMD, st);
    }
    if (json) {
        fdx_json j;
        fdx_json_init(&j);
        fdx_json_begin(&j, NULL);
        fdx_json_str(&j, "backend", backend);
        fdx_json_int(&j, "device", device);
        fdx_json_str(&j, "name", fdx_ctx_device_name(ctx));
        fdx_json_num(&j, "memory_bytes", (double)fdx_ctx_memory(ctx));
        if (probe) fdx_json_num(&j, "copy_gbps", gbps);
        st = fdx_json_finish(&j, stdout);
    } else {
        printf("  %-5s %d  %-40s %8.1f GiB", backend, device, fdx_ctx_device_name(ctx),
               (double)fdx_ctx_memory(ctx) / (1 << 30));
        if (probe) printf("  copy %.1f GB/s", gbps);
        printf("\n");
    }
    fdx_ctx_destroy(&ctx);
    return st == FDX_OK ? CLI_OK : cli_fail(CMD, st);
}

int cmd_info(int argc, char **argv)
{
    const char *json = NULL, *quick = NULL, *bandwidth = NULL;
    const cli_flag flags[] = {
        {"json", NULL, "one JSON record per device", &json},
        {"bandwidth", NULL, "also measure each device's copy bandwidth (buffers 4x its last-level cache)", &bandwidth},
        {"quick", NULL, "no bandwidth probes (the default; kept for scripts)", &quick},
        {NULL, NULL, NULL, NULL},
    };
    fdx_options *opts = NULL;
    int rc = cli_start(argc, argv, CMD, "[--json] [--bandwidth | --quick]", flags, &opts);
    if (rc >= 0) goto done;
    if (quick && bandwidth) {
        rc = cli_usage_error(CMD, "--quick and --bandwidth contradict each other");
        goto done;
    }
    /* info describes every backend and device itself. */
    for (int i = 1; i < argc; i++)
        if (strncmp(argv[i], "--backend", 9) == 0 || strncmp(argv[i], "--device", 8) == 0) {
            rc = cli_usage_error(CMD, "%.9s has no effect: info lists every backend and device",
                                 argv[i][2] == 'b' ? "--backend" : "--device");
            goto done;
        }
    int ncuda = fdx_cuda_device_count();
    if (!json) {
        printf("fdx %s\nbackends: cpu%s\n", FDX_VERSION_STRING,
               fdx_built_with_cuda() ? ", cuda" : " (built without CUDA)");
        printf("devices:\n");
    }
    rc = describe(opts, "cpu", 0, json != NULL, bandwidth != NULL);
    for (int d = 0; d < ncuda && rc == CLI_OK; d++) rc = describe(opts, "cuda", d, json != NULL, bandwidth != NULL);
    if (!json && ncuda == 0) {
        const char *why = fdx_last_error();
        printf("  cuda: no device (%s)\n", why[0] ? why : "none found");
    }
done:
    fdx_options_destroy(&opts);
    return rc;
}
