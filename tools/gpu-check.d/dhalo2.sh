# Deep halos on 2+ GPUs (issue 20 item 4; target: parallel efficiency >= 0.92
# for the 2D 8th-order wave 4096^2 float on 2 H200s): `fdx bench dhalo`, one
# unit a GPU, depths k = DHALO2_K (default 2 3 4 6), each against one unit
# and one step a pass, bit for bit.  Skipped on a machine of one GPU (the
# temporal section's dhalo part covers 2 units of one device).  A 2-GPU lease
# in one call: tools/gpu-check dacross mgdist dhalo2 (about 3 minutes).
set -u
ngpu=$(nvidia-smi -L 2>/dev/null | wc -l)
[ "$ngpu" -ge 2 ] || { echo "dhalo2: skipped: $ngpu GPU(s)"; exit 0; }
rec=$OUT/${GPU_CHECK_DATE}_${GPU_NAME}-x${ngpu}_dhalo.jsonl
for k in ${DHALO2_K:-2 3 4 6}; do
  for rep in 1 2; do
    timeout 60 "$FDX_BIN" bench dhalo --backend cuda --size "${DHALO2_SIZE:-4096x4096}" --gpus 2 --temporal "$k" \
      --steps 480 --json | tee -a "$rec" |
      grep -oE '"temporal": [0-9]+|"(ms_per_step_one_unit|ms_per_step|efficiency)": [0-9.]+|"verified": [a-z]+' | tr '\n' ' '
    echo
  done
done
