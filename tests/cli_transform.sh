#!/usr/bin/env bash
# fdx transform and fdx bench transform: bad command lines give exit 2 and one
# stderr line naming the problem with nothing on stdout; a small run on the
# CPU verifies and prints a JSON record with the schema's fields.
. "$(dirname "$0")/lib_cli.sh" "$1"

expect_usage "required"          transform --perm 1,0
expect_usage "twice"             transform --size 4x5x6 --perm 0,0,1
expect_usage "out of range"      transform --size 4x5x6 --perm 0,1,3
expect_usage "has 2 axes"        transform --size 4x5x6 --perm 1,0
expect_usage "element size\|--elem" transform --size 4x5 --elem 3
expect_usage "--elem"            transform --size 4x5 --elem 32
expect_usage "diagonal"          transform --size 4x5 --diag sideways
expect_usage "rank >= 2"         transform --size 40 --diag main
expect_usage "--size"           transform --size 4x0x5
expect_usage "more than 6"       transform --size 2x2x2x2x2x2x2
expect_usage "expected ','"      transform --size 4x5 --perm 1:0
expect_usage "undiag"            transform --size 4x5 --undiag
expect_usage "unknown flag"      transform --size 4x5 --frob
expect_usage "count"             bench transform --count -1
expect_usage "unknown flag"      bench transform --frob
expect_usage "suite"             bench transform --suite foo
expect_usage "no effect"         bench transform --suite random --mib 4
expect_usage "no effect"         bench transform --suite random --elem 2
expect_usage "FDX_NAME=VALUE"    bench transform --variants default,bogus
expect_usage "FDX_NAME=VALUE"    bench transform --variants FDX_LAYOUT_SUBWORD
expect_usage "empty"             bench transform --variants default,,default
expect_usage "at most 8"         bench transform --variants default,default,default,default,default,default,default,default,default

checks=$((checks + 1))
if ! "$fdx" transform --backend cpu --size 5x31x17x3 --perm 1,2,3,0 --reps 3 --json >rec.json 2>err.txt ||
   ! grep -q '"verified": true' rec.json || ! grep -q '"ratio_to_copy"' rec.json || ! grep -q '"copy_gbps"' rec.json; then
  echo "FAIL: small CPU transform:"; cat rec.json err.txt; fails=$((fails + 1))
fi
checks=$((checks + 1))
if ! "$fdx" transform --backend cpu --size 37x23x4 --diag anti --undiag --elem 16 --reps 3 >table.txt 2>err.txt ||
   ! grep -q "yes" table.txt; then
  echo "FAIL: small CPU undiag:"; cat table.txt err.txt; fails=$((fails + 1))
fi
# the random-transform suite: 200 cases over ranks 2-6 and element sizes
# 1-16, every one between 1 MiB and 1 GiB, the same list for the same seed;
# a small one runs, verified, with its suite, seed and same-size ratio
"$fdx" bench transform --suite random --list >list.txt 2>err.txt
checks=$((checks + 1))
if [ "$(wc -l <list.txt)" -ne 200 ] || ! awk '{m=$(NF-1); if (m < 1 || m > 1024) bad=1} END {exit bad}' list.txt ||
   [ "$(awk '{print split($2, x, "x")}' list.txt | sort -u | tr -d '\n')" != 23456 ] ||
   [ "$(awk '{print $6}' list.txt | sort -nu | tr '\n' ' ')" != "1 2 4 8 16 " ] ||
   ! "$fdx" bench transform --suite random --list | cmp -s - list.txt ||
   "$fdx" bench transform --suite random --list --seed 2 | cmp -s - list.txt; then
  echo "FAIL: bench transform --suite random --list:"; head -5 list.txt; cat err.txt; fails=$((fails + 1))
fi
small=$(awk '$(NF-1) < 2 {print $1; exit}' list.txt)
# --only with a list of prefixes: exactly those cases, in suite order; a
# list that selects nothing (",") is a usage error
checks=$((checks + 1))
"$fdx" bench transform --suite random --only , --list >/dev/null 2>err.txt
rc=$?
if [ $rc -ne 2 ] ||
   [ "$("$fdx" bench transform --suite random --only rt1-171,rt1-004,rt1-19 --list 2>>err.txt | awk '{print $1}' | tr '\n' ' ')" != \
     "rt1-004 rt1-171 rt1-190 rt1-191 rt1-192 rt1-193 rt1-194 rt1-195 rt1-196 rt1-197 rt1-198 rt1-199 " ]; then
  echo "FAIL: --only with a list of prefixes:"; cat err.txt; fails=$((fails + 1))
fi
checks=$((checks + 1))
if [ -z "$small" ] || ! "$fdx" bench transform --backend cpu --suite random --only "$small" --reps 2 --json >rec.json 2>err.txt ||
   ! grep -q '"verified": true' rec.json || ! grep -q '"suite": "random-transform", "seed": 1' rec.json ||
   ! grep -q '"ratio_same_size"' rec.json; then
  echo "FAIL: random suite case '$small':"; cat rec.json err.txt; fails=$((fails + 1))
fi
# bad layout knob values: one warning each naming the value, the case still
# runs and verifies with the defaults
# (rt1-128: 1.3 MiB of 1-byte elements, kept rows of 13: the planner reads all four)
checks=$((checks + 1))
if ! FDX_LAYOUT_VEC=4:abc FDX_LAYOUT_SUBWORD=5 FDX_LAYOUT_TILE_WORDS=9 FDX_LAYOUT_GATHER=6 \
     "$fdx" bench transform --backend cpu --suite random --only rt1-128 --reps 1 --json >rec.json 2>err.txt ||
   ! grep -q '"verified": true' rec.json || [ "$(grep -c 'warning: FDX_LAYOUT_' err.txt)" -ne 4 ] ||
   ! grep -q 'FDX_LAYOUT_GATHER=6 is not an integer in 0..5' err.txt ||
   ! grep -q 'FDX_LAYOUT_VEC=4:abc: field 2 is not an integer' err.txt ||
   ! grep -q 'FDX_LAYOUT_SUBWORD=5 is not 0, 4, 8 or 16' err.txt || ! grep -q 'FDX_LAYOUT_TILE_WORDS=9 is not' err.txt; then
  echo "FAIL: bad layout knobs:"; cat rec.json err.txt; fails=$((fails + 1))
fi
# --variants: one verified record per variant, each tagged, the setting
# restored afterwards (the last record is the default again)
checks=$((checks + 1))
if [ -z "$small" ] || ! "$fdx" bench transform --backend cpu --suite random --only "$small" --reps 2 --json \
     --variants default,FDX_LAYOUT_SUBWORD=0+FDX_LAYOUT_SKEW=0,default >rec.json 2>err.txt ||
   [ "$(grep -c '"verified": true' rec.json)" -ne 3 ] ||
   [ "$(grep -o '"variant": "[^"]*"' rec.json | tr '\n' ' ')" != '"variant": "default" "variant": "FDX_LAYOUT_SUBWORD=0+FDX_LAYOUT_SKEW=0" "variant": "default" ' ]; then
  echo "FAIL: --variants:"; cat rec.json err.txt; fails=$((fails + 1))
fi
rm -f rec.json err.txt table.txt list.txt

left=$(ls -A | wc -l)
checks=$((checks + 1))
[ "$left" -eq 0 ] || { echo "FAIL: files left behind: $(ls -A)"; fails=$((fails + 1)); }
echo "cli_transform: $((checks - fails)) passed, $fails failed"
[ $fails -eq 0 ]
