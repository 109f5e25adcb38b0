#!/bin/bash
# cli_sim_temporal: fdx wave --temporal on the CPU: --temporal K and auto give
# the checksum and receivers-free outputs of --temporal off, with the source
# ending inside the run and pictures and checkpoints cutting the blocks; the
# summary names the depth; a restart may change the depth; --receivers none;
# usage errors (a depth that cannot apply): exit 2, one line on stderr,
# nothing on stdout, no output directory.  $1 = the fdx binary.
set -u
. "$(dirname "$0")/lib_cli.sh" "$1"
tmp=$work
err() { echo "FAIL: $*"; fails=$((fails + 1)); }
export FDX_THREADS=1
sum() { grep -o '"checksum": {[^}]*}' "$1"; }
run() { # out.json args...
  local out=$1; shift
  checks=$((checks + 1))
  "$fdx" "$@" --backend cpu --progress off --json >"$out" 2>"$out.err" || err "fdx $*: exit $?: $(cat "$out.err")"
}
w="wave --size 61x53 --order 4 --absorb none --receivers none --steps 520"

# ---- --temporal K == off (the default source ends near step 390) ----------
run "$tmp/off.json" $w --temporal off
for k in 3 7 auto; do
  run "$tmp/t$k.json" $w --temporal $k --output "$tmp/t$k" --snapshot-every 45 --checkpoint-every 100 --log info
  [ "$(sum "$tmp/t$k.json")" = "$(sum "$tmp/off.json")" ] || err "--temporal $k: $(sum "$tmp/t$k.json") vs off $(sum "$tmp/off.json")"
done
grep -q '"temporal": 7,' "$tmp/t7.json" || err "--temporal 7: the summary does not say depth 7: $(cat "$tmp/t7.json")"
grep -q '"temporal": 1,' "$tmp/off.json" || err "--temporal off: depth 1 expected: $(cat "$tmp/off.json")"
grep -q 'temporal: steps [0-9]*\.\.[0-9]* in passes of 7' "$tmp/t7.json.err" || err "--log info does not say where passes ran: $(cat "$tmp/t7.json.err")"
[ -s "$tmp/t7/frames/frame_00000495.png" ] || err "--temporal 7: frame 495 missing"
[ -e "$tmp/t7/receivers.csv" ] && err "--receivers none wrote receivers.csv"
# A restart may change the depth: the same result.
run "$tmp/rs.json" wave --restart "$tmp/t7" --output "$tmp/t7r" --steps 520 --temporal 2
[ "$(sum "$tmp/rs.json")" = "$(sum "$tmp/off.json")" ] || err "restart of a --temporal 7 run with 2: $(sum "$tmp/rs.json")"
# No source: passes from the first step; 3D, double.
run "$tmp/a0.json" wave --size 23x19x21 --precision double --absorb none --receivers none --amplitude 0 --steps 30 --temporal off
run "$tmp/a3.json" wave --size 23x19x21 --precision double --absorb none --receivers none --amplitude 0 --steps 30 --temporal 3
[ "$(sum "$tmp/a3.json")" = "$(sum "$tmp/a0.json")" ] || err "3D --temporal 3: $(sum "$tmp/a3.json") vs off"
# Auto with the default sponge and receivers: one step a pass, said at the info level.
run "$tmp/d.json" wave --size 48x40 --steps 30 --log info
grep -q '"temporal": 1,' "$tmp/d.json" || err "default wave: depth 1 expected: $(cat "$tmp/d.json")"
grep -q 'temporal: one step a pass: an absorbing layer' "$tmp/d.json.err" || err "default wave: no reason given: $(cat "$tmp/d.json.err")"

# ---- usage errors (and no output directory made) --------------------------
bad() { # words args...
  local want=$1; shift
  expect_usage "$want" "$@" --backend cpu --progress off --output none
  [ -e none ] && err "fdx $*: made the output directory"
}
bad "absorbing layer" wave --size 40x36 --receivers none --temporal 3
bad "absorbing layer" wave --size 60x56 --receivers none --absorb pml --temporal 2
bad "receivers none" wave --size 40x36 --absorb none --temporal 3
bad "boundary conditions" wave --size 40x36 --absorb none --receivers none --boundary all=periodic --temporal 2
bad "gpus" wave --size 40x36 --absorb none --receivers none --gpus 2 --temporal 2
bad temporal wave --temporal 9
bad receivers wave --receivers nothing
echo "cli_sim_temporal: $checks checks, $fails failed"
[ $fails -eq 0 ]
