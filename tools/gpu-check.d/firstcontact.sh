# First contact (issue 18): wall-clock time of a new user's first commands,
# cold (empty kernel cache) and warm, with the log's lines time-stamped so the
# phases (context, compile, tune, initialise, step, output) can be read off.
# Parts (each 0 to skip): FC_BASE (the first round's commands: info, wave and
# laplacian cold / second run / tune off, default sizes), FC_LAP (laplacian
# 512^3 run by run until the budgeted tuner's search is complete, then warm),
# FC_TUNE (the budgeted tuner's converged choice against the exhaustive
# search, bench stencil cases FC_TUNE_CASES, timed back to back).
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
# First-use costs outside fdx (the first round's first process took 28 s
# more than the second cold one): loading NVRTC and its builtins from disk,
# and the GPU's clocks.  Meaningful only when this section is the first
# thing on a fresh machine: SKIP_TESTS=1 SKIP_SANITIZER=1 tools/gpu-check
# firstcontact (the build does not load NVRTC).
nvrtc_load() {
  python3 - "$1" <<'PY' | tee -a "$log"
import ctypes, glob, os, sys, time
dirs = [d for d in ["/usr/local/cuda/lib64", "/usr/local/cuda/targets/x86_64-linux/lib"] if os.path.isdir(d)]
for name in ["libnvrtc.so.13", "libnvrtc-builtins.so.13.0", "libnvrtc.so.12"]:
    paths = [p for d in dirs for p in glob.glob(os.path.join(d, name))] or [name]
    t = time.time()
    try:
        ctypes.CDLL(paths[0])
        print("%s: dlopen %s %.3f s" % (sys.argv[1], paths[0], time.time() - t))
    except OSError as e:
        print("%s: dlopen %s failed: %s" % (sys.argv[1], name, e))
PY
}
nvidia-smi --query-gpu=clocks.sm,clocks.mem,pstate --format=csv,noheader | sed 's/^/clocks before: /' | tee -a "$log"
nvrtc_load "first"
nvrtc_load "again"
timed "info (cold)" "$FDX_BIN" info
timed "info (warm)" "$FDX_BIN" info
timed "info --bandwidth (warm)" "$FDX_BIN" info --bandwidth
[ "${FC_BASE:-1}" = 1 ] && for c in "wave --size 512x512x512 --steps 200 --output $w/o" "laplacian --size 512x512x512"; do
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
[ "${FC_BASE:-1}" = 1 ] && for c in heat wave; do
  timed "$c default size (warm, cpu)" "$FDX_BIN" $c --backend cpu --output $w/d$c
  timed "$c default size (warm, cuda)" "$FDX_BIN" $c --output $w/e$c
done

# ---- 2026-11-23 (ttr): budgeted tuning, parallel compiles, info without a
# probe, laplacian on the device.  Run 1 is cold (empty cache): the model's
# candidates (at most --tune-budget, default 8) compiled in parallel threads
# and timed in one batch; each later run goes on with the search (at most 8
# more) until it is complete; then runs are warm (nothing compiled, nothing
# timed).  Every run's "stencil tuned" line says what it measured.
sz=${FC_SIZE:-512x512x512}
if [ "${FC_LAP:-1}" = 1 ]; then
  rm -rf $w/cache
  say "-- laplacian $sz f64, run by run from an empty cache (budget ${FC_BUDGET:-8})"
  for run in $(seq 1 ${FC_LAP_RUNS:-16}); do
    timed "laplacian $sz run $run" env FDX_LOG=info timeout 120 "$FDX_BIN" laplacian --size $sz --tune-budget ${FC_BUDGET:-8}
    grep -E "stencil tuned|compiling" $w/err.txt | sed 's/^/    /' | tail -3 | tee -a "$log"
    grep -E "kernel time|verified" $w/out.txt | sed 's/^/    /' | tee -a "$log"
    grep -q "stencil tuned" $w/err.txt || break # nothing tuned: the search is complete and cached
  done
  for i in 1 2 3; do timed "laplacian $sz (warm, converged)" "$FDX_BIN" laplacian --size $sz; done
  timed "laplacian $sz (warm, tune off)" "$FDX_BIN" laplacian --size $sz --tune off
  say "-- laplacian $sz, warm, debug log with time stamps"
  (FDX_LOG=debug "$FDX_BIN" laplacian --size $sz 2>&1 | stamp | tail -40) | tee -a "$log"
  rm -rf $w/cache
  say "-- laplacian $sz, cold, debug log with time stamps (batch compiles: 'compiled N stencil kernels ahead')"
  (FDX_LOG=debug "$FDX_BIN" laplacian --size $sz 2>&1 | stamp | grep -v '^ *[0-9.]* *$' | tail -80) | tee -a "$log"
  say "-- laplacian $sz, cold, budget all (the whole search in the first run, as before)"
  rm -rf $w/cache
  timed "laplacian $sz cold, --tune-budget all" env FDX_LOG=info "$FDX_BIN" laplacian --size $sz --tune-budget all
  grep -E "stencil tuned" $w/err.txt | tee -a "$log"
fi

# The budgeted tuner against the exhaustive search: the same cases converged
# run by run (budget 8, a cache of their own) and searched whole at once
# (--tune force --tune-budget all, another cache); then each cache's choice
# timed warm, alternating, three times, so "no slower" is read off one
# process's numbers per case: converged median / exhaustive median <= ~1.
if [ "${FC_TUNE:-1}" = 1 ]; then
  cases=${FC_TUNE_CASES:-lap7_f64_512,star25_f64_512,heat_o4_coef_f32_512,wave2d_o8_f32_16384}
  conv=$w/conv exh=$w/exh
  rm -rf $conv $exh
  say "-- tuner: budget ${FC_BUDGET:-8}, run by run, cases $cases"
  for run in $(seq 1 ${FC_TUNE_RUNS:-16}); do
    t0=$(date +%s.%N)
    FDX_CACHE_DIR=$conv FDX_LOG=info timeout 300 "$FDX_BIN" bench stencil --backend ${FC_BACKEND:-cuda} --cases $cases \
      --tune-budget ${FC_BUDGET:-8} --json >$w/b.jsonl 2>$w/b.err
    n=$(grep -c "tuning:" $w/b.err)
    say "$(printf 'run %2d: %3d configurations timed, %6.2f s wall; %s' $run $n $(awk "BEGIN{print $(date +%s.%N) - $t0}") \
      "$(grep -oE '"case": "[^"]*"|"config": "[^"]*"' $w/b.jsonl | cut -d'"' -f4 | paste -sd' ' | cut -c1-300)")"
    [ "$n" -eq 0 ] && break
  done
  t0=$(date +%s.%N)
  FDX_CACHE_DIR=$exh FDX_LOG=info timeout 500 "$FDX_BIN" bench stencil --backend ${FC_BACKEND:-cuda} --cases $cases --tune force \
    --tune-budget all --json >$w/e.jsonl 2>$w/e.err
  say "exhaustive: $(grep -c "tuning:" $w/e.err) configurations timed, $(awk "BEGIN{print $(date +%s.%N) - $t0}") s"
  for k in 1 2 3; do
    for which in conv exh; do
      FDX_CACHE_DIR=$w/$which "$FDX_BIN" bench stencil --backend ${FC_BACKEND:-cuda} --cases $cases --json 2>/dev/null |
        sed -e "s/^{/{\"tuner\": \"$which\", \"round\": $k, /" >>"$OUT/${GPU_CHECK_DATE}_${GPU_NAME}_firstcontact-tuner.jsonl"
    done
  done
  python3 - "$OUT/${GPU_CHECK_DATE}_${GPU_NAME}_firstcontact-tuner.jsonl" <<'PY' | tee -a "$log"
import json, sys, statistics
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
by = {}
for r in rows:
    by.setdefault((r["case"], r["tuner"]), []).append(r)
print("%-28s %-50s %-50s %8s %8s %6s" % ("case", "converged (budget 8)", "exhaustive", "ms", "ms", "ratio"))
for case in sorted({c for c, _ in by}):
    c, e = by.get((case, "conv"), []), by.get((case, "exh"), [])
    if not c or not e: continue
    mc = statistics.median(r["time_ms"]["median"] for r in c)
    me = statistics.median(r["time_ms"]["median"] for r in e)
    print("%-28s %-50s %-50s %8.4f %8.4f %6.3f" % (case, c[0].get("config", "?")[:50], e[0].get("config", "?")[:50], mc, me, mc / me))
PY
fi
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
