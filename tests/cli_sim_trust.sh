#!/bin/bash
# cli_sim_trust: nothing a user produced is lost or mixed, and no silent
# wrong answers, through the fdx binary:
#   - restart continuity: a run stopped at step k (by --steps, by SIGINT) and
#     continued with --restart has the same receivers.csv, GIF frame count,
#     field series and checksum as the run that was never stopped;
#   - kill -9 loop: 20+ SIGKILLs at random moments, then a restart finishes
#     with the uninterrupted run's checksum and outputs, bit for bit;
#   - an output directory holding another run's files is refused (exit 2,
#     unchanged) unless --overwrite; a restart whose config differs names
#     the key; --restart "" is a usage error;
#   - a run that blows up stops with exit 1 naming the step;
#   - a field write over the file-size limit (SIGXFSZ ignored, EFBIG) or on a
#     full disk is exit 3 with no temporary file left;
#   - SIGINT during the first kernel compile exits 130 at once;
#   - a run that does not fit in memory is refused with the need and the limit;
#   - 2D fields: a field at step 0, XDMF as a one-point-thick 3D mesh in XY.
# $1 = the fdx binary.
set -u
fdx=$(realpath "$1")
frames_of="$(dirname "$fdx")/test_solvers_trust gif-frames"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fail=0
err() { echo "FAIL: $*"; fail=1; }
export FDX_THREADS=1
checksum() { grep 'checksum' "$1.out"; }   # the text summary: sum and L2 to 17 digits
same_files() {  # same_files A B LABEL: every field file and frame byte-identical
  for f in $(cd "$1" && ls fields/* frames/* 2> /dev/null); do cmp -s "$1/$f" "$2/$f" || err "$3: $f differs"; done
}
no_tmp() { find "$1" -name '*.tmp.*' | grep -q . && err "$2: temporary files left: $(find "$1" -name '*.tmp.*')"; }
rows_consecutive() {  # rows_consecutive CSV N: a header and rows 1..N in order
  awk -F, -v n="$2" 'NR == 1 { next } $1 != NR - 1 { bad = 1 } END { exit bad || NR - 1 != n }' "$1"
}

# ---- restart continuity: --steps k then --restart, vs straight ------------
W="--size 64x64 --sponge 8 --snapshot-every 10 --field-every 30 --progress off"
"$fdx" wave $W --steps 120 --output straight > straight.out 2> e || err "straight wave: $(cat e)"
"$fdx" wave $W --steps 50 --checkpoint-every 10 --output cont > /dev/null 2> e || err "wave to 50: $(cat e)"
"$fdx" wave --restart cont --steps 120 --progress off > cont.out 2> e || err "restart to 120: $(cat e)"
cmp -s straight/receivers.csv cont/receivers.csv || err "receivers.csv differs after --steps 50 + restart"
rows_consecutive cont/receivers.csv 120 || err "receivers.csv lacks rows 1..120"
[ "$($frames_of straight/animation.gif)" = 13 ] || err "straight GIF: $($frames_of straight/animation.gif) frames, expected 13"
[ "$($frames_of cont/animation.gif)" = "$($frames_of straight/animation.gif)" ] || err "continued GIF has $($frames_of cont/animation.gif) frames"
[ "$(ls straight/fields)" = "$(ls cont/fields)" ] || err "field series differ: $(ls cont/fields)"
[ "$(ls straight/frames)" = "$(ls cont/frames)" ] || err "frames differ"
cmp -s straight/fields.xdmf cont/fields.xdmf || err "fields.xdmf differs"
cmp -s straight/seismogram.png cont/seismogram.png || err "seismogram differs"
[ -n "$(checksum straight)" ] && [ "$(checksum straight)" = "$(checksum cont)" ] || err "checksum differs: $(checksum cont) vs $(checksum straight)"
same_files straight cont "continuity"
no_tmp cont "continuity"

# ---- SIGINT at some step N, then --restart: a row for every step ----------
"$fdx" wave --size 96x96 --steps 1000000 --checkpoint-every 1000 --output int --progress off > /dev/null 2> e &
pid=$!
sleep 1.5
kill -INT $pid
wait $pid
rc=$?
[ $rc -eq 130 ] || err "SIGINT: exit $rc: $(cat e)"
n=$(sed -n 's/.*interrupted at step \([0-9]*\);.*/\1/p' e)
[ -n "$n" ] && rows_consecutive int/receivers.csv "$n" || err "after SIGINT at step '$n': receivers.csv has $(($(wc -l < int/receivers.csv) - 1)) rows"
"$fdx" wave --restart int --steps $((n + 40)) --progress off > /dev/null 2> e || err "restart after SIGINT: $(cat e)"
rows_consecutive int/receivers.csv $((n + 40)) || err "after restart: receivers.csv is not rows 1..$((n + 40))"

# ---- kill -9 loop: 20+ kills at random moments, then finish ---------------
K="--size 96x96 --sponge 8 --steps 4000 --checkpoint-every 40 --snapshot-every 200 --field-every 1000 --progress off"
"$fdx" wave $K --output kstraight > kstraight.out 2> e || err "straight run for the kill loop: $(cat e)"
kills=0
for i in $(seq 1 200); do
  if [ -s kill/checkpoint.fdx ]; then
    "$fdx" wave --restart kill --steps 4000 --progress off > /dev/null 2> "e$i" &
  else
    "$fdx" wave $K --output kill --overwrite > /dev/null 2> "e$i" &
  fi
  pid=$!
  sleep "0.$(printf %03d $((RANDOM % 300 + 20)))"
  if kill -0 $pid 2> /dev/null; then
    kill -KILL $pid
    wait $pid 2> /dev/null
    kills=$((kills + 1))
  else
    wait $pid
    rc=$?
    [ $rc -eq 0 ] || err "run $i between kills: exit $rc: $(cat "e$i")"
    [ $kills -ge 20 ] && break
  fi
  [ $kills -ge 20 ] && break
done
[ $kills -ge 20 ] || err "only $kills kills landed"
"$fdx" wave --restart kill --steps 4000 --progress off > kill.out 2> e || err "final restart after $kills kills: $(cat e)"
[ -n "$(checksum kstraight)" ] && [ "$(checksum kill)" = "$(checksum kstraight)" ] || err "after $kills kills: checksum $(checksum kill) vs $(checksum kstraight)"
cmp -s kill/receivers.csv kstraight/receivers.csv || err "after $kills kills: receivers.csv differs"
[ "$($frames_of kill/animation.gif)" = "$($frames_of kstraight/animation.gif)" ] || err "after kills: GIF frames $($frames_of kill/animation.gif)"
[ "$(ls kill/fields)" = "$(ls kstraight/fields)" ] || err "after kills: fields $(ls kill/fields)"
cmp -s kill/fields.xdmf kstraight/fields.xdmf || err "after kills: fields.xdmf differs"
same_files kstraight kill "kill loop"
no_tmp kill "kill loop"
echo "kill -9 loop: $kills kills, restart matched the uninterrupted run"

# ---- an output directory of another run: refused, unchanged; --overwrite --
snapshot() { (cd "$1" && find . -type f -exec md5sum {} + | sort); }
"$fdx" heat --size 40x24 --steps 30 --snapshot-every 10 --output other --progress off > /dev/null 2>&1 || err "heat into other"
before=$(snapshot other)
"$fdx" heat --size 40x24 --steps 20 --output other --progress off > /dev/null 2> e
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l < e)" -eq 1 ] && grep -q "another run" e || err "reusing another run's directory: exit $rc: $(cat e)"
[ "$(snapshot other)" = "$before" ] || err "a refused run changed the directory"
"$fdx" heat --size 40x24 --steps 20 --output other --overwrite --progress off > /dev/null 2> e || err "--overwrite: $(cat e)"
[ -e other/frames/frame_00000030.png ] && err "--overwrite kept the old run's frame 30"
[ -e other/animation.gif ] && err "--overwrite kept the old run's GIF"
mkdir -p mine && echo keep > mine/notes.txt
"$fdx" heat --size 40x24 --steps 5 --output mine --progress off > /dev/null 2> e || err "a directory with only user files: $(cat e)"
[ "$(cat mine/notes.txt)" = keep ] || err "user file changed"

# ---- restart config mismatch, --restart "" ---------------------------------
"$fdx" heat --size 40x24 --steps 30 --checkpoint-every 10 --output ck --progress off > /dev/null 2>&1 || err "heat into ck"
for kv in "--order 4" "--precision double" "--size 48x24" "--kappa 3" "--init gaussian"; do
  "$fdx" heat --restart ck $kv --steps 40 --progress off > /dev/null 2> e
  rc=$?
  key=${kv%% *}; key=${key#--}
  [ $rc -eq 2 ] && grep -q "$key = .* differs from the checkpoint" e || err "restart with $kv: exit $rc: $(cat e)"
done
"$fdx" heat --restart "" --progress off > /dev/null 2> e
[ $? -eq 2 ] && grep -q "empty" e || err "--restart \"\": $(cat e)"

# ---- blow-up: a field of +-FLT_MAX stripes overflows at the first step ----
"$fdx" heat --size 40x24 --steps 1 --init sine --output src --progress off > /dev/null 2>&1 || err "heat for the input"
cp src/fields/u_00000001.h5 huge.h5
size=$(stat -c %s huge.h5)
for i in $(seq 1 480); do printf '\xff\xff\x7f\x7f\xff\xff\x7f\xff'; done > stripes.bin
dd if=stripes.bin of=huge.h5 bs=1 seek=$((size - 40 * 24 * 4)) conv=notrunc status=none
"$fdx" heat --size 40x24 --init file --input huge.h5 --steps 50 --output blow --progress off > /dev/null 2> e
rc=$?
[ $rc -eq 1 ] && grep -q "not finite (NaN or Inf) at step 5," e && [ "$(wc -l < e)" -eq 1 ] || err "blow-up: exit $rc: $(cat e)"
[ -e blow/checkpoint.fdx ] && err "a blown-up run wrote a checkpoint"

# ---- file-size limit and full disk during field writes: exit 3, no temporaries
(ulimit -f 100; "$fdx" heat --size 256x256 --steps 20 --field-every 10 --output big --progress off > /dev/null 2> e)
rc=$?
[ $rc -eq 3 ] && grep -q "File too large" e || err "ulimit -f: exit $rc: $(cat e)"
no_tmp big "file-size limit"
if mkdir -p full && mount -t tmpfs -o size=300k tmpfs full 2> /dev/null; then
  "$fdx" heat --size 256x256 --steps 20 --field-every 10 --output full/run --progress off > /dev/null 2> e
  rc=$?
  [ $rc -eq 3 ] && grep -q "No space left" e || err "full disk: exit $rc: $(cat e)"
  no_tmp full "full disk"
  umount full
else
  echo "full-disk case skipped: cannot mount a tmpfs here"
fi

# ---- SIGINT during the first compile: 130 at once, nothing written --------
FDX_CACHE_DIR="$tmp/cold-cache" "$fdx" wave --size 64x64 --order 12 --steps 100000 --output cold --progress off > /dev/null 2> e &
pid=$!
sleep 0.15
t0=$(date +%s%N)
kill -INT $pid
wait $pid
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
[ $rc -eq 130 ] || err "SIGINT during the first compile: exit $rc: $(cat e)"
[ $ms -lt 3000 ] || err "SIGINT took $ms ms to end the run"
[ -e cold ] && [ ! -s cold/checkpoint.fdx ] && err "SIGINT: an output directory without a checkpoint"
no_tmp . "SIGINT during compile"

# ---- memory: refused with the need and the limit --------------------------
"$fdx" heat --size 4000x4000x4000 --progress off > /dev/null 2> e
rc=$?
[ $rc -eq 2 ] && grep -q "needs .* GiB of host memory.* GiB available" e && [ "$(wc -l < e)" -eq 1 ] || err "memory: exit $rc: $(cat e)"

# ---- 2D fields: step 0, XDMF in the XY plane; 3D unchanged ----------------
"$fdx" heat --size 40x24 --steps 20 --field-every 10 --output f2 --progress off > /dev/null 2>&1 || err "2D fields run"
[ -s f2/fields/u_00000000.h5 ] || err "no field at step 0"
[ "$(grep -c '<Time ' f2/fields.xdmf)" -eq 3 ] || err "XDMF should list steps 0, 10, 20"
[ "$(grep -c 'TopologyType="3DCoRectMesh" Dimensions="1 24 40"' f2/fields.xdmf)" -eq 3 ] || err "2D topology: $(grep Topology f2/fields.xdmf | head -1)"
[ "$(grep -c 'DataItem Dimensions="1 24 40" NumberType' f2/fields.xdmf)" -eq 3 ] || err "2D attribute dims: $(grep NumberType f2/fields.xdmf | head -1)"
grep -q 'GeometryType="ORIGIN_DXDYDZ"' f2/fields.xdmf || err "2D geometry"
# The 2D field files read back as a 2D run's input.
"$fdx" heat --size 40x24 --steps 2 --init file --input f2/fields/u_00000020.h5 --progress off > /dev/null 2> e || err "2D field as input: $(cat e)"
"$fdx" heat --size 24x20x16 --steps 4 --field-every 2 --output f3 --progress off > /dev/null 2>&1 || err "3D fields run"
grep -q 'Dimensions="16 20 24"' f3/fields.xdmf || err "3D topology: $(grep Topology f3/fields.xdmf | head -1)"
exit $fail
