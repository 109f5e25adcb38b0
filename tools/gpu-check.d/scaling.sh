# Scaling runs (issue 8) on a machine of several GPUs, one process:
# strong scaling of the 2D 8th-order wave (float) at 16384^2 and 32768^2 and
# of the 3D 7-point heat (double) at 768^3 and 1536^3 on 1, 2, 4 (and 8 where
# present) GPUs, overlap on and off, CUDA graphs off and on; weak scaling at
# 16384^2 cells of wave per GPU.  Each run is one JSON record; the 1-GPU runs
# are the baselines (tools/scaling-table computes the efficiencies), so no
# run repeats the baseline itself.  SCALING_PART=wave|heat|all picks a half,
# so the matrix fits in two calls of the device tool; SCALING_PART=quick runs
# a few cases on every GPU count (graphs and overlap on) after a change;
# SCALING_PART=target runs only what the two 8-GPU targets need,
# for a short lease (32768^2 wave strong and weak scaling, 1 to max GPUs,
# plus 16384^2 and heat 768^3 on 1 and max GPUs).
set -u
ngpu=$(nvidia-smi -L | wc -l)
part=${SCALING_PART:-all}
out=$OUT/${GPU_CHECK_DATE}_${GPU_NAME}x${ngpu}_scaling.jsonl
log=$OUT/scaling.log
run() {
  echo "-- fdx dist $*" >>"$log"
  local t0=$SECONDS
  timeout 240 "$FDX_BIN" dist "$@" --backend cuda --baseline off --json 2>>"$log" | tee -a "$out" | cut -c1-200
  echo "   ($((SECONDS - t0)) s)" | tee -a "$log"
}
counts=1
for g in 2 4 8; do [ "$g" -le "$ngpu" ] && counts="$counts $g"; done

if [ "$part" = quick ]; then
  for g in $counts; do
    run wave --dims 2 --order 8 --size 4096x4096 --gpus $g --reps 10
    run wave --dims 2 --order 8 --size 16384x16384 --gpus $g --reps 10
    run heat --dims 3 --order 2 --size 768x768x768 --gpus $g --reps 10
  done
  exit 0
fi

if [ "$part" = target ]; then
  top=${counts##* }
  for g in $counts; do run wave --dims 2 --order 8 --size 32768x32768 --gpus $g --overlap on --graph on --reps 5; done
  # overlap off runs without graphs: its baseline is the 1-GPU run without them
  run wave --dims 2 --order 8 --size 32768x32768 --gpus 1 --overlap on --graph off --reps 5
  run wave --dims 2 --order 8 --size 32768x32768 --gpus $top --overlap off --graph off --reps 5
  for g in $counts; do
    run wave --dims 2 --order 8 --size 16384x$((16384 * g)) --gpus $g --overlap on --graph on --reps 10
  done
  run heat --dims 3 --order 2 --size 768x768x768 --gpus 1 --overlap on --graph on --reps 10
  run heat --dims 3 --order 2 --size 768x768x768 --gpus $top --overlap on --graph on --reps 10
  exit 0
fi

if [ "$part" != heat ]; then
  # Small grid first: does the graph capture work on this machine?  (The
  # note line of a failed capture goes to the log.)
  for g in $counts; do
    [ "$g" -gt 1 ] || continue
    for gr in off on; do run wave --dims 2 --order 8 --size 4096x4096 --gpus $g --graph $gr --reps 10; done
  done
  grep -h "note\|error" "$log" | sort | uniq -c | head
  for n in 16384 32768; do
    reps=$((n == 16384 ? 10 : 5))
    for g in $counts; do
      for gr in off on; do
        run wave --dims 2 --order 8 --size ${n}x$n --gpus $g --overlap on --graph $gr --reps $reps
        [ "$g" -gt 1 ] && [ "$gr" = off ] &&
          run wave --dims 2 --order 8 --size ${n}x$n --gpus $g --overlap off --graph off --reps $reps
      done
    done
  done
  # Weak scaling: 16384^2 per GPU, the grid growing along the slowest axis
  # (1 GPU: the strong-scaling run above).
  for g in $counts; do
    [ "$g" -gt 1 ] || continue
    for gr in off on; do
      run wave --dims 2 --order 8 --size 16384x$((16384 * g)) --gpus $g --overlap on --graph $gr --reps 10
    done
  done
fi

if [ "$part" != wave ]; then
  for g in $counts; do
    for gr in off on; do
      run heat --dims 3 --order 2 --size 768x768x768 --gpus $g --overlap on --graph $gr --reps 10
    done
    [ "$g" -gt 1 ] && run heat --dims 3 --order 2 --size 768x768x768 --gpus $g --overlap off --reps 10
  done
  for g in $counts; do
    run heat --dims 3 --order 2 --size 1536x1536x1536 --gpus $g --overlap on --graph on --steps 24 --reps 3
    [ "$g" -gt 1 ] && run heat --dims 3 --order 2 --size 1536x1536x1536 --gpus $g --overlap off --steps 24 --reps 3
  done
fi
