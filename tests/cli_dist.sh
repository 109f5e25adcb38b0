#!/bin/bash
# cli_dist: fdx dist on CPU units in one process: same digest as one unit,
# a JSON record with the fields of a distributed run, usage errors with
# exit 2 and one line on stderr.
set -u
FDX=$1
export FDX_BACKEND=cpu FDX_TUNE=off
fail=0
out=$("$FDX" dist wave --size 40x37 --steps 5 --gpus 3 --reps 2 --json) || { echo "FAIL: fdx dist wave exit $?"; fail=1; }
for key in '"units": 3' '"ranks": 1' '"scaling_efficiency"' '"digest"' '"verified": true' '"max_abs_error": 0' '"overlap": true' '"same_as": "fdx wave '; do
    grep -q "$key" <<<"$out" || { echo "FAIL: no $key in: $out"; fail=1; }
done
out=$("$FDX" dist heat --dims 3 --size 20x18x23 --steps 3 --gpus 4 --overlap off --reps 2) || { echo "FAIL: fdx dist heat exit $?"; fail=1; }
grep -q "same as 1 unit yes" <<<"$out" || { echo "FAIL: heat 3D on 4 units differs from one: $out"; fail=1; }
# fdx dist runs the simulation's path: its checksum line is that of the
# `fdx wave|heat --gpus K` command it names ("same run as") and of the
# one-array run without --gpus; long enough for the wave's source table to
# end (the wavelet is exactly 0 after it).
dist_same() { # kind args...
    local out cmd want got one
    out=$("$FDX" dist "$@" --reps 1) || { echo "FAIL: fdx dist $* exit $?"; fail=1; return; }
    cmd=$(sed -n 's/^  same run as *//p' <<<"$out")
    got=$(grep "^  checksum" <<<"$out")
    [[ $cmd == "fdx "* ]] || { echo "FAIL: fdx dist $*: no 'same run as' line: $out"; fail=1; return; }
    want=$("$FDX" ${cmd#fdx } --progress off | grep "^  checksum")
    one=$("$FDX" $(sed 's/--gpus [0-9]*//; s/--overlap [a-z]*//' <<<"${cmd#fdx }") --progress off | grep "^  checksum")
    if [ -z "$got" ] || [ "$got" != "$want" ] || [ "$got" != "$one" ]; then
        echo "FAIL: fdx dist $*: '$got'; $cmd: '$want'; one array: '$one'"; fail=1
    fi
    grep -q "same as 1 unit yes" <<<"$out" || { echo "FAIL: fdx dist $*: not the one-unit field: $out"; fail=1; }
}
dist_same wave --size 48x40 --steps 1500 --order 4 --gpus 2
dist_same wave --size 21x19x33 --steps 20 --order 4 --gpus 3 --precision double --overlap off
dist_same heat --size 41x37 --steps 30 --gpus 4
# The timed batches are the steps of a longer run (the source's table on
# the units goes on): the digest after 20 steps and 1 + 2 batches of 48 is
# the final digest of a 164-step run.
timed_same() { # kind args...
    local a b
    a=$("$FDX" dist "$@" --steps 20 --reps 2 --json | grep -o '"digest_after_timing": "[0-9a-f]*"' | grep -o '[0-9a-f]\{16\}')
    b=$("$FDX" dist "$@" --steps 164 --reps 1 --json | grep -o '"digest": "[0-9a-f]*"' | grep -o '[0-9a-f]\{16\}')
    [ -n "$a" ] && [ "$a" = "$b" ] || { echo "FAIL: fdx dist $*: after the timed steps $a, a run of 164 steps $b"; fail=1; }
}
timed_same wave --size 48x40 --order 4 --gpus 2
timed_same heat --size 30x33 --gpus 3
usage() {
    local err rc
    err=$("$FDX" dist "$@" 2>&1 >/dev/null); rc=$?
    if [ $rc != 2 ] || [ "$(wc -l <<<"$err")" != 1 ] || ! grep -q "^fdx dist: error:" <<<"$err"; then
        echo "FAIL: fdx dist $*: exit $rc, stderr: $err"; fail=1
    fi
}
usage
usage fire
usage wave --order 7
usage wave --overlap maybe
usage wave --graph maybe
usage wave --dims 4
usage heat --dims 2 --size 10x10x10  # --dims and --size disagree (without --dims, --size decides)
usage wave --gpus 0
usage wave --steps 0  # the simulation's run takes at least one step
usage wave --order 12 --size 20x20  # the simulation's least extent for order 12 (the flag's own check passes)
usage wave --precision int32

# fdx heat / wave --gpus K: the final field's checksum (sum and L2, 17
# digits) and the receivers are those of the one-array run for K = 1..4.
sum_of() { grep "checksum" | sed 's/^ *//'; }
sim_same() { # kind args...
    local want got k kind=$1
    shift
    # The one-array run takes no --overlap (a flag with no effect is an error).
    want=$("$FDX" $kind $(echo "$*" | sed 's/--overlap [a-z]*//') --progress off | sum_of)
    [ -n "$want" ] || { echo "FAIL: fdx $kind $*: no checksum"; fail=1; return; }
    for k in 1 2 3 4; do
        got=$("$FDX" $kind "$@" --progress off --gpus $k | sum_of)
        [ "$got" = "$want" ] || { echo "FAIL: fdx $kind $* --gpus $k: '$got', one array '$want'"; fail=1; }
    done
}
sim_same heat --size 41x37 --steps 30 --init random
sim_same heat --size 41x37 --steps 30 --init gaussian --boundary fixed --order 4 --overlap off
sim_same heat --size 17x15x29 --steps 10 --init random --precision double
sim_same wave --size 45x43 --steps 40 --order 8 --sponge 6
sim_same wave --size 21x19x33 --steps 20 --order 4 --sponge 4 --precision double --overlap off
# Periodic axes: the frame's edges and corners are the one-array run's too
# (the exchange fills them on units; kept from the pushed field).
sim_same heat --size 40x30 --steps 20 --precision double --boundary x=periodic,y=dirichlet:0
sim_same heat --size 14x12x20 --steps 10 --precision double --boundary z=periodic,x=neumann:0,y=dirichlet:1
sim_same wave --size 40x36 --steps 20 --boundary all=periodic --sponge 0
# Initial fields and models generated on the units (letters, a layered model).
sim_same heat --size 96x64 --steps 20
sim_same wave --size 40x36x30 --steps 20 --order 4 --model layered --sponge 4
out=$("$FDX" wave --size 45x43 --steps 10 --order 8 --sponge 6 --gpus 2 --json) || { echo "FAIL: fdx wave --gpus 2 exit $?"; fail=1; }
for key in '"gpus": 2' '"ranks": 1' '"checksum": {"sum"' '"l2"' '"overlap": true'; do
    grep -q "$key" <<<"$out" || { echo "FAIL: no $key in: $out"; fail=1; }
done
# Outputs and restart: receivers identical, a run resumed on 3 units from a
# checkpoint written on 2 ends where the straight one-array run ends.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
args=(--size 45x43 --order 8 --sponge 6 --progress off)
"$FDX" wave "${args[@]}" --steps 40 --output "$tmp/one" >/dev/null || { echo "FAIL: wave to $tmp/one"; fail=1; }
"$FDX" wave "${args[@]}" --steps 20 --gpus 2 --checkpoint-every 20 --snapshot-every 10 --output "$tmp/two" >/dev/null ||
    { echo "FAIL: wave --gpus 2 with outputs"; fail=1; }
[ -s "$tmp/two/animation.gif" ] || { echo "FAIL: no animation from a distributed run"; fail=1; }
want=$(sum_of <<<"$("$FDX" wave "${args[@]}" --steps 40)")
got=$(sum_of <<<"$("$FDX" wave --restart "$tmp/two" --steps 40 --gpus 3 --progress off)")
[ "$got" = "$want" ] || { echo "FAIL: restart on 3 units: '$got', straight '$want'"; fail=1; }
"$FDX" wave "${args[@]}" --steps 40 --gpus 4 --output "$tmp/four" >/dev/null
cmp -s "$tmp/one/receivers.csv" "$tmp/four/receivers.csv" || { echo "FAIL: receivers differ on 4 units"; fail=1; }
err=$("$FDX" wave --size 45x20 --order 8 --sponge 2 --steps 2 --gpus 4 2>&1 >/dev/null); rc=$?
[ $rc = 2 ] && grep -q "^fdx wave: error: gpus:" <<<"$err" || { echo "FAIL: parts thinner than 2r: exit $rc, $err"; fail=1; }
[ $fail = 0 ] && echo "cli_dist: ok"
exit $fail
