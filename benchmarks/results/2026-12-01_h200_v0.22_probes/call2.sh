#!/usr/bin/env bash
# v0.22 device call 2: backward probe run 9 at d=64 (deferred dV / dK+dV against the tuned forms).
export PYTHONPATH=src
FLASHIO_TUNING_CACHE=off timeout 300 python3 benchmarks/experiments/fused_backward_persistent/probe.py \
  --head-dims 64 --rounds 3 --forms "ws persistent, LSE/D in shared, balanced, two dS tiles, 3 stages" \
  "ws persistent, LSE/D in shared, balanced, two dS tiles, 4 stages" \
  "ws persistent, LSE/D in shared, balanced, two dS tiles, 4 stages, deferred dV" \
  "ws persistent, LSE/D in shared, balanced, 3 stages, deferred dK/dV" \
  "ws persistent, LSE/D in shared, balanced, two dS tiles, 4 stages, deferred dK/dV" > "$OUT/probe_bwd_run9_d64.txt" 2>&1
echo "probe rc $?" >> "$OUT/probe_bwd_run9_d64.txt"
tail -14 "$OUT/probe_bwd_run9_d64.txt"
