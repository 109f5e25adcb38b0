# Layout engine (issue 4): its tests (the GPU one under compute-sanitizer
# unless LAYOUT_SANITIZE=0), `fdx bench transform` records on CUDA (named
# permutations + random suite; LAYOUT_DIAG=1 adds the diagonal cases,
# LAYOUT_CPU=1 the CPU records on the host), then, while LAYOUT_BUDGET_S
# (seconds since the section started) allows, the measurement-only variants,
# each record tagged with "variant": FDX_LAYOUT_SKEW=0 (plain tiles where the
# planner skews rows onto sectors: the A/B of round 4; on the named cases,
# never skewed, a repeat); LAYOUT_MORE=1 adds FDX_LAYOUT_TILE_WORDS=4096,
# FDX_LAYOUT_KERNEL=packed|2d, FDX_LAYOUT_ASYNC=0 and FDX_LAYOUT_TILE=64x64|64x32.
# LAYOUT_CPU_ONLY=1: test_layout and the CPU records alone (round 5, below).
set -u
bin=$(dirname "$FDX_BIN")
base=$OUT/${GPU_CHECK_DATE}_${GPU_NAME}
budget=${LAYOUT_BUDGET_S:-160}
start=$SECONDS
named="aos-to-soa 3d-reverse swap-fastest swap-slowest 2d-transpose"
moved="aos-to-soa 3d-reverse swap-fastest 2d-transpose" # the fastest axis moves: tiled kernels
bench() { # bench BACKEND ARGS...: JSON records on stdout, errors on stderr
  local be=$1; shift
  timeout 120 "$FDX_BIN" bench transform --backend "$be" --json "$@"
}
summary() {
  python3 - "$@" <<'PY'
import json, sys, statistics
for f in sys.argv[1:]:
    rows = [json.loads(l) for l in open(f) if l.strip()]
    groups = {}
    for r in rows: groups.setdefault((r.get('variant', 'default'), r['backend']), []).append(r)
    for (v, be), rs in groups.items():
        for r in rs:
            print(f"{be:4s} {v:22s} {r['case']:16s} {'x'.join(map(str, r['shape'])):22s} {','.join(map(str, r['perm'])):10s} "
                  f"{r['time_ms']['median']:8.3f} ms {r['effective_gbps']:7.0f} GB/s ratio {r['ratio_to_copy']:.3f} {'ok' if r['verified'] else 'BAD'}")
        rnd = [r['ratio_to_copy'] for r in rs if r['case'].startswith('random')]
        if rnd: print(f"{be} {v}: random median {statistics.median(rnd):.3f} min {min(rnd):.3f} over {len(rnd)}")
PY
}
tag() { python3 -c "
import json, sys
for l in sys.stdin:
    r = json.loads(l); r['variant'] = sys.argv[1]; print(json.dumps(r))" "$1"; }

"$bin/test_layout" | tail -1
if [ "${LAYOUT_CPU_ONLY:-0}" = 1 ]; then
  # Round 5: CPU records only (a build of fdx and test_layout suffices): the
  # (un)diagonalize cases in LAYOUT_PROCS processes each, every record with
  # the copy probed right before it; undiagonalize alternates with the
  # sheared tiles (FDX_LAYOUT_UNDIAG_SHEARED=1, the round-4 code path) in
  # neighbouring processes; the named cases once; stops past LAYOUT_BUDGET_S.
  cpu=${base}_transform-r5-cpu.jsonl; : >"$cpu"
  left() { [ $((SECONDS - start)) -lt "$budget" ] || { echo "skipped (budget): $*"; return 1; }; }
  procs=$(seq "${LAYOUT_PROCS:-3}")
  for p in $procs; do # most wanted first: the A/B of the changed code
    left "undiag $p" && bench cpu --count 0 --reps 5 --only undiag >>"$cpu"
    left "sheared $p" && FDX_LAYOUT_UNDIAG_SHEARED=1 bench cpu --count 0 --reps 5 --only undiag | tag "FDX_LAYOUT_UNDIAG_SHEARED=1" >>"$cpu"
    echo "cpu undiag process $p done at $((SECONDS - start)) s"
  done
  for p in $procs; do left "diag $p" && bench cpu --count 0 --reps 5 --only diag >>"$cpu"; done
  echo "cpu diag done at $((SECONDS - start)) s"
  for c in $named; do left "$c" && bench cpu --count 0 --reps 5 --only $c >>"$cpu"; done
  python3 - "$cpu" <<'PY'
import json, sys, statistics
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
groups = {}
for r in rows: groups.setdefault((r['case'], r.get('variant', 'default')), []).append(r)
for (c, v), rs in groups.items():
    q = [r['ratio_to_copy'] for r in rs]
    ms = ' '.join('%.1f' % r['time_ms']['median'] for r in rs)
    cp = ' '.join('%.0f' % r['copy_gbps'] for r in rs)
    ok = 'ok' if all(r['verified'] for r in rs) else 'BAD'
    print('%-16s %-28s ratio median %.3f of %s  ms %s  copy %s %s' % (c, v, statistics.median(q), ' '.join('%.3f' % x for x in q), ms, cp, ok))
PY
  echo "layout cpu section done at $((SECONDS - start)) s"
  exit 0
fi
"$bin/test_layout_gpu" | tail -3
"$bin/test_loop_gpu" | tail -1 # generated kernels include the emitted layout helpers (NVRTC)
bash tests/cli_transform.sh "$FDX_BIN" | tail -1
echo "layout tests done at $((SECONDS - start)) s"

gpu=${base}_transform.jsonl cpu=${base}_transform-cpu.jsonl var=${base}_transform-variants.jsonl
: >"$gpu"; : >"$var"
for c in $named; do bench cuda --count 0 --only $c >>"$gpu"; done
bench cuda --only random >>"$gpu"
[ "${LAYOUT_DIAG:-0}" = 1 ] && { bench cuda --count 0 --only diag >>"$gpu"; bench cuda --count 0 --only undiag >>"$gpu"; }
summary "$gpu"
echo "gpu bench done at $((SECONDS - start)) s"

if [ "${LAYOUT_CPU:-0}" = 1 ]; then
  : >"$cpu"
  for c in $named diag-main-eq diag-anti-lt undiag-main-gt undiag-anti-eq; do bench cpu --count 0 --reps 5 --only $c >>"$cpu"; done
  summary "$cpu"
  echo "cpu bench done at $((SECONDS - start)) s"
fi

variant() { # variant "VAR=VALUE ..." BACKEND ARGS...: tagged records, skipped past the budget
  local env=$1 be=$2; shift 2
  if [ $((SECONDS - start)) -ge "$budget" ]; then echo "skipped (budget): $env $*"; return; fi
  env $env timeout 120 "$FDX_BIN" bench transform --backend "$be" --json --reps 10 "$@" | tag "$env" >>"$var"
}
# the A/B: the random suite without skew; the named cases (never skewed) again, a repeat
variant FDX_LAYOUT_SKEW=0 cuda --only random
for c in $named; do variant FDX_LAYOUT_SKEW=0 cuda --count 0 --only $c; done
[ "${LAYOUT_MORE:-0}" = 1 ] && {
  for c in $moved; do variant FDX_LAYOUT_TILE_WORDS=4096 cuda --count 0 --only $c; done
  for c in $moved; do variant FDX_LAYOUT_ASYNC=0 cuda --count 0 --only $c; done
  for v in FDX_LAYOUT_TILE=64x64 FDX_LAYOUT_TILE=64x32; do
    for c in 3d-reverse swap-fastest 2d-transpose; do variant $v cuda --count 0 --only $c; done
  done
}
echo "skew A/B done at $((SECONDS - start)) s"

if [ "${LAYOUT_SANITIZE:-1}" = 1 ]; then
  for tool in memcheck racecheck; do
    echo "== $tool" >>"$OUT/layout-sanitizer.log"
    if FDX_TEST_QUICK=1 timeout 200 compute-sanitizer --tool $tool --error-exitcode 99 "$bin/test_layout_gpu" >"$OUT/san.tmp" 2>&1; then
      echo "layout sanitizer $tool: clean ($(tail -1 "$OUT/san.tmp"))"
    else
      echo "layout sanitizer $tool: FAILED"; tail -30 "$OUT/san.tmp"
    fi
    cat "$OUT/san.tmp" >>"$OUT/layout-sanitizer.log"; rm -f "$OUT/san.tmp"
  done
  echo "sanitizer done at $((SECONDS - start)) s"
fi


[ "${LAYOUT_MORE:-0}" = 1 ] && { variant FDX_LAYOUT_TILE_WORDS=4096 cuda --only random; variant FDX_LAYOUT_KERNEL=packed cuda --only random; variant FDX_LAYOUT_KERNEL=2d cuda --only random; }
summary "$var"
echo "layout section done at $((SECONDS - start)) s"
