/* Every temporally blocked CUDA kernel the tuner may pick compiles with
   NVRTC for sm_90 (no GPU needed): ranks 2 and 3, orders 2-8, float and
   double, with and without first-derivative terms, each depth 1-8 on the
   first three candidate tiles (the ones auto times) where they fit a 512^3 /
   16384^2 problem; wave kernels (with and without coefficients) at depths 2
   and 4 on the first two; at depth 2 the first also with the rotated plane
   loop and the inner blocks' fast body, and in rank 2 a tile of two
   adjacent points a thread; at depth 4 the first with neighbour barriers
   and with named barriers a row, and with the session-12 words (lc, ll,
   fw where they fit).  Skipped without
   CUDA or NVRTC. */
#include "fdx_test.h"
#include "nvrtc_check.h"
#include "stencil/fdx_temporal.h"

#include <string.h>

#ifdef FDX_HAVE_CUDA
#include "backends/cuda/fdx_cuda.h"
#endif

int main(void)
{
#ifndef FDX_HAVE_CUDA
    return fdx_test_skip("test_temporal_nvrtc", "built without CUDA");
#else
    int major = 0, minor = 0, compiled = 0;
    if (fdx_nvrtc_version(&major, &minor) != FDX_OK) return fdx_test_skip("test_temporal_nvrtc", fdx_last_error());
    fdx_device_info dev;
    memset(&dev, 0, sizeof dev);
    dev.sm_count = 132;
    char seen[1536][64];
    int nseen = 0;
    for (int rank = 2; rank <= 3; rank++)
        for (int r = 1; r <= 4; r++)
            for (int dbl = 0; dbl < 4; dbl++) {
                /* dbl 2, 3: wave (coefficients at odd radii), depths 2 and 4 only */
                int wave = dbl >= 2;
                fdx_stencil_kspec ks = {dbl % 2, rank, r, wave ? FDX_UPDATE_WAVE : FDX_UPDATE_HEAT, wave && r % 2,
                                        wave ? 0 : (r + rank) % 2, 0};
                int64_t n3[3] = {rank == 3 ? 512 : 16384, rank == 3 ? 512 : 1, rank == 3 ? 512 : 16384};
                for (int k = 1; k <= FDX_TEMPORAL_MAX_K; k++) {
                    if (wave && k != 2 && k != 4) continue;
                    fdx_temporal_cfg cand[8];
                    int n = fdx_temporal_candidates(&ks, &dev, 1, n3, k, cand, wave ? 2 : 3);
                    /* Depth 2 (each kernel is a compile CI pays for; the test ran
                       into ctest's 600 s beside other jobs): the first tile also
                       with the rotated plane loop and the inner blocks' fast body
                       together ("uN fp": both constructs in one kernel). */
                    if (k == 2) {
                        if (n > 0 && n < 8) cand[n] = cand[0], cand[n].un = 2 * r + 1, cand[n].fp = 1, n++;
                        /* rank 2: two adjacent points a thread (ax) */
                        fdx_temporal_cfg a2 = cand[0];
                        a2.tx = 128, a2.nq = 2, a2.ax = 1, a2.un = 0, a2.fp = 0;
                        if (rank == 2 && n < 8 && fdx_temporal_fits(&ks, &a2, 1, n3)) cand[n++] = a2;
                    }
                    /* Depth 4: the first tile with neighbour barriers (nb,
                       mbarrier PTX) and named barriers a row (nr; session 11). */
                    for (int sync = 0; k == 4 && n > 0 && sync < 4; sync++) {
                        fdx_temporal_cfg b = cand[0];
                        b.nb = sync == 0, b.nr = sync == 1, b.i32 = sync == 2; /* (and 32-bit offsets) */
                        /* (session 12: clamped loads, late loads where the loop
                           is rotated, the fast body a warp at a time) */
                        if (sync == 3) {
                            b.lc = 1, b.ll = b.un == 2 * r + 1 && !wave && b.pd <= 1;
                            b.fw = b.fp && rank == 3 && b.tx % 32 == 0;
                        }
                        if (n < 8 && fdx_temporal_fits(&ks, &b, 1, n3)) cand[n++] = b;
                    }
                    for (int i = 0; i < n; i++) {
                        char key[64], what[128], spec[32];
                        fdx_stencil_kspec_text(&ks, spec, sizeof spec);
                        snprintf(key, sizeof key, "%s%d_%dx%d_%d_%d_%d_%d_%d_%d_%d_%d_%d", spec, k, cand[i].tx, cand[i].ty, cand[i].nq,
                                 cand[i].pd, cand[i].un, cand[i].fp, cand[i].ax, cand[i].nb, cand[i].nr, cand[i].i32,
                                 cand[i].lc + 2 * cand[i].ll + 4 * cand[i].fw);
                        int dup = 0;
                        for (int j = 0; j < nseen && !dup; j++) dup = strcmp(seen[j], key) == 0;
                        if (dup || nseen == 1536) continue;
                        memcpy(seen[nseen++], key, sizeof key);
                        snprintf(what, sizeof what, "temporal_%s_k%d_%dx%d_q%d_pd%d_u%d_fp%d_ax%d_nb%d_nr%d_i%d.cu", spec, k,
                                 cand[i].tx, cand[i].ty, cand[i].nq, cand[i].pd, cand[i].un, cand[i].fp, cand[i].ax, cand[i].nb,
                                 cand[i].nr, cand[i].i32);
                        char *src = NULL;
                        CHECK_OK(fdx_temporal_generate(&ks, &cand[i], 1, &src));
                        compiled += nvrtc_check(src, what);
                    }
                }
            }
    CHECK(compiled >= 32, "only %d kernels compiled", compiled);
    printf("compiled %d temporal kernels with NVRTC %d.%d\n", compiled, major, minor);
    return fdx_test_finish("test_temporal_nvrtc");
#endif
}
