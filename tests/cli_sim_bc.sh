#!/bin/bash
# cli_sim_bc: fdx heat / wave --boundary and fdx heat --temporal on the CPU:
# a periodic run equals the same problem by fdx stencil's engine (through
# test_sim_bc) and commutes with nothing here, so the CLI checks are what the
# command adds: the summary names the boundary and the depth, --temporal K
# gives the checksum of --temporal off (with snapshots and checkpoints
# cutting the blocks), --gpus K with conditions, Dirichlet holds its value (steady state), the INI
# key, a restart with a changed --boundary refused (and one with a changed
# --temporal accepted, same result), and usage errors: exit 2, one line on
# stderr, nothing on stdout, no output directory.  $1 = the fdx binary.
set -u
. "$(dirname "$0")/lib_cli.sh" "$1"
tmp=$work fail=0
err() { echo "FAIL: $*"; fail=1; }
export FDX_THREADS=1
sum() { grep -o '"checksum": {[^}]*}' "$1"; }
run() { # out.json args...
  local out=$1; shift
  "$fdx" "$@" --backend cpu --progress off --json >"$out" 2>"$out.err" || err "fdx $*: exit $?: $(cat "$out.err")"
}

# ---- --temporal K == off, blocks cut by pictures and checkpoints ----------
run "$tmp/off.json" heat --size 70x61 --order 4 --init random --boundary fixed --steps 230 --temporal off
for k in 2 5 auto; do
  run "$tmp/t$k.json" heat --size 70x61 --order 4 --init random --boundary fixed --steps 230 --temporal $k \
    --output "$tmp/t$k" --snapshot-every 37 --checkpoint-every 50
  [ "$(sum "$tmp/t$k.json")" = "$(sum "$tmp/off.json")" ] || err "--temporal $k: $(sum "$tmp/t$k.json") vs off $(sum "$tmp/off.json")"
done
grep -q '"temporal": 5,' "$tmp/t5.json" || err "--temporal 5: the summary does not say depth 5: $(cat "$tmp/t5.json")"
grep -q '"temporal": 1,' "$tmp/off.json" || err "--temporal off: depth 1 expected: $(cat "$tmp/off.json")"
[ -s "$tmp/t5/frames/frame_00000222.png" ] || err "--temporal 5: frame 222 missing"
# A restart may change the depth: the same result.
run "$tmp/rs.json" heat --restart "$tmp/t5" --output "$tmp/t5r" --steps 230 --temporal off
[ "$(sum "$tmp/rs.json")" = "$(sum "$tmp/off.json")" ] || err "restart of a --temporal 5 run with off: $(sum "$tmp/rs.json")"

# ---- Dirichlet: the steady state is the value; conditions in the summary --
run "$tmp/d.json" heat --size 20x18 --init random --boundary all=dirichlet:-2 --steps 3000
grep -q '"boundary": "all=dirichlet:-2"' "$tmp/d.json" || err "summary lacks the boundary: $(cat "$tmp/d.json")"
awk -v m="$(grep -o '"max_abs": [0-9.e+-]*' "$tmp/d.json" | cut -d' ' -f2)" 'BEGIN { exit !(m > 1.999 && m < 2.001) }' ||
  err "all=dirichlet:-2: max |u| is not 2: $(cat "$tmp/d.json")"
# Neumann everywhere and periodic everywhere both keep the heat's integral.
run "$tmp/n0.json" heat --size 40x36 --precision double --init random --boundary all=neumann --steps 1
run "$tmp/n.json" heat --size 40x36 --precision double --init random --boundary all=neumann --steps 400
run "$tmp/p.json" heat --size 40x36 --precision double --init random --boundary all=periodic --steps 400
# (the integral is over the whole array, frame included: the frame moves a little, so compare loosely)
for c in n p; do
  awk -v a="$(grep -o '"integral": [0-9.e+-]*' "$tmp/n0.json" | cut -d' ' -f2)" \
      -v b="$(grep -o '"integral": [0-9.e+-]*' "$tmp/$c.json" | cut -d' ' -f2)" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d < 0.05 * a) }' ||
    err "$c: the integral moved: $(cat "$tmp/$c.json")"
done
[ "$(sum "$tmp/n.json")" != "$(sum "$tmp/p.json")" ] || err "neumann and periodic runs are equal"

# ---- the INI key, and the wave's conditions -------------------------------
printf '[heat]\nsize = 40x36\nboundary = x=periodic,y=dirichlet:1\nsteps = 50\n' >"$tmp/h.ini"
run "$tmp/ini.json" heat --config "$tmp/h.ini"
run "$tmp/flag.json" heat --size 40x36 --boundary x=periodic,y=dirichlet:1 --steps 50
[ "$(sum "$tmp/ini.json")" = "$(sum "$tmp/flag.json")" ] || err "the INI boundary key differs from the flag"
run "$tmp/w.json" wave --size 64x48 --boundary all=periodic --steps 100
grep -q '"energy"' "$tmp/w.json" || err "periodic wave: $(cat "$tmp/w.json")"
run "$tmp/w2.json" wave --size 64x48 --boundary all=dirichlet --sponge 6 --steps 100

# ---- --gpus K: conditions on the global faces only; the same checksum ------
# (Dirichlet/Neumann: the whole array; with periodic axes the frame's corners,
# never read, differ: test_sim_bc compares the rest bit for bit.)
run "$tmp/g0.json" heat --size 40x36 --init random --boundary x-=dirichlet:1,x+=neumann:-0.5,y=dirichlet --steps 60
run "$tmp/g3.json" heat --size 40x36 --init random --boundary x-=dirichlet:1,x+=neumann:-0.5,y=dirichlet --steps 60 --gpus 3
[ "$(sum "$tmp/g0.json")" = "$(sum "$tmp/g3.json")" ] || err "--gpus 3 with conditions: $(sum "$tmp/g3.json") vs $(sum "$tmp/g0.json")"
run "$tmp/gp.json" wave --size 48x40 --boundary all=periodic --steps 60 --gpus 2

# ---- restart with a changed --boundary is refused --------------------------
run "$tmp/c.json" heat --size 40x36 --boundary all=periodic --steps 40 --output "$tmp/c" --checkpoint-every 20
"$fdx" heat --restart "$tmp/c" --boundary all=neumann --steps 60 --backend cpu --progress off >"$tmp/o" 2>"$tmp/e"
rc=$?
[ $rc = 2 ] && [ "$(wc -l <"$tmp/e")" = 1 ] && grep -q boundary "$tmp/e" ||
  err "restart with another --boundary: exit $rc: $(cat "$tmp/e")"

# ---- usage errors ----------------------------------------------------------
bad() { # words args...
  local want=$1; shift
  rm -rf "$tmp/none"
  "$fdx" "$@" --backend cpu --progress off --output "$tmp/none" >"$tmp/o" 2>"$tmp/e"
  local rc=$?
  [ $rc = 2 ] || err "fdx $*: exit $rc, expected 2: $(cat "$tmp/e")"
  [ "$(wc -l <"$tmp/e")" = 1 ] || err "fdx $*: not one error line: $(cat "$tmp/e")"
  [ -s "$tmp/o" ] && err "fdx $*: wrote to stdout"
  grep -qi -- "$want" "$tmp/e" || err "fdx $*: message lacks '$want': $(cat "$tmp/e")"
  [ -e "$tmp/none" ] && err "fdx $*: made the output directory"
}
bad boundary heat --boundary x=bogus
bad boundary heat --boundary z=periodic
bad boundary heat --boundary x-=periodic
bad size heat --size 40x5 --order 4 --boundary all=neumann
bad boundary wave --boundary insulated
bad sponge wave --boundary x=periodic --sponge 4
bad temporal heat --temporal 4
bad temporal heat --temporal 3 --boundary all=periodic
bad temporal heat --temporal 2 --boundary fixed --gpus 2
bad temporal heat --temporal 9
bad temporal heat --temporal fast
bad temporal wave --temporal 2
exit $fail
