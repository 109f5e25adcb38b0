# The compute-sanitizer runs session 9 could not finish before its device
# time ran out (docs/notes/userapi.md and mg.md, "session 9, lead"): the
# user-stencil tile kernel under racecheck (FDX_TEST_USTENCIL_TILE=1: its
# configurations alone), the multigrid tests after gsz took an output box
# (memcheck and racecheck), the stencil zh kernels under racecheck.  Each
# run has its own limit (SAN9_TIMEOUT, default 240 s); one line a run in
# sanitize9.log: clean, FAILED (with the tail) or NOT FINISHED.  Run:
# SKIP_TESTS=1 SKIP_SANITIZER=1 tools/gpu-check sanitize9 (about 10-20 min
# at worst: split with SAN9_RUNS="tool:test[:env] ...").
set -u
bin=$(dirname "$FDX_BIN")
log=$OUT/sanitize9.log
runs=${SAN9_RUNS:-racecheck:test_ustencil_gpu:FDX_TEST_USTENCIL_TILE=1 memcheck:test_mg_dist_gpu racecheck:test_mg_dist_gpu memcheck:test_mg_gpu racecheck:test_mg_gpu racecheck:test_stencil_gpu}
for r in $runs; do
  IFS=: read -r tool t envs <<< "$r"
  [ -x "$bin/$t" ] || { echo "sanitize9: $t not built" | tee -a "$log"; continue; }
  env FDX_TEST_SANITIZER=1 ${envs:-} timeout "${SAN9_TIMEOUT:-240}" compute-sanitizer --tool "$tool" --error-exitcode 99 "$bin/$t" > "$OUT/san9.tmp" 2>&1
  rc=$?
  case $rc in
    0) echo "sanitizer $tool $t ${envs:-}: clean" | tee -a "$log" ;;
    124) echo "sanitizer $tool $t ${envs:-}: NOT FINISHED (${SAN9_TIMEOUT:-240} s)" | tee -a "$log" ;;
    *) echo "sanitizer $tool $t ${envs:-}: FAILED (exit $rc)" | tee -a "$log"; tail -30 "$OUT/san9.tmp" >> "$log" ;;
  esac
done
rm -f "$OUT/san9.tmp"
