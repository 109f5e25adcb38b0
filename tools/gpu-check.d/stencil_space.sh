# Issue 22: the random-stencil suite (fdx bench stencil --suite random, COUNT
# cases, default 100: 2D/3D, orders 2-12, laplacian/heat/wave, float/double,
# 32^3-1024^3 points, odd extents), tuned as a user's first run would be
# (a fresh cache: cold compiles, budgeted tuner), then the issue's named
# targets, an A/B of the worst cases of 2026-11-23 without the session-7
# candidates, and a small-grid probe.  Parts (each 0 to skip):
#   SS_SUITE    the suite -> <date>_<gpu>_stencil-space.jsonl (distribution
#               of ratio_same_size and the five worst in the log)
#   SS_TARGETS  25-point f64 512^3, order 6 f32 700x500x400, order 12 f32
#               400^3, 7-point f64 96^3 (fdx stencil, first runs; records
#               with "suite": "stencil-targets") -> *_stencil-targets.jsonl
#   SS_AB       the worst cases again with FDX_STENCIL_WIN=0 (the candidate
#               space before session 7: no asynchronous march on odd
#               widths), own fresh cache; records with "ab": "win0" in
#               *_stencil-space-ab.jsonl; the same cases of the suite's run
#               are the "win1" arm; then the small worst cases (never
#               tuned: under 2^22 points) tuned from 2^18 points
#               (FDX_STENCIL_TUNE_MIN), records with "ab": "tunemin"
#   SS_SMALL    7-point f64 96^3 and 32^3: the default, forced smaller
#               blocks / single planes (more blocks for 132 SMs), and 20
#               steps (--steps: per-step time with launches back to back);
#               records with "suite": "stencil-small" (and "forced")
#   SS_PLANE    session 8: the plane tile (FDX_SV_PLANE) forced on order 12
#               f32 400^3 (the tuner's model tiles, pd 2, other tiles) and
#               on the 25-point f64 512^3, beside the async march each
#               picked in session 7; records with "suite": "stencil-plane"
#               and "forced" -> *_stencil-plane.jsonl
#   SS_PICK     session 8: the worst cases of session 7's suite (s7b) as a
#               first run now (fresh cache, budget 8): each case's record
#               next to its s7b record, and every candidate the first run
#               timed (the tuner's log), fastest first: is the pick the
#               fastest of plane / win / direct / smem / unroll?  Records
#               with "ab": "pick" -> *_stencil-space-pick.jsonl
#   SS_ZH       session 9: the column's upper half from the stages (zh, on by
#               default; FDX_STENCIL_ZH=0 leaves it out of the tuner): forced
#               on order 12 f32 400^3 and the 25-point f64 512^3 (carried
#               tiles beside their zh forms); then the SS_PICK cases and the
#               targets as first runs with FDX_STENCIL_ZH=0 (fresh cache),
#               each printed next to this call's SS_PICK / SS_TARGETS record
#               (zh on) with every candidate that run timed.  Records with
#               "ab": "zh0" (first runs) or "suite": "stencil-zh" and
#               "forced" -> *_stencil-zh.jsonl
#   SS_2D       session 9: 2D order 12 f32 8191^2 heat, the unrolled pick
#               against the plain marches at vec 1 (forced; records with
#               "suite": "stencil-2d" -> *_stencil-2d.jsonl)
#   SS_YS       session 10: the carried column's rows sharing their y rows
#               (ys: ry + 2r tile-row loads a plane for ry rows, not ry * 2r:
#               order 12 f32 56 -> 44-48 shared bytes a point against zh's
#               92), forced on order 12 f32 400^3, the 25-point f64 512^3,
#               order 6 f32 700x500x400 and two odd-width worst cases, each
#               beside its first-run pick and its twin without ys; then the
#               targets as first runs with FDX_STENCIL_YS=1 (the tuner's ys
#               candidates) next to SS_TARGETS' records; records with
#               "suite": "stencil-ys" and "forced", or "ab": "ys1" ->
#               *_stencil-ys.jsonl
#   SS_NCU      session 10 (default off): ncu counters of one timed launch
#               of forced order 12 f32 400^3 kernels (zh's pick, ys at vec 4
#               and vec 2, the carried 64x8 tile) and the 25-point f64 512^3
#               pick: shared-memory wavefronts, L1 / L2 / DRAM throughput,
#               instructions, issue, occupancy, registers -> stencil_ncu.csv
#               and one line each in the log
#   SS_A2       session 10: the asynchronous march in rank 2 (rows of 128 /
#               256 threads at vec 4, win on odd widths) forced on 2D order 12
#               f32 8191^2 heat beside the unrolled pick, then the suite's 2D
#               worst cases as first runs with FDX_STENCIL_ASYNC2=1 (fresh
#               cache) next to their s9c records; records with "suite":
#               "stencil-2d" / "ab": "async2" -> *_stencil-a2.jsonl
#               (SS_A2_FIRST=0: the forced lines only)
#   SS_TX       session 10: tiles 80 points wide (20 threads at vec 4) on
#               order 12 f32 400^3, whose 64-wide tiles leave 48 of the last
#               x block's 64 columns idle (7 blocks for 6.25 of work): zh at
#               80x12 and 80x16 points lb2, zh / ys two rows, the carried
#               80x8 lb3; records with "suite": "stencil-tx" -> *_stencil-ys.jsonl
#   SS_B2       session 10: a barrier every second plane (b2, one more
#               stage) on order 12 f32 400^3 (zh 16x16 vec 4 and ys two rows,
#               two and three planes ahead) and the 25-point f64 512^3 (its
#               pick, zh two rows), each beside its b2-less twin; records with
#               "suite": "stencil-b2" -> *_stencil-ys.jsonl
#   SS_UZ       session 11: the plane loop unrolled by the ring's period (uz:
#               constant stage indices, the column's names rotated, the lanes'
#               sums term by term; SASS here: order 12 f32 zh 16x16 vec 4 296
#               -> 225 instructions a plane of 4 points, the 25-point f64 pick
#               228 -> 115-161 a plane of 2 points) forced on order 12 f32
#               400^3, the 25-point f64 512^3 and order 6 f32 700x500x400, each
#               beside its rolled twin; then the targets as first runs with
#               FDX_STENCIL_UZ=1 (every async candidate unrolled) next to
#               SS_TARGETS' records (or, without them, to a run with the knob
#               0); records with "suite": "stencil-uz" and "forced", or "ab":
#               "uz1" / "uz0" -> *_stencil-uz.jsonl; the summary's "UZ" lines
#               (SS_UZ_FIRST=0: without the targets' first runs); then s11a's
#               worst 3D cases as first runs with the knob (SS_UZ_PICK=0 leaves
#               them out; SS_UZ_CASES), each next to its s11a record
#   SS_UZD      session 11 (default off): why uz gains at order 12 zh and loses
#               elsewhere (s11c): same-run forced A/B, rolled beside unrolled,
#               on rs1-038 581x525x197 f32 o8 wave (win vec 2 also capped at
#               four blocks: 64 -> 78 registers unrolled, 32 -> 24 warps; vec 4
#               win; 64x8 vec 1 lb3; win two rows zh) and rs1-018 999x885x711
#               f64 o10 wave (win vec 2, uncapped and lb3; two rows zh); then
#               ncu's WarpStateStats / SchedulerStats / Occupancy / LaunchStats
#               of one timed launch of rs1-038's win vec 2 and order 12 f32
#               400^3's zh 16x16 vec 4, each rolled and unrolled
#               -> stencil_uz_ncu.csv, one line of stall reasons each in the log
#               (SS_UZD_NCU=0: the forced lines only)
#   SS_S12      session 12 (default off): the carried column on 64x16-point
#               tiles unrolled (16x16 threads vec 4: 125 registers, no spill
#               now, two blocks of 256; 20 shared loads a plane for 4 points
#               against zh's 26), never timed before, on order 12 f32 400^3
#               and order 6 f32 700x500x400, beside zh's pick and best (same
#               run); the 25-point f64 512^3's taller tiles (carried 32x16 /
#               16x32 vec 2 unrolled, zh two rows with b2); then ncu's stall
#               reasons (WarpStateStats, SchedulerStats, Occupancy, shared
#               wavefronts and bank conflicts, L1 / L2 / DRAM throughput) of
#               one timed launch each of the order-12 and 25-point kernels
#               -> stencil_s12_ncu.csv, one line each in the log
#               (SS_S12_NCU=0: the forced lines only)
#   SS_S12B     session 12 (default off): the carried unrolled tile 80 points
#               wide (20x12 threads vec 4: 400 = 5 x 80, where 64-point tiles
#               leave 48 of 448 columns idle), rows padded to 112 floats so
#               that a quarter warp spanning two rows reads distinct banks,
#               two and three planes ahead, beside the 16x16 tile at chunks
#               97 / 130 / 194 (s12h also ran both four planes ahead, since
#               reverted: 0.715 / 0.628 against 0.730 / 0.736), on order 12 f32 400^3
#               (forced, same run); the 25-point's zh two rows at pd 2 / 3
#   SS_S12C     session 12 (default off): the carried unrolled tile beside
#               zh's on aligned float orders 8 / 10 (512^3, 512x384x320
#               heat), and for doubles at order 10 (512^3 heat: the tuner's
#               async 32x8 vec 2 lb3 spills 368 bytes at radius 5; unrolled
#               uncapped 124 registers, 16x16 vec 2 110), beside the unrolled
#               column (s12d's pick on rs1-010), forced, same run
#   SS_S13      session 13 (default off): rs1-013 (o4 heat f64 455 wide,
#               vec 1) forced with the async march (and 456 wide, with and
#               without tm); then tm (a plane's tile by one tensor copy,
#               aligned rows only) forced beside the same tiles without it
#               on order 12 f32 400^3 and the 25-point f64 512^3, and the
#               targets as first runs with FDX_STENCIL_TM=1 beside the
#               default (SS_S13_TM=0: without); records with "suite": "stencil-s13" ->
#               *_stencil-s13.jsonl; then the suite's tuned rank-3
#               order-4 cases as first runs with FDX_STENCIL_R2A=1 beside
#               the default, same call (SS_S13_AB=0: without;
#               SS_S13_CASES), records "ab": "r2a0" / "r2a1" ->
#               *_stencil-space-s13ab.jsonl
# Defaults: SS_SUITE, SS_TARGETS, SS_PICK, SS_ZH, SS_2D, SS_YS, SS_A2, SS_TX, SS_B2, SS_UZ on; SS_AB, SS_SMALL and SS_PLANE
# off (answered: win against the plain marches is timed in one first run
# now, SS_PICK shows it; 96^3 met at 1.03; the plane tile lost everywhere
# on the H100, s8a, and is tuned only with FDX_STENCIL_PLANE=1).
# STENCIL_SPACE_BUDGET=all: the exhaustive tuner instead (what later runs of
# the same case converge to), records named stencil-space-tuned.
set -u
budget=${STENCIL_SPACE_BUDGET:-}
base=$OUT/${GPU_CHECK_DATE}_${GPU_NAME}
rec=${base}_stencil-space${budget:+-tuned}.jsonl
log=$OUT/stencil-space.log
w=/tmp/fdx-ss
rm -rf $w; mkdir -p $w
t0=$(date +%s)
elapsed() { echo "  ($(( $(date +%s) - t0 )) s so far)"; }
summary() { # records file, label
  python3 - "$1" "$2" <<'PY'
import json, sys
r = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
if r:
    x = sorted(q["ratio_same_size"] for q in r)
    n = len(x)
    print(f"{sys.argv[2]}: {n} cases, ratio_same_size median {x[n // 2]:.3f}, p10 {x[n // 10]:.3f}, min {x[0]:.3f}; "
          f"ratio_to_copy median {sorted(q['ratio_to_copy'] for q in r)[n // 2]:.3f}; verified {sum(q['verified'] for q in r)}/{n}")
    for q in sorted(r, key=lambda q: q["ratio_same_size"])[:5]:
        print(f"  worst: {q['case']} {'x'.join(map(str, q['shape']))} {q['precision']} order {q['order']} {q['op']}"
              f"{'+coef' if q['coef'] else ''}: {q['ratio_same_size']:.3f} ({q['config']})")
PY
}
if [ "${SS_SUITE:-1}" = 1 ]; then
  FDX_CACHE_DIR=$w/cache FDX_LOG=info timeout "${STENCIL_SPACE_TIMEOUT:-240}" "$FDX_BIN" bench stencil --backend cuda \
    --suite random --count "${COUNT:-100}" ${budget:+--tune-budget "$budget"} --json > "$rec" 2>>"$log"
  echo "fdx bench stencil --suite random: exit $?, $(grep -c '^{' "$rec") records$(elapsed)"
  summary "$rec" random-stencil
fi
# The worst cases of 2026-11-23 (float orders 8-12 and double 8-10 on odd
# widths; the largest left out for time).
ab_cases=${SS_AB_CASES:-rs1-066,rs1-087,rs1-032,rs1-020,rs1-006,rs1-051,rs1-038,rs1-094,rs1-040,rs1-022}
if [ "${SS_AB:-0}" = 1 ]; then
  ab=${base}_stencil-space-ab.jsonl
  FDX_STENCIL_WIN=0 FDX_CACHE_DIR=$w/cache-ab timeout "${SS_AB_TIMEOUT:-90}" "$FDX_BIN" bench stencil --backend cuda \
    --suite random --count "${COUNT:-100}" --cases "$ab_cases" --json 2>>"$log" |
    sed -e 's/^{/{"ab": "win0", /' > "$ab"
  echo "A/B, FDX_STENCIL_WIN=0: exit ${PIPESTATUS[0]}, $(grep -c '^{' "$ab") records$(elapsed)"
  python3 - "$ab" "$rec" <<'PY'
import json, sys
old = {q["case"]: q for q in map(json.loads, (l for l in open(sys.argv[1]) if l.startswith("{")))}
try:
    new = {q["case"]: q for q in map(json.loads, (l for l in open(sys.argv[2]) if l.startswith("{")))}
except OSError:
    new = {}
for c, o in old.items():
    n = new.get(c)
    print(f"  {c} {'x'.join(map(str, o['shape']))} {o['precision']} o{o['order']}: win0 {o['ratio_same_size']:.3f} ({o['config']})"
          + (f" -> win1 {n['ratio_same_size']:.3f} ({n['config']})" if n else ""))
PY
fi
# The small worst cases (under 2^22 points: the default configuration, never
# tuned) with the budgeted tuner from 2^18 points (FDX_STENCIL_TUNE_MIN), own
# fresh cache; records with "ab": "tunemin" in *_stencil-space-ab.jsonl.
small_cases=${SS_SMALL_CASES:-rs1-066,rs1-022,rs1-008,rs1-025,rs1-033,rs1-091,rs1-050}
if [ "${SS_AB:-0}" = 1 ]; then
  FDX_STENCIL_TUNE_MIN=262144 FDX_CACHE_DIR=$w/cache-tm timeout "${SS_AB_TIMEOUT:-90}" "$FDX_BIN" bench stencil \
    --backend cuda --suite random --count "${COUNT:-100}" --cases "$small_cases" --json 2>>"$log" |
    sed -e 's/^{/{"ab": "tunemin", /' > $w/tm.jsonl
  echo "A/B, FDX_STENCIL_TUNE_MIN=262144: exit ${PIPESTATUS[0]}, $(grep -c '^{' $w/tm.jsonl) records$(elapsed)"
  cat $w/tm.jsonl >> "$ab"
  python3 - $w/tm.jsonl "$rec" <<'PY'
import json, sys
tm = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
try:
    new = {q["case"]: q for q in map(json.loads, (l for l in open(sys.argv[2]) if l.startswith("{")))}
except OSError:
    new = {}
for t in tm:
    n = new.get(t["case"])
    print(f"  {t['case']} {'x'.join(map(str, t['shape']))} {t['precision']} o{t['order']}: tuned {t['ratio_same_size']:.3f} ({t['config']})"
          + (f", default {n['ratio_same_size']:.3f} ({n['config']})" if n else ""))
PY
fi
# FDX_STENCIL_CFG: variant tx ty vec chunk by pd zfast pipe win minb xv band
# ry zs zh ys b2 (the tuning file's fields; chunks as the tuner's wave model picks).
forced() { # records file, forced configuration, fdx stencil's arguments
  local file=$1 cfg=$2; shift 2
  FDX_STENCIL_CFG="$cfg" FDX_CACHE_DIR=$w/cache-forced timeout 60 "$FDX_BIN" stencil --backend cuda "$@" --json 2>>"$log" |
    sed -e "s/^{/{\"suite\": \"${FORCED_SUITE:-stencil-plane}\", \"forced\": \"$cfg\", /" | tee -a "$file" |
    grep -oE '"(config)": "[^"]*"|"shape": \[[^]]*\]|"(order|ratio_same_size)": [0-9.]+|"verified": [a-z]+' | tr '\n' ' '
  echo
}
if [ "${SS_PLANE:-0}" = 1 ]; then
  pl=${base}_stencil-plane.jsonl
  for cfg in "3 16 8 4 388 16 2 0 0 0 3 0 0 0 0" "4 32 16 1 130 16 2 0 0 0 2 0 0 2 0" "4 32 16 1 65 16 2 0 0 0 3 0 0 0 0" \
             "4 32 16 1 130 16 1 0 0 0 2 0 0 2 0" "4 32 16 1 130 16 3 0 0 0 2 0 0 2 0" "4 32 16 1 97 16 2 0 0 0 2 0 0 0 0" \
             "4 64 8 1 130 16 2 0 0 0 0 0 0 2 0" "4 64 16 1 130 16 2 0 0 0 0 0 0 0 0" "4 32 8 1 130 16 2 0 0 0 0 0 0 0 0" \
             "4 16 16 2 97 16 2 0 0 0 0 0 0 0 0"; do
    forced "$pl" "$cfg" --order 12 --size 400x400x400 --precision float
  done
  for cfg in "3 32 8 2 168 16 2 0 0 0 3 0 0 0 0" "4 32 16 1 504 16 2 0 0 0 2 0 0 0 0" "4 32 16 1 252 16 2 0 0 0 0 0 0 2 0"; do
    forced "$pl" "$cfg" --order 8 --size 512x512x512 --precision double
  done
  # 2D order 12 on an odd width (the suite's 2D high orders: 0.66-0.76 with
  # the unrolled 128x1 vec 1 pd 8): that column, then plane rows of 256 / 128.
  for cfg in "2 128 1 1 8 1 8 0 0 0 0 0 0 0 0" "4 256 1 1 PL 1 2 0 0 0 0 0 0 0 0" "4 128 1 1 PL 1 2 0 0 0 0 0 0 0 0"; do
    forced "$pl" "${cfg/PL/248}" --order 12 --size 8191x8191 --precision float --op heat
  done
  elapsed
fi
# Each case of a first run next to an older record of it, and every
# candidate the first run timed (the tuner's log), fastest first.
first_runs() { # new records, old records (label's), the new run's tuner log, label
  python3 - "$@" <<'PY'
import json, re, sys
# A suite case by its name; a target (fdx stencil) by shape, order, precision.
key = lambda q: q.get("case", "stencil") if q.get("case", "stencil") != "stencil" else (tuple(q["shape"]), q["order"], q["precision"])
new = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
try:
    old = {key(q): q for q in map(json.loads, (l for l in open(sys.argv[2]) if l.startswith("{")))}
except OSError:
    old = {}
# The tuner's log: "tuning: <config> <ms> ms" lines, each case's ending with
# "stencil tuned for NXxNYxNZ: ..." (its shape names the case).
runs, cur = {}, []
for l in open(sys.argv[3]):
    m = re.search(r"tuning: (.*?)\s+([0-9.]+) ms", l)
    t = re.search(r"stencil tuned for (\d+x\d+x\d+)", l)
    if m:
        cur.append((float(m.group(2)), m.group(1)))
    elif t:
        runs[t.group(1)], cur = cur, []
for q in new:
    o = old.get(key(q))
    name = q.get("case", "stencil") if q.get("case", "stencil") != "stencil" else "target"
    print(f"  {name} {'x'.join(map(str, q['shape']))} {q['precision']} o{q['order']} {q['op']}: "
          + (f"{sys.argv[4]} {o['ratio_same_size']:.3f} ({o['config']}) -> " if o else ""), end="")
    print(f"{q['ratio_same_size']:.3f} ({q['config']}) verified {q['verified']}")
    sh = q['shape'] if len(q['shape']) == 3 else [q['shape'][0], 1, q['shape'][1]]  # the log's (nx, 1, ny) in 2D
    g = runs.get('x'.join(map(str, sh)))
    if g:
        print("    timed: " + "; ".join(f"{ms:.3f} {c}" for ms, c in sorted(g)))
PY
}
# Suite cases as first runs with one knob set (fresh cache $w/cache-<name>):
# records (with "ab": label) into $w/<name>.jsonl and the records file, the
# tuner's log into $w/<name>.log and the section's log.
case_runs() { # KNOB=value, label, name, cases, records file
  env "$1" FDX_LOG=info FDX_CACHE_DIR=$w/cache-$3 timeout "${SS_PICK_TIMEOUT:-90}" "$FDX_BIN" bench stencil \
    --backend cuda --suite random --count "${COUNT:-100}" --cases "$4" --json 2>$w/$3.log |
    sed -e "s/^{/{\"ab\": \"$2\", /" > $w/$3.jsonl
  echo "first runs with $1: exit ${PIPESTATUS[0]}, $(grep -c '^{' $w/$3.jsonl) records$(elapsed)"
  cat $w/$3.jsonl >> "$5"
  cat $w/$3.log >> "$log"
}
# The three large targets as first runs with one knob set (fresh cache
# $w/cache-<name>): records (with "ab": label) into $w/<name>.jsonl and the
# records file, the tuner's log into $w/<name>.log and the section's log.
target_runs() { # KNOB=value, label, name, records file
  : > $w/$3.log
  for args in "--order 8 --size 512x512x512 --precision double" \
              "--order 6 --size 700x500x400 --precision float" \
              "--order 12 --size 400x400x400 --precision float"; do
    env "$1" FDX_LOG=info FDX_CACHE_DIR=$w/cache-$3 timeout 60 "$FDX_BIN" stencil --backend cuda $args --json \
      2>>$w/$3.log | sed -e "s/^{/{\"suite\": \"stencil-targets\", \"ab\": \"$2\", /" >> $w/$3.jsonl
  done
  cat $w/$3.jsonl >> "$4"
  cat $w/$3.log >> "$log"
}
# The worst cases of session 7's suite (s7b) and its A/B list, two small
# ones now tuned (high orders from 2^20 points), a 2D order 12.
pick_cases=${SS_PICK_CASES:-rs1-032,rs1-066,rs1-085,rs1-020,rs1-006,rs1-087,rs1-022,rs1-040,rs1-051,rs1-038,rs1-094,rs1-025,rs1-008,rs1-072}
if [ "${SS_PICK:-1}" = 1 ]; then
  pk=${base}_stencil-space-pick.jsonl
  FDX_LOG=info FDX_CACHE_DIR=$w/cache-pick timeout "${SS_PICK_TIMEOUT:-90}" "$FDX_BIN" bench stencil --backend cuda \
    --suite random --count "${COUNT:-100}" --cases "$pick_cases" --json 2>$w/pick.log |
    sed -e 's/^{/{"ab": "pick", /' > "$pk"
  echo "first runs of the worst cases: exit ${PIPESTATUS[0]}, $(grep -c '^{' "$pk") records$(elapsed)"
  cat $w/pick.log >> "$log"
  first_runs "$pk" bench/results/2026-11-24_NVIDIA-H100-80GB-HBM3_stencil-space-s7b.jsonl $w/pick.log s7b
fi
if [ "${SS_TARGETS:-1}" = 1 ]; then
  tg=${base}_stencil-targets.jsonl
  for args in "--order 8 --size 512x512x512 --precision double" \
              "--order 6 --size 700x500x400 --precision float" \
              "--order 12 --size 400x400x400 --precision float" \
              "--order 2 --size 96x96x96 --precision double"; do
    FDX_LOG=info FDX_CACHE_DIR=$w/cache timeout 60 "$FDX_BIN" stencil --backend cuda $args --json 2>>$w/tg.log |
      sed -e 's/^{/{"suite": "stencil-targets", /' | tee -a "$tg" |
      grep -oE '"(config)": "[^"]*"|"shape": \[[^]]*\]|"(order|ratio_same_size|ratio_to_copy)": [0-9.]+|"verified": [a-z]+' | tr '\n' ' '
    echo
  done
  cat $w/tg.log >> "$log"
  elapsed
fi
if [ "${SS_ZH:-1}" = 1 ]; then
  zf=${base}_stencil-zh.jsonl
  # Forced, order 12 f32 400^3: the first run's pick (64x8 points lb3), its
  # zh twin, 64x16 points from 16x16 threads (zh: 95 registers, two blocks;
  # carried: one), vec 2 64x8 points with and without zh, 64x16 with zh lb2
  # from 32x16 threads and from 32x8 threads with two rows (shared y rows);
  # 16x16 vec 4 zh one plane ahead (8 stages, 71 KB) at three blocks.
  for cfg in "3 16 8 4 388 16 2 0 0 0 3 0 0 0 0 0" "3 16 8 4 388 16 2 0 0 0 3 0 0 0 0 1" \
             "3 16 16 4 130 16 2 0 0 0 0 0 0 0 0 1" "3 16 16 4 130 16 2 0 0 0 0 0 0 0 0 0" \
             "3 32 8 2 130 16 2 0 0 0 0 0 0 0 0 0" "3 32 8 2 130 16 2 0 0 0 0 0 0 0 0 1" \
             "3 32 16 2 130 16 2 0 0 0 2 0 0 0 0 1" "3 32 8 2 130 16 2 0 0 0 2 0 0 2 0 1" \
             "3 16 16 4 130 16 1 0 0 0 3 0 0 0 0 1"; do
    FORCED_SUITE=stencil-zh forced "$zf" "$cfg" --order 12 --size 400x400x400 --precision float
  done
  # The 25-point f64 512^3: the pick (lb3), its zh twin (ptxas here: the
  # carried one spills 260 bytes, zh none), 64x16 points two rows lb2 (zh
  # 122 registers with its shared y rows, no spills) and from 32x16 threads lb2.
  for cfg in "3 32 8 2 168 16 2 0 0 0 3 0 0 0 0 0" "3 32 8 2 168 16 2 0 0 0 3 0 0 0 0 1" \
             "3 32 8 2 252 16 2 0 0 0 2 0 0 2 0 1" "3 32 16 2 252 16 2 0 0 0 2 0 0 0 0 1"; do
    FORCED_SUITE=stencil-zh forced "$zf" "$cfg" --order 8 --size 512x512x512 --precision double
  done
  elapsed
  # First runs with FDX_STENCIL_ZH=0 (fresh cache): the SS_PICK cases, each
  # (as "zh0") next to this call's SS_PICK record (zh on) and its candidates.
  case_runs FDX_STENCIL_ZH=0 zh0 zh "$pick_cases" "$zf"
  [ -n "${pk:-}" ] && first_runs "$pk" $w/zh.jsonl $w/pick.log zh0
  # The targets as first runs without zh, next to SS_TARGETS' records.
  target_runs FDX_STENCIL_ZH=0 zh0 zht "$zf"
  [ -n "${tg:-}" ] && first_runs "$tg" $w/zht.jsonl $w/tg.log zh0
  # One summary (the section's tail is what the log shows): forced, each
  # shape's best carried and best zh line; first runs, zh1 against zh0.
  python3 - "$zf" "${pk:-/nonexistent}" "${tg:-/nonexistent}" <<'PY'
import json, sys
def load(f):
    try:
        return [json.loads(l) for l in open(f) if l.startswith("{")]
    except OSError:
        return []
zf, pk, tg = load(sys.argv[1]), load(sys.argv[2]), load(sys.argv[3])
shape = lambda q: f"{'x'.join(map(str, q['shape']))} {q['precision']} o{q['order']}"
for sh in sorted({shape(q) for q in zf if q.get("forced")}):
    for zh in (0, 1):
        c = [q for q in zf if q.get("forced") and shape(q) == sh and q["forced"].split()[15:16] == [str(zh)]]
        if c:
            b = max(c, key=lambda q: q["ratio_same_size"])
            print(f"ZH forced {sh} zh{zh}: best {b['ratio_same_size']:.3f} ({b['config']}) of {len(c)}, "
                  f"all verified {all(q['verified'] for q in c)}")
zh0 = {q["case"]: q for q in zf if q.get("ab") == "zh0" and q.get("case", "stencil") != "stencil"}
d = [(q["ratio_same_size"] - zh0[q["case"]]["ratio_same_size"], q) for q in pk if q["case"] in zh0]
if d:
    picked = sum(" zh" in q["config"] for _, q in d)
    print(f"ZH first runs: {len(d)} cases, zh1 - zh0 mean {sum(x for x, _ in d) / len(d):+.3f}, "
          f"better on {sum(x > 0.01 for x, _ in d)}, worse on {sum(x < -0.01 for x, _ in d)}, zh picked on {picked}")
key = lambda q: (tuple(q["shape"]), q["order"], q["precision"])
t0 = {key(q): q for q in zf if q.get("suite") == "stencil-targets" and q.get("ab") == "zh0"}
for q in tg:
    if key(q) in t0:
        print(f"ZH target {shape(q)}: zh0 {t0[key(q)]['ratio_same_size']:.3f} ({t0[key(q)]['config']}) -> zh1 "
              f"{q['ratio_same_size']:.3f} ({q['config']})")
PY
  elapsed
fi
# 2D high orders on odd widths (5 of s8b's 25 worst, 0.65-0.77, all the
# unrolled 128x1 vec 1 pd 8, the only kind a 2D first run times): the plain
# marches at vec 1 (x neighbours from a shared row: smem; through L1:
# direct), never measured in 2D, beside that pick.
if [ "${SS_2D:-1}" = 1 ]; then
  for cfg in "2 128 1 1 8 1 8 0 0 0 0 0 0 0 0 0" "0 128 1 1 62 1 1 0 0 0 0 0 0 0 0 0" "1 128 1 1 62 1 1 0 0 0 0 0 0 0 0 0" \
             "0 256 1 1 124 1 1 0 0 0 0 0 0 0 0 0" "1 256 1 1 124 1 1 0 0 0 0 0 0 0 0 0"; do
    FORCED_SUITE=stencil-2d forced ${base}_stencil-2d.jsonl "$cfg" --order 12 --size 8191x8191 --precision float --op heat
  done
  elapsed
fi
if [ "${SS_SMALL:-0}" = 1 ]; then
  sm=${base}_stencil-small.jsonl
  one() { # forced configuration (or -), fdx stencil's arguments
    local cfg=$1; shift
    { if [ "$cfg" = - ]; then FDX_CACHE_DIR=$w/cache timeout 30 "$FDX_BIN" stencil --backend cuda "$@" --json
      else FDX_STENCIL_CFG="$cfg" FDX_CACHE_DIR=$w/cache timeout 30 "$FDX_BIN" stencil --backend cuda "$@" --json; fi; } 2>>"$log" |
      sed -e "s/^{/{\"suite\": \"stencil-small\", \"forced\": \"$cfg\", /" | tee -a "$sm" |
      grep -oE '"shape": \[[^]]*\]|"(config)": "[^"]*"|"median": [0-9.]+|"(ratio_same_size)": [0-9.]+' | tr '\n' ' '
    echo
  }
  for n in 96 32; do
    one - --size ${n}x${n}x${n}
    # FDX_STENCIL_CFG: variant tx ty vec chunk by pd (unrolled column, one
    # group a block), then zfast pipe win minb xv band ry all 0.
    for cfg in "32 8 2 4 1 4" "32 8 2 2 1 2" "32 4 2 2 1 2" "64 4 2 1 1 1" "32 4 2 1 1 1" "16 4 2 1 1 1" "64 2 1 2 1 2"; do
      one "2 $cfg 0 0 0 0 0 0 0" --size ${n}x${n}x${n}
    done
    one - --size ${n}x${n}x${n} --op heat --steps 20
  done
  elapsed
fi
# Session 10: shared y rows for the carried column (ys, field 17).  Order 12
# f32 400^3: the pick (zh 64x16 points, 92 shared bytes a point), vec 2 two
# rows lb2 with and without ys (ptxas 122 registers, two blocks of 256; 56 /
# 76 bytes), vec 4 two rows ys (219 registers, two blocks of 128; 48 bytes)
# two and one ahead, vec 2 four rows (198, 32x4 threads; 44 bytes), 64x32
# points from 32x16 threads vec 2 two rows (122, one block of 512); last, zh
# with the same two shared rows at vec 4 (182 registers; 68 bytes a point).
if [ "${SS_YS:-1}" = 1 ]; then
  yf=${base}_stencil-ys.jsonl
  for cfg in "3 16 16 4 130 16 2 0 0 0 0 0 0 0 0 1 0" "3 32 8 2 130 16 2 0 0 0 2 0 0 2 0 0 1" \
             "3 32 8 2 130 16 2 0 0 0 2 0 0 2 0 0 0" "3 16 8 4 130 16 2 0 0 0 2 0 0 2 0 0 1" \
             "3 16 8 4 130 16 1 0 0 0 2 0 0 2 0 0 1" "3 32 4 2 130 16 2 0 0 0 2 0 0 4 0 0 1" \
             "3 32 16 2 97 16 2 0 0 0 0 0 0 2 0 0 1" "3 16 8 4 130 16 2 0 0 0 0 0 0 2 0 1 0"; do
    FORCED_SUITE=stencil-ys forced "$yf" "$cfg" --order 12 --size 400x400x400 --precision float
  done
  # The 25-point f64 512^3: zh two rows lb2 (0.879 in s9), ys two rows
  # uncapped (159 registers, one block) and lb2 (128, 144 bytes spilled),
  # four rows from 32x4 threads (246, two blocks of 128).
  for cfg in "3 32 8 2 252 16 2 0 0 0 2 0 0 2 0 1 0" "3 32 8 2 252 16 2 0 0 0 0 0 0 2 0 0 1" \
             "3 32 8 2 252 16 2 0 0 0 2 0 0 2 0 0 1" "3 32 4 2 252 16 2 0 0 0 2 0 0 4 0 0 1"; do
    FORCED_SUITE=stencil-ys forced "$yf" "$cfg" --order 8 --size 512x512x512 --precision double
  done
  # Order 6 f32 700x500x400 (the unrolled pick 0.795): async 64x8 carried,
  # 64x16 points two rows ys (121 registers) at lb3 and lb2, vec 2 two rows.
  for cfg in "2 32 8 4 2 16 2 0 0 0 0 1 0 0 0 0 0" "3 16 8 4 99 16 2 0 0 0 3 0 0 0 0 0 0" \
             "3 16 8 4 99 16 2 0 0 0 3 0 0 2 0 0 1" "3 16 8 4 99 16 2 0 0 0 2 0 0 2 0 0 1" \
             "3 32 8 2 99 16 2 0 0 0 2 0 0 2 0 0 1"; do
    FORCED_SUITE=stencil-ys forced "$yf" "$cfg" --order 6 --size 700x500x400 --precision float
  done
  # Two odd-width worst cases (s9c): the pick (win vec 2 two rows zh) and its ys twin.
  for cfg in "3 32 8 2 125 16 2 0 0 1 2 0 0 2 0 1 0" "3 32 8 2 125 16 2 0 0 1 2 0 0 2 0 0 1"; do
    FORCED_SUITE=stencil-ys forced "$yf" "$cfg" --order 12 --size 217x459x261 --precision float
  done
  for cfg in "3 32 8 2 45 16 2 0 0 1 2 0 0 2 0 1 0" "3 32 8 2 45 16 2 0 0 1 2 0 0 2 0 0 1"; do
    FORCED_SUITE=stencil-ys forced "$yf" "$cfg" --order 12 --size 383x251x233 --precision float
  done
  elapsed
  # The targets as first runs with the tuner's ys candidates (FDX_STENCIL_YS=1,
  # fresh cache), next to SS_TARGETS' records (ys off), every candidate timed.
  target_runs FDX_STENCIL_YS=1 ys1 yst "$yf"
  [ -n "${tg:-}" ] && first_runs $w/yst.jsonl "$tg" $w/yst.log ys0
  python3 - "$yf" <<'PY'
import json, sys
r = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{") and '"forced"' in l]
shape = lambda q: f"{'x'.join(map(str, q['shape']))} {q['precision']} o{q['order']}"
for sh in dict.fromkeys(shape(q) for q in r):
    c = [q for q in r if shape(q) == sh]
    for ys in (0, 1):
        d = [q for q in c if q["forced"].split()[16:17] == [str(ys)]]
        if d:
            b = max(d, key=lambda q: q["ratio_same_size"])
            print(f"YS forced {sh} ys{ys}: best {b['ratio_same_size']:.3f} ({b['config']}) of {len(d)}, "
                  f"all verified {all(q['verified'] for q in d)}")
PY
  elapsed
fi
if [ "${SS_TX:-1}" = 1 ]; then
  for cfg in "3 20 12 4 130 16 2 0 0 0 2 0 0 0 0 1 0" "3 20 16 4 97 16 2 0 0 0 2 0 0 0 0 1 0" \
             "3 20 8 4 97 16 2 0 0 0 0 0 0 2 0 1 0" "3 20 8 4 97 16 2 0 0 0 0 0 0 2 0 0 1" \
             "3 20 8 4 130 16 2 0 0 0 3 0 0 0 0 0 0" "3 16 16 4 130 16 2 0 0 0 0 0 0 0 0 1 0"; do
    FORCED_SUITE=stencil-tx forced ${base}_stencil-ys.jsonl "$cfg" --order 12 --size 400x400x400 --precision float
  done
  elapsed
fi
if [ "${SS_B2:-1}" = 1 ]; then
  for cfg in "3 16 16 4 130 16 2 0 0 0 0 0 0 0 0 1 0 1" "3 16 16 4 130 16 3 0 0 0 0 0 0 0 0 1 0 1" \
             "3 16 16 4 130 16 3 0 0 0 0 0 0 0 0 1 0 0" "3 16 8 4 130 16 3 0 0 0 0 0 0 2 0 0 1 1"; do
    FORCED_SUITE=stencil-b2 forced ${base}_stencil-ys.jsonl "$cfg" --order 12 --size 400x400x400 --precision float
  done
  for cfg in "3 32 8 2 168 16 3 0 0 0 3 0 0 0 0 0 0 1" "3 32 8 2 168 16 3 0 0 0 3 0 0 0 0 0 0 0" \
             "3 32 8 2 252 16 2 0 0 0 2 0 0 2 0 1 0 1"; do
    FORCED_SUITE=stencil-b2 forced ${base}_stencil-ys.jsonl "$cfg" --order 8 --size 512x512x512 --precision double
  done
  elapsed
fi
if [ "${SS_NCU:-0}" = 1 ]; then
  nc=$OUT/stencil_ncu.csv
  m=gpu__time_duration.sum,dram__bytes.sum,lts__t_bytes.sum,sm__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active
  m=$m,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__throughput.avg.pct_of_peak_sustained_elapsed
  m=$m,lts__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed
  m=$m,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum
  prof() { # forced configuration, fdx stencil's arguments
    local cfg=$1; shift
    echo "== $cfg $*" >> "$nc"
    FDX_STENCIL_CFG="$cfg" FDX_CACHE_DIR=$w/cache-forced timeout 100 ncu --clock-control none -k regex:fdx_stencil_kernel \
      --launch-skip 3 --launch-count 1 --metrics "$m" --csv "$FDX_BIN" stencil --backend cuda "$@" >> "$nc" 2>&1
    echo "ncu $cfg $*: exit $?"
    python3 - "$nc" <<'PY'
import csv, io, sys
t = open(sys.argv[1]).read().split("== ")[-1]
rows = [r for r in csv.reader(io.StringIO(t[t.find('"ID"'):])) if len(r) > 14] if '"ID"' in t else []
if rows:
    h, v = rows[0], {}
    for r in rows[1:]:
        v[r[h.index("Metric Name")]] = r[h.index("Metric Value")]
    print("   " + ", ".join(f"{k.split('.')[0]}{'%' if 'pct' in k else ''} {v[k]}" for k in v))
PY
  }
  for cfg in "3 16 16 4 130 16 2 0 0 0 0 0 0 0 0 1 0" "3 16 8 4 130 16 2 0 0 0 2 0 0 2 0 0 1" \
             "3 32 8 2 130 16 2 0 0 0 2 0 0 2 0 0 1" "3 16 8 4 388 16 2 0 0 0 3 0 0 0 0 0 0"; do
    prof "$cfg" --order 12 --size 400x400x400 --precision float
  done
  prof "3 32 8 2 168 16 2 0 0 0 3 0 0 0 0 0 0" --order 8 --size 512x512x512 --precision double
  elapsed
fi
if [ "${SS_A2:-1}" = 1 ]; then
  af=${base}_stencil-a2.jsonl
  for cfg in "2 128 1 1 8 1 8 0 0 0 0 0 0 0 0 0 0" "3 128 1 4 64 1 2 0 0 1 0 0 0 0 0 0 0" "3 256 1 4 128 1 2 0 0 1 0 0 0 0 0 0 0" \
             "3 64 1 4 32 1 2 0 0 1 0 0 0 0 0 0 0" "3 128 1 4 64 1 1 0 0 1 0 0 0 0 0 0 0" "3 128 1 4 64 1 2 0 0 1 0 0 0 0 0 1 0"; do
    FORCED_SUITE=stencil-2d forced "$af" "$cfg" --order 12 --size 8191x8191 --precision float --op heat
  done
  elapsed
fi
if [ "${SS_A2:-1}" = 1 ] && [ "${SS_A2_FIRST:-1}" = 1 ]; then
  af=${base}_stencil-a2.jsonl
  a2_cases=${SS_A2_CASES:-rs1-072,rs1-012,rs1-070,rs1-049}
  case_runs FDX_STENCIL_ASYNC2=1 async2 a2 "$a2_cases" "$af"
  first_runs $w/a2.jsonl bench/results/2026-11-24_NVIDIA-H100-80GB-HBM3_stencil-space-s9c.jsonl $w/a2.log s9c
fi
if [ "${SS_UZ:-1}" = 1 ]; then
  uf=${base}_stencil-uz.jsonl
  # Order 12 f32 400^3: zh 16x16 vec 4 (the first-run pick, 92 registers)
  # rolled and unrolled (128), unrolled three ahead, lb2, 16x8 threads (168
  # registers, three blocks of 128), with b2 three ahead (12 stages).
  for cfg in "3 16 16 4 130 16 2 0 0 0 0 0 0 0 0 1 0 0 0" "3 16 16 4 130 16 2 0 0 0 0 0 0 0 0 1 0 0 1" \
             "3 16 16 4 130 16 3 0 0 0 0 0 0 0 0 1 0 0 1" "3 16 16 4 130 16 2 0 0 0 2 0 0 0 0 1 0 0 1" \
             "3 16 8 4 130 16 2 0 0 0 0 0 0 0 0 1 0 0 1" "3 16 16 4 130 16 3 0 0 0 0 0 0 0 0 1 0 1 1" \
             "3 16 8 4 388 16 2 0 0 0 3 0 0 0 0 0 0 0 0" "3 16 8 4 388 16 2 0 0 0 3 0 0 0 0 0 0 0 1"; do
    FORCED_SUITE=stencil-uz forced "$uf" "$cfg" --order 12 --size 400x400x400 --precision float
  done
  # The 25-point f64 512^3: the pick (carried 32x8 vec 2 lb3: 80 registers,
  # 80 bytes spilled, 228 instructions a plane) rolled and unrolled (78, no
  # spill, 161), unrolled uncapped (126, 115), three ahead; zh lb3 unrolled;
  # zh two rows lb2 (s9's 0.877) rolled and unrolled.
  for cfg in "3 32 8 2 168 16 2 0 0 0 3 0 0 0 0 0 0 0 0" "3 32 8 2 168 16 2 0 0 0 3 0 0 0 0 0 0 0 1" \
             "3 32 8 2 168 16 2 0 0 0 0 0 0 0 0 0 0 0 1" "3 32 8 2 168 16 3 0 0 0 0 0 0 0 0 0 0 0 1" \
             "3 32 8 2 168 16 2 0 0 0 3 0 0 0 0 1 0 0 1" "3 32 8 2 252 16 2 0 0 0 2 0 0 2 0 1 0 0 0" \
             "3 32 8 2 252 16 2 0 0 0 2 0 0 2 0 1 0 0 1"; do
    FORCED_SUITE=stencil-uz forced "$uf" "$cfg" --order 8 --size 512x512x512 --precision double
  done
  # Order 6 f32 700x500x400 (the unrolled column's pick ~0.80): the async
  # march 64x8 / 64x16 points rolled and unrolled.
  for cfg in "2 32 8 4 2 16 2 0 0 0 0 1 0 0 0 0 0 0 0" "3 16 8 4 99 16 2 0 0 0 3 0 0 0 0 0 0 0 0" \
             "3 16 8 4 99 16 2 0 0 0 3 0 0 0 0 0 0 0 1" "3 16 16 4 99 16 2 0 0 0 0 0 0 0 0 1 0 0 1" \
             "3 16 16 4 99 16 2 0 0 0 0 0 0 0 0 0 0 0 1"; do
    FORCED_SUITE=stencil-uz forced "$uf" "$cfg" --order 6 --size 700x500x400 --precision float
  done
  # Order 4 on an odd width (s11a: rs1-013 455x1545x1250 f64 heat 0.641, rs1-088 f32 0.717,
  # rs1-019 f64 wave 0.774, all the unrolled column at vec 1; first runs time no async march
  # below radius 3): a 455x512x512 analogue, the unrolled pick against the async march on
  # unaligned rows (win) at vec 2 (f64) / vec 2 and 4 (f32), rolled and unrolled.
  for cfg in "2 32 8 1 8 1 8 0 0 0 0 0 0 0 0 0 0 0 0" "3 32 8 2 126 16 2 0 0 1 0 0 0 0 0 0 0 0 0" \
             "3 32 8 2 126 16 2 0 0 1 0 0 0 0 0 0 0 0 1"; do
    FORCED_SUITE=stencil-uz forced "$uf" "$cfg" --order 4 --size 455x512x512 --precision double --op heat
  done
  for cfg in "2 32 8 1 8 1 8 0 0 0 0 0 0 0 0 0 0 0 0" "3 32 8 2 126 16 2 0 0 1 0 0 0 0 0 0 0 0 1" \
             "3 16 16 4 126 16 2 0 0 1 0 0 0 0 0 0 0 0 1"; do
    FORCED_SUITE=stencil-uz forced "$uf" "$cfg" --order 4 --size 455x512x512 --precision float
  done
  elapsed
  # The targets as first runs with every async candidate unrolled, next to
  # SS_TARGETS' records of this call (or a run with the knob 0); SS_UZ_FIRST=0
  # leaves them out (the forced lines only).
  if [ "${SS_UZ_FIRST:-1}" = 1 ]; then
    target_runs FDX_STENCIL_UZ=1 uz1 uzt "$uf"
    if [ -n "${tg:-}" ]; then
      first_runs $w/uzt.jsonl "$tg" $w/uzt.log uz0
    else
      target_runs FDX_STENCIL_UZ=0 uz0 uzt0 "$uf"
      first_runs $w/uzt.jsonl $w/uzt0.jsonl $w/uzt.log uz0
    fi
  fi
  # The worst 3D cases of s11a (the baseline of this session) as first runs
  # with FDX_STENCIL_UZ=1, each next to its s11a record, every candidate timed.
  if [ "${SS_UZ_PICK:-1}" = 1 ]; then
    uz_cases=${SS_UZ_CASES:-rs1-032,rs1-020,rs1-006,rs1-095,rs1-018,rs1-087,rs1-038,rs1-027,rs1-024}
    case_runs FDX_STENCIL_UZ=1 uz1 uzc "$uz_cases" "$uf"
    first_runs $w/uzc.jsonl bench/results/2026-11-24_NVIDIA-H100-80GB-HBM3_stencil-space-s11a.jsonl $w/uzc.log s11a
  fi
  python3 - "$uf" <<'PY'
import json, sys
r = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{") and '"forced"' in l]
shape = lambda q: f"{'x'.join(map(str, q['shape']))} {q['precision']} o{q['order']}"
for sh in dict.fromkeys(shape(q) for q in r):
    c = [q for q in r if shape(q) == sh]
    for uz in (0, 1):
        d = [q for q in c if q["forced"].split()[18:19] == [str(uz)] or (uz == 0 and len(q["forced"].split()) < 19)]
        if d:
            b = max(d, key=lambda q: q["ratio_same_size"])
            print(f"UZ forced {sh} uz{uz}: best {b['ratio_same_size']:.3f} ({b['config']}) of {len(d)}, "
                  f"all verified {all(q['verified'] for q in d)}")
PY
  elapsed
fi
if [ "${SS_UZD:-0}" = 1 ]; then
  uf=${base}_stencil-uz.jsonl
  for cfg in "3 32 8 2 48 16 2 0 0 1 0 0 0 0 0 0 0 0 0" "3 32 8 2 48 16 2 0 0 1 0 0 0 0 0 0 0 0 1" \
             "3 32 8 2 48 16 2 0 0 1 4 0 0 0 0 0 0 0 1" "3 16 16 4 63 16 2 0 0 1 0 0 0 0 0 0 0 0 0" \
             "3 16 16 4 63 16 2 0 0 1 0 0 0 0 0 0 0 0 1" "3 64 8 1 63 16 2 0 0 0 3 0 0 0 0 0 0 0 0" \
             "3 64 8 1 63 16 2 0 0 0 3 0 0 0 0 0 0 0 1" "3 32 8 2 48 16 2 0 0 1 2 0 0 2 0 1 0 0 0" \
             "3 32 8 2 48 16 2 0 0 1 2 0 0 2 0 1 0 0 1"; do
    FORCED_SUITE=stencil-uzd forced "$uf" "$cfg" --order 8 --size 581x525x197 --precision float --op wave
  done
  for cfg in "3 32 8 2 701 16 2 0 0 1 0 0 0 0 0 0 0 0 0" "3 32 8 2 701 16 2 0 0 1 0 0 0 0 0 0 0 0 1" \
             "3 32 8 2 701 16 2 0 0 1 3 0 0 0 0 0 0 0 1" "3 32 8 2 701 16 2 0 0 1 2 0 0 2 0 1 0 0 0" \
             "3 32 8 2 701 16 2 0 0 1 2 0 0 2 0 1 0 0 1"; do
    FORCED_SUITE=stencil-uzd forced "$uf" "$cfg" --order 10 --size 999x885x711 --precision double --op wave
  done
  elapsed
fi
if [ "${SS_UZD:-0}" = 1 ] && [ "${SS_UZD_NCU:-1}" = 1 ]; then
  nc=$OUT/stencil_uz_ncu.csv
  uzprof() { # forced configuration, fdx stencil's arguments
    local cfg=$1; shift
    echo "== $cfg $*" >> "$nc"
    FDX_STENCIL_CFG="$cfg" FDX_CACHE_DIR=$w/cache-forced timeout 100 ncu --clock-control none -k regex:fdx_stencil_kernel \
      --launch-skip 3 --launch-count 1 --section WarpStateStats --section SchedulerStats --section Occupancy \
      --section LaunchStats --page raw --csv "$FDX_BIN" stencil --backend cuda "$@" >> "$nc" 2>&1
    echo "ncu $cfg $*: exit $?"
    python3 - "$nc" <<'PY'
import csv, io, sys
t = open(sys.argv[1]).read().split("== ")[-1]
rows = [r for r in csv.reader(io.StringIO(t[t.find('"ID"'):])) if len(r) > 14] if '"ID"' in t else []
if len(rows) >= 2:
    # the raw page: a row of metric names, (a row of units,) a row of values
    h, v = rows[0], rows[-1]
    out = []
    for n, x in zip(h, v):
        if ("issue_stalled" in n and "per_issue_active" in n) or n.startswith("launch__registers") or \
           n.startswith("sm__warps_active") or n.startswith("smsp__issue_active") or n.startswith("gpu__time_duration"):
            out.append(f"{n.replace('smsp__average_warps_issue_stalled_', '').replace('_per_issue_active.ratio', '')} {x}")
    print("   " + "; ".join(out))
PY
  }
  for cfg in "3 32 8 2 48 16 2 0 0 1 0 0 0 0 0 0 0 0 0" "3 32 8 2 48 16 2 0 0 1 0 0 0 0 0 0 0 0 1"; do
    uzprof "$cfg" --order 8 --size 581x525x197 --precision float --op wave
  done
  for cfg in "3 16 16 4 130 16 2 0 0 0 0 0 0 0 0 1 0 0 0" "3 16 16 4 130 16 2 0 0 0 0 0 0 0 0 1 0 0 1"; do
    uzprof "$cfg" --order 12 --size 400x400x400 --precision float
  done
  elapsed
fi
if [ "${SS_S12:-0}" = 1 ]; then
  sf=${base}_stencil-s12.jsonl
  # Order 12 f32 400^3: zh's pick (rolled) and best forced (pd3 uz), the
  # carried 16x16 vec 4 unrolled at pd 2 / 3 / pd 3 b2, rolled, 32x8, and
  # 20x12 (80-point rows divide 400: 64-point tiles leave 48 of 448 columns idle).
  for cfg in "3 16 16 4 130 16 2 0 0 0 0 0 0 0 0 1 0 0 0" "3 16 16 4 130 16 3 0 0 0 0 0 0 0 0 1 0 0 1" \
             "3 16 16 4 130 16 2 0 0 0 0 0 0 0 0 0 0 0 1" "3 16 16 4 130 16 3 0 0 0 0 0 0 0 0 0 0 0 1" \
             "3 16 16 4 130 16 3 0 0 0 0 0 0 0 0 0 0 1 1" "3 16 16 4 130 16 2 0 0 0 0 0 0 0 0 0 0 0 0" \
             "3 32 8 4 130 16 2 0 0 0 0 0 0 0 0 0 0 0 1" "3 20 12 4 130 16 2 0 0 0 0 0 0 0 0 0 0 0 1"; do
    FORCED_SUITE=stencil-s12 forced "$sf" "$cfg" --order 12 --size 400x400x400 --precision float
  done
  # Order 6 f32 700x500x400 (80 registers: three blocks of 256).
  for cfg in "3 16 16 4 99 16 2 0 0 0 0 0 0 0 0 0 0 0 1" "3 16 16 4 99 16 3 0 0 0 0 0 0 0 0 0 0 0 1" \
             "3 16 16 4 99 16 2 0 0 0 4 0 0 0 0 0 0 0 1"; do
    FORCED_SUITE=stencil-s12 forced "$sf" "$cfg" --order 6 --size 700x500x400 --precision float
  done
  # The 25-point f64 512^3: zh two rows lb2 (s11i's best, 0.885) rolled,
  # with b2 two ahead (8 stages: two blocks); the carried 32x16 / 16x32 vec 2 unrolled (98
  # registers, one block of 512).
  for cfg in "3 32 8 2 252 16 2 0 0 0 2 0 0 2 0 1 0 0 0" "3 32 8 2 252 16 2 0 0 0 2 0 0 2 0 1 0 1 0" \
             "3 32 16 2 252 16 2 0 0 0 0 0 0 0 0 0 0 0 1" "3 16 32 2 252 16 2 0 0 0 0 0 0 0 0 0 0 0 1"; do
    FORCED_SUITE=stencil-s12 forced "$sf" "$cfg" --order 8 --size 512x512x512 --precision double
  done
  elapsed
fi
if [ "${SS_S12:-0}" = 1 ] && [ "${SS_S12_NCU:-1}" = 1 ]; then
  nc=$OUT/stencil_s12_ncu.csv
  m=l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum
  m=$m,smsp__inst_executed.sum,l1tex__throughput.avg.pct_of_peak_sustained_active
  m=$m,lts__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed
  s12prof() { # forced configuration, fdx stencil's arguments
    local cfg=$1; shift
    echo "== $cfg $*" >> "$nc"
    FDX_STENCIL_CFG="$cfg" FDX_CACHE_DIR=$w/cache-forced timeout 100 ncu --clock-control none -k regex:fdx_stencil_kernel \
      --launch-skip 3 --launch-count 1 --section WarpStateStats --section SchedulerStats --section Occupancy \
      --section LaunchStats --metrics "$m" --page raw --csv "$FDX_BIN" stencil --backend cuda "$@" >> "$nc" 2>&1
    echo "ncu $cfg $*: exit $?"
    python3 - "$nc" <<'PY'
import csv, io, sys
t = open(sys.argv[1]).read().split("== ")[-1]
rows = [r for r in csv.reader(io.StringIO(t[t.find('"ID"'):])) if len(r) > 14] if '"ID"' in t else []
if len(rows) >= 2:
    h, v = rows[0], rows[-1]
    out = []
    for n, x in zip(h, v):
        if ("issue_stalled" in n and "per_issue_active" in n) or n.startswith("launch__registers") or \
           n.startswith("sm__warps_active") or n.startswith("smsp__issue_active") or n.startswith("gpu__time_duration") or \
           n.startswith("l1tex__") or n.startswith("lts__t") or n.startswith("dram__") or n == "smsp__inst_executed.sum":
            try:
                if float(x.replace(",", "")) == 0:
                    continue
            except ValueError:
                pass
            out.append(f"{n.replace('smsp__average_warps_issue_stalled_', '').replace('_per_issue_active.ratio', '')} {x}")
    print("   " + "; ".join(out))
PY
  }
  for cfg in "3 16 16 4 130 16 2 0 0 0 0 0 0 0 0 1 0 0 0" "3 16 16 4 130 16 3 0 0 0 0 0 0 0 0 1 0 0 1" \
             "3 16 16 4 130 16 2 0 0 0 0 0 0 0 0 0 0 0 1"; do
    s12prof "$cfg" --order 12 --size 400x400x400 --precision float
  done
  for cfg in "3 32 8 2 252 16 2 0 0 0 2 0 0 2 0 1 0 0 0" "3 32 8 2 168 16 2 0 0 0 3 0 0 0 0 0 0 0 0"; do
    s12prof "$cfg" --order 8 --size 512x512x512 --precision double
  done
  elapsed
fi
if [ "${SS_S12B:-0}" = 1 ]; then
  sf=${base}_stencil-s12.jsonl
  for cfg in "3 16 16 4 130 16 3 0 0 0 0 0 0 0 0 0 0 0 1" "3 20 12 4 130 16 3 0 0 0 0 0 0 0 0 0 0 0 1" \
             "3 20 12 4 130 16 2 0 0 0 0 0 0 0 0 0 0 0 1" "3 16 16 4 97 16 3 0 0 0 0 0 0 0 0 0 0 0 1" \
             "3 16 16 4 194 16 3 0 0 0 0 0 0 0 0 0 0 0 1" "3 20 12 4 97 16 3 0 0 0 0 0 0 0 0 0 0 0 1"; do
    FORCED_SUITE=stencil-s12b forced "$sf" "$cfg" --order 12 --size 400x400x400 --precision float
  done
  # The 25-point f64 512^3: zh two rows lb2 (0.877-0.885) two and three planes ahead (8 stages: two blocks).
  for cfg in "3 32 8 2 252 16 2 0 0 0 2 0 0 2 0 1 0 0 0" "3 32 8 2 252 16 3 0 0 0 2 0 0 2 0 1 0 0 0"; do
    FORCED_SUITE=stencil-s12b forced "$sf" "$cfg" --order 8 --size 512x512x512 --precision double
  done
  elapsed
fi
if [ "${SS_S12C:-0}" = 1 ]; then
  sf=${base}_stencil-s12.jsonl
  for cfg in "3 16 16 4 126 16 2 0 0 0 0 0 0 0 0 1 0 0 0" "3 16 16 4 126 16 2 0 0 0 0 0 0 0 0 0 0 0 1"; do
    FORCED_SUITE=stencil-s12c forced "$sf" "$cfg" --order 8 --size 512x512x512 --precision float
  done
  for cfg in "3 16 16 4 103 16 2 0 0 0 0 0 0 0 0 1 0 0 0" "3 16 16 4 103 16 2 0 0 0 0 0 0 0 0 0 0 0 1" \
             "3 16 16 4 103 16 3 0 0 0 0 0 0 0 0 0 0 0 1"; do
    FORCED_SUITE=stencil-s12c forced "$sf" "$cfg" --order 10 --size 512x384x320 --precision float --op heat
  done
  for cfg in "2 32 8 2 8 16 8 0 0 0 0 1 0 0 0 0 0 0 0" "3 32 8 2 167 16 2 0 0 0 3 0 0 0 0 0 0 0 0" \
             "3 32 8 2 167 16 2 0 0 0 0 0 0 0 0 0 0 0 1" "3 16 16 2 167 16 2 0 0 0 0 0 0 0 0 0 0 0 1" \
             "3 16 16 2 167 16 3 0 0 0 0 0 0 0 0 0 0 0 1"; do
    FORCED_SUITE=stencil-s12c forced "$sf" "$cfg" --order 10 --size 512x512x512 --precision double --op heat
  done
  elapsed
fi
if [ "${SS_S13:-0}" = 1 ]; then
  sf=${base}_stencil-s13.jsonl
  # rs1-013 (heat order 4 f64 455x1545x1250: s13b's first run 0.642 with the
  # unrolled column at vec 1, 456 wide 0.715 at vec 2): the asynchronous
  # march (no radius-2 first-run candidate has a shared tile), unrolled:
  # vec 2 on windows (4-byte copies), 64x8 and 64x16 points (two rows); vec
  # 1 (8-byte copies); at 456 wide vec 2 with cp.async and with tm.
  for cfg in "3 32 8 2 312 16 2 0 0 1 0 0 0 0 0 0 0 0 1 0"; do
    FORCED_SUITE=stencil-s13 forced "$sf" "$cfg" --order 4 --precision double --op heat --size 455x1545x1250
  done
  for cfg in "3 32 8 2 312 16 2 0 0 0 0 0 0 0 0 0 0 0 1 0" "3 32 8 2 312 16 2 0 0 0 0 0 0 0 0 0 0 0 1 1"; do
    FORCED_SUITE=stencil-s13 forced "$sf" "$cfg" --order 4 --precision double --op heat --size 456x1545x1250
  done
  elapsed
fi
# tm (one 3D tensor copy a plane since s13c's row copies, 0.454 against
# cp.async's 0.734; rows of 16-byte multiples) forced beside the same tiles
# without it: order 12 f32 400^3 (the cu pick two and three ahead, zh
# 16x16), the 25-point f64 512^3 (64x8 points lb3); then the targets as
# first runs with FDX_STENCIL_TM=1 beside the default, fresh caches, same
# call (records "ab": "tm0" / "tm1" in *_stencil-space-s13ab.jsonl);
# SS_S13_TM=0 leaves it out.
if [ "${SS_S13:-0}" = 1 ] && [ "${SS_S13_TM:-1}" = 1 ]; then
  sf=${base}_stencil-s13.jsonl
  for cfg in "3 16 16 4 130 16 3 0 0 0 0 0 0 0 0 0 0 0 1 0" "3 16 16 4 130 16 3 0 0 0 0 0 0 0 0 0 0 0 1 1" \
             "3 16 16 4 130 16 2 0 0 0 0 0 0 0 0 0 0 0 1 1" "3 16 16 4 130 16 2 0 0 0 0 0 0 0 0 1 0 0 0 1"; do
    FORCED_SUITE=stencil-s13 forced "$sf" "$cfg" --order 12 --precision float --size 400x400x400
  done
  for cfg in "3 32 8 2 168 16 2 0 0 0 3 0 0 0 0 0 0 0 0 0" "3 32 8 2 168 16 2 0 0 0 3 0 0 0 0 0 0 0 0 1"; do
    FORCED_SUITE=stencil-s13 forced "$sf" "$cfg" --order 8 --precision double --size 512x512x512
  done
  ab=${base}_stencil-space-s13ab.jsonl
  for k in 0 1; do
    for args in "--order 8 --size 512x512x512 --precision double" "--order 6 --size 700x500x400 --precision float" \
                "--order 12 --size 400x400x400 --precision float"; do
      FDX_STENCIL_TM=$k FDX_LOG=info FDX_CACHE_DIR=$w/cache-tmt$k timeout 60 "$FDX_BIN" stencil --backend cuda $args --json \
        2>>$w/tmt$k.log | sed -e "s/^{/{\"ab\": \"tm$k\", \"suite\": \"stencil-targets\", /" | tee -a "$ab" |
        grep -oE '"(config)": "[^"]*"|"shape": \[[^]]*\]|"(order|ratio_same_size)": [0-9.]+|"verified": [a-z]+' | tr '\n' ' '
      echo " (FDX_STENCIL_TM=$k)"
    done
  done
  grep -h "tuning:\|tuned for" $w/tmt1.log
  cat $w/tmt0.log $w/tmt1.log >> "$log"
  elapsed
fi
# First runs (fresh caches, budget 8) of the suite's tuned rank-3 order-4
# cases with FDX_STENCIL_R2A=1 (the asynchronous march in the first batch)
# beside the default, same call (SS_S13_AB=0: without; SS_S13_CASES), each
# with the candidates its run timed.
s13_cases=${SS_S13_CASES:-rs1-013,rs1-019,rs1-088}
if [ "${SS_S13:-0}" = 1 ] && [ "${SS_S13_AB:-1}" = 1 ]; then
  ab=${base}_stencil-space-s13ab.jsonl
  for k in 0 1; do
    FDX_STENCIL_R2A=$k FDX_LOG=info FDX_CACHE_DIR=$w/cache-r2a$k timeout 150 "$FDX_BIN" bench stencil --backend cuda \
      --suite random --count "${COUNT:-100}" --cases "$s13_cases" --json 2>$w/r2a$k.log |
      sed -e "s/^{/{\"ab\": \"r2a$k\", /" > $w/r2a$k.jsonl
    cat $w/r2a$k.jsonl >> "$ab"
    cat $w/r2a$k.log >> "$log"
  done
  first_runs $w/r2a1.jsonl $w/r2a0.jsonl $w/r2a1.log r2a0
  elapsed
fi
