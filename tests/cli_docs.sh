#!/usr/bin/env bash
# The docs cannot drift from the tool: every command in a fenced block marked
# `sh fdx-test` in README.md and docs/*.md runs (CPU backend, in a scratch
# directory) and must exit 0; every flag of the README's synopsis block (the
# lines starting "fdx CMD") must be accepted by that command's --help or the
# global options.
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/tests/lib_cli.sh"
mkdir -p bin && ln -s "$fdx" bin/fdx
export PATH=$work/bin:$PATH FDX_BACKEND=cpu

# 1. Marked command blocks.
ncmd=0
for doc in "$root"/README.md "$root"/docs/*.md; do
  awk '/^```sh fdx-test/{on=1; next} /^```/{on=0} on && NF && $1 != "#"' "$doc" > cmds.txt
  while IFS= read -r cmd; do
    checks=$((checks + 1)); ncmd=$((ncmd + 1))
    if ! (cd "$work" && bash -c "$cmd") > out.txt 2> err.txt; then
      echo "FAIL: $(basename "$doc"): '$cmd' -> exit $?:"; tail -3 err.txt
      fails=$((fails + 1))
    fi
  done < cmds.txt
done

# 2. The synopsis: the README block whose lines start with "fdx ".
"$fdx" --help > global.txt 2>&1
awk '/^```$/{blk++; next} {print blk "\t" $0}' "$root/README.md" |
  awk -F'\t' '$2 ~ /^fdx [a-z]/ {b=$1} b != "" && $1 == b {print $2}' > synopsis.txt
cmd=
while IFS= read -r line; do
  case $line in fdx\ [a-z]*) cmd=$(echo "$line" | awk '{print $2}') ;; esac
  # Commands named on a continuation line ("heat and wave also --gpus K").
  names="$cmd $(echo "$line" | grep -oE '\b(demo|heat|wave|poisson|laplacian|stencil|transform|sor|aos|dist|bench|info|lu|mg)\b' | tr '\n' ' ')"
  for flag in $(echo "$line" | grep -oE -- '--[a-z][a-z0-9-]*'); do
    [ "$flag" = --help ] || [ "$flag" = --version ] && continue
    checks=$((checks + 1)); ok=0
    grep -qE -- "(^|[ ,])$flag([ =,]|$)" global.txt && ok=1
    for n in $names; do
      "$fdx" "$n" --help 2>&1 | grep -qE -- "(^|[[ ,])$flag([] =,]|$)" && ok=1
    done
    if [ $ok = 0 ]; then
      echo "FAIL: README synopsis: '$flag' (line: $line) is not in the --help of: $names"
      fails=$((fails + 1))
    fi
  done
done < synopsis.txt

# 3. Environment variables: every FDX_* name the sources read (getenv/setenv,
#    the CLI's cli_knob_is) is a global option or an expert variable of
#    src/core/fdx_knobs.def, and `fdx --help` lists it: no undocumented
#    switch changes what fdx does.  The library reads them through its
#    tables only (fdx_knob(), the options; FDX_LOG also in fdx_log.c, which
#    runs before any options exist), the CLI through cli_knob_is; the tests'
#    switches are functions (include/fdx/internal/test_hooks.h), which no
#    file of the CLI includes.
grep -rhoE '(getenv|setenv|cli_knob_is)\("FDX_[A-Z0-9_]+"' "$root/src" "$root/tools" | sed 's/.*"\(FDX_[A-Z0-9_]*\)"/\1/' | sort -u > envread.txt
checks=$((checks + 1))
if grep -rn 'getenv("FDX_' "$root/src" "$root/tools" | grep -v '^[^:]*src/core/fdx_log.c:.*"FDX_LOG"' | grep -v 'fdx_knob.h:'; then
  echo "FAIL: the lines above read an FDX_* variable with getenv: use fdx_knob() (library) or cli_knob_is (CLI)"
  fails=$((fails + 1))
fi
checks=$((checks + 1))
if grep -rln 'test_hooks\.h' "$root/tools"; then
  echo "FAIL: the files above (CLI) include the tests' hooks"
  fails=$((fails + 1))
fi
while IFS= read -r var; do
  checks=$((checks + 1))
  if ! grep -qE "(^| )$var( |$)" global.txt; then
    echo "FAIL: the sources read $var, which 'fdx --help' does not list (add it to src/core/fdx_knobs.def)"
    fails=$((fails + 1))
  fi
done < envread.txt
grep -q FDX_LAYOUT_TILE global.txt || { echo "FAIL: 'fdx --help' lists no expert environment variables"; fails=$((fails + 1)); }

echo "cli_docs: $ncmd documented commands run, $checks checks, $fails failed"
[ $fails -eq 0 ]
