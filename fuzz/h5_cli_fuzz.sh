#!/usr/bin/env bash
# h5_cli_fuzz: mutated HDF5 fields (byte flips, truncations, inserted
# garbage, overwritten runs) fed to fdx as an initial field (heat --input)
# and a velocity model (wave --model-file), for SECONDS.  The child-process
# reader must turn every one into exit 0, 2 or 3 with exactly one stderr line
# on failure (none on success), within a time limit: a signal or a hang of fdx
# is a failure.  Prints one summary line (docs/RELIABILITY.md quotes it).
# Usage: h5_cli_fuzz.sh FDX SECONDS [KEEP_DIR]   (inputs that fail go to KEEP_DIR)
set -u
fdx=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
secs=${2:-60}
keep=${3:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
export FDX_BACKEND=cpu FDX_THREADS=1 FDX_CACHE_DIR="$tmp/cache"

# Seeds: fields fdx writes itself, float and double, 2D and 3D.
"$fdx" heat --size 12x10 --init gaussian --steps 2 --output s1 --progress off > /dev/null 2>&1
"$fdx" heat --size 12x10 --init gaussian --steps 2 --precision double --output s2 --progress off > /dev/null 2>&1
"$fdx" heat --size 6x5x4 --init gaussian --steps 2 --output s3 --progress off > /dev/null 2>&1
seeds=()
for d in s1 s2 s3; do
  f=$(ls $d/fields/*.h5 2> /dev/null | tail -1)
  [ -n "$f" ] && cp "$f" "seed_$d.h5" && seeds+=("seed_$d.h5")
done
# A file that crashes libhdf5 1.10.8 itself (found by fuzz_h5): its
# mutations keep the crash path of the child-process reader exercised.
crash=$here/../tests/hostile/hdf5_crash.h5
[ ${#seeds[@]} -gt 0 ] && [ -r "$crash" ] && cp "$crash" seed_crash.h5 && seeds+=(seed_crash.h5)
[ ${#seeds[@]} -gt 0 ] || { echo "h5_cli_fuzz: skipped: fdx wrote no HDF5 field (built without HDF5?)"; exit 0; }

rnd() { echo $(((RANDOM << 15 | RANDOM) % $1)); }
mutate() { # mutate SEED OUT: one to four random edits
  cp "$1" "$2"
  local size edits e n at
  edits=$((1 + $(rnd 4)))
  for ((e = 0; e < edits; e++)); do
    size=$(stat -c %s "$2")
    [ "$size" -gt 1 ] || break
    at=$(rnd "$size")
    case $(rnd 6) in
      0 | 1) printf "\\x$(printf %02x $(rnd 256))" | dd of="$2" bs=1 seek="$at" conv=notrunc 2> /dev/null ;;
      2) head -c "$at" "$2" > "$2.t" && mv "$2.t" "$2" ;;
      3) n=$((1 + $(rnd 64)))
         { head -c "$at" "$2"; head -c "$n" /dev/urandom; tail -c +$((at + 1)) "$2"; } > "$2.t" && mv "$2.t" "$2" ;;
      4) n=$((1 + $(rnd 16)))
         head -c "$n" /dev/urandom | dd of="$2" bs=1 seek="$at" conv=notrunc 2> /dev/null ;;
      5) printf '\377\377\377\377\377\377\377\377' | dd of="$2" bs=1 seek="$at" conv=notrunc 2> /dev/null ;;
    esac
  done
}

cases=0 ok=0 usage=0 runtime=0 caught=0 bad=0
end=$((SECONDS + secs))
while [ $SECONDS -lt $end ]; do
  seed=${seeds[$(rnd ${#seeds[@]})]}
  mutate "$seed" m.h5
  case $seed in
    seed_s3.h5) size=6x5x4 ;;
    *) size=12x10 ;;
  esac
  if [ $((cases % 2)) -eq 0 ]; then
    cmd=(heat --size $size --steps 1 --init file --input m.h5 --progress off)
  else
    cmd=(wave --size $size --order 2 --sponge 0 --steps 1 --model file --model-file m.h5 --progress off)
  fi
  timeout -k 2 60 "$fdx" "${cmd[@]}" > out.txt 2> err.txt
  rc=$?
  cases=$((cases + 1))
  lines=$(wc -l < err.txt)
  why=""
  case $rc in
    0) ok=$((ok + 1)); [ "$lines" -eq 0 ] || why="exit 0 with $lines stderr lines" ;;
    2) usage=$((usage + 1)); [ "$lines" -eq 1 ] || why="exit 2 with $lines stderr lines" ;;
    3) runtime=$((runtime + 1)); [ "$lines" -eq 1 ] || why="exit 3 with $lines stderr lines"
       grep -q "reader crashed\|reader failed\|reader timed out" err.txt && caught=$((caught + 1)) ;;
    124 | 137) why="hung" ;;
    *) why="exit $rc" ;;
  esac
  if [ -n "$why" ]; then
    bad=$((bad + 1))
    echo "h5_cli_fuzz: FAIL ($why): fdx ${cmd[*]}"; head -n 3 err.txt
    [ -n "$keep" ] && mkdir -p "$keep" && cp m.h5 "$keep/fail_$cases.h5"
  fi
  [ -n "$keep" ] && [ "$rc" -eq 3 ] && mkdir -p "$keep" && cp m.h5 "$keep/exit3_$cases.h5"
done
echo "h5_cli_fuzz: $cases cases in $secs s: $ok exit 0, $usage exit 2, $runtime exit 3 ($caught reader crashes or hangs caught), $bad failures of fdx"
[ $bad -eq 0 ]
