# Distributed ACROSS as one wavefront over every unit (issue 14 item 2,
# src/comm/fdx_dacross.c, 2026-11-24): test_dacross_gpu, then fdx sor with
# the distributed loop against the one-unit plain path (time_one_unit_ms in
# the same record), records to $OUT/*_dacross.jsonl:
#   - on ONE GPU (CUDA_VISIBLE_DEVICES=0): 256^3 and 512^3, 20 sweeps,
#     --gpus 1 and --gpus 2 (two units sharing the GPU: the proxy for "the
#     host no longer serialises the units"; target: close to the one-unit
#     time; the old per-portion path took 268 ms against 6.8 ms at 256^3);
#   - where 2+ GPUs are visible: --gpus 2 on two devices, 512^3, 20 and 100
#     sweeps (issue 14's target: >= 1.6x one GPU at 100 sweeps);
#   - FDX_DLOOP_GRAPH=1 (case sor_dist_graph): the same runs replayed as
#     one CUDA graph over both units from the third rep on (opt-in);
#   - DACROSS_PORTIONS (default "64 160 320": portions of B = 20, 8, 4
#     hyperplane steps for a 512^3 half block): FDX_DLOOP_PORTIONS by hand
#     at 512^3, 20 sweeps, --gpus 2 on one GPU (and on two where there
#     are), against the model's choice, to fit the model.
# About 55 s on one H100 (the one-unit runs and NVRTC compiles included).
set -u
OUT=${OUT:-$PWD/gpu-out}
bin=$(dirname "$FDX_BIN")
"$bin/test_dacross_gpu" | tail -2; echo "test_dacross_gpu exit ${PIPESTATUS[0]}"
rec=$OUT/${GPU_CHECK_DATE}_${GPU_NAME}_dacross.jsonl
ngpu=$(nvidia-smi -L 2>/dev/null | wc -l)
# CASE (optional) renames the record's case (variants of one command)
sor() { timeout 120 "$FDX_BIN" sor --backend cuda --reps 3 --json "$@" | sed "s/\"case\": \"sor_dist\"/\"case\": \"${CASE:-sor_dist}\"/" | tee -a "$rec"; }
for n in 256 512; do
  for k in 1 2; do
    CUDA_VISIBLE_DEVICES=0 sor --size ${n}x${n}x${n} --steps 20 --gpus $k
  done
done
# FDX_DLOOP_GRAPH=1: a repeated run replayed as one CUDA graph over both
# units (opt-in until measured; the record must still say verified true)
for n in 256 512; do
  CASE=sor_dist_graph CUDA_VISIBLE_DEVICES=0 FDX_DLOOP_GRAPH=1 sor --size ${n}x${n}x${n} --steps 20 --gpus 2
done
if [ "$ngpu" -ge 2 ]; then
  sor --size 512x512x512 --steps 20 --gpus 2
  sor --size 512x512x512 --steps 100 --gpus 2
  CASE=sor_dist_graph FDX_DLOOP_GRAPH=1 sor --size 512x512x512 --steps 100 --gpus 2
fi
for p in ${DACROSS_PORTIONS-64 160 320}; do
  CUDA_VISIBLE_DEVICES=0 FDX_DLOOP_PORTIONS=$p sor --size 512x512x512 --steps 20 --gpus 2
  [ "$ngpu" -ge 2 ] && FDX_DLOOP_PORTIONS=$p sor --size 512x512x512 --steps 20 --gpus 2
done
python3 - "$rec" <<'PY' || true
import json, sys
for line in open(sys.argv[1]):
    try: r = json.loads(line)
    except ValueError: continue
    if not r.get("case", "").startswith("sor_dist"): continue
    t = r["time_ms"]["median"] if isinstance(r["time_ms"], dict) else r["time_ms"]
    print("%s %s %d sweeps: %d units on %d GPUs, %d portions: %.1f ms, one unit %.1f ms, speedup %.2f, max_diff %s, verified %s"
          % (r["case"], "x".join(map(str, r["shape"])), r["sweeps"], r["units"], r.get("devices_per_rank", 0), r["portions"], t,
             r["time_one_unit_ms"], r["speedup_vs_one_unit"], r["max_diff_one_unit"], r["verified"]))
PY
# where the 2-GPU time goes (docs/notes/dist.md, session 8): the wavefront
# model fitted to this run's records (needs the 20- and 100-sweep runs)
[ "$ngpu" -ge 2 ] && python3 tools/dacross-model "$rec" --what-if 2 10 || true
