# Loops (issue 5): the loop tests on the GPU and under compute-sanitizer,
# then fdx aos and fdx sor at the sizes (records to $OUT).
set -u
bin=$(dirname "$FDX_BIN")
"$bin/test_loop_gpu"; echo "test_loop_gpu exit $?"
"$bin/test_loop" | tail -3; echo "test_loop exit $?"
for tool in memcheck racecheck; do
  compute-sanitizer --tool $tool --error-exitcode 99 "$bin/test_loop_gpu" >>"$OUT/loops_sanitizer.log" 2>&1
  echo "sanitizer $tool test_loop_gpu: exit $?"
done
tail -4 "$OUT/loops_sanitizer.log"
bash tests/cli_loop.sh "$FDX_BIN" | tail -3
aos=$OUT/${GPU_CHECK_DATE}_${GPU_NAME}_aos.jsonl
sor=$OUT/${GPU_CHECK_DATE}_${GPU_NAME}_sor.jsonl
FDX_LOG=info "$FDX_BIN" aos --backend cuda --size 256x256x256 --iters 100 --reps 20 --json 2>/tmp/loops_aos.log | tee -a "$aos"
grep -v compiling /tmp/loops_aos.log | sort | uniq -c | head
"$FDX_BIN" sor --backend cuda --size 256 --sweeps 100 --reps 20 --compare-cpu --json | tee -a "$sor"
"$FDX_BIN" sor --backend cuda --size 64 --sweeps 400 --json | tee -a "$sor"
FDX_LOG=info "$FDX_BIN" sor --backend cuda --size 128 --sweeps 50 --reps 3 2>&1 | grep -v compiling | sort | uniq -c
