#!/usr/bin/env bash
# v0.29 device call 6 (prepared, not run): the causal balanced lists with pairs across two heads (probe-only
# benchmarks/experiments/tile_orders.py: block i of head h with block n - 1 - i of head h + 1). Forward probe run 33
# (the tuned Gluon persistent form and the Triton persistent form, each with and without) and backward probe run 14
# (the tuned fused backward with and without), d=128 and d=64, causal 1k-4k. Each probe compares a form's output
# (gradients) with a reference call's, so a list that misses or repeats a tile shows in its error column.
export PYTHONPATH=src
FLASHIO_TUNING_CACHE=off timeout 280 python3 benchmarks/experiments/forward_short/probe.py \
    --head-dims 128 64 --rounds 3 --skip-tuned --points causal:1024 causal:2048 causal:4096 \
    --forms "tuned persistent" "tuned persistent, cross-head pairs" "Triton ws persistent, balanced" \
    "Triton ws persistent, balanced, cross-head pairs" > "$OUT/probe_fwd_run33.txt" 2>&1
echo "rc $?" >> "$OUT/probe_fwd_run33.txt"
cut -c1-300 "$OUT/probe_fwd_run33.txt"
FLASHIO_TUNING_CACHE=off timeout 280 python3 benchmarks/experiments/fused_backward_persistent/probe.py \
    --head-dims 128 64 --rounds 3 --causal yes --seqlens 1024 2048 4096 \
    --forms "tuned, split tail" "tuned, split tail, cross-head pairs" > "$OUT/probe_bwd_run14.txt" 2>&1
echo "rc $?" >> "$OUT/probe_bwd_run14.txt"
cut -c1-300 "$OUT/probe_bwd_run14.txt"
