# User stencils (issue 17 item 3, docs/notes/stencil.md "User stencils"):
# the GPU test (every case against the CPU reference, default and forced
# configurations, a tuned run), the NVRTC compile of every variant, then
# the benchmark records: the 3x3x3 box and div(k grad u) in both precisions
# at 512^3 and 509x257x255, every tuner candidate timed (tune force; each
# candidate's time in ustencil-tuning.txt).  Targets (H100): box27_f64_512
# and div_f64_512 "ratio_to_copy" >= 0.90.  Run: tools/gpu-check ustencil
# (USTENCIL_TUNE=on reuses earlier tuning; USTENCIL_CASES=a,b limits the
# cases; USTENCIL_SAN=1 also runs test_ustencil_gpu under memcheck here).
set -u
log=$OUT/ustencil.log
bin=$(dirname "$FDX_BIN")
for t in test_ustencil_gpu test_ustencil_nvrtc test_ustencil; do
  echo "== $t"
  if [ -x "$bin/$t" ]; then timeout 600 "$bin/$t" 2>&1 | tail -12; else echo "$t: not built"; fi
done >>"$log" 2>&1
tail -12 "$log"
echo "== bench ustencil (cuda, tune ${USTENCIL_TUNE:-force})" | tee -a "$log"
FDX_LOG=info timeout 900 "$FDX_BIN" bench ustencil --backend cuda --tune "${USTENCIL_TUNE:-force}" --json \
  ${USTENCIL_CASES:+--cases $USTENCIL_CASES} 2>>"$log" | tee -a "$OUT/${GPU_CHECK_DATE}_${GPU_NAME}_ustencil.jsonl" |
  grep -oE '"case": "[^"]*"|"config": "[^"]*"|"median": [0-9.]+|"ratio_to_copy": [0-9.]+|"verified": [a-z]+' |
  tr '\n' ' ' | sed 's/"case"/\n"case"/g'
echo
grep -E "user stencil (tuning|tuned)" "$log" | sed 's/^.*user stencil/user stencil/' >"$OUT/ustencil-tuning.txt"
if [ "${USTENCIL_SAN:-0}" = 1 ] && [ -x "$bin/test_ustencil_gpu" ]; then
  echo "== compute-sanitizer memcheck test_ustencil_gpu" | tee -a "$log"
  timeout 900 compute-sanitizer --tool memcheck --error-exitcode 99 "$bin/test_ustencil_gpu" 2>&1 | tail -5 | tee -a "$log"
fi
