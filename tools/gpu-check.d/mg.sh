# Multigrid (issue 21): CPU/GPU agreement (test_mg_gpu), fdx mg on CUDA at
# the sizes (records to $OUT; targets: 257^3 to 1e-10 in <= 20 ms,
# 513^3 in <= 120 ms on the H100), the CPU beside it for comparison, and
# compute-sanitizer memcheck/racecheck on the agreement test.
set -u
bin=$(dirname "$FDX_BIN")
"$bin/test_mg_gpu"; echo "test_mg_gpu exit $?"
rec=$OUT/${GPU_CHECK_DATE}_${GPU_NAME}_mg.jsonl
for n in 129 257 513; do
  for solver in mg cg; do
    "$FDX_BIN" mg --backend cuda --size ${n}x${n}x${n} --tol 1e-10 --solver $solver --json | tee -a "$rec"
    echo "fdx mg cuda $n^3 $solver exit ${PIPESTATUS[0]}"
  done
done
"$FDX_BIN" mg --backend cuda --size 257x257x257 --cycle fmg --json | tee -a "$rec"
"$FDX_BIN" mg --backend cuda --size 4097x4097 --json | tee -a "$rec"
"$FDX_BIN" mg --backend cuda --size 200x300x100 --bc periodic --json | tee -a "$rec"
OMP_WAIT_POLICY=passive "$FDX_BIN" mg --backend cpu --size 257x257x257 --json | tee -a "$rec"
# time per kernel of one 257^3 solve (launch overhead of the coarse levels)
timeout 300 nsys profile --stats=true -o "$OUT/mg_nsys" "$FDX_BIN" mg --backend cuda --size 257x257x257 \
  >"$OUT/mg_nsys.txt" 2>&1; echo "nsys exit $?"; grep -A25 "cuda_gpu_kern_sum" "$OUT/mg_nsys.txt" | head -30
for tool in memcheck racecheck; do
  timeout 300 compute-sanitizer --tool $tool --error-exitcode 99 "$bin/test_mg_gpu" >>"$OUT/mg_sanitizer.log" 2>&1
  echo "sanitizer $tool test_mg_gpu: exit $?"
done
tail -2 "$OUT/mg_sanitizer.log"
