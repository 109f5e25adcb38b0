# NPB LU (issue 15): fdx lu --backend cuda for classes S..C, one JSON record
# each to $OUT (autotfm on, and with --compare-autotfm the same run with
# autotfm off: speedup_autotfm), the layout moves of one class-B run
# (FDX_LOG=info: count and MB per iteration), the CPU backend on class B for
# the 16-core comparison, and, when NPB_GPU_DIR points at a GMAP/NPB-GPU
# checkout (default peers/NPB-GPU; not part of fdx), its CUDA LU for B and C built with sm_90 in
# the same device call.  test_lu_gpu (every routine vs NPB transcribed, class S
# verified under the GPU layouts) runs in gpu-check's ctest and sanitizer steps.
set -u
rec=$OUT/${GPU_CHECK_DATE}_${GPU_NAME}_lu.jsonl
# LU_CLASSES (default S W A B C) and LU_VARIANTS=0 (only the main runs) fit a short lease.
for c in ${LU_CLASSES:-S W A B C}; do
  timeout 280 "$FDX_BIN" lu --class $c --backend cuda --json --compare-autotfm | tee -a "$rec"
  echo "fdx lu class $c exit ${PIPESTATUS[0]}"
done
# The summary of the main runs: autotfm's speedup and its moves (2026-11-23
# dtfm: parallel loops walk the sweeps' diagonals, so the timed SSOR
# should show 0 transforms; it was 8 an iteration, 2,012 for class B).
python3 - "$rec" <<'PY' || true
import json, sys
for line in open(sys.argv[1]):
    try: r = json.loads(line)
    except ValueError: continue
    if r.get("case") != "lu" or "speedup_autotfm" not in r: continue
    m, t = r.get("layout_moves", {}), r.get("layout_moves_timed", {})
    print("lu class %s: autotfm %.3f s, off %.3f s, speedup_autotfm %.2f; moves %s (%.0f MB), in the timed SSOR %s; verified %s"
          % (r["class"], r["time_s"], r["time_no_autotfm_s"], r["speedup_autotfm"], m.get("transforms"),
             m.get("bytes", 0) / 1e6, t.get("transforms"), r["verified"]))
PY
# the CPU backend on the host's cores beside NPB's OpenMP LU below, both
# with OpenMP's default wait policy (passive waits cost fdx's hyperplane
# barriers 30%: 14.4 against 10.9 s on 2026-11-24)
timeout 400 "$FDX_BIN" lu --class B --backend cpu --json | tee -a "$rec"
# the peers (never part of fdx; fetched into the ignored peers/ folder and
# carried to the device): NPB-GPU's CUDA LU (GMAP/NPB-GPU) and NPB's OpenMP
# LU in C++ (GMAP/NPB-CPP, NPB-OMP) on the host's cores, same machine, same call
NPB_GPU_DIR=${NPB_GPU_DIR:-$PWD/peers/NPB-GPU}
NPB_OMP_DIR=${NPB_OMP_DIR:-$PWD/peers/NPB-CPP/NPB-OMP}
if [ -d "$NPB_OMP_DIR/LU" ]; then
  make -C "$NPB_OMP_DIR" lu CLASS=B >"$OUT/npb_omp_build_B.log" 2>&1 &&
    (cd "$NPB_OMP_DIR/bin" && OMP_NUM_THREADS=$(nproc) timeout 300 ./lu.B) | grep -E "Class|Time in seconds|Mop/s total|Total threads|Verification" | tee -a "$OUT/npb_omp_lu.txt"
else
  echo "NPB_OMP_DIR not found: the NPB OpenMP peer was not run"
fi
if [ -n "${NPB_GPU_DIR:-}" ] && [ -d "$NPB_GPU_DIR/CUDA" ]; then
  for c in B C; do
    make -C "$NPB_GPU_DIR/CUDA" lu CLASS=$c COMPUTE_CAPABILITY="-gencode arch=compute_90,code=sm_90" >"$OUT/npb_gpu_build_$c.log" 2>&1 &&
      (cd "$NPB_GPU_DIR/CUDA/bin" && timeout 120 ./lu.$c) | grep -E "Class|Time in seconds|Mop/s total|Verification" | tee -a "$OUT/npb_gpu_lu.txt"
  done
else
  echo "NPB_GPU_DIR not set: the NPB-GPU peer was not run"
fi
[ "${LU_VARIANTS:-1}" = 0 ] && exit 0
# autotfm for the sweeps only (the parallel loops run under the sweeps'
# anti-diagonal layouts: no moves after the first iteration), and the same
# with prim/rhs/add walking the anti-diagonals (coalesced on that layout)
for scope in sweeps diagonal; do
  for c in B C; do
    timeout 200 "$FDX_BIN" lu --class $c --backend cuda --json --autotfm-scope $scope | sed "s/\"case\": \"lu\"/\"case\": \"lu_$scope\"/" | tee -a "$rec"
  done
done
# no waits between routines (--timers off: the loops queue on a context
# stream; no section times), for the cost of the ~6 waits an iteration
for c in B C; do
  timeout 200 "$FDX_BIN" lu --class $c --backend cuda --json --timers off --compare-autotfm | sed 's/"case": "lu"/"case": "lu_notimers"/' | tee -a "$rec"
done
# the runtime's default hyperplane geometry (one warp per line) instead of
# fdx lu's thread per point, for comparison
for c in B C; do
  FDX_LOOP_LINES=1 timeout 200 "$FDX_BIN" lu --class $c --backend cuda --json | sed 's/"case": "lu"/"case": "lu_lines"/' | tee -a "$rec"
done
# distributed loops: 2 units (2 GPUs where the host has them, else both on
# one GPU: then only the verification counts), autotfm on the blocks vs off
for c in S B; do
  timeout 280 "$FDX_BIN" lu --class $c --backend cuda --gpus 2 --json --compare-autotfm | sed 's/"case": "lu"/"case": "lu_dist"/' | tee -a "$rec"
done
# where the time goes: layout moves per run (blts wants anti-diagonals, the
# parallel loops i-fastest permutations)
FDX_LOG=info timeout 200 "$FDX_BIN" lu --class B --backend cuda 2>"$OUT/lu_moves.log" | grep -E "Time|Verification"
grep -c "autotfm moved" "$OUT/lu_moves.log" | sed 's/^/layout moves in a class B run (251 SSOR iterations + setup): /'
grep "autotfm moved" "$OUT/lu_moves.log" | sed "s/.*loop '\([a-z_]*\)': autotfm moved \([A-Z]\) .*; \([0-9.]*\) MB in \([0-9.]*\) ms/\1 \2 \3 \4/" |
  awk '{n[$1" "$2]++; mb[$1" "$2]+=$3; ms[$1" "$2]+=$4} END {for (k in n) printf "  %-12s %5d moves %10.0f MB %9.1f ms\n", k, n[k], mb[k], ms[k]}'
