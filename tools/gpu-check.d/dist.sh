# Distributed runs (issue 6): fdx dist on 1 and 2 GPUs in one process (peer
# copies), overlap on and off, CUDA graphs on and off; fdx wave/heat --gpus
# against the one-array run; under mpirun -np 2 (staged through pinned host
# memory).  The 1-GPU baseline is measured in the same process.
set -u
export FDX_CACHE_DIR=${FDX_CACHE_DIR:-$PWD/build-gpu/dist-cache}
tests=build-gpu/bin
log=$OUT/dist.log
"$tests/test_dist_gpu" 2>&1 | tail -3 | tee -a "$log"
if [ "${DIST_SANITIZE:-1}" = 1 ]; then
  # Two GPUs are enough to cover peer copies; the graph runs make it long.
  CUDA_VISIBLE_DEVICES=0,1 timeout 240 compute-sanitizer --tool memcheck --print-limit 5 --error-exitcode 99 "$tests/test_dist_gpu" 2>&1 | grep -v "^=========     Host Frame" | head -40 | tee -a "$log"
fi
# The simulation commands: checksum on 2 GPUs (graphs are not used there)
# must equal the one-array run on one GPU.
for k in heat wave; do
  a=$("$FDX_BIN" $k --backend cuda --size 1024x768 --steps 200 --progress off --sponge 10 2>&1 | grep checksum)
  [ $k = heat ] && a=$("$FDX_BIN" $k --backend cuda --size 1024x768 --steps 200 --progress off 2>&1 | grep checksum)
  for g in 1 2; do
    if [ $k = heat ]; then b=$("$FDX_BIN" $k --backend cuda --size 1024x768 --steps 200 --progress off --gpus $g 2>&1 | grep checksum)
    else b=$("$FDX_BIN" $k --backend cuda --size 1024x768 --steps 200 --progress off --sponge 10 --gpus $g 2>&1 | grep checksum); fi
    echo "sim $k gpus $g: $b / one array: $a $([ "$a" = "$b" ] && echo SAME || echo DIFFERENT)" | tee -a "$log"
  done
done
"$FDX_BIN" wave --backend cuda --size 4096x4096 --steps 300 --gpus 2 --json --progress off 2>>"$log" >"$OUT/sim_wave_gpus2.json"
"$FDX_BIN" wave --backend cuda --size 4096x4096 --steps 300 --json --progress off 2>>"$log" >"$OUT/sim_wave_gpus0.json"
wave=$OUT/${GPU_CHECK_DATE}_${GPU_NAME}_dist_wave.jsonl
heat=$OUT/${GPU_CHECK_DATE}_${GPU_NAME}_dist_heat.jsonl
run() { timeout 75 "$FDX_BIN" dist "$@" --backend cuda --json 2>>"$log" | tee -a "$out"; }
out=$wave
for g in on off; do
  for ov in on off; do run wave --dims 2 --order 8 --size 4096x4096 --steps 20 --gpus 2 --overlap $ov --graph $g; done
done
for ov in on off; do run wave --dims 2 --order 8 --size 16384x16384 --steps 20 --gpus 2 --overlap $ov; done
for g in on off; do run wave --dims 2 --order 8 --size 512x512 --steps 20 --gpus 2 --graph $g; done
out=$heat
for ov in on off; do run heat --dims 3 --order 2 --size 768x768x768 --steps 10 --gpus 2 --overlap $ov; done
nvidia-smi topo -m 2>&1 | head -5 >>"$log"
