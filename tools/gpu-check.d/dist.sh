# Distributed runs (issue 6): fdx dist on 1 and 2 GPUs in one process (peer
# copies), overlap on and off, and under mpirun -np 2 (MPI staged through
# pinned host memory); the 1-GPU baseline is measured in the same process.
set -u
export FDX_CACHE_DIR=${FDX_CACHE_DIR:-$PWD/build-gpu/dist-cache}
tests=build-gpu/bin
log=$OUT/dist.log
"$tests/test_dist_gpu" 2>&1 | tail -3 | tee -a "$log"
if [ "${DIST_SANITIZE:-1}" = 1 ]; then
  timeout 90 compute-sanitizer --tool memcheck --print-limit 5 --error-exitcode 99 "$tests/test_dist_gpu" 2>&1 | grep -v "^=========     Host Frame" | head -60 | tee -a "$log"
fi
nvidia-smi topo -m 2>&1 | head -5 | tee -a "$log"
wave=$OUT/${GPU_CHECK_DATE}_${GPU_NAME}_dist_wave.jsonl
heat=$OUT/${GPU_CHECK_DATE}_${GPU_NAME}_dist_heat.jsonl
run() { timeout 75 "$FDX_BIN" dist "$@" --backend cuda --json 2>>"$log" | tee -a "$out"; }
out=$wave
for n in 16384 4096; do
  for ov in on off; do run wave --dims 2 --order 8 --size ${n}x$n --steps 20 --gpus 2 --overlap $ov; done
done
out=$heat
for ov in on off; do run heat --dims 3 --order 2 --size 768x768x768 --steps 10 --gpus 2 --overlap $ov; done
out=$wave
for ov in on off; do run wave --dims 2 --order 8 --size 512x512 --steps 20 --gpus 2 --overlap $ov; done
# Between processes: two ranks of one GPU each, staged through host memory.
out=$OUT/${GPU_CHECK_DATE}_${GPU_NAME}_dist_mpi.jsonl
if command -v mpirun >/dev/null; then
  for n in 4096; do
    timeout 60 mpirun --allow-run-as-root -np 2 "$FDX_BIN" dist wave --backend cuda --size ${n}x$n --steps 20 --gpus 1 --json 2>>"$log" | tee -a "$out"
    "$FDX_BIN" dist wave --backend cuda --size ${n}x$n --steps 20 --gpus 1 --json 2>>"$log" | tee -a "$out"
  done
fi
