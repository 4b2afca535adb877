#!/bin/bash
# v0.36 call 1: the persistent forward's per-tile times, warm against after another kernel (round_times.py).
set -x
export PYTHONPATH=src FLASHIO_TUNING_CACHE=off TRITON_CACHE_DIR=$(mktemp -d)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw --format=csv
timeout 200 python3 benchmarks/experiments/forward_short/round_times.py --points 128:causal:1024 --forms 2 1 --turns 30 2>&1 | tee $OUT/round_times_128c1k.txt
timeout 180 python3 benchmarks/experiments/forward_short/round_times.py --points 128:causal:2048 128:noncausal:1024 --forms 2 --turns 30 2>&1 | tee $OUT/round_times_128.txt
timeout 120 python3 benchmarks/experiments/forward_short/round_times.py --points 256:causal:1024 --forms 1 --turns 30 2>&1 | tee $OUT/round_times_256.txt
