# Distributed ACROSS as one wavefront over every unit (issue 14 item 2,
# src/comm/fdx_dacross.c) and its two A/B knobs (session 9):
#   FDX_LOOP_COOP=1  a portion's hyperplane steps (one unit: the whole run)
#                    in ONE cooperative launch, a grid barrier between steps
#                    (src/loops/fdx_loop_gen_gpu.c, fdx_loop_run.c), the
#                    steps' blocks from a work counter (2: round robin);
#   FDX_DLOOP_LATE=1 the shadows renewed one portion late, off the critical
#                    path (src/comm/fdx_dacross_late.c; sweeps 4B + w - 1
#                    apart instead of 2B + w - 1).
# First the tests: test_dacross_gpu (on time and late inside, bit for bit
# one unit's) plain and with FDX_LOOP_COOP=1, and test_loop_gpu with
# FDX_LOOP_COOP=1 (one-unit ACROSS with reductions and layouts).  Then fdx
# sor, 512^3, the distributed loop against the one-unit path of the same
# knobs (time_one_unit_ms in the record), in four cases, records to
# $OUT/*_dacross.jsonl: sor_dist (both off), sor_dist_coop, sor_dist_late,
# sor_dist_coop_late (and sor_dist_coop_late_sm2: FDX_LOOP_COOP_SM=2, the
# cooperative grid at 2 blocks a multiprocessor):
#   - on ONE GPU (CUDA_VISIBLE_DEVICES=0): 100 and 20 sweeps, --gpus 1 and
#     --gpus 2 (two units sharing the GPU), each record with the one-unit
#     plain path's time of the same knobs (time_one_unit_ms): the matrix
#     {default, COOP, LATE, COOP+LATE} x {one, --gpus 1, --gpus 2};
#   - where 2+ GPUs are visible: --gpus 2 on two devices at 20 and 100
#     sweeps (issue 14's target: >= 1.6x one GPU at 100 sweeps), then
#     tools/dacross-model fits each case (c0 a step, cr a renewal).
# DACROSS_PORTIONS="64 160 320" (default none) adds a portion sweep.
# About 90 s on one H100 (NVRTC compiles included), ~120 s with 2 GPUs.
set -u
OUT=${OUT:-$PWD/gpu-out}
bin=$(dirname "$FDX_BIN")
# (the plain test_dacross_gpu runs in gpu-check's ctest stage unless SKIP_TESTS=1;
# DACROSS_TESTS=0 skips these)
if [ "${DACROSS_TESTS:-1}" = 1 ]; then
  if [ "${SKIP_TESTS:-0}" = 1 ]; then
    timeout 300 "$bin/test_dacross_gpu" | tail -3; echo "test_dacross_gpu exit ${PIPESTATUS[0]}"
  fi
  FDX_LOOP_COOP=1 timeout 300 "$bin/test_dacross_gpu" | tail -3; echo "test_dacross_gpu FDX_LOOP_COOP=1 exit ${PIPESTATUS[0]}"
  FDX_LOOP_COOP=1 timeout 300 "$bin/test_loop_gpu" | tail -2; echo "test_loop_gpu FDX_LOOP_COOP=1 exit ${PIPESTATUS[0]}"
fi
rec=$OUT/${GPU_CHECK_DATE}_${GPU_NAME}_dacross.jsonl
ngpu=$(nvidia-smi -L 2>/dev/null | wc -l)
# sor CASE KNOBS ARGS...: one record, its case renamed to CASE
sor() {
  local c=$1 k=$2; shift 2
  env $k timeout 120 "$FDX_BIN" sor --backend cuda --reps 3 --json "$@" | sed "s/\"case\": \"sor_dist\"/\"case\": \"$c\"/" | tee -a "$rec"
}
cases="sor_dist:FDX_LOOP_COOP=0 sor_dist_coop:FDX_LOOP_COOP=1 sor_dist_late:FDX_DLOOP_LATE=1 sor_dist_coop_late:FDX_LOOP_COOP=1,FDX_DLOOP_LATE=1"
for s in 100 20; do
  for g in 1 2; do
    for v in $cases; do
      CUDA_VISIBLE_DEVICES=0 sor "${v%%:*}" "$(echo "${v#*:}" | tr , ' ')" --size 512x512x512 --steps $s --gpus $g
    done
  done
done
# the cooperative kernel with a fixed round robin of the steps' blocks
# (FDX_LOOP_COOP=2, the 09:33 run's version), and its grid at 2 blocks a
# multiprocessor (a cheaper barrier)
for g in 1 2; do CUDA_VISIBLE_DEVICES=0 sor sor_dist_coop2 FDX_LOOP_COOP=2 --size 512x512x512 --steps 100 --gpus $g; done
CUDA_VISIBLE_DEVICES=0 sor sor_dist_coop_late_sm2 "FDX_LOOP_COOP=1 FDX_DLOOP_LATE=1 FDX_LOOP_COOP_SM=2" --size 512x512x512 --steps 100 --gpus 2
if [ "$ngpu" -ge 2 ]; then
  for v in $cases; do
    for s in 100 20; do sor "${v%%:*}" "$(echo "${v#*:}" | tr , ' ')" --size 512x512x512 --steps $s --gpus 2; done
  done
  sor sor_dist_coop_late_sm2 "FDX_LOOP_COOP=1 FDX_DLOOP_LATE=1 FDX_LOOP_COOP_SM=2" --size 512x512x512 --steps 100 --gpus 2
fi
for p in ${DACROSS_PORTIONS-}; do
  CUDA_VISIBLE_DEVICES=0 sor sor_dist FDX_DLOOP_PORTIONS=$p --size 512x512x512 --steps 20 --gpus 2
  [ "$ngpu" -ge 2 ] && sor sor_dist FDX_DLOOP_PORTIONS=$p --size 512x512x512 --steps 20 --gpus 2
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
# where the 2-GPU time goes (docs/notes/dist.md, sessions 8 and 9): the
# wavefront model fitted to each case's records (20- and 100-sweep runs)
[ "$ngpu" -ge 2 ] && python3 tools/dacross-model "$rec" --what-if 2 8 || true
