# Scaling runs (issue 8) on a machine of several GPUs: strong scaling of the
# 2D 8th-order wave (float) and the 3D 7-point heat (double) on 1, 2, 4 (and 8
# where present) GPUs of one process, overlap on and off, each against its
# 1-GPU baseline measured in the same process; weak scaling at a fixed size
# per GPU (the grid grows along the slowest axis).  One JSON record per run.
set -u
ngpu=$(nvidia-smi -L | wc -l)
out=$OUT/${GPU_CHECK_DATE}_${GPU_NAME}x${ngpu}_scaling.jsonl
log=$OUT/scaling.log
run() { timeout 120 "$FDX_BIN" dist "$@" --backend cuda --json 2>>"$log" | tee -a "$out" | cut -c1-240; }
counts=""
for g in 2 4 8; do [ "$g" -le "$ngpu" ] && counts="$counts $g"; done
for g in $counts; do
  for ov in on off; do
    run wave --dims 2 --order 8 --size 16384x16384 --gpus $g --overlap $ov --reps 10
    run wave --dims 2 --order 8 --size 32768x32768 --gpus $g --overlap $ov --reps 5
  done
  run heat --dims 3 --order 2 --size 768x768x768 --gpus $g --reps 10
  run heat --dims 3 --order 2 --size 1536x1536x1536 --gpus $g --reps 3
done
# Weak scaling: 16384^2 cells of wave per GPU.
for g in 1 $counts; do
  run wave --dims 2 --order 8 --size 16384x$((16384 * g)) --gpus $g --baseline off --reps 10
done
