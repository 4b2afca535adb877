#!/usr/bin/env bash
# v0.21 device call 2: forward probe run 18 (d=64 short causal forward), then backward probe run 8 at d=64.
export PYTHONPATH=src
FLASHIO_TUNING_CACHE=off timeout 200 python3 benchmarks/experiments/forward_short/probe.py \
  --head-dims 64 --rounds 3 --points causal:1024 causal:2048 noncausal:1024 --forms \
  "Triton portable 64x64 (d=64)" "Triton portable 64x64, masked loop unpipelined (d=64)" \
  "Triton descriptors 64x64 (d=64)" "Triton descriptors 64x64, 4 stages (d=64)" > "$OUT/probe_fwd_run18_d64.txt" 2>&1
echo "probe rc $?" >> "$OUT/probe_fwd_run18_d64.txt"
tail -12 "$OUT/probe_fwd_run18_d64.txt"
FLASHIO_TUNING_CACHE=off timeout 300 python3 benchmarks/experiments/fused_backward_persistent/probe.py \
  --head-dims 64 --rounds 3 --forms "ws persistent, LSE/D in shared, balanced, two dS tiles, 3 stages" \
  "ws persistent, LSE/D in shared, balanced, two dS tiles, 4 stages" \
  "alternating, 64x64, 3 stages" "alternating, 64x64, 4 stages, K/V in registers" > "$OUT/probe_bwd_run8_d64.txt" 2>&1
echo "probe rc $?" >> "$OUT/probe_bwd_run8_d64.txt"
tail -14 "$OUT/probe_bwd_run8_d64.txt"
