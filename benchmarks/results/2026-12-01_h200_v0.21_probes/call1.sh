#!/usr/bin/env bash
# v0.21 device call 1: forced check paths of the prepared kernels, then backward probe run 8 at d=128.
export PYTHONPATH=src
{ nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv
  python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__, 'cudnn', torch.backends.cudnn.version())"; } > "$OUT/gpu.txt" 2>&1
timeout 200 python3 -m flashio.check --skip-timing --skip-default-cases --paths \
  "query blocks alternating" "forward: portable, masked loop unpipelined" "forward: tensor descriptors, 64x64 tiles" \
  > "$OUT/check_run21.txt" 2>&1; echo "check rc $?" >> "$OUT/check_run21.txt"
tail -25 "$OUT/check_run21.txt"
FLASHIO_TUNING_CACHE=off timeout 320 python3 benchmarks/experiments/fused_backward_persistent/probe.py \
  --head-dims 128 --rounds 3 --forms "ws persistent, LSE/D in shared, balanced, 3 stages, one dQ tile" \
  "alternating, 64x64, 2 stages" "alternating, 64x64, 3 stages" > "$OUT/probe_bwd_run8_d128.txt" 2>&1
echo "probe rc $?" >> "$OUT/probe_bwd_run8_d128.txt"
tail -30 "$OUT/probe_bwd_run8_d128.txt"
