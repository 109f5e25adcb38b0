# Untrusted input with a CUDA context alive (issue 13, trust-cli): the HDF5
# reader forks a child after CUDA is initialised; a good field must read,
# a wrong grid must be exit 2, the libhdf5-crashing file exit 3 with one
# line, and fdx must not hang or crash.  Then the hostile suite once on the
# GPU machine (it sets the CPU backend itself, as in CI): its figures must
# match docs/RELIABILITY.md.
set -u
export FDX_CACHE_DIR=${FDX_CACHE_DIR:-$PWD/build-gpu/trust-cache}
log=$OUT/trust.log
tmp=$(mktemp -d)
"$FDX_BIN" heat --backend cuda --size 96x64 --init gaussian --steps 2 --output "$tmp/run" --progress off > /dev/null 2>> "$log"
h5=$(ls "$tmp"/run/fields/*.h5 2> /dev/null | tail -1)
check() { # check WANT ARGS...
  local want=$1; shift
  timeout 120 "$FDX_BIN" "$@" --backend cuda --progress off > /dev/null 2> "$tmp/err"
  local rc=$? lines; lines=$(wc -l < "$tmp/err")
  local ok=FAIL; [ $rc -eq "$want" ] && { [ "$want" -eq 0 ] || [ "$lines" -eq 1 ]; } && ok=ok
  echo "trust: $ok: exit $rc (want $want), $lines stderr lines: fdx $*: $(head -c 200 "$tmp/err")" | tee -a "$log"
}
check 0 heat --size 96x64 --steps 2 --init file --input "$h5"
check 2 heat --size 64x64 --steps 2 --init file --input "$h5"
check 3 heat --size 96x64 --steps 2 --init file --input tests/hostile/hdf5_crash.h5
check 3 wave --size 96x64 --steps 2 --model file --model-file tests/hostile/hdf5_crash.h5
rm -rf "$tmp"
bash tests/cli_hostile.sh "$FDX_BIN" 2>&1 | tail -25 | tee -a "$log"
