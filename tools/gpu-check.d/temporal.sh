# Temporal blocking (issue 20): time steps through fdx_stencil_steps with
# explicit configurations (FDX_TEMPORAL_CFG, the A/B variants) and depths,
# each verified in the same run bit for bit against single steps.  Records
# carry "temporal" (the depth used), "ratio_to_copy" per step (one-step
# theoretical bytes over the time per step, over copy bandwidth), "order",
# "shape", "precision", "verified", "config" and "variant".  Targets
# (H100): 3D 7-point double 512^3 >= 2.0, float 512^3 >= 2.5, 2D 5-point
# float 16384^2 >= 3.0, 2D 8th-order wave float 16384^2 >= 1.5.
# Explicit configurations instead of auto: a fresh device compiles every
# kernel it times, and auto times up to 15 a case; the GPU part stops
# starting runs after TEMPORAL_BUDGET seconds (default 120: session 9's
# list, with the wave's auto in the stencil bench and in `fdx wave`, takes
# ~2 minutes; TEMPORAL_FULL=1 the session-8 A/B list), the host CPU part
# after it ~2 minutes (TEMPORAL_CPU=0 skips it).
# TEMPORAL_AUTO=1 adds auto runs of the headline cases (tuning, ~20 s each).
# Dry run on the CPU: TEMPORAL_BACKEND=cpu FDX_BIN=build/bin/fdx OUT=/tmp/t \
#   GPU_CHECK_DATE=x GPU_NAME=cpu TEMPORAL_SMALL=1 bash tools/gpu-check.d/temporal.sh
set -u
backend=${TEMPORAL_BACKEND:-cuda}
if [ "$backend" = cuda ] && ! nvidia-smi -L >/dev/null 2>&1; then
  echo "temporal: skipped: no GPU"; exit 0
fi
[ -x "${FDX_BIN:-}" ] || { echo "temporal: skipped: no fdx binary (FDX_BIN)"; exit 0; }
log=$OUT/temporal.log
rec=$OUT/${GPU_CHECK_DATE}_${GPU_NAME}_temporal.jsonl
budget=${TEMPORAL_BUDGET:-120}
steps=${TEMPORAL_STEPS:-24}
start=$SECONDS
h3d="--op heat --size 512x512x512"
h2d="--op heat --size 16384x16384 --precision float"
w2d="--op wave --size 16384x16384 --precision float --order 8"
# name|fdx stencil arguments|depth (off, auto or K)|FDX_TEMPORAL_CFG (variant; empty: the candidates' first)
# The headline cases with the variant expected best first, then the A/B
# variants (several points a thread vs one point a thread, depth, planes in flight).
if [ "${TEMPORAL_SMALL:-0}" = 1 ]; then
  cases=("heat3d-f64|--op heat --size 96x96x96 --precision double|3|"
         "heat2d-f32|--op heat --size 1024x1024 --precision float|4|"
         "wave2d-f32-o8|--op wave --size 1024x1024 --precision float --order 8|2|" "sim" "simwave" "dhalo")
  TEMPORAL_SIM_SIZE=${TEMPORAL_SIM_SIZE:-256x200} TEMPORAL_CPU_SIZE=${TEMPORAL_CPU_SIZE:-96x96x96}
  TEMPORAL_DHALO_SIZE=${TEMPORAL_DHALO_SIZE:-256x200}
elif [ "${TEMPORAL_F32X:-0}" = 3 ]; then
  # Session 12, last list.  s12j (ms a step, verified): pd1 fw 0.1475 /
  # 0.1458, pd1 lc fw 0.1517 / 0.1517, pd2 fw 0.1489, pd2 lc fw 0.1828 /
  # 0.1814, pd3 lc fw 0.1435 (2.528, once; now auto's float candidate):
  # pd3 lc fw twice more, pd3 fw, pd4 lc fw (64 registers), pd1 fw between;
  # lc's outside points now load the nearest point inside (clamped x, y),
  # not element 0 of the plane that every edge block asked for (a hot
  # line): pd1 lc fw again.
  budget=${TEMPORAL_BUDGET:-120}
  f4="heat3d-f32|$h3d --precision float|4"
  cases=("$f4|64x16 q3 pd3 u3 fp i32 lc fw" "$f4|64x16 q3 pd1 u3 fp i32 fw" "$f4|64x16 q3 pd3 u3 fp i32 fw"
         "$f4|64x16 q3 pd1 u3 fp i32 lc fw" "$f4|64x16 q3 pd4 u3 fp i32 lc fw" "$f4|64x16 q3 pd3 u3 fp i32 lc fw")
elif [ "${TEMPORAL_F32X:-0}" = 2 ]; then
  # Session 12, second list.  s12f (ms a step, verified): i32 0.1533 /
  # 0.1530, fw 0.1471 (2.468: now auto's), lc ll 0.1723, lc ll fw 0.1539 /
  # 0.1557.  SASS: lc alone cuts as much as lc ll (fast body 16.2 -> 15.4,
  # frame warps 17.9 -> 16.5), so ll's late load (a plane's last three
  # quarters to arrive, not a whole plane) is what lost: the loads' latency
  # shows, so fw with lc, with two and three planes in flight (pd2 / pd3:
  # 59-62 registers, no spill), the first three twice.
  budget=${TEMPORAL_BUDGET:-200}
  f4="heat3d-f32|$h3d --precision float|4"
  cases=("$f4|64x16 q3 pd1 u3 fp i32 fw" "$f4|64x16 q3 pd1 u3 fp i32 lc fw" "$f4|64x16 q3 pd2 u3 fp i32 fw"
         "$f4|64x16 q3 pd2 u3 fp i32 lc fw" "$f4|64x16 q3 pd3 u3 fp i32 lc fw"
         "$f4|64x16 q3 pd2 u3 fp i32 lc fw" "$f4|64x16 q3 pd1 u3 fp i32 lc fw" "$f4|64x16 q3 pd1 u3 fp i32 fw")
elif [ "${TEMPORAL_F32X:-0}" = 1 ]; then
  # Session 12 (helper tgpu): float 3D 512^3 at 2.369 (k4 64x16 q3 u3 fp
  # i32), target 2.5.  SASS (nvcc 13, sm_90) of one plane's fast body: 16.8
  # instructions a point-level, the full body (every edge block: 130 tiles
  # are one wave, so the pass waits for them) 19.4.  A/B, each forced:
  #   lc  every thread loads the next plane, the plane clamped (no test a
  #       point), ll  the load straight into the column slot level 1 freed
  #       (no copy, one register less a point): fast body 15.4
  #   fw  the fast body on every block, chosen a warp at a time (warps
  #       with frame points select on the frame alone: 16.5), so the edge
  #       blocks stop running the full body (19.4)
  # then base and all three again (noise), double k3 64x16 q2 fp with lc
  # fw (ll needs the rotated loop, which double does not take).
  budget=${TEMPORAL_BUDGET:-150}
  f4="heat3d-f32|$h3d --precision float|4"
  d3="heat3d-f64|$h3d --precision double|3"
  b="64x16 q3 pd1 u3 fp i32"
  cases=("$f4|$b" "$f4|$b lc ll" "$f4|$b fw" "$f4|$b lc ll fw" "$d3|64x16 q2 pd1 fp" "$d3|64x16 q2 pd1 fp lc fw"
         "$f4|$b lc ll fw" "$f4|$b" "$f4|64x16 q3 pd1 u3 fp lc ll fw" "$d3|64x16 q2 pd1 fp lc fw")
elif [ "${TEMPORAL_NB:-0}" = 1 ]; then
  # Session 11, fourth list.  Runs 1-3 (s11b/e/h, all verified): the
  # block's barrier is not the limit (named barriers a row 1.789-2.020,
  # mbarriers a warp 1.453-1.913, against 1.862-2.126 plain); the
  # 1024-thread float tile 64x16 q3 (one wave of whole-column blocks, chunk
  # 510) 1.93, with the rotated loop and fast body (u3 fp) 2.126-2.148 (auto
  # picks it: 2.148), pd2 2.106, chunk 255 2.148, 32x32 q3 u3 fp 2.042,
  # 64x16 q2 u3 fp 1.802, k5 fp 1.655; double k3 64x16 q2 fp 2.130-2.137
  # (auto 2.137), u3 fp 2.085.  ncu of the float winner: IPC 3.03 (issue
  # slots 73%), "not selected" the top stall, integer pipe busiest (39%),
  # 19.4 instructions a point-level for 8 FP: so fewer integer instructions.
  # Now: 32-bit element offsets (i32: one wide multiply-add an address, 62
  # registers float, 58 double) against the winners, twice each.
  budget=${TEMPORAL_BUDGET:-120}
  f4="heat3d-f32|$h3d --precision float|4"
  d3="heat3d-f64|$h3d --precision double|3"
  cases=("$f4|64x16 q3 pd1 u3 fp" "$f4|64x16 q3 pd1 u3 fp i32" "$d3|64x16 q2 pd1 fp" "$d3|64x16 q2 pd1 fp i32"
         "$f4|64x16 q3 pd1 u3 fp i32" "$f4|64x16 q3 pd1 u3 fp" "$d3|64x16 q2 pd1 fp i32")
elif [ "${TEMPORAL_F32AB:-0}" = 1 ]; then
  # Session 10: heat 3D float 512^3 (1.85, target 2.5) around the best tile
  # (k4 64x8 q4 pd1 chunk 170): depth 3 and 5, longer chunks (fewer plane
  # restarts: 2 k r extra planes a chunk), the wider 128x8 at chunk 170.
  cases=("heat3d-f32|$h3d --precision float|4|64x8 q4 pd1 chunk 170"
         "heat3d-f32|$h3d --precision float|3|64x8 q4 pd1 chunk 170"
         "heat3d-f32|$h3d --precision float|5|64x8 q4 pd1 chunk 170"
         "heat3d-f32|$h3d --precision float|4|64x8 q4 pd1 chunk 255"
         "heat3d-f32|$h3d --precision float|4|64x8 q4 pd1 chunk 510"
         "heat3d-f32|$h3d --precision float|4|128x8 q4 pd1 chunk 170")
elif [ "${TEMPORAL_FULL:-0}" != 1 ]; then
  # Session 9 (the CPU host's part is the point): the best configuration
  # measured so far of each headline case, one run each (~30 s);
  # TEMPORAL_FULL=1 runs session 8's A/B list below instead.
  # 10:05 run: wave order 8 k3 256 1.480, 512 1.457, 1024 1.258, k4 256
  # 1.693 (target 1.5): deeper next (k6, k8), then what auto picks, in the
  # stencil bench and in `fdx wave --temporal auto` (simwave).
  # Session 11 (s11e): the 1024-thread tiles, double 2.132, float 2.126.
  cases=("heat3d-f64|$h3d --precision double|3|64x16 q2 pd1 fp"
         "heat3d-f32|$h3d --precision float|4|64x16 q3 pd1 u3 fp"
         "heat2d-f32|$h2d|8|256x1 q1 pd2"
         "wave2d-f32-o8|$w2d|4|256x1 q1 pd1"
         "wave2d-f32-o8|$w2d|6|256x1 q1 pd1"
         "wave2d-f32-o8|$w2d|8|256x1 q1 pd1"
         "wave2d-f32-o8|$w2d|auto|"
         "simwave")
else
  # Session 8 first, each against the same tile plain, back to back:
  #  "uN" the rotated plane loop (N = 2r + 1: the body written out N times,
  #       the register columns renamed instead of moved; 2r moves a point
  #       and level fewer; FDX_TEMPORAL_ROTATE=1 lets auto time it),
  #  "fp" the inner blocks' body without the frame's selects on planes where
  #       every level is inside (FDX_TEMPORAL_INNER=1 for auto),
  #  "ax" (rank 2) a thread's two points adjacent along x, their x neighbours
  #       from registers (order-8 wave: 8 shared loads a point and level -> ~3;
  #       registers 47 -> 105 at 128 threads; 2D heat 39 -> 64; FDX_TEMPORAL_AX=1).
  # ptxas (sm_90) registers plain / u / fp / u fp: double k3 32x16 q4
  # 102 / 102 / 101 / 126; order-8 wave 2D 47 / 62 / 62 / 64; float k4
  # 64x8 q4 63 / 86 / 64 (16 B spill) (one block a multiprocessor instead of
  # two with u); 2D heat k8 39 / 54 / 40.  Then session 7's older A/B.
  cases=("heat3d-f64|$h3d --precision double|3|32x16 q4 pd1"
         "heat3d-f64|$h3d --precision double|3|32x16 q4 pd1 u3"
         "heat3d-f64|$h3d --precision double|3|32x16 q4 pd1 fp"
         "wave2d-f32-o8|$w2d|3|256x1 q1 pd1"
         "wave2d-f32-o8|$w2d|3|256x1 q1 pd1 u9"
         "wave2d-f32-o8|$w2d|3|256x1 q1 pd1 fp"
         "wave2d-f32-o8|$w2d|3|128x1 q2 pd1 ax"
         "heat3d-f32|$h3d --precision float|4|64x8 q4 pd1"
         "heat3d-f32|$h3d --precision float|4|64x8 q4 pd1 u3"
         "heat3d-f32|$h3d --precision float|4|64x8 q4 pd1 fp"
         "heat2d-f32|$h2d|8|256x1 q1 pd2"
         "heat2d-f32|$h2d|8|256x1 q1 pd2 u3"
         "heat2d-f32|$h2d|8|256x1 q1 pd2 fp"
         "heat2d-f32|$h2d|8|128x1 q2 pd2 ax"
         "heat3d-f64|$h3d --precision double|3|32x16 q4 pd1 u3 fp"
         "wave2d-f32-o8|$w2d|3|256x1 q1 pd1 u9 fp"
         "wave2d-f32-o8|$w2d|4|256x1 q1 pd1 u9"
         "heat3d-f32|$h3d --precision float|4|32x8 q4 pd1 u3"
         "heat3d-f64|$h3d --precision double|4|32x16 q4 pd1 u3"
         "dhalo"
         "sim"
         "heat3d-f32|$h3d --precision float|4|64x16 q4 pd1"
         "wave2d-f32-o8|$w2d|off|")
  # TEMPORAL_ROTATE=1: auto with the rotated loops and fast bodies among the
  # candidates (FDX_TEMPORAL_ROTATE=1 FDX_TEMPORAL_INNER=1).
  if [ "${TEMPORAL_ROTATE:-0}" = 1 ]; then
    cases+=("heat3d-f64|$h3d --precision double|auto|rotate" "wave2d-f32-o8|$w2d|auto|rotate")
  fi
fi
# TEMPORAL_AUTO=1 (any list): the headline cases under auto after the list.
if [ "${TEMPORAL_AUTO:-0}" = f32 ]; then # (the float 3D case alone)
  cases+=("heat3d-f32|$h3d --precision float|auto|")
elif [ "${TEMPORAL_AUTO:-0}" = 1 ]; then
  cases+=("heat3d-f64|$h3d --precision double|auto|" "heat3d-f32|$h3d --precision float|auto|"
          "heat2d-f32|$h2d|auto|" "wave2d-f32-o8|$w2d|auto|")
fi
# Deep halos (issue 20 item 4): the 2D 8th-order wave 4096^2 float on
# TEMPORAL_UNITS units (default 2: on one GPU, units of one device; on a
# 2-GPU machine, one unit a GPU), shadows of k r exchanged every k steps,
# against one unit (efficiency) and one step a pass, bit for bit.
dhalo() {
  for k in ${TEMPORAL_DHALO_K:-4}; do
    echo "== dhalo k $k" >>"$log"
    timeout 60 "$FDX_BIN" bench dhalo --backend "$backend" --size "${TEMPORAL_DHALO_SIZE:-4096x4096}" \
      --gpus "${TEMPORAL_UNITS:-2}" --temporal "$k" --steps 240 --json 2>>"$log" | tee -a "$rec" |
      grep -oE '"(units|temporal)": [0-9]+|"(ms_per_step|efficiency|efficiency_one_step_a_pass)": [0-9.]+|"verified": [a-z]+' |
      tr '\n' ' '
    echo
  done
}
# fdx wave / fdx heat with --temporal (issue 20 item 3): the simulations'
# own stepping, 2D 8192^2 float, off then the depth measured best for the
# stencil (wave order 8: 3, heat: 8), auto with TEMPORAL_AUTO=1 (its
# "per_step" then includes the tuning, which runs in the first block: a new
# process times every candidate once); "time_s.per_step" the time a step; the wave
# without layer or receivers (what blocking needs; its source ends near
# step 410, the steps after it are blocked), the heat with a fixed frame.
# The same checksum is expected for off and auto.
sim() {
  local size=${TEMPORAL_SIM_SIZE:-8192x8192} list=${1:-all}
  # K twice: the first run compiles the pass kernels (depth K and the
  # shallower last passes of the blocks) inside its timed steps, the second
  # finds them in the on-disk kernel cache ("warm": the number to read).
  local modes="off K K"
  [ "${TEMPORAL_AUTO:-0}" = 1 ] && modes="off K K auto"
  # simwave: the wave only, K then auto (its "per_step" includes the tuning
  # in the first block; the depth it picked is the summary's "temporal")
  [ "$list" = wave ] && modes="K K auto"
  local sims=("wave --order 8 --absorb none --receivers none|4" "heat --boundary fixed --init random|8")
  [ "$list" = wave ] && sims=("${sims[0]}")
  for c in "${sims[@]}"; do
    local depth=${c#*|} seen=""
    c=${c%|*}
    for mode in $modes; do
      local tag=""
      if [ "$mode" = K ]; then mode=$depth; [ -n "$seen" ] && tag=" warm"; seen=1; fi
      echo "== sim $c temporal $mode$tag" >>"$log"
      # shellcheck disable=SC2086
      FDX_LOG=info timeout 60 "$FDX_BIN" ${c%% *} --backend "$backend" --size "$size" ${c#* } --steps 1000 \
        --temporal $mode --progress off --json 2>>"$log" |
        sed -e "s/^{/{\"sim_case\": \"${c%% *} temporal $mode$tag\", /" | tee -a "$OUT/${GPU_CHECK_DATE}_${GPU_NAME}_temporal_sim.jsonl" |
        grep -oE '"(case|sim_case)": "[^"]*"|"temporal": [0-9]+|"per_step": [0-9.e-]+|"checksum": \{[^}]*\}' | tr '\n' ' '
      echo
    done
  done
}
# TEMPORAL_GPU=0: the host CPU part only.
[ "${TEMPORAL_GPU:-1}" = 0 ] && cases=()
for c in "${cases[@]}"; do
  if [ "$c" = sim ] || [ "$c" = simwave ]; then
    if [ $((SECONDS - start)) -ge "$budget" ]; then echo "temporal: budget spent, $c not run" | tee -a "$log";
    elif [ "$c" = simwave ]; then sim wave; else sim; fi
    continue
  fi
  if [ "$c" = dhalo ]; then
    if [ $((SECONDS - start)) -ge "$budget" ]; then echo "temporal: budget spent, dhalo not run" | tee -a "$log"; else dhalo; fi
    continue
  fi
  IFS='|' read -r name args depth variant <<<"$c"
  if [ $((SECONDS - start)) -ge "$budget" ]; then echo "temporal: budget of ${budget}s spent, $name $depth [$variant] not run" | tee -a "$log"; continue; fi
  echo "== $name temporal $depth [$variant]" >>"$log"
  rot=0 cfgv=$variant
  [ "$variant" = rotate ] && rot=1 cfgv=""
  # shellcheck disable=SC2086
  FDX_TEMPORAL_ROTATE=$rot FDX_TEMPORAL_INNER=$rot FDX_TEMPORAL_AX=$rot FDX_TEMPORAL_CFG="$cfgv" FDX_LOG=info timeout "${TEMPORAL_TIMEOUT:-60}" "$FDX_BIN" stencil --backend "$backend" $args \
    --steps "$steps" --temporal "$depth" --reps 3 --json 2>>"$log" |
    sed -e "s/\"case\": \"stencil\"/\"case\": \"$name\", \"variant\": \"${variant:-default}\"/" | tee -a "$rec" |
    grep -oE '"case": "[^"]*"|"(temporal|order)": [0-9]+|"config": "[^"]*"|"(ms_per_step|ratio_to_copy)": [0-9.]+|"verified": [a-z]+' |
    tr '\n' ' '
  echo
done
# The device host's CPU (on by default; TEMPORAL_CPU=0 skips it, 2 adds
# one step a pass and session 8's forced picks): 3D 7-point double 512^3,
# target >= 2.0 of the CPU copy (the record's ratio_to_copy: the copy is
# measured in the same run).  Session 9: skewed slabs ("skew", a slab of
# 32 rows a thread, full rows, no rows recomputed, threads a plane apart in
# a wavefront; fdx_temporal_gen_skew.c) against session 8's auto pick on
# this host (k3 cpu 510x22 chunk 255), 48 steps (whole passes at k 2, 3,
# 4, 6, 8: no copy back), each verified bit for bit.  10:05 run (ratio to
# copy): skew4 0.878, s8pick 0.932, skew4nt 1.177, skew8nt 1.147, v512
# 0.973 / nt 1.089, skew4 with OMP_PROC_BIND=close OMP_PLACES=cores 1.258,
# auto (k3 skew) 1.109; tuning: every depth 22-29 ms a step, one step a
# pass 33: not memory-bound; binding (the rings stay in one L2) mattered
# most.  Now each skew thread pins itself to a CPU for the pass (default).
# Runs ("variant" in *-host_temporal_cpu.jsonl, ms_per_step / ratio_to_copy):
#   skew4       k4 skewed slabs, threads pinned (the new default)
#   skew4nopin  the same with FDX_TEMPORAL_CPU_PIN=0 (the 10:05 skew4)
#   s8pick      session 8's pick forced (the old default's tile)
#   skew4nt     k4, the last level through streaming stores
#   skew4ntx2 / skew8ntx3   k4 nt in two x blocks of 255 columns (rings
#               0.6 MB a core), k8 nt in three of 170 (1 MB)
#   skew4bind   k4 with OMP_PROC_BIND=close OMP_PLACES=cores (the 10:05 best)
#   auto        the tuner (every candidate's time in temporal-tuning.txt:
#               skew 8..2 plain and nt, x blocks where the rings outgrow half
#               an L2, the overlapped tiles, direct; ~30-60 s of tuning)
# Host facts (threads a core, caches, NUMA) go to temporal-cpu-host.txt.
cpu_run() { # variant, steps, temporal, then env assignments
  local variant=$1 nsteps=$2 mode=$3
  shift 3
  echo "== cpu heat3d-f64 $variant temporal $mode steps $nsteps $*" >>"$log"
  env "$@" FDX_LOG=info timeout "${TEMPORAL_CPU_TIMEOUT:-100}" "$FDX_BIN" stencil --backend cpu --op heat --size "${TEMPORAL_CPU_SIZE:-512x512x512}" \
    --precision double --steps "$nsteps" --temporal "$mode" --reps 3 --json 2>>"$log" |
    sed -e "s/\"case\": \"stencil\"/\"case\": \"cpu-heat3d-f64\", \"variant\": \"$variant\"/" |
    tee -a "$OUT/${GPU_CHECK_DATE}_${GPU_NAME}-host_temporal_cpu.jsonl" |
    grep -oE '"variant": "[^"]*"|"(temporal)": [0-9]+|"config": "[^"]*"|"(ms_per_step|ratio_to_copy|copy_gbps)": [0-9.]+|"verified": [a-z]+' | tr '\n' ' '
  echo
}
# TEMPORAL_CPU=probe (session 10): where the host's per-core rate goes.
# Each line: the variant, threads, shape, ms a step and ns a point and level
# a thread (ms_per_step x threads / points; depth does not enter: a pass of
# k levels over n points costs k n point-levels for k steps).
#   weakT      skewed slabs k4 nt, 32 rows a thread, 512 wide, 512 planes,
#              T = 1 2 4 8 16 threads (weak scaling: constant work a thread)
#   l2T        the same 130 wide (rings ~0.4 MB a thread: L2-resident)
#   offT       one step a pass at T = 1 and 16 (the DRAM-bound reference)
#   pairAB     2 threads on CPUs A,B (taskset): siblings share a core if
#              0,1 is much slower than 0,8
#   al1full / al0full / al0weak1   rows on cache lines (FDX_TEMPORAL_CPU_ALIGN,
#              default 1) against the plain loop (0), 16 threads 512^3 and 1 thread
#   pf1full / pf1weak1   the same with level 1 prefetching (FDX_TEMPORAL_CPU_PREFETCH=1)
#   x255 / x128 / k2full / t8full   16 threads at 512^3: x blocks, depth 2, 8 threads
#   then the generated kernel compiled here with -fopt-info-vec (how the
#   host's compiler vectorizes it) into temporal-cpu-probe.txt.
cpu_probe_run() { # variant threads shape steps temporal [env ...]
  local variant=$1 thr=$2 shape=$3 nsteps=$4 mode=$5
  shift 5
  local pts
  pts=$(echo "$shape" | awk -Fx '{print $1 * $2 * $3}')
  echo "== cpu probe $variant threads $thr $shape temporal $mode $*" >>"$log"
  env "$@" FDX_LOG=info FDX_THREADS="$thr" timeout "${TEMPORAL_CPU_TIMEOUT:-100}" ${TASKSET:-} "$FDX_BIN" stencil --backend cpu \
    --op heat --size "$shape" --precision double --steps "$nsteps" --temporal "$mode" --reps 3 --json 2>>"$log" |
    sed -e "s/\"case\": \"stencil\"/\"case\": \"cpu-heat3d-f64\", \"variant\": \"$variant\", \"threads\": $thr/" |
    tee -a "$OUT/${GPU_CHECK_DATE}_${GPU_NAME}-host_temporal_cpu_probe.jsonl" |
    grep -oE '"(ms_per_step|ratio_to_copy|copy_gbps)": [0-9.]+|"config": "[^"]*"|"verified": [a-z]+' | tr '\n' ' ' |
    awk -v v="$variant" -v t="$thr" -v n="$pts" -v s="$shape" '{ printf "%-10s T=%-2s %-14s %s", v, t, s, $0;
      for (i = 1; i <= NF; i++) if ($i == "\"ms_per_step\":") printf " ns/pt-level/thread %.3f", $(i + 1) * 1e6 * t / n; print "" }'
}
# Session 11's probes (TEMPORAL_CPU=s11, s11b, s11c): the sizes (16 threads
# at 512^3, 16 steps a run unless said), and at the end the threads' time
# stamps (FDX_TEMPORAL_CPU_STATS, exported by the probe), the balance's
# rows and auto's tuning out of the log.
s11_vars() {
  maxt=${TEMPORAL_PROBE_MAXT:-16}
  full=${TEMPORAL_PROBE_FULL:-512x512x512}
  fx=${full%%x*}
  pz=${TEMPORAL_PROBE_NZ:-512}
  n=${TEMPORAL_S11_STEPS:-16}
}
s11_end() {
  unset FDX_TEMPORAL_CPU_STATS
  grep -E "^== cpu probe|temporal (stats|balance|dyn|blocking for)" "$log" >"$OUT/temporal-cpu-stats.txt" 2>/dev/null
  grep -E "temporal tuning|temporal blocking for" "$log" >"$OUT/temporal-cpu-tuning.txt" 2>/dev/null
  echo "temporal: host CPU $1 part took $((SECONDS - s11_start)) s"
}
if [ "${TEMPORAL_CPU:-1}" = probe ]; then
  pf=$OUT/temporal-cpu-probe.txt
  { lscpu | grep -E "Model name|MHz|^CPU\(s\)|Thread|L1d|L2|L3"; grep -m3 MHz /proc/cpuinfo
    echo "siblings: $(cat /sys/devices/system/cpu/cpu*/topology/thread_siblings_list 2>/dev/null | sort -u | tr '\n' ' ')"
    cc --version | head -1; cc -march=native -Q --help=target 2>/dev/null | grep -E -- "-march=|-mtune=|prefer-vector-width=" ; } >"$pf" 2>&1
  probe_start=$SECONDS
  sk="cpu 510x32 skew nt chunk 510"
  pz=${TEMPORAL_PROBE_NZ:-512}
  for t in ${TEMPORAL_PROBE_THREADS:-1 2 4 8 16}; do cpu_probe_run weak$t "$t" "512x$((32 * t + 2))x$pz" 24 4 FDX_TEMPORAL_CFG="k4 $sk"; done
  for t in ${TEMPORAL_PROBE_ENDS:-1 16}; do cpu_probe_run l2$t "$t" "130x$((32 * t + 2))x$((pz + 2))" 24 4 FDX_TEMPORAL_CFG="k4 cpu 128x32 skew nt chunk $pz"; done
  for t in ${TEMPORAL_PROBE_ENDS:-1 16}; do cpu_probe_run off$t "$t" "512x$((32 * t + 2))x$pz" 8 off; done
  # strong scaling at 512^3 (16 threads): x blocks (hot rings a thread:
  # full rows ~1.7 MB, 255 ~0.9, 128 ~0.45 MB), depth 2 (0.9 MB), 8 threads
  full=${TEMPORAL_PROBE_FULL:-512x512x512}
  fx=${full%%x*}
  # the rows on cache lines (session 10, default) against the plain loop
  cpu_probe_run al1full "${TEMPORAL_PROBE_MAXT:-16}" "$full" 24 4 FDX_TEMPORAL_CFG="k4 cpu $((fx - 2))x32 skew nt chunk 510"
  cpu_probe_run al0full "${TEMPORAL_PROBE_MAXT:-16}" "$full" 24 4 FDX_TEMPORAL_CFG="k4 cpu $((fx - 2))x32 skew nt chunk 510" FDX_TEMPORAL_CPU_ALIGN=0
  cpu_probe_run al0weak1 1 "512x34x$pz" 24 4 FDX_TEMPORAL_CFG="k4 $sk" FDX_TEMPORAL_CPU_ALIGN=0
  # level 1 prefetching the next input plane (FDX_TEMPORAL_CPU_PREFETCH=1)
  cpu_probe_run pf1full "${TEMPORAL_PROBE_MAXT:-16}" "$full" 24 4 FDX_TEMPORAL_CFG="k4 cpu $((fx - 2))x32 skew nt chunk 510" FDX_TEMPORAL_CPU_PREFETCH=1
  cpu_probe_run pf1weak1 1 "512x34x$pz" 24 4 FDX_TEMPORAL_CFG="k4 $sk" FDX_TEMPORAL_CPU_PREFETCH=1
  for bw in 255 128; do cpu_probe_run x$bw "${TEMPORAL_PROBE_MAXT:-16}" "$full" 24 4 FDX_TEMPORAL_CFG="k4 cpu ${bw}x32 skew nt chunk 510"; done
  cpu_probe_run k2full "${TEMPORAL_PROBE_MAXT:-16}" "$full" 24 2 FDX_TEMPORAL_CFG="k2 cpu $((fx - 2))x32 skew nt chunk 510"
  cpu_probe_run t8full 8 "$full" 24 4 FDX_TEMPORAL_CFG="k4 cpu $((fx - 2))x64 skew nt chunk 510"
  if command -v taskset >/dev/null; then
    for pr in 0,1 0,8; do TASKSET="taskset -c $pr" cpu_probe_run pair${pr/,/} 2 512x66x$pz 24 4 FDX_TEMPORAL_CFG="k4 $sk"; done
  fi
  src=$(grep -l FDX_EDGE "$FDX_CACHE_DIR"/*.c 2>/dev/null | head -1)
  if [ -n "$src" ]; then
    cp "$src" "$OUT/temporal-cpu-skew-kernel.c"
    { echo "== cc -O3 -march=native -fopt-info-vec-optimized $(basename "$src")"
      cc -O3 -march=native -fopenmp -shared -fPIC -std=gnu11 -w -fopt-info-vec-optimized -o /tmp/tprobe.so "$src" 2>&1 | sort | uniq -c
      echo "zmm instructions: $(objdump -d /tmp/tprobe.so 2>/dev/null | grep -c zmm), ymm: $(objdump -d /tmp/tprobe.so 2>/dev/null | grep -c ymm)"; } >>"$pf" 2>&1
  fi
  echo "temporal: host CPU probe took $((SECONDS - probe_start)) s"
elif [ "${TEMPORAL_CPU:-1}" = s11 ]; then
  # Session 11 (helper tcpu, ~3 min): the host's cache geometry into
  # temporal-cpu-geometry.txt (lscpu -C, cpu0's caches with ways and sets,
  # NUMA, transparent huge pages, clocks), then at 512^3 on 16 threads
  # (k4 skewed slabs, nt, full rows unless said), two interleaved rounds
  # because the host moves ~30% run to run (compare ms a step; the copy is
  # in each record):
  #   base   the session-10 default tile (k4 510x32 skew nt)
  #   pf2    every level prefetching a piece of the next input plane
  #          (FDX_TEMPORAL_CPU_PREFETCH=2: the DRAM reads overlap compute)
  #   st     the last level's plane streamed out in pieces over the next
  #          iteration (FDX_TEMPORAL_CPU_STREAM=1), not a row's 64 lines at once
  #   hp     huge pages on the arrays and rings (FDX_CPU_HUGEPAGES=1: a
  #          512-double row is a 4 KB page, a TLB walk a row)
  #   all3   the three together; then with all three: x255 (two x blocks),
  #          k8x170 (three blocks, session 10's auto pick), k2, r2 (two rows a loop)
  #   weak1 / all3weak1   one thread, 512x34x512
  # Every run time-stamps its threads (FDX_TEMPORAL_CPU_STATS=1: a few
  # rdtsc a level and iteration): temporal-cpu-stats.txt has, a pass, each
  # thread's shares waiting on the slab below / above, in each level (1:
  # the new input plane from DRAM; k: the streaming stores), at the
  # barriers (mean/max over the threads).
  # AnonHugePages is sampled every second into temporal-cpu-thp.txt.
  s11_start=$SECONDS
  gf=$OUT/temporal-cpu-geometry.txt
  { lscpu -C 2>&1; echo; lscpu | grep -E "Model name|MHz|^CPU\(s\)|Thread|Core|Socket|NUMA|L1d|L2|L3|Hypervisor"
    for i in /sys/devices/system/cpu/cpu0/cache/index*; do
      echo "$i: L$(cat "$i/level") $(cat "$i/type") $(cat "$i/size") ways $(cat "$i/ways_of_associativity" 2>/dev/null)" \
        "sets $(cat "$i/number_of_sets" 2>/dev/null) line $(cat "$i/coherency_line_size" 2>/dev/null) shared with $(cat "$i/shared_cpu_list")"
    done
    echo "L2 shared_cpu_list of every cpu: $(cat /sys/devices/system/cpu/cpu*/cache/index2/shared_cpu_list 2>/dev/null | tr '\n' ' ')"
    echo; numactl -H 2>&1
    echo; for f in enabled defrag; do echo "thp $f: $(cat /sys/kernel/mm/transparent_hugepage/$f 2>&1)"; done
    grep -E "MemTotal|MemFree|AnonHugePages|HugePages_Total|Hugepagesize" /proc/meminfo
    echo; grep MHz /proc/cpuinfo | sort | uniq -c; uname -r; nproc; } >"$gf" 2>&1
  ( while :; do echo "$((SECONDS - s11_start)) $(grep AnonHugePages /proc/meminfo)"; sleep 1; done ) >"$OUT/temporal-cpu-thp.txt" 2>&1 &
  thp_pid=$!
  s11_vars
  sk="skew nt chunk $((pz - 2))"
  t4="k4 cpu $((fx - 2))x32 $sk"
  pf2=FDX_TEMPORAL_CPU_PREFETCH=2 st=FDX_TEMPORAL_CPU_STREAM=1 hp=FDX_CPU_HUGEPAGES=1
  export FDX_TEMPORAL_CPU_STATS=1
  for v in base pf2 st hp all3 all3 hp st pf2 base; do
    case $v in
      base) cpu_probe_run base "$maxt" "$full" "$n" 4 FDX_TEMPORAL_CFG="$t4" ;;
      pf2) cpu_probe_run pf2 "$maxt" "$full" "$n" 4 FDX_TEMPORAL_CFG="$t4" $pf2 ;;
      st) cpu_probe_run st "$maxt" "$full" "$n" 4 FDX_TEMPORAL_CFG="$t4" $st ;;
      hp) cpu_probe_run hp "$maxt" "$full" "$n" 4 FDX_TEMPORAL_CFG="$t4" $hp ;;
      all3) cpu_probe_run all3 "$maxt" "$full" "$n" 4 FDX_TEMPORAL_CFG="$t4" $pf2 $st $hp ;;
    esac
  done
  cpu_probe_run x255 "$maxt" "$full" "$n" 4 FDX_TEMPORAL_CFG="k4 cpu $(( (fx - 1) / 2 ))x32 $sk" $pf2 $st $hp
  cpu_probe_run k8x170 "$maxt" "$full" "$n" 8 FDX_TEMPORAL_CFG="k8 cpu $(( (fx - 2 + 2) / 3 ))x32 $sk" $pf2 $st $hp
  cpu_probe_run k2 "$maxt" "$full" "$n" 2 FDX_TEMPORAL_CFG="k2 cpu $((fx - 2))x32 $sk" $pf2 $st $hp
  cpu_probe_run r2 "$maxt" "$full" "$n" 4 FDX_TEMPORAL_CFG="$t4" $pf2 $st $hp FDX_TEMPORAL_CPU_ROWS2=1
  cpu_probe_run weak1 1 "512x34x$pz" "$n" 4 FDX_TEMPORAL_CFG="k4 cpu 510x32 $sk"
  cpu_probe_run all3weak1 1 "512x34x$pz" "$n" 4 FDX_TEMPORAL_CFG="k4 cpu 510x32 $sk" $pf2 $st $hp
  kill "$thp_pid" 2>/dev/null
  s11_end s11
elif [ "${TEMPORAL_CPU:-1}" = s11b ]; then
  # Session 11, second probe (~2.5 min): s11's 16:25 run had spread
  # streaming (st, FDX_TEMPORAL_CPU_STREAM=1) at 21.2 / 14.6 ms a step
  # against base 22.7 / 24.3 (pf2 24.6 / 25.1, hp 25.8 / 23.9: no gain
  # alone), spreads of up to 2x between repeats: three interleaved rounds
  # of base / st / st with huge pages / st with spread prefetching, then st
  # at other depths and widths, and one thread; every run time-stamped
  # (FDX_TEMPORAL_CPU_STATS=1, shares a pass in temporal-cpu-stats.txt).
  s11_start=$SECONDS
  s11_vars
  sk="skew nt chunk $((pz - 2))"
  t4="k4 cpu $((fx - 2))x32 $sk"
  st=FDX_TEMPORAL_CPU_STREAM=1
  export FDX_TEMPORAL_CPU_STATS=1
  for rep in 1 2 3; do
    cpu_probe_run base "$maxt" "$full" "$n" 4 FDX_TEMPORAL_CFG="$t4"
    cpu_probe_run st "$maxt" "$full" "$n" 4 FDX_TEMPORAL_CFG="$t4" $st
    cpu_probe_run sthp "$maxt" "$full" "$n" 4 FDX_TEMPORAL_CFG="$t4" $st FDX_CPU_HUGEPAGES=1
    cpu_probe_run stpf2 "$maxt" "$full" "$n" 4 FDX_TEMPORAL_CFG="$t4" $st FDX_TEMPORAL_CPU_PREFETCH=2
  done
  cpu_probe_run stx255 "$maxt" "$full" "$n" 4 FDX_TEMPORAL_CFG="k4 cpu $(( (fx - 1) / 2 ))x32 $sk" $st
  cpu_probe_run stk3 "$maxt" "$full" 12 3 FDX_TEMPORAL_CFG="k3 cpu $((fx - 2))x32 $sk" $st
  cpu_probe_run stk8x170 "$maxt" "$full" "$n" 8 FDX_TEMPORAL_CFG="k8 cpu $(( (fx - 2 + 2) / 3 ))x32 $sk" $st
  cpu_probe_run stk2 "$maxt" "$full" "$n" 2 FDX_TEMPORAL_CFG="k2 cpu $((fx - 2))x32 $sk" $st
  cpu_probe_run weak1 1 "512x34x$pz" "$n" 4 FDX_TEMPORAL_CFG="k4 cpu 510x32 $sk"
  cpu_probe_run stweak1 1 "512x34x$pz" "$n" 4 FDX_TEMPORAL_CFG="k4 cpu 510x32 $sk" $st
  s11_end s11b
elif [ "${TEMPORAL_CPU:-1}" = s11c ]; then
  # Session 11, final (~2.5 min): s11b's time stamps showed the 16 threads
  # waiting ~35% of a pass on one slow thread (its levels 1.6-1.9 times the
  # mean): balanced slabs (FDX_TEMPORAL_CPU_BALANCE, now default 1) size
  # each thread's slab by its compute time in the last pass.  Three
  # interleaved rounds of the default tile (k4 510x32 skew nt, balanced),
  # bal0 (even slabs, the session-10 default) and balst (balanced with
  # spread streaming); then the defaults as a user gets them: --temporal 4
  # (the first candidate) and auto (the tuner; the headline), 48 steps.
  # Time stamps on (temporal-cpu-stats.txt, with the balance's slab rows).
  s11_start=$SECONDS
  s11_vars
  t4="k4 cpu $((fx - 2))x32 skew nt chunk $((pz - 2))"
  export FDX_TEMPORAL_CPU_STATS=1
  for rep in 1 2 3; do
    cpu_probe_run def "$maxt" "$full" "$n" 4 FDX_TEMPORAL_CFG="$t4"
    cpu_probe_run bal0 "$maxt" "$full" "$n" 4 FDX_TEMPORAL_CFG="$t4" FDX_TEMPORAL_CPU_BALANCE=0
    cpu_probe_run balst "$maxt" "$full" "$n" 4 FDX_TEMPORAL_CFG="$t4" FDX_TEMPORAL_CPU_STREAM=1
  done
  cpu_probe_run t4 "$maxt" "$full" 48 4
  cpu_probe_run auto "$maxt" "$full" 48 auto
  s11_end s11c
elif [ "${TEMPORAL_CPU:-1}" = s12 ]; then
  # Session 12 (helper tcpu, ~2.5 min): s11m had the default (balanced
  # slabs) at 16.7-18.3 ms a step, 20-40% of every pass waiting in the
  # chain of slabs, the slow thread moving between runs.  Three interleaved
  # rounds at 512^3, 16 threads, k4 nt (16 steps, time stamps on):
  #   def      the default (k4 510x32, balanced slabs, slack 4)
  #   sl16     the same with a slack of 16 iterations (FDX_TEMPORAL_CPU_SLACK)
  #   dyn16    dynamic slabs (FDX_TEMPORAL_CPU_DYN=4): 32 slabs of 16 rows,
  #            two a thread, claimed an iteration at a time; a thread that
  #            waits 4 iterations' time on a neighbour takes its nearest
  #            slab; slack 16
  #   dyn8     the same on 64 slabs of 8 rows (four a thread)
  #   st8      the control: 64 fixed slabs of 8 rows (four a thread, even:
  #            the balance needs a slab a thread), slack 16
  # temporal-cpu-stats.txt: "idle" (nothing to run), "slabs taken" a pass
  # (mean/max a thread), and the home ranges ("temporal dyn:") a pass.
  s11_start=$SECONDS
  s11_vars
  sk="skew nt chunk $((pz - 2))"
  export FDX_TEMPORAL_CPU_STATS=1
  for rep in 1 2 3; do
    cpu_probe_run def "$maxt" "$full" "$n" 4 FDX_TEMPORAL_CFG="k4 cpu $((fx - 2))x32 $sk"
    cpu_probe_run sl16 "$maxt" "$full" "$n" 4 FDX_TEMPORAL_CFG="k4 cpu $((fx - 2))x32 $sk" FDX_TEMPORAL_CPU_SLACK=16
    cpu_probe_run dyn16 "$maxt" "$full" "$n" 4 FDX_TEMPORAL_CFG="k4 cpu $((fx - 2))x16 $sk" FDX_TEMPORAL_CPU_DYN=4 FDX_TEMPORAL_CPU_SLACK=16
    cpu_probe_run dyn8 "$maxt" "$full" "$n" 4 FDX_TEMPORAL_CFG="k4 cpu $((fx - 2))x8 $sk" FDX_TEMPORAL_CPU_DYN=4 FDX_TEMPORAL_CPU_SLACK=16
    cpu_probe_run st8 "$maxt" "$full" "$n" 4 FDX_TEMPORAL_CFG="k4 cpu $((fx - 2))x8 $sk" FDX_TEMPORAL_CPU_SLACK=16
  done
  s11_end s12
elif [ "${TEMPORAL_CPU:-1}" = s12b ]; then
  # Session 12, second (~2.5 min).  s12f (ms a step, rounds 1/2/3): def
  # 19.8/14.7/17.6, sl16 17.0/16.9/20.7, dyn16 16.8/18.0/17.2, dyn8
  # 24.6/23.6/21.8, st8 28.1/17.3/27.5; fastest pass def 55.5 ms, sl16
  # 54.0, dyn16 67.0 (idle 0.15-0.25 in every pass, ~22 slabs taken a
  # thread and pass: ranges drifting 1 .. 19 slabs of 64).  Now a thread
  # takes a slab only from the neighbour that is the slow one (not itself
  # waiting).  Four interleaved rounds of def, sl16, dyn16 (N = 4) and
  # dyn16n16 (N = 16), time stamps on.
  s11_start=$SECONDS
  s11_vars
  sk="skew nt chunk $((pz - 2))"
  export FDX_TEMPORAL_CPU_STATS=1
  for rep in 1 2 3 4; do
    cpu_probe_run def "$maxt" "$full" "$n" 4 FDX_TEMPORAL_CFG="k4 cpu $((fx - 2))x32 $sk"
    cpu_probe_run sl16 "$maxt" "$full" "$n" 4 FDX_TEMPORAL_CFG="k4 cpu $((fx - 2))x32 $sk" FDX_TEMPORAL_CPU_SLACK=16
    cpu_probe_run dyn16 "$maxt" "$full" "$n" 4 FDX_TEMPORAL_CFG="k4 cpu $((fx - 2))x16 $sk" FDX_TEMPORAL_CPU_DYN=4 FDX_TEMPORAL_CPU_SLACK=16
    cpu_probe_run dyn16n16 "$maxt" "$full" "$n" 4 FDX_TEMPORAL_CFG="k4 cpu $((fx - 2))x16 $sk" FDX_TEMPORAL_CPU_DYN=16 FDX_TEMPORAL_CPU_SLACK=16
  done
  s11_end s12b
elif [ "${TEMPORAL_CPU:-1}" = s12c ]; then
  # Session 12, third (~2.5 min).  s12j: dynamic slabs lost (22-26 ms a
  # step against def 15-21; idle 0.25-0.55); def and slack 16 tie.  The
  # waits follow host-wide phases (calm passes 54-66 ms, noisy 85-190) in
  # which one thread computes 1.5x slower.  Does a vCPU left free (for the
  # guest's own interrupts and daemons) take the noise off the chain?
  # Four interleaved rounds, k4 nt balanced slabs, time stamps on:
  #   def    16 threads (510x32)
  #   t15    15 threads (510x34) pinned to CPUs 0-14 (15 free)
  #   t15c0  15 threads on CPUs 1-15 (taskset; 0 free)
  #   t14    14 threads (510x37) on CPUs 0-13
  s11_start=$SECONDS
  s11_vars
  sk="skew nt chunk $((pz - 2))"
  export FDX_TEMPORAL_CPU_STATS=1
  for rep in 1 2 3 4; do
    cpu_probe_run def "$maxt" "$full" "$n" 4 FDX_TEMPORAL_CFG="k4 cpu $((fx - 2))x$(( (fx - 2 + maxt - 1) / maxt )) $sk"
    cpu_probe_run t15 $((maxt - 1)) "$full" "$n" 4 FDX_TEMPORAL_CFG="k4 cpu $((fx - 2))x$(( (fx - 2 + maxt - 2) / (maxt - 1) )) $sk"
    TASKSET="taskset -c 1-$((maxt - 1))" cpu_probe_run t15c0 $((maxt - 1)) "$full" "$n" 4 \
      FDX_TEMPORAL_CFG="k4 cpu $((fx - 2))x$(( (fx - 2 + maxt - 2) / (maxt - 1) )) $sk"
    cpu_probe_run t14 $((maxt - 2)) "$full" "$n" 4 FDX_TEMPORAL_CFG="k4 cpu $((fx - 2))x$(( (fx - 2 + maxt - 3) / (maxt - 2) )) $sk"
  done
  s11_end s12c
elif [ "${TEMPORAL_CPU:-1}" = s10 ]; then
  # Session 10's final check (~2 min): tinyT a 34-wide 4-deep problem a
  # thread (rings ~0.1 MB: core-bound; tiny16 / tiny1 is how much of the
  # 16-thread slowdown is the cores' own, e.g. clocks, rather than the
  # memory system's), then prefetch (FDX_TEMPORAL_CPU_PREFETCH=1) against
  # the default on one thread and at 512^3 (full rows and x blocks of 255),
  # two rows a loop (FDX_TEMPORAL_CPU_ROWS2=1) on one thread, full rows and
  # x blocks of 128 (short rows: the row set-up halved), then auto at 512^3
  # (the headline; every candidate in temporal-tuning.txt).
  s10_start=$SECONDS
  pz=${TEMPORAL_PROBE_NZ:-512}
  full=${TEMPORAL_PROBE_FULL:-512x512x512}
  fx=${full%%x*}
  maxt=${TEMPORAL_PROBE_MAXT:-16}
  for t in 1 "$maxt"; do cpu_probe_run tiny$t "$t" "34x$((32 * t + 2))x$((pz / 4 + 2))" 24 4 FDX_TEMPORAL_CFG="k4 cpu 32x32 skew chunk $((pz / 4))"; done
  sk="cpu 510x32 skew nt chunk 510"
  cpu_probe_run weak1 1 "512x34x$pz" 24 4 FDX_TEMPORAL_CFG="k4 $sk"
  cpu_probe_run pf1weak1 1 "512x34x$pz" 24 4 FDX_TEMPORAL_CFG="k4 $sk" FDX_TEMPORAL_CPU_PREFETCH=1
  cpu_probe_run r2weak1 1 "512x34x$pz" 24 4 FDX_TEMPORAL_CFG="k4 $sk" FDX_TEMPORAL_CPU_ROWS2=1
  cpu_probe_run r2x$((fx - 2)) "$maxt" "$full" 24 4 FDX_TEMPORAL_CFG="k4 $sk" FDX_TEMPORAL_CPU_ROWS2=1
  cpu_probe_run r2x128 "$maxt" "$full" 24 4 FDX_TEMPORAL_CFG="k4 cpu 128x32 skew nt chunk 510" FDX_TEMPORAL_CPU_ROWS2=1
  for bw in $((fx - 2)) 255; do
    cpu_probe_run x$bw "$maxt" "$full" 24 4 FDX_TEMPORAL_CFG="k4 cpu ${bw}x32 skew nt chunk 510"
    cpu_probe_run pf1x$bw "$maxt" "$full" 24 4 FDX_TEMPORAL_CFG="k4 cpu ${bw}x32 skew nt chunk 510" FDX_TEMPORAL_CPU_PREFETCH=1
  done
  cpu_probe_run auto "$maxt" "$full" 48 auto
  echo "temporal: host CPU s10 part took $((SECONDS - s10_start)) s"
elif [ "${TEMPORAL_CPU:-1}" != 0 ]; then
  { lscpu; echo; for i in /sys/devices/system/cpu/cpu0/cache/index*; do
      echo "$i: L$(cat "$i/level") $(cat "$i/type") $(cat "$i/size") shared with $(cat "$i/shared_cpu_list")"; done
    echo; numactl -H 2>/dev/null; echo "nproc $(nproc)"; } >"$OUT/temporal-cpu-host.txt" 2>&1
  cpu_start=$SECONDS
  csize=${TEMPORAL_CPU_SIZE:-512x512x512}
  cnx=${csize%%x*} crest=${csize#*x}
  cny=${crest%%x*} cnz=${crest#*x}
  thr=$(nproc)
  # a slab a thread: ceil((ny - 2) / threads) rows
  sby=$(( (cny - 2 + thr - 1) / thr ))
  [ "$sby" -lt 2 ] && sby=2
  skew="cpu $((cnx - 2))x$sby skew chunk $((cnz - 2))"
  cpu_run skew4 48 4 FDX_TEMPORAL_CFG="k4 $skew"
  cpu_run skew4nopin 48 4 FDX_TEMPORAL_CFG="k4 $skew" FDX_TEMPORAL_CPU_PIN=0
  cpu_run s8pick 48 3 FDX_TEMPORAL_CFG="k3 cpu $((cnx - 2))x22 chunk $(( (cnz - 2) / 2 ))"
  cpu_run skew4nt 48 4 FDX_TEMPORAL_CFG="k4 ${skew/skew/skew nt}"
  # x blocks: k4 in two of 255 columns (rings 0.6 MB), k8 in three of 170 (1 MB)
  cpu_run skew4ntx2 48 4 FDX_TEMPORAL_CFG="k4 cpu $(( (cnx - 2 + 1) / 2 ))x$sby skew nt chunk $((cnz - 2))"
  cpu_run skew8ntx3 48 8 FDX_TEMPORAL_CFG="k8 cpu $(( (cnx - 2 + 2) / 3 ))x$sby skew nt chunk $((cnz - 2))"
  cpu_run skew4bind 48 4 FDX_TEMPORAL_CFG="k4 $skew" OMP_PROC_BIND=close OMP_PLACES=cores
  cpu_run auto 48 auto
  if [ "${TEMPORAL_CPU:-1}" = 2 ]; then
    cpu_run s8direct 48 3 FDX_TEMPORAL_CFG="k3 cpu $((cnx - 2))x22 direct chunk $(( (cnz - 2) / 2 ))"
    cpu_run off 12 off
  fi
  echo "temporal: host CPU part took $((SECONDS - cpu_start)) s"
fi
grep -E "temporal tuning|temporal blocking for" "$log" >"$OUT/temporal-tuning.txt" 2>/dev/null
n=$(grep -c '"verified": true' "$rec" 2>/dev/null)
bad=$(grep -c '"verified": false' "$rec" 2>/dev/null)
echo "temporal: ${n:-0} records verified, ${bad:-0} NOT verified ($rec)"
