# First contact (issue 18): wall-clock time of a new user's first commands,
# cold (empty kernel cache) and warm, with the log's lines time-stamped so the
# phases (context, compile, tune, initialise, step, output) can be read off.
set -u
log=$OUT/firstcontact.txt
rec=$OUT/${GPU_CHECK_DATE}_${GPU_NAME}_firstcontact.jsonl
w=/tmp/fdx-fc
say() { echo "$*" | tee -a "$log"; }
stamp() { python3 -u -c 'import sys,time
t=time.time()
for l in sys.stdin: print("%8.3f %s" % (time.time()-t, l), end="", flush=True)'; }
timed() { # label, command...
  local label=$1; shift
  local t0=$(date +%s.%N)
  /usr/bin/time -f "%e %U %S %M" -o $w/time.txt "$@" > $w/out.txt 2> $w/err.txt
  local rc=$?
  read -r wall user sys rss < $w/time.txt
  say "$(printf '%-44s rc %d wall %6.2f s user %6.2f sys %5.2f maxrss %d KB' "$label" $rc $wall $user $sys $rss)"
  printf '{"case": "first-contact", "label": "%s", "wall_s": %s, "user_s": %s, "sys_s": %s, "maxrss_kb": %s, "rc": %d}\n' \
    "$label" $wall $user $sys $rss $rc >> "$rec"
}
rm -rf $w; mkdir -p $w
export FDX_CACHE_DIR=$w/cache
timed "info (cold)" "$FDX_BIN" info
timed "info (warm)" "$FDX_BIN" info
for c in "wave --size 512x512x512 --steps 200 --output $w/o" "laplacian --size 512x512x512"; do
  rm -rf $w/cache $w/o
  timed "$c (cold)" "$FDX_BIN" $c
  cp $w/err.txt $w/err-cold.txt
  rm -rf $w/o
  timed "$c (warm)" "$FDX_BIN" $c
  rm -rf $w/o
  timed "$c (warm, tune off)" "$FDX_BIN" $c --tune off
  rm -rf $w/o
  say "-- $c, warm, debug log with time stamps"
  (FDX_LOG=debug "$FDX_BIN" $c 2>&1 | stamp | tail -60) | tee -a "$log"
  rm -rf $w/o $w/cache
  say "-- $c, cold, debug log with time stamps"
  (FDX_LOG=debug "$FDX_BIN" $c 2>&1 | stamp | grep -v '^ *[0-9.]* *$' | tail -80) | tee -a "$log"
  rm -rf $w/o
done
for c in heat wave; do
  timed "$c default size (warm, cpu)" "$FDX_BIN" $c --backend cpu --output $w/d$c
  timed "$c default size (warm, cuda)" "$FDX_BIN" $c --output $w/e$c
done
rm -rf $w

# Solver time to result (simsplit, 2026-11-23): initial fields, models and
# diagnostics on the device.  Warm 512^3 wave with and without output, with
# the run's phases stamped (sim: fields and models ready / stepping /
# outputs done / diagnostics done), and the checksum of one array, --gpus 1
# and --gpus 2 (generated on the units), which must be the same 17 digits.
w=/tmp/fdx-fc-sim
rm -rf $w; mkdir -p $w
export FDX_CACHE_DIR=$w/cache
"$FDX_BIN" wave --size 512x512x512 --steps 200 --progress off > /dev/null 2>&1  # warm the cache
for i in 1 2 3; do timed "wave 512^3 x 200, no output (warm, simsplit) $i" "$FDX_BIN" wave --size 512x512x512 --steps 200; done
say "-- wave 512^3 x 200, warm, debug log with time stamps"
(FDX_LOG=debug "$FDX_BIN" wave --size 512x512x512 --steps 200 --progress off 2>&1 | stamp | tail -20) | tee -a "$log"
rm -rf $w/o
timed "wave 512^3 x 200 --output (warm, simsplit)" "$FDX_BIN" wave --size 512x512x512 --steps 200 --output $w/o
rm -rf $w/o
for c in heat wave; do
  for i in 1 2; do timed "$c default size (warm, cpu, simsplit) $i" "$FDX_BIN" $c --backend cpu --progress off; done
done
for c in "heat --size 512x256x64 --init gaussian --precision double --steps 50" "heat --size 300x200 --steps 100" \
         "wave --size 256x256x128 --model layered --steps 100"; do
  ref=$("$FDX_BIN" $c --progress off | grep checksum)
  for g in 1 2; do
    got=$("$FDX_BIN" $c --progress off --gpus $g 2>&1 | grep -E "checksum|error")
    [ "$got" = "$ref" ] && say "checksum $c --gpus $g: same as one array" ||
      say "CHECKSUM DIFFERS $c --gpus $g: '$got' vs one array '$ref'"
  done
  say "checksum $c on the CPU: $("$FDX_BIN" $c --progress off --backend cpu | grep checksum)"
done
rm -rf $w
