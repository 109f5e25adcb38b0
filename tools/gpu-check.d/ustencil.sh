# User stencils (issue 17 item 3, docs/notes/stencil.md "User stencils" and
# "2026-11-24 session 8 (helper bc)"): the GPU test (every case against the
# CPU reference, default and forced configurations including register caps,
# a tuned run), then an A/B of pinned configurations (FDX_USTENCIL_CFG, no
# tuning: about a minute): box27_f64_512 at the H100 winner march 64x4 vec2
# chunk 8 unroll 1 pf2 rows2 pipe (112 registers) and two tile forms,
# div_f64_512 at its winner point 32x8 and two tile forms (about a minute
# and a half with test_ustencil_gpu; USTENCIL_GPU_TEST=0 skips the test).  Targets (H100): "ratio_to_copy" >= 0.90.  Then, only
# with USTENCIL_TUNE=force|on, the tuned benchmark of every case (the
# tuner's stage 2 tries the register caps; each candidate's time in
# ustencil-tuning.txt; minutes).  Run: tools/gpu-check ustencil
# (USTENCIL_CASES=a,b limits the tuned cases; USTENCIL_SAN=1 also runs
# test_ustencil_gpu under memcheck).
set -u
log=$OUT/ustencil.log
rec=$OUT/${GPU_CHECK_DATE}_${GPU_NAME}_ustencil.jsonl
bin=$(dirname "$FDX_BIN")
for t in test_ustencil_gpu; do
  [ "${USTENCIL_GPU_TEST:-1}" = 0 ] && break
  echo "== $t"
  if [ -x "$bin/$t" ]; then timeout 300 "$bin/$t" 2>&1 | tail -12; else echo "$t: not built"; fi
done >>"$log" 2>&1
tail -12 "$log"
pinned() { # case cfg-fields name
  echo "== pinned $1 $3 ($2)" | tee -a "$log"
  FDX_USTENCIL_CFG="$2" timeout 120 "$FDX_BIN" bench ustencil --backend cuda --tune off --json --reps 20 \
    --cases "$1" 2>>"$log" | sed -e "s/^{/{\"pin\": \"$3\", /" | tee -a "$rec" |
    grep -oE '"case": "[^"]*"|"config": "[^"]*"|"median": [0-9.]+|"ratio_to_copy": [0-9.]+|"verified": [a-z]+' |
    tr '\n' ' ' | tee -a "$log"
  echo | tee -a "$log"
}
# fields: variant tx ty vec unroll chunk vload pf rows pipe minb (variant 0
# point, 1 march, 2 tile: pf = planes in flight).  Session 9: the march's
# winners against the shared-memory tile (FDX_US_TILE: each plane's block
# tile copied once by cp.async, the in-plane neighbours from shared memory;
# the march was L2-bound, ncu: L2 92% / 99%).  Registers (ptxas sm_90):
# box tile 32x8 vec1 32, vec2 38, 64x4 vec2 rows2 71; div tile 32x8 vec1
# 36, 128x2 46, 32x8 vec2 60 (the march: box 112, div point 30).
pinned box27_f64_512 "1 64 4 2 1 8 0 2 2 1 0" march
for t in "32 8 1 1 16 0 2 1" "64 4 2 1 8 0 2 2"; do
  pinned box27_f64_512 "2 $t 0 0" "tile $t"
done
pinned div_f64_512 "0 32 8 1 1 1 0 0 1 0 0" point
for t in "32 8 1 1 16 0 2 1" "128 2 1 1 16 0 2 1"; do
  pinned div_f64_512 "2 $t 0 0" "tile $t"
done
[ "${USTENCIL_TUNE:-off}" = off ] && exit 0
echo "== bench ustencil (cuda, tune $USTENCIL_TUNE)" | tee -a "$log"
FDX_LOG=info timeout 900 "$FDX_BIN" bench ustencil --backend cuda --tune "$USTENCIL_TUNE" --json \
  ${USTENCIL_CASES:+--cases $USTENCIL_CASES} 2>>"$log" | tee -a "$rec" |
  grep -oE '"case": "[^"]*"|"config": "[^"]*"|"median": [0-9.]+|"ratio_to_copy": [0-9.]+|"verified": [a-z]+' |
  tr '\n' ' ' | sed 's/"case"/\n"case"/g'
echo
grep -E "user stencil (tuning|tuned)" "$log" | sed 's/^.*user stencil/user stencil/' >"$OUT/ustencil-tuning.txt"
if [ "${USTENCIL_SAN:-0}" = 1 ] && [ -x "$bin/test_ustencil_gpu" ]; then
  echo "== compute-sanitizer memcheck test_ustencil_gpu" | tee -a "$log"
  timeout 900 compute-sanitizer --tool memcheck --error-exitcode 99 "$bin/test_ustencil_gpu" 2>&1 | tail -5 | tee -a "$log"
fi
