#!/bin/bash
# cli_dist_mpi: fdx dist under mpirun -np 2 and -np 4 (CPU backend, one and
# two units per rank) gives the same digest of the final field as one
# process on one unit, for wave and heat, 2D and 3D, uneven splits.
# Skipped (77) without mpirun or in a build without MPI.
set -u
FDX=$1
command -v mpirun >/dev/null || { echo "cli_dist_mpi: skipped: no mpirun"; exit 77; }
"$FDX" info 2>/dev/null | grep -qi "mpi.*no" && { echo "cli_dist_mpi: skipped: built without MPI"; exit 77; }
export OMP_NUM_THREADS=1 FDX_BACKEND=cpu FDX_TUNE=off
# Under ASan (make test-asan) leak detection is off for the ranks: Open MPI
# and its plugins leave allocations at exit that LeakSanitizer reports.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
MPIRUN=(mpirun --allow-run-as-root --oversubscribe -x ASAN_OPTIONS)
fail=0
digest() { grep -o '"digest": "[0-9a-f]*"' | head -1; }

check() { # "np:gpus ..." model args...
    local want got combo np gpus combos=$1
    shift
    want=$("$FDX" dist "$@" --gpus 1 --reps 1 --json | digest)
    [ -n "$want" ] || { echo "FAIL: no digest from one process: dist $*"; fail=1; return; }
    for combo in $combos; do
        np=${combo%:*} gpus=${combo#*:}
        got=$("${MPIRUN[@]}" -np $np "$FDX" dist "$@" --gpus $gpus --reps 1 --json 2>&1 | digest)
        if [ "$got" != "$want" ]; then
            echo "FAIL: -np $np --gpus $gpus dist $*: $got, one unit $want"
            fail=1
        fi
    done
}

check "2:1 4:1 2:2" heat --size 37x41 --steps 6
check "2:1" wave --size 33x45 --steps 5 --order 4
check "4:1" wave --dims 3 --size 13x11x29 --steps 4 --order 2 --overlap off
check "2:2" heat --dims 3 --size 14x15x27 --steps 4 --order 6 --precision float

# fdx heat / wave --gpus K under mpirun: the checksum of the one-array run
# in one process, and only rank 0 reports.
sim_check() { # "np:gpus ..." kind args...
    local want got combo np gpus combos=$1 kind=$2
    shift 2
    # The one-array run takes no --overlap (a flag with no effect is an error).
    want=$("$FDX" $kind $(echo "$*" | sed 's/--overlap [a-z]*//') --progress off | grep checksum)
    for combo in $combos; do
        np=${combo%:*} gpus=${combo#*:}
        got=$("${MPIRUN[@]}" -np $np "$FDX" $kind "$@" --progress off --gpus $gpus 2>&1 | grep checksum)
        if [ -z "$want" ] || [ "$got" != "$want" ]; then
            echo "FAIL: -np $np $kind $* --gpus $gpus: '$got', one array '$want'"
            fail=1
        fi
    done
}
# fdx sor --gpus K under mpirun: the distributed ACROSS loop over ranks x
# units is bit for bit the one-unit loop (every rank checks; max_diff 0)
# and has the digest of one process.
sor_check() { # "np:gpus ..."
    local want got combo np gpus out
    want=$("$FDX" sor --size 17x17x17 --steps 3 --reps 1 --gpus 1 --json | digest)
    for combo in $1; do
        np=${combo%:*} gpus=${combo#*:}
        out=$("${MPIRUN[@]}" -np $np "$FDX" sor --size 17x17x17 --steps 3 --reps 1 --gpus $gpus --json 2>&1)
        got=$(digest <<<"$out")
        if [ -z "$want" ] || [ "$got" != "$want" ] || ! grep -q '"max_diff_one_unit": 0' <<<"$out" ||
           ! grep -q "\"ranks\": $np" <<<"$out"; then
            echo "FAIL: -np $np sor --gpus $gpus: $out (one unit $want)"
            fail=1
        fi
    done
}
sor_check "2:1 2:2"
# fdx aos --gpus K under mpirun: verified, the digest of one process.
aos_want=$("$FDX" aos --size 9x7x8 --steps 2 --reps 1 --gpus 1 --json | digest)
aos_out=$("${MPIRUN[@]}" -np 2 "$FDX" aos --size 9x7x8 --steps 2 --reps 1 --gpus 2 --json 2>&1)
if [ -z "$aos_want" ] || [ "$(digest <<<"$aos_out")" != "$aos_want" ] || ! grep -q '"verified": true' <<<"$aos_out"; then
    echo "FAIL: -np 2 aos --gpus 2: $aos_out (one unit $aos_want)"
    fail=1
fi
# fdx inside a program's own MPI: a split communicator (test_dist_comm; it
# also checks that skipping the exchange between ranks changes the result,
# so the digests compared here depend on it).
COMM_TEST=$(dirname "$FDX")/test_dist_comm
if [ -x "$COMM_TEST" ]; then
    out=$("${MPIRUN[@]}" -np 4 "$COMM_TEST" 2>&1) || { echo "FAIL: test_dist_comm under mpirun -np 4: $out"; fail=1; }
else
    echo "FAIL: tests/comm/test_dist_comm was not built next to fdx"; fail=1
fi

# The example examples/mpi/split_heat.c: two groups of a split world, each
# with its own distributed heat run (periodic x), each equal to one process.
EX=$(dirname "$FDX")/split_heat
if [ -x "$EX" ]; then
    for np in 2 4 5; do
        out=$("${MPIRUN[@]}" -np $np "$EX" 61 37 12 2>&1); rc=$?
        if [ $rc -ne 0 ] || [ "$(grep -c ': equal$' <<<"$out")" -ne 2 ]; then
            echo "FAIL: split_heat under mpirun -np $np (exit $rc): $out"; fail=1
        fi
    done
else
    echo "FAIL: examples/mpi/split_heat was not built next to fdx"; fail=1
fi

# Without --gpus under mpirun (issue 14 item 7): heat and wave run
# distributed over the ranks (one unit each), with the one-process
# checksum, one report and one writer of the output directory; Poisson
# (jacobi) refuses with exit 2 and one line a rank.
nogpus_check() { # kind args...
    local want got out kind=$1 tmp
    shift
    want=$("$FDX" $kind "$@" --progress off | grep checksum)
    tmp=$(mktemp -d)
    out=$("${MPIRUN[@]}" -np 2 "$FDX" $kind "$@" --progress off --output "$tmp/run" 2>&1)
    got=$(grep checksum <<<"$out")
    if [ -z "$want" ] || [ "$got" != "$want" ] || ! grep -q "units *2 (2 ranks)" <<<"$out" ||
       ! grep -q '"ranks": 2' "$tmp/run/summary.json"; then
        echo "FAIL: mpirun -np 2 fdx $kind $* without --gpus: $out (one process: $want)"; fail=1
    fi
    rm -rf "$tmp"
}
nogpus_check heat --size 37x41 --steps 20 --init random
nogpus_check wave --size 33x45 --steps 20 --order 4 --sponge 4
err=$("${MPIRUN[@]}" -np 2 "$FDX" poisson --method jacobi --size 17x17 --steps 5 2>&1 >/dev/null); rc=$?
if [ $rc != 2 ] || [ "$(grep -c "^fdx poisson: error: started by mpirun" <<<"$err")" != 2 ]; then
    echo "FAIL: mpirun -np 2 fdx poisson --method jacobi: exit $rc, $err"; fail=1
fi
# fdx dist under mpirun runs the simulation's path: the checksum of the
# `fdx wave --gpus K` command it names, in one process.
out=$("${MPIRUN[@]}" -np 2 "$FDX" dist wave --size 33x45 --steps 30 --order 4 --gpus 2 --reps 1 2>&1)
cmd=$(sed -n 's/^  same run as *//p' <<<"$out")
want=$("$FDX" ${cmd#fdx } --progress off 2>&1 | grep "^  checksum")
if [ -z "$want" ] || [ "$(grep "^  checksum" <<<"$out")" != "$want" ] || ! grep -q "(2 ranks x 2)" <<<"$out"; then
    echo "FAIL: mpirun -np 2 fdx dist wave --gpus 2: $out; $cmd in one process: $want"; fail=1
fi

sim_check "2:1 4:1 2:2" heat --size 37x41 --steps 20 --init random
sim_check "2:1 4:1" wave --size 33x45 --steps 20 --order 4 --sponge 4
sim_check "2:2" wave --size 15x13x35 --steps 10 --order 2 --sponge 2 --overlap off
[ $fail = 0 ] && echo "cli_dist_mpi: ok"
exit $fail
