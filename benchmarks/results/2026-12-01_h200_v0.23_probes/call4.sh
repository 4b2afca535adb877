#!/usr/bin/env bash
# v0.23 device call 4: probe run 10 again with five rounds (call 1's three left the late dK/dV wait within
# 1-2% of the tuned forms, causal ahead, non-causal 16k behind), forms in the same order.
export PYTHONPATH=src
F="ws persistent, LSE/D in shared, balanced, two dS tiles"
FLASHIO_TUNING_CACHE=off timeout 500 python3 benchmarks/experiments/fused_backward_persistent/probe.py \
    --head-dims 64 --rounds 5 --forms "$F, 3 stages" "$F, 4 stages" "$F, 3 stages, late dK/dV wait" \
    "$F, 4 stages, late dK/dV wait" > "$OUT/probe_bwd_run10b_d64.txt" 2>&1
echo "probe rc $?" >> "$OUT/probe_bwd_run10b_d64.txt"
tail -12 "$OUT/probe_bwd_run10b_d64.txt"
