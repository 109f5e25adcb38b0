#!/usr/bin/env bash
# Tuning with a budget, end to end on the CPU: each run of `fdx stencil`
# times at most --tune-budget configurations, later runs go on with the
# search kept in the tuning file until it is complete, and after that a run
# times nothing and uses the stored choice; --tune-budget all searches
# everything in one run.
fdx=$(realpath "$1")
fails=0 checks=0
check() { checks=$((checks + 1)); if ! eval "$1"; then echo "FAIL: $2"; fails=$((fails + 1)); fi; }
dir=$(mktemp -d /tmp/fdx-cli-tune.XXXXXX)
trap 'rm -rf "$dir"' EXIT
run() { "$fdx" stencil --backend cpu --size 256x128x128 --reps 1 --log info --cache-dir "$dir/$1" "${@:2}"; }
complete=0
for i in 1 2 3 4 5 6 7 8; do
  out=$(run c --tune-budget 3 2>&1); rc=$?
  check '[ $rc -eq 0 ]' "run $i exit $rc: $out"
  n=$(grep -c "tuning:" <<<"$out")
  check '[ $n -le 3 ]' "run $i timed $n configurations, budget 3"
  line=$(grep "stencil tuned for" <<<"$out")
  check '[ -n "$line" ]' "run $i did not tune: $out"
  if grep -q "search complete" <<<"$line"; then complete=$i; break; fi
  check 'grep -q "later runs go on" <<<"$line"' "run $i: neither complete nor going on: $line"
done
check '[ $complete -ge 2 ]' "the search completed in run $complete (expected several runs of budget 3)"
choice=$(grep "stencil tuned for" <<<"$out" | sed 's/.*: \(cpu rows [0-9]* chunk [0-9]*\).*/\1/')
out=$(run c --tune-budget 3 2>&1)
check '! grep -q "tuning:\|stencil tuned" <<<"$out"' "a run after the complete search tuned again: $out"
check 'grep -q "$choice" <<<"$out"' "the stored choice '$choice' is not the one used: $out"
out=$(run a --tune-budget all 2>&1)
check 'grep -q "search complete" <<<"$out"' "--tune-budget all did not complete in one run: $out"
"$fdx" stencil --backend cpu --size 8x8 --tune-budget 0 >/dev/null 2>&1; rc=$?
check '[ $rc -eq 2 ]' "--tune-budget 0 is a usage error (exit $rc)"
echo "cli_tune_budget: $((checks - fails)) passed, $fails failed"
[ $fails -eq 0 ]
