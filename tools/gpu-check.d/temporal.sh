# Temporal blocking (issue 20): time steps through fdx_stencil_steps with
# explicit configurations (FDX_TEMPORAL_CFG, the A/B variants) and depths,
# each verified in the same run bit for bit against single steps.  Records
# carry "temporal" (the depth used), "ratio_to_copy" per step (one-step
# theoretical bytes over the time per step, over copy bandwidth), "order",
# "shape", "precision", "verified", "config" and "variant".  Targets
# (H100): 3D 7-point double 512^3 >= 2.0, float 512^3 >= 2.5, 2D 5-point
# float 16384^2 >= 3.0, 2D 8th-order wave float 16384^2 >= 1.5.
# Explicit configurations instead of auto: a fresh device compiles every
# kernel it times, and auto times up to 15 a case; this section stays under
# a minute (stops starting runs after TEMPORAL_BUDGET seconds, default 55).
# TEMPORAL_AUTO=1 adds auto runs of the headline cases (tuning, ~20 s each);
# TEMPORAL_CPU=1 the host CPU's 512^3 double (auto and off, ~2 minutes).
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
budget=${TEMPORAL_BUDGET:-55}
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
         "wave2d-f32-o8|--op wave --size 1024x1024 --precision float --order 8|2|" "dhalo")
  TEMPORAL_DHALO_SIZE=${TEMPORAL_DHALO_SIZE:-256x200}
else
  # The best measured (H100, 2026-11-24 00:30 run) first, then deep halos,
  # then the A/B variants.
  cases=("heat3d-f64|$h3d --precision double|3|32x8 q4 pd2"
         "heat3d-f32|$h3d --precision float|4|64x8 q4 pd1"
         "heat2d-f32|$h2d|8|256x1 q1 pd1"
         "wave2d-f32-o8|$w2d|3|256x1 q1 pd1"
         "dhalo"
         "heat2d-f32|$h2d|8|256x1 q1 pd2"
         "wave2d-f32-o8|$w2d|2|256x1 q1 pd1"
         "heat3d-f64|$h3d --precision double|3|64x8 q4 pd1"
         "heat3d-f32|$h3d --precision float|4|64x8 q4 pd2"
         "heat3d-f32|$h3d --precision float|3|64x8 q4 pd1"
         "heat2d-f32|$h2d|8|1024x1 q1 pd1"
         "wave2d-f32-o8|$w2d|4|256x1 q1 pd1"
         "wave2d-f32-o8|$w2d|off|")
  if [ "${TEMPORAL_AUTO:-0}" = 1 ]; then
    cases+=("heat3d-f64|$h3d --precision double|auto|" "heat3d-f32|$h3d --precision float|auto|"
            "heat2d-f32|$h2d|auto|" "wave2d-f32-o8|$w2d|auto|")
  fi
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
for c in "${cases[@]}"; do
  if [ "$c" = dhalo ]; then
    if [ $((SECONDS - start)) -ge "$budget" ]; then echo "temporal: budget spent, dhalo not run" | tee -a "$log"; else dhalo; fi
    continue
  fi
  IFS='|' read -r name args depth variant <<<"$c"
  if [ $((SECONDS - start)) -ge "$budget" ]; then echo "temporal: budget of ${budget}s spent, $name $depth [$variant] not run" | tee -a "$log"; continue; fi
  echo "== $name temporal $depth [$variant]" >>"$log"
  # shellcheck disable=SC2086
  FDX_TEMPORAL_CFG="$variant" FDX_LOG=info timeout "${TEMPORAL_TIMEOUT:-60}" "$FDX_BIN" stencil --backend "$backend" $args \
    --steps "$steps" --temporal "$depth" --reps 3 --json 2>>"$log" |
    sed -e "s/\"case\": \"stencil\"/\"case\": \"$name\", \"variant\": \"${variant:-default}\"/" | tee -a "$rec" |
    grep -oE '"case": "[^"]*"|"(temporal|order)": [0-9]+|"config": "[^"]*"|"(ms_per_step|ratio_to_copy)": [0-9.]+|"verified": [a-z]+' |
    tr '\n' ' '
  echo
done
# The device host's CPU (TEMPORAL_CPU=1; about 2 minutes on 16 cores): 3D
# 7-point double 512^3, target >= 2.0 of the CPU copy.
if [ "${TEMPORAL_CPU:-0}" = 1 ]; then
  for mode in auto off; do
    echo "== cpu heat3d-f64 temporal $mode" >>"$log"
    FDX_LOG=info timeout 150 "$FDX_BIN" stencil --backend cpu --op heat --size 512x512x512 --precision double \
      --steps 16 --temporal $mode --reps 3 --json 2>>"$log" | sed -e 's/"case": "stencil"/"case": "cpu-heat3d-f64"/' |
      tee -a "$OUT/${GPU_CHECK_DATE}_${GPU_NAME}-host_temporal_cpu.jsonl" | grep -oE '"(temporal|ratio_to_copy)": [0-9.]+|"verified": [a-z]+' | tr '\n' ' '
    echo
  done
fi
grep -E "temporal tuning|temporal blocking for" "$log" >"$OUT/temporal-tuning.txt" 2>/dev/null
n=$(grep -c '"verified": true' "$rec" 2>/dev/null)
bad=$(grep -c '"verified": false' "$rec" 2>/dev/null)
echo "temporal: ${n:-0} records verified, ${bad:-0} NOT verified ($rec)"
