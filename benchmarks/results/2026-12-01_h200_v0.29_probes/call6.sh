#!/usr/bin/env bash
# v0.29 device call 6 (prepared, not run): forward probe run 33, the causal balanced lists with pairs across two heads
# (probe-only ``cross_head_pairs``: query block i of head h with block n - 1 - i of head h + 1) against the tuned
# Gluon persistent form and the Triton persistent form, d=128 and d=64, causal 1k-4k. The forms' outputs are
# compared with the analytic default's in the probe's error column (a list that misses or repeats a tile shows there).
export PYTHONPATH=src
FLASHIO_TUNING_CACHE=off timeout 400 python3 benchmarks/experiments/forward_short/probe.py \
    --head-dims 128 64 --rounds 3 --skip-tuned --points causal:1024 causal:2048 causal:4096 \
    --forms "tuned persistent" "tuned persistent, cross-head pairs" "Triton ws persistent, balanced" \
    "Triton ws persistent, balanced, cross-head pairs" > "$OUT/probe_fwd_run33.txt" 2>&1
echo "rc $?" >> "$OUT/probe_fwd_run33.txt"
cut -c1-300 "$OUT/probe_fwd_run33.txt"
