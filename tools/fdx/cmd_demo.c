/* fdx demo: the main job: raised letters of heat cooling into the plane (2D
   heat, insulated walls) on the best backend, as an animated GIF and a final
   PNG.  Frames are spaced quadratically in time: diffusion is fast at first. */
#include "cli.h"

#include "fdx/io.h"
#include "fdx/solvers.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *CMD = "demo";

/* One frame: field -> indexed image on the sequential map, range [0, 1]. */
static fdx_status frame(fdx_sim *sim, double *u, int scale, fdx_image *img)
{
    const int64_t *n = fdx_sim_shape(sim);
    FDX_TRY(fdx_sim_get_field(sim, u));
    return fdx_image_from_field(u, (int)n[0], (int)n[1], 0.0, 1.0, scale, img);
}

int cmd_demo(int argc, char **argv)
{
    const char *text = "fdx", *outdir = "fdx-demo", *steps_s = "500", *frames_s = "60", *size = "400x160";
    const cli_flag flags[] = {
        {"text", "STRING", "the raised letters [fdx]", &text},
        {"output", "DIR", "where the pictures go [./fdx-demo]", &outdir},
        {"steps", "N", "time steps [500]", &steps_s},
        {"frames", "N", "GIF frames [60]", &frames_s},
        {"size", "NXxNY", "grid [400x160]", &size},
        {NULL, NULL, NULL, NULL},
    };
    fdx_options *opts = NULL;
    int rc = cli_start(argc, argv, CMD, "[--text STRING] [--output DIR] [--steps N] [--frames N] [--size NXxNY]",
                       flags, &opts);
    fdx_sim_config *cfg = NULL;
    fdx_ctx *ctx = NULL;
    fdx_sim *sim = NULL;
    fdx_gif *gif = NULL;
    fdx_image img = {0}, rgb = {0};
    double *u = NULL;
    if (rc >= 0) goto done;
    long steps, frames;
    fdx_status st;
    int rank2;
    int64_t n2[2];
    if ((st = cli_parse_shape(size, 2, 2, 1, &rank2, n2)) != FDX_OK || /* the demo is 2D: say so first */
        (st = cli_parse_int("--steps", steps_s, 1, 1000000, &steps)) != FDX_OK ||
        (st = cli_parse_int("--frames", frames_s, 2, 1000, &frames)) != FDX_OK ||
        (st = fdx_sim_config_create(FDX_SIM_HEAT, &cfg)) != FDX_OK ||
        (st = fdx_sim_config_set(cfg, "size", size)) != FDX_OK || (st = fdx_sim_config_set(cfg, "text", text)) != FDX_OK ||
        (st = fdx_sim_config_set(cfg, "steps", steps_s)) != FDX_OK) {
        rc = cli_usage_error(CMD, "%s", fdx_last_error());
        goto done;
    }
    if (!text[0] || strlen(text) > 24) {
        rc = cli_usage_error(CMD, "--text must have 1 to 24 characters");
        goto done;
    }
    /* The demo's grid is small: one CPU thread steps it faster than two
       meeting at a barrier every step (unless --threads says otherwise). */
    const char *threads = fdx_options_get(opts, "threads");
    if (threads && strcmp(threads, "0") == 0) fdx_options_set(opts, "threads", "1");
    /* The output directory is checked before anything runs: not a file, a
       FIFO or a device, creatable, and not another run's (the demo's own
       demo.gif / demo.png are replaced). */
    if ((st = fdx_sim_check_output(outdir, NULL, 0)) != FDX_OK) {
        rc = cli_fail(CMD, st);
        goto done;
    }
    if ((st = fdx_ctx_create(opts, &ctx)) != FDX_OK || (st = fdx_sim_create(ctx, cfg, &sim)) != FDX_OK) {
        rc = cli_fail(CMD, st);
        goto done;
    }
    const int64_t *n = fdx_sim_shape(sim);
    if (fdx_sim_rank(sim) != 2) {
        rc = cli_usage_error(CMD, "--size must be 2D (NXxNY)");
        goto done;
    }
    int scale = n[0] >= 800 ? 1 : (int)(800 / n[0]);
    char gif_path[600], png_path[600];
    snprintf(gif_path, sizeof gif_path, "%s/demo.gif", outdir);
    snprintf(png_path, sizeof png_path, "%s/demo.png", outdir);
    unsigned char pal[768];
    fdx_cmap_palette(FDX_CMAP_SEQUENTIAL, pal);
    u = malloc((size_t)n[0] * (size_t)n[1] * sizeof(double));
    if (!u) {
        rc = cli_fail(CMD, fdx_fail(FDX_ERR_NOMEM, "no memory for the field"));
        goto done;
    }
    if (fdx_dir_prepare(outdir) != FDX_OK) {
        rc = cli_usage_error(CMD, "--output: %s", fdx_last_error());
        goto done;
    }
    printf("fdx demo: \"%s\" cooling on a %lldx%lld grid, %ld steps, %s (%s)\n", text, (long long)n[0],
           (long long)n[1], steps, fdx_backend_kind_name(fdx_ctx_backend(ctx)), fdx_ctx_device_name(ctx));
    fflush(stdout);
    double t0 = fdx_now_s(), compute = 0;
    FDX_TRY_GOTO(st, frame(sim, u, scale, &img), fail);
    FDX_TRY_GOTO(st, fdx_gif_open(gif_path, img.width, img.height, pal, 6, &gif), fail);
    /* Hold the letters a moment before they melt. */
    for (int k = 0; k < 8; k++) FDX_TRY_GOTO(st, fdx_gif_add(gif, &img), fail);
    fdx_image_free(&img);
    for (long f = 1; f < frames; f++) {
        double q = (double)f / (double)(frames - 1);
        long target = (long)llround((double)steps * q * q);
        double c0 = fdx_now_s();
        while (fdx_sim_steps_done(sim) < target) FDX_TRY_GOTO(st, fdx_sim_step(sim), fail);
        FDX_TRY_GOTO(st, frame(sim, u, scale, &img), fail);
        compute += fdx_now_s() - c0;
        FDX_TRY_GOTO(st, fdx_gif_add(gif, &img), fail);
        if (f < frames - 1) fdx_image_free(&img);
    }
    FDX_TRY_GOTO(st, fdx_gif_close(&gif), fail);
    FDX_TRY_GOTO(st, fdx_image_to_rgb(&img, pal, &rgb), fail);
    FDX_TRY_GOTO(st, fdx_png_write(png_path, &rgb), fail);
    double cells = (double)n[0] * (double)n[1] * (double)steps;
    printf("  %ld steps in %.2f s of stepping (%.0f Mcells/s), %.2f s in all\n", steps, compute,
           compute > 0 ? cells / compute / 1e6 : 0.0, fdx_now_s() - t0);
    printf("  pictures: %s (animated, %ld frames) and %s (final)\n", gif_path, frames + 7, png_path);
    rc = CLI_OK;
    goto done;
fail:
    fdx_gif_abort(&gif);
    rc = cli_fail(CMD, st);
done:
    fdx_image_free(&img);
    fdx_image_free(&rgb);
    free(u);
    fdx_sim_destroy(&sim);
    fdx_ctx_destroy(&ctx);
    fdx_sim_config_destroy(&cfg);
    fdx_options_destroy(&opts);
    return rc;
}
