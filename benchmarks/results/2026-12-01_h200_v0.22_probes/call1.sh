#!/usr/bin/env bash
# v0.22 device call 1: forced check paths of the deferred dV/dK backward, then backward probe run 9 at d=128.
export PYTHONPATH=src
{ nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv
  python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__, 'cudnn', torch.backends.cudnn.version())"; } > "$OUT/gpu.txt" 2>&1
timeout 230 python3 -m flashio.check --skip-timing --skip-default-cases \
  --paths "dK/dV products deferred" "dV products deferred" > "$OUT/check_run24_deferred.txt" 2>&1
echo "check rc $?" >> "$OUT/check_run24_deferred.txt"
grep -c PASS "$OUT/check_run24_deferred.txt"; grep -v PASS "$OUT/check_run24_deferred.txt" | tail -12
FLASHIO_TUNING_CACHE=off timeout 280 python3 benchmarks/experiments/fused_backward_persistent/probe.py \
  --head-dims 128 --rounds 3 --forms "ws persistent, LSE/D in shared, balanced, 3 stages, one dQ tile" \
  "ws persistent, LSE/D in shared, balanced, 3 stages, one dQ tile, deferred dV" \
  "ws persistent, LSE/D in shared, balanced, two dS tiles, 3 stages, one dQ tile, deferred dV" \
  "ws, LSE/D in shared" "ws, LSE/D in shared, 3 stages, one dQ tile, deferred dV" > "$OUT/probe_bwd_run9_d128.txt" 2>&1
echo "probe rc $?" >> "$OUT/probe_bwd_run9_d128.txt"
tail -30 "$OUT/probe_bwd_run9_d128.txt"
