#!/bin/bash
# cli_sim: fdx heat / wave / poisson from flags and config files: outputs
# (frames, GIF, HDF5 + XDMF, receivers, summary), SIGINT and SIGKILL then
# restart, and bad input (exit 2 or 3, one error line, nothing written).
# $1 = the fdx binary.
set -u
. "$(dirname "$0")/lib_cli.sh" "$1"
tmp=$work fail=0
err() { echo "FAIL: $*"; fail=1; }
export FDX_THREADS=1

# ---- a config file with the same keys as the flags, flags win -------------
cat > "$tmp/heat.ini" <<'INI'
# heat from letters
[heat]
size = 96x48
steps = 100          ; overridden below
snapshot-every = 40
field-every = 50
text = "Hi"
INI
"$fdx" heat --config "$tmp/heat.ini" --steps 120 --output "$tmp/h" --json > "$tmp/h.json" 2> "$tmp/h.err" || err "heat run"
grep -q '"steps": 120' "$tmp/h.json" || err "flags must override the config file: $(cat "$tmp/h.json")"
for f in animation.gif summary.json fields.xdmf fields/u_00000050.h5 fields/u_00000100.h5 fields/u_00000120.h5 \
         frames/frame_00000000.png frames/frame_00000040.png frames/frame_00000120.png; do
  [ -s "$tmp/h/$f" ] || err "heat: missing $f"
done
grep -q 'u_00000120.h5:/u' "$tmp/h/fields.xdmf" || err "XDMF lacks the final field"
ls "$tmp/h" "$tmp/h/fields" "$tmp/h/frames" | grep -q '\.tmp\.' && err "temporary files left behind"

# ---- wave: model, receivers, seismogram; progress lines off a terminal ----
"$fdx" wave --size 96x96 --steps 150 --model gradient --sponge 10 --output "$tmp/w" --snapshot-every 50 \
  > "$tmp/w.out" 2> "$tmp/w.err" || err "wave run: $(cat "$tmp/w.err")"
for f in receivers.csv seismogram.png animation.gif summary.json; do [ -s "$tmp/w/$f" ] || err "wave: missing $f"; done
[ "$(wc -l < "$tmp/w/receivers.csv")" -eq 151 ] || err "receivers.csv should have a header and 150 rows"
grep -q 'step 150/150' "$tmp/w.err" || err "no progress lines: $(cat "$tmp/w.err")"
grep -q 'energy' "$tmp/w.out" || err "wave summary lacks the energy"

# ---- wave velocity model from a file: HDF5 written by a heat run ---------
"$fdx" heat --size 96x48 --steps 1 --init sine --boundary fixed --output "$tmp/zero" --progress off > /dev/null 2>&1 || err "heat sine run"
"$fdx" wave --size 96x48 --steps 20 --model file --model-file "$tmp/zero/fields/u_00000001.h5" --progress off > /dev/null 2> "$tmp/e" \
  && err "a model with zeros must be refused"
grep -q "not positive" "$tmp/e" || err "model with zeros: $(cat "$tmp/e")"

# ---- poisson converges ------------------------------------------------------
"$fdx" poisson --method jacobi --size 33x33 --tol 1e-12 --json > "$tmp/p.json" 2> /dev/null || err "poisson run"
grep -q '"case": "poisson"' "$tmp/p.json" || err "poisson summary"

# ---- SIGINT: checkpoint and clean exit; restart finishes the run -----------
"$fdx" heat --size 256x256 --steps 200000 --output "$tmp/int" --checkpoint-every 1000 --progress off > /dev/null 2> "$tmp/int.err" &
pid=$!
sleep 2
kill -INT $pid
wait $pid
rc=$?
[ $rc -eq 130 ] || err "SIGINT: exit $rc, expected 130: $(cat "$tmp/int.err")"
[ -s "$tmp/int/checkpoint.fdx" ] || err "SIGINT: no checkpoint"
grep -q "resume with --restart" "$tmp/int.err" || err "SIGINT message: $(cat "$tmp/int.err")"
ckstep() { od -An -t d8 -j 8 -N 8 "$1" | tr -d ' '; }
n=$(ckstep "$tmp/int/checkpoint.fdx")
grep -q "interrupted at step $n;" "$tmp/int.err" || err "SIGINT checkpoint step $n differs from: $(cat "$tmp/int.err")"
"$fdx" heat --restart "$tmp/int" --steps $((n + 300)) --json --progress off > "$tmp/r.json" 2>&1 || err "restart after SIGINT: $(cat "$tmp/r.json")"
grep -q "\"steps\": $((n + 300))," "$tmp/r.json" || err "restart did not reach step $((n + 300)): $(cat "$tmp/r.json")"
grep -q '"steps_this_run": 300,' "$tmp/r.json" || err "restart did not resume at step $n: $(cat "$tmp/r.json")"

# ---- SIGKILL: the last checkpoint is whole; restart equals a straight run --
"$fdx" wave --size 128x128 --steps 100000 --output "$tmp/kill" --checkpoint-every 100 --progress off > /dev/null 2>&1 &
pid=$!
sleep 1
kill -KILL $pid
wait $pid 2> /dev/null
[ -s "$tmp/kill/checkpoint.fdx" ] || err "SIGKILL: no checkpoint"
n=$(ckstep "$tmp/kill/checkpoint.fdx")
[ $((n % 100)) -eq 0 ] && [ "$n" -gt 0 ] || err "SIGKILL: checkpoint step '$n'"
"$fdx" wave --restart "$tmp/kill" --steps $((n + 150)) --json --progress off > "$tmp/k.json" 2>&1 || err "restart after SIGKILL: $(cat "$tmp/k.json")"
"$fdx" wave --size 128x128 --steps $((n + 150)) --json --progress off > "$tmp/s.json" 2>&1 || err "straight wave run"
get() { sed -e 's/.*"diagnostics": //' "$1"; }
[ "$(get "$tmp/k.json")" = "$(get "$tmp/s.json")" ] || err "restart diagnostics differ: $(get "$tmp/k.json") vs $(get "$tmp/s.json")"

# ---- bad input: one error line, exit 2 (usage) or 3 (run time), nothing written
bad() {
  want=$1; shift
  rm -rf "$tmp/bad"
  "$fdx" "$@" --output "$tmp/bad" > /dev/null 2> "$tmp/e"
  rc=$?
  [ $rc -eq "$want" ] || err "$*: exit $rc, expected $want ($(cat "$tmp/e"))"
  [ "$(wc -l < "$tmp/e")" -eq 1 ] || err "$*: expected one error line, got: $(cat "$tmp/e")"
  grep -q "error:" "$tmp/e" || err "$*: no 'error:' in $(cat "$tmp/e")"
  [ -e "$tmp/bad" ] && err "$*: wrote $tmp/bad"
}
printf 'steps = 10\nsteps 20\n' > "$tmp/bad1.ini"
printf 'nosuchkey = 1\n' > "$tmp/bad2.ini"
printf 'order = 5\n' > "$tmp/bad3.ini"
printf '[wave]\nsteps = 3\n' > "$tmp/bad4.ini"
head -c 2000 "$tmp/h/fields/u_00000050.h5" > "$tmp/trunc.h5"
head -c 100 /dev/urandom > "$tmp/raw.bin"
bad 2 heat --steps abc
bad 2 heat --steps -5
bad 2 heat --size 12
bad 2 heat --size 0x10
bad 2 heat --order 3
bad 2 heat --precision half
bad 2 heat --boundary open
bad 2 heat --kappa -1
bad 2 heat --whatever 1
bad 2 heat --config "$tmp/bad1.ini"
bad 2 heat --config "$tmp/bad2.ini"
bad 2 heat --config "$tmp/bad3.ini"
bad 2 heat --config "$tmp/bad4.ini"
bad 2 heat --config "$tmp/missing.ini"  # bad input (issue 13 hostile table h1084)
bad 2 heat --init file
bad 2 heat --init file --input "$tmp/trunc.h5" --size 96x48
bad 2 heat --init file --input "$tmp/h/fields/u_00000050.h5" --size 64x64
bad 2 heat --size 100000x100000x100000
bad 2 wave --source 1,2,3
bad 2 wave --receivers "5,5;x"
bad 2 wave --sponge 500
bad 2 wave --model file --model-file "$tmp/missing.h5"
bad 2 wave --model file --model-file "$tmp/raw.bin" --model-shape 64x64 --size 64x64
bad 2 heat --restart "$tmp/nothing-here"
bad 2 heat --text "$(printf 'a\nb')"
bad 2 heat --text abc --init gaussian
bad 2 heat --overlap off
bad 2 wave --model-file "$tmp/raw.bin"
bad 2 heat --kappa 1e30
bad 2 heat --size 2000000000x2000000000x2000000000
mkdir -p "$tmp/badck"
printf 'garbage' > "$tmp/badck/checkpoint.fdx"
bad 2 heat --restart "$tmp/badck"
bad 2 poisson --tol x
# An output directory that cannot be created: a bad --output, exit 2.
"$fdx" heat --steps 5 --output /proc/fdx-no --progress off > /dev/null 2> "$tmp/e"
[ $? -eq 2 ] || err "unwritable output: $(cat "$tmp/e")"
# Issue 18: the default initial condition, sponge and text fit every allowed
# size (the smallest grids for each order: 6 points at order 2, 18 at order 8).
for args in "heat --size 6x6" "heat --size 16x16" "heat --size 6x6x6" "wave --size 18x18" "wave --size 18x18x18" \
            "wave --size 32x32" "poisson --method jacobi --size 6x6"; do
    "$fdx" $args --steps 2 --progress off > /dev/null 2> "$tmp/e" || err "default init on $args: $(cat "$tmp/e")"
done
exit $fail
