# Temporal blocking (issue 20): heat steps through fdx_stencil_steps with
# the depth chosen by timing (auto) and with one step a pass (off), each
# verified in the same run bit for bit against single steps.  Records:
# "temporal" (the depth used), "ratio_to_copy" per step (one-step
# theoretical bytes over the time per step, over copy bandwidth), "order",
# "shape", "precision", "verified".  Targets (H100): 3D 7-point double
# 512^3 >= 2.0, float 512^3 >= 2.5, 2D 5-point float 16384^2 >= 3.0.
# Skips without a GPU; stops starting runs after TEMPORAL_BUDGET seconds
# (default 170) so the section ends in about 3 minutes.
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
budget=${TEMPORAL_BUDGET:-170}
steps=${TEMPORAL_STEPS:-48}
start=$SECONDS
# name|arguments; the headline cases first.
if [ "${TEMPORAL_SMALL:-0}" = 1 ]; then
  cases=("heat3d-f64|--size 96x96x96 --precision double" "heat2d-f32|--size 1024x1024 --precision float")
else
  cases=("heat3d-f64|--size 512x512x512 --precision double"
         "heat3d-f32|--size 512x512x512 --precision float"
         "heat2d-f32|--size 16384x16384 --precision float"
         "heat3d-f32-o8|--size 512x512x512 --precision float --order 8"
         "heat2d-f32-o8|--size 16384x16384 --precision float --order 8"
         "heat3d-f64-odd|--size 509x511x503 --precision double --order 4")
fi
for mode in auto off; do
  for c in "${cases[@]}"; do
    if [ $((SECONDS - start)) -ge "$budget" ]; then echo "temporal: budget of ${budget}s spent, $mode ${c%%|*} not run" | tee -a "$log"; continue; fi
    echo "== ${c%%|*} temporal $mode" >>"$log"
    # shellcheck disable=SC2086
    FDX_LOG=info timeout "${TEMPORAL_TIMEOUT:-120}" "$FDX_BIN" stencil --backend "$backend" --op heat ${c#*|} --steps "$steps" \
      --temporal $mode --reps 5 --json 2>>"$log" | sed -e "s/\"case\": \"stencil\"/\"case\": \"${c%%|*}\"/" | tee -a "$rec" |
      grep -oE '"case": "[^"]*"|"(temporal|order)": [0-9]+|"config": "[^"]*"|"(ms_per_step|ratio_to_copy)": [0-9.]+|"verified": [a-z]+' |
      tr '\n' ' '
    echo
  done
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
