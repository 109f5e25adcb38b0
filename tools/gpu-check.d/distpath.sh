# fdx dist on the simulation's run path (issue 16 item 3), on the GPUs there
# are (2 units share GPU 0 on a one-GPU machine).  Checks: the checksum of
# fdx dist equals the `fdx wave|heat --gpus K` command it names and the
# one-array run; with CUDA graphs (source values from the device table) the
# digest after the timed batches equals --graph off's and the final digest
# of a longer run (20 + 3 x 48 = 164 steps); memcheck over a graph run.
# Then timing records (4096^2 wave, graphs on/off, 2 units and 1).  Under a
# minute on an H100.
set -u
log=$OUT/distpath.log
rec=$OUT/${GPU_CHECK_DATE}_${GPU_NAME}_distpath.jsonl
say() { echo "$*" | tee -a "$log"; }
dig() { grep -o "\"$1\": \"[0-9a-f]*\"" | grep -o '[0-9a-f]\{16\}'; }
verdict() { [ -n "$1" ] && [ "$1" = "$2" ] && [ "$1" = "$3" ] && echo SAME || echo DIFFERENT; }
for kind in wave heat; do
  for k in 2; do  # K = 2 also runs one unit (the baseline, "same as 1 unit")
    out=$(timeout 120 "$FDX_BIN" dist $kind --backend cuda --size 1024x768 --steps 200 --gpus $k --reps 2 2>&1)
    cmd=$(sed -n 's/^  same run as *//p' <<<"$out")
    got=$(grep '^  checksum' <<<"$out")
    want=$(timeout 120 "$FDX_BIN" ${cmd#fdx } --progress off 2>&1 | grep '^  checksum')
    one=$(timeout 120 "$FDX_BIN" $(sed 's/--gpus [0-9]*//' <<<"${cmd#fdx }") --progress off 2>&1 | grep '^  checksum')
    say "dist $kind --gpus $k: $(verdict "$got" "$want" "$one") dist '$got' / '$cmd' '$want' / one array '$one'"
    grep -E 'step time|same as 1|note|error' <<<"$out" | tee -a "$log"
    a=$(timeout 120 "$FDX_BIN" dist $kind --backend cuda --size 1024x768 --steps 20 --gpus $k --reps 2 --graph on --json 2>>"$log")
    b=$(timeout 120 "$FDX_BIN" dist $kind --backend cuda --size 1024x768 --steps 20 --gpus $k --reps 2 --graph off --json 2>>"$log")
    c=$(timeout 120 "$FDX_BIN" dist $kind --backend cuda --size 1024x768 --steps 164 --gpus $k --reps 1 --graph off --json 2>>"$log")
    say "graph $kind --gpus $k: $(grep -o '"graph": [a-z]*' <<<"$a") $(verdict "$(dig digest_after_timing <<<"$a")" "$(dig digest_after_timing <<<"$b")" "$(dig digest <<<"$c")") after timing: graph $(dig digest_after_timing <<<"$a") no graph $(dig digest_after_timing <<<"$b"); 164 steps $(dig digest <<<"$c"); verified $(grep -o '"verified": [a-z]*' <<<"$a")"
  done
done
timeout 150 compute-sanitizer --tool memcheck --print-limit 5 --error-exitcode 99 "$FDX_BIN" dist wave --backend cuda \
  --size 256x192 --steps 30 --gpus 2 --reps 1 --graph on --json >/dev/null 2>"$OUT/distpath_memcheck.txt"
say "memcheck fdx dist wave --gpus 2 --graph on: exit $? $(grep -m1 'ERROR SUMMARY' "$OUT/distpath_memcheck.txt")"
# Each record also times one unit (time_1unit_ms).
for args in "--gpus 2 --graph on" "--gpus 2 --graph off"; do
  timeout 90 "$FDX_BIN" dist wave --backend cuda --size 4096x4096 --order 8 --steps 20 --reps 10 $args --json 2>>"$log" | tee -a "$rec" |
    grep -o '"units": [0-9]*\|"graph": [a-z]*\|"median": [0-9.e-]*\|"time_1unit_ms": [0-9.e-]*\|"verified": [a-z]*' | tr '\n' ' ' | tee -a "$log"
  echo | tee -a "$log"
done
