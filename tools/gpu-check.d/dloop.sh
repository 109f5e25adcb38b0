# Distributed loops (issue 14): the loop and dist-loop tests on the GPU
# (test_loop_order_gpu, test_dist_loop_gpu: units on the GPUs), then fdx sor --gpus K
# as a distributed ACROSS loop, records to $OUT:
#   - --gpus 1 on every machine: the distributed layer's cost over the plain
#     path (time_ms vs time_one_unit_ms in the same record; since 2026-11-23
#     (dtfm) the blocks take autotfm's diagonal layout too, as the plain
#     path does; case sor_dist_noautotfm: the blocks kept plain, as before,
#     where 256^3 took 86.5 vs 27.3 ms and 512^3 770.6 vs 177.4 ms);
#   - --gpus 2 / 4 where the machine has them: issue 14's targets (512^3,
#     100 sweeps: 2 GPUs >= 1.6x one GPU, 4 GPUs >= 2.8x), max_diff 0;
#   - DLOOP_PORTIONS="2 4 8 16" (optional): the portion count swept by hand;
#   - fdx bench dloop: the loop layer's cost over fdx dist's stencil path.
# Then compute-sanitizer memcheck on test_loop_order_gpu.
set -u
bin=$(dirname "$FDX_BIN")
"$bin/test_loop_order_gpu" | tail -2; echo "test_loop_order_gpu exit ${PIPESTATUS[0]}"
"$bin/test_loop_gpu" | tail -1
"$bin/test_dist_loop_gpu" | tail -2; echo "test_dist_loop_gpu exit ${PIPESTATUS[0]}"
rec=$OUT/${GPU_CHECK_DATE}_${GPU_NAME}_sor_dist.jsonl
ngpu=$(nvidia-smi -L 2>/dev/null | wc -l)
"$FDX_BIN" sor --backend cuda --size 256x256x256 --steps 100 --reps 5 --gpus 1 --json | tee -a "$rec"
"$FDX_BIN" sor --backend cuda --size 512x512x512 --steps 100 --reps 3 --gpus 1 --json | tee -a "$rec"
"$FDX_BIN" aos --backend cuda --size 256x256x256 --steps 100 --reps 5 --gpus 1 --json | tee -a "$rec"
for n in 256 512; do
  FDX_DLOOP_AUTOTFM=off "$FDX_BIN" sor --backend cuda --size ${n}x${n}x${n} --steps 100 --reps 3 --gpus 1 --json |
    sed 's/"case": "sor_dist"/"case": "sor_dist_noautotfm"/' | tee -a "$rec"
done
python3 - "$rec" <<'PY' || true
import json, sys
for line in open(sys.argv[1]):
    try: r = json.loads(line)
    except ValueError: continue
    if r.get("case", "").startswith("sor_dist") and r.get("gpus") == 1:
        t = r["time_ms"]["median"] if isinstance(r["time_ms"], dict) else r["time_ms"]
        print("%s %s: distributed %.1f ms, plain loop %.1f ms (ratio %.2f), max_diff_one_unit %s"
              % (r["case"], "x".join(map(str, r["shape"])), t, r["time_one_unit_ms"],
                 t / r["time_one_unit_ms"], r.get("max_diff_one_unit")))
PY
# issue 14's 3% target: the distributed loop layer against the hand-written
# distributed stencil path, 2D heat 16384^2 double (1 unit, and 2 units on
# whatever GPUs there are)
"$FDX_BIN" bench dloop --backend cuda --size 16384x16384 --steps 100 --gpus 1 --json | tee -a "$rec"
"$FDX_BIN" bench dloop --backend cuda --size 16384x16384 --steps 100 --gpus 2 --json | tee -a "$rec"
for k in 2 4; do
  [ "$ngpu" -ge $k ] || continue
  "$FDX_BIN" sor --backend cuda --size 512x512x512 --steps 100 --reps 3 --gpus $k --json | tee -a "$rec"
  "$FDX_BIN" aos --backend cuda --size 256x256x256 --steps 100 --reps 5 --gpus $k --json | tee -a "$rec"
  for p in ${DLOOP_PORTIONS:-}; do
    FDX_DLOOP_PORTIONS=$p "$FDX_BIN" sor --backend cuda --size 512x512x512 --steps 100 --reps 3 --gpus $k --json | tee -a "$rec"
  done
done
timeout 300 compute-sanitizer --tool memcheck --error-exitcode 99 "$bin/test_loop_order_gpu" >>"$OUT/dloop_sanitizer.log" 2>&1
echo "sanitizer memcheck test_loop_order_gpu: exit $?"
tail -2 "$OUT/dloop_sanitizer.log"
