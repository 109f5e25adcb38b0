# Loops (issue 5): the loop tests on the GPU, fdx aos and fdx sor at the
# issue's sizes (records to $OUT), sor with the flat enumeration for
# comparison, ncu counters (DRAM/L2 bytes) of one aos launch per variant and
# of one mid-run sor step per layout, then compute-sanitizer on the loop test.
set -u
bin=$(dirname "$FDX_BIN")
"$bin/test_loop_gpu" | tail -2; echo "test_loop_gpu exit ${PIPESTATUS[0]}"
"$bin/test_loop" | tail -1
bash tests/cli_loop.sh "$FDX_BIN" | tail -2
aos=$OUT/${GPU_CHECK_DATE}_${GPU_NAME}_aos.jsonl
sor=$OUT/${GPU_CHECK_DATE}_${GPU_NAME}_sor.jsonl
FDX_LOG=info "$FDX_BIN" aos --backend cuda --size 256x256x256 --steps 100 --reps 20 --json 2>/tmp/loops_aos.log | tee -a "$aos"
grep -v compiling /tmp/loops_aos.log | sort | uniq -c | head -4
"$FDX_BIN" sor --backend cuda --size 256x256x256 --steps 100 --reps 20 --compare-cpu --json | tee -a "$sor"
# the same with round 1's flat enumeration (threads over the (i,k) box)
FDX_LOOP_LINES=0 "$FDX_BIN" sor --backend cuda --size 256x256x256 --steps 100 --reps 20 --json | sed 's/"case":"sor"/"case":"sor_flat"/' | tee -a "$sor"
"$FDX_BIN" sor --backend cuda --size 64x64x64 --steps 400 --json | tee -a "$sor"
# counters: launches 2..7 are aos with autotfm (transformed layout), 8..13 without
ncu_csv=$OUT/loops_ncu.csv
m=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,sm__inst_executed.sum
ncu="timeout 100 ncu --clock-control none --cache-control none -k regex:fdx_loop_kernel --metrics $m --csv"
$ncu --launch-skip 2 --launch-count 12 "$FDX_BIN" aos --backend cuda --steps 4 --reps 1 >>"$ncu_csv" 2>&1
echo "ncu aos exit $?"
# sor 256^3, 20 sweeps: 798 launches per run, warm-up + 1 rep per variant; step 400 of each
$ncu --launch-skip 400 --launch-count 1 "$FDX_BIN" sor --backend cuda --size 256x256x256 --steps 20 --reps 1 >>"$ncu_csv" 2>&1
$ncu --launch-skip 1996 --launch-count 1 "$FDX_BIN" sor --backend cuda --size 256x256x256 --steps 20 --reps 1 >>"$ncu_csv" 2>&1
echo "ncu sor exit $?"
grep -E '"(gpu__time_duration|dram__bytes_read|dram__bytes_write|lts__t_bytes|sm__inst_executed).sum"' "$ncu_csv" |
  awk -F'","' '{printf "launch %s %s %s %s\n", $1, $(NF-2), $(NF-1), $NF}' | sed 's/"//g' | head -40
for tool in memcheck racecheck; do
  timeout 120 compute-sanitizer --tool $tool --error-exitcode 99 "$bin/test_loop_gpu" >>"$OUT/loops_sanitizer.log" 2>&1
  echo "sanitizer $tool test_loop_gpu: exit $?"
done
tail -2 "$OUT/loops_sanitizer.log"
