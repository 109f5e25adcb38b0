# Multigrid (issue 21): CPU/GPU agreement (test_mg_gpu), fdx mg on CUDA at
# the sizes (records to $OUT; targets: 257^3 to 1e-10 in <= 20 ms,
# 513^3 in <= 120 ms on the H100), variable coefficients (--coef smooth,
# jump) at 257^3 and 513^3, the one-pass residual+restriction against the
# two-pass kernels (FDX_MG_FUSE=0, records tagged "variant": "two-pass"),
# the shared-ring one-pass red-black sweep (FDX_MG_GS2=1, "variant":
# "one-pass-gs"; the default is now the z-marching one, FDX_MG_GS2=z;
# mgspeed.sh has the A/B of every variant), an nsys kernel summary of the
# default at 513^3,
# the CPU beside it for comparison, and compute-sanitizer memcheck/racecheck
# on the agreement test (FDX_TEST_SANITIZER=1: its big cases shrink so that
# racecheck finishes).
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
# the two-pass residual and restriction, for the fused kernel's gain
for n in 257 513; do
  FDX_MG_FUSE=0 "$FDX_BIN" mg --backend cuda --size ${n}x${n}x${n} --tol 1e-10 --json |
    sed 's/^{/{"variant": "two-pass", /' | tee -a "$rec"
  echo "fdx mg cuda $n^3 two-pass exit ${PIPESTATUS[0]}"
done
# the one-pass out-of-place red-black sweep (off by default until measured)
for n in 257 513; do
  for args in "" "--cycle fmg" "--coef smooth"; do
    FDX_MG_GS2=1 "$FDX_BIN" mg --backend cuda --size ${n}x${n}x${n} --tol 1e-10 $args --json |
      sed 's/^{/{"variant": "one-pass-gs", /' | tee -a "$rec"
    echo "fdx mg cuda $n^3 one-pass red-black $args exit ${PIPESTATUS[0]}"
  done
done
FDX_MG_GRAPH=0 timeout 300 nsys profile --stats=true -o "$OUT/mg_513_nsys" "$FDX_BIN" mg --backend cuda --size 513x513x513 \
  >"$OUT/mg_513_nsys.txt" 2>&1; echo "nsys (default kernels, plain launches, 513^3) exit $?"
grep -A25 "cuda_gpu_kern_sum" "$OUT/mg_513_nsys.txt" | head -30
# variable coefficients: -div(k grad u), k smooth (0.5..1.5) or a jump of 1e3
for n in 257 513; do
  for args in "--coef smooth" "--coef smooth --solver cg" "--coef jump --solver cg" "--coef jump"; do
    "$FDX_BIN" mg --backend cuda --size ${n}x${n}x${n} --tol 1e-10 --steps 100 $args --json | tee -a "$rec"
    echo "fdx mg cuda $n^3 $args exit ${PIPESTATUS[0]}"
  done
done
"$FDX_BIN" mg --backend cuda --size 257x257x257 --cycle fmg --json | tee -a "$rec"
"$FDX_BIN" mg --backend cuda --size 257x257x257 --cycle fmg --coef smooth --json | tee -a "$rec"
"$FDX_BIN" mg --backend cuda --size 4097x4097 --json | tee -a "$rec"
"$FDX_BIN" mg --backend cuda --size 200x300x100 --bc periodic --json | tee -a "$rec"
"$FDX_BIN" mg --backend cuda --size 256x256x256 --bc neumann --coef smooth --json | tee -a "$rec"
OMP_WAIT_POLICY=passive "$FDX_BIN" mg --backend cpu --size 257x257x257 --json | tee -a "$rec"
OMP_WAIT_POLICY=passive "$FDX_BIN" mg --backend cpu --size 257x257x257 --coef smooth --json | tee -a "$rec"
# time per kernel of one 257^3 solve (launch overhead of the coarse levels)
timeout 300 nsys profile --stats=true -o "$OUT/mg_nsys" "$FDX_BIN" mg --backend cuda --size 257x257x257 \
  >"$OUT/mg_nsys.txt" 2>&1; echo "nsys exit $?"; grep -A25 "cuda_gpu_kern_sum" "$OUT/mg_nsys.txt" | head -30
for tool in memcheck racecheck; do
  FDX_TEST_SANITIZER=1 timeout 600 compute-sanitizer --tool $tool --error-exitcode 99 "$bin/test_mg_gpu" \
    >>"$OUT/mg_sanitizer.log" 2>&1
  echo "sanitizer $tool test_mg_gpu (FDX_TEST_SANITIZER=1): exit $?"
done
tail -2 "$OUT/mg_sanitizer.log"
