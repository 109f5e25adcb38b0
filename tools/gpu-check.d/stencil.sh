# Stencil engine (issue 3), in priority order so a run cut short keeps the
# most important results: the GPU tests, the GPU benchmark records (tuning
# forced, its log kept, every timed candidate in stencil-tuning.txt), the CPU
# records (STENCIL_CPU=0: none), the GPU test under compute-sanitizer
# (STENCIL_SAN_TOOLS, default memcheck and racecheck), and the hardware
# counters of the headline kernels (STENCIL_COUNTERS=0: none; the cases:
# STENCIL_COUNTER_CASES).
# Few files may come back from $OUT: everything but the records goes into
# stencil.log.
set -u
log=$OUT/stencil.log
gpu=$OUT/${GPU_CHECK_DATE}_${GPU_NAME}_stencil.jsonl
cpu=$OUT/${GPU_CHECK_DATE}_${GPU_NAME}-host_stencil_cpu.jsonl
bin=$(dirname "$FDX_BIN")
rm -f "$OUT/build.log" # the build succeeded to get here
# A call may build only some targets (cmake --build --target ...): the
# tests it did not build are named as not built, not run.
for t in test_stencil_gpu test_laplacian_gpu test_stencil_tune test_solvers_gpu; do
  echo "== $t"
  if [ -x "$bin/$t" ]; then "$bin/$t" 2>&1 | tail -20; else echo "$t: not built"; fi
done >>"$log" 2>&1
tail -8 "$log"
# STENCIL_CFGS: forced configurations timed one by one, 'ARGS|CFG' with
# ';' between them (ARGS: fdx stencil's arguments; CFG: FDX_STENCIL_CFG's
# fields), one record each (with "forced") in *_stencil-forced.jsonl.
if [ -n "${STENCIL_CFGS:-}" ]; then
  echo "== forced configurations" | tee -a "$log"
  IFS=';' read -ra runs <<<"$STENCIL_CFGS"
  for item in "${runs[@]}"; do
    FDX_STENCIL_CFG="${item#*|}" timeout 90 "$FDX_BIN" stencil --backend cuda ${item%%|*} --json 2>>"$log" |
      sed -e "s/^{/{\"forced\": \"${item#*|}\", /" | tee -a "$OUT/${GPU_CHECK_DATE}_${GPU_NAME}_stencil-forced.jsonl" |
      grep -oE '"(forced|config)": "[^"]*"|"(median|ratio_to_copy)": [0-9.]+|"verified": [a-z]+' | tr '\n' ' '
    echo
  done
fi
if [ "${STENCIL_BENCH:-1}" = 1 ]; then
  # --tune-budget all: the whole search in one run (the exhaustive search the
  # budgeted tuner converges to; firstcontact.sh compares the two).
  echo "== bench stencil (cuda, tune ${STENCIL_TUNE:-force}, budget ${STENCIL_TUNE_BUDGET:-all})" | tee -a "$log"
  FDX_LOG=info "$FDX_BIN" bench stencil --backend cuda --tune "${STENCIL_TUNE:-force}" --tune-budget "${STENCIL_TUNE_BUDGET:-all}" \
    --json ${STENCIL_CASES:+--cases $STENCIL_CASES} \
    2>>"$log" | tee -a "$gpu" | cut -c1-330
fi
# The fused sponge in the wave solver: 512^3 float order 8 with c^2, the
# kernel alone, then runs without and with the default 20-cell sponge.
if [ "${STENCIL_WAVE:-1}" = 1 ]; then
  wave=$OUT/${GPU_CHECK_DATE}_${GPU_NAME}_stencil-sponge.jsonl
  echo "== wave 512^3: kernel, runs with sponge 0 and 20" | tee -a "$log"
  timeout 100 "$FDX_BIN" stencil --backend cuda --op wave --order 8 --coef --size 512x512x512 --precision float \
    --json 2>>"$log" | tee -a "$wave" | cut -c1-300
  for sp in 0 20; do
    timeout 100 "$FDX_BIN" wave --backend cuda --size 512x512x512 --steps ${STENCIL_WAVE_STEPS:-300} --order 8 \
      --precision float --json --progress off --sponge $sp 2>>"$log" | sed -e "s/^{/{\"sponge\": $sp, /" |
      tee -a "$wave" | cut -c1-400
  done
fi
# Every candidate the tuner timed, per case, for the notes.
grep -E "tuning:|tuned for" "$log" | sed 's/^.*\(tuning:\|stencil tuned\)/\1/' >"$OUT/stencil-tuning.txt"
if [ "${STENCIL_CPU:-1}" = 1 ]; then
  echo "== bench stencil (cpu)" | tee -a "$log"
  "$FDX_BIN" bench stencil --backend cpu --json 2>>"$log" | tee -a "$cpu" | cut -c1-300
fi
if [ "${STENCIL_SANITIZER:-1}" = 1 ]; then
  for tool in ${STENCIL_SAN_TOOLS:-memcheck racecheck}; do
    if timeout "${STENCIL_SANITIZER_S:-150}" compute-sanitizer --tool $tool --error-exitcode 99 "$bin/test_stencil_gpu" >"$OUT/san.tmp" 2>&1; then
      echo "sanitizer $tool test_stencil_gpu: clean" | tee -a "$log"
    else
      echo "sanitizer $tool test_stencil_gpu: FAILED or timed out (exit $?)" | tee -a "$log"
    fi
    tail -25 "$OUT/san.tmp" >>"$log"
  done
  rm -f "$OUT/san.tmp"
fi
# STENCIL_SOL: configurations of the 25-point 512^3 f64 kernel (the tuning
# file's fields, as FDX_STENCIL_CFG takes them; ';' between them), each
# profiled once (a warm launch) with ncu's speed-of-light, memory-workload,
# occupancy and launch sections: is it bound by L1 or by DRAM?  Full
# reports in stencil-sol.txt, the headline lines in the log.
if [ -n "${STENCIL_SOL:-}" ] && command -v ncu >/dev/null; then
  IFS=';' read -ra sols <<<"$STENCIL_SOL"
  for cfg in "${sols[@]}"; do
    echo "== ncu 25-point 512^3 f64, FDX_STENCIL_CFG='$cfg'" | tee -a "$log" "$OUT/stencil-sol.txt"
    FDX_STENCIL_CFG="$cfg" timeout 150 ncu --clock-control none --section SpeedOfLight --section MemoryWorkloadAnalysis \
      --section Occupancy --section LaunchStats --kernel-name regex:fdx_ --launch-skip 1 --launch-count 1 \
      "$FDX_BIN" stencil --backend cuda --order 8 --size 512x512x512 --reps 1 >"$OUT/sol.tmp" 2>&1
    cat "$OUT/sol.tmp" >>"$OUT/stencil-sol.txt"
    grep -E "Duration|Throughput|Busy|Max Bandwidth|Hit Rate|Registers Per|Achieved Occupancy|Theoretical Occ|fdx_stencil|unroll" \
      "$OUT/sol.tmp" | tee -a "$log"
  done
  rm -f "$OUT/sol.tmp"
fi
if [ "${STENCIL_COUNTERS:-1}" = 1 ] && command -v ncu >/dev/null; then
  echo "== counters" | tee -a "$log"
  # STENCIL_COUNTER_CASES: the commands' arguments, separated by ';'.
  IFS=';' read -ra cases <<<"${STENCIL_COUNTER_CASES:-"--size 512x512x512 --order 2;--size 512x512x512 --order 8;\
--dims 2 --op wave --order 8 --size 16384x16384 --precision float;--size 1024x1024x1024 --order 2 --precision float"}"
  for args in "${cases[@]}"; do
    timeout 120 tools/profile-counters "$FDX_BIN" stencil --backend cuda $args 2>&1 | tee -a "$log"
  done
fi
