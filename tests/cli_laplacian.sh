#!/usr/bin/env bash
# fdx laplacian end to end on the CPU: verifies, prints a table, and with
# --json one record carrying the schema's fields.
fdx=$(realpath "$1")
fails=0
check() { if ! eval "$1"; then echo "FAIL: $2"; fails=$((fails + 1)); fi; }

out=$("$fdx" laplacian --backend cpu --size 40x30x20 --reps 3); rc=$?
check '[ $rc -eq 0 ]' "table run exit $rc"
check 'grep -q "verified       yes" <<<"$out"' "table says verified: $out"
check 'grep -q "ratio to copy" <<<"$out"' "table has the ratio"

json=$("$fdx" laplacian --backend cpu --size 65x33 --precision float --reps 3 --json); rc=$?
check '[ $rc -eq 0 ]' "json run exit $rc"
check '[ $(wc -l <<<"$json") -eq 1 ]' "one record"
for field in '"case": "laplacian"' '"backend": "cpu"' '"precision": "float"' '"shape": \[65, 33\]' \
             '"verified": true' '"effective_gbps"' '"copy_gbps"' '"ratio_to_copy"' '"median"' '"fetch"'; do
  check 'grep -q "$field" <<<"$json"' "record has $field: $json"
done
if command -v python3 >/dev/null; then
  check 'python3 -c "import json,sys; json.loads(sys.argv[1])" "$json"' "record parses as JSON"
fi
"$fdx" --help | grep -q laplacian; check '[ $? -eq 0 ]' "--help lists laplacian"
"$fdx" laplacian --help | grep -q -- --precision; check '[ $? -eq 0 ]' "laplacian --help lists --precision"
check '[ "$("$fdx" --version)" = "fdx 0.1.0" ]' "--version"
"$fdx" info --quick | grep -q "cpu"; check '[ $? -eq 0 ]' "info lists the cpu"
# info probes bandwidth only when asked (the probe was most of its time).
info=$("$fdx" info); check '! grep -q "copy" <<<"$info"' "plain info probes no bandwidth: $info"
"$fdx" info --bandwidth --json | grep -q '"copy_gbps"'; check '[ $? -eq 0 ]' "info --bandwidth measures the copy"
"$fdx" info --bandwidth --quick >/dev/null 2>&1; check '[ $? -eq 2 ]' "--bandwidth with --quick is a usage error"
echo "cli_laplacian: $((19 - fails)) passed, $fails failed"
[ $fails -eq 0 ]
