#!/bin/bash
# cli_dist: fdx dist on CPU units in one process: same digest as one unit,
# a JSON record with the fields of a distributed run, usage errors with
# exit 2 and one line on stderr.
set -u
FDX=$1
export FDX_BACKEND=cpu FDX_TUNE=off
fail=0
out=$("$FDX" dist wave --size 40x37 --steps 5 --gpus 3 --reps 2 --json) || { echo "FAIL: fdx dist wave exit $?"; fail=1; }
for key in '"units": 3' '"ranks": 1' '"scaling_efficiency"' '"digest"' '"verified": true' '"max_abs_error": 0' '"overlap": true'; do
    grep -q "$key" <<<"$out" || { echo "FAIL: no $key in: $out"; fail=1; }
done
out=$("$FDX" dist heat --dims 3 --size 20x18x23 --steps 3 --gpus 4 --overlap off --reps 2) || { echo "FAIL: fdx dist heat exit $?"; fail=1; }
grep -q "same as 1 unit yes" <<<"$out" || { echo "FAIL: heat 3D on 4 units differs from one: $out"; fail=1; }
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
usage wave --dims 4
usage heat --size 10x10x10
usage wave --gpus 0
usage wave --precision int32
[ $fail = 0 ] && echo "cli_dist: ok"
exit $fail
