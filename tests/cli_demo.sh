#!/bin/bash
# cli_demo: fdx demo writes a valid animated GIF and PNG of the expected size
# with non-trivial content, and bad flags write nothing.  $1 = the fdx binary.
set -u
fdx=$1
check=$(dirname "$fdx")/test_io_images
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

start=$(date +%s.%N)
"$fdx" demo --output "$tmp/demo" > "$tmp/out.txt" || { echo "fdx demo failed"; cat "$tmp/out.txt"; exit 1; }
end=$(date +%s.%N)
cat "$tmp/out.txt"
echo "fdx demo took $(echo "$end - $start" | bc 2>/dev/null || echo '?') s (target: under 60 s)"
grep -q "pictures: $tmp/demo/demo.gif" "$tmp/out.txt" || { echo "demo does not say where the pictures are"; fail=1; }
# 400x160 cells at 2 pixels a cell; 8 held frames + 59 more.
"$check" "$tmp/demo/demo.png" "$tmp/demo/demo.gif" 800 320 60 || fail=1

# Another text, a smaller grid.
"$fdx" demo --text "Hi 42" --size 200x80 --steps 200 --frames 5 --output "$tmp/d2" > /dev/null || fail=1
"$check" "$tmp/d2/demo.png" "$tmp/d2/demo.gif" 800 320 5 || fail=1

# Bad input: exit 2, one error line, no output directory.
for args in "--steps x" "--frames 1" "--text ''" "--size 10x" "--nope"; do
  eval "\"$fdx\" demo $args --output \"$tmp/bad\"" > "$tmp/o" 2> "$tmp/e"
  rc=$?
  if [ $rc -ne 2 ] || [ "$(wc -l < "$tmp/e")" -ne 1 ] || [ -e "$tmp/bad" ]; then
    echo "demo $args: exit $rc, stderr: $(cat "$tmp/e")"; fail=1
  fi
done
# Unwritable output: exit 3.
# An output directory that cannot be made: a bad --output (exit 2), nothing on stdout.
"$fdx" demo --output /proc/fdx-demo-test > "$tmp/o" 2> "$tmp/e"
[ $? -eq 2 ] && [ ! -s "$tmp/o" ] || { echo "unwritable output: expected exit 2, nothing on stdout: $(cat "$tmp/e")"; fail=1; }
exit $fail
