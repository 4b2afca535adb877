#!/usr/bin/env bash
# v0.23 device call 1: the dV/dK wait moved to the next block at d=64 (late_key_gradient_wait). First the two
# forced check paths with the grid-shaped cases (a race would show there), then probe run 10, the late form
# against the same form waiting at each block's end, with three and four Q/dO slots.
export PYTHONPATH=src
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > "$OUT/gpu.txt"
python3 -c "import torch, triton; print(torch.__version__, triton.__version__, torch.backends.cudnn.version())" >> "$OUT/gpu.txt"
timeout 200 python3 -m flashio.check --skip-timing --skip-default-cases --case-timeout 120 \
    --paths "dV and dK waited at the next block" > "$OUT/check_run29_late_wait.txt" 2>&1
echo "check rc $?" >> "$OUT/check_run29_late_wait.txt"
grep -c PASS "$OUT/check_run29_late_wait.txt"; grep -v PASS "$OUT/check_run29_late_wait.txt" | tail -12
F="ws persistent, LSE/D in shared, balanced, two dS tiles"
FLASHIO_TUNING_CACHE=off timeout 330 python3 benchmarks/experiments/fused_backward_persistent/probe.py \
    --head-dims 64 --rounds 3 --forms "$F, 3 stages" "$F, 4 stages" "$F, 3 stages, late dK/dV wait" \
    "$F, 4 stages, late dK/dV wait" > "$OUT/probe_bwd_run10_d64.txt" 2>&1
echo "probe rc $?" >> "$OUT/probe_bwd_run10_d64.txt"
tail -40 "$OUT/probe_bwd_run10_d64.txt"
