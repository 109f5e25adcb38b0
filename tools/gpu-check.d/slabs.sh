# Where the boundary slabs of an overlapped distributed step run: on the
# urgent comm stream beside the interior (default) or ahead of the interior
# on the compute stream (FDX_DSTENCIL_SLABS_ON_COMPUTE=1); graphs on and off, on
# every GPU count present.  Records carry the placement in the file name.
set -u
ngpu=$(nvidia-smi -L | wc -l)
"$PWD/build-gpu/bin/test_dist_gpu" 2>&1 | tail -1
base=$OUT/${GPU_CHECK_DATE}_${GPU_NAME}x${ngpu}_slabs
run() { timeout 60 "$FDX_BIN" dist "$@" --backend cuda --json 2>>"$OUT/slabs.log"; }
for n in 4096x4096 16384x16384; do run wave --dims 2 --order 8 --size $n --reps 10; done >"${base}_1gpu.jsonl"
run heat --dims 3 --order 2 --size 768x768x768 --reps 10 >>"${base}_1gpu.jsonl"
for where in comm compute; do
  export FDX_DSTENCIL_SLABS_ON_COMPUTE=$([ $where = compute ] && echo 1 || echo 0)
  for g in 2 4; do
    [ "$g" -le "$ngpu" ] || continue
    for gr in on off; do
      run wave --dims 2 --order 8 --size 4096x4096 --gpus $g --graph $gr --baseline off --reps 10
      run wave --dims 2 --order 8 --size 16384x16384 --gpus $g --graph $gr --baseline off --reps 10
      run heat --dims 3 --order 2 --size 768x768x768 --gpus $g --graph $gr --baseline off --reps 10
    done
  done >"${base}_on_$where.jsonl"
done
wc -l "$base"*
