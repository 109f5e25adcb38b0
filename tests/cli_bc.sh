#!/usr/bin/env bash
# fdx stencil --boundary on the CPU backend: verified records (interior and
# ghosts) for each kind, the "boundary" field, usage errors (exit 2, one
# line on stderr, nothing on stdout); and the periodic advection-diffusion
# example (examples/stencil/periodic_advdiff.c) when built beside fdx.
set -u
. "$(dirname "$0")/lib_cli.sh" "$1"
FDX=$fdx tmp=$work fail=0
err() { echo "FAIL: $*"; fail=1; }

for spec in "all=dirichlet:0.5" "all=periodic" "all=neumann:-1.25" "x=periodic,y-=dirichlet:2,y+=neumann,z-=none,z+=dirichlet:-1"; do
  rec=$("$FDX" stencil --backend cpu --order 4 --size 41x30x23 --precision float --reps 2 --boundary "$spec" --json) ||
    err "--boundary $spec exited $?"
  grep -qF '"verified": true' <<<"$rec" || err "--boundary $spec not verified: $rec"
  grep -qF '"boundary": "x-=' <<<"$rec" || err "--boundary $spec: no boundary field: $rec"
done
"$FDX" stencil --backend cpu --op heat --order 8 --size 301x77 --reps 2 --boundary x=periodic,y=dirichlet:1 |
  grep -q " yes$" || err "2D heat order 8 with boundaries"
"$FDX" stencil --backend cpu --op wave --order 6 --size 2001 --reps 2 --boundary x-=neumann:1,x+=dirichlet --json |
  grep -q '"verified": true' || err "1D wave order 6 with boundaries"
"$FDX" stencil --backend cpu --size 40x31x23 --reps 2 --json | grep -q '"boundary"' && err "interior-only record names a boundary"

expect_usage "^fdx .*: error: .*--boundary" stencil --backend cpu --size 40x31x23 --boundary x=robin
expect_usage "^fdx .*: error: .*--boundary" stencil --backend cpu --size 40x31x23 --boundary x-=periodic
expect_usage "^fdx .*: error: .*--boundary" stencil --backend cpu --size 40x31 --boundary z=dirichlet
expect_usage "^fdx .*: error: .*--boundary" stencil --backend cpu --size 40x31 --boundary x=dirichlet:1e999
expect_usage "^fdx .*: error: .*--boundary" stencil --backend cpu --size 40x31 --boundary x
expect_usage "^fdx .*: error: .*--boundary" stencil --backend cpu --size 40x11 --order 8 --boundary y=neumann

ex=$(dirname "$FDX")/periodic_advdiff
if [ -x "$ex" ]; then
  "$ex" >"$tmp/ex" 2>&1 || err "periodic_advdiff exited $?: $(tail -3 "$tmp/ex")"
  grep -q "^periodic_advdiff: ok" "$tmp/ex" || err "periodic_advdiff: $(tail -3 "$tmp/ex")"
else
  err "periodic_advdiff not built beside fdx"
fi
[ $fail = 0 ] && [ $fails = 0 ]
