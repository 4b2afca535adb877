#!/usr/bin/env bash
# v0.24 device call 1: PERFORMANCE.md "Next" 1 -- the persistent d=256 role-split backward (prepared in v0.23,
# never run). Its forced check path first (a race or a hang would show there); the probe (run 12) only if it passed.
export PYTHONPATH=src
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > "$OUT/gpu.txt"
python3 -c "import torch, triton; print(torch.__version__, triton.__version__, torch.backends.cudnn.version())" >> "$OUT/gpu.txt"
timeout 190 python3 -m flashio.check --skip-timing --skip-default-cases --case-timeout 150 \
    --paths "persistent role-split at d=256" > "$OUT/check_run34_split_persistent.txt" 2>&1
rc=$?
echo "check rc $rc" >> "$OUT/check_run34_split_persistent.txt"
grep -c PASS "$OUT/check_run34_split_persistent.txt"; grep -v PASS "$OUT/check_run34_split_persistent.txt" | tail -15
if [ $rc -ne 0 ] || grep -q FAIL "$OUT/check_run34_split_persistent.txt"; then echo "check did not pass; probe skipped"; exit 0; fi
FLASHIO_TUNING_CACHE=off timeout 370 python3 benchmarks/experiments/fused_backward_persistent/probe.py \
    --head-dims 256 --rounds 3 --forms "tuned" "role split persistent" "role split persistent, split tail" \
    > "$OUT/probe_bwd_run12_d256.txt" 2>&1
echo "probe rc $?" >> "$OUT/probe_bwd_run12_d256.txt"
tail -40 "$OUT/probe_bwd_run12_d256.txt"
