/* The stencil engine on CUDA equals the reference loop on random inputs with
   poisoned outputs: every order in 1-3D and both precisions, all strategies,
   every vector width and some block shapes, on shapes that are not block
   multiples; pipelined marches, unaligned rows, x vectors, register caps,
   bands of block rows, the plane tile, the column's upper half from the
   stages (zh: also bit for bit against the carried column).
   Small, so it runs under compute-sanitizer.  Skipped without a device. */
#include "backends/fdx_backend.h"
#include "stencil/fdx_stencil_impl.h"
#include "test_stencil_check.h"

static void force(fdx_stencil *s, const void *cfg) { fdx_stencil_force_cfg(s, (const fdx_stencil_cfg *)cfg); }

static fdx_ctx *ctx;

/* A forced case of rank 2 or 3 and order `order` in float (p) or double:
   the update and coefficient rotate with `rot`, first-derivative terms
   with p. */
static void forced_case(int rank, int order, int p, int rot, const fdx_stencil_cfg *c, const int64_t *shape,
                        const char *what, uint64_t *seed)
{
    fdx_stencil_desc d;
    sc_desc(&d, rank, order, rot % 3, (rot / 3) % 2, p);
    fdx_stencil_kspec ks = {!p, rank, order / 2, (int)d.update, d.coef, p, d.sponge > 0};
    int64_t n3[3];
    fdx_stencil_shape3(rank, shape, n3);
    CHECK(fdx_stencil_cfg_fits(&ks, c, n3), "%s case %d (rank %d) does not fit", what, rot, rank);
    sc_case(ctx, &d, p ? FDX_FLOAT32 : FDX_FLOAT64, shape, seed, force, c);
}

/* Small, odd and even shapes (even widths allow every vector width). */
static void default_case(const fdx_stencil_desc *d, fdx_dtype dt, void *seed)
{
    int r = d->order / 2, rank = d->rank;
    int64_t small[3] = {2 * r + 1, 2 * r + 2, 2 * r + 3};
    int64_t odd[3] = {rank == 1 ? 3001 : 67 + 2 * r, rank == 2 ? 53 : 19 + r, 13 + 2 * r};
    int64_t even[3] = {rank == 1 ? 4000 : 136, rank == 2 ? 40 : 2 * r + 12, 2 * r + 6};
    sc_case(ctx, d, dt, small, seed, NULL, NULL);
    sc_case(ctx, d, dt, odd, seed, NULL, NULL);
    sc_case(ctx, d, dt, even, seed, NULL, NULL);
}

static void strategy_cases(uint64_t *seed)
{
    /* Forced configurations: every strategy, every vector width, block
       shapes, chunks (unrolled columns) that split the marching axis
       unevenly, both block orders of the unrolled column. */
    static const int blocks3[][2] = {{32, 8}, {64, 4}, {32, 16}, {128, 2}};
    for (int p = 0; p < 2; p++)
        for (int variant = 0; variant < 3; variant++)
            for (int vec = 1; vec <= (p ? 4 : 2); vec *= 2)
                for (int order = 2; order <= 8; order += 6) {
                    fdx_stencil_desc d;
                    int bi = (vec + variant + order) % 4;
                    int unroll = variant == FDX_SV_UNROLL, zf = unroll && order == 2;
                    /* Unrolled groups: a single group per block (vec 1), and
                       marches of groups whose last group is partial. */
                    int pd3 = unroll ? (vec == 1 ? 3 + vec : 2 + (order == 2)) : 1 + (order == 8);
                    int pd2 = unroll ? (order == 2 ? 4 : 8) : 1 + (order == 2);
                    fdx_stencil_cfg c3 = {.variant = variant, .tx = blocks3[bi][0], .ty = blocks3[bi][1], .vec = vec,
                                          .chunk = 3 + vec, .by = 1, .pd = pd3, .zfast = zf};
                    fdx_stencil_cfg c2 = {.variant = variant, .tx = 64 << (vec / 2), .ty = 1, .vec = vec,
                                          .chunk = 5 + order, .by = 1, .pd = pd2, .zfast = !zf};
                    fdx_dtype dt = p ? FDX_FLOAT32 : FDX_FLOAT64;
                    int r = order / 2;
                    int64_t s3[3] = {132, 11 + 2 * r, 29}, s2[2] = {1036, 45};
                    sc_desc(&d, 3, order, (vec + variant) % 3, vec == 2, variant & 1);
                    sc_case(ctx, &d, dt, s3, seed, force, &c3);
                    sc_desc(&d, 2, order, FDX_UPDATE_WAVE, variant & 1, variant == FDX_SV_UNROLL);
                    sc_case(ctx, &d, dt, s2, seed, force, &c2);
                }
}

static void row_option_cases(uint64_t *seed)
{
    /* Pipelined marches (partial last groups), unaligned rows cut from two
       aligned vectors (odd widths of every residue, the narrowest allowed),
       x neighbours as vectors, register caps; 3D, and 2D where windows do
       not apply. */
    static const struct {
        int vec, chunk, pd, pipe, win, minb, xv, order, nx, band;
    } extra[] = {
        {0, 10, 4, 1, 0, 0, 1, 8, 136, 0}, {0, 7, 2, 1, 0, 2, 0, 2, 136, 2}, {1, 9, 3, 1, 0, 0, 0, 4, 133, 0},
        {0, 4, 4, 0, 1, 0, 0, 2, 133, 3},  {0, 9, 3, 1, 1, 0, 0, 8, 134, 0}, {2, 5, 2, 0, 1, 3, 0, 4, 135, 0},
        {0, 8, 8, 0, 1, 0, 0, 2, 7, 0},    {0, 6, 3, 0, 0, 4, 1, 6, 140, 0}, {0, 2, 2, 0, 0, 0, 1, 4, 136, 3},
    };
    for (size_t i = 0; i < sizeof extra / sizeof *extra; i++)
        for (int p = 0; p < 2; p++) {
            fdx_dtype dt = p ? FDX_FLOAT32 : FDX_FLOAT64;
            int widest = p ? 4 : 2, vec = extra[i].vec ? extra[i].vec : widest, r = extra[i].order / 2;
            fdx_stencil_cfg c = {.variant = FDX_SV_UNROLL, .tx = 32, .ty = 4, .vec = vec > widest ? widest : vec,
                                 .chunk = extra[i].chunk, .by = 1, .pd = extra[i].pd, .pipe = extra[i].pipe,
                                 .win = extra[i].win, .minb = extra[i].minb, .xv = extra[i].xv,
                                 .band = extra[i].band};
            fdx_stencil_desc d;
            int64_t s3[3] = {extra[i].nx < 2 * r + 1 ? 2 * r + 1 : extra[i].nx, 11 + 2 * r, 23 + (int)i};
            sc_desc(&d, 3, extra[i].order, (int)(i + p) % 3, (int)i % 2, p);
            /* A forced configuration that does not fit would silently run
               the default. */
            fdx_stencil_kspec ks = {!p, 3, r, (int)d.update, d.coef, p, d.sponge > 0};
            CHECK(fdx_stencil_cfg_fits(&ks, &c, s3), "extra case %zu does not fit", i);
            sc_case(ctx, &d, dt, s3, seed, force, &c);
            if (c.win) continue;
            int64_t s2[2] = {extra[i].nx * 4, 41 + (int)i};
            c.tx = 128, c.ty = 1;
            sc_desc(&d, 2, extra[i].order, FDX_UPDATE_WAVE, p, (int)i % 2);
            ks = (fdx_stencil_kspec){!p, 2, r, FDX_UPDATE_WAVE, p, (int)i % 2, d.sponge > 0};
            CHECK(fdx_stencil_cfg_fits(&ks, &c, (int64_t[3]){s2[0], 1, s2[1]}), "extra 2D case %zu does not fit", i);
            sc_case(ctx, &d, dt, s2, seed, force, &c);
        }
}

static void tall_block_cases(uint64_t *seed)
{
    /* Blocks 16 threads wide and 16 or 32 rows tall (forced only: round 4's
       tuner tried them on the 25-point and they lost), partial in x and y,
       one banded. */
    for (int p = 0; p < 2; p++)
        for (int t = 0; t < 2; t++) {
            fdx_dtype dt = p ? FDX_FLOAT32 : FDX_FLOAT64;
            fdx_stencil_cfg c = {.variant = FDX_SV_UNROLL, .tx = 16, .ty = 16 << t, .vec = p ? 4 : 2, .chunk = 4,
                                 .by = 1, .pd = 4, .xv = 1, .band = t ? 2 : 0};
            fdx_stencil_desc d;
            int64_t s3[3] = {136, 83, 19};
            sc_desc(&d, 3, 8, t + p, p, 0);
            fdx_stencil_kspec ks = {!p, 3, 4, (int)d.update, d.coef, 0, d.sponge > 0};
            CHECK(fdx_stencil_cfg_fits(&ks, &c, s3), "tall case %d/%d does not fit", p, t);
            sc_case(ctx, &d, dt, s3, seed, force, &c);
        }
}

static void rows_cases(uint64_t *seed)
{
    /* Several rows a thread (2, 3, 4; every vector width, x vectors,
       bands, a pipelined march), the y extent's interior no
       multiple of a block's rows, so the last block row is partial and its
       rows past the array are clamped: the 25-point tuner candidates and
       the 7-point and order-4 ones. */
    static const struct {
        int vec, ry, pd, chunk, pipe, win, xv, band, order, nx, ny;
    } rows[] = {
        {0, 2, 4, 4, 0, 0, 1, 2, 8, 136, 8 + 13}, {1, 2, 4, 4, 0, 0, 0, 0, 8, 133, 8 + 9},
        {1, 4, 2, 2, 0, 0, 0, 3, 8, 136, 8 + 23}, {0, 2, 2, 2, 0, 0, 1, 0, 8, 136, 8 + 7},
        {0, 3, 2, 9, 1, 0, 0, 0, 2, 136, 2 + 26}, {0, 4, 4, 4, 0, 0, 0, 0, 2, 136, 2 + 35},
        {2, 2, 3, 10, 0, 0, 1, 2, 4, 140, 4 + 15},
    };
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++)
        for (int p = 0; p < 2; p++) {
            fdx_dtype dt = p ? FDX_FLOAT32 : FDX_FLOAT64;
            int widest = p ? 4 : 2, vec = rows[i].vec ? rows[i].vec : widest, r = rows[i].order / 2;
            fdx_stencil_cfg c = {.variant = FDX_SV_UNROLL, .tx = 32, .ty = 4, .vec = vec > widest ? widest : vec,
                                 .chunk = rows[i].chunk, .by = 1, .pd = rows[i].pd, .pipe = rows[i].pipe,
                                 .win = rows[i].win, .xv = rows[i].xv, .band = rows[i].band, .ry = rows[i].ry};
            fdx_stencil_desc d;
            int64_t s3[3] = {rows[i].nx, rows[i].ny, 17 + (int)i};
            sc_desc(&d, 3, rows[i].order, (int)(i + p) % 3, (int)i % 2, p);
            fdx_stencil_kspec ks = {!p, 3, r, (int)d.update, d.coef, p, d.sponge > 0};
            CHECK(fdx_stencil_cfg_fits(&ks, &c, s3), "rows case %zu does not fit", i);
            CHECK((s3[1] - 2 * r) % (c.ty * c.ry) != 0, "rows case %zu: the last block row is not partial", i);
            sc_case(ctx, &d, dt, s3, seed, force, &c);
        }
}

static void async_cases(uint64_t *seed)
{
    /* The asynchronous march: every order, precision and vector width;
       copies of 4/8 bytes where rows are not 16-byte multiples (odd widths
       at vec 1, f32 vec 2 at 134), 1..3 planes ahead, chunks shorter than
       the planes ahead and longer than the column, tiles partial in x and
       y, the updates, coefficient, d1 and sponge rotating, one register cap. */
    static const int ashape[][2] = {{32, 8}, {16, 16}, {16, 8}, {32, 16}};
    static const int achunk[] = {3, 7, 16, 1, 40};
    int arot = 0;
    for (int order = 2; order <= 12; order += 2)
        for (int p = 0; p < 2; p++)
            for (int vec = 1; vec <= (p ? 4 : 2); vec *= 2, arot++) {
                fdx_dtype dt = p ? FDX_FLOAT32 : FDX_FLOAT64;
                int r = order / 2;
                fdx_stencil_cfg c = {.variant = FDX_SV_ASYNC, .tx = ashape[arot % 4][0], .ty = ashape[arot % 4][1],
                                     .vec = vec, .chunk = achunk[arot % 5], .by = 1, .pd = 1 + arot % 3,
                                     .minb = arot % 7 == 5 ? 2 : 0};
                int64_t s3[3] = {vec == 1 ? 133 : vec == 2 ? 134 : 136, 11 + 2 * r + arot % 5, 19 + arot % 6};
                s3[1] += s3[1] % c.ty == 0; /* a partial last block row */
                fdx_stencil_desc d;
                sc_desc(&d, 3, order, arot % 3, (arot / 3) % 2, p);
                fdx_stencil_kspec ks = {!p, 3, r, (int)d.update, d.coef, p, d.sponge > 0};
                CHECK(fdx_stencil_cfg_fits(&ks, &c, s3), "async case %d does not fit", arot);
                CHECK(s3[0] % (c.tx * vec) && s3[1] % c.ty, "async case %d: the tile is not partial", arot);
                sc_case(ctx, &d, dt, s3, seed, force, &c);
            }
}

static void async_rows_cases(uint64_t *seed)
{
    /* Round 7: the asynchronous march with 2..4 rows a thread: every order
       and precision, vector widths rotating (odd widths at vec 1: 4-byte
       copies), 1..3 planes ahead, chunks shorter than the planes ahead and
       longer than the column, tiles partial in x and y (the last block's
       rows past the array), updates / coefficient / d1 / sponge rotating,
       register caps (the tuner's lb2 / lb4). */
    static const int rshape[][2] = {{16, 8}, {32, 4}, {32, 8}};
    static const int rchunk[] = {7, 1, 40, 3};
    int rrot = 0;
    for (int order = 2; order <= 12; order += 2)
        for (int p = 0; p < 2; p++, rrot++) {
            fdx_dtype dt = p ? FDX_FLOAT32 : FDX_FLOAT64;
            int r = order / 2, vec = rrot % 3 == 2 ? 1 : p && rrot % 2 ? 4 : 2;
            fdx_stencil_cfg c = {.variant = FDX_SV_ASYNC, .tx = rshape[rrot % 3][0], .ty = rshape[rrot % 3][1],
                                 .vec = vec, .chunk = rchunk[rrot % 4], .by = 1, .pd = 1 + rrot % 3,
                                 .ry = 2 + rrot % 3, .minb = rrot % 4 == 1 ? 2 : rrot % 4 == 3 ? 4 : 0};
            int64_t s3[3] = {vec == 1 ? 133 : vec == 2 ? 134 : 136, 13 + 2 * r + rrot % 7, 18 + rrot % 5};
            s3[1] += s3[1] % (c.ty * c.ry) == 0; /* a partial last block row */
            fdx_stencil_desc d;
            sc_desc(&d, 3, order, rrot % 3, (rrot / 3) % 2, p);
            fdx_stencil_kspec ks = {!p, 3, r, (int)d.update, d.coef, p, d.sponge > 0};
            CHECK(fdx_stencil_cfg_fits(&ks, &c, s3), "async rows case %d does not fit", rrot);
            CHECK(s3[0] % (c.tx * vec) && s3[1] % (c.ty * c.ry), "async rows case %d: the tile is not partial", rrot);
            sc_case(ctx, &d, dt, s3, seed, force, &c);
        }
}

static void async_tile_cases(uint64_t *seed)
{
    /* The 25-point tuner's large async tiles (64x16 and 128x8 points; round
       7: 64x16 from 32x8 threads of two rows, capped at two blocks). */
    for (int t = 0; t < 3; t++) {
        fdx_stencil_cfg c = {.variant = FDX_SV_ASYNC, .tx = t ? 64 : 32, .ty = t ? 8 : 16, .vec = 2, .chunk = 9,
                             .by = 1, .pd = 1 + t % 2};
        if (t == 2) c.tx = 32, c.ry = 2, c.minb = 2;
        int64_t s3[3] = {200, 45, 30};
        fdx_stencil_desc d;
        sc_desc(&d, 3, 8, t, 0, 0);
        fdx_stencil_kspec ks = {1, 3, 4, (int)d.update, d.coef, 0, d.sponge > 0};
        CHECK(fdx_stencil_cfg_fits(&ks, &c, s3), "large async tile %d does not fit", t);
        sc_case(ctx, &d, FDX_FLOAT64, s3, seed, force, &c);
    }
}

/* An asynchronous march's rows, then its planes ahead, fewer until its
   stages fit the shared memory and its copies the slots a thread. */
static void shrink_to_fit(const fdx_stencil_kspec *ks, fdx_stencil_cfg *c)
{
    for (;;) {
        fdx_stencil_async_geom g;
        fdx_stencil_async_geom_of(ks, c, &g);
        if (g.bytes <= FDX_STENCIL_MAX_ASYNC_SMEM && g.per_thread <= FDX_STENCIL_MAX_ASYNC_SLOTS) return;
        if (c->ry > 1) c->ry--;
        else if (c->pd > 1) c->pd--;
        else return;
    }
}

static void zs_cases(uint64_t *seed)
{
    /* Round 8: the column from the stages (zs): every order, precision and
       vector width (odd widths at vec 1), 1..3 rows a thread, 1..2 planes
       ahead, chunks shorter than the 2r + 1 + pd stages and longer than the
       column, tiles partial in x and y, updates / coefficient / d1 / sponge
       rotating, one register cap.  Rows, then planes ahead, shrink where the
       stages would not fit the shared memory (radius 6 f64). */
    static const int zshape[][2] = {{16, 8}, {16, 4}, {32, 4}, {32, 8}};
    static const int zchunk[] = {3, 1, 40, 7, 2};
    int zrot = 0;
    for (int order = 2; order <= 12; order += 2)
        for (int p = 0; p < 2; p++)
            for (int vec = 1; vec <= (p ? 4 : 2); vec *= 2, zrot++) {
                fdx_dtype dt = p ? FDX_FLOAT32 : FDX_FLOAT64;
                int r = order / 2;
                fdx_stencil_cfg c = {.variant = FDX_SV_ASYNC, .tx = zshape[zrot % 4][0], .ty = zshape[zrot % 4][1],
                                     .vec = vec, .chunk = zchunk[zrot % 5], .by = 1, .pd = 1 + zrot % 2,
                                     .ry = 1 + zrot % 3, .minb = zrot % 7 == 4 ? 2 : 0, .zs = 1};
                fdx_stencil_desc d;
                sc_desc(&d, 3, order, zrot % 3, (zrot / 3) % 2, p);
                fdx_stencil_kspec ks = {!p, 3, r, (int)d.update, d.coef, p, d.sponge > 0};
                int64_t s3[3] = {vec == 1 ? 133 : vec == 2 ? 134 : 136, 12 + 2 * r + zrot % 7, 17 + zrot % 6};
                shrink_to_fit(&ks, &c);
                s3[1] += s3[1] % (c.ty * fdx_stencil_rows(&c)) == 0; /* a partial last block row */
                CHECK(fdx_stencil_cfg_fits(&ks, &c, s3), "zs case %d does not fit", zrot);
                CHECK(s3[0] % (c.tx * vec) && s3[1] % (c.ty * fdx_stencil_rows(&c)),
                      "zs case %d: the tile is not partial", zrot);
                sc_case(ctx, &d, dt, s3, seed, force, &c);
            }
    /* The 25-point tuner's zs tiles: 64x16 points (32x8 threads, two rows),
       32x16 (vec 1, two rows), 64x8 (one row), chunks 9 and 2. */
    for (int t = 0; t < 3; t++) {
        fdx_stencil_cfg c = {.variant = FDX_SV_ASYNC, .tx = 32, .ty = 8, .vec = t == 1 ? 1 : 2, .chunk = t ? 9 : 2,
                             .by = 1, .pd = 2, .ry = t == 2 ? 0 : 2, .zs = 1};
        int64_t s3[3] = {200, 45, 30};
        fdx_stencil_desc d;
        sc_desc(&d, 3, 8, t, t == 1, 0);
        fdx_stencil_kspec ks = {1, 3, 4, (int)d.update, d.coef, 0, d.sponge > 0};
        CHECK(fdx_stencil_cfg_fits(&ks, &c, s3), "zs tile %d does not fit", t);
        sc_case(ctx, &d, FDX_FLOAT64, s3, seed, force, &c);
    }
}

static void win_cases(uint64_t *seed)
{
    /* Session 7: the asynchronous march on rows not aligned to its vector
       (win: copies of one value, lanes of whole vectors from the tile):
       every order, precision and update, vec 2 and 4, widths of every
       residue (odd ones first), 1..3 planes ahead, 1..2 rows a thread,
       chunks shorter than the planes ahead and longer than the column,
       tiles partial in x and y, coefficient / d1 / sponge rotating. */
    static const int wchunk[] = {7, 1, 40, 3, 16};
    int wrot = 0;
    for (int order = 2; order <= 12; order += 2)
        for (int p = 0; p < 2; p++)
            for (int vec = 2; vec <= (p ? 4 : 2); vec *= 2, wrot++) {
                int r = order / 2;
                fdx_stencil_cfg c = {.variant = FDX_SV_ASYNC, .tx = 64 / vec, .ty = vec == 4 ? 16 : 8, .vec = vec,
                                     .chunk = wchunk[wrot % 5], .by = 1, .pd = 1 + wrot % 3, .win = 1,
                                     .ry = wrot % 4 == 2 && vec == 2 ? 2 : 0};
                int64_t s3[3] = {131 + wrot % 4, 12 + 2 * r + wrot % 7, 17 + wrot % 6};
                if (s3[0] % vec == 0) s3[0]++;
                s3[1] += s3[1] % (c.ty * fdx_stencil_rows(&c)) == 0; /* a partial last block row */
                forced_case(3, order, p, wrot, &c, s3, "win async", seed);
            }
}

static void plane_cases(uint64_t *seed)
{
    static const int wchunk[] = {7, 1, 40, 3, 16};
    /* Session 8: the plane tile (centres stored from the columns, the halo
       by cp.async): every order, precision and update, vec 1 (odd widths)
       and the widest vector, the tuner's tiles (32x16 and 64x8 threads),
       1..3 rows a thread, 1..3 planes ahead, register caps, chunks shorter
       than the planes ahead and longer than the column, tiles partial in x
       and y, coefficient / d1 / sponge rotating; orders 6-12 also in rank 2. */
    int prot = 0;
    for (int order = 2; order <= 12; order += 2)
        for (int p = 0; p < 2; p++)
            for (int wide = 0; wide < 2; wide++, prot++) {
                int r = order / 2, vec = wide ? (p ? 4 : 2) : 1;
                fdx_stencil_cfg c = {.variant = FDX_SV_PLANE, .tx = (prot / 2) % 2 ? 64 / vec : 32 / vec,
                                     .ty = (prot / 2) % 2 ? 8 : 16, .vec = vec, .chunk = wchunk[prot % 5], .by = 1,
                                     .pd = 1 + prot % 3, .ry = 1 + prot % 3, .minb = prot % 4 == 1 ? 2 : 0};
                int64_t s3[3] = {vec * (40 + prot % 7) + (vec == 1 ? 91 : 0), 20 + 2 * r + prot % 9, 17 + prot % 6};
                s3[1] += s3[1] % (c.ty * fdx_stencil_rows(&c)) == 0; /* a partial last block row */
                forced_case(3, order, p, prot, &c, s3, "plane", seed);
                /* Rank 2: one row a block (128 or 256 threads), orders 6-12. */
                if (order < 6) continue;
                c.tx = (prot / 2) % 2 ? 128 : 256, c.ty = 1, c.ry = 0;
                int64_t s2[2] = {c.tx * vec + 1 + (vec == 1 ? 2 * r + prot % 5 : 0) + (vec > 1 ? vec - 1 : 0), 13 + 2 * r};
                if (s2[0] % vec) s2[0] += vec - s2[0] % vec;
                forced_case(2, order, p, prot, &c, s2, "plane", seed);
            }
}

/* Session 10: the asynchronous march in rank 2 (one row a block marching
   in y): every order, precision and update at the widest vector, aligned
   rows and odd widths (win: widths of every residue), rows of 64..256
   threads, partial last blocks, 1..3 planes ahead, chunks shorter than the
   planes ahead and longer than the column, zh on some, coefficient / d1 /
   sponge rotating. */
static void async2_cases(uint64_t *seed)
{
    static const int chunk[] = {7, 1, 40, 3, 16};
    int rot = 0;
    for (int order = 2; order <= 12; order += 2)
        for (int p = 0; p < 2; p++)
            for (int win = 0; win < 2; win++, rot++) {
                int r = order / 2, vec = p ? 4 : 2;
                fdx_stencil_cfg c = {.variant = FDX_SV_ASYNC, .tx = 64 << rot % 3, .ty = 1, .vec = vec,
                                     .chunk = chunk[rot % 5], .by = 1, .pd = 1 + rot % 3, .win = win, .zh = rot % 4 == 3};
                int64_t s2[2] = {c.tx * vec + (win ? 1 + rot % (2 * r) : vec), 13 + 2 * r + rot % 5};
                if (win && s2[0] % vec == 0) s2[0]++;
                forced_case(2, order, p, rot, &c, s2, "async rank 2", seed);
            }
}

/* One forced configuration applied to the same random inputs, its output
   bytes into `bytes` (n of them); 0 when anything failed (reported). */
static int apply_bytes(const fdx_stencil_desc *d, fdx_dtype dt, const int64_t *shape, const fdx_stencil_cfg *c,
                       uint64_t seed, unsigned char *bytes, size_t n)
{
    fdx_stencil *s = NULL;
    fdx_array *a[4] = {NULL, NULL, NULL, NULL}; /* u, u_prev, coef, out */
    int ok = 0;
    CHECK_OK(fdx_stencil_create(ctx, d, dt, &s));
    if (!s) return 0;
    fdx_stencil_force_cfg(s, c);
    for (int i = 0; i < 4; i++) {
        if ((i == 1 && d->update != FDX_UPDATE_WAVE) || (i == 2 && !d->coef)) continue;
        CHECK_OK(fdx_array_create(ctx, dt, 3, shape, FDX_ON_HOST | FDX_ON_DEVICE, &a[i]));
        if (!a[i]) goto done;
        if (i < 3) free(sc_fill(a[i], &seed));
        if (i < 3) CHECK_OK(fdx_array_to_device(a[i]));
    }
    CHECK_OK(fdx_array_fill_device_bytes(a[3], 0xFF));
    CHECK_OK(fdx_stencil_apply(s, a[3], a[0], a[1], a[2], NULL));
    CHECK_OK(fdx_array_to_host(a[3]));
    CHECK(fdx_array_count(a[3]) * (dt == FDX_FLOAT64 ? 8 : 4) == (int64_t)n, "output of %lld values",
          (long long)fdx_array_count(a[3]));
    if (fdx_array_count(a[3]) * (dt == FDX_FLOAT64 ? 8 : 4) == (int64_t)n) memcpy(bytes, fdx_array_host(a[3]), n), ok = 1;
done:
    for (int i = 0; i < 4; i++) fdx_array_destroy(&a[i]);
    fdx_stencil_destroy(&s);
    return ok;
}

/* run 0: only checks that every case and its carried twin fit (on the
   host, so a case that cannot run is caught without a device).  ys 1: the
   same cases with 2..4 rows a thread sharing their y rows (session 10: ys,
   the column carried) instead of zh, each bit for bit against its twin
   without ys.  b2 1: the zh cases two or three planes ahead with a barrier
   every second plane (session 10), each bit for bit against its twin with
   a barrier every plane.  uz 1: the zh cases (every third with the
   column carried, every fourth also with b2) with the plane loop unrolled
   by the ring's period (session 11), each bit for bit against its rolled
   twin.  tm 1: the zh cases (every third with the column carried, every
   second unrolled) with the tile rows copied by tensor copies (session 13;
   sm_90 only; rows of 16-byte multiples, no win), each bit for bit against
   its twin with cp.async copies. */
static int twins_fit; /* cases that fit (counted for tm, which skips the others) */
static void twin_cases(uint64_t *seed, int run, int ys, int b2, int uz, int tm)
{
    /* Session 9: the column's upper half from the stages (zh): every order,
       precision and vector width (odd widths at vec 1; unaligned rows at
       the wider vectors with win), 1..3 rows a thread, 1..3 planes ahead,
       chunks shorter than the planes ahead and longer than the column,
       tiles partial in x and y, updates / coefficient / d1 / sponge
       rotating, register caps: each against the reference loop, and bit for
       bit against the same configuration carrying its whole column (the
       same sums in the same order).  Unaligned rows take the tuner's win
       tiles (64x8 / 64x16 points): their copies of one value would not fit
       the copy slots of a narrower block. */
    static const int hshape[][2] = {{16, 8}, {32, 8}, {16, 16}, {32, 4}};
    static const int hchunk[] = {5, 1, 40, 7, 2};
    int hrot = 0;
    for (int order = 2; order <= 12; order += 2)
        for (int p = 0; p < 2; p++)
            for (int vec = 1; vec <= (p ? 4 : 2); vec *= 2, hrot++) {
                /* ys: unaligned rows at vec 2 only (the tuner's 32x8 threads, two rows: copies of one
                   value fill the slots; at vec 4 two rows would not fit them) */
                int r = order / 2, win = vec > 1 && hrot % 3 == 1 && !(ys && vec == 4) && !tm;
                fdx_stencil_cfg c = {.variant = FDX_SV_ASYNC, .tx = hshape[hrot % 4][0], .ty = hshape[hrot % 4][1],
                                     .vec = vec, .chunk = hchunk[hrot % 5], .by = 1, .pd = 1 + hrot % 3,
                                     .win = win, .ry = hrot % 4 == 1 ? 2 : hrot % 5 == 3 ? 3 : 0,
                                     .minb = hrot % 7 == 4 ? 2 : 0, .zh = !ys, .ys = ys};
                const char *what = tm ? "tm" : uz ? "uz" : b2 ? "b2" : ys ? "ys" : "zh";
                if (ys) c.ry = win ? 2 : 2 + hrot % 3;
                if (b2) c.b2 = 1, c.pd = 2 + hrot % 2;
                if (uz) c.uz = 1, c.zh = hrot % 3 != 2, c.b2 = hrot % 4 == 3, c.pd = c.b2 ? 2 + hrot % 2 : c.pd;
                if (tm) c.zh = hrot % 3 != 2, c.uz = hrot % 2;
                if (win) c.tx = 64 / vec, c.ty = vec == 4 ? 16 : 8;
                fdx_stencil_desc d;
                sc_desc(&d, 3, order, hrot % 3, (hrot / 3) % 2, p);
                fdx_stencil_kspec ks = {!p, 3, r, (int)d.update, d.coef, p, d.sponge > 0};
                int64_t s3[3] = {vec == 1 ? 133 : win ? 2 * c.tx * vec + 1 + hrot % (2 * r) : 2 * c.tx * vec + vec,
                                 12 + 2 * r + hrot % 7, 17 + hrot % 6};
                if (win && s3[0] % vec == 0) s3[0]++;
                if (tm && s3[0] % 4) s3[0] += 4 - s3[0] % 4; /* tm: rows of 16-byte multiples */
                if (tm && s3[0] % (c.tx * vec) == 0) s3[0] += 4;
                shrink_to_fit(&ks, &c); /* (tm after: its twin's copies must fit too) */
                c.tm = tm;
                if (tm && !fdx_stencil_cfg_fits(&ks, &c, s3)) continue; /* tm's rows padded to 128 bytes: more shared memory */
                twins_fit++;
                s3[1] += s3[1] % (c.ty * fdx_stencil_rows(&c)) == 0; /* a partial last block row */
                fdx_stencil_cfg c0 = c;
                if (tm) c0.tm = 0;
                else if (uz) c0.uz = 0;
                else if (b2) c0.b2 = 0;
                else c0.zh = 0, c0.ys = 0;
                CHECK(fdx_stencil_cfg_fits(&ks, &c, s3) && fdx_stencil_cfg_fits(&ks, &c0, s3),
                      "%s case %d (or its twin) does not fit", what, hrot);
                CHECK(s3[0] % (c.tx * vec) && s3[1] % (c.ty * fdx_stencil_rows(&c)), "%s case %d: the tile is not partial",
                      what, hrot);
                if (!run) continue;
                forced_case(3, order, p, hrot, &c, s3, what, seed);
                size_t n = (size_t)(s3[0] * s3[1] * s3[2]) * (p ? 4 : 8);
                unsigned char *with = malloc(n), *without = malloc(n);
                if (with && without && apply_bytes(&d, p ? FDX_FLOAT32 : FDX_FLOAT64, s3, &c, *seed, with, n) &&
                    apply_bytes(&d, p ? FDX_FLOAT32 : FDX_FLOAT64, s3, &c0, *seed, without, n))
                    CHECK(memcmp(with, without, n) == 0, "%s case %d (order %d, %s, vec %d): not bit for bit the "
                          "twin's result", what, hrot, order, p ? "float" : "double", vec);
                free(with), free(without);
                *seed += 7;
            }
}

int main(void)
{
    uint64_t plan = 0;
    twin_cases(&plan, 0, 0, 0, 0, 0); /* the cases fit: checked on the host too */
    twin_cases(&plan, 0, 1, 0, 0, 0);
    twin_cases(&plan, 0, 0, 1, 0, 0);
    twin_cases(&plan, 0, 0, 0, 1, 0);
    twins_fit = 0;
    twin_cases(&plan, 0, 0, 0, 0, 1);
    CHECK(twins_fit >= 20, "only %d tm twin cases fit", twins_fit);
    if (fdx_cuda_device_count() == 0)
        return fdx_test_failures ? fdx_test_finish("test_stencil_gpu") : fdx_test_skip("test_stencil_gpu", "no CUDA device");
    ctx = sc_ctx("cuda", "off");
    if (!ctx) return fdx_test_finish("test_stencil_gpu");
    uint64_t seed = 0x69e;
    /* FDX_TEST_STENCIL_NEW=1: only sessions 10-13's cases (rank-2 async, ys,
       b2, uz and tm twins), =uz only session 11's uz twins (and tm's), =tm
       only session 13's tm twins, for a short device run; the full list
       otherwise. */
    const char *only_new = getenv("FDX_TEST_STENCIL_NEW");
    if (!only_new || strcmp(only_new, "1") != 0) {
        /* Every order, rank and precision with the default configuration. */
        sc_each_desc(default_case, &seed);
        strategy_cases(&seed);
        row_option_cases(&seed);
        tall_block_cases(&seed);
        rows_cases(&seed);
        async_cases(&seed);
        async_rows_cases(&seed);
        async_tile_cases(&seed);
        zs_cases(&seed);
        win_cases(&seed);
        plane_cases(&seed);
        twin_cases(&seed, 1, 0, 0, 0, 0);
    }
    if (!only_new || (strcmp(only_new, "uz") != 0 && strcmp(only_new, "tm") != 0)) {
        async2_cases(&seed);
        twin_cases(&seed, 1, 1, 0, 0, 0);
        twin_cases(&seed, 1, 0, 1, 0, 0);
    }
    if (!only_new || strcmp(only_new, "tm") != 0) twin_cases(&seed, 1, 0, 0, 1, 0);
    /* session 13: tm's twins (rows of 16-byte multiples) on sm_90, only on
       request (FDX_TEST_STENCIL_NEW=tm) while tm is an experiment off by
       default */
    if (only_new && strcmp(only_new, "tm") == 0 && fdx_ctx_device(ctx)->cc_major >= 9) twin_cases(&seed, 1, 0, 0, 0, 1);
    fdx_ctx_destroy(&ctx);
    return fdx_test_finish("test_stencil_gpu");
}
