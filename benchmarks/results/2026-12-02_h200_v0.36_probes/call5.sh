#!/bin/bash
# v0.36 call 5: forward probe run 39 -- the causal 1k lists with the tail (or every pair) assigned by measured tile
# times (tile_orders.measured_tile_costs) against the library's, median of 5 rounds; then the per-program exits with
# each list (round_times.py --order).
set -x
export PYTHONPATH=src FLASHIO_TUNING_CACHE=off TRITON_CACHE_DIR=$(mktemp -d)
timeout 200 python3 benchmarks/experiments/forward_short/probe.py --head-dims 128 64 --points causal:1024 --rounds 5 --skip-tuned --forms "tuned persistent" "tuned persistent, measured tile costs" "tuned persistent, measured tile costs in the tail" "tuned persistent, rotated pairs" 2>&1 | tee $OUT/probe_fwd_run39.txt
for order in measured-tail measured library; do
  timeout 90 python3 benchmarks/experiments/forward_short/round_times.py --points 128:causal:1024 --forms 2 --turns 20 --order $order 2>&1 | tee $OUT/round_times_128c1k_$order.txt
  timeout 90 python3 benchmarks/experiments/forward_short/round_times.py --points 64:causal:1024 --forms 1 --turns 20 --order $order 2>&1 | tee $OUT/round_times_64c1k_$order.txt
done
